"""F1: the keys of the focused context first, then those of the screen and the app."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen, Screen
from textual.widget import Widget
from textual.widgets import Markdown


def _key_name(binding: Binding, node: DOMNode) -> str:
    keys = [k.strip() for k in binding.key.split(",")]
    app = node.app
    return " / ".join(app.get_key_display(Binding(k, binding.action)) for k in keys)


def _section(node: DOMNode) -> str:
    title = getattr(node, "BINDING_GROUP_TITLE", None) or type(node).__name__
    lines = [f"## {title}", ""]
    help_text = getattr(node, "HELP", None)
    if help_text:
        lines += [help_text.strip(), ""]
    rows = [
        (b, _key_name(b, node))
        for b in getattr(node, "BINDINGS", ())
        if isinstance(b, Binding) and b.description
    ]
    lines += [f"- `{keys}` {b.description}" for b, keys in rows]
    return "\n".join(lines)


def help_markdown(screen: Screen, focused: Widget | None) -> str:
    """The help text for the focused widget, its containers, the screen and the app."""
    nodes: list[DOMNode] = []
    node: DOMNode | None = focused
    while node is not None and node is not screen:
        if getattr(node, "BINDINGS", None) or getattr(node, "HELP", None):
            nodes.append(node)
        node = node.parent
    nodes += [screen, screen.app]
    parts = [
        "# klipui help",
        "Press **F1** or **Escape** to close; **Ctrl+P** lists every command.",
    ]
    parts += [_section(n) for n in nodes]
    return "\n\n".join(parts)


class HelpScreen(ModalScreen[None]):
    """Keys and notes for the context that was focused when F1 was pressed."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q", "dismiss", "Close help")]

    def __init__(self, screen: Screen, focused: Widget | None) -> None:
        super().__init__()
        self._text = help_markdown(screen, focused)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Markdown(self._text)
