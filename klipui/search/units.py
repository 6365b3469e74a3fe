"""The searchable units of a session: prompts, answers, thinking, tool calls and tool results.

`read_units` is the one place that reads a session for the index: it loads the file through the
public `klipui.session` API and turns events into units with their place (turn, event seq and
index, kind, time). Session loading may later become index-first; only this function changes.

Tool results carry their spilled original too, when the preview names one that
`klipui.session.spilled.load_original` agrees to read (inside the agent's own folders). Texts are
cleaned of escape and control sequences before they are indexed, and a long text is cut into
parts at line ends, so that a hit points near its match and a snippet costs little.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from klipui.session import Event, Session, open_session, session_info
from klipui.session.blocks import message_content
from klipui.session.display import clean_text, display_title

KINDS = ("prompt", "answer", "thinking", "call", "result")
"""Unit kinds, in the order an event's units come."""
PART_CHARS = 32_000
"""Characters of a unit's part at most (cut at a line end when there is one)."""
ORIGINAL_MAX = 16 * 1024 * 1024
"""Bytes of a spilled original indexed at most."""


@dataclass(slots=True)
class Unit:
    """One searchable piece of a session and where it is."""

    turn: int
    """1-based turn number, 0 for events outside every turn."""
    event: int
    """Index of the event in the lowered session."""
    seq: int
    kind: str
    """One of `KINDS`."""
    time: int | None
    """Epoch milliseconds, when known."""
    text: str
    part: int = 0
    """0 for the first (or only) part of a long text, then 1, 2, …"""
    offset: int = -1
    """Byte offset in the session file of the record(s) the text comes from; -1 when the text
    cannot be read back from the file (compressed file, synthesized event): it is then stored."""
    length: int = 0
    """Bytes from `offset` that hold the record(s)."""


@dataclass(slots=True)
class SessionUnits:
    """A session's figures and its units from event `first` on."""

    path: Path
    format: str
    agent: str
    project: str
    title: str
    started: float | None
    updated: float | None
    events: int
    """Events in the session as read."""
    size: int
    """Bytes read."""
    mtime_ns: int
    fingerprint: bytes
    units: list[Unit] = field(default_factory=list)


def read_units(path: Path, first_event: int = 0, *, originals: bool = True) -> SessionUnits:
    """The figures of the session at `path` and its units from event `first_event` on.

    Raises `klipui.session.SessionError` for a file that is not a session.
    """
    session = open_session(path, subagents=False)
    info = session_info(session, *_stat(session))
    size, mtime = session.source_stat or (0, 0)
    out = SessionUnits(
        path=path,
        format=session.format,
        agent=info.agent,
        project=info.project or "",
        title=display_title(info),
        started=info.started,
        updated=info.updated,
        events=len(session.events),
        size=size,
        mtime_ns=mtime,
        fingerprint=session.source_fingerprint or b"",
    )
    out.units = list(session_units(session, first_event, originals=originals))
    return out


def _stat(session: Session) -> tuple[int, float | None]:
    size, mtime_ns = session.source_stat or (0, 0)
    return size, (mtime_ns / 1e9 if mtime_ns else None)


def session_units(
    session: Session, first_event: int = 0, *, originals: bool = True
) -> Iterator[Unit]:
    """The units of `session.events[first_event:]`, in event order."""
    turn_of = _turn_numbers(session)
    for index in range(first_event, len(session.events)):
        event = session.events[index]
        offset, length = record_span(session, event)
        for kind, text in event_parts(event, session.path if originals else None):
            text = clean_text(text)
            if not text.strip():
                continue
            for part, piece in enumerate(split_parts(text)):
                yield Unit(
                    turn_of[index], index, event.seq, kind, event.time, piece, part, offset, length
                )


def record_span(session: Session, event: Event) -> tuple[int, int]:
    """(offset, length) in the file of the records `event` was lowered from (every chunk of a
    merged message), or (-1, 0) when they cannot be read back from the file as it is."""
    if session.compression is not None or event.origin is None:
        return -1, 0
    origins = event.data.get("origins") if isinstance(event.data, dict) else None
    indexes = [event.origin]
    if isinstance(origins, list):
        indexes += [i for i in origins if isinstance(i, int) and 0 <= i < len(session.records)]
    if not 0 <= event.origin < len(session.records):
        return -1, 0
    records = [session.records[i] for i in indexes]
    start = min(r.offset for r in records)
    end = max(r.offset + r.length for r in records)
    return start, end - start


def _turn_numbers(session: Session) -> list[int]:
    numbers = [0] * len(session.events)
    for turn in session.turns:
        numbers[turn.start : turn.end] = [turn.number] * (turn.end - turn.start)
    return numbers


def event_parts(event: Event, session_path: Path | None = None) -> Iterator[tuple[str, str]]:
    """(kind, raw text) of what `event` says; `session_path` set: spilled originals followed."""
    kind = event.type
    if kind == "user/message":
        text = "\n".join(_texts(message_content(event), ("text",)))
        yield "prompt", text
    elif kind == "assistant/message":
        content = message_content(event)
        yield "thinking", "\n".join(_texts(content, ("reasoning",)))
        yield "answer", "\n".join(_texts(content, ("text",)))
    elif kind == "compaction/summary":
        summary = event.data.get("summary")
        if isinstance(summary, str):
            yield "answer", summary
    elif kind == "tool/call":
        yield "call", call_text(event.data.get("name"), event.data.get("arguments"))
    elif kind == "tool/result":
        for call_id, text in _results(event):
            yield "result", text + _original(text, session_path, call_id)


def _texts(blocks: object, kinds: tuple[str, ...]) -> Iterator[str]:
    if isinstance(blocks, str):
        if "text" in kinds:
            yield blocks
        return
    if isinstance(blocks, dict):
        blocks = [blocks]
    if not isinstance(blocks, list):
        return
    for block in blocks:
        if isinstance(block, str) and "text" in kinds:
            yield block
        elif isinstance(block, dict) and block.get("type") in kinds:
            text = block.get("text")
            if isinstance(text, str):
                yield text


def _results(event: Event) -> Iterator[tuple[str | None, str]]:
    """(call id, text) of each tool-result block of a `tool/result` event."""
    from klipui.session.blocks import blocks_text

    content = message_content(event)
    blocks = [b for b in content or [] if isinstance(b, dict) and b.get("type") == "tool-result"]
    if not blocks:
        yield None, blocks_text(content, tool_calls=False)
        return
    for block in blocks:
        call_id = block.get("toolCallId")
        yield (
            (call_id if isinstance(call_id, str) else None),
            blocks_text(block.get("content"), tool_calls=False),
        )


def call_text(name: object, arguments: object) -> str:
    """A tool call as text: its name, then `key: value` lines for an object of arguments."""
    head = name if isinstance(name, str) else ""
    value = arguments
    if isinstance(arguments, str):
        try:
            value = orjson.loads(arguments)
        except orjson.JSONDecodeError:
            value = arguments
    if isinstance(value, dict):
        lines = [
            f"{key}: {item if isinstance(item, str) else orjson.dumps(item).decode()}"
            for key, item in value.items()
        ]
        body = "\n".join(lines)
    elif isinstance(value, str):
        body = value
    else:
        body = orjson.dumps(value).decode() if value is not None else ""
    return f"{head}\n{body}" if head else body


SPILL_SIGNS = ("spill:", "Full formatted result stored at:", "<persisted-output>", "Full output")
"""Texts holding none of these name no spilled original (a quick test before the patterns)."""


def _original(text: str, session_path: Path | None, call_id: str | None) -> str:
    """A newline and the spilled original named in `text`, when one may be read; else ""."""
    if session_path is None or len(text) > 200_000:
        return ""
    if not any(sign in text for sign in SPILL_SIGNS):
        return ""
    from klipui.session.spilled import find_reference, load_original

    ref = find_reference(text, session_path, call_id)
    if ref is None:
        return ""
    loaded = load_original(ref, session_path=session_path, max_bytes=ORIGINAL_MAX)
    return "\n" + loaded.text if loaded.text else ""


def split_parts(text: str, size: int = PART_CHARS) -> list[str]:
    """`text` in pieces of at most `size` characters, each cut after a newline when the piece
    holds one; joined, the pieces are `text`."""
    if len(text) <= size:
        return [text]
    pieces: list[str] = []
    start = 0
    while start < len(text):
        end = start + size
        if end < len(text):
            cut = text.rfind("\n", start, end)
            if cut > start:
                end = cut + 1
        pieces.append(text[start:end])
        start = end
    return pieces


def file_stat(path: Path) -> tuple[int, int] | None:
    """(size, mtime_ns) of a regular file, None when it is not one or cannot be read."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    import stat as st

    return (stat.st_size, stat.st_mtime_ns) if st.S_ISREG(stat.st_mode) else None
