"""The one interface every agent format implements: `Adapter`, and what its methods exchange.

An adapter owns everything about one agent's session files: sniffing them by content, where the
agent keeps them, quick figures from a head read, lowering records to the shared event model,
raising kept events back to native lines, writing a clipped child in the agent's own layout,
replacing a tool result in a native record (compaction), how the agent marks a turn's end, and
the command that resumes a session in the agent. An adapter whose lowering and child writer are
modules of their own derives from `ModuleAdapter`, which hands the required methods to them.
The registry (`klipui.session.formats.REGISTRY`) holds one instance per agent and checks it
against this class at registration.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar, Protocol

from klipui.session.index import Indexer, RecordIndex
from klipui.session.model import Event, Problem, Record, Session, SessionInfo
from klipui.session.resume import ResumeCommand, ResumeError


@dataclass(slots=True, frozen=True)
class Root:
    """A folder where an agent keeps its sessions, and the file pattern inside it."""

    agent: str
    path: Path
    pattern: str
    """A `Path.glob` pattern relative to `path`."""
    orphans_only: bool = False
    """Sub-agent transcripts (`<project>/<session>/subagents/`): only those whose session file
    is gone are listed; the others are reached from their session."""


@dataclass(slots=True)
class ChildSource:
    """The inputs of a child writer."""

    session: Session
    kept: list[Event]
    """The parent's events that survived the clip, in log order (their own, old seqs)."""
    seed: list[dict[str, Any]]
    """The reindexed events (new seqs), as the reindexer returned them."""
    child_id: str
    now: datetime
    """Creation time of the child (timezone-aware)."""
    title: str
    """The child's title without its "KLIP " prefix (`title_for`); titled formats write
    `child_title_text(title)`."""
    replacements: dict[int, Any] = field(default_factory=dict)
    """Record index → a native record value to write instead of the parent's (compaction)."""


@dataclass(slots=True)
class ChildBody:
    """A child's native lines (without newlines) and what the writer has to say about them."""

    lines: list[bytes]
    compression: str | None = None
    blockers: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    records: int = 0
    """How many of the parent's records the child carries."""
    warnings: list[str] = field(default_factory=list)
    """What the agent will not show of the child although it is written (e.g. Claude Code lines
    off the `parentUuid` chain)."""


class Adapter(ABC):
    """One agent's session format. Subclasses set the class attributes and the abstract methods;
    the optional hooks have defaults that mean "this agent has none"."""

    name: ClassVar[str]
    """The format name stored in `Session.format` ("claude", "qwen", …)."""
    agent: ClassVar[str]
    """The agent's human name ("Claude Code")."""
    titled: ClassVar[bool] = False
    """Whether a child stores a title ("KLIP <title>")."""
    native_events: ClassVar[bool] = False
    """True when the records already are session events (dsh): the clip engine then uses the
    native rule table, validates with surface folding and writes the reindexed seed itself;
    False for formats lowered to events (their records are raised back)."""
    end_mark: ClassVar[str] = "no final assistant reply was recorded"
    """Why a turn of this agent counts as never ended (for the clip error)."""
    typed_records: ClassVar[bool] = True
    """True when every record is keyed by a string `type` (a record whose `type` is not a
    string is then a bad line, and sniffing skips it); False for generic message files."""

    @abstractmethod
    def sniff(self, values: Sequence[Any]) -> bool:
        """True when the leading decoded records look like this format (content, never names)."""

    @abstractmethod
    def lower(self, path: Path, records: list[Record], problems: list[Problem]) -> Session:
        """Records to events and turns (see `klipui.session.formats` for the shared shape)."""

    @abstractmethod
    def info(self, path: Path, values: Sequence[Any]) -> SessionInfo:
        """Quick figures from the records of a bounded head read."""

    @abstractmethod
    def raise_records(self, session: Session, events: Sequence[Event]) -> Iterator[bytes]:
        """The native lines (without newline) of the kept `events`, untouched ones byte for
        byte."""

    @abstractmethod
    def new_id(self, now: datetime) -> str:
        """A fresh session id in the agent's own style."""

    @abstractmethod
    def child_path(self, session: Session, child_id: str, now: datetime) -> Path:
        """Where a child of `session` goes: beside its parent, in the agent's layout."""

    @abstractmethod
    def build_child(self, source: ChildSource) -> ChildBody:
        """The child's native lines and notes about them."""

    def roots(self, home: Path, environ: Mapping[str, str]) -> list[Root]:
        """Where the agent keeps its sessions, for a user whose home is `home`."""
        return []

    def indexer(self, path: Path, index: RecordIndex) -> Indexer | None:
        """The format's index-first reader (None: sessions are read whole and lowered)."""
        return None

    def scan_info(self, path: Path) -> SessionInfo | None:
        """Exact figures from a typed scan without lowering, or None (lower instead)."""
        return None

    def subagents(self, session: Session) -> list[Path]:
        """Files of sub-agent sessions beside `session` (looked up on open, never listing)."""
        return []

    def place_listed(self, info: SessionInfo) -> SessionInfo:
        """`info` of a listed file, with the parent the agent's layout implies (a sub-agent
        transcript names the session it worked for)."""
        return info

    def placement(self, session: Session, path: Path) -> str | None:
        """A note on where a child at `path` lands, when the agent cares (None: nothing)."""
        return None

    def replace_result(self, value: Any, call_id: str, text: str) -> Any | None:
        """A copy of native record `value` whose result of `call_id` reads `text`, or None when
        the record holds no such result (compaction of lowered formats)."""
        return None

    def child_compression(self, path: Path, body: ChildBody) -> str | None:
        """The compression of a child written to a path the user chose (`-o`)."""
        return body.compression

    def resume(self, session: Session, prompt: str | None = None) -> ResumeCommand:
        """The command that continues `session` in the agent (with `prompt`: the agent's
        non-interactive form, answering it once); ResumeError when the agent cannot."""
        raise ResumeError(f"{session.path}: klipui knows no resume command for {self.agent}")


class Lowering(Protocol):
    """A format's lowering module: what `ModuleAdapter` hands sniffing, lowering, head figures
    and raising to."""

    def sniff(self, values: Sequence[Any]) -> bool: ...
    def lower(self, path: Path, records: list[Record], problems: list[Problem]) -> Session: ...
    def info(self, path: Path, values: Sequence[Any]) -> SessionInfo: ...
    def raise_records(self, session: Session, events: Sequence[Event]) -> Iterator[bytes]: ...


class ChildWriter(Protocol):
    """A format's child-writing module: what `ModuleAdapter` hands ids, places and bodies to."""

    def new_id(self, now: datetime) -> str: ...
    def child_path(self, session: Session, child_id: str, now: datetime) -> Path: ...
    def build(self, source: ChildSource) -> ChildBody: ...


class ModuleAdapter(Adapter):
    """An adapter whose required methods are those of its `lowering` and `writer` modules
    (subclasses set both, and override only what the agent does its own way)."""

    lowering: Lowering
    writer: ChildWriter

    def sniff(self, values: Sequence[Any]) -> bool:
        return self.lowering.sniff(values)

    def lower(self, path: Path, records: list[Record], problems: list[Problem]) -> Session:
        return self.lowering.lower(path, records, problems)

    def info(self, path: Path, values: Sequence[Any]) -> SessionInfo:
        return self.lowering.info(path, values)

    def raise_records(self, session: Session, events: Sequence[Event]) -> Iterator[bytes]:
        return self.lowering.raise_records(session, events)

    def new_id(self, now: datetime) -> str:
        return self.writer.new_id(now)

    def child_path(self, session: Session, child_id: str, now: datetime) -> Path:
        return self.writer.child_path(session, child_id, now)

    def build_child(self, source: ChildSource) -> ChildBody:
        return self.writer.build(source)


def check_adapter(candidate: object) -> Adapter:
    """`candidate` when it is a complete `Adapter` (TypeError naming what is missing)."""
    if not isinstance(candidate, Adapter):
        raise TypeError(f"{candidate!r} is not an Adapter")
    for attribute in ("name", "agent"):
        value = getattr(type(candidate), attribute, None)
        if not isinstance(value, str) or not value:
            raise TypeError(f"{type(candidate).__name__} has no {attribute}")
    return candidate
