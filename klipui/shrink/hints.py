"""What a tool call says about its result, as the shrink engine's `Hint`: tool, command, path."""

from __future__ import annotations

import json
from typing import Any

from klipui.shrink.plan import Hint


def tool_arguments(raw: Any) -> dict[str, Any]:
    """A tool call's arguments as a dict ({} when they are not a JSON object)."""
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            return {}
    return raw if isinstance(raw, dict) else {}


def hint_for(name: str | None, arguments: Any) -> Hint:
    """Tool name, shell command and file path of a call, for shape detection and shrinking."""
    args = tool_arguments(arguments)
    command = args.get("command") or args.get("cmd")
    if isinstance(command, list):
        command = " ".join(map(str, command))
    path = args.get("file_path") or args.get("path")
    return Hint(
        tool=name.lower() if name else None,
        command=command if isinstance(command, str) else None,
        path=path if isinstance(path, str) else None,
    )
