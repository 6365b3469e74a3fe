"""The find bar of the session screen: a query box and where the current match stands."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Label

from klipui.widgets.plain_input import PlainInput

FIND_DELAY = 0.25
"""Seconds the query must rest before it is looked for (typing stays smooth)."""


class FindBar(Horizontal):
    """Type to find in the session; Enter / shift+Enter for the next / previous match."""

    BINDING_GROUP_TITLE = "Find"
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close find"),
        Binding("shift+enter", "previous", "Previous match", show=False),
        Binding("down", "next", "Next match", show=False),
        Binding("up", "previous", "Previous match", show=False),
    ]

    class Changed(Message):
        """The query changed (after a pause in typing)."""

        def __init__(self, query: str) -> None:
            super().__init__()
            self.query = query

    class Step(Message):
        """Go to the next (+1) or previous (-1) match."""

        def __init__(self, delta: int) -> None:
            super().__init__()
            self.delta = delta

    class Closed(Message):
        """Escape: with a query the bar stays (matches highlighted, n/N step), else it hides."""

        def __init__(self, hidden: bool) -> None:
            super().__init__()
            self.hidden = hidden

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._timer = None

    def compose(self) -> ComposeResult:
        yield PlainInput(placeholder="find in this session", id="find-input")
        yield Label("", id="find-status")

    @property
    def value(self) -> str:
        return self.query_one(Input).value

    def open(self, query: str | None = None) -> None:
        """Show the bar and focus its box (with `query` in it when given)."""
        self.add_class("-open")
        box = self.query_one(Input)
        if query is not None:
            box.value = query
        box.focus()

    def close(self) -> None:
        self.remove_class("-open")

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def set_status(self, text: str) -> None:
        self.query_one("#find-status", Label).update(Text(text))

    @on(Input.Changed, "#find-input")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._timer is not None:
            self._timer.stop()
        self._timer = self.set_timer(FIND_DELAY, self._post_changed)

    def _post_changed(self) -> None:
        self._timer = None
        self.post_message(self.Changed(self.value))

    def flush(self) -> None:
        """Post a pending change at once."""
        if self._timer is not None:
            self._timer.stop()
            self._post_changed()

    @on(Input.Submitted, "#find-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._timer is not None:
            self.flush()
            return
        self.post_message(self.Step(1))

    def action_next(self) -> None:
        self.post_message(self.Step(1))

    def action_previous(self) -> None:
        self.post_message(self.Step(-1))

    def action_close(self) -> None:
        self.flush()
        hidden = not self.value.strip()
        if hidden:
            self.close()
        self.post_message(self.Closed(hidden))
