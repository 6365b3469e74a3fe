"""Turns from lowered events: the `turn/start` ... `turn/end` brackets and their figures."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from klipui.session.blocks import event_texts, first_line, iter_block_texts, tool_result_errors
from klipui.session.model import Event, Turn
from klipui.session.tokens import estimate_tokens

_TEXT_EVENTS = frozenset({"user/message", "assistant/message", "tool/call", "tool/result"})


def build_turns(events: Sequence[Event]) -> list[Turn]:
    """The turns of `events`, numbered from 1 in log order.

    A turn runs from a `turn/start` to its `turn/end` (inclusive), or up to the next `turn/start`
    or the end of the log when it never ended. Events between turns belong to none. Figures:
    `prompt` is the first line of the turn's first `user/message`; `tool_calls` counts `tool/call`
    events; `tokens` estimates message texts, tool arguments and tool results (tool-call blocks
    inside assistant messages are not counted twice); `errors` counts tool-result blocks marked
    `isError`; `completed` is True when a `turn/end` with reason kind "completed" closes it.
    """
    scan = TurnScan()
    for event in events:
        scan.add(event)
    return scan.finish()


class TurnScan:
    """`build_turns` one event at a time, so that an index can build turns without holding the
    events: `add` each event (or `skip` events that carry nothing a turn counts), then
    `finish`."""

    def __init__(self) -> None:
        self.turns: list[Turn] = []
        self.position = 0
        self._current: Turn | None = None
        self._prompt_found = False

    def skip(self, count: int) -> None:
        """Pass over `count` events that are neither turn brackets nor text events."""
        self.position += count

    @property
    def wants_prompt(self) -> bool:
        """Whether the next `user/message` gives the open turn its prompt."""
        return self._current is not None and not self._prompt_found

    def add(self, event: Event) -> None:
        """Take the next event."""
        kind = event.type
        if kind not in _TEXT_EVENTS or self._current is None:
            self.counted(kind, event.data.get("reason") if kind == "turn/end" else None)
            return
        prompt = None
        if kind == "user/message" and not self._prompt_found:
            prompt = first_line("\n".join(iter_block_texts(event.data.get("content"))))
        errors = tool_result_errors(event) if kind == "tool/result" else 0
        tokens = sum(estimate_tokens(text) for text in event_texts(event))
        self.counted(kind, None, tokens, errors, prompt)

    def counted(
        self,
        kind: str,
        reason: Any = None,
        tokens: int = 0,
        errors: int = 0,
        prompt: str | None = None,
    ) -> None:
        """Take the next event, its figures counted by the caller: `reason` of a `turn/end`,
        the `tokens` of a text event, the `errors` of a `tool/result`, and the `prompt` line of
        a `user/message` (needed only while `wants_prompt`)."""
        index = self.position
        self.position += 1
        current = self._current
        if kind == "turn/start":
            if current is not None:
                current.end = index
                self.turns.append(current)
            self._current = Turn(
                number=len(self.turns) + 1, start=index, end=index + 1, completed=False
            )
            self._prompt_found = False
            return
        if current is None:
            return
        if kind == "turn/end":
            current.completed = isinstance(reason, dict) and reason.get("kind") == "completed"
            current.end = index + 1
            self.turns.append(current)
            self._current = None
            return
        if kind not in _TEXT_EVENTS:
            return
        if kind == "tool/call":
            current.tool_calls += 1
        elif kind == "tool/result":
            current.errors += errors
        elif kind == "user/message" and not self._prompt_found:
            self._prompt_found = True
            current.prompt = prompt or ""
        current.tokens += tokens

    def finish(self) -> list[Turn]:
        """The turns, the last one closed at the end of the events when it never ended."""
        if self._current is not None:
            self._current.end = self.position
            self.turns.append(self._current)
            self._current = None
        return self.turns
