"""The search screen: full-text search across sessions, results as you type.

One worker brings the index up to date (its progress under the results, which are marked partial
until it is done); another runs each query once typing pauses. Enter opens the session of a hit
at its turn and event with the match highlighted; Escape there comes back here.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import Footer, Input, Label, OptionList, ProgressBar
from textual.widgets.option_list import Option
from textual.worker import get_current_worker

from klipui.screens.base import KlipuiScreen
from klipui.search import Hit, Results
from klipui.widgets.plain_input import PlainInput
from klipui.widgets.search_hits import hit_prompt

QUERY_DELAY = 0.25
"""Seconds typing must pause before a query runs."""
REFRESH_EVERY = 1.0
"""Seconds between re-runs of the query while the index is being brought up to date."""
LIMIT = 100
PUNCTUATION = "\"'`.,;:!?()[]{}<>"
"""Stripped from the ends of a query's words before they are found in the session."""


class SearchScreen(KlipuiScreen):
    """Search the text of every session; Enter opens a hit at its event."""

    BINDING_GROUP_TITLE = "Search screen"
    HELP = (
        'Type to search every session: plain words must all occur; a "phrase", prefix* and '
        "AND/OR/NOT in capitals work too. Tab moves to the results, Enter opens the session at the "
        "hit with the match highlighted (n/N for the next matches, Escape comes back here). "
        "ctrl+o leaves tool calls and results out (or brings them back). Results are partial "
        "while the index is updated."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back"),
        Binding("ctrl+o", "toggle_tools", "Tools in/out", key_display="^o"),
        Binding("down", "to_results", "Results", show=False),
    ]

    def __init__(self, paths: list[Path] | None, index_path: Path | None = None) -> None:
        """`paths`: the files and folders to search (None: the agents' folders)."""
        super().__init__()
        self.paths = paths
        self.index_path = index_path
        self.files: list[Path] | None = None
        self.progress: tuple[int, int] = (0, 0)
        self.indexing = True
        self.tools = True
        self.results: Results | None = None
        self.hits: list[Hit] = []
        self._timer = None
        self._last_refresh = 0.0
        self.problem = ""

    def compose(self) -> ComposeResult:
        yield PlainInput(placeholder="search every session", id="search-input")
        yield OptionList(id="search-results")
        with Horizontal(id="search-status"):
            yield Label("", id="search-count")
            yield ProgressBar(id="search-progress", show_eta=False, show_percentage=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#search-input", Input).focus()
        self._update_status()
        self.update_index()

    # --- workers -------------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="search-index", exit_on_error=False)
    def update_index(self) -> None:
        """Find the session files and bring the index up to date, re-running the query now and
        then so that results come in while it works."""
        from klipui.search import SearchIndex, SearchUnavailable
        from klipui.session.discover import find_session_files

        worker = get_current_worker()
        try:
            files = find_session_files(self.paths)
            index = SearchIndex(self.index_path)
        except (OSError, SearchUnavailable) as error:
            self.app.call_from_thread(self._index_failed, str(error))
            return
        if index.note:
            self.app.call_from_thread(self.app.notify, index.note, severity="warning")
        self.files = files

        def on_progress(done: int, total: int) -> None:
            self.app.call_from_thread(self._indexed, done, total)

        with index:
            report = index.update(
                files,
                on_progress=on_progress,
                cancelled=lambda: worker.is_cancelled,
                workers=os.cpu_count() or 1,
            )
        if report.busy:
            note = f"{report.busy} sessions not indexed: the index is busy in another klipui"
            self.app.call_from_thread(self.app.notify, note, severity="warning")
        self.app.call_from_thread(self._indexed, *self.progress, True)

    @work(thread=True, exclusive=True, group="search-query", exit_on_error=False)
    def run_query(self, query: str) -> None:
        from klipui.search import SearchIndex

        files = self.files
        with SearchIndex(self.index_path) as index:
            kinds = None if self.tools else ("prompt", "answer", "thinking")
            results = index.search(query, paths=files, kinds=kinds, limit=LIMIT)
        self.app.call_from_thread(self._show, query, results)

    # --- results -------------------------------------------------------------------------------

    def _index_failed(self, message: str) -> None:
        self.indexing = False
        self.problem = message
        self.notify(message, severity="error", timeout=10)
        self._update_status()

    def _indexed(self, done: int, total: int, finished: bool = False) -> None:
        if not self.is_attached:
            return
        self.progress = (done, total)
        if finished:
            self.indexing = False
        now = time.monotonic()
        if self._query() and (finished or now - self._last_refresh >= REFRESH_EVERY):
            self._last_refresh = now
            self.run_query(self._query())
        self._update_status()

    def _query(self) -> str:
        return self.query_one("#search-input", Input).value.strip()

    def _show(self, query: str, results: Results) -> None:
        if not self.is_attached or query != self._query():
            return
        self.results = results
        self.hits = results.hits
        listing = self.query_one(OptionList)
        highlighted = listing.highlighted
        listing.clear_options()
        listing.add_options(
            [Option(hit_prompt(hit, n), id=str(n)) for n, hit in enumerate(self.hits)]
        )
        if self.hits:
            listing.highlighted = min(highlighted or 0, len(self.hits) - 1)
        self._update_status()

    def _update_status(self) -> None:
        parts: list[str] = []
        if self.problem:
            parts.append(f"⚠ {self.problem}")
        elif self.results is not None and self._query():
            count = len(self.hits)
            more = "+" if count >= LIMIT else ""
            parts.append(f"{count}{more} hit{'' if count == 1 else 's'}")
            if self.results.note:
                parts.append(self.results.note)
        if not self.tools:
            parts.append("tools left out")
        done, total = self.progress
        if self.indexing:
            busy = f"partial: indexing {done}/{total} sessions…" if total else "finding sessions…"
            parts.append(busy)
        elif total:
            parts.append(f"{total} sessions indexed")
        self.query_one("#search-count", Label).update(Text(" · ".join(parts)))
        bar = self.query_one("#search-progress", ProgressBar)
        bar.display = self.indexing
        if self.indexing:
            bar.update(total=total or None, progress=done)

    # --- events and actions --------------------------------------------------------------------

    @on(Input.Changed, "#search-input")
    def _changed(self, event: Input.Changed) -> None:
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(QUERY_DELAY, self._run_typed)

    def _run_typed(self) -> None:
        self._timer = None
        query = self._query()
        if query:
            self.run_query(query)
        else:
            self.results = None
            self.hits = []
            self.query_one(OptionList).clear_options()
            self._update_status()

    @on(Input.Submitted, "#search-input")
    def _submitted(self, event: Input.Submitted) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._run_typed()
        self.action_to_results()

    def action_to_results(self) -> None:
        listing = self.query_one(OptionList)
        if listing.option_count:
            listing.focus()
            if listing.highlighted is None:
                listing.highlighted = 0

    @on(OptionList.OptionSelected, "#search-results")
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.open_hit(int(event.option.id or 0))

    def open_hit(self, number: int) -> None:
        """Open the session of hit `number` at its event, the query found in it."""
        if not 0 <= number < len(self.hits) or self.results is None:
            return
        hit = self.hits[number]
        from klipui.screens.session import SessionScreen

        words = (term.strip(PUNCTUATION) for term in self.results.query.terms)
        terms = " ".join(f'"{word}"' for word in words if word)
        self.app.push_screen(SessionScreen(hit.path, find=terms, at=(hit.seq, hit.kind)))

    def action_toggle_tools(self) -> None:
        self.tools = not self.tools
        if self._query():
            self.run_query(self._query())
        self._update_status()

    def action_back(self) -> None:
        self.workers.cancel_group(self, "search-index")
        self.app.pop_screen()
