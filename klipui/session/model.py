"""The common model of a session: DeepSeek Harness SessionEvents, turns, and session metadata.

Every on-disk format is *lowered* to a list of `Event`s (the dsh SessionEvent envelope) so the
clip engine, the shrink pane and the app work on one shape. Each event remembers the native
record it came from (`Event.origin`), so a format can *raise* kept events back to native records,
copying untouched records byte for byte.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol


class SourceChanged(ValueError):
    """The session's file changed since it was read (not only appended to): open it again."""


@dataclass(slots=True, frozen=True)
class Problem:
    """Something wrong met while reading a file; the rest of the file still loads."""

    path: str
    line: int
    """1-based line number, 0 when the problem concerns the whole file."""
    reason: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.reason}"


@dataclass(slots=True)
class Record:
    """One native record of a session file: a decoded JSONL line and where it sits in the file."""

    line: int
    """1-based line number in the (decompressed) file."""
    offset: int
    """Byte offset of the line in the (decompressed) file."""
    length: int
    """Byte length of the line, without its newline."""
    value: Any
    """The decoded JSON value (a dict for every well-formed record)."""


@dataclass(slots=True)
class Event:
    """One SessionEvent: `{type, seq, time, data, ignorable?, sourceEventSeqs?, surfaceOp?}`."""

    type: str
    seq: int
    time: int | None = None
    """Epoch milliseconds, when known."""
    data: dict[str, Any] = field(default_factory=dict)
    source_event_seqs: list[int] | None = None
    surface_op: Any = None
    ignorable: bool = False
    origin: int | None = None
    """Index into `Session.records` of the native record this event was lowered from."""

    def to_dict(self) -> dict[str, Any]:
        """The dsh wire shape of this event (no `origin`)."""
        out: dict[str, Any] = {"type": self.type, "seq": self.seq}
        if self.time is not None:
            out["time"] = self.time
        out["data"] = self.data
        if self.ignorable:
            out["ignorable"] = True
        if self.source_event_seqs is not None:
            out["sourceEventSeqs"] = self.source_event_seqs
        if self.surface_op is not None:
            out["surfaceOp"] = self.surface_op
        return out

    @classmethod
    def from_dict(cls, value: dict[str, Any], origin: int | None = None) -> Event:
        """Build an event from its dsh wire shape."""
        return cls(
            type=value["type"],
            seq=value["seq"],
            time=value.get("time"),
            data=value.get("data") or {},
            source_event_seqs=value.get("sourceEventSeqs"),
            surface_op=value.get("surfaceOp"),
            ignorable=bool(value.get("ignorable", False)),
            origin=origin,
        )


@dataclass(slots=True)
class Turn:
    """One turn: a user prompt and everything the agent did for it.

    `start`/`end` index `Session.events` (end exclusive). Header events, before the first
    turn, belong to no turn.
    """

    number: int
    start: int
    end: int
    prompt: str = ""
    """First line of the user prompt ("" when the turn has none)."""
    tool_calls: int = 0
    tokens: int = 0
    """Token estimate of everything in the turn."""
    errors: int = 0
    """Tool results marked as errors."""
    completed: bool = True
    """False for a turn the agent never finished (dsh: no `turn/end` with reason completed)."""


class RawSource(Protocol):
    """Where an index-first session reads the native bytes of a record."""

    def raw(self, index: int) -> bytes:
        """The bytes of record `index`, without newline."""
        ...


@dataclass(slots=True)
class Session:
    """A whole session lowered to events, with the native records it came from."""

    path: Path
    format: str
    """Format name: the name of its adapter ("dsh", "claude", "codex", "pi", "qwen", "messages")."""
    header: dict[str, Any] | None = None
    """The native header record, for formats that have one (dsh, pi, codex session_meta)."""
    records: Sequence[Record] = field(default_factory=list)
    """Every good record; an index-first session decodes them when read (`LazyRecords`)."""
    events: Sequence[Event] = field(default_factory=list)
    """Every event; an index-first session lowers their records when read (`LazyEvents`)."""
    turns: list[Turn] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    title: str | None = None
    cwd: str | None = None
    session_id: str | None = None
    parent: str | None = None
    """Id or path of the session this one was clipped or forked from, when known."""
    compression: str | None = None
    """"zstd" for a `.jsonl.zstd` dsh file, else None."""
    subagents: list[Path] = field(default_factory=list)
    """Files of sub-agent sessions spawned from this one (Claude Code `agent-*.jsonl`, ...)."""
    raw: bytes | None = field(default=None, repr=False)
    """The decompressed content that `Record.offset/length` index: set for zstd files; for plain
    files None until `record_bytes` first needs it (the offsets index the file itself)."""
    source_stat: tuple[int, int] | None = None
    """(size, mtime_ns) of the file when it was read (size: the bytes read)."""
    source_fingerprint: bytes | None = None
    """`jsonl.fingerprint` of the bytes read of a plain file."""
    raw_source: RawSource | None = field(default=None, repr=False)
    """An index-first session's records' bytes (read through the index, not the whole file)."""

    def record_bytes(self, index: int) -> bytes:
        """The native bytes of record `index`, without newline.

        Taken from `raw`, which is read from the file on first use when it is a plain file that
        is unchanged or only appended to since it was read (ValueError otherwise); the record's
        value re-encoded as compact JSON when there is no file to read.
        """
        if self.raw_source is not None:
            return self.raw_source.raw(index)
        record = self.records[index]
        if self.raw is None and self.compression is None and self.source_stat is not None:
            self.raw = self._reread()
        if self.raw is not None:
            return self.raw[record.offset : record.offset + record.length]
        from klipui.session.formats._values import dumps_json

        return dumps_json(record.value)

    def _reread(self) -> bytes:
        """The file's first `source_stat` bytes, once more (`SourceChanged` when the file is no
        longer what was read: shorter, rewritten in place, or rewritten longer rather than
        appended to, which the fingerprint of its first and last 64 KB shows)."""
        import os

        from klipui.session.files import open_regular
        from klipui.session.jsonl import fingerprint

        with open_regular(self.path) as handle:
            stat = os.fstat(handle.fileno())
            size, mtime = self.source_stat or (0, 0)
            if stat.st_size < size or (stat.st_size == size and stat.st_mtime_ns != mtime):
                raise SourceChanged(f"{self.path}: changed since it was read; open it again")
            data = handle.read(size)
        expected = self.source_fingerprint
        if len(data) < size or (expected is not None and fingerprint(data) != expected):
            raise SourceChanged(f"{self.path}: changed since it was read; open it again")
        return data

    @property
    def header_events(self) -> list[Event]:
        """Events before the first turn."""
        first = self.turns[0].start if self.turns else len(self.events)
        return list(self.events[:first])

    def turn_events(self, number: int) -> list[Event]:
        """The events of turn `number` (1-based)."""
        turn = self.turns[number - 1]
        return list(self.events[turn.start : turn.end])


@dataclass(slots=True)
class SessionInfo:
    """What the session list shows: cheap figures from a bounded head read, exact ones later."""

    path: Path
    format: str | None
    """None when the file is not a recognised session."""
    agent: str = ""
    """Human name of the agent: "Claude Code", "Codex", "pi", "Qwen Code", "DeepSeek Harness", …"""
    title: str | None = None
    first_prompt: str | None = None
    project: str | None = None
    cwd: str | None = None
    session_id: str | None = None
    parent: str | None = None
    started: float | None = None
    """Epoch seconds."""
    updated: float | None = None
    """Epoch seconds (file mtime when the records say nothing)."""
    turns: int | None = None
    events: int | None = None
    bytes: int = 0
    tokens: int | None = None
    exact: bool = False
    """True once the figures come from a full read rather than an estimate from the head."""
    problem: str | None = None
    """Why the file could not be read, when it could not."""
    archived: bool = False
    """True for a copy in klipui's archive (see `klipui.session.archive`)."""
