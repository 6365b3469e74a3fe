"""Row sources for the shrink pane: the shrunk text and the original, linked by `Shrunk.kept`.

Both panes draw one row a line (never wrapped, so an output line and the input line it came from
line up by row number); a line wider than the pane ends in `…`, and `column` pans both sideways.
"""

from __future__ import annotations

from bisect import bisect_right

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from klipui.labels import plural
from klipui.session.display import clean_line
from klipui.shrink import Shrunk, Span


def split_lines(text: str) -> list[str]:
    """Lines of `text` as the shrink engine counts them (a final newline ends the last line)."""
    lines = text.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    return lines


class LineMap:
    """Output line ↔ input line, from `Shrunk.kept`."""

    def __init__(self, kept: tuple[Span, ...], input_lines: int) -> None:
        self.kept = kept
        self.input_lines = input_lines
        self._starts: list[int] = []
        self._outs: list[int] = []
        for index, span in enumerate(kept):
            if span.kind == "footer":
                continue
            self._starts.append(span.start)
            self._outs.append(index)
        self.kept_input: set[int] = set()
        for span in kept:
            if span.kind in ("line", "capped"):
                self.kept_input.add(span.start)

    def input_for(self, out_line: int) -> int | None:
        """The first input line behind output line `out_line` (None for the footer)."""
        if not 0 <= out_line < len(self.kept):
            return None
        span = self.kept[out_line]
        return None if span.kind == "footer" else span.start

    def output_for(self, in_line: int) -> int:
        """The output line that shows (or stands for) input line `in_line`."""
        if not self._starts:
            return 0
        index = max(0, bisect_right(self._starts, in_line) - 1)
        return self._outs[index]

    def state(self, in_line: int) -> str:
        """ "kept", "capped", "summary" or "dropped" for input line `in_line`."""
        out = self.kept[self.output_for(in_line)] if self.kept else None
        if out is None or not out.start <= in_line < max(out.end, out.start + 1):
            return "dropped"
        if out.kind in ("line", "capped"):
            return "kept" if out.kind == "line" else "capped"
        return "summary" if out.kind == "summary" else "dropped"


def _shown(line: str, width: int, column: int = 0) -> str:
    """A line of a tool output as a row shows it from `column` on: the part that can fit,
    without control or escape sequences (a long line is cut with room for the sequences
    removed), `…` first when the start is panned away."""
    shown = clean_line(line[: column + max(4 * width, width + 512)].expandtabs(4))
    if column <= 0:
        return shown
    rest = shown[column:]
    return "…" + rest if rest else ""


def _fit(text: Text, width: int) -> Text:
    """One row: no wrap, `…` at the edge when the line goes on past it."""
    text.no_wrap = True
    text.end = ""
    text.truncate(width, overflow="ellipsis")
    return text


def _gutter_width(count: int) -> int:
    return max(4, len(str(count)))


class ShrunkSource:
    """The shrunk text, each line with the input line it came from in the gutter."""

    def __init__(self, shrunk: Shrunk, console, styles: dict[str, Style]) -> None:
        self.shrunk = shrunk
        self.lines = split_lines(shrunk.content) if shrunk.content else []
        self.console = console
        self.styles = styles
        self.digits = _gutter_width(shrunk.stats.input_lines)
        self.column = 0
        """Characters of each line panned away to the left."""

    def row_count(self, width: int) -> int:
        return len(self.lines)

    def render_row(self, row: int, width: int, base: Style) -> Strip:
        span = self.shrunk.kept[row] if row < len(self.shrunk.kept) else Span("line", row, row + 1)
        if span.kind in ("line", "capped"):
            gutter = f"{span.start + 1:>{self.digits}}"
            style = self.styles["kept"] if span.kind == "line" else self.styles["capped"]
        elif span.kind == "footer":
            gutter, style = " " * self.digits, self.styles["footer"]
        elif span.kind == "summary":
            gutter, style = "Σ".rjust(self.digits), self.styles["summary"]
        else:
            gutter, style = "…".rjust(self.digits), self.styles["marker"]
        text = Text.assemble(
            (gutter + "│", self.styles["gutter"]),
            (_shown(self.lines[row], width, self.column), style),
        )
        _fit(text, width)
        return Strip(Segment.apply_style(list(text.render(self.console)), base), None)


class OriginalSource:
    """The original text: kept lines highlighted, dropped lines dimmed."""

    def __init__(
        self, text: str, line_map: LineMap | None, console, styles: dict[str, Style]
    ) -> None:
        self.lines = split_lines(text) if text else []
        self.line_map = line_map
        self.console = console
        self.styles = styles
        self.digits = _gutter_width(len(self.lines))
        self.column = 0
        """Characters of each line panned away to the left."""

    def row_count(self, width: int) -> int:
        return len(self.lines)

    def render_row(self, row: int, width: int, base: Style) -> Strip:
        state = self.line_map.state(row) if self.line_map is not None else "kept"
        mark = {"kept": "▌", "capped": "▐", "summary": "Σ"}.get(state, " ")
        style = self.styles["dropped"] if state == "dropped" else self.styles[state]
        line = _shown(self.lines[row], width, self.column)
        text = Text.assemble(
            (f"{row + 1:>{self.digits}}", self.styles["gutter"]),
            (mark, self.styles["mark-" + state]),
            (line[: width + 1], style),
        )
        _fit(text, width)
        return Strip(Segment.apply_style(list(text.render(self.console)), base), None)


def marker_arithmetic(original: str, shrunk: Shrunk) -> list[str]:
    """For each marker and summary: the input lines it stands for and what they add up to."""
    lines = split_lines(original)
    out_lines = split_lines(shrunk.content) if shrunk.content else []
    rows: list[str] = []
    for index, span in enumerate(shrunk.kept):
        if span.kind not in ("omitted", "summary"):
            continue
        chunk = lines[span.start : span.end]
        chars = sum(len(line) + 1 for line in chunk)
        if span.end >= len(lines) and not original.endswith("\n") and chunk:
            chars -= 1
        label = "marker" if span.kind == "omitted" else "summary"
        shown = out_lines[index] if index < len(out_lines) else ""
        rows.append(
            f"out {index + 1:>5} {label}: input lines {span.start + 1:,}–{span.end:,} = "
            f"{plural(len(chunk), 'line')}, {plural(chars, 'character')}  "
            f"⟵ {clean_line(shown[:400]).strip()[:70]}"
        )
    total = shrunk.stats
    rows.append(
        f"in {total.input_chars:,} chars / {total.input_lines:,} lines → out "
        f"{total.output_chars:,} / {total.output_lines:,}; kept {total.kept_lines:,} lines, "
        f"dropped {total.dropped_lines:,}"
    )
    return rows
