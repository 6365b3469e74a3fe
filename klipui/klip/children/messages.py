"""Generic message-JSONL children: the kept lines, raised by the format, in a new file beside
the source (`<stem>.klip-<id>.jsonl`). Such files have no ids or header to rewrite."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import orjson

from klipui.klip.children import ChildBody, ChildSource, base36, epoch_ms, random_base36
from klipui.session.formats import adapter
from klipui.session.formats._turnkit import first_seen_origins
from klipui.session.model import Session

TITLED = False
"""Generic message files store no title."""


def new_id(now: datetime) -> str:
    """`<base36 ms>-<6 base36>`."""
    return f"{base36(epoch_ms(now))}-{random_base36(6)}"


def child_path(session: Session, child_id: str, now: datetime) -> Path:
    """`<stem>.klip-<id><suffix>` beside the source."""
    parent = Path(session.path)
    suffix = parent.suffix or ".jsonl"
    return parent.parent / f"{parent.stem}.klip-{child_id}{suffix}"


def build(source: ChildSource) -> ChildBody:
    """The kept lines; a replaced record (compaction) is written from its replacement."""
    lines = list(adapter("messages").raise_records(source.session, source.kept))
    origins = list(first_seen_origins(source.kept))
    notes: list[str] = []
    if source.replacements:
        if len(origins) == len(lines):
            for position, index in enumerate(origins):
                if index in source.replacements:
                    lines[position] = orjson.dumps(source.replacements[index])
        else:
            notes.append("some lines were rebuilt by the clip, so no tool result was replaced")
    return ChildBody(lines, None, [], notes, len(origins))
