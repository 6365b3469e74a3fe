"""Walking the content blocks of API messages, in one vocabulary for both API shapes.

`walk_blocks` yields Anthropic-style blocks for a message in either shape: a string content is
one `text` block; an OpenAI assistant's `tool_calls` become `tool_use` blocks (`input` parsed
from the JSON arguments when it parses, else `{"arguments": <text>}`); an OpenAI `tool`
message is one `tool_result` block. Blocks already in Anthropic shape pass through unchanged.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from typing import Any

import orjson

Message = dict[str, Any]
Block = dict[str, Any]


_LONG_NUMBER = re.compile(r"\d{19}")
"""Digits enough for an integer beyond 64 bits, which orjson would read as a float."""


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of range")
    return value


def parse_arguments(arguments: Any) -> Any:
    """Tool-call arguments as a JSON value: parsed from text when they parse, kept otherwise
    (as `{"arguments": <text>}`). Integers beyond 64 bits are kept exactly; NaN, Infinity and
    out-of-range floats are not JSON, so such text is kept as it is."""
    if not isinstance(arguments, str):
        return arguments if arguments is not None else {}
    if not arguments.strip():
        return {}
    try:
        if _LONG_NUMBER.search(arguments):
            value = json.loads(arguments, parse_constant=_no_constant, parse_float=_finite_float)
        else:
            value = orjson.loads(arguments)
    except (ValueError, RecursionError):  # orjson.JSONDecodeError is a ValueError
        return {"arguments": arguments}
    return value if isinstance(value, dict) else {"value": value}


def walk_blocks(message: Message) -> Iterator[Block]:
    """The content blocks of `message`, Anthropic-style, in order."""
    role = message.get("role")
    content = message.get("content")
    if role == "tool":
        yield {
            "type": "tool_result",
            "tool_use_id": message.get("tool_call_id"),
            "content": content if content is not None else "",
        }
        return
    if isinstance(content, str):
        yield {"type": "text", "text": content}
    elif isinstance(content, list):
        for block in content:
            if isinstance(block, str):
                yield {"type": "text", "text": block}
            elif isinstance(block, dict):
                yield block
    for call in message.get("tool_calls") or ():
        if not isinstance(call, dict):
            continue
        found = call.get("function")
        function: dict[str, Any] = found if isinstance(found, dict) else {}
        yield {
            "type": "tool_use",
            "id": call.get("id"),
            "name": function.get("name"),
            "input": parse_arguments(function.get("arguments")),
        }


def tool_use_ids(message: Message) -> list[str]:
    """Ids of the tool calls a message makes, in order."""
    return [str(b.get("id")) for b in walk_blocks(message) if b.get("type") == "tool_use"]


def tool_result_ids(message: Message) -> list[str]:
    """Ids of the tool calls a message answers, in order."""
    return [
        str(b.get("tool_use_id")) for b in walk_blocks(message) if b.get("type") == "tool_result"
    ]


def block_text(block: Block) -> str:
    """The plain text of one block ("" for blocks without text): text, thinking, the text parts
    of a tool result, or the JSON input of a tool call."""
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text") or "")
    if kind == "thinking":
        return str(block.get("thinking") or "")
    if kind == "tool_use":
        return orjson.dumps(block.get("input", {})).decode()
    if kind == "tool_result":
        content = block.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "\n".join(block_text(part) for part in content if isinstance(part, dict))
    return ""


def message_text(message: Message, sep: str = "\n") -> str:
    """Every text of a message joined by `sep`."""
    return sep.join(text for text in map(block_text, walk_blocks(message)) if text)
