"""Usage totals by project, day, session or model, from the items of many sessions.

A response that several files record (a resumed Claude Code session copies earlier lines into
its new file) is counted once: items with the same key keep the one with the largest output,
in the session where it was first met.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from klipui.usage.read import SessionUsage, Tokens, UsageItem

BY = ("project", "day", "session", "model")
UNKNOWN = "(unknown)"


@dataclass(slots=True)
class Row:
    """The totals of one project, day, session or model."""

    key: str
    tokens: Tokens = field(default_factory=Tokens)
    responses: int = 0
    """Model responses counted (an estimated session counts one)."""
    sessions: set[str] = field(default_factory=set)
    estimated: bool = False
    """True when part of the figures is an estimate."""
    cost: float = 0.0
    """USD recorded by the files (only some record it; see `costed`)."""
    costed: int = 0
    """Responses whose cost the file records."""

    def as_dict(self) -> dict[str, object]:
        return {
            "key": self.key,
            **self.tokens.as_dict(),
            "responses": self.responses,
            "sessions": len(self.sessions),
            "estimated": self.estimated,
            "cost_usd": round(self.cost, 6) if self.costed else None,
            "costed_responses": self.costed,
        }


@dataclass(slots=True)
class Report:
    """Rows in key order (days ascending, others by total, largest first), and the total."""

    by: str
    rows: list[Row]
    total: Row
    problems: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "by": self.by,
            "rows": [row.as_dict() for row in self.rows],
            "total": self.total.as_dict(),
            "problems": self.problems,
        }


def parse_since(text: str, today: date | None = None) -> date:
    """`YYYY-MM-DD`, or `Nd` / `Nw` for N days / weeks before today; ValueError otherwise."""
    text = text.strip()
    today = today or date.today()
    if text[:-1].isdigit() and text[-1:] in ("d", "w"):
        days = int(text[:-1]) * (7 if text[-1] == "w" else 1)
        return today - timedelta(days=days)
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ValueError(f"--since {text!r}: expected YYYY-MM-DD, Nd or Nw") from None


def unique_items(usages: Iterable[SessionUsage]) -> Iterator[tuple[SessionUsage, UsageItem]]:
    """Every item with its session, a repeated key once (its largest output, first session)."""
    keyed: dict[str, tuple[SessionUsage, UsageItem]] = {}
    order: list[tuple[SessionUsage, UsageItem] | str] = []
    for usage in usages:
        for item in usage.items:
            if item.key is None:
                order.append((usage, item))
                continue
            known = keyed.get(item.key)
            if known is None:
                keyed[item.key] = (usage, item)
                order.append(item.key)
            elif item.tokens.output > known[1].tokens.output:
                keyed[item.key] = (known[0], item)
    for entry in order:
        yield keyed[entry] if isinstance(entry, str) else entry


def day_of(when: float | None) -> str:
    """The local date of an epoch time, `YYYY-MM-DD`."""
    return datetime.fromtimestamp(when).date().isoformat() if when is not None else UNKNOWN


def _keyer(by: str) -> Callable[[SessionUsage, UsageItem], str]:
    if by == "project":
        return lambda usage, item: usage.project or UNKNOWN
    if by == "day":
        return lambda usage, item: day_of(item.time if item.time is not None else usage.updated)
    if by == "session":
        return lambda usage, item: str(usage.path)
    if by == "model":
        return lambda usage, item: item.model or ("(estimate)" if item.estimated else UNKNOWN)
    raise ValueError(f"unknown grouping {by!r} (one of {', '.join(BY)})")


def summarize(
    usages: Iterable[SessionUsage], by: str = "project", since: date | None = None
) -> Report:
    """The totals of `usages` grouped `by` project, day, session or model, counting only
    responses from `since` on (local dates; an item without a time takes its session's)."""
    key_of = _keyer(by)
    rows: dict[str, Row] = {}
    total = Row("total")
    problems: list[str] = []
    listed = list(usages)
    for usage in listed:
        if usage.problem:
            problems.append(usage.problem)
    for usage, item in unique_items(listed):
        when = item.time if item.time is not None else usage.updated
        if since is not None and (when is None or datetime.fromtimestamp(when).date() < since):
            continue
        key = key_of(usage, item)
        row = rows.get(key) or rows.setdefault(key, Row(key))
        for target in (row, total):
            target.tokens.add(item.tokens)
            target.responses += 1
            target.sessions.add(str(usage.path))
            target.estimated = target.estimated or item.estimated
            if item.cost is not None:
                target.cost += item.cost
                target.costed += 1
    if by == "day":
        ordered = sorted(rows.values(), key=lambda row: row.key)
    else:
        ordered = sorted(rows.values(), key=lambda row: (-row.tokens.total, row.key))
    return Report(by, ordered, total, problems)


def bar(value: int, largest: int, width: int = 20) -> str:
    """A bar of eighth-cell blocks, `width` cells long for `largest` (at least a sliver for
    any positive value, nothing for zero)."""
    if largest <= 0 or value <= 0 or width <= 0:
        return ""
    eighths = max(1, round(min(value, largest) * width * 8 / largest))
    full, part = divmod(eighths, 8)
    return "█" * full + ("" if not part else " ▏▎▍▌▋▊▉"[part])
