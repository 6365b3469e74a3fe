"""The archive run from the app: a dialog with progress, then the report in one line."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, ProgressBar
from textual.worker import get_current_worker

from klipui.session.display import clean_line


class _Stopped(Exception):
    """Raised from the progress callback to end a run the user closed (the archive stays
    consistent: each file is replaced atomically or appended and recorded after)."""


class ArchiveScreen(ModalScreen[bool]):
    """Archive every session now (dismissed with True when something was copied)."""

    BINDING_GROUP_TITLE = "Archive"
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "close", "Close")]

    def __init__(self, to: Path | None = None) -> None:
        super().__init__()
        self.to = to
        self.result: str | None = None
        self.copied = False

    def compose(self) -> ComposeResult:
        with Vertical(id="archive-box"):
            yield Label("Archiving every session…", id="archive-title")
            yield ProgressBar(id="archive-progress", show_eta=False)
            yield Label("", id="archive-file")
            yield Label("Esc closes", id="archive-hint")

    def on_mount(self) -> None:
        self.run_archive()

    @work(thread=True, exclusive=True, group="archive", exit_on_error=False)
    def run_archive(self) -> None:
        from klipui.archive import run_archive

        worker = get_current_worker()

        def on_progress(done: int, total: int, path: Path | None) -> None:
            if worker.is_cancelled:
                raise _Stopped
            self.app.call_from_thread(self._progress, done, total, path)

        try:
            report = run_archive(self.to, on_progress=on_progress)
        except _Stopped:
            return
        except OSError as error:
            self.app.call_from_thread(self._done, f"{error.filename}: {error.strerror}", False)
            return
        line = report.summary() + f" · {report.archive}"
        copied = any(report.states[state] for state in ("new", "grown", "rewritten"))
        self.app.call_from_thread(self._done, line, copied)

    def _progress(self, done: int, total: int, path: Path | None) -> None:
        if not self.is_attached:
            return
        self.query_one("#archive-progress", ProgressBar).update(total=total, progress=done)
        self.query_one("#archive-file", Label).update(Text(clean_line(path.name) if path else ""))

    def _done(self, line: str, copied: bool) -> None:
        if not self.is_attached:
            return
        self.result, self.copied = line, copied
        self.query_one("#archive-title", Label).update("Archive done")
        self.query_one("#archive-file", Label).update(Text(clean_line(line)))
        self.query_one("#archive-progress", ProgressBar).display = False

    def action_close(self) -> None:
        self.workers.cancel_group(self, "archive")
        self.dismiss(self.copied)
