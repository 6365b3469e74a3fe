"""A document as Markdown that reads as plain text and renders on common hosts.

Prompts and answers are markdown already and are written as they are (cleaned of control and
escape sequences). Everything else sits in fenced blocks whose fence is longer than any run of
backticks inside, so no content can close it; thinking, tool results and notes fold in
`<details>` with the summary's text HTML-escaped.
"""

from __future__ import annotations

import json
from html import escape

from markdown_it import MarkdownIt

from klipui.export.document import Block, Document
from klipui.export.text import edit_diff, fence_for, first_line, size_label, untrusted

_PARSER = MarkdownIt("commonmark")


def closed(text: str) -> str:
    """Markdown `text` with a fence left open at its end closed, so that it cannot swallow what
    follows it in the export."""
    tokens = [t for t in _PARSER.parse(text) if t.type == "fence" and t.map]
    if not tokens:
        return text
    last = tokens[-1]
    lines = text.splitlines()
    if last.map and last.map[1] >= len(lines):
        tail = lines[-1].strip() if lines else ""
        mark = last.markup
        if last.map[1] - last.map[0] < 2 or not (tail.startswith(mark) and not tail.strip(mark[0])):
            return f"{text.rstrip()}\n{mark}"
    return text


def _fenced(text: str, language: str = "text") -> str:
    fence = fence_for(text)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{fence}{language}\n{body}{fence}"


def _fold(summary: str, body: str) -> str:
    return f"<details><summary>{escape(summary)}</summary>\n\n{body}\n\n</details>"


def render_markdown(doc: Document) -> str:
    """The whole document."""
    title = " ".join(untrusted(doc.title).split()) or "Session"
    out = [f"# {title}", ""]
    meta = f"{untrusted(doc.source)} · {doc.format} · {len(doc.turns)} of {doc.turn_count} turns"
    meta += f" · detail: {doc.detail}"
    if doc.redacted is not None:
        meta += f" · redacted: {sum(doc.redacted.values())}"
    out += [f"_{escape(meta, quote=False)}_", "", "## Contents", ""]
    for turn in doc.turns:
        prompt = next((b.text for b in turn.blocks if b.kind == "prompt"), "")
        label = first_line(untrusted(prompt)).replace("[", "(").replace("]", ")")
        out.append(f"{turn.number}. [Turn {turn.number}](#turn-{turn.number}) {label}".rstrip())
    out.append("")
    for turn in doc.turns:
        out += [f"## Turn {turn.number}", ""]
        for block in turn.blocks:
            out += [_block(block), ""]
    return "\n".join(out).rstrip() + "\n"


def _block(block: Block) -> str:
    side = " (sidechain)" if block.sidechain else ""
    text = untrusted(block.text)
    if block.kind == "prompt":
        return f"**User{side}:**\n\n{closed(text.strip())}"
    if block.kind == "answer":
        return f"**Assistant{side}:**\n\n{closed(text.strip())}"
    if block.kind == "thinking":
        return _fold(f"Thinking{side} ({size_label(text)})", _fenced(text))
    if block.kind == "compaction":
        return "**Compaction:** the context was summarised here.\n\n" + _fold(
            f"Summary ({size_label(text)})", _fenced(text)
        )
    if block.kind == "note":
        return _fold(f"{untrusted(block.name)}{side}", _fenced(text))
    return _tool(block, side)


def _tool(block: Block, side: str) -> str:
    name = untrusted(block.name)
    shown = name.replace("`", "'")
    lines = [f"**Tool `{shown}`{side}:**", ""]
    command = block.shell_command
    edits = block.edits
    if command is not None:
        lines.append(_fenced(untrusted(command), "sh"))
    elif edits:
        for path, old, new in edits:
            lines.append(_fenced(untrusted("\n".join(edit_diff(path, old, new))), "diff"))
    elif block.patch is not None:
        lines.append(_fenced(untrusted(block.patch), "diff"))
    elif block.arguments not in (None, {}):
        text = json.dumps(block.arguments, indent=2, ensure_ascii=False)
        lines.append(_fenced(untrusted(text), "json"))
    if block.result is not None:
        result = untrusted(block.result)
        label = "Error" if block.is_error else "Result"
        lines += ["", _fold(f"{label} ({size_label(result)})", _fenced(result))]
    return "\n".join(lines)
