"""The sessions screen: every session found, filled in by workers, filtered, sorted, grouped."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import DataTable, Footer, Header, Input, Label, ProgressBar
from textual.widgets.data_table import ColumnKey
from textual.worker import get_current_worker

from klipui.screens.base import KlipuiScreen
from klipui.session.display import clean_line, display_title
from klipui.session.model import SessionInfo
from klipui.session.tree import Row, session_rows, short_problem
from klipui.widgets.format import human_count, human_size, one_line, plural, relative_time
from klipui.widgets.plain_input import PlainInput

if TYPE_CHECKING:
    from klipui.app import Sources
    from klipui.session.watch import ListingChange, ListingWatch

BATCH_SECONDS = 0.1
"""How often the discovery worker hands rows to the table."""
MIN_TITLE = 12
"""Cells the title column keeps however narrow the terminal."""
SCROLLBAR = 2
"""Cells of the table's vertical scrollbar."""
ARCHIVED_MARK = "⌂ "
"""Before the title of a session kept in klipui's archive (its original is gone or older)."""
WATCH_SECONDS = 2.0
"""How often the listed files are looked at for changes (a stat each)."""
NEW_EVERY = 3
"""Every this many looks, the folders are walked again for new sessions."""


@dataclass(frozen=True, slots=True)
class Column:
    key: str
    label: str
    sort_key: Callable[[SessionInfo], object]
    numeric: bool = False


COLUMNS: tuple[Column, ...] = (
    Column("title", "Title", lambda i: (i.title or i.first_prompt or i.path.name).lower()),
    Column("agent", "Agent", lambda i: i.agent or ""),
    Column("project", "Project", lambda i: (i.project or "").lower()),
    Column("updated", "Updated", lambda i: i.updated or 0.0, numeric=True),
    Column("turns", "Turns", lambda i: i.turns or 0, numeric=True),
    Column("tokens", "Tokens", lambda i: i.tokens or 0, numeric=True),
    Column("size", "Size", lambda i: i.bytes, numeric=True),
)
UPDATED = next(index for index, column in enumerate(COLUMNS) if column.key == "updated")
"""The index of the "Updated" cell in a row (the one that changes with the clock alone)."""


def _discover_paths(sources: Sources) -> list[Path] | None:
    """The paths to search (None: the agents' default folders)."""
    if sources.demo:
        from klipui.demo import demo_paths

        return list(demo_paths())
    return list(sources.paths) if sources.paths else None


class SessionTable(DataTable):
    """The session list."""

    BINDING_GROUP_TITLE = "Sessions"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("home", "first_row", "First", show=False),
        Binding("end", "last_row", "Last", show=False),
    ]

    def action_first_row(self) -> None:
        self.move_cursor(row=0)

    def action_last_row(self) -> None:
        self.move_cursor(row=max(0, self.row_count - 1))


class SessionsScreen(KlipuiScreen):
    """All sessions: title, agent, project, updated, turns, tokens, size."""

    BINDING_GROUP_TITLE = "Sessions screen"
    HELP = (
        "Every session found. Figures marked `~` are estimates from the head of the file; "
        "they turn exact as a worker reads each file. Children (clipped sessions, sub-agents) "
        "are listed under their parent. A file that could not be read shows its problem. Ctrl+F "
        "searches the text of every session (prompts, answers, thinking, tool calls, results); "
        "`U` shows token usage per project and day; `B` backs every session up into the archive."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", priority=False),
        Binding("slash", "filter", "Filter", key_display="/"),
        Binding("ctrl+f", "search", "Search text", key_display="^f"),
        Binding("o", "next_sort", "Sort"),
        Binding("O", "reverse_sort", "Reverse"),
        Binding("g", "toggle_group", "Group by project"),
        Binding("U", "usage", "Usage", show=False),
        Binding("B", "archive", "Archive every session now", show=False),
        Binding("f5", "rescan", "Rescan", show=False),
        Binding("q", "app.quit", "Quit", show=False),
        Binding("escape", "clear_filter", "Clear filter", show=False),
    ]

    def __init__(self, sources: Sources) -> None:
        super().__init__()
        self.sources = sources
        self.infos: dict[str, SessionInfo] = {}
        self.sort_index = 3
        self.sort_reverse = True
        self.group = False
        self.needle = ""
        self.progress: tuple[int, int] = (0, 0)
        self.discovering = True
        self._refresh_pending = False
        self._watch: ListingWatch | None = None
        self._watching = False
        self._looks = 0
        self._drawn: dict[str, tuple[SessionInfo, tuple[object, ...], list[Text]]] = {}
        """Path → the info its cells were drawn from, how (depth, widths) and the cells:
        typing a filter draws again only the rows it has not drawn that way."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield PlainInput(placeholder="filter: title, project, first prompt", id="session-filter")
        table = SessionTable(id="session-table", cursor_type="row", zebra_stripes=True)
        yield table
        with Horizontal(id="session-status"):
            yield Label("", id="session-count")
            yield ProgressBar(id="session-progress", show_eta=False, show_percentage=False)
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(SessionTable)
        self.refresh_table()
        self.query_one("#session-filter", Input).display = False
        table.focus()
        if not getattr(self.app, "discovery_deferred", False):
            self.discover_sessions()

    # --- workers -----------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="sessions-discover", exit_on_error=False)
    def discover_sessions(self) -> None:
        """List the sessions (quick figures first, exact ones after), in batches to the table."""
        import time

        from klipui.session.discover import discover

        worker = get_current_worker()
        paths = _discover_paths(self.sources)
        if self.sources.demo:
            self.app.call_from_thread(self.app.notify, "Showing the bundled demo sessions.")
        progress = [0, 0]

        def on_progress(done: int, total: int) -> None:
            progress[0], progress[1] = done, total

        batch: list[SessionInfo] = []
        count = 0
        last = time.monotonic()
        for info in discover(paths, on_progress=on_progress):
            if worker.is_cancelled:
                return
            batch.append(info)
            count += 1
            if count == 1 or time.monotonic() - last >= BATCH_SECONDS:
                self.app.call_from_thread(self._add_infos, batch, tuple(progress))
                batch = []
                last = time.monotonic()
        if count == 0 and paths is None and self.sources.fallback_to_demo:
            from klipui.demo import demo_paths

            self.app.call_from_thread(
                self.app.notify,
                "No sessions found in the agents' folders: showing the bundled demo sessions.",
                title="klipui demo",
                timeout=8,
            )
            batch = list(discover(list(demo_paths())))
        if not worker.is_cancelled:
            self.app.call_from_thread(self._add_infos, batch, tuple(progress), True)

    def _watch_tick(self) -> None:
        if self.discovering or self._watching or not self.infos:
            return
        self._watching = True
        self._looks += 1
        listed = list(self.infos.values()) if self._watch is None else []
        self.watch_listing(listed, self._looks % NEW_EVERY == 0)

    @work(
        thread=True,
        exclusive=True,
        group="sessions-watch",
        exit_on_error=False,
        description="look at the listed files",  # not the default: the repr of every info
    )
    def watch_listing(self, listed: list[SessionInfo], find_new: bool) -> None:
        """Fresh figures for the sessions whose files changed, and the new sessions."""
        from klipui.session.watch import ListingWatch

        try:
            if self._watch is None:
                self._watch = ListingWatch(_discover_paths(self.sources), listed)
            change = self._watch.poll(find_new)
            if change.changed or change.added:
                self.app.call_from_thread(self._listing_changed, change)
        finally:
            self.app.call_from_thread(setattr, self, "_watching", False)

    def _listing_changed(self, change: ListingChange) -> None:
        if not self.is_attached:
            return
        for info in (*change.changed, *change.added):
            self.infos[str(info.path)] = info
        self.refresh_table(keep_cursor=True)

    # --- table -------------------------------------------------------------------------------

    def _add_infos(
        self, batch: list[SessionInfo], progress: tuple[int, int], finished: bool = False
    ) -> None:
        if not self.is_attached:
            return  # a worker's result for a screen that has closed
        for info in batch:
            self.infos[str(info.path)] = info
        self.progress = progress
        if finished:
            self.discovering = False
            if self._looks == 0:
                self._looks = 1
                self.set_interval(WATCH_SECONDS, self._watch_tick)
        self._schedule_refresh(immediate=finished or self.query_one(SessionTable).row_count == 0)

    def _schedule_refresh(self, immediate: bool = False) -> None:
        if immediate:
            self.refresh_table()
            return
        if not self._refresh_pending:
            self._refresh_pending = True
            self.set_timer(0.25, self.refresh_table)

    def refresh_table(self, keep_cursor: bool = False) -> None:
        """Show the rows of the infos (filtered, sorted, as a tree), keeping the cursor on the same
        session (on the first row while the list fills in, unless `keep_cursor`). Rows are
        replaced; the columns stay, only their widths follow the new rows."""
        self._refresh_pending = False
        table = self.query_one(SessionTable)
        current = self.current_key() if table.cursor_row > 0 or keep_cursor else None
        column = COLUMNS[self.sort_index]
        rows = session_rows(
            self.infos.values(), self.needle, column.sort_key, self.sort_reverse, self.group
        )
        now = self.klipui.now()
        cells = [self._row_cells(row, now) for row in rows]
        keys = [row.key for row in rows]
        widths = self._widths(cells)
        if len(table.columns) != len(COLUMNS):
            table.clear(columns=True)
            for spec, width in zip(COLUMNS, widths, strict=True):
                table.add_column(spec.label, key=spec.key, width=width)
        else:
            table.clear()
            for spec, width in zip(COLUMNS, widths, strict=True):
                table.columns[ColumnKey(spec.key)].width = width
        for key, row_cells in zip(keys, cells, strict=True):
            table.add_row(*row_cells, key=key)
        if current is not None and current in keys:
            table.move_cursor(row=keys.index(current), animate=False)
        self._update_status()

    def _row_cells(self, row: Row, now: float) -> list[Text]:
        """The cells of a row (the title a copy: fitting it to the width cuts it)."""
        if row.info is None:
            title = Text(clean_line(f"{row.group} · {row.members}"), style="bold")
            return [title, *[Text("") for _ in range(len(COLUMNS) - 1)]]
        how = (row.depth, self.group, self.narrow, self.title_room)
        drawn = self._drawn.get(row.key)
        if drawn is None or drawn[0] is not row.info or drawn[1] != how:
            if len(self._drawn) > 4 * len(self.infos) + 100:
                self._drawn.clear()
            drawn = self._drawn[row.key] = (row.info, how, self._cells(row.info, row.depth, now))
        title, *rest = drawn[2]
        rest[UPDATED - 1] = Text(relative_time(row.info.updated, now))  # the one cell time moves
        return [title.copy(), *rest]

    def _widths(self, rows: list[list[Text]]) -> list[int]:
        """Column widths measured here, not left to the table: they must shrink with the
        terminal. The title takes what the other columns, the cell padding and the scrollbar
        leave (titles are cut to it)."""
        widths = [Text(column.label).cell_len for column in COLUMNS]
        for cells in rows:
            for index, cell in enumerate(cells[1:], 1):
                widths[index] = max(widths[index], cell.cell_len)
        room = max(MIN_TITLE, self.size.width - sum(widths[1:]) - 2 * len(COLUMNS) - SCROLLBAR)
        for cells in rows:
            cells[0].truncate(room, overflow="ellipsis")
            widths[0] = max(widths[0], cells[0].cell_len)
        return widths

    def _cells(self, info: SessionInfo, depth: int, now: float) -> list[Text]:
        indent = "  " * max(0, depth - (1 if self.group else 0))
        branch = "└ " if depth > (1 if self.group else 0) else ""
        if info.problem or info.format is None:
            title = Text.assemble(
                indent + branch,
                ("⚠ ", "bold red"),
                (clean_line(info.path.name), "red"),
                (f"  {clean_line(short_problem(info))}", "dim red"),
            )
            title.truncate(self.title_room + len(indent + branch) + 2, overflow="ellipsis")
        else:
            mark = ARCHIVED_MARK if info.archived else ""
            label = one_line(clean_line(display_title(info)), self.title_room - len(mark))
            title = Text.assemble(indent + branch, (mark, "bold cyan"), label)
        exact = info.exact
        if info.format is None:
            return [
                title,
                Text("—"),
                Text(""),
                Text(relative_time(info.updated, now)),
                Text("—"),
                Text("—"),
                Text(human_size(info.bytes), justify="right"),
            ]
        return [
            title,
            Text(clean_line((info.format or "?") if self.narrow else (info.agent or ""))),
            Text(one_line(clean_line(info.project or ""), 10 if self.narrow else 24)),
            Text(relative_time(info.updated, now)),
            Text(human_count(info.turns, exact), justify="right"),
            Text(human_count(info.tokens, exact), justify="right"),
            Text(human_size(info.bytes), justify="right"),
        ]

    @property
    def title_room(self) -> int:
        """Characters of title a row may start with (`refresh_table` fits them to the width)."""
        return max(MIN_TITLE, min(90, self.size.width))

    @property
    def narrow(self) -> bool:
        return self.size.width < 110

    def on_resize(self) -> None:
        if self.infos:
            self.refresh_table()  # the title column is sized to the width

    def _update_status(self) -> None:
        table = self.query_one(SessionTable)
        shown = sum(1 for key in table.rows if not str(key.value).startswith("group:"))
        sort = COLUMNS[self.sort_index]
        arrow = "↓" if self.sort_reverse else "↑"
        total = plural(len(self.infos), "session")
        parts = [f"{shown:,} of {total}", f"sort: {sort.label} {arrow}"]
        if self.needle:
            parts.append(f"filter: {self.needle!r}")
        if self.group:
            parts.append("grouped by project")
        done, total = self.progress
        if self.discovering:
            parts.append(f"reading {done}/{total}…" if total else "scanning…")
        self.query_one("#session-count", Label).update(Text(" · ".join(parts)))
        progress = self.query_one(ProgressBar)
        progress.display = self.discovering
        if self.discovering:
            progress.update(total=total or None, progress=done)

    def current_key(self) -> str | None:
        table = self.query_one(SessionTable)
        if table.row_count == 0:
            return None
        row_key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        return str(row_key.value)

    # --- actions -----------------------------------------------------------------------------

    def action_open(self) -> None:
        key = self.current_key()
        if key is None or key.startswith("group:"):
            return
        info = self.infos.get(key)
        if info is not None and info.format is None:
            self.notify(
                f"{info.path.name}: {info.problem or 'not a session file'}",
                severity="error",
                markup=False,
            )
            return
        self.klipui.open_session(Path(key))

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open()

    def action_filter(self) -> None:
        box = self.query_one("#session-filter", Input)
        box.display = True
        box.focus()

    def action_search(self) -> None:
        """Search the text of every session listed (prompts, answers, tool output)."""
        from klipui.screens.search import SearchScreen

        self.app.push_screen(SearchScreen(_discover_paths(self.sources)))

    def action_clear_filter(self) -> None:
        box = self.query_one("#session-filter", Input)
        if box.value or box.display:
            box.value = ""
            box.display = False
            self.needle = ""
            self.refresh_table()
            self.query_one(SessionTable).focus()

    @on(Input.Changed, "#session-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.needle = event.value.strip()
        self.refresh_table()

    @on(Input.Submitted, "#session-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        if not event.value.strip():
            event.input.display = False
        self.query_one(SessionTable).focus()

    def action_next_sort(self) -> None:
        self.sort_index = (self.sort_index + 1) % len(COLUMNS)
        self.sort_reverse = COLUMNS[self.sort_index].numeric
        self.refresh_table()

    def action_reverse_sort(self) -> None:
        self.sort_reverse = not self.sort_reverse
        self.refresh_table()

    def sort_by(self, key: str) -> None:
        """Sort by the column `key`; the same column again reverses the order."""
        index = next(i for i, c in enumerate(COLUMNS) if c.key == key)
        if index == self.sort_index:
            self.sort_reverse = not self.sort_reverse
        else:
            self.sort_index = index
            self.sort_reverse = COLUMNS[index].numeric
        self.refresh_table()

    @on(DataTable.HeaderSelected)
    def _header_selected(self, event: DataTable.HeaderSelected) -> None:
        self.sort_by(str(event.column_key.value))

    def action_toggle_group(self) -> None:
        self.group = not self.group
        self.refresh_table()

    def action_usage(self) -> None:
        """Token usage of the listed sessions, per project and per day."""
        from klipui.screens.usage import UsageScreen

        self.app.push_screen(UsageScreen(list(self.infos.values()), _discover_paths(self.sources)))

    def action_archive(self) -> None:
        """Copy every agent's sessions into klipui's archive (rescan after, when it copied)."""
        from klipui.screens.archive import ArchiveScreen

        def after(copied: bool | None) -> None:
            if copied:
                self.action_rescan()

        self.app.push_screen(ArchiveScreen(), after)

    def action_rescan(self) -> None:
        self._watch = None
        self.infos.clear()
        self.progress = (0, 0)
        self.discovering = True
        self.discover_sessions()

    def add_session(self, info: SessionInfo) -> None:
        """Show a session written while the app runs (a clipped child)."""
        self.infos[str(info.path)] = info
        self.refresh_table()
