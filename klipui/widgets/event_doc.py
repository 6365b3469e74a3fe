"""The rows of one turn's events: blocks with a header line and a lazily drawn body.

What each block shows is the engine's (`klipui.conversation.turn_items`); this module only
gives it a look.

A body is either a Rich renderable drawn at the view's width (markdown prose, a highlighted
command, a diff) or plain text wrapped and highlighted one row at a time, so a 10 MB tool result
costs only the rows on screen.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass
from itertools import accumulate
from typing import Protocol

from rich.cells import cell_len
from rich.console import Console, RenderableType
from rich.highlighter import Highlighter, JSONHighlighter, RegexHighlighter, ReprHighlighter
from rich.markdown import Markdown
from rich.segment import Segment
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text
from textual.strip import Strip

from klipui.conversation import CallBody, CallView, Item, ItemKind, turn_items
from klipui.labels import clock, plural
from klipui.session.display import clean_line
from klipui.session.model import Session
from klipui.shrink import LOG_SHAPES
from klipui.widgets.format import human_size

GUTTER = 2
RICH_LIMIT = 40_000
"""Texts longer than this are drawn as plain wrapped rows instead of markdown or syntax."""


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
        self._highlighter: Highlighter = _highlighter("json" if shape == "json" else "text")

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
    """One item of a turn (or the note on how it ended) as shown: a header line and an optional
    body."""

    kind: str
    """An `ItemKind` value, or "ending" for the note on how a turn ended."""
    event_index: int
    header: Text
    body: Body | None = None
    collapsed: bool = False
    item: Item | None = None
    """What the engine decided this block shows (None for the ending note)."""

    @property
    def sidechain(self) -> bool:
        return self.item is not None and self.item.sidechain

    @property
    def text(self) -> str:
        """What copying the block gives: its text, cleaned of control and escape sequences."""
        return self.item.text if self.item is not None else ""


def _syntax(code: str, lexer: str) -> Syntax:
    return Syntax(code, lexer, word_wrap=True, background_color="default", theme="ansi_dark")


def call_body(view: CallView, console: Console) -> Body:
    """A tool call's arguments: a shell command as shell, an edit or patch as a diff, else
    JSON; plain wrapped rows when too long for Rich."""
    text = view.text
    if view.body is CallBody.PATCH:
        return TextBody(text, console, shape="diff")
    if len(text) >= RICH_LIMIT:
        return TextBody(text, console, shape="diff" if view.body is CallBody.DIFF else "json")
    if view.body is CallBody.COMMAND:
        return RichBody(_syntax(text, "bash"), console)
    if view.body is CallBody.DIFF:
        return RichBody(_syntax(text or "(no change)", "diff"), console)
    return RichBody(_syntax(text, "json"), console)


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


def build_blocks(
    session: Session,
    start: int,
    end: int,
    console: Console,
    styles: dict[str, Style],
    show_all: bool = False,
    cancelled: Callable[[], bool] | None = None,
) -> list[Block]:
    """The blocks of `session.events[start:end]`, in order ([] when `cancelled()`)."""
    return blocks_of(turn_items(session, start, end, show_all, cancelled), console, styles)


def blocks_of(items: list[Item], console: Console, styles: dict[str, Style]) -> list[Block]:
    """A block for each item, its header marked as sidechain work and stamped with its time."""
    blocks: list[Block] = []
    last_time: int | None = None
    for item in items:
        block = _block(item, console, styles)
        if item.sidechain:
            block.header = Text.assemble(("⑂ sidechain ", styles["sidechain"]), block.header)
        if item.time is not None:
            block.header.append(f"  {clock(item.time, last_time)}", styles["meta"])
            last_time = item.time
        blocks.append(block)
    return blocks


def _result_header(item: Item, styles: dict[str, Style]) -> Text:
    error = item.kind is ItemKind.ERROR
    style = styles["error"] if error else styles["result"]
    return Text.assemble(
        ("✗ error " if error else "↳ result ", style + Style(bold=True)),
        (f"{human_size(item.size)} · {plural(item.lines, 'line')} · {item.shape}", styles["meta"]),
        (f"  {clean_line(item.call_id)}", styles["meta"]),
    )


def _block(item: Item, console: Console, styles: dict[str, Style]) -> Block:
    """How one item looks: its header and body."""
    kind, index, text = item.kind, item.event_index, item.text
    body: Body | None = None
    collapsed = False
    if kind is ItemKind.PROMPT:
        header = Text("▍ User", styles["prompt"])
        body = prose_body(text or "(empty)", console)
    elif kind is ItemKind.ASSISTANT:
        label = f"▍ Assistant · {item.label}" if item.label else "▍ Assistant"
        header, body = Text(label, styles["assistant"]), prose_body(text, console)
    elif kind is ItemKind.THINKING:
        header = Text(f"{FOLDED} thinking · {len(text):,} chars", styles["thinking"])
        body, collapsed = prose_body(text, console, styles["thinking"]), True
    elif kind is ItemKind.CALL:
        header = Text.assemble(
            ("⚙ ", styles["call"]),
            (item.label, styles["call"] + Style(bold=True)),
            (f"  {clean_line(item.call_id)}", styles["meta"]),
        )
        body = call_body(CallView(CallBody(item.shape), item.body or "", text), console)
    elif kind in (ItemKind.RESULT, ItemKind.ERROR):
        header = _result_header(item, styles)
        style = styles["error"] if kind is ItemKind.ERROR else None
        body = TextBody(text, console, style, item.shape)
    elif kind is ItemKind.IMAGE:
        size = f" · {human_size(item.size)}" if item.size else ""
        header = Text(f"▣ image · {item.label}{size}", styles["image"])
    elif kind is ItemKind.COMPACTION:
        header = Text("━━ compaction: the context was summarised ━━", styles["compaction"])
        body = prose_body(text or "(no summary)", console, styles["thinking"])
    elif kind is ItemKind.TITLE:
        header = Text(f"title: {item.label}", styles["meta"])
    elif kind is ItemKind.BRANCH:
        header = Text(f"⎇ rewound branch · {item.label}", styles["thinking"])
        body = TextBody(text, console, styles["thinking"]) if text else None
        collapsed = True
    else:
        header = Text(f"· {item.label} #{item.seq}", styles["meta"])
        body, collapsed = TextBody(text, console, styles["meta"], "json"), True
    return Block(str(kind), index, header, body, collapsed, item)


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
