"""The turn list: one row a turn (number, prompt, tool calls, tokens, marks), with a selection."""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from klipui.klip import ending_mark
from klipui.session.display import clean_line
from klipui.session.marks import TurnMark
from klipui.session.model import Turn
from klipui.widgets.format import human_count

ROWS_KEPT = 1000
"""Drawn rows kept, so scrolling redraws only the rows that come into view."""
MARK_CELLS = 3
"""Cells for the marks column."""
GLYPHS: dict[TurnMark, str] = {
    TurnMark.ERROR: "✗",
    TurnMark.COMPACTION: "◆",
    TurnMark.SIDECHAIN: "⑂",
    TurnMark.BRANCH: "⎇",
    TurnMark.ENDED: "⊘",
    TurnMark.UNFINISHED: "…",
}
"""How each mark is drawn, in the order drawn."""
Marks = dict[int, frozenset[TurnMark]]


class TurnList(ScrollView, can_focus=True):
    """Turns of a session; space, shift+arrows, `a`, `i` and Escape edit the selection."""

    BINDING_GROUP_TITLE = "Turns"
    HELP = (
        "One row a turn: number, first line of the prompt, tool calls (⚙), token estimate and "
        "marks: ✗ a tool failed, ◆ compaction, ⑂ sidechain, ⎇ a rewound branch (folded in "
        "the events), ⊘ ended without completing (aborted, interrupted, error, max-tokens: the "
        "events say which; a clip keeps it as it is), … the unfinished last turn, never ended "
        "(a clip leaves it out unless included with `u` in the clip preview). Selected turns "
        "show ●."
    )
    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "turn-list--cursor",
        "turn-list--selected",
        "turn-list--mark",
        "turn-list--dim",
        "turn-list--error",
    }
    DEFAULT_CSS = """
    TurnList { background: $surface; scrollbar-gutter: stable; overflow-x: hidden; }
    TurnList > .turn-list--cursor { background: $block-cursor-blurred-background; }
    TurnList:focus > .turn-list--cursor { background: $block-cursor-background;
        color: $block-cursor-foreground; text-style: bold; }
    TurnList > .turn-list--selected { color: $accent; text-style: bold; }
    TurnList > .turn-list--mark { color: $warning; }
    TurnList > .turn-list--dim { color: $text-muted; }
    TurnList > .turn-list--error { color: $error; text-style: bold; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up", "move(-1)", "Up", show=False),
        Binding("down", "move(1)", "Down", show=False),
        Binding("k", "move(-1)", "Up", show=False),
        Binding("j", "move(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "jump(0)", "First turn", show=False),
        Binding("end", "jump(-1)", "Last turn", show=False),
        Binding("space", "toggle", "Select"),
        Binding("shift+up", "extend(-1)", "Extend up", show=False),
        Binding("shift+down", "extend(1)", "Extend down", show=False),
        Binding("a", "select_all", "All", show=False),
        Binding("i", "invert", "Invert", show=False),
        Binding("escape", "clear", "Clear selection", show=False),
    ]

    cursor: reactive[int] = reactive(0, always_update=True, repaint=False)

    class Highlighted(Message):
        """The cursor moved to another turn."""

        def __init__(self, number: int) -> None:
            super().__init__()
            self.number = number

    class SelectionChanged(Message):
        """The set of selected turns changed."""

        def __init__(self, selected: frozenset[int]) -> None:
            super().__init__()
            self.selected = selected

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.turns: list[Turn] = []
        self.marks: Marks = {}
        """Turn number → its marks (`klipui.session.marks.turn_marks`)."""
        self.endings: dict[int, str] = {}
        """Turn number → how a turn that did not complete ended (see `turn_endings`)."""
        self.selected: set[int] = set()
        self._anchor: int | None = None
        self._base: set[int] = set()
        self._base_style: Style | None = None
        self._rows: LRUCache[tuple[int, bool, bool, int], Strip] = LRUCache(ROWS_KEPT)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._base_style = None
        self._rows.clear()

    @property
    def base_style(self) -> Style:
        """The widget's own Rich style, computed once per style change (it walks the DOM)."""
        if self._base_style is None:
            self._base_style = self.rich_style
        return self._base_style

    def set_turns(
        self,
        turns: list[Turn],
        marks: Marks | None = None,
        endings: dict[int, str] | None = None,
    ) -> None:
        self.turns = turns
        self.marks = marks or {}
        self.endings = endings or {}
        self._rows.clear()
        self.selected.clear()
        self._anchor = None
        self.virtual_size = Size(self.size.width, len(turns))
        self.cursor = 0
        self.refresh()

    def update_turns(self, turns: list[Turn], marks: Marks, endings: dict[int, str]) -> None:
        """Show a longer (or re-read) list of turns, keeping the cursor, the scroll and the
        selection where those turns still exist."""
        cursor = min(self.cursor, max(0, len(turns) - 1))
        self.turns = turns
        self.marks = marks
        self.endings = endings
        self.selected = {number for number in self.selected if number <= len(turns)}
        self._rows.clear()
        self.virtual_size = Size(self.size.width, len(turns))
        if cursor != self.cursor:
            self.cursor = cursor
        self.refresh()

    def set_marks(self, marks: Marks) -> None:
        self.marks = marks
        self._rows.clear()
        self.refresh()

    def marks_of(self, turn: Turn) -> list[TurnMark]:
        """The marks of `turn` (its failed calls and its ending included), in `TurnMark`
        order."""
        found = set(self.marks.get(turn.number, ()))
        if turn.errors:
            found.add(TurnMark.ERROR)
        ending = self.endings.get(turn.number)
        if ending is not None:
            found.add(ending_mark(ending))
        return [mark for mark in TurnMark if mark in found]

    @property
    def current(self) -> Turn | None:
        return self.turns[self.cursor] if 0 <= self.cursor < len(self.turns) else None

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        index = y + int(self.scroll_offset.y)
        if index >= len(self.turns):
            return Strip.blank(width, self.base_style)
        turn = self.turns[index]
        key = (index, index == self.cursor, turn.number in self.selected, width)
        strip = self._rows.get(key)
        if strip is None:
            strip = self._rows[key] = self._row(turn, key[1], width)
        return strip

    def _row(self, turn: Turn, is_cursor: bool, width: int) -> Strip:
        """`●  12 prompt…   ⚙3  1.2k ✗◆`: fixed columns right of a prompt that takes the rest."""
        style = self.base_style
        if is_cursor:
            style += self.get_component_rich_style("turn-list--cursor")
        selected = turn.number in self.selected
        sel_style = self.get_component_rich_style("turn-list--selected")
        dim = self.get_component_rich_style("turn-list--dim")
        digits = len(str(len(self.turns)))
        marks = "".join(GLYPHS[mark] for mark in self.marks_of(turn) if mark in GLYPHS)
        calls = f"⚙{turn.tool_calls}" if turn.tool_calls else ""
        tail = Text.assemble(
            (f" {calls:>4}", dim),
            (f" {human_count(turn.tokens):>5}", dim),
            (
                f" {marks[:MARK_CELLS]:<{MARK_CELLS}}",
                self.get_component_rich_style(
                    "turn-list--error" if turn.errors else "turn-list--mark"
                ),
            ),
        )
        head = Text.assemble(
            ("●" if selected else " ", sel_style),
            (f"{turn.number:>{digits}} ", sel_style if selected else dim),
        )
        room = max(1, width - head.cell_len - tail.cell_len)
        prompt = Text(clean_line(turn.prompt) or "(no prompt)", sel_style if selected else "")
        prompt.truncate(room, overflow="ellipsis", pad=True)
        line = Text.assemble(head, prompt, tail)
        line.truncate(width)
        segments = list(line.render(self.app.console))
        strip = Strip(Segment.apply_style(segments, style), None)
        return strip.extend_cell_length(width, style).crop(0, width)

    def watch_cursor(self, old: int, new: int) -> None:
        if not self.turns:
            return
        self._refresh_index(old)
        self._refresh_index(new)
        self.scroll_to_cursor()
        self.post_message(self.Highlighted(self.turns[new].number))

    def scroll_to_cursor(self) -> None:
        height = self.scrollable_content_region.height
        top = int(self.scroll_offset.y)
        if self.cursor < top:
            self.scroll_to(y=self.cursor, animate=False)
        elif height and self.cursor >= top + height:
            self.scroll_to(y=self.cursor - height + 1, animate=False)

    def _refresh_index(self, index: int) -> None:
        self.refresh_line(index - int(self.scroll_offset.y))

    def _set_cursor(self, index: int) -> None:
        if self.turns:
            self.cursor = max(0, min(len(self.turns) - 1, index))

    def on_resize(self) -> None:
        self.virtual_size = Size(self.size.width, len(self.turns))

    def on_click(self, event) -> None:
        index = event.y + int(self.scroll_offset.y)
        if 0 <= index < len(self.turns):
            self._set_cursor(index)

    # --- actions -----------------------------------------------------------------------------

    def action_move(self, delta: int) -> None:
        self._anchor = None
        self._set_cursor(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        self._anchor = None
        self._set_cursor(
            self.cursor + direction * max(1, self.scrollable_content_region.height - 1)
        )

    def action_jump(self, where: int) -> None:
        self._anchor = None
        self._set_cursor(len(self.turns) - 1 if where < 0 else where)

    def action_toggle(self) -> None:
        turn = self.current
        if turn is None:
            return
        self.selected ^= {turn.number}
        self._anchor = None
        self._changed()

    def action_extend(self, delta: int) -> None:
        if not self.turns:
            return
        if self._anchor is None:
            self._anchor = self.cursor
            self._base = set(self.selected)
        self._set_cursor(self.cursor + delta)
        low, high = sorted((self._anchor, self.cursor))
        self.selected = self._base | {t.number for t in self.turns[low : high + 1]}
        self._changed()

    def action_select_all(self) -> None:
        self.select({t.number for t in self.turns})

    def action_invert(self) -> None:
        self.select({t.number for t in self.turns} - self.selected)

    def action_clear(self) -> None:
        self.select(set())

    def select(self, numbers: Iterable[int]) -> None:
        """Replace the selection."""
        self.selected = set(numbers)
        self._anchor = None
        self._changed()

    def _changed(self) -> None:
        self.refresh()
        self.post_message(self.SelectionChanged(frozenset(self.selected)))
