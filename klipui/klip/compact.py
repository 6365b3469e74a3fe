"""Compact a session: a child holding every turn, with each tool result over a budget replaced
by its shrunk text (which ends with a spill locator for the full original); nothing else changes.

The child is made like a clip of `..` that keeps an unfinished last turn too (compaction changes
no turn; `plan_child(..., include_unfinished=True)`), with an edit hook that shrinks the
big results: in the seed for dsh, in the native records for the other formats (the result block
of a Claude Code user line, a Codex `*_output` item, a pi `toolResult` or `bashExecution`
message, a generic `tool` message or `tool_result` block). Token figures use the project's
estimate (`klipui.conversation.tokens`).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from klipui.conversation.tokens import estimate_tokens
from klipui.klip.child import ChildPlan, load_session, plan_child
from klipui.session.blocks import event_text, event_texts
from klipui.session.formats import adapter
from klipui.session.model import Event, Session
from klipui.shrink import Budget, FileSpillStore, Hint, SpillStore, shrink
from klipui.shrink.hints import hint_for
from klipui.shrink.pipeline import MIN_CHARS

DEFAULT_MAX_CHARS = 8_000
"""Tool results longer than this are shrunk to fit it."""


@dataclass(slots=True, frozen=True)
class Replaced:
    """One tool result shrunk in the child."""

    seq: int
    """The result's seq in the parent."""
    tool: str
    chars_before: int
    chars_after: int
    locator: str | None
    strategy: str


@dataclass(slots=True)
class CompactPlan:
    """A compacted child, and what compaction did."""

    plan: ChildPlan
    max_chars: int
    replaced: list[Replaced] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """Big results that could not be located in their native record (one line each)."""
    tokens_before: int = 0
    tokens_after: int = 0
    over_budget: int = 0
    """Tool results longer than `max_chars` (shrunk or not)."""

    def nothing_shrunk(self) -> str:
        """Why no result was replaced, in one line."""
        if not self.over_budget:
            return f"no tool result is over {self.max_chars} characters"
        return (
            f"{self.over_budget} tool result(s) over {self.max_chars} characters, none of them "
            "could be shrunk"
        )

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return {
            **self.plan.to_dict(),
            "max_chars": self.max_chars,
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "replaced": [
                {
                    "seq": r.seq,
                    "tool": r.tool,
                    "chars_before": r.chars_before,
                    "chars_after": r.chars_after,
                    "locator": r.locator,
                    "strategy": r.strategy,
                }
                for r in self.replaced
            ],
            "skipped": self.skipped,
            "over_budget": self.over_budget,
        }


def session_tokens(events: Iterable[Event]) -> int:
    """Token estimate of every message text and tool argument in `events`."""
    return sum(estimate_tokens(text) for event in events for text in event_texts(event))


def plan_compact(
    source: Session | Path | str,
    *,
    max_chars: int = DEFAULT_MAX_CHARS,
    spill: SpillStore | None = None,
    out: Path | str | None = None,
    now: datetime | None = None,
) -> CompactPlan:
    """Make the compacted child of `source` without writing it (the originals are spilled)."""
    if max_chars < MIN_CHARS:
        raise ValueError(f"max_chars must be at least {MIN_CHARS}")
    session = load_session(source)
    store = spill if spill is not None else FileSpillStore(max_age=float("inf"))
    state = _Compactor(session, max_chars, store)
    plan = plan_child(session, "..", out=out, now=now, edit=state.edit, include_unfinished=True)
    before = session_tokens(session.events)
    saved = sum(state.tokens_saved)
    return CompactPlan(
        plan, max_chars, state.replaced, state.skipped, before, before - saved, state.over_budget
    )


class _Compactor:
    """The edit hook of `plan_child`: shrinks big tool results in the seed or the records."""

    def __init__(self, session: Session, max_chars: int, store: SpillStore) -> None:
        self.session = session
        self.max_chars = max_chars
        self.store = store
        self.replaced: list[Replaced] = []
        self.skipped: list[str] = []
        self.tokens_saved: list[int] = []
        self.over_budget = 0
        self.calls: dict[str, Event] = {
            str(e.data.get("callId")): e for e in session.events if e.type == "tool/call"
        }

    def edit(
        self, session: Session, kept: list[Event], seed: list[dict[str, Any]]
    ) -> dict[int, Any]:
        replacements: dict[int, Any] = {}
        writer = adapter(session.format)
        native = writer.native_events
        for position, event in enumerate(kept):
            if event.type != "tool/result":
                continue
            text = event_text(event)
            if len(text) <= self.max_chars:
                continue
            self.over_budget += 1
            call_id = _call_id(event)
            tool, hint = self._hint(call_id)
            shrunk = shrink(text, hint, Budget(max_chars=self.max_chars, max_lines=0), self.store)
            if not shrunk.reduced:
                continue
            if native:
                seed[position] = _seed_replaced(seed[position], shrunk.content)
            else:
                index = event.origin
                if index is None:
                    continue
                value = replacements.get(index, session.records[index].value)
                changed = writer.replace_result(value, call_id, shrunk.content)
                if changed is None:
                    self.skipped.append(f"seq {event.seq}: result of {call_id!r} not found")
                    continue
                replacements[index] = changed
            before = sum(estimate_tokens(t) for t in event_texts(event))
            self.tokens_saved.append(before - estimate_tokens(shrunk.content))
            self.replaced.append(
                Replaced(
                    event.seq,
                    tool,
                    len(text),
                    len(shrunk.content),
                    shrunk.locator,
                    shrunk.strategy,
                )
            )
        return replacements

    def _hint(self, call_id: str) -> tuple[str, Hint]:
        call = self.calls.get(call_id)
        if call is None:
            return "tool", Hint()
        name = str(call.data.get("name") or "tool")
        return name, hint_for(name, call.data.get("arguments"))


def _call_id(event: Event) -> str:
    message = event.data.get("message")
    if isinstance(message, dict):
        for block in message.get("content") or []:
            if isinstance(block, dict) and block.get("type") == "tool-result":
                return str(block.get("toolCallId") or "")
        source = message.get("source")
        if isinstance(source, dict) and source.get("callId"):
            return str(source["callId"])
    return ""


def _seed_replaced(event: dict[str, Any], text: str) -> dict[str, Any]:
    data = copy.deepcopy(event.get("data") or {})
    message = data.get("message") or {}
    for block in message.get("content") or []:
        if isinstance(block, dict) and block.get("type") == "tool-result":
            block["content"] = [{"type": "text", "text": text}]
    return {**event, "data": data}
