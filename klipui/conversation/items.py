"""What a turn shows, decided once for any viewer: one `Item` a block, in order.

`turn_items(session, start, end)` walks `session.events[start:end]` and says, for each event,
which blocks it shows (a prompt, the thinking and answer of an assistant message, a call, each
result of a tool-result event, images, a compaction, a rewound branch line, bookkeeping when
asked), with the texts cleaned of control and escape sequences, each result's shape (the
reducer that recognises it, given its paired call) and size, and the time its record was
written. A viewer only draws items; it never looks into events.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from klipui.conversation.calls import (
    Call,
    CallBody,
    call_of,
    call_of_event,
    call_view,
    json_text,
)
from klipui.session.blocks import blocks_text, message_content
from klipui.session.display import clean_line, clean_text
from klipui.session.model import Event, Session
from klipui.shrink import detect_shape
from klipui.shrink.hints import hint_for

HIDDEN_TYPES = frozenset({"turn/start", "turn/end", "step/start", "step/end"})
"""Bookkeeping events no viewer shows, even with every event asked for."""


class ItemKind(StrEnum):
    """What an item is (a viewer picks its look by it)."""

    PROMPT = "prompt"
    ASSISTANT = "assistant"
    THINKING = "thinking"
    CALL = "call"
    RESULT = "result"
    ERROR = "error"
    """A tool result marked as failed."""
    IMAGE = "image"
    COMPACTION = "compaction"
    TITLE = "title"
    BRANCH = "branch"
    """A line of a rewound (abandoned) branch: kept in the file, not in the conversation."""
    META = "meta"
    """Any other event (shown only when every event is asked for)."""


STAMPED = frozenset(
    {
        ItemKind.PROMPT,
        ItemKind.ASSISTANT,
        ItemKind.THINKING,
        ItemKind.CALL,
        ItemKind.RESULT,
        ItemKind.ERROR,
        ItemKind.COMPACTION,
    }
)
"""Kinds whose first item of an event carries the time its record was written."""


@dataclass(slots=True)
class Item:
    """One block of a turn as shown. Every string in it but `call_id` is cleaned for the
    screen."""

    kind: ItemKind
    event_index: int
    text: str = ""
    """What the block says and what copying it gives (for a call: its arguments as JSON)."""
    label: str = ""
    """The model (assistant), tool name (call), role (branch), media type (image), title
    (title), or event type (meta)."""
    call_id: str = ""
    """The call id of a call or result, as recorded (an id to look things up by: clean it with
    `clean_line` to draw it)."""
    shape: str = ""
    """A result's shape (`klipui.shrink.detect_shape`), a call's `CallBody`."""
    body: str | None = None
    """A call's arguments as drawn (a command, a diff, a patch, JSON) when that differs from
    `text`."""
    size: int | None = None
    """Bytes of a result's text (UTF-8) or of an image."""
    lines: int = 0
    """Lines of a result's text."""
    sidechain: bool = False
    """Sub-agent work lowered into the parent's log (`data.sidechain`)."""
    time: int | None = None
    """When the record was written (epoch ms), on the first stamped item of an event."""
    seq: int = 0


def valid_time(value: Any) -> int | None:
    """Epoch milliseconds between 1990 and 2200, else None (a damaged or absent time)."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return int(value) if 631_152_000_000 <= value <= 7_258_118_400_000 else None
    return None


def is_sidechain(event: Event) -> bool:
    """Sub-agent work lowered into the parent's log (`data.sidechain`, see the Claude format)."""
    return isinstance(event.data, dict) and "sidechain" in event.data


def turn_items(
    session: Session,
    start: int,
    end: int,
    show_all: bool = False,
    cancelled: Callable[[], bool] | None = None,
) -> list[Item]:
    """The items of `session.events[start:end]`, in order; [] as soon as `cancelled()` says
    the caller no longer wants them."""
    items: list[Item] = []
    calls: dict[str, Call] = {}
    events = session.events
    for index in range(start, end):
        if cancelled is not None and index % 32 == 0 and cancelled():
            return []
        event = events[index]
        if event.type == "tool/call":
            calls[str(event.data.get("callId") or "")] = call_of_event(event, index)
        before = len(items)
        items.extend(event_items(event, index, show_all, calls))
        if len(items) == before:
            continue
        if is_sidechain(event):
            for item in items[before:]:
                item.sidechain = True
        if items[before].kind in STAMPED:
            items[before].time = valid_time(event.time)
    return items


def event_items(
    event: Event, index: int, show_all: bool = False, calls: dict[str, Call] | None = None
) -> Iterator[Item]:
    """The items one event shows; `calls` (call id → call) names the calls of its results."""
    kind = event.type
    if kind == "user/message":
        yield from _prompt(event, index)
    elif kind == "assistant/message":
        yield from _assistant(event, index)
    elif kind == "tool/call":
        yield _call(event, index)
    elif kind == "tool/result":
        yield from _results(event, index, calls or {})
    elif kind == "compaction/summary":
        summary = clean_text(blocks_text(event.data.get("summary"), tool_calls=False, sep="\n\n"))
        yield Item(ItemKind.COMPACTION, index, summary, seq=event.seq)
    elif kind == "session/title":
        title = clean_line(str(event.data.get("title")))
        yield Item(ItemKind.TITLE, index, label=title, seq=event.seq)
    elif kind.endswith("/branch"):
        yield _branch(event, index)
    elif show_all and kind not in HIDDEN_TYPES:
        raw = json_text(event.data, indent=1)
        yield Item(ItemKind.META, index, raw, label=clean_line(kind), seq=event.seq)


def _prompt(event: Event, index: int) -> Iterator[Item]:
    content = message_content(event)
    text = clean_text(blocks_text(content, tool_calls=False))
    yield Item(ItemKind.PROMPT, index, text, seq=event.seq)
    yield from _images(content, index, event.seq)


def _assistant(event: Event, index: int) -> Iterator[Item]:
    content = message_content(event)
    message = event.data.get("message")
    source = message.get("source") if isinstance(message, dict) else None
    model = source.get("model") if isinstance(source, dict) else None
    label = clean_line(str(model)) if model else ""
    for block in content if isinstance(content, list) else [content]:
        if isinstance(block, str):
            block = {"type": "text", "text": block}
        if not isinstance(block, dict):
            continue
        text = clean_text(str(block.get("text") or ""))
        if not text.strip():
            continue
        if block.get("type") == "reasoning":
            yield Item(ItemKind.THINKING, index, text, seq=event.seq)
        elif block.get("type") == "text":
            yield Item(ItemKind.ASSISTANT, index, text, label=label, seq=event.seq)
    yield from _images(content, index, event.seq)


def _call(event: Event, index: int) -> Item:
    name = clean_line(str(event.data.get("name") or "tool"))
    view = call_view(event.data.get("arguments"))
    return Item(
        ItemKind.CALL,
        index,
        view.copy,
        label=name,
        call_id=str(event.data.get("callId") or ""),
        shape=str(view.body),
        body=view.text,
        seq=event.seq,
    )


def result_blocks(event: Event) -> list[dict[str, Any]]:
    """The `tool-result` blocks of a `tool/result` event (its whole content as one block when
    it has none)."""
    content = message_content(event)
    found = [b for b in content or [] if isinstance(b, dict) and b.get("type") == "tool-result"]
    return found or [{"content": content}]


def _results(event: Event, index: int, calls: dict[str, Call]) -> Iterator[Item]:
    for result in result_blocks(event):
        text = clean_text(blocks_text(result.get("content"), tool_calls=False))
        call_id = str(result.get("toolCallId") or "")
        call = calls.get(call_id)
        hint = hint_for(call.name, call.arguments) if call is not None else None
        yield Item(
            ItemKind.ERROR if result.get("isError") else ItemKind.RESULT,
            index,
            text,
            call_id=call_id,
            shape=detect_shape(text, hint),
            size=len(text.encode("utf-8", "replace")),
            lines=text.count("\n") + (1 if text and not text.endswith("\n") else 0),
            seq=event.seq,
        )
        yield from _images(result.get("content"), index, event.seq)


def _branch(event: Event, index: int) -> Item:
    record: dict[str, Any] = event.data if isinstance(event.data, dict) else {}
    found = record.get("message")
    message: dict[str, Any] = found if isinstance(found, dict) else {}
    role = clean_line(str(message.get("role") or record.get("type") or "record"))
    text = clean_text(blocks_text(message.get("content"), tool_calls=False))
    return Item(ItemKind.BRANCH, index, text, label=role, seq=event.seq)


def _images(content: Any, index: int, seq: int) -> Iterator[Item]:
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "image":
            media = clean_line(str(block.get("mediaType") or "image"))
            size = block.get("size")
            size = size if isinstance(size, int) and not isinstance(size, bool) else None
            yield Item(ItemKind.IMAGE, index, label=media, size=size, seq=seq)


def result_text(session: Session, event_index: int, call_id: str | None) -> str:
    """The raw text (not cleaned: what a shrink sees) of the result of `call_id` in the event at
    `event_index`; its first result when `call_id` names none; "" when there is no result."""
    if not 0 <= event_index < len(session.events):
        return ""
    event = session.events[event_index]
    if event.type != "tool/result":
        return ""
    results = result_blocks(event)
    chosen = next((r for r in results if r.get("toolCallId") == call_id), results[0])
    return blocks_text(chosen.get("content"), tool_calls=False)


def result_call(session: Session, event_index: int, call_id: str | None) -> Call | None:
    """The call of the result of `call_id` at `event_index` (see `calls.call_of`)."""
    return call_of(session.events, event_index, call_id)


__all__ = [
    "HIDDEN_TYPES",
    "STAMPED",
    "CallBody",
    "Item",
    "ItemKind",
    "event_items",
    "is_sidechain",
    "result_blocks",
    "result_call",
    "result_text",
    "turn_items",
    "valid_time",
]
