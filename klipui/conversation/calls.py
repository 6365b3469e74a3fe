"""Tool calls as a viewer shows them, and calls paired with their results.

`call_view(arguments)` decides what a call's arguments are: a shell command, an edit (shown as
the unified diff it makes), a patch (Codex `apply_patch`), or JSON; every string from the
session is cleaned of control and escape sequences. `calls_by_id` pairs the calls of a range of
events with the results that name them; `call_of` finds the call of one result.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from klipui.session.display import clean_text
from klipui.session.model import Event

_EDIT_KEYS = (("old_string", "new_string"), ("oldText", "newText"), ("old_str", "new_str"))
PATCH_START = "*** Begin Patch"
"""How a Codex `apply_patch` envelope begins."""


class CallBody(StrEnum):
    """What a tool call's arguments are, for drawing them."""

    COMMAND = "command"
    """A shell command (and the other arguments as a JSON comment line)."""
    DIFF = "diff"
    """An edit, as the unified diff it makes."""
    PATCH = "patch"
    """A patch text carried in the arguments."""
    JSON = "json"
    """Anything else, as indented JSON (or the raw text when it is not JSON)."""


@dataclass(frozen=True, slots=True)
class CallView:
    """A tool call's arguments as shown (`text`, cleaned) and as copied (`copy`)."""

    body: CallBody
    text: str
    copy: str


@dataclass(frozen=True, slots=True)
class Call:
    """A tool call: its name, its raw arguments and the index of its event."""

    name: str
    arguments: Any
    index: int


def parse_arguments(raw: Any) -> Any:
    """Arguments as a JSON value when they are JSON text, else as they are."""
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except (ValueError, RecursionError):
            return raw
    return raw


def json_text(value: Any, indent: int | None = 2) -> str:
    """`value` as JSON, cleaned for the screen (JSON escapes C0 controls, not C1)."""
    try:
        return clean_text(json.dumps(value, indent=indent, ensure_ascii=False, default=str))
    except (ValueError, RecursionError):
        return "(nested too deeply to show)"


def _lines(text: str) -> list[str]:
    """The lines of `text` split at newlines only (a final newline ends the last line)."""
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


def edit_diff(args: dict[str, Any]) -> str | None:
    """A unified diff of an edit call (Claude Edit/MultiEdit, pi edit, str_replace), one per
    edit, every line its own (a text without a final newline included); "" when no edit
    changes anything; None when the arguments are not an edit."""
    path = str(args.get("file_path") or args.get("path") or "file")
    listed = args.get("edits")
    edits: list[Any] = listed if isinstance(listed, list) else [args]
    parts: list[str] = []
    for edit in edits:
        if not isinstance(edit, dict):
            continue
        for old_key, new_key in _EDIT_KEYS:
            old, new = edit.get(old_key), edit.get(new_key)
            if isinstance(old, str) and isinstance(new, str):
                lines = difflib.unified_diff(
                    _lines(old), _lines(new), f"a/{path}", f"b/{path}", lineterm=""
                )
                parts.append("\n".join(lines))
                break
    if not parts:
        return None
    return "".join(part + "\n" for part in parts if part)


def _patch(args: dict[str, Any]) -> str | None:
    for key in ("patch", "input", "diff"):
        value = args.get(key)
        if isinstance(value, str) and (PATCH_START in value or "\n@@" in value):
            return value
    return None


def call_view(arguments: Any) -> CallView:
    """How a call with these raw arguments is shown (see `CallBody`)."""
    args = parse_arguments(arguments)
    copy = clean_text(args) if isinstance(args, str) else json_text(args)
    if not isinstance(args, dict):
        text = clean_text(str(args))
        return CallView(CallBody.PATCH if PATCH_START in text else CallBody.JSON, text, copy)
    command = args.get("command") or args.get("cmd")
    if isinstance(command, list):
        command = " ".join(str(c) for c in command)
    if isinstance(command, str):
        extra = {k: v for k, v in args.items() if k not in ("command", "cmd")}
        text = clean_text(command) + (f"\n# {json_text(extra, None)}" if extra else "")
        return CallView(CallBody.COMMAND, text, copy)
    diff = edit_diff(args)
    if diff is not None:
        return CallView(CallBody.DIFF, clean_text(diff), copy)
    patch = _patch(args)
    if patch is not None:
        return CallView(CallBody.PATCH, clean_text(patch), copy)
    return CallView(CallBody.JSON, copy, copy)


def call_of_event(event: Event, index: int) -> Call:
    """The call a `tool/call` event makes."""
    return Call(str(event.data.get("name") or ""), event.data.get("arguments"), index)


def calls_by_id(events: Sequence[Event], start: int = 0, end: int | None = None) -> dict[str, Call]:
    """The tool calls of `events[start:end]` by call id (a later call with the same id wins)."""
    calls: dict[str, Call] = {}
    for index in range(start, len(events) if end is None else end):
        event = events[index]
        if event.type == "tool/call":
            calls[str(event.data.get("callId") or "")] = call_of_event(event, index)
    return calls


def call_of(events: Sequence[Event], result_index: int, call_id: str | None) -> Call | None:
    """The call of the result at `result_index` whose call id is `call_id`: the nearest
    `tool/call` with that id at or before it, None when there is none."""
    if not call_id:
        return None
    for index in range(min(result_index, len(events) - 1), -1, -1):
        event = events[index]
        if event.type == "tool/call" and event.data.get("callId") == call_id:
            return call_of_event(event, index)
    return None
