"""Child-session writers, one module a format: what a clipped child looks like on disk.

Each module exposes:

- `new_id(now: datetime) -> str`: a fresh session id in the format's own style;
- `child_path(session: Session, child_id: str, now: datetime) -> Path`: where the child goes,
  next to its parent and in the parent's folder layout;
- `build(source: ChildSource) -> ChildBody`: the child's native lines, made from the kept
  events (mapped back to native records through `Event.origin`) or, for dsh, the reindexed
  seed itself;
- `TITLED: bool`: whether the format stores a title; a titled child is named
  `child_title_text(source.title)` ("KLIP <title>", see `title_for`), the one title every
  writer and the clip preview use.

`ChildSource` carries everything a writer may need; `ChildBody` what it made, with notes for the
report: `blockers` (the agent will refuse or hang on this child; nothing is written unless
forced), `warnings` (what the agent will not show of it) and `notes` (repairs and adjustments
made, one line each).
"""

from __future__ import annotations

import importlib
import os
import secrets
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import ModuleType
from typing import Any

from klipui.session.model import Event, Session

_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"

WRITERS = ("dsh", "claude", "codex", "pi", "messages")
"""Formats that have a child writer."""


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


def last_turn_ending(kept: Sequence[Event]) -> str | None:
    """How the child's last turn ended in the parent: the reason kind of its `turn/end` among
    the kept events ("completed", "interrupted", …), None when it never ended."""
    last = next((e for e in reversed(kept) if e.type == "turn/start"), None)
    if last is None:
        return None
    for event in reversed(kept):
        if event.type == "turn/end" and event.data.get("turn") == last.data.get("turn"):
            reason = event.data.get("reason")
            kind = reason.get("kind") if isinstance(reason, dict) else None
            return kind if isinstance(kind, str) else None
    return None


TITLE_PREFIX = "KLIP "
UNTITLED = "untitled"


def title_for(session: Session, turns: Iterable[int]) -> str:
    """The title of a child of `session` keeping the turns numbered `turns`: the parent's
    title, else the prompt of the first kept turn that has one (as the turn list shows it, 80
    characters at most), else "untitled"."""
    if session.title and session.title.strip():
        return session.title
    for number in sorted(turns):
        if 1 <= number <= len(session.turns) and session.turns[number - 1].prompt:
            return session.turns[number - 1].prompt[:80]
    return UNTITLED


def child_title_text(title: str) -> str:
    """The title as a child stores it: "KLIP <title>"."""
    return f"{TITLE_PREFIX}{title}"


def writer(format_name: str) -> ModuleType:
    """The child-writer module of a session format (KeyError when there is none)."""
    if format_name not in WRITERS:
        raise KeyError(format_name)
    return importlib.import_module(f"{__name__}.{format_name}")


def base36(number: int) -> str:
    """`number` (≥ 0) in lower-case base 36."""
    if number == 0:
        return "0"
    digits: list[str] = []
    while number:
        number, digit = divmod(number, 36)
        digits.append(_BASE36[digit])
    return "".join(reversed(digits))


def random_base36(length: int) -> str:
    """`length` random base-36 characters."""
    return "".join(secrets.choice(_BASE36) for _ in range(length))


def epoch_ms(now: datetime) -> int:
    """Epoch milliseconds of an aware datetime."""
    return int(now.timestamp() * 1000)


def iso_stamp(now: datetime) -> str:
    """UTC ISO 8601 time with milliseconds and a `Z`, as the agents write it."""
    moment = now.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def uuid7(now: datetime) -> str:
    """A version 7 UUID (time-ordered), as Codex and pi make their session ids."""
    ms = epoch_ms(now) & ((1 << 48) - 1)
    rand = int.from_bytes(os.urandom(10), "big")
    value = (ms << 80) | (0x7 << 76) | ((rand >> 68) & 0xFFF) << 64
    value |= (0b10 << 62) | (rand & ((1 << 62) - 1))
    return str(uuid.UUID(int=value))
