"""pi children: a new header id, `parentSession` → the source file, entries raised by the format.

pi's own fork (`SessionManager.forkFrom`) writes `<ISO time with : and . as ->_<uuidv7>.jsonl`
with a header `{type: session, version, id, timestamp, cwd, parentSession: <source path>}`; a
child does the same beside its parent. The format's raise copies kept entries byte for byte and
re-links `parentId` over removed entries; on top of that a kept `compaction` entry has its
first kept entry moved to the nearest kept entry at or after it (`firstKeptEntryIndex` is an
index into the file's lines in v1 files, `firstKeptEntryId` an entry id from v2 on). A
`session_info` entry "KLIP <title>" names the child. A v1 parent stays v1 (pi migrates it on
load).
"""

from __future__ import annotations

import copy
import dataclasses
import secrets
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from klipui.session.adapter import ChildBody, ChildSource
from klipui.session.childkit import child_title_text, iso_stamp, uuid7
from klipui.session.formats._turnkit import first_seen_origins
from klipui.session.formats._values import dumps_json
from klipui.session.formats.pi.lowering import raise_records
from klipui.session.jsonl import decode_line
from klipui.session.model import Session

TITLED = True
"""The child ends with a `session_info` entry naming it."""


def new_id(now: datetime) -> str:
    """A UUID v7, as pi makes them."""
    return uuid7(now)


def child_path(session: Session, child_id: str, now: datetime) -> Path:
    """`<ISO time, : and . as ->_<id>.jsonl` beside the parent."""
    stamp = iso_stamp(now).replace(":", "-").replace(".", "-")
    return Path(session.path).parent / f"{stamp}_{child_id}.jsonl"


def build(source: ChildSource) -> ChildBody:
    """Header, the kept entries (compaction targets moved), and a KLIP `session_info` entry."""
    session = source.session
    blockers: list[str] = []
    notes: list[str] = []
    if session.header is None:
        blockers.append("the source has no pi session header line; pi cannot open it")
        parent_header: dict[str, Any] = {"type": "session"}
    else:
        parent_header = session.header
    records = session.records
    header_index = 0 if session.header is not None and records else None
    new_header = {
        key: value
        for key, value in parent_header.items()
        if key not in ("branchedFrom", "parentSession")
    }
    new_header["id"] = source.child_id
    new_header["timestamp"] = iso_stamp(source.now)
    new_header["parentSession"] = str(Path(session.path).resolve())
    cwd = new_header.get("cwd")
    if isinstance(cwd, str) and not Path(cwd).is_dir():
        notes.append(f"the header cwd {cwd!r} is missing here; pi resumes it only where it exists")
    raised = dataclasses.replace(session, header=new_header)
    lines = list(raise_records(raised, source.kept))
    kept = [i for i in first_seen_origins(source.kept) if i != header_index]
    position = {old: new for new, old in enumerate(kept, start=1)}
    for line_number, index in enumerate(kept, start=1):
        value = source.replacements.get(index, records[index].value)
        if index in source.replacements:
            lines[line_number] = dumps_json(_relinked(value, lines[line_number]))
        if value.get("type") != "compaction":
            continue
        moved = _moved_compaction(value, index, kept, position, records)
        if moved is not None:
            lines[line_number] = dumps_json({**decode_line(lines[line_number]), **moved})
            notes.append(f"compaction entry (line {records[index].line}): first kept entry moved")
    info: dict[str, Any] = {"type": "session_info", "name": child_title_text(source.title)}
    last_id = _last_id(lines[1:])
    if last_id is not None:
        info = {"type": "session_info", "id": _short_id(), "parentId": last_id, **info}
    info["timestamp"] = iso_stamp(source.now)
    lines.append(dumps_json(info))
    return ChildBody(lines, None, blockers, notes, len(kept))


def _relinked(value: dict[str, Any], raised_line: bytes) -> dict[str, Any]:
    """A replacement entry carrying the parentId the raise gave the original."""
    if "parentId" not in value:
        return value
    raised = decode_line(raised_line)
    return {**value, "parentId": raised.get("parentId")}


def _moved_compaction(
    value: dict[str, Any],
    index: int,
    kept: list[int],
    position: dict[int, int],
    records: Sequence[Any],
) -> dict[str, Any] | None:
    """New first-kept fields for a kept compaction entry whose target moved or went."""
    target = value.get("firstKeptEntryIndex")
    if isinstance(target, int) and not isinstance(target, bool):
        new = next((position[i] for i in kept if target <= i <= index), position[index])
        return None if new == target else {"firstKeptEntryIndex": new}
    target_id = value.get("firstKeptEntryId")
    if not isinstance(target_id, str):
        return None
    ids = {records[i].value.get("id"): i for i in range(len(records))}
    old = ids.get(target_id)
    if old is None or old in position:
        return None
    new_index = next((i for i in kept if old <= i <= index), index)
    return {"firstKeptEntryId": records[new_index].value.get("id")}


def _last_id(lines: list[bytes]) -> str | None:
    for line in reversed(lines):
        value = decode_line(line)
        entry_id = value.get("id") if isinstance(value, dict) else None
        if isinstance(entry_id, str):
            return entry_id
        return None
    return None


def _short_id() -> str:
    return secrets.token_hex(4)


def replace_result(value: Any, call_id: str, text: str) -> Any | None:
    """A copy of `value` whose tool result for `call_id` (or bash execution) reads `text`."""
    value = copy.deepcopy(value)
    message = value.get("message") if isinstance(value, dict) else None
    if not isinstance(message, dict):
        return None
    if message.get("role") == "bashExecution":
        message["output"] = text
        return value
    if message.get("role") == "toolResult" and message.get("toolCallId") == call_id:
        message["content"] = [{"type": "text", "text": text}]
        return value
    return None
