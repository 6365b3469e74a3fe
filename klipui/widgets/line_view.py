"""A scrolling view that draws only the rows on screen (Textual's Line API).

The view knows nothing about what it shows: a `RowSource` tells it how many rows there are at a
given width and draws one row at a time. Drawn rows are kept in a small LRU cache, so scrolling a
10 MB text costs the rows that come into view, never the whole text.
"""

from __future__ import annotations

from typing import ClassVar, Protocol

from rich.console import Console
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip


class RowSource(Protocol):
    """What a `LineView` shows."""

    def row_count(self, width: int) -> int:
        """Rows at this width (wrapped text has more rows when narrow)."""
        ...

    def render_row(self, row: int, width: int, base: Style) -> Strip:
        """One row, `width` cells wide at most."""
        ...


class EmptySource:
    """Nothing to show."""

    def row_count(self, width: int) -> int:
        return 0

    def render_row(self, row: int, width: int, base: Style) -> Strip:
        return Strip.blank(width)


class LineView(ScrollView, can_focus=True):
    """A ScrollView over a `RowSource`; rows are drawn lazily and cached."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "scroll_down", "Scroll down", show=False),
        Binding("k", "scroll_up", "Scroll up", show=False),
    ]

    DEFAULT_CSS = """
    LineView {
        background: $surface;
        overflow-y: scroll;
        overflow-x: hidden;
    }
    """

    def __init__(
        self,
        source: RowSource | None = None,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._source: RowSource = source or EmptySource()
        self._cache: LRUCache[tuple[int, int], Strip] = LRUCache(2000)
        self._rows_width = -1
        self._base_style: Style | None = None

    @property
    def source(self) -> RowSource:
        return self._source

    @property
    def text_width(self) -> int:
        """Cells available to a row (the scrollbar excluded)."""
        return max(1, self.scrollable_content_region.width)

    def set_source(self, source: RowSource, keep_scroll: bool = False) -> None:
        """Show another source, from the top unless `keep_scroll`."""
        self._source = source
        self.invalidate()
        if not keep_scroll:
            self.scroll_to(0, 0, animate=False)

    def invalidate(self) -> None:
        """Forget every drawn row (the source changed)."""
        self._cache.clear()
        self._rows_width = -1
        self._update_virtual_size()
        self.refresh()

    def refresh_rows(self, rows: list[int]) -> None:
        """Redraw some rows only (a cursor moved)."""
        width = self.text_width
        for row in rows:
            self._cache.discard((row, width))
            self.refresh_line(row - int(self.scroll_offset.y))

    def _update_virtual_size(self) -> None:
        width = self.text_width
        if width != self._rows_width:
            self._rows_width = width
            size = Size(width, self._source.row_count(width))
            if size != self.virtual_size:
                # Not the reactive setter: it would lay out the whole screen on every new
                # source; the scrollbar gutter is stable, so only this view changes.
                self.set_reactive(LineView.virtual_size, size)
                self._scroll_update(size)
                self.refresh()

    def on_resize(self) -> None:
        self._cache.clear()
        self._update_virtual_size()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()
        self._base_style = None

    @property
    def base_style(self) -> Style:
        """The widget's own Rich style, computed once per style change (it walks the DOM)."""
        if self._base_style is None:
            self._base_style = self.rich_style
        return self._base_style

    def render_line(self, y: int) -> Strip:
        self._update_virtual_size()
        width = self.text_width
        row = y + int(self.scroll_offset.y)
        base = self.base_style
        if row >= self.virtual_size.height:
            return Strip([Segment(" " * width, base)], width)
        key = (row, width)
        strip = self._cache.get(key)
        if strip is None:
            strip = self._source.render_row(row, width, base)
            strip = strip.extend_cell_length(width, base).crop(0, width)
            self._cache[key] = strip
        return strip

    def scroll_to_row(self, row: int, top: bool = True) -> None:
        """Bring a row into view (at the top when `top`, else just visible)."""
        height = self.scrollable_content_region.height
        if top or row < self.scroll_offset.y:
            self.scroll_to(y=row, animate=False)
        elif row >= self.scroll_offset.y + height:
            self.scroll_to(y=row - height + 1, animate=False)

    def action_page_down(self) -> None:
        self.scroll_page_down(animate=False)

    def action_page_up(self) -> None:
        self.scroll_page_up(animate=False)

    def action_scroll_home(self) -> None:
        self.scroll_home(animate=False)

    def action_scroll_end(self) -> None:
        self.scroll_end(animate=False)

    def action_scroll_down(self) -> None:
        self.scroll_down(animate=False)

    def action_scroll_up(self) -> None:
        self.scroll_up(animate=False)


class TextRows:
    """Ready-made one-line `Text`s as rows (reports, lists)."""

    def __init__(self, rows: list[Text], console: Console) -> None:
        self.rows = rows
        self.console = console

    def row_count(self, width: int) -> int:
        return len(self.rows)

    def render_row(self, row: int, width: int, base: Style) -> Strip:
        text = self.rows[row].copy()
        text.no_wrap = True
        text.end = ""
        text.truncate(width)
        return Strip(Segment.apply_style(list(text.render(self.console)), base), None)
