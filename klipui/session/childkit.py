"""What every child writer shares: the title a child carries, how its last turn ended, and ids
and time stamps in the agents' own styles."""

from __future__ import annotations

import os
import secrets
import uuid
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

from klipui.session.model import Event, Session

_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"


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
