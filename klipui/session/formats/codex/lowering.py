"""Codex CLI rollouts: `~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`.

Every line is `{timestamp, type, payload}`. Lowering:

- `session_meta` (the header: id, cwd, timestamp, fork/sub-agent parent): an ignorable
  `codex/session_meta` event; `Session.header` is the whole line.
- `response_item` is what the model saw, and what is rendered:
  - a user `message` opens a turn (`user/message`, source kind "user") unless it is injected
    context (`<environment_context>`, `<user_instructions>`, AGENTS.md text, ...): then source
    kind "context"; `developer`/`system` messages are context too (`source.role` says which);
  - the items of one model response (`reasoning`, assistant `message`, `function_call`,
    `custom_tool_call`, `local_shell_call`) make ONE `assistant/message` (`origin` = the first
    item, `data.origins` = every item's record index); reasoning comes from its summary (never
    the encrypted content); each call also gives a `tool/call` event;
  - `function_call_output` / `custom_tool_call_output` give `tool/result` events citing the call
    with the same `call_id`; an old-style `{"output", "metadata"}` JSON string is unwrapped (the
    metadata goes to `data.meta`, a non-zero exit code marks an error);
  - other items (`ghost_snapshot`, `web_search_call`, `compaction`, ...) are ignorable
    `codex/response_item/<type>` events.
- `event_msg` lines repeat what `response_item` holds (or are UI ticks): ignorable
  `codex/event_msg/<type>` events. `turn_context`: ignorable `codex/turn_context`; it opens the
  turn of the prompt that follows it. `compacted`: `compaction/summary {summary}`. A
  `turn_aborted` event ends its turn "interrupted", even when no turn follows it.
- Unknown line types: ignorable `codex/<type>` with the native line as `data`.

A custom tool's free-form input is lowered as the arguments `{"input": <text>}`.

Raising writes the lines behind the kept events in file order, byte for byte, always starting
with the `session_meta` line (Codex refuses a rollout without one). Lines that were not JSON
objects (problems when read) are not written back.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson

from klipui.session.blocks import first_line
from klipui.session.formats._native import ORIGINS, EventBuilder, kept_records, project_name
from klipui.session.formats._values import (
    data_url_image,
    iso_ms,
    json_text,
    raw_lines,
    text_or_none,
)
from klipui.session.model import Event, Problem, Record, Session, SessionInfo
from klipui.session.turns import build_turns

name = "codex"
agent = "Codex"

KINDS = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
_CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output", "local_shell_call_output"})
_CONTEXT_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "<developer_instructions>",
    "<permissions instructions>",
    "<INSTRUCTIONS>",
    "# AGENTS.md instructions",
    "<turn_aborted>",
)
_LEAD_IN = frozenset(
    {
        "codex/turn_context",
        "codex/event_msg/task_started",
        "codex/event_msg/turn_started",
        "codex/event_msg/user_message",
    }
)


def sniff(values: Sequence[Any]) -> bool:
    """True when the first records look like Codex rollout lines."""
    for value in values:
        if not isinstance(value, dict):
            continue
        if value.get("type") in KINDS and isinstance(value.get("payload"), dict):
            return True
        if "type" in value or "role" in value or "messages" in value:
            return False
    return False


def _texts(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "\n".join(
        b["text"] for b in content if isinstance(b, dict) and isinstance(b.get("text"), str)
    )


def _blocks(content: Any) -> list[dict[str, Any]]:
    """Lowered blocks of a message's or an output's content items."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    if not isinstance(content, list):
        return []
    out: list[dict[str, Any]] = []
    for item in content:
        if not isinstance(item, dict):
            continue
        kind = item.get("type")
        if kind in ("input_text", "output_text", "text"):
            text = item.get("text")
            out.append({"type": "text", "text": text if isinstance(text, str) else ""})
        elif kind in ("input_image", "output_image", "image"):
            out.append(data_url_image(item.get("image_url")))
        else:
            out.append(item)
    return out


def _is_context(text: str) -> bool:
    return text.lstrip().startswith(_CONTEXT_PREFIXES)


def _reasoning(payload: dict[str, Any]) -> list[dict[str, Any]]:
    parts = [
        s["text"]
        for s in payload.get("summary") or ()
        if isinstance(s, dict) and isinstance(s.get("text"), str)
    ]
    if not parts:
        parts = [
            c["text"]
            for c in payload.get("content") or ()
            if isinstance(c, dict) and isinstance(c.get("text"), str)
        ]
    return [{"type": "reasoning", "text": "\n\n".join(parts)}]


def _call(payload: dict[str, Any]) -> tuple[str, str, str]:
    """(call id, tool name, arguments JSON text) of a call item."""
    kind = payload.get("type")
    call_id = payload.get("call_id") or payload.get("id") or ""
    call_id = call_id if isinstance(call_id, str) else ""
    tool = payload.get("name")
    if kind == "custom_tool_call":
        arguments = json_text({"input": payload.get("input")})
    elif kind == "local_shell_call":
        tool = tool or "local_shell"
        arguments = json_text(payload.get("action"))
    else:
        arguments = json_text(payload.get("arguments", ""))
    return call_id, tool if isinstance(tool, str) else "", arguments


def _output(payload: dict[str, Any]) -> tuple[list[dict[str, Any]], bool, Any]:
    """(content blocks, is error, metadata) of a call output item."""
    output = payload.get("output")
    meta = None
    error = payload.get("success") is False
    if isinstance(output, dict):
        meta = output.get("metadata")
        error = error or output.get("success") is False
        output = output.get("content", output.get("output"))
    if isinstance(output, str) and output.startswith("{") and '"output"' in output:
        try:
            parsed = orjson.loads(output)
        except orjson.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict) and isinstance(parsed.get("output"), str):
            output, meta = parsed["output"], parsed.get("metadata")
    if isinstance(meta, dict):
        code = meta.get("exit_code")
        error = error or (isinstance(code, int) and not isinstance(code, bool) and code != 0)
    elif isinstance(output, str) and output.startswith("Exit code: "):
        code_text = output[11 : output.find("\n")] if "\n" in output else output[11:]
        error = error or code_text.strip() not in ("0", "")
    return _blocks(output), error, meta


class _Lowerer:
    """One pass over a rollout's lines, in file order."""

    def __init__(self, records: list[Record]) -> None:
        self.records = records
        self.values: list[dict[str, Any]] = [
            r.value if isinstance(r.value, dict) else {} for r in records
        ]
        self.out = EventBuilder()
        self.times: dict[str, int | None] = {}
        self.header: dict[str, Any] | None = None
        self.title: str | None = None
        self.group: Event | None = None
        self.pending: set[str] = set()
        self.output_line: dict[str, int] = {}
        for index, value in enumerate(self.values):
            payload = value.get("payload")
            if (
                value.get("type") == "response_item"
                and isinstance(payload, dict)
                and isinstance(payload.get("type"), str)
                and payload["type"] in _OUTPUTS
                and isinstance(payload.get("call_id"), str)
            ):
                self.output_line.setdefault(payload["call_id"], index)

    def run(self) -> list[Event]:
        for index, value in enumerate(self.values):
            self.line(index, value)
        return self.out.finish()

    def ignorable(self, kind: str, index: int, value: dict[str, Any], time: int | None) -> None:
        self.out.add(kind, value, time=time, origin=index, ignorable=True)

    def line(self, index: int, value: dict[str, Any]) -> None:
        kind = value.get("type")
        payload = value.get("payload")
        time = iso_ms(value.get("timestamp"), self.times)
        if not isinstance(payload, dict):
            label = kind if isinstance(kind, str) and kind else "unknown"
            self.ignorable(f"codex/{label}", index, value, time)
            return
        sub = payload.get("type")
        if kind == "session_meta":
            if self.header is None:
                self.header = value
            self.ignorable("codex/session_meta", index, value, time)
        elif kind == "response_item":
            self.item(index, value, payload, time)
        elif kind == "event_msg":
            if sub == "thread_name_updated" and isinstance(payload.get("thread_name"), str):
                self.title = payload["thread_name"]
            elif sub == "turn_aborted":
                self.out.ended("interrupted")
            label = sub if isinstance(sub, str) and sub else "unknown"
            self.ignorable(f"codex/event_msg/{label}", index, value, time)
        elif kind == "turn_context":
            self.group = None
            self.ignorable("codex/turn_context", index, value, time)
        elif kind == "compacted":
            self.group = None
            message = payload.get("message")
            data: dict[str, Any] = {"summary": message if isinstance(message, str) else ""}
            history = payload.get("replacement_history")
            if isinstance(history, list):
                data["replacementItems"] = len(history)
            self.out.add("compaction/summary", data, time=time, origin=index)
        else:
            label = kind if isinstance(kind, str) and kind else "unknown"
            self.ignorable(f"codex/{label}", index, value, time)

    def item(
        self, index: int, value: dict[str, Any], payload: dict[str, Any], time: int | None
    ) -> None:
        sub = payload.get("type") if isinstance(payload.get("type"), str) else None
        role = payload.get("role")
        if sub == "message" and role != "assistant":
            self.user_message(index, payload, time)
        elif sub == "message":
            self.model_item(index, payload, _blocks(payload.get("content")), time, call=False)
        elif sub == "reasoning":
            self.model_item(index, payload, _reasoning(payload), time, call=False)
        elif sub in _CALLS:
            call_id, tool, arguments = _call(payload)
            block = {"type": "tool-call", "id": call_id, "name": tool, "arguments": arguments}
            self.model_item(index, payload, [block], time, call=True)
            data = {
                "turn": self.out.turn or None,
                "step": self.out.step,
                "callId": call_id,
                "name": tool,
                "arguments": arguments,
            }
            event = self.out.add("tool/call", data, time=time, origin=index)
            later = self.output_line.get(call_id)
            awaited = later is not None and later > index
            if awaited:
                self.pending.add(call_id)
            self.out.register_call(call_id, event, awaited=True)
        elif sub in _OUTPUTS:
            self.group = None
            self.tool_output(index, payload, time)
        else:
            label = sub if isinstance(sub, str) and sub else "unknown"
            self.ignorable(f"codex/response_item/{label}", index, value, time)

    def user_message(self, index: int, payload: dict[str, Any], time: int | None) -> None:
        self.group = None
        role = payload.get("role")
        content = payload.get("content")
        blocks = _blocks(content)
        source: dict[str, Any]
        if role == "user" and not _is_context(_texts(content)):
            source = {"kind": "user"}
            if not self.pending:
                self.out.start_turn(time, self._lead_in)
        else:
            source = {"kind": "context"}
            if role != "user":
                source["role"] = role
        item_id = payload.get("id")
        message_id = item_id if isinstance(item_id, str) else f"line-{self.records[index].line}"
        data = {"id": message_id, "role": "user", "content": blocks, "source": source}
        self.out.add("user/message", data, time=time, origin=index)

    def _lead_in(self, event: Event) -> bool:
        if event.type in _LEAD_IN:
            return True
        return (
            self.out.turn > 0
            and event.type == "user/message"
            and event.data["source"].get("kind") == "context"
        )

    def model_item(
        self,
        index: int,
        payload: dict[str, Any],
        blocks: list[dict[str, Any]],
        time: int | None,
        *,
        call: bool,
    ) -> None:
        group = self.group
        if group is None:
            item_id = payload.get("id")
            message_id = item_id if isinstance(item_id, str) else f"line-{self.records[index].line}"
            data: dict[str, Any] = {
                "turn": self.out.turn or None,
                "step": self.out.next_step(),
                "message": {
                    "id": message_id,
                    "role": "assistant",
                    "content": blocks,
                    "source": {"kind": "model"},
                },
            }
            self.group = self.out.add("assistant/message", data, time=time, origin=index)
        else:
            group.data["message"]["content"].extend(blocks)
            group.data.setdefault(ORIGINS, [group.origin]).append(index)
        if call:
            self.out.answered(False)
        elif payload.get("type") == "message" and self.group is not None:
            content = self.group.data["message"]["content"]
            self.out.answered(not any(b.get("type") == "tool-call" for b in content))

    def tool_output(self, index: int, payload: dict[str, Any], time: int | None) -> None:
        call_id = payload.get("call_id")
        call_id = call_id if isinstance(call_id, str) else ""
        blocks, error, meta = _output(payload)
        block = {"type": "tool-result", "toolCallId": call_id, "content": blocks, "isError": error}
        data: dict[str, Any] = {
            "turn": self.out.turn or None,
            "step": self.out.step,
            "message": {
                "id": f"{call_id}:output" if call_id else f"line-{self.records[index].line}",
                "role": "user",
                "content": [block],
                "source": {"kind": "tool", "callId": call_id},
            },
        }
        if meta is not None:
            data["meta"] = meta
        event = self.out.add("tool/result", data, time=time, origin=index)
        self.pending.discard(call_id)
        self.out.cite_call(call_id, event)


def _parent(meta: dict[str, Any]) -> str | None:
    forked = meta.get("forked_from_id")
    if isinstance(forked, str) and forked:
        return forked
    source = meta.get("source")
    if isinstance(source, dict):
        found = source.get("subagent")
        spawn: dict[str, Any] = found if isinstance(found, dict) else {}
        thread = spawn.get("thread_spawn")
        parent = thread.get("parent_thread_id") if isinstance(thread, dict) else None
        if isinstance(parent, str):
            return parent
    return None


def lower(path: Path, records: list[Record], problems: list[Problem]) -> Session:
    """Lower rollout lines to events and turns."""
    lowerer = _Lowerer(records)
    events = lowerer.run()
    turns = build_turns(events)
    for turn in turns:
        turn.prompt = _turn_prompt(events[turn.start : turn.end]) or turn.prompt
    meta = lowerer.header.get("payload") if lowerer.header else None
    meta = meta if isinstance(meta, dict) else {}
    cwd = text_or_none(meta.get("cwd"))
    session_id = text_or_none(meta.get("id"))
    return Session(
        path=Path(path),
        format=name,
        header=lowerer.header,
        records=records,
        events=events,
        turns=turns,
        problems=problems,
        title=lowerer.title,
        cwd=cwd if isinstance(cwd, str) else None,
        session_id=session_id if isinstance(session_id, str) else None,
        parent=_parent(meta),
    )


def _turn_prompt(events: Sequence[Event]) -> str:
    """The first line of a turn's typed prompt (injected context pulled into the turn skipped)."""
    for event in events:
        if event.type == "user/message" and event.data["source"].get("kind") == "user":
            return first_line(_texts(event.data["content"]))
    return ""


def info(path: Path, values: Sequence[Any]) -> SessionInfo:
    """Quick figures from the first lines of a rollout."""
    result = SessionInfo(path=Path(path), format=name, agent=agent)
    times: list[int] = []
    fallback_prompt: str | None = None
    for value in values:
        if not isinstance(value, dict):
            continue
        payload = value.get("payload")
        if not isinstance(payload, dict):
            continue
        kind = value.get("type")
        stamp = iso_ms(value.get("timestamp"))
        if stamp is not None:
            times.append(stamp)
        if kind == "session_meta" and result.session_id is None:
            if isinstance(payload.get("id"), str):
                result.session_id = payload["id"]
            if isinstance(payload.get("cwd"), str):
                result.cwd = payload["cwd"]
                result.project = project_name(result.cwd)
            result.parent = _parent(payload)
        elif kind == "turn_context" and result.cwd is None and isinstance(payload.get("cwd"), str):
            result.cwd = payload["cwd"]
            result.project = project_name(result.cwd)
        elif kind == "response_item" and result.first_prompt is None:
            if payload.get("type") == "message" and payload.get("role") == "user":
                text = _texts(payload.get("content"))
                if text and not _is_context(text):
                    result.first_prompt = first_line(text)
        elif kind == "event_msg":
            sub = payload.get("type")
            if sub == "user_message" and fallback_prompt is None:
                message = payload.get("message")
                if isinstance(message, str) and not _is_context(message):
                    fallback_prompt = first_line(message) or None
            elif sub == "thread_name_updated" and isinstance(payload.get("thread_name"), str):
                result.title = payload["thread_name"]
    result.first_prompt = result.first_prompt or fallback_prompt
    if times:
        result.started = min(times) / 1000
        result.updated = max(times) / 1000
    return result


def raise_records(session: Session, events: Sequence[Event]) -> Iterator[bytes]:
    """The lines behind `events`, byte for byte, the `session_meta` line first."""
    kept = kept_records(events)
    header = next(
        (i for i, r in enumerate(session.records) if _is_meta(r.value)),
        None,
    )
    if header is not None and header not in kept:
        kept.insert(0, header)
    raw = raw_lines(session, kept)
    for index in kept:
        yield raw[index]


def _is_meta(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") == "session_meta"
