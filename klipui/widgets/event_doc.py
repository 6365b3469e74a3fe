"""The rows of one turn's events: blocks with a header line and a lazily drawn body.

A body is either a Rich renderable drawn at the view's width (markdown prose, a highlighted
command, a diff) or plain text wrapped and highlighted one row at a time, so a 10 MB tool result
costs only the rows on screen.
"""

from __future__ import annotations

import difflib
import json
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any, Protocol

from rich.cells import cell_len
from rich.console import Console, RenderableType
from rich.highlighter import Highlighter, JSONHighlighter, RegexHighlighter, ReprHighlighter
from rich.markdown import Markdown
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text
from textual.strip import Strip

from klipui.session.blocks import blocks_text, message_content
from klipui.session.display import clean_line, clean_text
from klipui.session.model import Event, Session
from klipui.shrink import BUILTIN_ORDER, Hint
from klipui.shrink.hints import hint_for
from klipui.widgets.format import human_size

GUTTER = 2
RICH_LIMIT = 40_000
"""Texts longer than this are drawn as plain wrapped rows instead of markdown or syntax."""
HIDDEN_TYPES = frozenset({"turn/start", "turn/end", "step/start", "step/end"})
SHOWN_TYPES = frozenset(
    {
        "user/message",
        "assistant/message",
        "tool/call",
        "tool/result",
        "compaction/summary",
        "session/title",
    }
)


SHAPES = BUILTIN_ORDER[: BUILTIN_ORDER.index("tree") + 1]
"""Shapes the shrink engine's reducers recognise (its order up to `tree`; the rest are generic)."""
LOG_SHAPES = frozenset({"tests", "build", "lint", "stacktrace", "install", "log"})
DETECT_SAMPLE = 20_000
"""Characters of a result the shape is guessed from (the label and colours only)."""


class LogHighlighter(RegexHighlighter):
    """Failures red, warnings yellow, passes green, numbers and paths as usual."""

    base_style = "repr."
    highlights = [  # noqa: RUF012 - rich reads this class attribute
        r"(?P<number>(?<!\w)\-?[0-9]+\.?[0-9]*(e[-+]?\d+?)?\b)",
        r"(?P<path>\B(/[-\w._+]+)*\/)(?P<filename>[-\w._+]*)?",
        r"(?P<tag_name>\b(?:FAIL(?:ED|URE)?|ERROR|Error|error|panic(?:ked)?|Traceback|E\s)\b)",
        r"(?P<bool_true>\b(?:PASS(?:ED)?|ok|OK|passed)\b)",
        r"(?P<str>\b(?:WARN(?:ING)?|warning|Warning)\b)",
    ]


def _highlighter(shape: str) -> Highlighter:
    if shape == "json":
        return JSONHighlighter()
    if shape in LOG_SHAPES:
        return LogHighlighter()
    return ReprHighlighter()


class Body(Protocol):
    def rows(self, width: int) -> int: ...
    def render(self, row: int, width: int) -> list[Segment]: ...


class TextBody:
    """Plain text wrapped at the width, highlighted row by row."""

    def __init__(
        self, text: str, console: Console, style: Style | None = None, shape: str = "text"
    ) -> None:
        self.text = text
        self.console = console
        self.style = style or Style()
        self.shape = shape
        self._lines: list[str] | None = None
        self._width = -1
        self._starts: list[int] = []
        self._highlighter: Highlighter = JSONHighlighter() if shape == "json" else ReprHighlighter()

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = self.text.expandtabs(4).split("\n")
            if len(self._lines) > 1 and self._lines[-1] == "":
                self._lines.pop()
        return self._lines

    def _layout(self, width: int) -> None:
        if width != self._width:
            self._width = width
            self._starts = [0, *accumulate(max(1, -(-len(line) // width)) for line in self.lines)]

    def rows(self, width: int) -> int:
        self._layout(width)
        return self._starts[-1]

    def render(self, row: int, width: int) -> list[Segment]:
        self._layout(width)
        index = bisect_right(self._starts, row) - 1
        line = self.lines[index]
        part = line[(row - self._starts[index]) * width : (row - self._starts[index] + 1) * width]
        text = Text(part, style=self.style, no_wrap=True, end="")
        if self.shape == "diff":
            text.stylize(_diff_style(line))
        elif len(part) < 2000:
            self._highlighter.highlight(text)
        return list(text.render(self.console))


def _diff_style(line: str) -> str:
    if line.startswith(("+++", "---")):
        return "bold"
    if line.startswith("+"):
        return "green"
    if line.startswith("-"):
        return "red"
    if line.startswith("@@"):
        return "cyan"
    return ""


class RichBody:
    """A Rich renderable drawn at the view's width."""

    def __init__(self, renderable: RenderableType, console: Console) -> None:
        self.renderable = renderable
        self.console = console
        self._width = -1
        self._lines: list[list[Segment]] = []

    def _layout(self, width: int) -> None:
        if width != self._width:
            self._width = width
            options = self.console.options.update_width(width)
            self._lines = self.console.render_lines(self.renderable, options, pad=False)

    def rows(self, width: int) -> int:
        self._layout(width)
        return len(self._lines)

    def render(self, row: int, width: int) -> list[Segment]:
        self._layout(width)
        return self._lines[row]


@dataclass(slots=True)
class Block:
    """One event (or part of it) as shown: a header line and an optional body."""

    kind: str
    """prompt, assistant, thinking, call, result, error, image, compaction, title, meta."""
    event_index: int
    header: Text
    body: Body | None = None
    collapsed: bool = False
    sidechain: bool = False
    payload: dict[str, Any] = field(default_factory=dict)
    """What actions need: callId, the result text, tool name, arguments."""


def detect_shape(text: str, hint: Hint | None = None) -> str:
    """The shape of a tool output as the shrink engine's reducers see it ("text" if none)."""
    from klipui.shrink import builtin_reducers

    sample = text[:DETECT_SAMPLE]
    if len(text) > DETECT_SAMPLE:
        sample = sample[: sample.rfind("\n") + 1] or sample
    hint = hint or Hint()
    for reducer in builtin_reducers():
        if reducer.name not in SHAPES:
            continue
        try:
            if reducer.detect(sample, hint):
                return str(reducer.name)
        except Exception:  # a detector's bug must not break drawing the session
            continue
    return "text"


def _arguments(raw: Any) -> Any:
    if isinstance(raw, str):
        try:
            return json.loads(raw)
        except (ValueError, RecursionError):
            return raw
    return raw


def _json_text(value: Any, indent: int | None = 2) -> str:
    """`value` as indented JSON, cleaned for the screen (JSON escapes C0 controls, not C1)."""
    try:
        return clean_text(json.dumps(value, indent=indent, ensure_ascii=False, default=str))
    except (ValueError, RecursionError):
        return "(nested too deeply to show)"


def _syntax(code: str, lexer: str) -> Syntax:
    return Syntax(code, lexer, word_wrap=True, background_color="default", theme="ansi_dark")


_EDIT_KEYS = (("old_string", "new_string"), ("oldText", "newText"), ("old_str", "new_str"))


def edit_diff(args: dict[str, Any]) -> str | None:
    """A unified diff of an edit call (Claude Edit/MultiEdit, pi edit), None when not an edit."""
    path = str(args.get("file_path") or args.get("path") or "file")
    edits = args.get("edits") if isinstance(args.get("edits"), list) else [args]
    parts: list[str] = []
    for edit in edits:
        if not isinstance(edit, dict):
            continue
        for old_key, new_key in _EDIT_KEYS:
            old, new = edit.get(old_key), edit.get(new_key)
            if isinstance(old, str) and isinstance(new, str):
                parts.append(
                    "".join(
                        difflib.unified_diff(
                            old.splitlines(keepends=True),
                            new.splitlines(keepends=True),
                            f"a/{path}",
                            f"b/{path}",
                        )
                    )
                )
                break
    if not parts:
        return None
    return "\n".join(part if part.endswith("\n") else part + "\n" for part in parts)


def call_body(name: str, arguments: Any, console: Console) -> Body:
    """A tool call's arguments: a shell command as shell, an edit as a diff, else JSON; every
    string from the session cleaned of control and escape sequences."""
    args = _arguments(arguments)
    if isinstance(args, str):
        args = clean_text(args)
    if isinstance(args, dict):
        command = args.get("command") or args.get("cmd")
        if isinstance(command, list):
            command = " ".join(str(c) for c in command)
        if isinstance(command, str) and len(command) < RICH_LIMIT:
            extra = {k: v for k, v in args.items() if k not in ("command", "cmd")}
            code = clean_text(command) + (f"\n# {_json_text(extra, None)}" if extra else "")
            return RichBody(_syntax(code, "bash"), console)
        diff = edit_diff(args)
        if diff is not None:
            diff = clean_text(diff)
            if len(diff) < RICH_LIMIT:
                return RichBody(_syntax(diff or "(no change)", "diff"), console)
            return TextBody(diff, console, shape="diff")
        for key in ("patch", "input", "diff"):
            value = args.get(key)
            if isinstance(value, str) and ("*** Begin Patch" in value or "\n@@" in value):
                return TextBody(clean_text(value), console, shape="diff")
        text = _json_text(args)
    else:
        text = clean_text(str(args))
        if "*** Begin Patch" in text:
            return TextBody(text, console, shape="diff")
    if len(text) < RICH_LIMIT:
        return RichBody(_syntax(text, "json"), console)
    return TextBody(text, console, shape="json")


def prose_body(text: str, console: Console, style: Style | None = None) -> Body:
    """Markdown for prose of moderate size, plain wrapped rows beyond."""
    if len(text) < RICH_LIMIT:
        return RichBody(
            Markdown(
                text, code_theme="ansi_dark", inline_code_theme="ansi_dark", style=style or ""
            ),
            console,
        )
    return TextBody(text, console, style)


def _is_sidechain(event: Event) -> bool:
    """Sub-agent work lowered into the parent's log (`data.sidechain`, see the Claude format)."""
    return isinstance(event.data, dict) and "sidechain" in event.data


def build_blocks(
    session: Session,
    start: int,
    end: int,
    console: Console,
    styles: dict[str, Style],
    show_all: bool = False,
) -> list[Block]:
    """The blocks of `session.events[start:end]`, in order."""
    blocks: list[Block] = []
    calls: dict[str, tuple[str, Any]] = {}
    for index in range(start, end):
        event = session.events[index]
        if event.type == "tool/call":
            calls[str(event.data.get("callId") or "")] = (
                str(event.data.get("name") or ""),
                event.data.get("arguments"),
            )
        sidechain = _is_sidechain(event)
        before = len(blocks)
        _event_blocks(event, index, console, styles, show_all, blocks, calls)
        for block in blocks[before:]:
            block.sidechain = sidechain
            if sidechain:
                block.header = Text.assemble(("⑂ sidechain ", styles["sidechain"]), block.header)
    return blocks


def _event_blocks(
    event: Event,
    index: int,
    console: Console,
    styles: dict[str, Style],
    show_all: bool,
    out: list[Block],
    calls: dict[str, tuple[str, Any]],
) -> None:
    kind = event.type
    if kind == "user/message":
        text = clean_text(blocks_text(message_content(event), tool_calls=False))
        out.append(
            Block(
                "prompt",
                index,
                Text("▍ User", styles["prompt"]),
                prose_body(text or "(empty)", console),
            )
        )
        _images(message_content(event), index, styles, out)
    elif kind == "assistant/message":
        content = message_content(event)
        model = ((event.data.get("message") or {}).get("source") or {}).get("model")
        label = f"▍ Assistant · {clean_line(str(model))}" if model else "▍ Assistant"
        for block in content if isinstance(content, list) else [content]:
            if isinstance(block, str):
                block = {"type": "text", "text": block}
            if not isinstance(block, dict):
                continue
            btype = block.get("type")
            text = clean_text(str(block.get("text") or ""))
            if btype == "reasoning" and text.strip():
                header = Text(f"{FOLDED} thinking · {len(text):,} chars", styles["thinking"])
                out.append(
                    Block(
                        "thinking",
                        index,
                        header,
                        prose_body(text, console, styles["thinking"]),
                        collapsed=True,
                    )
                )
            elif btype == "text" and text.strip():
                out.append(
                    Block(
                        "assistant",
                        index,
                        Text(label, styles["assistant"]),
                        prose_body(text, console),
                    )
                )
        _images(content, index, styles, out)
    elif kind == "tool/call":
        name = str(event.data.get("name") or "tool")
        call_id = str(event.data.get("callId") or "")
        header = Text.assemble(
            ("⚙ ", styles["call"]),
            (clean_line(name), styles["call"] + Style(bold=True)),
            (f"  {clean_line(call_id)}", styles["meta"]),
        )
        out.append(
            Block(
                "call",
                index,
                header,
                call_body(name, event.data.get("arguments"), console),
                payload={"callId": call_id, "name": name, "arguments": event.data.get("arguments")},
            )
        )
    elif kind == "tool/result":
        content = message_content(event)
        results = [
            b for b in content or [] if isinstance(b, dict) and b.get("type") == "tool-result"
        ]
        for result in results or [{"content": content}]:
            raw = blocks_text(result.get("content"), tool_calls=False)
            text = clean_text(raw)
            error = bool(result.get("isError"))
            call = calls.get(str(result.get("toolCallId") or ""))
            shape = detect_shape(text, hint_for(call[0], call[1]) if call else None)
            lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
            size = human_size(len(text.encode("utf-8", "replace")))
            style = styles["error"] if error else styles["result"]
            header = Text.assemble(
                ("✗ error " if error else "↳ result ", style + Style(bold=True)),
                (f"{size} · {lines:,} line{'' if lines == 1 else 's'} · {shape}", styles["meta"]),
                (f"  {clean_line(str(result.get('toolCallId') or ''))}", styles["meta"]),
            )
            out.append(
                Block(
                    "error" if error else "result",
                    index,
                    header,
                    TextBody(text, console, styles["error"] if error else None, shape),
                    payload={"callId": result.get("toolCallId"), "text": raw, "error": error},
                )
            )
            _images(result.get("content"), index, styles, out)
    elif kind == "compaction/summary":
        summary = clean_text(blocks_text(event.data.get("summary"), tool_calls=False, sep="\n\n"))
        out.append(
            Block(
                "compaction",
                index,
                Text("━━ compaction: the context was summarised ━━", styles["compaction"]),
                prose_body(summary or "(no summary)", console, styles["thinking"]),
            )
        )
    elif kind == "session/title":
        title = clean_line(str(event.data.get("title")))
        out.append(Block("title", index, Text(f"title: {title}", styles["meta"])))
    elif kind.endswith("/branch"):
        out.append(_branch_block(event, index, console, styles))
    elif show_all and kind not in HIDDEN_TYPES:
        raw = _json_text(event.data, indent=1)
        out.append(
            Block(
                "meta",
                index,
                Text(f"· {clean_line(kind)} #{event.seq}", styles["meta"]),
                TextBody(raw, console, styles["meta"], "json"),
                collapsed=True,
            )
        )


def _branch_block(event: Event, index: int, console: Console, styles: dict[str, Style]) -> Block:
    """A line of a rewound (abandoned) branch: kept in the file, not in the conversation."""
    record = event.data if isinstance(event.data, dict) else {}
    message = record.get("message") if isinstance(record.get("message"), dict) else {}
    role = clean_line(str(message.get("role") or record.get("type") or "record"))
    text = clean_text(blocks_text(message.get("content"), tool_calls=False))
    header = Text(f"⎇ rewound branch · {role}", styles["thinking"])
    body = TextBody(text, console, styles["thinking"]) if text else None
    return Block("branch", index, header, body, collapsed=True)


def _images(content: Any, index: int, styles: dict[str, Style], out: list[Block]) -> None:
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "image":
            media = clean_line(str(block.get("mediaType") or "image"))
            size = block.get("size")
            size = size if isinstance(size, int) and not isinstance(size, bool) else None
            label = f"▣ image · {media}" + (f" · {human_size(size)}" if size else "")
            out.append(Block("image", index, Text(label, styles["image"])))


FOLDED = "▸"
UNFOLDED = "▾"
"""The fold marker of a thinking block, folded and unfolded."""


class EventDocument:
    """Blocks laid out as rows: header, body rows unless collapsed, one blank row."""

    def __init__(self, blocks: list[Block], styles: dict[str, Style], console: Console) -> None:
        self.blocks = blocks
        self.console = console
        self.styles = styles
        self.current = 0 if blocks else -1
        self._width = -1
        self._starts: list[int] = [0]
        self.highlight: re.Pattern[str] | None = None
        """Find matches drawn in the `match` style on every row."""
        self.current_match: tuple[int, int] | None = None
        """(row, cell column) of the current find match, drawn in the `match-current` style."""

    def relayout(self) -> None:
        self._width = -1

    def _layout(self, width: int) -> None:
        if width == self._width:
            return
        self._width = width
        inner = max(1, width - GUTTER)
        self._starts = [
            0,
            *accumulate(
                1 + (0 if b.collapsed or b.body is None else b.body.rows(inner)) + 1
                for b in self.blocks
            ),
        ]

    def row_count(self, width: int) -> int:
        self._layout(width)
        return self._starts[-1]

    def block_row(self, index: int, width: int) -> int:
        """The first row of block `index`."""
        self._layout(width)
        return self._starts[index]

    def block_at(self, row: int, width: int) -> int:
        self._layout(width)
        return max(0, min(len(self.blocks) - 1, bisect_right(self._starts, row) - 1))

    def render_row(self, row: int, width: int, base: Style) -> Strip:
        self._layout(width)
        index = bisect_right(self._starts, row) - 1
        if index >= len(self.blocks):
            return Strip.blank(width, base)
        block = self.blocks[index]
        offset = row - self._starts[index]
        last = self._starts[index + 1] - self._starts[index] - 1
        if offset == last:
            return Strip.blank(width, base)
        is_current = index == self.current
        gutter_style = (
            self.styles["cursor"]
            if is_current
            else self.styles.get("gutter-" + block.kind, self.styles["gutter"])
        )
        if offset == 0:
            mark = "▶ " if is_current else "  "
            header = block.header.copy()
            fold = header.plain.find(FOLDED, 0, 16)
            if fold >= 0 and not block.collapsed:
                header = (
                    header[:fold] + Text(UNFOLDED, self.styles["thinking"]) + header[fold + 1 :]
                )
            if block.body is not None:
                header.append("  [+]" if block.collapsed else "", self.styles["meta"])
            header.no_wrap = True
            header.end = ""
            segments = [Segment(mark, gutter_style), *header.render(self.console)]
            return Strip(Segment.apply_style(segments, base), None)
        assert block.body is not None
        body = block.body.render(offset - 1, max(1, width - GUTTER))
        if self.highlight is not None:
            body = self._marked(body, row)
        segments = [Segment("│ ", gutter_style), *body]
        return Strip(Segment.apply_style(segments, base), None)

    def _marked(self, segments: list[Segment], row: int) -> list[Segment]:
        """`segments` with the find matches of their text restyled (the current one apart)."""
        assert self.highlight is not None
        plain = "".join(segment.text for segment in segments)
        found = list(self.highlight.finditer(plain))
        if not found:
            return segments
        text = Text(end="", no_wrap=True)
        for segment in segments:
            text.append(segment.text, segment.style)
        current = self.current_match
        for match in found:
            column = cell_len(plain[: match.start()])
            is_current = current is not None and current == (row, column)
            style = self.styles.get("match-current" if is_current else "match", Style(reverse=True))
            text.stylize(style, match.start(), match.end())
        return list(text.render(self.console))

    def locate(self, index: int, pattern: re.Pattern[str], occurrence: int, width: int) -> int:
        """The row of the `occurrence`-th match of `pattern` in block `index`'s body (its last
        match when there are fewer, its header row when none), and sets it as the current match.
        """
        self._layout(width)
        block = self.blocks[index]
        header = self._starts[index]
        body = block.body
        self.current_match = None
        if body is None:
            return header
        inner = max(1, width - GUTTER)
        seen: tuple[int, int] | None = None
        count = 0
        if isinstance(body, TextBody):
            body.rows(inner)
            for number, line in enumerate(body.lines):
                for match in pattern.finditer(line):
                    row = body._starts[number] + match.start() // inner
                    seen = (row, match.start() % inner)
                    if count == occurrence:
                        return self._current(header, seen)
                    count += 1
        else:
            for row in range(body.rows(inner)):
                plain = "".join(segment.text for segment in body.render(row, inner))
                for match in pattern.finditer(plain):
                    seen = (row, cell_len(plain[: match.start()]))
                    if count == occurrence:
                        return self._current(header, seen)
                    count += 1
        return self._current(header, seen) if seen is not None else header

    def _current(self, header: int, place: tuple[int, int]) -> int:
        row = header + 1 + place[0]
        self.current_match = (row, place[1])
        return row
