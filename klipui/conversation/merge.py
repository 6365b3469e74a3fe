"""Merging consecutive messages of the same role (the Anthropic API wants strict alternation).

Two string contents join with a blank line between them; otherwise the contents become block
lists and are concatenated. OpenAI assistant `tool_calls` are concatenated too. `tool` and
`system` messages are never merged (each OpenAI tool result is its own message). The input is
not modified.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from klipui.conversation.walk import Message

MERGEABLE = frozenset({"user", "assistant"})


def as_blocks(content: Any) -> list[Any]:
    """A content as a list of blocks (a string is one text block; None is no block)."""
    if content is None:
        return []
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    if isinstance(content, list):
        return list(content)
    return [content]


def merge_content(first: Any, second: Any) -> Any:
    """The content of two merged messages."""
    if first is None or first == "":
        return second
    if second is None or second == "":
        return first
    if isinstance(first, str) and isinstance(second, str):
        return f"{first}\n\n{second}"
    return as_blocks(first) + as_blocks(second)


def merge_consecutive(messages: Iterable[Message]) -> list[Message]:
    """`messages` with every run of same-role user or assistant messages merged into one."""
    merged: list[Message] = []
    for message in messages:
        last = merged[-1] if merged else None
        role = message.get("role")
        if last is not None and role in MERGEABLE and last.get("role") == role:
            combined = dict(last)
            combined["content"] = merge_content(last.get("content"), message.get("content"))
            calls = list(last.get("tool_calls") or []) + list(message.get("tool_calls") or [])
            if calls:
                combined["tool_calls"] = calls
            merged[-1] = combined
        else:
            merged.append(dict(message))
    return merged
