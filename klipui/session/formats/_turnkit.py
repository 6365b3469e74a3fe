"""Turn bookkeeping shared by the adapters, and the event log of pi and generic messages.

No format marks its turns: every adapter wraps them in synthetic `turn/start` / `turn/end`
events (origin None). `TurnBook` holds what they share: turn and step numbers, and when a turn
ends "completed" (its latest assistant message answered and no tool call waits), "interrupted"
(an unfinished turn followed by another, or one the format marks as interrupted), or stays open
(an unfinished last turn without such a mark).
`EventLog` (pi, messages) appends events with contiguous seqs and resolves tool results to the
seq of their `tool/call`; `_native.EventBuilder` (Claude Code, Codex) is the deferred-seq kind.
Native values are turned into lowered shapes by `klipui.session.formats._values`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from klipui.session.blocks import first_line
from klipui.session.formats._values import iso_ms, json_text
from klipui.session.model import Event

_STOP_REASONS = {
    "aborted": "aborted",
    "error": "error",
    "length": "max-tokens",
    "max_tokens": "max-tokens",
}


def as_ms(value: Any) -> int | None:
    """Epoch milliseconds from a number (ms) or an ISO string."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return int(value)
    return iso_ms(value)


def title_line(text: str | None) -> str | None:
    """The first non-blank line of a prompt, cut to 120 characters, as a title (None for none)."""
    return first_line(text or "")[:120] or None


def call_block(call_id: Any, name: Any, arguments: Any) -> dict[str, Any]:
    """A lowered `tool-call` block (`arguments` as JSON text)."""
    return {
        "type": "tool-call",
        "id": str(call_id or ""),
        "name": str(name or ""),
        "arguments": json_text(arguments),
    }


def text_blocks(content: Any) -> list[dict[str, Any]]:
    """A string content as one text block (an empty string gives none)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return []


class TurnBook:
    """The events of a lowering so far, with its turn and step numbers and whether the open
    turn looks finished."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.turn = 0
        """Number of the open turn; 0 before the first prompt (header events)."""
        self.step = 0
        self._open = False
        self._answered = False
        self._pending: set[str] = set()
        """Ids of the tool calls of the open turn that wait for a result."""
        self._last_time: int | None = None
        self._ended: str | None = None
        """How the open turn stopped, when the format says so (e.g. "interrupted")."""

    def ended(self, kind: str) -> None:
        """Record that the format marks the open turn as stopped (`kind`, e.g. "interrupted"):
        it ends so even as the last turn; a later reply in the same turn cancels it."""
        if self._open:
            self._ended = kind

    def next_step(self) -> int:
        """Number the next model step of the open turn."""
        self.step += 1
        return self.step

    def _append(self, event: Event) -> Event:
        self.events.append(event)
        if event.time is not None:
            self._last_time = event.time
        return event

    def _next_turn(self) -> None:
        """Open the next turn (the open one is closed by then)."""
        self.turn += 1
        self.step = 0
        self._open = True
        self._answered = False
        self._ended = None
        self._pending.clear()

    def _end_kind(self, *, final: bool, stop: str | None = None) -> str | None:
        """Close the open turn and give its end reason kind: `stop` when the format says how
        it stopped, else "completed" or "interrupted"; None when no turn is open or the last
        turn (`final`) looks unfinished."""
        if not self._open:
            return None
        self._open = False
        if stop is None:
            stop = self._ended
        if stop is not None:
            return stop
        if self._answered and not self._pending:
            return "completed"
        return None if final else "interrupted"


class EventLog(TurnBook):
    """Builds the event list of a session, turn by turn.

    Between turns nothing is open; `start_turn` closes the previous turn (its `turn/end`
    placed just before the new `turn/start`, so every event after a prompt belongs to that
    prompt's turn). `finish` closes the last turn only when it looks finished.
    """

    def __init__(self) -> None:
        super().__init__()
        self._calls: dict[str, int] = {}
        self._stop: str | None = None
        self._stop_detail: str | None = None

    def add(
        self,
        kind: str,
        data: dict[str, Any],
        *,
        time: int | None,
        origin: int | None,
        ignorable: bool = False,
        sources: list[int] | None = None,
    ) -> Event:
        """Append one event with the next seq."""
        return self._append(
            Event(
                type=kind,
                seq=len(self.events),
                time=time,
                data=data,
                source_event_seqs=sources,
                ignorable=ignorable,
                origin=origin,
            )
        )

    def start_turn(self, time: int | None) -> None:
        """Close the open turn and open the next one."""
        self._close(time, final=False)
        self._next_turn()
        self._stop = self._stop_detail = None
        self.add("turn/start", {"turn": self.turn}, time=time, origin=None)

    def user(
        self,
        message_id: str,
        content: list[dict[str, Any]],
        *,
        kind: str,
        time: int | None,
        origin: int,
        **extra: Any,
    ) -> Event:
        """A `user/message`; a real prompt (`kind` "user") opens a new turn first."""
        if kind == "user":
            self.start_turn(time)
        source: dict[str, Any] = {"kind": kind, **extra}
        data = {"id": message_id, "role": "user", "content": content, "source": source}
        return self.add("user/message", data, time=time, origin=origin)

    def assistant(
        self,
        message_id: str,
        content: list[dict[str, Any]],
        *,
        time: int | None,
        origin: int,
        model: str | None = None,
        provider: str | None = None,
        usage: Any = None,
        stop: str | None = None,
        stop_detail: str | None = None,
    ) -> Event:
        """An `assistant/message` as a new step; `stop` is the native stop reason."""
        step = self.next_step()
        source: dict[str, Any] = {"kind": "model"}
        if provider:
            source["provider"] = provider
        if model:
            source["model"] = model
        data: dict[str, Any] = {
            "turn": self.turn,
            "step": step,
            "message": {
                "id": message_id,
                "role": "assistant",
                "content": content,
                "source": source,
            },
        }
        if usage is not None:
            data["usage"] = usage
        self._stop = stop if isinstance(stop, str) else None
        self._stop_detail = stop_detail
        calls = any(block.get("type") == "tool-call" for block in content)
        self._answered = not calls and stop != "toolUse"
        self._ended = None
        return self.add("assistant/message", data, time=time, origin=origin)

    def call(
        self,
        call_id: str,
        name: str,
        arguments: str,
        *,
        time: int | None,
        origin: int,
        by_user: bool = False,
        **extra: Any,
    ) -> Event:
        """A `tool/call` of the current step (`by_user`: a command the user ran, no model step)."""
        data = {
            "turn": self.turn,
            "step": self.step,
            "callId": call_id,
            "name": name,
            "arguments": arguments,
            **extra,
        }
        event = self.add("tool/call", data, time=time, origin=origin)
        self._calls[call_id] = event.seq
        if not by_user:
            self._pending.add(call_id)
            self._answered = False
        return event

    def result(
        self,
        result_id: str,
        call_id: str,
        content: list[dict[str, Any]],
        *,
        is_error: bool,
        time: int | None,
        origin: int,
        **extra: Any,
    ) -> Event:
        """A `tool/result` citing the seq of its `tool/call` (no citation when there is none)."""
        call_seq = self._calls.get(call_id)
        block = {
            "type": "tool-result",
            "toolCallId": call_id,
            "content": content,
            "isError": is_error,
        }
        data = {
            "turn": self.turn,
            "step": self.step,
            "message": {
                "id": result_id,
                "role": "user",
                "content": [block],
                "source": {"kind": "tool", "callId": call_id},
            },
            **extra,
        }
        self._pending.discard(call_id)
        sources = [call_seq] if call_seq is not None else None
        return self.add("tool/result", data, time=time, origin=origin, sources=sources)

    def finish(self) -> list[Event]:
        """Close the last turn when it looks finished, and return the events."""
        self._close(self._last_time, final=True)
        return self.events

    def _close(self, time: int | None, *, final: bool) -> None:
        kind = self._end_kind(final=final, stop=_STOP_REASONS.get(self._stop or ""))
        if kind is None:
            return
        reason: dict[str, Any] = {"kind": kind}
        if kind == "error" and self._stop_detail:
            reason["error"] = {"message": self._stop_detail}
        self.add("turn/end", {"turn": self.turn, "reason": reason}, time=time, origin=None)


def first_seen_origins(events: Sequence[Event]) -> Iterator[int]:
    """The distinct origins of `events`, in order of first appearance."""
    seen: set[int] = set()
    for event in events:
        origin = event.origin
        if origin is None or origin in seen:
            continue
        seen.add(origin)
        yield origin
