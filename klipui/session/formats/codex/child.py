"""Codex children: `rollout-<local time>-<uuid v7>.jsonl` under today's `YYYY/MM/DD` folder.

The child goes under the parent's sessions root (the folder above `YYYY/MM/DD`) when the parent
lives in one, else beside the parent. Its first line is the parent's `session_meta` with a new
`id` and `timestamp` (Codex refuses a rollout without one) and `forked_from_id` set to the
parent's own id (never a grandparent's carried over); every other kept line is copied byte for
byte. Tool pairs are kept whole by `call_id`: the outputs of a kept call are kept, an output
whose call went is dropped. A last turn that ended interrupted in the parent (a later prompt
came) gets a `turn_aborted` event, as Codex writes for an interrupted turn, so it still reads as
interrupted.
"""

from __future__ import annotations

import copy
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from klipui.session.adapter import ChildBody, ChildSource
from klipui.session.childkit import iso_stamp, last_turn_ending, uuid7
from klipui.session.formats._native import kept_records
from klipui.session.formats._values import dumps_json
from klipui.session.model import Event, Session

TITLED = False
"""Codex stores no title; its picker shows the first prompt."""

CALLS = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
    "local_shell_call": "local_shell_call_output",
    "tool_search_call": "tool_search_output",
}
"""Call item type → the output item type that answers it."""
OUTPUTS = frozenset(CALLS.values())


def new_id(now: datetime) -> str:
    """A UUID v7, as recent Codex versions make thread ids."""
    return uuid7(now)


def sessions_root(path: Path) -> Path | None:
    """The folder above `YYYY/MM/DD` when `path` sits in such a folder."""
    day, month, year = path.parent, path.parent.parent, path.parent.parent.parent
    if (
        len(year.name) == 4
        and year.name.isdigit()
        and len(month.name) == 2
        and month.name.isdigit()
        and len(day.name) == 2
        and day.name.isdigit()
    ):
        return year.parent
    return None


def child_path(session: Session, child_id: str, now: datetime) -> Path:
    """Under today's date folder of the parent's sessions root, else beside the parent."""
    local = now.astimezone()
    name = f"rollout-{local:%Y-%m-%dT%H-%M-%S}-{child_id}.jsonl"
    root = sessions_root(Path(session.path))
    if root is None:
        return Path(session.path).parent / name
    return root / f"{local:%Y}" / f"{local:%m}" / f"{local:%d}" / name


def placement(session: Session, path: Path) -> str:
    """Where the child goes and why (a note for the report)."""
    root = sessions_root(Path(session.path))
    if root is None:
        return (
            f"the child goes beside its parent ({path.parent}): the parent is not in a Codex "
            "sessions/YYYY/MM/DD folder, and `codex resume` lists only rollouts under "
            "$CODEX_HOME/sessions"
        )
    return (
        f"the child goes under today's date folder of the parent's sessions root "
        f"({path.parent}), where Codex files a new rollout and `codex resume` finds it"
    )


def _item(value: dict[str, Any]) -> tuple[str | None, str | None]:
    """(payload type, call_id) of a `response_item` line."""
    if value.get("type") != "response_item" or not isinstance(value.get("payload"), dict):
        return None, None
    payload = value["payload"]
    kind, call_id = payload.get("type"), payload.get("call_id")
    return kind if isinstance(kind, str) else None, call_id if isinstance(call_id, str) else None


def _complete_pairs(values: list[Any], kept: set[int], notes: list[str]) -> set[int]:
    calls: dict[str, int] = {}
    outputs: dict[str, list[int]] = {}
    for index, value in enumerate(values):
        kind, call_id = _item(value)
        if call_id is None:
            continue
        if kind in CALLS:
            calls.setdefault(call_id, index)
        elif kind in OUTPUTS:
            outputs.setdefault(call_id, []).append(index)
    added = {
        i
        for call_id, index in calls.items()
        if index in kept
        for i in outputs.get(call_id, [])
        if i not in kept
    }
    if added:
        notes.append(f"kept {len(added)} more output line(s) answering kept tool calls")
    kept = kept | added
    orphans = {
        i
        for i in kept
        if _item(values[i])[0] in OUTPUTS and calls.get(_item(values[i])[1] or "") not in kept
    }
    if orphans:
        notes.append(f"dropped {len(orphans)} output line(s) whose tool call was not kept")
    return kept - orphans


def build(source: ChildSource) -> ChildBody:
    """A fresh `session_meta`, then the kept lines."""
    session = source.session
    values = [record.value for record in session.records]
    notes: list[str] = []
    blockers: list[str] = []
    kept_set = _complete_pairs(values, set(kept_records(source.kept)), notes)
    meta_index = next((i for i, v in enumerate(values) if v.get("type") == "session_meta"), None)
    if meta_index is None:
        blockers.append("the source has no session_meta line; Codex refuses such a rollout")
        meta: dict[str, Any] = {}
    else:
        meta = values[meta_index]
    kept = sorted(kept_set - {meta_index})
    payload = dict(meta.get("payload") or {})
    payload["id"] = source.child_id
    if session.session_id:
        payload["forked_from_id"] = session.session_id
    else:
        payload.pop("forked_from_id", None)
    stamp = iso_stamp(source.now)
    payload["timestamp"] = stamp
    new_meta = {**meta, "timestamp": stamp, "type": "session_meta", "payload": payload}
    raw = {i: session.record_bytes(i) for i in kept if i not in source.replacements}
    lines = [dumps_json(new_meta)]
    for index in kept:
        if index in source.replacements:
            lines.append(dumps_json(source.replacements[index]))
        else:
            lines.append(raw[index])
    if _needs_abort_mark(source.kept):
        last = values[kept[-1]] if kept else {}
        when = last.get("timestamp")
        lines.append(
            dumps_json(_abort_mark(when if isinstance(when, str) else stamp, last.get("ordinal")))
        )
        notes.append(
            "added a turn_aborted event (as Codex writes for an interrupted turn) so that the "
            "child's last turn still ends as interrupted"
        )
    return ChildBody(lines, None, blockers, notes, len(kept) + (meta_index is not None))


def _needs_abort_mark(kept: list[Event]) -> bool:
    """Whether the child's last turn ended as interrupted in the parent and the child keeps no
    `turn_aborted` event saying so."""
    if last_turn_ending(kept) != "interrupted":
        return False
    start = max(i for i, e in enumerate(kept) if e.type == "turn/start")
    return not any(e.type == "codex/event_msg/turn_aborted" for e in kept[start:])


def _abort_mark(stamp: str, ordinal: Any) -> dict[str, Any]:
    """The event Codex writes when the user interrupts a turn; numbered after the last kept
    record when records carry an `ordinal` (Codex 0.171 refuses a rollout whose final record
    has none)."""
    mark: dict[str, Any] = {"timestamp": stamp}
    if isinstance(ordinal, int) and not isinstance(ordinal, bool):
        mark["ordinal"] = ordinal + 1
    mark["type"] = "event_msg"
    mark["payload"] = {"type": "turn_aborted", "reason": "interrupted"}
    return mark


def replace_result(value: Any, call_id: str, text: str) -> Any | None:
    """A copy of `value` whose `function_call_output` for `call_id` reads `text`, or None."""
    value = copy.deepcopy(value)
    payload = value.get("payload") if isinstance(value, dict) else None
    if not isinstance(payload, dict) or payload.get("call_id") != call_id:
        return None
    payload["output"] = _output(payload.get("output"), text)
    return value


def _output(output: Any, text: str) -> Any:
    """`text` in the shape of the original output (a list of parts, a JSON wrapper, text)."""
    if isinstance(output, list):
        return [{"type": "input_text", "text": text}]
    if isinstance(output, str) and output.startswith("{"):
        try:
            wrapped = orjson.loads(output)
        except orjson.JSONDecodeError:
            wrapped = None
        if isinstance(wrapped, dict) and "output" in wrapped:
            return dumps_json({**wrapped, "output": text}).decode()
    return text
