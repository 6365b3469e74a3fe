"""The usage screen: token usage per project and per day, with a bar for each row.

The figures are computed by a worker (with progress) from the sessions the sessions screen
lists; the screen only draws them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Footer, Header, Label, ProgressBar
from textual.worker import get_current_worker

from klipui.screens.base import KlipuiScreen
from klipui.session.display import clean_line
from klipui.session.model import SessionInfo
from klipui.usage import Report, Row, bar
from klipui.widgets.format import human_count

BAR_CELLS = 16
FIGURES = ("Input", "Output", "Cache rd", "Cache wr", "Total")


class UsageTable(DataTable):
    """One usage table (per project or per day)."""

    BINDING_GROUP_TITLE = "Usage table"


class UsageScreen(KlipuiScreen):
    """Token usage per project and per day."""

    BINDING_GROUP_TITLE = "Usage screen"
    HELP = (
        "Token usage as the session files record it (input, output, cache read, cache write "
        "per model response). Figures marked `~` include estimates for sessions that record "
        "no usage. A response repeated in several files is counted once."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "close", "Back"),
        Binding("tab", "switch_table", "Other table", show=False),
        Binding("f5", "recompute", "Recompute"),
    ]

    def __init__(self, infos: Sequence[SessionInfo] = (), paths: list[Path] | None = None) -> None:
        super().__init__()
        self.infos = [info for info in infos if info.format is not None and not info.problem]
        self.paths = paths
        self.by_project: Report | None = None
        self.by_day: Report | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="usage-body"):
            with Vertical(id="usage-projects-box"):
                yield Label("Per project", classes="usage-caption")
                yield UsageTable(id="usage-projects", cursor_type="row", zebra_stripes=True)
            with Vertical(id="usage-days-box"):
                yield Label("Per day", classes="usage-caption")
                yield UsageTable(id="usage-days", cursor_type="row", zebra_stripes=True)
        with Horizontal(id="usage-status"):
            yield Label("Reading usage…", id="usage-total")
            yield ProgressBar(id="usage-progress", show_eta=False, show_percentage=False)
        yield Footer()

    def on_mount(self) -> None:
        self.sub_title = "Usage"
        self.query_one("#usage-projects", UsageTable).focus()
        self.compute()

    # --- worker ------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="usage", exit_on_error=False)
    def compute(self) -> None:
        """Read every session's usage and total it per project and per day."""
        from klipui.usage import collect, session_usage, summarize

        worker = get_current_worker()

        def on_progress(done: int, total: int) -> None:
            self.app.call_from_thread(self._progress, done, total)

        if self.infos:
            usages = []
            for done, info in enumerate(self.infos, start=1):
                if worker.is_cancelled:
                    return
                usages.append(session_usage(info.path, info))
                on_progress(done, len(self.infos))
        else:
            usages = list(collect(self.paths, on_progress=on_progress))
        if worker.is_cancelled:
            return
        projects = summarize(usages, by="project")
        days = summarize(usages, by="day")
        self.app.call_from_thread(self._show, projects, days)

    def _progress(self, done: int, total: int) -> None:
        if self.is_attached:
            self.query_one("#usage-progress", ProgressBar).update(total=total, progress=done)

    def _show(self, projects: Report, days: Report) -> None:
        if not self.is_attached:
            return
        self.by_project, self.by_day = projects, days
        self._fill(self.query_one("#usage-projects", UsageTable), projects, "Project")
        self._fill(self.query_one("#usage-days", UsageTable), days, "Day")
        total = projects.total
        mark = "~" if total.estimated else ""
        self.query_one("#usage-total", Label).update(
            f"{mark}{human_count(total.tokens.total)} tokens · {total.responses} responses · "
            f"{len(total.sessions)} sessions"
            + (f" · ${total.cost:,.2f} recorded cost" if total.costed else "")
            + (" · ~ includes estimates" if total.estimated else "")
        )
        self.query_one("#usage-progress", ProgressBar).display = False

    def _fill(self, table: UsageTable, report: Report, label: str) -> None:
        largest = max((row.tokens.total for row in report.rows), default=0)
        rows = [self._cells(row, largest) for row in report.rows]
        labels = [label, *FIGURES, ""]
        # Widths measured here, not left to the table, which can show label-wide columns.
        widths = [
            max([Text(name).cell_len, *(r[i].cell_len for r in rows)])
            for i, name in enumerate(labels)
        ]
        widths[-1] = BAR_CELLS
        table.clear(columns=True)
        for index, (name, width) in enumerate(zip(labels, widths, strict=True)):
            table.add_column(name, key=f"c{index}", width=width)
        for row, cells in zip(report.rows, rows, strict=True):
            table.add_row(*cells, key=row.key)

    @staticmethod
    def _cells(row: Row, largest: int) -> list[Text]:
        mark = "~" if row.estimated else ""
        tokens = row.tokens
        figures = (tokens.input, tokens.output, tokens.cache_read, tokens.cache_write, tokens.total)
        return [
            Text(clean_line(row.key)),
            *(Text(f"{mark}{human_count(value)}", justify="right") for value in figures),
            Text(bar(tokens.total, largest, BAR_CELLS), style="green"),
        ]

    # --- actions -----------------------------------------------------------------------------

    def action_close(self) -> None:
        self.app.pop_screen()

    def action_switch_table(self) -> None:
        projects = self.query_one("#usage-projects", UsageTable)
        days = self.query_one("#usage-days", UsageTable)
        (days if projects.has_focus else projects).focus()

    def action_recompute(self) -> None:
        self.query_one("#usage-progress", ProgressBar).display = True
        self.query_one("#usage-total", Label).update("Reading usage…")
        self.compute()
