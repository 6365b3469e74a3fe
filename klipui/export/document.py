"""A session as a document to export: turns of typed blocks, independent of the output kind.

`build_document(session, turns=..., detail=..., redactor=...)` walks the lowered events of the
chosen turns once: prompts, answers, thinking, tool calls with their results (paired by call
id), compactions, sidechain messages and other notes. Every string is taken as it is (the
renderers escape it) and passed through the redactor when there is one.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from klipui.conversation.walk import parse_arguments
from klipui.export.text import first_line
from klipui.redact import Redactor
from klipui.session import Event, Session
from klipui.session.blocks import blocks_text, message_content

DETAILS = ("full", "no-thinking", "no-tools", "prompts")
"""How much of each turn to keep: everything; no thinking; no tool calls or results; only the
prompts and the answers."""

SHELL_TOOLS = frozenset({"bash", "shell", "exec_command", "local_shell", "run_shell_command"})
EDIT_TOOLS = frozenset({"edit", "multiedit", "str_replace", "str_replace_editor", "apply_patch"})


@dataclass(slots=True)
class Block:
    """One piece of a turn.

    `kind`: "prompt", "answer", "thinking", "tool", "compaction" or "note" (meta lines,
    injected context, images).
    """

    kind: str
    text: str = ""
    name: str = ""
    """Tool name (tools), or what the note is (notes)."""
    arguments: Any = None
    """Tool arguments as parsed JSON (a dict), when the block is a tool call."""
    result: str | None = None
    """The tool's result text (None: no result in the file)."""
    is_error: bool = False
    sidechain: bool = False
    """A message of a sub-agent's side conversation, not the main one."""

    @property
    def shell_command(self) -> str | None:
        """The command line of a shell tool call, when it is one."""
        if self.kind != "tool" or self.name.lower() not in SHELL_TOOLS:
            return None
        args = self.arguments if isinstance(self.arguments, dict) else {}
        command = args.get("command", args.get("cmd"))
        if isinstance(command, list) and all(isinstance(p, str) for p in command):
            if len(command) == 3 and command[1] in ("-lc", "-c") and command[0].endswith("sh"):
                return command[2]
            return shlex.join(command)
        return command if isinstance(command, str) else None

    @property
    def edits(self) -> list[tuple[str, str, str]] | None:
        """(path, old text, new text) of each edit of an edit tool call, when it is one."""
        if self.kind != "tool" or self.name.lower() not in EDIT_TOOLS:
            return None
        args = self.arguments if isinstance(self.arguments, dict) else {}
        path = args.get("file_path", args.get("path", ""))
        path = path if isinstance(path, str) else ""
        pairs = args.get("edits") if isinstance(args.get("edits"), list) else [args]
        out = []
        for pair in pairs:
            if not isinstance(pair, dict):
                continue
            old = pair.get("old_string", pair.get("oldText", pair.get("old_str")))
            new = pair.get("new_string", pair.get("newText", pair.get("new_str")))
            if isinstance(old, str) and isinstance(new, str):
                out.append((path, old, new))
        return out or None

    @property
    def patch(self) -> str | None:
        """The patch text of an apply_patch call (Codex), when it is one."""
        if self.kind != "tool" or not isinstance(self.arguments, dict):
            return None
        text = self.arguments.get("input", self.arguments.get("patch"))
        if isinstance(text, str) and text.lstrip().startswith(("*** Begin Patch", "--- ", "diff ")):
            return text
        return None


@dataclass(slots=True)
class TurnDoc:
    """One exported turn."""

    number: int
    blocks: list[Block] = field(default_factory=list)


@dataclass(slots=True)
class Document:
    """What the renderers draw."""

    title: str
    source: str
    """The session file's name."""
    format: str
    detail: str
    turns: list[TurnDoc]
    turn_count: int
    """Turns in the whole session."""
    redacted: dict[str, int] | None = None
    """Replacements made per kind, when redacted."""


def build_document(
    session: Session,
    *,
    turns: list[int] | None = None,
    detail: str = "full",
    redactor: Redactor | None = None,
) -> Document:
    """The document of `session`'s `turns` (1-based numbers; None: every turn) at `detail`."""
    if detail not in DETAILS:
        raise ValueError(f"unknown detail {detail!r} (one of {', '.join(DETAILS)})")
    clean = redactor.redact if redactor else _same
    numbers = range(1, len(session.turns) + 1) if turns is None else turns
    docs = []
    for number in numbers:
        if not 1 <= number <= len(session.turns):
            continue
        doc = TurnDoc(number)
        _fill(doc, session.turn_events(number), detail, clean, redactor)
        docs.append(doc)
    title = first_line(
        clean(session.title or (session.turns[0].prompt if session.turns else "")), 100
    )
    return Document(
        title=title or session.path.name,
        source=clean(session.path.name),
        format=session.format,
        detail=detail,
        turns=docs,
        turn_count=len(session.turns),
        redacted=dict(redactor.found) if redactor else None,
    )


def _same(text: str) -> str:
    return text


def _fill(
    doc: TurnDoc,
    events: list[Event],
    detail: str,
    clean: Callable[[str], str],
    redactor: Redactor | None,
) -> None:
    tools = detail in ("full", "no-thinking")
    thinking = detail in ("full", "no-tools")
    notes = detail != "prompts"
    calls: dict[str, Block] = {}
    for event in events:
        sidechain = bool(event.data.get("sidechain"))
        if event.ignorable and not sidechain:
            continue
        if sidechain and not notes:
            continue
        kind = event.type
        if kind == "user/message":
            _add_user(doc, event, clean, notes, sidechain)
        elif kind == "assistant/message":
            for block in _blocks(message_content(event)):
                btype = block.get("type")
                text = block.get("text")
                if btype == "text" and isinstance(text, str) and text.strip():
                    doc.blocks.append(Block("answer", clean(text), sidechain=sidechain))
                elif btype == "reasoning" and thinking and isinstance(text, str) and text.strip():
                    doc.blocks.append(Block("thinking", clean(text), sidechain=sidechain))
        elif kind == "tool/call" and tools:
            arguments = parse_arguments(event.data.get("arguments"))
            if redactor is not None:
                arguments = redactor.redact_json(arguments)
            block = Block(
                "tool", name=clean(str(event.data.get("name") or "?")), arguments=arguments
            )
            block.sidechain = sidechain
            call_id = event.data.get("callId")
            if isinstance(call_id, str):
                calls[call_id] = block
            doc.blocks.append(block)
        elif kind == "tool/result" and tools:
            _add_results(doc, event, clean, calls, sidechain)
        elif kind == "compaction/summary" and notes:
            summary = event.data.get("summary")
            doc.blocks.append(Block("compaction", clean(blocks_text(summary))))


def _add_user(
    doc: TurnDoc, event: Event, clean: Callable[[str], str], notes: bool, sidechain: bool
) -> None:
    """A user message: the prompt, a compaction summary, or another origin's note."""
    source = event.data.get("source")
    origin = source.get("kind") if isinstance(source, dict) else "user"
    text = clean(blocks_text(event.data.get("content"), tool_calls=False))
    if origin == "compaction":
        if notes:
            doc.blocks.append(Block("compaction", text))
    elif origin in (None, "user"):
        doc.blocks.append(Block("prompt", text, sidechain=sidechain))
    elif notes and text:
        doc.blocks.append(Block("note", text, name=clean(str(origin)), sidechain=sidechain))


def _add_results(
    doc: TurnDoc,
    event: Event,
    clean: Callable[[str], str],
    calls: dict[str, Block],
    sidechain: bool,
) -> None:
    """Each tool result of the event, joined to its call's block (a block of its own if none)."""
    for result in _blocks(message_content(event)):
        if result.get("type") != "tool-result":
            continue
        text = clean(blocks_text(result.get("content")))
        call_id = result.get("toolCallId")
        block = calls.get(call_id) if isinstance(call_id, str) else None
        if block is None:
            block = Block("tool", name="(result)", sidechain=sidechain)
            doc.blocks.append(block)
        block.result = text if block.result is None else f"{block.result}\n{text}"
        block.is_error = block.is_error or bool(result.get("isError"))


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict)]
