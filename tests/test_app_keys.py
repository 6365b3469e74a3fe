"""One meaning per key across screens: a letter does the same thing wherever it is bound."""

from __future__ import annotations

from textual.binding import Binding

from klipui.screens.clip import ClipScreen
from klipui.screens.session import SessionScreen
from klipui.screens.sessions import SessionsScreen, SessionTable
from klipui.screens.shrink import ShrinkScreen
from klipui.widgets.event_view import EventView
from klipui.widgets.line_view import LineView
from klipui.widgets.turn_list import TurnList

OWNERS = (SessionsScreen, SessionTable, SessionScreen, TurnList, EventView, LineView)
OWNERS += (ClipScreen, ShrinkScreen)
CONTEXTUAL = {"escape", "enter", "q", "backspace", "up", "down", "pageup", "pagedown"}
"""Keys whose meaning is the context's own: leave, confirm, move."""
MEANINGS = {
    "move(1)": "down",
    "cursor_down": "down",
    "scroll_down": "down",
    "move(-1)": "up",
    "cursor_up": "up",
    "scroll_up": "up",
    "first_row": "first",
    "jump(0)": "first",
    "scroll_home": "first",
    "last_row": "last",
    "jump(-1)": "last",
    "scroll_end": "last",
    "clip": "child",
    "write": "child",
}


def test_every_key_has_one_meaning() -> None:
    meanings: dict[str, set[str]] = {}
    for owner in OWNERS:
        for binding in owner.BINDINGS:
            assert isinstance(binding, Binding)
            for key in binding.key.split(","):
                key = key.strip()
                if key in CONTEXTUAL:
                    continue
                meanings.setdefault(key, set()).add(MEANINGS.get(binding.action, binding.action))
    clashes = {key: sorted(found) for key, found in meanings.items() if len(found) > 1}
    assert clashes == {}


def test_j_and_k_move_in_every_list() -> None:
    for owner in (SessionTable, TurnList, EventView, LineView):
        keys = {b.key: MEANINGS.get(b.action) for b in owner.BINDINGS if isinstance(b, Binding)}
        assert keys.get("j") == "down" and keys.get("k") == "up", owner.__name__
