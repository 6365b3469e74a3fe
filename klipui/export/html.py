"""A document as one self-contained HTML page.

Nothing is fetched: inline CSS, no script, and a Content-Security-Policy that forbids scripts
and every remote load, so even a mistake in escaping could not run or fetch anything. Every
string from the session is cleaned (`untrusted`) and escaped before it meets markup; prompts and
answers go through markdown-it with raw HTML, links and images disabled (their text shows as
written). Thinking, tool results and notes fold in `<details>`; a big result shows its head and
a "show all" fold.
"""

from __future__ import annotations

import json
import re
from html import escape
from importlib import resources

from markdown_it import MarkdownIt

from klipui.export.document import Block, Document
from klipui.export.text import edit_diff, first_line, size_label, untrusted

BIG_LINES = 60
BIG_BYTES = 8_000
PREVIEW_LINES = 30
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'"

_markdown = MarkdownIt("commonmark", {"html": False}).enable(["table", "strikethrough"])
_markdown.disable(["link", "image", "autolink", "html_inline", "html_block"])


def esc(text: str) -> str:
    """Untrusted text made safe as HTML text or attribute value."""
    return escape(untrusted(text), quote=True)


def markdown(text: str) -> str:
    """Untrusted markdown as HTML: no raw HTML, no links, no images (shown as their text)."""
    return _markdown.render(untrusted(text))


def _style() -> str:
    return resources.files("klipui.export").joinpath("export.css").read_text()


def render_html(doc: Document) -> str:
    """The whole page."""
    title = esc(doc.title)
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        '<meta name="referrer" content="no-referrer">',
        f"<title>{title}</title>",
        f"<style>{_style()}</style>",
        "</head><body>",
        f"<header><h1>{title}</h1>",
        f'<p class="meta">{esc(doc.source)} · {esc(doc.format)} · {len(doc.turns)} of '
        f"{doc.turn_count} turns · detail: {esc(doc.detail)}{_redacted(doc)}</p></header>",
        _toc(doc),
        "<main>",
    ]
    for turn in doc.turns:
        parts.append(f'<section class="turn" id="turn-{turn.number}">')
        parts.append(f'<h2><a href="#turn-{turn.number}">Turn {turn.number}</a></h2>')
        parts.extend(_block(block) for block in turn.blocks)
        parts.append("</section>")
    parts.append("</main>")
    parts.append('<footer>Exported by klipui. <a href="#top">Back to top</a></footer>')
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def _redacted(doc: Document) -> str:
    if doc.redacted is None:
        return ""
    total = sum(doc.redacted.values())
    kinds = ", ".join(f"{esc(k)} {n}" for k, n in sorted(doc.redacted.items()))
    return f" · redacted: {total}" + (f" ({kinds})" if kinds else "")


def _toc(doc: Document) -> str:
    items = []
    for turn in doc.turns:
        prompt = next((b.text for b in turn.blocks if b.kind == "prompt"), "")
        label = esc(first_line(prompt)) or "<em>(no prompt)</em>"
        items.append(f'<li value="{turn.number}"><a href="#turn-{turn.number}">{label}</a></li>')
    return '<nav id="top"><h2>Contents</h2><ol>' + "".join(items) + "</ol></nav>"


def _block(block: Block) -> str:
    side = " sidechain" if block.sidechain else ""
    tag = '<span class="tag">sidechain</span>' if block.sidechain else ""
    if block.kind == "prompt":
        return (
            f'<div class="msg prompt{side}"><div class="role">User{tag}</div>'
            f'<div class="md">{markdown(block.text)}</div></div>'
        )
    if block.kind == "answer":
        return (
            f'<div class="msg answer{side}"><div class="role">Assistant{tag}</div>'
            f'<div class="md">{markdown(block.text)}</div></div>'
        )
    if block.kind == "thinking":
        return (
            f'<details class="thinking{side}"><summary>Thinking{tag} '
            f'<span class="size">{size_label(block.text)}</span></summary>'
            f'<div class="md">{markdown(block.text)}</div></details>'
        )
    if block.kind == "compaction":
        return (
            '<div class="compaction"><div class="marker">Compaction: the context was '
            "summarised here</div><details><summary>Summary "
            f'<span class="size">{size_label(block.text)}</span></summary>'
            f'<div class="md">{markdown(block.text)}</div></details></div>'
        )
    if block.kind == "note":
        return (
            f'<details class="note{side}"><summary>{esc(block.name)}{tag}</summary>'
            f"<pre>{esc(block.text)}</pre></details>"
        )
    return _tool(block, side, tag)


def _tool(block: Block, side: str, tag: str) -> str:
    error = " error" if block.is_error else ""
    head = f'<div class="call"><span class="tool-name">{esc(block.name)}</span>{tag}'
    command = block.shell_command
    edits = block.edits
    patch = block.patch
    if command is not None:
        body = f'<pre class="shell"><span class="prompt-sign">$ </span>{shell(command)}</pre>'
    elif edits:
        body = "".join(_diff(edit_diff(path, old, new)) for path, old, new in edits)
    elif patch is not None:
        body = _diff(patch.splitlines())
    else:
        body = _arguments(block.arguments)
    result = ""
    if block.result is not None:
        result = _result(block.result, block.is_error)
    return f'<div class="tool{error}{side}">{head}</div>{body}{result}</div>'


def _arguments(arguments: object) -> str:
    if arguments in (None, {}):
        return ""
    if isinstance(arguments, dict):
        path = arguments.get("file_path", arguments.get("path"))
        content = arguments.get("content")
        if isinstance(path, str) and isinstance(content, str) and len(arguments) <= 3:
            return f'<div class="path">{esc(path)}</div><pre class="content">{esc(content)}</pre>'
    text = json.dumps(arguments, indent=2, ensure_ascii=False)
    return f'<pre class="args">{esc(text)}</pre>'


def _diff(lines: list[str]) -> str:
    out = []
    for line in lines:
        if line.startswith(("+++", "---", "***")):
            kind = "file"
        elif line.startswith("@@"):
            kind = "hunk"
        elif line.startswith("+"):
            kind = "add"
        elif line.startswith("-"):
            kind = "del"
        else:
            kind = "ctx"
        out.append(f'<span class="{kind}">{esc(line)}</span>')
    return '<pre class="diff">' + "\n".join(out) + "</pre>"


def _pre(text: str) -> str:
    """A tool output: as a diff when it is one (`git diff`), else plain."""
    if text.lstrip().startswith(("diff --git", "--- a/", "*** Begin Patch")):
        return _diff(text.splitlines())
    return f'<pre class="out">{esc(text)}</pre>'


def _result(text: str, is_error: bool) -> str:
    label = "Error" if is_error else "Result"
    size = size_label(text)
    lines = text.splitlines()
    if len(lines) > BIG_LINES or len(text) > BIG_BYTES:
        head = "\n".join(lines[:PREVIEW_LINES])[:BIG_BYTES]
        inner = (
            f'{_pre(head)}<details class="all"><summary>show all '
            f"({size})</summary>{_pre(text)}</details>"
        )
        return (
            f'<details class="result"><summary>{label} <span class="size">{size}, '
            f"folded</span></summary>{inner}</details>"
        )
    return (
        f'<details class="result"><summary>{label} <span class="size">{size}</span>'
        f"</summary>{_pre(text)}</details>"
    )


_SHELL_TOKEN = re.compile(
    r"""(?P<string>'[^']*'?|"(?:\\.|[^"\\])*"?)"""
    r"|(?P<var>\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|\$[0-9@#?*!$-])"
    r"|(?P<op>&&|\|\||[|;&]|[0-9]?>>?|<|\$\(|\)|`)"
    r"|(?P<space>\s+)"
    r"|(?P<comment>(?<!\S)#[^\n]*)"
    r"|(?P<word>[^\s'\"$|;&<>()`]+|.)"
)


def shell(command: str) -> str:
    """A shell command line as escaped HTML with spans for command names, flags, strings,
    variables, operators and comments."""
    out = []
    expect_command = True
    for token in _SHELL_TOKEN.finditer(command):
        kind = token.lastgroup or "word"
        text = esc(token.group())
        if kind == "space":
            out.append(text)
            if "\n" in token.group():
                expect_command = True
            continue
        if kind == "op":
            out.append(f'<span class="sh-op">{text}</span>')
            expect_command = token.group() not in (")", "`") and token.group()[-1] != ">"
            continue
        if kind == "word":
            word = token.group()
            if expect_command and "=" in word and not word.startswith("="):
                out.append(f'<span class="sh-var">{text}</span>')
                continue
            if expect_command:
                out.append(f'<span class="sh-cmd">{text}</span>')
                expect_command = False
                continue
            if word.startswith("-"):
                out.append(f'<span class="sh-flag">{text}</span>')
                continue
            out.append(text)
            continue
        out.append(f'<span class="sh-{kind}">{text}</span>')
        expect_command = False if kind != "comment" else expect_command
    return "".join(out)
