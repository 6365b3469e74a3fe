"""A small modal list to pick one item (a sub-agent session, a reducer)."""

from __future__ import annotations

from typing import Any, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from klipui.session.display import clean_line


class PickScreen(ModalScreen[Any]):
    """Pick one of `options` (label, value); Escape picks nothing. Labels are plain text
    (file names, titles): never read as markup."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "dismiss(None)", "Cancel")]

    def __init__(self, title: str, options: list[tuple[str, Any]], current: int = 0) -> None:
        super().__init__()
        self.title_text = title
        self.options = options
        self.current = current

    def compose(self) -> ComposeResult:
        with Vertical(id="pick-box"):
            yield Label(Text(clean_line(self.title_text)), id="pick-title", markup=False)
            yield OptionList(
                *[
                    Option(Text(clean_line(label)), id=str(i))
                    for i, (label, _) in enumerate(self.options)
                ]
            )

    def on_mount(self) -> None:
        option_list = self.query_one(OptionList)
        option_list.highlighted = self.current
        option_list.focus()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.options[int(event.option.id or 0)][1])
