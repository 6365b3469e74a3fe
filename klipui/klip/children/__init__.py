"""Child-session writers: what a clipped child looks like on disk.

Each agent's adapter (`klipui.session.adapter.Adapter`) writes its own children (`new_id`,
`child_path`, `build_child`, `titled`); this package keeps the public names the clip engine and
its users import: the writer of a format, the source and body of a child, and the shared kit
(titles, ids, time stamps).
"""

from __future__ import annotations

from klipui.session.adapter import Adapter, ChildBody, ChildSource
from klipui.session.childkit import (
    TITLE_PREFIX,
    UNTITLED,
    base36,
    child_title_text,
    epoch_ms,
    iso_stamp,
    last_turn_ending,
    random_base36,
    title_for,
    uuid7,
)
from klipui.session.formats import FORMATS, adapter

WRITERS = tuple(FORMATS)
"""Formats that have a child writer (every registered adapter)."""


def writer(format_name: str) -> Adapter:
    """The adapter that writes children of a session format (KeyError when there is none)."""
    return adapter(format_name)


__all__ = [
    "TITLE_PREFIX",
    "UNTITLED",
    "WRITERS",
    "ChildBody",
    "ChildSource",
    "base36",
    "child_title_text",
    "epoch_ms",
    "iso_stamp",
    "last_turn_ending",
    "random_base36",
    "title_for",
    "uuid7",
    "writer",
]
