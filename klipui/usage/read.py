"""Token usage recorded in session files, one item per model response.

What each agent writes (research/sessions.md):

- Claude Code: `message.usage` on assistant lines {input_tokens, output_tokens,
  cache_creation_input_tokens, cache_read_input_tokens}. One response is split over several
  lines that repeat its usage, and streaming can repeat a line with a growing output count, and
  a resumed session copies earlier lines into a new file: an item carries the key
  `message.id`+`requestId`, and a total counts each key once, with its largest output.
  Sub-agent transcripts (`<id>/subagents/**/agent-*.jsonl`) count towards their session.
- Codex: `event_msg` `token_count` with `info.total_token_usage` (running totals) and
  `info.last_token_usage` (that call). The same count is often written twice: a count whose
  running total did not move is skipped, and an item is the last usage (the growth of the total
  when a file has no last usage); on the real sample they add up to the final total exactly.
  `input_tokens` includes `cached_input_tokens`: input here is the uncached part, cache read
  the cached one.
- Children: a clipped or forked session copies its parent's records, so every item carries a
  key (response id, or time, with its counts) and a total counts each key once.
- pi: assistant `message.usage` {input, output, cacheRead, cacheWrite}.
- DeepSeek Harness: `assistant/message` events' `data.usage` {inputTokens, outputTokens,
  cacheReadTokens, cacheWriteTokens} (the `assistant/chunk` usage repeats it and is not read).

A session with no recorded usage (the generic messages format, or a file without it) gets one
item estimated from its text with klipui's token estimator, marked `estimated`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from klipui.session import SessionInfo, read_info
from klipui.session.jsonl import read_jsonl


@dataclass(slots=True)
class Tokens:
    """Token counts of one or more model calls."""

    input: int = 0
    """Input tokens not read from a cache."""
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write

    def add(self, other: Tokens) -> None:
        self.input += other.input
        self.output += other.output
        self.cache_read += other.cache_read
        self.cache_write += other.cache_write

    def as_dict(self) -> dict[str, int]:
        return {
            "input": self.input,
            "output": self.output,
            "cache_read": self.cache_read,
            "cache_write": self.cache_write,
            "total": self.total,
        }


@dataclass(slots=True)
class UsageItem:
    """The usage of one model response (or, estimated, of a whole session)."""

    tokens: Tokens
    time: float | None = None
    """Epoch seconds."""
    model: str | None = None
    key: str | None = None
    """Identity of the response when the format repeats it (Claude Code), else None."""
    estimated: bool = False
    cost: float | None = None
    """The cost in USD when the file records it (pi `usage.cost.total`, Claude Code's older
    `costUSD`), else None: no price table is applied."""


@dataclass(slots=True)
class SessionUsage:
    """The usage items of one session file (its sub-agents' included)."""

    path: Path
    format: str | None
    agent: str = ""
    project: str | None = None
    title: str | None = None
    updated: float | None = None
    items: list[UsageItem] = field(default_factory=list)
    problem: str | None = None


def session_usage(path: Path, info: SessionInfo | None = None) -> SessionUsage:
    """The usage recorded in the session at `path` (an estimate when it records none)."""
    info = info or read_info(path)
    usage = SessionUsage(
        path=Path(path),
        format=info.format,
        agent=info.agent,
        project=info.project or _project_of(info.cwd),
        title=info.title or info.first_prompt,
        updated=info.updated,
        problem=info.problem,
    )
    reader = _READERS.get(info.format or "")
    if info.problem or info.format is None:
        return usage
    try:
        if reader is not None:
            usage.items = list(reader(_values(path)))
            if info.format == "claude":
                for sub in claude_subagent_files(Path(path)):
                    usage.items.extend(_claude(_values(sub)))
        if not usage.items:
            usage.items = [_estimate(path, info)]
    except OSError as error:
        usage.problem = f"{path}: {error.strerror or error}"
    except Exception as error:  # one file must never end a usage report
        usage.items = []
        usage.problem = f"{path}: cannot be read ({type(error).__name__}: {str(error)[:120]})"
    return usage


def _project_of(cwd: str | None) -> str | None:
    return os.path.basename(cwd.rstrip("/\\")) or cwd if cwd else None


def _values(path: Path) -> Iterator[dict[str, Any]]:
    for record in read_jsonl(path).records:
        if isinstance(record.value, dict):
            yield record.value


def claude_subagent_files(path: Path) -> list[Path]:
    """Claude Code sub-agent transcripts kept beside a session: `<id>/subagents/**/*.jsonl`."""
    if path.name.startswith("agent-"):
        return []
    folder = path.parent / path.name.split(".", 1)[0] / "subagents"
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.rglob("*.jsonl") if p.is_file() and not p.is_symlink())


MAX_COUNT = 10**12
"""A token count above this is not one (a damaged or crafted file): it counts 0."""


def _int(value: Any) -> int:
    """A token count: a whole number from 0 to `MAX_COUNT` (bools, fractions, text, negatives
    and absurd sizes count 0)."""
    if type(value) is int and 0 < value <= MAX_COUNT:
        return value
    if type(value) is float and 0 < value <= MAX_COUNT and value.is_integer():
        return int(value)
    return 0


def _cost(value: Any) -> float | None:
    """A recorded cost in USD: a finite number from 0 to a million, else None."""
    if type(value) in (int, float) and 0 <= value <= 1e6:
        return float(value)
    return None


def _iso(value: Any) -> float | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _ms(value: Any) -> float | None:
    if type(value) in (int, float) and 0 < value < 1e14:
        return float(value) / 1000
    return None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _claude(values: Iterator[dict[str, Any]]) -> Iterator[UsageItem]:
    for value in values:
        message = value.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("usage"), dict):
            continue
        if value.get("type", "assistant") != "assistant" and message.get("role") != "assistant":
            continue
        model = _text(message.get("model"))
        if model == "<synthetic>":
            continue
        usage = message["usage"]
        tokens = Tokens(
            input=_int(usage.get("input_tokens")),
            output=_int(usage.get("output_tokens")),
            cache_read=_int(usage.get("cache_read_input_tokens")),
            cache_write=_int(usage.get("cache_creation_input_tokens")),
        )
        message_id = _text(message.get("id"))
        key = f"claude:{message_id}:{_text(value.get('requestId')) or ''}" if message_id else None
        cost = _cost(value.get("costUSD"))
        yield UsageItem(tokens, _iso(value.get("timestamp")), model, key, cost=cost)


_CODEX_FIELDS = ("input_tokens", "cached_input_tokens", "output_tokens")


def _codex_tokens(usage: Any) -> tuple[int, int, int] | None:
    if not isinstance(usage, dict):
        return None
    return tuple(_int(usage.get(name)) for name in _CODEX_FIELDS)  # type: ignore[return-value]


def _codex(values: Iterator[dict[str, Any]]) -> Iterator[UsageItem]:
    model: str | None = None
    previous: tuple[int, int, int] | None = None
    for value in values:
        payload = value.get("payload")
        if not isinstance(payload, dict):
            continue
        kind = value.get("type")
        if kind == "turn_context":
            model = _text(payload.get("model")) or model
            continue
        if kind != "event_msg" or payload.get("type") != "token_count":
            continue
        info = payload.get("info")
        if not isinstance(info, dict):
            continue
        model = _text(info.get("model")) or model
        total = _codex_tokens(info.get("total_token_usage"))
        last = _codex_tokens(info.get("last_token_usage"))
        if total is not None and total == previous:
            continue  # the same count written again
        if last is not None:
            counted = last
        elif total is None:
            continue
        elif previous is not None and all(a >= b for a, b in zip(total, previous, strict=True)):
            counted = tuple(a - b for a, b in zip(total, previous, strict=True))
        else:
            counted = total
        previous = total if total is not None else previous
        fresh, cached, output = counted
        tokens = Tokens(input=max(0, fresh - cached), output=output, cache_read=min(cached, fresh))
        if tokens.total:
            when = value.get("timestamp")
            key = f"codex:{when}:{total or last}"
            yield UsageItem(tokens, _iso(when), model, key)


def _pi(values: Iterator[dict[str, Any]]) -> Iterator[UsageItem]:
    for value in values:
        message = value.get("message")
        if value.get("type") != "message" or not isinstance(message, dict):
            continue
        usage = message.get("usage")
        if message.get("role") != "assistant" or not isinstance(usage, dict):
            continue
        tokens = Tokens(
            input=_int(usage.get("input")),
            output=_int(usage.get("output")),
            cache_read=_int(usage.get("cacheRead")),
            cache_write=_int(usage.get("cacheWrite")),
        )
        when = _ms(message.get("timestamp")) or _iso(value.get("timestamp"))
        stamp = message.get("timestamp") or value.get("timestamp")
        cost = usage.get("cost")
        yield UsageItem(
            tokens,
            when,
            _text(message.get("model")),
            _copy_key("pi", stamp, tokens),
            cost=_cost(cost.get("total")) if isinstance(cost, dict) else None,
        )


def _dsh(values: Iterator[dict[str, Any]]) -> Iterator[UsageItem]:
    for value in values:
        data = value.get("data")
        if value.get("type") != "assistant/message" or not isinstance(data, dict):
            continue
        usage = data.get("usage")
        if not isinstance(usage, dict):
            continue
        tokens = Tokens(
            input=_int(usage.get("inputTokens")),
            output=_int(usage.get("outputTokens")),
            cache_read=_int(usage.get("cacheReadTokens")),
            cache_write=_int(usage.get("cacheWriteTokens")),
        )
        message = data.get("message")
        source = message.get("source") if isinstance(message, dict) else None
        model = _text(source.get("model")) if isinstance(source, dict) else None
        ident = message.get("id") if isinstance(message, dict) else None
        key = _copy_key("dsh", ident or value.get("time"), tokens)
        yield UsageItem(tokens, _ms(value.get("time")), model, key)


def _copy_key(kind: str, ident: Any, tokens: Tokens) -> str | None:
    """The identity of a response that a clipped or forked child copies with it: its id or
    time with its counts (None when the record has neither)."""
    if not isinstance(ident, str | int | float) or isinstance(ident, bool):
        return None
    counts = (tokens.input, tokens.output, tokens.cache_read, tokens.cache_write)
    return f"{kind}:{ident}:{counts}"


_READERS = {"claude": _claude, "codex": _codex, "pi": _pi, "dsh": _dsh}


def _estimate(path: Path, info: SessionInfo) -> UsageItem:
    """One item for a session that records no usage: the estimated tokens of what the model
    wrote (output) and of everything else in it (input)."""
    from klipui.conversation import estimate_tokens
    from klipui.session import open_session
    from klipui.session.blocks import event_text

    session = open_session(path, subagents=False)
    tokens = Tokens()
    for event in session.events:
        if event.ignorable:
            continue
        count = estimate_tokens(event_text(event))
        if event.type.startswith("assistant/") or event.type == "tool/call":
            tokens.output += count
        else:
            tokens.input += count
    return UsageItem(tokens, info.updated or info.started, None, estimated=True)
