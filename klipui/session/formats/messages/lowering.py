"""Generic chat-message JSONL: the fallback format, tried last.

Two line shapes, possibly mixed in one file:

- one message a line: `{"role", "content", ...}` in the OpenAI Chat shape (`tool_calls` on
  assistant messages, `role: "tool"` + `tool_call_id` for results, `image_url` parts) or the
  Anthropic Messages shape (`tool_use` / `tool_result` / `thinking` / `image` content blocks);
- one conversation a line: `{"messages": [...], ...}` (fine-tuning style); such a line lowers to
  the events of all its messages, in order, all with the line as their origin.

Lowering: `user` → `user/message` (a turn a message that is not only tool results), preceded by
one `tool/result` per `tool_result` block; `assistant` → `assistant/message` (text, `thinking` /
`reasoning_content` → reasoning, `tool_use` / `tool_calls` → tool-call blocks) plus one
`tool/call` per call; `tool` → `tool/result`; `system` / `developer` and any other role →
ignorable `messages/<role>` with `data = {"message": <native message>, "part": ...}`; a line
that is neither shape → ignorable `messages/<type or "record">` with the native line as data.

Every event lowered from a message carries `data["part"] = [message index in the line, block]`
where block is the index of its tool call / tool result (in `tool_calls` or `content`), or -1 for
the rest of the message. Raising uses it: a line all of whose events are kept is copied byte for
byte; otherwise it is rebuilt from the kept parts (a conversation line keeps only the messages
with a kept event; a message loses the tool calls and tool results whose events were dropped, and
its other blocks when its own message event was dropped) and re-encoded as compact JSON.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from klipui.session.formats._turnkit import (
    EventLog,
    as_ms,
    call_block,
    first_seen_origins,
    text_blocks,
    title_line,
)
from klipui.session.formats._values import base64_size, data_url_image, dumps_json, raw_lines
from klipui.session.model import Event, Problem, Record, Session, SessionInfo
from klipui.session.turns import build_turns

name = "messages"
agent = "messages"

PART = "part"
"""`data` key: `[message index in the line, block index or -1]`."""
WHOLE = -1
SNIFF_DEPTH = 8

_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})


def _is_message(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("role"), str)
        and ("content" in value or "tool_calls" in value)
    )


def _is_conversation(value: Any) -> bool:
    messages = value.get("messages") if isinstance(value, dict) else None
    return (
        isinstance(messages, list) and bool(messages) and all(_is_message(m) for m in messages[:8])
    )


def sniff(values: Sequence[Any]) -> bool:
    """One of the first few records is a chat message with a known role or a conversation.

    Lenient on purpose: this is the fallback, tried after every agent format.
    """
    for value in values[:SNIFF_DEPTH]:
        if _is_conversation(value):
            return True
        if _is_message(value) and value["role"] in _ROLES:
            return True
    return False


def _image_block(block: dict[str, Any]) -> dict[str, Any]:
    if block.get("type") == "image_url":
        image = block.get("image_url")
        url = image.get("url") if isinstance(image, dict) else image
        return data_url_image(
            url if isinstance(url, str) else "", default_media="application/octet-stream"
        )
    found = block.get("source")
    source: dict[str, Any] = found if isinstance(found, dict) else {}
    if source.get("type") == "url":
        return {"type": "image", "mediaType": "", "size": 0, "url": source.get("url", "")}
    media = source.get("media_type") or block.get("mimeType") or ""
    return {"type": "image", "mediaType": media, "size": base64_size(source.get("data"))}


def content_blocks(content: Any) -> list[dict[str, Any]]:
    """Text and image parts of a message content (string or list), as lowered blocks."""
    if isinstance(content, str):
        return text_blocks(content)
    blocks: list[dict[str, Any]] = []
    if not isinstance(content, list):
        return blocks
    for block in content:
        if isinstance(block, str):
            blocks.extend(text_blocks(block))
            continue
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind in ("text", "input_text", "output_text"):
            blocks.append({"type": "text", "text": str(block.get("text") or "")})
        elif kind in ("thinking", "reasoning"):
            text = block.get("thinking") or block.get("text") or ""
            blocks.append({"type": "reasoning", "text": str(text)})
        elif kind in ("image", "image_url"):
            blocks.append(_image_block(block))
    return blocks


class _Lowering:
    def __init__(self) -> None:
        self.log = EventLog()
        self.first_prompt: str | None = None

    def record(self, index: int, record: Record) -> None:
        value = record.value
        time = as_ms(value.get("timestamp"))
        if _is_conversation(value):
            for position, message in enumerate(value["messages"]):
                self.message(
                    index, record.line, position, message, time, f"L{record.line}.{position}"
                )
        elif _is_message(value):
            self.message(index, record.line, 0, value, time, f"L{record.line}")
        else:
            kind = value.get("type") if isinstance(value.get("type"), str) else "record"
            self.log.add(f"messages/{kind}", value, time=time, origin=index, ignorable=True)

    def message(
        self, index: int, line: int, position: int, message: Any, time: int | None, key: str
    ) -> None:
        log = self.log
        if not isinstance(message, dict):
            data = {"message": message, PART: [position, WHOLE]}
            log.add("messages/invalid", data, time=time, origin=index, ignorable=True)
            return
        time = as_ms(message.get("timestamp")) or time
        role = message.get("role")
        content = message.get("content")
        whole = [position, WHOLE]
        if role == "user":
            rest: list[Any] = []
            results = 0
            if isinstance(content, list):
                for block_index, block in enumerate(content):
                    if isinstance(block, dict) and block.get("type") == "tool_result":
                        self.anthropic_result(index, position, block_index, block, time, key)
                        results += 1
                    else:
                        rest.append(block)
            blocks = content_blocks(rest if isinstance(content, list) else content)
            if rest or not results:
                if self.first_prompt is None:
                    self.first_prompt = "\n".join(b["text"] for b in blocks if b["type"] == "text")
                native_id = message.get("id")
                message_id = native_id if isinstance(native_id, str) else key
                event = log.user(message_id, blocks, kind="user", time=time, origin=index)
                event.data[PART] = whole
        elif role == "assistant":
            self.assistant(index, position, message, time, key)
        elif role == "tool":
            call_id = str(message.get("tool_call_id") or "")
            event = log.result(
                key, call_id, content_blocks(content), is_error=False, time=time, origin=index
            )
            event.data[PART] = whole
        else:
            kind = role if isinstance(role, str) and role else "message"
            data = {"message": message, PART: whole}
            log.add(f"messages/{kind}", data, time=time, origin=index, ignorable=True)

    def anthropic_result(
        self,
        index: int,
        position: int,
        block_index: int,
        block: dict[str, Any],
        time: int | None,
        key: str,
    ) -> None:
        event = self.log.result(
            f"{key}.{block_index}",
            str(block.get("tool_use_id") or ""),
            content_blocks(block.get("content")),
            is_error=bool(block.get("is_error")),
            time=time,
            origin=index,
        )
        event.data[PART] = [position, block_index]

    def assistant(
        self, index: int, position: int, message: dict[str, Any], time: int | None, key: str
    ) -> None:
        content = message.get("content")
        blocks: list[dict[str, Any]] = []
        calls: list[tuple[int, dict[str, Any]]] = []
        reasoning = message.get("reasoning_content")
        if isinstance(reasoning, str) and reasoning:
            blocks.append({"type": "reasoning", "text": reasoning})
        if isinstance(content, list):
            for block_index, block in enumerate(content):
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    call = call_block(block.get("id"), block.get("name"), block.get("input", {}))
                    blocks.append(call)
                    calls.append((block_index, call))
                else:
                    blocks.extend(content_blocks([block]))
        else:
            blocks.extend(content_blocks(content))
        tool_calls = message.get("tool_calls")
        if isinstance(tool_calls, list):
            for call_index, item in enumerate(tool_calls):
                function = item.get("function") if isinstance(item, dict) else None
                if not isinstance(function, dict):
                    continue
                call = call_block(
                    item.get("id"), function.get("name"), function.get("arguments", "")
                )
                blocks.append(call)
                calls.append((call_index, call))
        native_id = message.get("id")
        message_id = native_id if isinstance(native_id, str) else key
        stop = message.get("stop_reason") or message.get("finish_reason")
        event = self.log.assistant(
            message_id,
            blocks,
            time=time,
            origin=index,
            model=message.get("model") if isinstance(message.get("model"), str) else None,
            usage=message.get("usage"),
            stop=stop if isinstance(stop, str) else None,
        )
        event.data[PART] = [position, WHOLE]
        for call_index, call in calls:
            call_event = self.log.call(
                call["id"], call["name"], call["arguments"], time=time, origin=index
            )
            call_event.data[PART] = [position, call_index]


def lower(path: Path, records: list[Record], problems: list[Problem]) -> Session:
    """Lower chat-message lines to events and turns."""
    lowering = _Lowering()
    for index, record in enumerate(records):
        lowering.record(index, record)
    events = lowering.log.finish()
    return Session(
        path=Path(path),
        format=name,
        records=records,
        events=events,
        turns=build_turns(events),
        problems=problems,
        title=title_line(lowering.first_prompt),
    )


def info(path: Path, values: Sequence[Any]) -> SessionInfo:
    """Figures from the first records: the first prompt is also the title."""
    path = Path(path)
    first_prompt: str | None = None
    for value in values:
        messages = value.get("messages") if _is_conversation(value) else [value]
        for message in messages:
            if _is_message(message) and message["role"] == "user":
                blocks = content_blocks(message.get("content"))
                first_prompt = title_line(
                    "\n".join(b["text"] for b in blocks if b["type"] == "text")
                )
                if first_prompt:
                    break
        if first_prompt:
            break
    stat = path.stat()
    return SessionInfo(
        path=path,
        format=name,
        agent=agent,
        title=first_prompt,
        first_prompt=first_prompt,
        updated=stat.st_mtime,
        bytes=stat.st_size,
    )


def _parts(events: Sequence[Event]) -> dict[int, set[tuple[int, int]]]:
    parts: dict[int, set[tuple[int, int]]] = defaultdict(set)
    for event in events:
        if event.origin is None:
            continue
        part = event.data.get(PART) if isinstance(event.data, dict) else None
        if isinstance(part, list) and len(part) == 2:
            parts[event.origin].add((part[0], part[1]))
        else:
            parts[event.origin].add((0, WHOLE))
    return parts


def raise_records(session: Session, events: Sequence[Event]) -> Iterator[bytes]:
    """Native lines for the kept `events`: untouched lines copied, partly kept lines rebuilt."""
    order = list(first_seen_origins(events))
    kept = _parts(events)
    full = _parts(session.events)
    whole = [i for i in order if kept[i] == full.get(i, kept[i])]
    raw = raw_lines(session, whole)
    whole_set = set(whole)
    for index in order:
        if index in whole_set:
            yield raw[index]
            continue
        value = session.records[index].value
        rebuilt = _rebuild(value, kept[index])
        if rebuilt is not None:
            yield dumps_json(rebuilt)


def _rebuild(value: dict[str, Any], parts: set[tuple[int, int]]) -> dict[str, Any] | None:
    """`value` holding only the kept parts (None when nothing of it is left)."""
    if _is_conversation(value):
        messages = []
        for position, message in enumerate(value["messages"]):
            blocks = {block for (m, block) in parts if m == position}
            if blocks:
                rebuilt = _rebuild_message(message, blocks)
                if rebuilt is not None:
                    messages.append(rebuilt)
        return {**value, "messages": messages} if messages else None
    if _is_message(value):
        rebuilt_message: dict[str, Any] | None = _rebuild_message(
            value, {block for (m, block) in parts if m == 0}
        )
        return rebuilt_message
    return value


def _rebuild_message(message: Any, blocks: set[int]) -> Any:
    if not isinstance(message, dict):
        return message
    role = message.get("role")
    content = message.get("content")
    out = dict(message)
    if role == "assistant" and isinstance(message.get("tool_calls"), list):
        calls = [c for i, c in enumerate(message["tool_calls"]) if i in blocks]
        if calls:
            out["tool_calls"] = calls
        else:
            out.pop("tool_calls")
        if WHOLE not in blocks and not calls:
            return None
        return out
    if role in ("user", "assistant") and isinstance(content, list):
        special = "tool_result" if role == "user" else "tool_use"
        kept = [
            block
            for i, block in enumerate(content)
            if (
                i in blocks
                if isinstance(block, dict) and block.get("type") == special
                else WHOLE in blocks
            )
        ]
        if not kept:
            return None
        out["content"] = kept
        return out
    return out if WHOLE in blocks else None
