"""Claude Code children: `<new uuid>.jsonl` in the parent's project folder.

Records are kept whole (a record is kept when any event lowered from it survived the clip), then
made consistent at record level: every chunk line of a kept assistant message (same
`message.id`) is kept, the result lines of a kept `tool_use` are kept, and a line holding only
tool results whose `tool_use` went is dropped. The parent's `summary` lines (its titles) give
way to one `summary` line "KLIP <title>" pointing at the child's leaf.

Every kept line gets the new `sessionId`; `uuid`s are rewritten consistently (a UUID v5 of the
old one under the child id, so references between kept lines still meet); `parentUuid` is
re-linked over removed lines to the nearest kept ancestor (null when there is none, so the
first kept line is a root); `logicalParentUuid` likewise. Lines are rewritten as bytes: each
changed `"key":value` pair is replaced in the raw line when it occurs exactly once there, so
untouched content (12 MB tool results) is copied, not re-encoded; any other line is decoded,
changed and re-encoded.

A last turn that ended interrupted in the parent (a later prompt came) and keeps no
`[Request interrupted by user]` line gets one, as Claude Code writes for an interrupted request,
so it still reads as interrupted. The report warns when Claude Code would not show part of the
child: user/assistant lines off the `parentUuid` chain from its last line (e.g. a file whose
every `parentUuid` is null), after the last compact boundary.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from klipui.session.adapter import ChildBody, ChildSource
from klipui.session.childkit import child_title_text, last_turn_ending
from klipui.session.formats._native import kept_records, replace_result_blocks
from klipui.session.formats._values import dumps_json
from klipui.session.formats.claude import chain
from klipui.session.model import Event, Session

TITLED = True
"""The child's `summary` line carries its title."""

API_FIELDS = ("id", "type", "model", "stop_reason", "usage")
"""Fields Claude Code needs on the last assistant record's `message` (it hangs without them)."""

_CHAIN_KEYS = ("parentUuid", "logicalParentUuid")

INTERRUPTED_MARK = "[Request interrupted by user]"
"""The line Claude Code writes when the user interrupts a request."""


def new_id(now: datetime) -> str:
    """A random UUID: Claude Code resumes `<uuid>.jsonl` files only."""
    return str(uuid.uuid4())


def child_path(session: Session, child_id: str, now: datetime) -> Path:
    """`<id>.jsonl` in the parent's project folder."""
    return Path(session.path).parent / f"{child_id}.jsonl"


def build(source: ChildSource) -> ChildBody:
    """The child's lines: the KLIP summary, then the kept lines rewritten."""
    session = source.session
    values = [record.value for record in session.records]
    notes: list[str] = []
    kept_set = set(kept_records(source.kept))
    kept_set = _complete_messages(values, kept_set, notes)
    kept_set = _complete_tool_pairs(values, kept_set, notes)
    summaries = sorted(i for i in kept_set if values[i].get("type") == "summary")
    if summaries:
        where = _lines(session, summaries)
        notes.append(f"the parent's summary line(s) {where} give way to the KLIP title")
    kept = sorted(kept_set - set(summaries))
    traps = _leaf_traps(session, values, kept)
    if traps:
        kept = [i for i in kept if i not in traps]
        notes.append(
            f"dropped {len(traps)} line(s) after the kept conversation (abandoned branch or "
            "unreadable) that Claude Code would take as the leaf to resume from"
        )
    blockers = _blockers(values, kept)
    namespace = uuid.UUID(source.child_id)
    uuids = _uuid_map(values, kept, namespace)
    parents = chain.parents(values)
    lines: list[bytes] = []
    leaf: str | None = None
    links: list[_Link] = []
    for index in kept:
        value = source.replacements.get(index, values[index])
        # Each kept line is read when it is rewritten: the parent's bytes are never all held.
        line = dumps_json(value) if index in source.replacements else session.record_bytes(index)
        changes = _changes(value, source.child_id, uuids, parents)
        lines.append(_rewrite(line, value, changes))
        if isinstance(value.get("uuid"), str) and not value.get("isSidechain"):
            leaf = uuids[value["uuid"]]
        links.append(_link(value, changes))
    if leaf is not None and _needs_interruption_mark(source.kept):
        mark = _interruption_mark(values[kept[-1]], source.child_id, leaf)
        lines.append(dumps_json(mark))
        leaf = mark["uuid"]
        notes.append(
            f"added a {INTERRUPTED_MARK!r} line (as Claude Code writes for an interrupted "
            "request) so that the child's last turn still ends as interrupted"
        )
    summary: dict[str, Any] = {"type": "summary", "summary": child_title_text(source.title)}
    if leaf is not None:
        summary["leafUuid"] = leaf
    lines.insert(0, dumps_json(summary))
    branch = {e.origin for e in session.events if e.type == "claude/branch"}
    shown = [link for index, link in zip(kept, links, strict=True) if index not in branch]
    warnings = _hidden_lines(shown)
    return ChildBody(lines, None, blockers, notes, len(kept), warnings)


def _needs_interruption_mark(kept: Sequence[Event]) -> bool:
    """Whether the child's last turn ended as interrupted in the parent (a later prompt, or a
    mark) and the child keeps no mark saying so: alone at the end it would read as never ended."""
    if last_turn_ending(kept) != "interrupted":
        return False
    start = max(i for i, e in enumerate(kept) if e.type == "turn/start")
    for event in kept[start:]:
        if event.type == "user/message" and not event.ignorable:
            text = "".join(b.get("text", "") for b in event.data["content"] if b["type"] == "text")
            if text.lstrip().startswith(INTERRUPTED_MARK[:-1]):
                return False
    return True


def _interruption_mark(last: dict[str, Any], child_id: str, parent: str) -> dict[str, Any]:
    """The user line Claude Code writes when a request is interrupted, after `parent`."""
    mark: dict[str, Any] = {
        "parentUuid": parent,
        "isSidechain": False,
        "userType": "external",
    }
    for key in ("cwd", "version", "gitBranch"):
        if isinstance(last.get(key), str):
            mark[key] = last[key]
    mark.update(
        sessionId=child_id,
        type="user",
        message={"role": "user", "content": [{"type": "text", "text": INTERRUPTED_MARK}]},
        uuid=str(uuid.uuid5(uuid.UUID(child_id), f"klipui-interrupted:{parent}")),
    )
    if isinstance(last.get("timestamp"), str):
        mark["timestamp"] = last["timestamp"]
    return mark


def _lines(session: Session, indexes: Sequence[int]) -> str:
    numbers = [str(session.records[i].line) for i in indexes]
    return ", ".join(numbers[:5]) + (" …" if len(numbers) > 5 else "")


def _message_id(value: dict[str, Any]) -> str | None:
    message = value.get("message")
    if value.get("type") != "assistant" or not isinstance(message, dict):
        return None
    mid = message.get("id")
    return mid if isinstance(mid, str) and mid else None


def _blocks(value: dict[str, Any]) -> list[dict[str, Any]]:
    message = value.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _complete_messages(values: list[Any], kept: set[int], notes: list[str]) -> set[int]:
    """Add the other chunk lines of every kept assistant message."""
    wanted = {_message_id(values[i]) for i in kept} - {None}
    if not wanted:
        return kept
    added = {i for i, value in enumerate(values) if i not in kept and _message_id(value) in wanted}
    if added:
        notes.append(f"kept {len(added)} more chunk line(s) of kept assistant messages")
    return kept | added


def _complete_tool_pairs(values: list[Any], kept: set[int], notes: list[str]) -> set[int]:
    """Keep the results of kept tool calls; drop lines of only orphaned tool results."""
    uses: dict[str, int] = {}
    results: dict[str, list[int]] = {}
    for index, value in enumerate(values):
        for block in _blocks(value):
            if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                uses.setdefault(block["id"], index)
            elif block.get("type") == "tool_result" and isinstance(block.get("tool_use_id"), str):
                results.setdefault(block["tool_use_id"], []).append(index)
    added: set[int] = set()
    for index in sorted(kept):
        for block in _blocks(values[index]):
            if block.get("type") == "tool_use":
                added.update(i for i in results.get(str(block.get("id")), []) if i not in kept)
    if added:
        notes.append(f"kept {len(added)} more tool result line(s) answering kept tool calls")
    kept = kept | added
    orphans = set()
    for index in kept:
        blocks = _blocks(values[index])
        pending = [b for b in blocks if b.get("type") == "tool_result"]
        if (
            pending
            and len(pending) == len(blocks)
            and all(uses.get(str(b.get("tool_use_id")), -1) not in kept for b in pending)
        ):
            orphans.add(index)
    if orphans:
        notes.append(f"dropped {len(orphans)} tool result line(s) whose tool call was not kept")
    return kept - orphans


def _leaf_traps(session: Session, values: list[Any], kept: list[int]) -> set[int]:
    """Kept user/assistant lines after the last line of the kept conversation: lines of an
    abandoned branch or unreadable ones, which Claude Code would otherwise resume from."""
    branch = {e.origin for e in session.events if e.type == "claude/branch"}

    def chain_line(index: int) -> bool:
        value = values[index]
        return value.get("type") in ("user", "assistant") and not value.get("isSidechain")

    good = [i for i in kept if chain_line(i) and i not in branch and _readable(values[i])]
    last = good[-1] if good else -1
    return {i for i in kept if i > last and chain_line(i)}


def _readable(value: dict[str, Any]) -> bool:
    """A line whose message Claude Code can read (it crashes on one without content)."""
    message = value.get("message")
    return isinstance(message, dict) and isinstance(message.get("content"), str | list)


def _blockers(values: list[Any], kept: list[int]) -> list[str]:
    """Why Claude Code would refuse or hang on a child made of `kept`."""
    chain = [
        i
        for i in kept
        if values[i].get("type") in ("user", "assistant") and not values[i].get("isSidechain")
    ]
    if not chain:
        if any(values[i].get("isSidechain") for i in kept):
            why = "only sidechain (sub-agent) records"
        else:
            why = "no user or assistant records (e.g. a usage-only file)"
        return [f"Claude Code finds no conversation in a file with {why}"]
    last = next((i for i in reversed(chain) if values[i].get("type") == "assistant"), None)
    if last is not None:
        message = values[last].get("message")
        missing = [f for f in API_FIELDS if not isinstance(message, dict) or f not in message]
        if missing:
            return [
                "Claude Code hangs resuming a file whose last assistant record's message lacks "
                + ", ".join(missing)
            ]
    return []


@dataclass(slots=True)
class _Link:
    """A child line as Claude Code's chain walk sees it."""

    chat: bool
    """A main-chain user or assistant line (what the agent rebuilds the conversation from)."""
    boundary: bool
    uuid: str | None
    parent: str | None
    null_parent: bool
    """The parent's own line had a null `parentUuid` (not one re-linked to null)."""
    message_id: str | None
    """`message.id` of an assistant chunk (chunks of one message are shown together)."""
    results_only: bool
    """A user line holding only tool results (Claude Code gathers those of parallel calls)."""


def _link(value: dict[str, Any], changes: list[tuple[str, Any, Any]]) -> _Link:
    new = {key: replacement for key, _old, replacement in changes}
    own = new.get("uuid", value.get("uuid"))
    parent = new.get("parentUuid", value.get("parentUuid"))
    return _Link(
        chat=value.get("type") in ("user", "assistant") and not value.get("isSidechain"),
        boundary=value.get("type") == "system" and value.get("subtype") == "compact_boundary",
        uuid=own if isinstance(own, str) else None,
        parent=parent if isinstance(parent, str) else None,
        null_parent=value.get("parentUuid") is None,
        message_id=_message_id(value),
        results_only=value.get("type") == "user"
        and bool(blocks := _blocks(value))
        and all(b.get("type") == "tool_result" for b in blocks),
    )


def _hidden_lines(links: Sequence[_Link]) -> list[str]:
    """A warning when Claude Code would not show some of the child's conversation: it rebuilds
    only the `parentUuid` chain from the last user/assistant line back to a root (a compact
    boundary ends it by design, so lines before the last boundary do not count)."""
    start = max((i for i, link in enumerate(links) if link.boundary), default=-1) + 1
    chat = [link for link in links[start:] if link.chat]
    if len(chat) < 2:
        return []
    by_uuid = {link.uuid: link for link in links if link.uuid is not None}
    reached: set[int] = set()
    node: _Link | None = chat[-1]
    while node is not None and id(node) not in reached:
        reached.add(id(node))
        node = by_uuid.get(node.parent) if node.parent is not None else None
    messages = {by_id.message_id for by_id in chat if id(by_id) in reached} - {None}
    reached_uuids = {link.uuid for link in chat if id(link) in reached}
    hidden = [
        link
        for link in chat
        if id(link) not in reached
        and link.message_id not in messages
        and not (link.results_only and link.parent in reached_uuids)
    ]
    if not hidden:
        return []
    why = " (every parentUuid is null)" if all(link.null_parent for link in chat) else ""
    return [
        "Claude Code rebuilds only the parentUuid chain back from the child's last user/assistant "
        f"line: {len(hidden)} of its {len(chat)} user/assistant lines are off that chain and "
        f"will not be shown{why}"
    ]


def _uuid_map(values: list[Any], kept: list[int], namespace: uuid.UUID) -> dict[str, str]:
    out: dict[str, str] = {}
    for index in kept:
        old = values[index].get("uuid")
        if isinstance(old, str) and old not in out:
            out[old] = str(uuid.uuid5(namespace, old))
    return out


def _new_uuid(old: str | None, uuids: dict[str, str]) -> str | None:
    return uuids[old] if old is not None else None


def _changes(
    value: dict[str, Any], child_id: str, uuids: dict[str, str], parents: dict[str, Any]
) -> list[tuple[str, Any, Any]]:
    """(key, old, new) for every top-level field of `value` the child rewrites."""
    out: list[tuple[str, Any, Any]] = []
    session_id = value.get("sessionId")
    if isinstance(session_id, str) and session_id != child_id:
        out.append(("sessionId", session_id, child_id))
    own = value.get("uuid")
    if isinstance(own, str) and own in uuids:
        out.append(("uuid", own, uuids[own]))
    for key in _CHAIN_KEYS:
        old = value.get(key)
        if isinstance(old, str):
            out.append((key, old, _new_uuid(chain.nearest_kept(old, uuids, parents), uuids)))
    message_id = value.get("messageId")
    if isinstance(message_id, str) and message_id in uuids:
        out.append(("messageId", message_id, uuids[message_id]))
    return out


def _rewrite(line: bytes, value: dict[str, Any], changes: list[tuple[str, Any, Any]]) -> bytes:
    """`line` with every change made: as byte replacements when each old pair occurs exactly
    once in the line, else by re-encoding the changed value."""
    if not changes:
        return line
    dumps = dumps_json
    out = line
    for key, old, new in changes:
        pattern = b'"' + key.encode() + b'":' + dumps(old)
        if out.count(pattern) != 1:
            changed = dict(value)
            for name, _old, replacement in changes:
                changed[name] = replacement
            return dumps(changed)
        out = out.replace(pattern, b'"' + key.encode() + b'":' + dumps(new))
    return out


def replace_result(value: Any, call_id: str, text: str) -> Any | None:
    """A copy of `value` whose `tool_result` block for `call_id` reads `text`, or None."""
    value = copy.deepcopy(value)
    if isinstance(value, dict) and replace_result_blocks(value.get("message"), call_id, text):
        return value
    return None
