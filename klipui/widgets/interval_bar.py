"""The KInterval bar: the selection as text; typing re-selects live, errors show a caret."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Input, Static

from klipui.klip import KInterval, KIntervalError, parse_interval
from klipui.labels import plural
from klipui.session.display import clean_line
from klipui.widgets.plain_input import PlainInput


class IntervalBar(Vertical):
    """Edit the selection as a KInterval (`1..3, 7`, `-5..`, `.., not 4`)."""

    BINDING_GROUP_TITLE = "Interval bar"
    HELP = (
        "Type a selection: `x`, `a..b`, `a..`, `..b`, `..`, `not I`, comma separated; negative "
        "numbers count from the end (`-1` is the last turn). The selection follows as you type. "
        "Enter keeps it, Escape restores the selection you had."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("enter", "accept", "Keep selection", show=False),
    ]

    class Selected(Message):
        """A valid selection was typed."""

        def __init__(self, turns: list[int]) -> None:
            super().__init__()
            self.turns = turns

    class Closed(Message):
        """The bar closed; `restore` holds the turns to reselect when cancelled."""

        def __init__(self, restore: list[int] | None) -> None:
            super().__init__()
            self.restore = restore

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.turn_count = 0
        self._before: list[int] = []
        self.error: KIntervalError | None = None
        self.warnings: list[str] = []

    def compose(self) -> ComposeResult:
        yield PlainInput(placeholder="turns, e.g. 1..3, 7 or .., not -1", id="interval-input")
        yield Static("", id="interval-error")
        yield Static("", id="interval-warnings")
        yield Static("", id="interval-summary")

    @property
    def caret_offset(self) -> int:
        """Cells from the start of the message lines to the first character of the input."""
        box = self.query_one("#interval-error", Static)
        offset = self.input.content_region.x - box.content_region.x
        return offset if offset > 0 else 3

    @property
    def input(self) -> Input:
        return self.query_one("#interval-input", Input)

    def open(self, selected: list[int], turn_count: int) -> None:
        """Show the bar with the canonical text of `selected` and focus it."""
        self.turn_count = turn_count
        self._before = list(selected)
        text = str(KInterval.from_turns(selected)) if selected else ""
        self.add_class("-open")
        self.input.value = text
        self.input.cursor_position = len(text)
        self.input.focus()
        self._evaluate(text, announce=False)

    def _evaluate(self, text: str, announce: bool = True) -> None:
        error_box = self.query_one("#interval-error", Static)
        warn_box = self.query_one("#interval-warnings", Static)
        summary = self.query_one("#interval-summary", Static)
        try:
            interval = parse_interval(text)
        except KIntervalError as error:
            self.error = error
            self.warnings = []
            self.input.add_class("-invalid")
            if error.column <= self.input.content_region.width:
                caret = " " * (self.caret_offset + error.column - 1) + "^"
                error_box.update(Text(f"{caret}\n{clean_line(error.message)}"))
            else:
                error_box.update(Text(f"column {error.column:,}: {clean_line(error.message)}"))
            warn_box.update("")
            summary.update("")
            return
        self.error = None
        self.input.remove_class("-invalid")
        error_box.update("")
        self.warnings = interval.warnings(self.turn_count) if text.strip() else []
        warn_box.update(Text("\n".join(f"⚠ {clean_line(w)}" for w in self.warnings)))
        turns = interval.turns(self.turn_count)
        of = plural(self.turn_count, "turn")
        summary.update(Text(f"{len(turns)} of {of} · canonical: {interval}"))
        if announce:
            self.post_message(self.Selected(turns))

    @on(Input.Changed, "#interval-input")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        if self.has_class("-open"):
            self._evaluate(event.value)

    @on(Input.Submitted, "#interval-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_accept()

    def action_accept(self) -> None:
        if self.error is not None:
            self.app.bell()
            return
        self._close(None)

    def action_cancel(self) -> None:
        self._close(self._before)

    def _close(self, restore: list[int] | None) -> None:
        self.remove_class("-open")
        self.post_message(self.Closed(restore))
