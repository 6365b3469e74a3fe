"""Generic message-JSONL children: the kept lines, raised by the format, in a new file beside
the source (`<stem>.klip-<id>.jsonl`). Such files have no ids or header to rewrite."""

from __future__ import annotations

import copy
from datetime import datetime
from pathlib import Path
from typing import Any

from klipui.session.adapter import ChildBody, ChildSource
from klipui.session.childkit import base36, epoch_ms, random_base36
from klipui.session.formats._native import replace_result_blocks
from klipui.session.formats._turnkit import first_seen_origins
from klipui.session.formats._values import dumps_json
from klipui.session.formats.messages.lowering import raise_records
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
    lines = list(raise_records(source.session, source.kept))
    origins = list(first_seen_origins(source.kept))
    notes: list[str] = []
    if source.replacements:
        if len(origins) == len(lines):
            for position, index in enumerate(origins):
                if index in source.replacements:
                    lines[position] = dumps_json(source.replacements[index])
        else:
            notes.append("some lines were rebuilt by the clip, so no tool result was replaced")
    return ChildBody(lines, None, [], notes, len(origins))


def replace_result(value: Any, call_id: str, text: str) -> Any | None:
    """A copy of `value` whose result for `call_id` (an OpenAI `tool` message or an Anthropic
    `tool_result` block) reads `text`, or None when it holds none."""
    value = copy.deepcopy(value)
    if not isinstance(value, dict):
        return None
    found = value.get("messages")
    messages: list[Any] = found if isinstance(found, list) else [value]
    done = False
    for message in messages:
        if not isinstance(message, dict):
            continue
        if message.get("role") == "tool" and message.get("tool_call_id") == call_id:
            message["content"] = text
            done = True
        elif replace_result_blocks(message, call_id, text):
            done = True
    return value if done else None
