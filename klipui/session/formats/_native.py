"""Lowering helpers shared by the Claude Code and Codex adapters.

`EventBuilder` appends events in native record order and wraps turns in synthetic `turn/start` /
`turn/end` events (origin None). A turn may open a little *before* its prompt: the trailing
run of "lead-in" events (a Codex `turn_context`, a Claude meta line announcing a slash command)
is moved inside the new turn. Seqs are assigned once, by `finish`, and tool results cite their
call through the call's final seq.

An event lowered from several native records (Claude chunks of one `message.id`, Codex reasoning
+ message + calls of one model response) has `origin` = its first record and lists every record
index in `data["origins"]`; `record_indexes` gives them back, and raising writes each record once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from klipui.session.formats._turnkit import TurnBook
from klipui.session.model import Event

ORIGINS = "origins"
"""`data` key listing every record index of an event made from several records."""


def project_name(cwd: str) -> str:
    """The project a working directory stands for: its last path component."""
    return Path(cwd.rstrip("/\\")).name or cwd


def record_indexes(event: Event) -> list[int]:
    """Every native record index an event was lowered from (empty for synthetic events)."""
    many = event.data.get(ORIGINS) if isinstance(event.data, dict) else None
    if isinstance(many, list) and many:
        return many
    return [] if event.origin is None else [event.origin]


def kept_records(events: Iterable[Event]) -> list[int]:
    """The record indexes behind `events`, each once, in file order."""
    kept: set[int] = set()
    for event in events:
        kept.update(record_indexes(event))
    return sorted(kept)


class EventBuilder(TurnBook):
    """Accumulates lowered events and the turn brackets around them."""

    def __init__(self) -> None:
        super().__init__()
        self._calls: dict[str, Event] = {}
        self._citations: list[tuple[Event, Event]] = []

    def add(
        self,
        kind: str,
        data: dict[str, Any],
        *,
        time: int | None,
        origin: int | None,
        ignorable: bool = False,
    ) -> Event:
        """Append one event (its seq is set by `finish`)."""
        return self._append(
            Event(type=kind, seq=-1, time=time, data=data, ignorable=ignorable, origin=origin)
        )

    def start_turn(self, time: int | None, lead_in: Callable[[Event], bool] | None = None) -> None:
        """Close the open turn and open the next, pulling trailing `lead_in` events into it."""
        at = len(self.events)
        if lead_in is not None:
            while at > 0 and lead_in(self.events[at - 1]):
                at -= 1
        if at < len(self.events) and self.events[at].time is not None:
            time = self.events[at].time
        inserted: list[Event] = []
        end = self._end_event(final=False, time=self._time_before(at))
        if end is not None:
            inserted.append(end)
        self._next_turn()
        inserted.append(Event(type="turn/start", seq=-1, time=time, data={"turn": self.turn}))
        self.events[at:at] = inserted

    def answered(self, value: bool) -> None:
        """Record whether the latest assistant message ended the turn (no calls wanted); a
        reply cancels an earlier interruption mark of the turn."""
        self._answered = value
        self._ended = None

    def register_call(self, call_id: str, event: Event, *, awaited: bool) -> None:
        """Remember a `tool/call` so later results can cite it; `awaited` keeps the turn open."""
        self._calls.setdefault(call_id, event)
        if awaited:
            self._pending.add(call_id)
            self._answered = False

    def cite_call(self, call_id: str, result: Event) -> bool:
        """Make `result` cite the `tool/call` with `call_id`; False when there is none."""
        self._pending.discard(call_id)
        call = self._calls.get(call_id)
        if call is None:
            return False
        self._citations.append((result, call))
        return True

    def finish(self) -> list[Event]:
        """Close the last turn when it looks finished, assign seqs, resolve citations."""
        end = self._end_event(final=True, time=self._last_time)
        if end is not None:
            self.events.append(end)
        for seq, event in enumerate(self.events):
            event.seq = seq
        for result, call in self._citations:
            result.source_event_seqs = [call.seq]
        return self.events

    def _time_before(self, at: int) -> int | None:
        events = self.events
        for k in range(min(at, len(events)) - 1, -1, -1):  # no slice copy: called every turn
            time = events[k].time
            if time is not None:
                return time
        return None

    def _end_event(self, *, final: bool, time: int | None) -> Event | None:
        """The `turn/end` closing the open turn (None when it stays open, see `TurnBook`)."""
        kind = self._end_kind(final=final)
        if kind is None:
            return None
        data = {"turn": self.turn, "reason": {"kind": kind}}
        return Event(type="turn/end", seq=-1, time=time, data=data)


def replace_result_blocks(message: Any, call_id: str, text: str) -> bool:
    """Replace, in place, the content of the `tool_result` block answering `call_id` in an
    Anthropic-shaped message; True when one was found."""
    if not isinstance(message, dict) or not isinstance(message.get("content"), list):
        return False
    done = False
    for block in message["content"]:
        if (
            isinstance(block, dict)
            and block.get("type") == "tool_result"
            and block.get("tool_use_id") == call_id
        ):
            block["content"] = text
            done = True
    return done
