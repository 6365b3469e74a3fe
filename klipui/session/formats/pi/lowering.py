"""pi coding agent sessions (`~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl`), v1 to v3.

Line 1 is the header `{"type": "session", "version"?, "id", "timestamp", "cwd", ...}` (v1 has no
version and may carry `branchedFrom`; v2+ `parentSession`). Every later line is an entry. From v2
on, entries carry `id`/`parentId` and form a tree in one file: the current branch is the chain of
parents from the last entry. Entries off that branch are lowered as ignorable `pi/off-branch`
events (data: the native entry) so they stay reachable and are raised again.

Lowering (`message` entries by `message.role`):

- `user` → `user/message` (a real prompt opens a turn);
- `assistant` → `assistant/message` (text, `thinking` → reasoning, `toolCall` → tool-call blocks)
  plus one `tool/call` per tool call;
- `toolResult` → `tool/result` citing its `tool/call`;
- `bashExecution` (a `!command` the user ran) → `tool/call` named `bash` with
  `data.userRun = true`, then its `tool/result`;
- `custom` / `hookMessage` and `branchSummary` → `user/message` with source kind `custom` /
  `branch-summary`; `compactionSummary` → `compaction/summary`.

Other entries: `compaction` → `compaction/summary`; `branch_summary` → `user/message` (source
kind `branch-summary`); `session_info` → `session/title`; `custom_message` → `user/message`
(source kind `custom`); anything else (`model_change`, `thinking_level_change`, `label`, `custom`,
unknown) → ignorable `pi/<type>` with the native entry as data.

Raising: the header first (its bytes copied when `Session.header` is unchanged, else re-encoded),
then every entry that has a kept event, in order, copied byte for byte. In a tree file, an entry
whose parent was not kept is re-linked to its nearest kept ancestor (or to none) and re-encoded;
nothing else is rewritten. An entry is raised whole when any of its events is kept.
"""

from __future__ import annotations

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
from klipui.session.formats._values import base64_size, dumps_json, iso_ms, json_text, raw_lines
from klipui.session.model import Event, Problem, Record, Session, SessionInfo
from klipui.session.turns import build_turns

name = "pi"
agent = "pi"

_ENTRY_TYPES = frozenset(
    {
        "message",
        "model_change",
        "thinking_level_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
    }
)


def _is_header(value: Any) -> bool:
    if not isinstance(value, dict) or value.get("type") != "session":
        return False
    version = value.get("version", 1)
    return (
        isinstance(value.get("timestamp"), str)
        and isinstance(version, int)
        and 1 <= version <= 3
        and "createdAt" not in value
    )


def sniff(values: Sequence[Any]) -> bool:
    """A pi header first, or (header lost) a first entry of a pi type with a pi message."""
    if not values:
        return False
    first = values[0]
    if _is_header(first):
        return True
    if not isinstance(first, dict) or first.get("type") not in _ENTRY_TYPES:
        return False
    message = first.get("message")
    if first.get("type") == "message":
        return isinstance(message, dict) and message.get("role") in (
            "user",
            "assistant",
            "toolResult",
        )
    return isinstance(first.get("timestamp"), str) and "uuid" not in first


def current_branch(entries: Sequence[tuple[int, dict[str, Any]]]) -> set[int] | None:
    """Record indexes on the branch that ends at the last entry; None for a linear (v1) file."""
    by_id: dict[str, tuple[int, Any]] = {}
    last: str | None = None
    for index, value in entries:
        entry_id = value.get("id")
        if isinstance(entry_id, str):
            by_id[entry_id] = (index, value.get("parentId"))
            last = entry_id
    if last is None:
        return None
    branch: set[int] = set()
    node: Any = last
    while isinstance(node, str) and node in by_id:
        index, parent = by_id[node]
        if index in branch:
            break
        branch.add(index)
        node = parent
    for index, value in entries:
        if not isinstance(value.get("id"), str):
            branch.add(index)
    return branch


def _content_blocks(content: Any) -> list[dict[str, Any]]:
    """pi content (a string, or text / image / thinking / toolCall blocks) as lowered blocks."""
    if isinstance(content, str):
        return text_blocks(content)
    blocks: list[dict[str, Any]] = []
    if not isinstance(content, list):
        return blocks
    for block in content:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            blocks.append({"type": "text", "text": block.get("text") or ""})
        elif kind == "thinking":
            blocks.append({"type": "reasoning", "text": block.get("thinking") or ""})
        elif kind == "toolCall":
            blocks.append(
                call_block(block.get("id"), block.get("name"), block.get("arguments", {}))
            )
        elif kind == "image":
            blocks.append(
                {
                    "type": "image",
                    "mediaType": block.get("mimeType") or "",
                    "size": base64_size(block.get("data")),
                }
            )
    return blocks


class _Lowering:
    """Lowers the entries of one pi file, in file order."""

    def __init__(self) -> None:
        self.log = EventLog()
        self.title: str | None = None
        self.first_prompt: str | None = None

    def entry(self, index: int, record: Record, on_branch: bool) -> None:
        value = record.value
        kind = value.get("type")
        entry_id = value.get("id") if isinstance(value.get("id"), str) else f"L{record.line}"
        time = iso_ms(value.get("timestamp"))
        log = self.log
        if not on_branch:
            log.add("pi/off-branch", value, time=time, origin=index, ignorable=True)
        elif kind == "message" and isinstance(value.get("message"), dict):
            self.message(index, entry_id, value["message"], time)
        elif kind == "compaction":
            data = {
                key: value[key]
                for key in ("summary", "firstKeptEntryId", "firstKeptEntryIndex", "tokensBefore")
                if key in value
            }
            data.setdefault("summary", "")
            log.add("compaction/summary", data, time=time, origin=index)
        elif kind == "branch_summary":
            content = text_blocks(str(value.get("summary") or ""))
            log.user(entry_id, content, kind="branch-summary", time=time, origin=index)
        elif kind == "custom_message":
            content = _content_blocks(value.get("content"))
            log.user(
                entry_id,
                content,
                kind="custom",
                time=time,
                origin=index,
                customType=value.get("customType"),
            )
        elif kind == "session_info" and isinstance(value.get("name"), str):
            self.title = value["name"]
            log.add(
                "session/title",
                {"title": value["name"], "source": {"kind": "user"}},
                time=time,
                origin=index,
            )
        else:
            log.add(f"pi/{kind}", value, time=time, origin=index, ignorable=True)

    def message(
        self, index: int, entry_id: str, message: dict[str, Any], entry_time: int | None
    ) -> None:
        log = self.log
        role = message.get("role")
        time = as_ms(message.get("timestamp")) or entry_time
        if role == "user":
            content = _content_blocks(message.get("content"))
            if self.first_prompt is None:
                self.first_prompt = "\n".join(b["text"] for b in content if b["type"] == "text")
            log.user(entry_id, content, kind="user", time=time, origin=index)
        elif role == "assistant":
            content = _content_blocks(message.get("content"))
            log.assistant(
                entry_id,
                content,
                time=time,
                origin=index,
                model=message.get("model"),
                provider=message.get("provider"),
                usage=message.get("usage"),
                stop=message.get("stopReason"),
                stop_detail=message.get("errorMessage"),
            )
            for block in content:
                if block["type"] == "tool-call":
                    log.call(
                        block["id"], block["name"], block["arguments"], time=time, origin=index
                    )
        elif role == "toolResult":
            log.result(
                entry_id,
                str(message.get("toolCallId") or ""),
                _content_blocks(message.get("content")),
                is_error=bool(message.get("isError")),
                time=time,
                origin=index,
            )
        elif role == "bashExecution":
            self.bash(index, entry_id, message, time)
        elif role in ("custom", "hookMessage", "branchSummary"):
            kind = "branch-summary" if role == "branchSummary" else "custom"
            text = message.get("summary") if role == "branchSummary" else None
            content = (
                text_blocks(text)
                if isinstance(text, str)
                else _content_blocks(message.get("content"))
            )
            log.user(entry_id, content, kind=kind, time=time, origin=index)
        elif role == "compactionSummary":
            data = {"summary": str(message.get("summary") or "")}
            log.add("compaction/summary", data, time=time, origin=index)
        else:
            log.add("pi/message", {"message": message}, time=time, origin=index, ignorable=True)

    def bash(self, index: int, entry_id: str, message: dict[str, Any], time: int | None) -> None:
        call_id = f"bash-{entry_id}"
        arguments = json_text({"command": message.get("command", "")})
        self.log.call(
            call_id, "bash", arguments, time=time, origin=index, by_user=True, userRun=True
        )
        output = str(message.get("output") or "")
        exit_code = message.get("exitCode")
        failed = bool(message.get("cancelled")) or (isinstance(exit_code, int) and exit_code != 0)
        self.log.result(
            f"{entry_id}-output",
            call_id,
            text_blocks(output),
            is_error=failed,
            time=time,
            origin=index,
            userRun=True,
        )


def lower(path: Path, records: list[Record], problems: list[Problem]) -> Session:
    """Lower a pi session file's records to events and turns."""
    header_record = records[0] if records and _is_header(records[0].value) else None
    header = header_record.value if header_record else None
    entries = [(i, r.value) for i, r in enumerate(records) if r is not header_record]
    branch = current_branch(entries)
    lowering = _Lowering()
    for index, _value in entries:
        lowering.entry(index, records[index], branch is None or index in branch)
    events = lowering.log.finish()
    title = lowering.title or title_line(lowering.first_prompt)
    parent = None
    if header:
        parent = header.get("parentSession") or header.get("branchedFrom")
    return Session(
        path=Path(path),
        format=name,
        header=header,
        records=records,
        events=events,
        turns=build_turns(events),
        problems=problems,
        title=title,
        cwd=header.get("cwd") if header else None,
        session_id=header.get("id") if header else None,
        parent=parent if isinstance(parent, str) else None,
    )


def info(path: Path, values: Sequence[Any]) -> SessionInfo:
    """Figures from the first records: header fields, first prompt, title."""
    path = Path(path)
    header = values[0] if values and _is_header(values[0]) else {}
    first_prompt: str | None = None
    title: str | None = None
    for value in values:
        if not isinstance(value, dict):
            continue
        if value.get("type") == "session_info" and isinstance(value.get("name"), str):
            title = value["name"]
        message = value.get("message")
        if first_prompt is None and isinstance(message, dict) and message.get("role") == "user":
            texts = [
                b["text"] for b in _content_blocks(message.get("content")) if b["type"] == "text"
            ]
            first_prompt = title_line("\n".join(texts))
    stat = path.stat()
    started = iso_ms(header.get("timestamp"))
    cwd = header.get("cwd") if isinstance(header.get("cwd"), str) else None
    return SessionInfo(
        path=path,
        format=name,
        agent=agent,
        title=title or first_prompt,
        first_prompt=first_prompt,
        project=Path(cwd).name if cwd else None,
        cwd=cwd,
        session_id=header.get("id"),
        parent=header.get("parentSession") or header.get("branchedFrom"),
        started=started / 1000 if started is not None else None,
        updated=stat.st_mtime,
        bytes=stat.st_size,
    )


def raise_records(session: Session, events: Sequence[Event]) -> Iterator[bytes]:
    """Native lines for the kept `events`: header, then each entry with a kept event."""
    records = session.records
    header_index = 0 if records and _is_header(records[0].value) else None
    kept = [i for i in first_seen_origins(events) if i != header_index]
    wanted = list(kept)
    if header_index is not None:
        wanted.append(header_index)
    raw = raw_lines(session, wanted)
    if session.header is not None:
        if header_index is not None and session.header == records[header_index].value:
            yield raw[header_index]
        else:
            yield dumps_json(session.header)
    relink = _relinker(records, kept)
    for index in kept:
        value = records[index].value
        parent = relink.get(index, _UNCHANGED)
        if parent is _UNCHANGED:
            yield raw[index]
        else:
            yield dumps_json({**value, "parentId": parent})


_UNCHANGED = object()


def _relinker(records: Sequence[Record], kept: Sequence[int]) -> dict[int, Any]:
    """New `parentId`s for kept tree entries whose parent was not kept: the nearest kept
    ancestor, or None. A parent that was never in the file is left as it is."""
    parents: dict[str, Any] = {}
    for record in records:
        entry_id = record.value.get("id")
        if isinstance(entry_id, str) and record.value.get("type") != "session":
            parents[entry_id] = record.value.get("parentId")
    kept_ids = {i for i in (records[k].value.get("id") for k in kept) if isinstance(i, str)}
    out: dict[int, Any] = {}
    for index in kept:
        value = records[index].value
        if "parentId" not in value:
            continue
        parent = value["parentId"]
        seen: set[str] = set()
        while isinstance(parent, str) and parent in parents and parent not in kept_ids:
            if parent in seen:
                parent = None
                break
            seen.add(parent)
            parent = parents[parent]
        if parent != value["parentId"]:
            out[index] = parent
    return out
