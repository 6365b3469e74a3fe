"""Plain text out of lowered content blocks and events (for prompts, token estimates, search)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from klipui.session.model import Event

TEXT_BLOCKS = frozenset({"text", "reasoning"})


def iter_block_texts(blocks: Any, *, tool_calls: bool = True) -> Iterator[str]:
    """The texts inside `blocks`, in order (see `block_texts`)."""
    return iter(block_texts(blocks, tool_calls))


def block_texts(blocks: Any, tool_calls: bool = True) -> list[str]:
    """The texts inside `blocks` (a list of blocks, a lone block or a bare string), in order.

    Text and reasoning blocks give their text, tool-call blocks their arguments (unless
    `tool_calls` is False), tool-result blocks the texts of their own content; images and
    unknown blocks give nothing. Built as a list, without generators (for passes over whole
    files).
    """
    if isinstance(blocks, str):
        return [blocks] if blocks else []
    if isinstance(blocks, dict):
        blocks = (blocks,)
    elif not isinstance(blocks, list | tuple):
        return []
    out: list[str] = []
    for block in blocks:
        if isinstance(block, str):
            if block:
                out.append(block)
            continue
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if not isinstance(kind, str):
            continue
        if kind in TEXT_BLOCKS:
            text = block.get("text")
            if isinstance(text, str) and text:
                out.append(text)
        elif kind == "tool-call":
            if tool_calls:
                arguments = block.get("arguments")
                if isinstance(arguments, str) and arguments:
                    out.append(arguments)
        elif kind == "tool-result":
            out.extend(block_texts(block.get("content"), tool_calls))
    return out


def result_errors(content: Any) -> int:
    """`tool_result_errors` of a `tool/result` whose message content is `content`."""
    if not isinstance(content, list):
        return 0
    return sum(
        1
        for b in content
        if isinstance(b, dict) and b.get("type") == "tool-result" and b.get("isError")
    )


def blocks_text(blocks: Any, *, tool_calls: bool = True, sep: str = "\n") -> str:
    """The texts of `blocks` joined by `sep`."""
    return sep.join(iter_block_texts(blocks, tool_calls=tool_calls))


def message_content(event: Event) -> Any:
    """The content blocks of a `user/message`, `assistant/message` or `tool/result` event."""
    data = event.data
    if event.type == "user/message":
        return data.get("content")
    if event.type in ("assistant/message", "tool/result"):
        message = data.get("message")
        if isinstance(message, dict):
            return message.get("content")
    return None


def event_texts(event: Event, *, tool_call_blocks: bool = False) -> Iterator[str]:
    """The texts an event carries: message content, or the arguments of a `tool/call`.

    Tool-call blocks inside assistant messages are skipped unless `tool_call_blocks` is True,
    because the matching `tool/call` event carries the same arguments.
    """
    if event.type == "tool/call":
        arguments = event.data.get("arguments")
        if isinstance(arguments, str) and arguments:
            yield arguments
        return
    content = message_content(event)
    if content is not None:
        yield from iter_block_texts(content, tool_calls=tool_call_blocks)


def event_text(event: Event, *, sep: str = "\n") -> str:
    """All the texts of `event` joined by `sep` ("" for events that carry none)."""
    return sep.join(event_texts(event))


def first_line(text: str) -> str:
    """The first non-blank line of `text`, stripped ("" when there is none)."""
    for line in text.splitlines():
        line = line.strip()
        if line:
            return line
    return ""


def tool_result_errors(event: Event) -> int:
    """How many tool-result blocks of a `tool/result` event are marked `isError`."""
    return sum(1 for block in _tool_result_blocks(event) if block.get("isError"))


def _tool_result_blocks(event: Event) -> Iterable[dict[str, Any]]:
    content = message_content(event) if event.type == "tool/result" else None
    if not isinstance(content, list):
        return ()
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool-result"]
