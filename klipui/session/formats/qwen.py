"""Qwen Code: `~/.qwen/projects/<cwd, every non-alphanumeric character as ->/chats/<id>.jsonl`.

Every line is a record `{uuid, parentUuid, sessionId, timestamp, type, cwd, version, ...}` of
type `user` (a prompt: `message.parts` in Gemini's shape, `provenance: "real_user"`),
`assistant` (`message.parts` with `text`, `thought` text and `functionCall {id, name, args}`),
`tool_result` (`functionResponse {id, name, response}` parts) or `system` (`subtype`
`ui_telemetry`, `attribution_snapshot`, `custom_title` with `systemPayload.customTitle`,
`chat_compression` with `systemPayload.compressedHistory`, …). `parentUuid` chains the records:
on `qwen --resume <id>` the CLI (0.24.4) walks the chain back from the last conversation
record, refuses a file whose records carry more than one `sessionId`, and looks for the file
only under the project folder of the working directory it is started in.

A child, as Qwen Code's own `--fork-session` writes one: a new UUID session id in every record,
the records kept byte for byte apart from `sessionId` and a `parentUuid` re-linked to the
nearest kept ancestor, then a `custom_title` record "KLIP <title>" after the leaf, in the
parent's `chats` folder.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar

from klipui.session.adapter import Adapter, ChildBody, ChildSource, Root
from klipui.session.childkit import child_title_text, iso_stamp
from klipui.session.formats._turnkit import EventLog, first_seen_origins, title_line
from klipui.session.formats._values import (
    base64_size,
    dumps_json,
    iso_ms,
    json_text,
    raw_lines,
    text_or_none,
)
from klipui.session.formats.claude.chain import nearest_kept, parents
from klipui.session.model import Event, Problem, Record, Session, SessionInfo
from klipui.session.resume import (
    ResumeCommand,
    project_folder,
    project_key,
    prompt_args,
    session_id_for,
)
from klipui.session.turns import build_turns

RECORD_TYPES = frozenset({"user", "assistant", "tool_result", "system"})
PROMPT = "real_user"
"""The `provenance` of a prompt the user typed."""
_REWRITTEN = (b'"sessionId":', b'"parentUuid":')


def _parts(value: dict[str, Any]) -> list[Any]:
    message = value.get("message")
    parts = message.get("parts") if isinstance(message, dict) else None
    return parts if isinstance(parts, list) else []


def sniff(values: Sequence[Any]) -> bool:
    """Records of the four Qwen types with `uuid` and `sessionId`, one with `message.parts`."""
    seen = False
    for value in values:
        if not isinstance(value, dict) or value.get("type") not in RECORD_TYPES:
            return False
        if not isinstance(value.get("uuid"), str) or not isinstance(value.get("sessionId"), str):
            return False
        message = value.get("message")
        if isinstance(message, dict) and "content" in message:
            return False  # Claude Code's shape
        seen = seen or (isinstance(message, dict) and isinstance(message.get("parts"), list))
    return seen


def _blocks(parts: Sequence[Any]) -> list[dict[str, Any]]:
    """Text, thought and inline-data parts as lowered blocks (calls and responses excluded)."""
    out: list[dict[str, Any]] = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        text = part.get("text")
        if isinstance(text, str) and text:
            out.append({"type": "reasoning" if part.get("thought") else "text", "text": text})
        inline = part.get("inlineData")
        if isinstance(inline, dict):
            media = str(inline.get("mimeType") or "")
            out.append(
                {"type": "image", "mediaType": media, "size": base64_size(inline.get("data"))}
            )
    return out


def _response_text(response: Any) -> tuple[str, bool]:
    """A `functionResponse.response` as text, and whether it reports an error."""
    if isinstance(response, dict):
        if isinstance(response.get("error"), str):
            return response["error"], True
        if isinstance(response.get("output"), str):
            return response["output"], False
    return json_text(response), False


class _Lowerer:
    """Lowers the records of one file in order."""

    def __init__(self, records: list[Record]) -> None:
        self.records = records
        self.log = EventLog()
        self.title: str | None = None

    def run(self) -> list[Event]:
        for index, record in enumerate(self.records):
            value = record.value
            kind = value.get("type")
            time = iso_ms(value.get("timestamp"))
            if kind == "user":
                self.user(index, value, time)
            elif kind == "assistant":
                self.assistant(index, value, time)
            elif kind == "tool_result":
                self.results(index, value, time)
            else:
                self.system(index, value, time)
        return self.log.finish()

    def user(self, index: int, value: dict[str, Any], time: int | None) -> None:
        parts = _parts(value)
        if any(isinstance(p, dict) and "functionResponse" in p for p in parts):
            self.results(index, value, time)
            return
        provenance = value.get("provenance")
        kind = "user" if provenance in (PROMPT, None) else str(provenance)
        message_id = str(value.get("uuid"))
        self.log.user(message_id, _blocks(parts), kind=kind, time=time, origin=index)

    def assistant(self, index: int, value: dict[str, Any], time: int | None) -> None:
        parts = _parts(value)
        content = _blocks(parts)
        calls: list[dict[str, Any]] = []
        for part in parts:
            call = part.get("functionCall") if isinstance(part, dict) else None
            if isinstance(call, dict):
                block = {
                    "type": "tool-call",
                    "id": str(call.get("id") or ""),
                    "name": str(call.get("name") or ""),
                    "arguments": json_text(call.get("args", {})),
                }
                content.append(block)
                calls.append(block)
        model = text_or_none(value.get("model"))
        usage = value.get("usageMetadata")
        self.log.assistant(
            str(value.get("uuid")), content, time=time, origin=index, model=model, usage=usage
        )
        for block in calls:
            self.log.call(block["id"], block["name"], block["arguments"], time=time, origin=index)

    def results(self, index: int, value: dict[str, Any], time: int | None) -> None:
        position = 0
        for part in _parts(value):
            response = part.get("functionResponse") if isinstance(part, dict) else None
            if not isinstance(response, dict):
                continue
            text, failed = _response_text(response.get("response"))
            result_id = f"{value.get('uuid')}:{position}" if position else str(value.get("uuid"))
            content = [{"type": "text", "text": text}] if text else []
            call_id = str(response.get("id") or "")
            self.log.result(result_id, call_id, content, is_error=failed, time=time, origin=index)
            position += 1

    def system(self, index: int, value: dict[str, Any], time: int | None) -> None:
        subtype = value.get("subtype")
        payload = value.get("systemPayload")
        payload = payload if isinstance(payload, dict) else {}
        if subtype == "custom_title" and isinstance(payload.get("customTitle"), str):
            self.title = payload["customTitle"]
            self.log.add("session/title", {"title": self.title}, time=time, origin=index)
        elif subtype == "chat_compression":
            history = payload.get("compressedHistory")
            texts = [
                b["text"]
                for content in (history if isinstance(history, list) else [])
                if isinstance(content, dict)
                for b in _blocks(content.get("parts") or [])
            ]
            summary = {"summary": "\n".join(texts)}
            self.log.add("compaction/summary", summary, time=time, origin=index)
        else:
            name = f"qwen/{subtype if isinstance(subtype, str) else value.get('type')}"
            self.log.add(name, value, time=time, origin=index, ignorable=True)


def lower(path: Path, records: list[Record], problems: list[Problem]) -> Session:
    """Lower Qwen Code records to events and turns."""
    lowerer = _Lowerer(records)
    events = lowerer.run()
    first = records[0].value if records else {}
    return Session(
        path=Path(path),
        format=QwenAdapter.name,
        records=records,
        events=events,
        turns=build_turns(events),
        problems=problems,
        title=lowerer.title,
        cwd=text_or_none(first.get("cwd")),
        session_id=text_or_none(first.get("sessionId")),
    )


def info(path: Path, values: Sequence[Any]) -> SessionInfo:
    """Figures from the first records: session id, working folder, first prompt, title."""
    path = Path(path)
    first = next((v for v in values if isinstance(v, dict)), {})
    prompt: str | None = None
    title: str | None = None
    for value in values:
        if not isinstance(value, dict):
            continue
        payload = value.get("systemPayload")
        if value.get("subtype") == "custom_title" and isinstance(payload, dict):
            title = text_or_none(payload.get("customTitle")) or title
        if prompt is None and value.get("type") == "user" and value.get("provenance") == PROMPT:
            texts = [b["text"] for b in _blocks(_parts(value)) if b["type"] == "text"]
            prompt = title_line("\n".join(texts))
    stat = path.stat()
    started = iso_ms(first.get("timestamp"))
    cwd = text_or_none(first.get("cwd"))
    return SessionInfo(
        path=path,
        format=QwenAdapter.name,
        agent=QwenAdapter.agent,
        title=title or prompt,
        first_prompt=prompt,
        project=Path(cwd.rstrip("/")).name or cwd if cwd else None,
        cwd=cwd,
        session_id=text_or_none(first.get("sessionId")),
        started=started / 1000 if started is not None else None,
        updated=stat.st_mtime,
        bytes=stat.st_size,
    )


def _kept_lines(
    session: Session, order: Sequence[int], session_id: str | None
) -> Iterator[tuple[int, bytes, dict[str, Any]]]:
    """(index, line, value) of each kept record, `parentUuid` re-linked past dropped records
    and, when `session_id` is given, `sessionId` replaced."""
    values = [record.value for record in session.records]
    links = parents(values)
    kept = {values[i].get("uuid") for i in order} - {None}
    raw = raw_lines(session, order)
    for index in order:
        value = values[index]
        changes: dict[str, Any] = {}
        parent = value.get("parentUuid")
        if isinstance(parent, str) and parent not in kept and parent in links:
            changes["parentUuid"] = nearest_kept(parent, kept, links)
        if session_id is not None and value.get("sessionId") != session_id:
            changes["sessionId"] = session_id
        line = raw[index] if not changes else _rewrite(raw[index], value, changes)
        yield index, line, {**value, **changes}


def _rewrite(line: bytes, value: dict[str, Any], changes: dict[str, Any]) -> bytes:
    """`line` with the changed top-level fields: replaced in place when each old `"key":value`
    occurs once, else the record re-encoded."""
    out = line
    for key, new in changes.items():
        old = b'"' + key.encode() + b'":' + dumps_json(value.get(key))
        if out.count(old) != 1:
            return dumps_json({**value, **changes})
        out = out.replace(old, b'"' + key.encode() + b'":' + dumps_json(new))
    return out


def raise_records(session: Session, events: Sequence[Event]) -> Iterator[bytes]:
    """The records behind `events`, byte for byte, parents re-linked past dropped records."""
    order = sorted(first_seen_origins(events))
    for _index, line, _value in _kept_lines(session, order, None):
        yield line


def build_child(source: ChildSource) -> ChildBody:
    """The kept records under the child's session id, then a `custom_title` record."""
    session = source.session
    order = sorted(first_seen_origins(source.kept))
    lines: list[bytes] = []
    leaf: str | None = None
    last: dict[str, Any] = {}
    for index, line, value in _kept_lines(session, order, source.child_id):
        if index in source.replacements:
            value = {**source.replacements[index], "sessionId": source.child_id}
            value["parentUuid"] = value.get("parentUuid") if leaf is None else leaf
            line = dumps_json(value)
        lines.append(line)
        last = value
        if value.get("type") in ("user", "assistant", "tool_result"):
            leaf = text_or_none(value.get("uuid")) or leaf
    title = {
        "uuid": str(uuid.uuid5(uuid.UUID(source.child_id), "klip-title")),
        "parentUuid": leaf,
        "sessionId": source.child_id,
        "timestamp": iso_stamp(source.now),
        "type": "system",
        "subtype": "custom_title",
        "cwd": last.get("cwd", session.cwd),
        "version": last.get("version"),
        "systemPayload": {"customTitle": child_title_text(source.title), "titleSource": "manual"},
    }
    blockers = [] if leaf is not None else ["no user or assistant record is kept"]
    lines.append(dumps_json(title))
    return ChildBody(lines, None, blockers, [], len(order))


def replace_result(value: Any, call_id: str, text: str) -> Any | None:
    """A copy of `value` whose `functionResponse` for `call_id` reads `text`, or None."""
    value = copy.deepcopy(value)
    done = False
    for part in _parts(value) if isinstance(value, dict) else []:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if isinstance(response, dict) and response.get("id") == call_id:
            response["response"] = {"output": text}
            done = True
    return value if done else None


class QwenAdapter(Adapter):
    """Qwen Code chat records."""

    name: ClassVar[str] = "qwen"
    agent: ClassVar[str] = "Qwen Code"
    titled: ClassVar[bool] = True

    def sniff(self, values: Sequence[Any]) -> bool:
        return sniff(values)

    def lower(self, path: Path, records: list[Record], problems: list[Problem]) -> Session:
        return lower(path, records, problems)

    def info(self, path: Path, values: Sequence[Any]) -> SessionInfo:
        return info(path, values)

    def raise_records(self, session: Session, events: Sequence[Event]) -> Iterator[bytes]:
        return raise_records(session, events)

    def roots(self, home: Path, environ: Mapping[str, str]) -> list[Root]:
        return [Root(self.name, home / ".qwen" / "projects", "*/chats/*.jsonl")]

    def new_id(self, now: datetime) -> str:
        return str(uuid.uuid4())

    def child_path(self, session: Session, child_id: str, now: datetime) -> Path:
        return Path(session.path).parent / f"{child_id}.jsonl"

    def build_child(self, source: ChildSource) -> ChildBody:
        return build_child(source)

    def replace_result(self, value: Any, call_id: str, text: str) -> Any | None:
        return replace_result(value, call_id, text)

    def resume(self, session: Session, prompt: str | None = None) -> ResumeCommand:
        """`qwen --resume <id>` from the project folder (`qwen --resume <id> <prompt>` runs once).

        Qwen Code finds a session only as `~/.qwen/projects/<project key>/chats/<id>.jsonl` of
        the folder it runs in, and refuses a file whose records name another session id."""
        session_id = session_id_for(session, self.agent)
        cwd = project_folder(session, self.agent)
        note = ""
        expected = ("projects", project_key(str(cwd)), "chats", f"{session_id}.jsonl")
        if session.path.parts[-4:] != expected:
            note = (
                f"Qwen Code looks for it as ~/.qwen/projects/{expected[1]}/chats/{expected[3]}; "
                "this file is elsewhere, so it may not find it"
            )
        argv = ("qwen", "--resume", session_id, *prompt_args(prompt))
        return ResumeCommand(self.agent, argv, cwd, note)


ADAPTER = QwenAdapter()
