"""The klipui Textual app: sessions → session (turns, events, selection) → shrink pane / clip."""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.notifications import SeverityLevel
from textual.screen import Screen

from klipui import __version__
from klipui.session.display import clean_line, clean_text


@dataclass(slots=True)
class Sources:
    """What the sessions screen lists."""

    paths: list[Path] = field(default_factory=list)
    """Files and folders given on the command line (empty: discover the agents' roots)."""
    demo: bool = False
    """List the bundled demo sessions."""
    fallback_to_demo: bool = True
    """Show the demo sessions (with a notice) when discovery finds nothing."""


class KlipuiApp(App[int]):
    """Browse, shrink and clip coding-agent sessions."""

    TITLE = "klipui"
    BINDING_GROUP_TITLE = "Everywhere"
    SUB_TITLE = __version__
    CSS_PATH = Path(__file__).with_name("klipui.tcss")
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("f1", "help", "Help", priority=True),
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("ctrl+t", "change_theme", "Theme", show=False),
    ]

    def __init__(
        self,
        sources: Sources | None = None,
        *,
        now: float | None = None,
        open_first: Path | None = None,
    ) -> None:
        super().__init__()
        self.sources = sources or Sources()
        self.fixed_now = now
        """A fixed 'now' for relative times (tests and screenshots); None uses the clock."""
        self.open_first = open_first
        self.discovery_deferred = open_first is not None
        """Listing waits until the first session is open, so the two do not compete."""

    def now(self) -> float:
        """The current time in epoch seconds (fixed in tests)."""
        return self.fixed_now if self.fixed_now is not None else time.time()

    def notify(
        self,
        message: str,
        *,
        title: str = "",
        severity: SeverityLevel = "information",
        timeout: float | None = None,
        markup: bool = True,
    ) -> None:
        """Every notification as plain, cleaned text, whatever the caller asks: messages name
        files and quote sessions, which must never be read as markup or reach the terminal as
        control sequences."""
        super().notify(
            clean_text(message),
            title=clean_line(title),
            severity=severity,
            timeout=timeout,
            markup=False,
        )

    def on_mount(self) -> None:
        from klipui.screens.sessions import SessionsScreen

        self.push_screen(SessionsScreen(self.sources))
        if self.open_first is not None:
            self.open_session(self.open_first)

    def on_resize(self) -> None:
        self.fit_footer()

    def fit_footer(self) -> None:
        """Compact footer keys on narrow terminals, so the keys of the context still fit."""
        from textual.widgets import Footer

        for footer in self.screen.query(Footer):
            footer.compact = self.size.width < 110

    def open_session(self, path: Path) -> None:
        """Open a session file in its own screen."""
        from klipui.screens.session import SessionScreen

        self.push_screen(SessionScreen(path))

    def resume_discovery(self) -> None:
        """Start the deferred listing of sessions (once the first session is on screen)."""
        from klipui.screens.sessions import SessionsScreen

        if not self.discovery_deferred:
            return
        self.discovery_deferred = False
        for screen in self.screen_stack:
            if isinstance(screen, SessionsScreen):
                screen.discover_sessions()

    def action_help(self) -> None:
        from klipui.screens.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            self.pop_screen()
            return
        self.push_screen(HelpScreen(self.screen, self.focused))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """Every action of the screen and its focused widgets, then the app's own."""
        seen: set[str] = set()
        for title, help_text, node, action in context_actions(screen):
            if (key := f"{id(node)}:{action}") in seen:
                continue
            seen.add(key)
            yield SystemCommand(title, help_text, _runner(node, action))
        yield from super().get_system_commands(screen)


def _runner(node: object, action: str):
    def run() -> None:
        node.run_action(action)  # type: ignore[attr-defined]

    return run


_MOVEMENT = ("scroll_", "page_", "cursor_", "move(", "page(", "jump(", "first_row", "last_row")


def _is_movement(action: str) -> bool:
    """Cursor and scroll keys: in the footer and help, but noise in the command palette."""
    return action.startswith(_MOVEMENT) or action in ("select_cursor", "scroll_home")


def context_actions(screen: Screen) -> list[tuple[str, str, object, str]]:
    """(title, help, node, action) for every described binding from the focused widget up.

    Screens and widgets may add palette-only actions through a `PALETTE` list of
    (title, help, action) tuples.
    """
    nodes: list[object] = []
    focused = screen.focused
    node = focused
    while node is not None and node is not screen:
        nodes.append(node)
        node = node.parent
    nodes.append(screen)
    out: list[tuple[str, str, object, str]] = []
    for node in nodes:
        group = getattr(node, "BINDING_GROUP_TITLE", None) or type(node).__name__
        for title, help_text, action in getattr(node, "PALETTE", ()):
            out.append((f"{group}: {title}", help_text, node, action))
        for binding in getattr(node, "BINDINGS", ()):
            if not isinstance(binding, Binding) or not binding.description:
                continue
            if binding.action in ("app.help", "app.quit") or _is_movement(binding.action):
                continue
            keys = binding.key_display or binding.key.split(",")[0]
            out.append((f"{group}: {binding.description}", f"key: {keys}", node, binding.action))
    return out


def resolve_sources(paths: Sequence[str], demo: bool) -> Sources:
    """The sources for the command line; a path that does not exist is an input error."""
    import glob
    import os

    from klipui.cli import InputError

    if demo:
        return Sources(demo=True)
    resolved: list[Path] = []
    for raw in paths:
        path = Path(raw).expanduser()
        if path.exists():
            resolved.append(path)
            continue
        pattern = os.path.expanduser(raw)
        matches = [Path(m) for m in sorted(glob.glob(pattern, recursive=True))]
        if not glob.has_magic(pattern) or not matches:
            raise InputError(f"{raw}: no such file or folder")
        resolved.extend(matches)
    return Sources(paths=resolved)


def run_app(paths: Sequence[str], demo: bool = False) -> int:
    """Open the app on `paths`, else on the discovered sessions, else on the demo sessions."""
    sources = resolve_sources(paths, demo)
    single = sources.paths[0] if len(sources.paths) == 1 and sources.paths[0].is_file() else None
    app = KlipuiApp(sources, open_first=single)
    result = app.run()
    return int(result or 0)
