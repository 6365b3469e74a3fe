"""API messages from a session: what to send to the Anthropic or OpenAI API to continue it.

`anthropic_request(session)` and `openai_request(session)` build `{"system"?, "messages"}` /
`{"messages"}` from the session's lowered events, in log order, so that the result passes
`check_messages`:

1. Events to messages: every `user/message` (any source: prompts, meta and context lines,
   branch summaries) is user text; `assistant/message` gives text and `tool_use` blocks
   (reasoning is left out: Anthropic only takes thinking blocks with their signatures); a
   `tool/call` whose id no assistant block carries becomes a `tool_use` of the assistant
   message before it (or of a new one); `tool/result` is a user `tool_result`;
   `compaction/summary` is user text, unless the next user message already holds the summary
   (as DeepSeek Harness logs do); `messages/system` events give the system prompt; every other
   event, and every ignorable one (sidechains, abandoned branches), is left out. Images
   (whose data never reaches the events) become text placeholders.
2. Merging consecutive same-role messages.
3. Pairing: each assistant message with tool calls is followed by a user message whose first
   blocks are their results (a result written later in the log is moved there; a call without
   a result gets one saying so, marked as an error); a tool call id seen before is dropped; a
   result that answers no call of the message before becomes plain user text.
4. Sanitising: base64 blobs and binary become placeholders (`klipui.conversation.sanitize`).
5. A conversation that starts with the assistant gets a short user message before it.

The OpenAI form is made from the Anthropic one: `tool_use` → `tool_calls`, each `tool_result` →
a `tool` message right after its assistant message (an error result is prefixed `(error) `),
the rest of a user message → a user message after those.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from klipui.conversation.merge import merge_consecutive
from klipui.conversation.sanitize import human_size, sanitize_messages
from klipui.conversation.walk import Message, parse_arguments
from klipui.session.formats import json_text
from klipui.session.model import Event, Session

NO_RESULT = "(no result recorded in the session)"
START = "(the session continues from here)"
"""Text of the user message put before a conversation that starts with the assistant."""

Block = dict[str, Any]


def _event_content(data: dict[str, Any]) -> Any:
    message = data.get("message")
    if isinstance(message, dict) and "content" in message:
        return message.get("content")
    return data.get("content")


def _text_of(blocks: Any) -> str:
    if isinstance(blocks, str):
        return blocks
    if not isinstance(blocks, list):
        return ""
    parts = []
    for block in blocks:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text") or ""))
    return "\n".join(parts)


def _image_text(block: dict[str, Any]) -> str:
    media = block.get("mediaType") or "image"
    size = block.get("size")
    if isinstance(size, int) and size > 0:
        return f"[image omitted: {media}, {human_size(size)}]"
    return f"[image omitted: {media}]"


def _user_blocks(blocks: Any) -> list[Block]:
    """Lowered user content as Anthropic blocks (text and image placeholders)."""
    if isinstance(blocks, str):
        return [{"type": "text", "text": blocks}]
    out: list[Block] = []
    for block in blocks if isinstance(blocks, list) else ():
        if isinstance(block, str):
            out.append({"type": "text", "text": block})
        elif isinstance(block, dict):
            kind = block.get("type")
            if kind == "text":
                out.append({"type": "text", "text": str(block.get("text") or "")})
            elif kind == "image":
                out.append({"type": "text", "text": _image_text(block)})
    return out


_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def api_id(value: Any) -> str:
    """A tool call id the APIs accept (`[A-Za-z0-9_-]+`): other characters become `_`."""
    return _UNSAFE.sub("_", str(value or "")) or "call"


def api_name(value: Any) -> str:
    """A tool name the APIs accept (`[A-Za-z0-9_-]{1,64}`)."""
    return (_UNSAFE.sub("_", str(value or "")) or "tool")[:64]


def _tool_use(call_id: str, name: Any, arguments: Any) -> Block:
    return {
        "type": "tool_use",
        "id": api_id(call_id),
        "name": api_name(name),
        "input": parse_arguments(arguments),
    }


def _result_blocks(event: Event) -> list[Block]:
    """The `tool_result` blocks of a `tool/result` event."""
    data = event.data
    content = _event_content(data)
    fallback_id = None
    message = data.get("message")
    if isinstance(message, dict) and isinstance(message.get("source"), dict):
        fallback_id = message["source"].get("callId")
    fallback_id = fallback_id or data.get("callId")
    results: list[Block] = []
    loose: list[Block] = []
    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "tool-result":
            results.append(
                _tool_result(
                    block.get("toolCallId") or fallback_id,
                    block.get("content"),
                    block.get("isError"),
                )
            )
        elif isinstance(block, dict):
            loose.append(block)
    if loose and fallback_id:
        results.append(_tool_result(fallback_id, loose, data.get("isError")))
    return results


def _tool_result(call_id: Any, content: Any, is_error: Any) -> Block:
    parts = _user_blocks(content)
    text = "\n".join(p["text"] for p in parts)
    block: Block = {"type": "tool_result", "tool_use_id": api_id(call_id)}
    if text.strip():
        block["content"] = text
    if is_error:
        block["is_error"] = True
    return block


class _Builder:
    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.system: list[str] = []
        self.call_ids: set[str] = set()

    def add(self, role: str, blocks: list[Block]) -> None:
        if blocks:
            self.messages.append({"role": role, "content": blocks})

    def event(self, event: Event, upcoming_user_text: str | None) -> None:
        kind = event.type
        data = event.data if isinstance(event.data, dict) else {}
        if event.ignorable and kind != "messages/system":
            return
        if kind == "user/message":
            self.add("user", _user_blocks(_event_content(data)))
        elif kind == "assistant/message":
            self.assistant(_event_content(data))
        elif kind == "tool/call":
            self.call(data)
        elif kind == "tool/result":
            self.add("user", _result_blocks(event))
        elif kind == "compaction/summary":
            summary = str(data.get("summary") or "")
            if summary.strip() and (
                upcoming_user_text is None or summary.strip() not in upcoming_user_text
            ):
                self.add(
                    "user",
                    [
                        {
                            "type": "text",
                            "text": f"[Summary of the conversation so far]\n\n{summary}",
                        }
                    ],
                )
        elif kind == "messages/system":
            message = data.get("message")
            text = _text_of(message.get("content")) if isinstance(message, dict) else ""
            if text.strip():
                self.system.append(text)

    def assistant(self, content: Any) -> None:
        blocks: list[Block] = []
        for block in content if isinstance(content, list) else _user_blocks(content):
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text":
                blocks.append({"type": "text", "text": str(block.get("text") or "")})
            elif kind == "tool-call":
                call_id = str(block.get("id") or "")
                self.call_ids.add(call_id)
                blocks.append(_tool_use(call_id, block.get("name"), block.get("arguments")))
            elif kind == "image":
                blocks.append({"type": "text", "text": _image_text(block)})
        self.add("assistant", blocks)

    def call(self, data: dict[str, Any]) -> None:
        call_id = str(data.get("callId") or "")
        if call_id in self.call_ids:
            return
        self.call_ids.add(call_id)
        block = _tool_use(call_id, data.get("name"), data.get("arguments"))
        if self.messages and self.messages[-1]["role"] == "assistant":
            self.messages[-1]["content"].append(block)
        else:
            self.add("assistant", [block])


def _next_user_texts(events: Sequence[Event]) -> list[str | None]:
    """For each event, the text of the next `user/message` after it (None when none)."""
    out: list[str | None] = [None] * len(events)
    upcoming: str | None = None
    for index in range(len(events) - 1, -1, -1):
        out[index] = upcoming
        event = events[index]
        if event.type == "user/message" and isinstance(event.data, dict):
            upcoming = _text_of(_event_content(event.data))
    return out


def _clean_blocks(messages: list[Message]) -> list[Message]:
    """Messages without empty text blocks, and without messages left empty."""
    out = []
    for message in messages:
        blocks = [
            b
            for b in message["content"]
            if not (b.get("type") == "text" and not str(b.get("text") or "").strip())
        ]
        if blocks:
            out.append({**message, "content": blocks})
    return out


def _pair(messages: list[Message]) -> tuple[list[Message], bool]:
    """One pairing pass; returns the messages and whether anything changed."""
    messages = [{**m, "content": list(m["content"])} for m in messages]
    changed = _answer_calls(messages)
    changed = _orphans_as_text(messages) or changed
    return messages, changed


def _answer_calls(messages: list[Message]) -> bool:
    """Put the result of every call (or a stand-in) first in the user message after it, in
    place; drop repeated calls. Whether anything changed."""
    changed = False
    seen_calls: set[str] = set()
    index = 0
    while index < len(messages):
        message = messages[index]
        if message["role"] != "assistant":
            index += 1
            continue
        uses: list[str] = []
        kept: list[Block] = []
        for block in message["content"]:
            if block.get("type") == "tool_use":
                if block["id"] in seen_calls:
                    changed = True
                    continue
                seen_calls.add(block["id"])
                uses.append(block["id"])
            kept.append(block)
        message["content"] = kept
        if not uses:
            index += 1
            continue
        if index + 1 >= len(messages) or messages[index + 1]["role"] != "user":
            messages.insert(index + 1, {"role": "user", "content": []})
            changed = True
        answer = messages[index + 1]
        front: list[Block] = []
        for call_id in uses:
            found = _take_result(messages, index + 1, call_id)
            if found is None:
                result: Block = {
                    "type": "tool_result",
                    "tool_use_id": call_id,
                    "content": NO_RESULT,
                    "is_error": True,
                }
                changed = True
            else:
                result, where = found
                changed = changed or where != index + 1
            front.append(result)
        answer["content"] = front + answer["content"]
        index += 1
    return changed


def _orphans_as_text(messages: list[Message]) -> bool:
    """Results answering no call of the message before become text, in place. Whether any
    did."""
    changed = False
    for index, message in enumerate(messages):
        if message["role"] != "user":
            continue
        before = messages[index - 1] if index > 0 else None
        asked = (
            {b["id"] for b in before["content"] if b.get("type") == "tool_use"}
            if before and before["role"] == "assistant"
            else set()
        )
        blocks = []
        answered: set[str] = set()
        for block in message["content"]:
            if block.get("type") == "tool_result" and (
                block["tool_use_id"] not in asked or block["tool_use_id"] in answered
            ):
                changed = True
                call_id = block["tool_use_id"]
                text = f"[result of tool call {call_id}, which is not in this conversation]"
                if block.get("content"):
                    text = f"{text}\n{block['content']}"
                blocks.append({"type": "text", "text": text})
                continue
            if block.get("type") == "tool_result":
                answered.add(block["tool_use_id"])
            blocks.append(block)
        message["content"] = blocks
    return changed


def _take_result(messages: list[Message], start: int, call_id: str) -> tuple[Block, int] | None:
    """Remove and return the first `tool_result` for `call_id` at or after message `start`."""
    for index in range(start, len(messages)):
        message = messages[index]
        if message["role"] != "user":
            continue
        for position, block in enumerate(message["content"]):
            if block.get("type") == "tool_result" and block.get("tool_use_id") == call_id:
                del message["content"][position]
                return block, index
    return None


def _tool_results_first(messages: list[Message]) -> list[Message]:
    out = []
    for message in messages:
        if message["role"] == "user":
            blocks = message["content"]
            results = [b for b in blocks if b.get("type") == "tool_result"]
            others = [b for b in blocks if b.get("type") != "tool_result"]
            message = {**message, "content": results + others}
        out.append(message)
    return out


def anthropic_messages(events: Sequence[Event]) -> tuple[str | None, list[Message], int]:
    """System prompt, Anthropic messages and the number of blobs sanitised, from events."""
    builder = _Builder()
    upcoming = _next_user_texts(events)
    for event, next_text in zip(events, upcoming, strict=True):
        builder.event(event, next_text)
    messages = merge_consecutive(_clean_blocks(builder.messages))
    for _ in range(8):
        messages, changed = _pair(messages)
        messages = merge_consecutive(_clean_blocks(messages))
        if not changed:
            break
    messages = _tool_results_first(messages)
    if messages and messages[0]["role"] != "user":
        messages.insert(0, {"role": "user", "content": [{"type": "text", "text": START}]})
    sanitized = sanitize_messages(messages)
    system = "\n\n".join(builder.system) or None
    return system, sanitized.messages, sanitized.replaced


def anthropic_request(session: Session) -> dict[str, Any]:
    """`{"system"?, "messages"}` for the Anthropic Messages API."""
    system, messages, _ = anthropic_messages(session.events)
    out: dict[str, Any] = {}
    if system:
        out["system"] = system
    out["messages"] = messages
    return out


def to_openai(system: str | None, messages: Sequence[Message]) -> list[Message]:
    """Anthropic-shape messages (paired, merged) as OpenAI Chat messages."""
    out: list[Message] = []
    if system:
        out.append({"role": "system", "content": system})
    for message in messages:
        blocks = (
            message["content"]
            if isinstance(message["content"], list)
            else [{"type": "text", "text": message["content"]}]
        )
        texts = "\n\n".join(str(b.get("text") or "") for b in blocks if b.get("type") == "text")
        if message["role"] == "assistant":
            calls = [
                {
                    "id": b["id"],
                    "type": "function",
                    "function": {
                        "name": b["name"],
                        "arguments": json_text(b.get("input", {})),
                    },
                }
                for b in blocks
                if b.get("type") == "tool_use"
            ]
            item: Message = {"role": "assistant", "content": texts or None}
            if calls:
                item["tool_calls"] = calls
            out.append(item)
            continue
        for block in blocks:
            if block.get("type") == "tool_result":
                content = str(block.get("content") or "")
                if block.get("is_error"):
                    content = f"(error) {content}"
                out.append(
                    {"role": "tool", "tool_call_id": block["tool_use_id"], "content": content}
                )
        if texts:
            out.append({"role": "user", "content": texts})
    return out


def openai_request(session: Session) -> dict[str, Any]:
    """`{"messages"}` for the OpenAI Chat Completions API."""
    system, messages, _ = anthropic_messages(session.events)
    return {"messages": to_openai(system, messages)}
