"""Write `screenshots/*.svg`: every screen of the app, on the bundled demo sessions.

    python scripts/screenshots.py [--out screenshots] [--size 120x36]

Each picture is taken headless with a frozen clock after the workers have finished, so running
the script again gives the same pictures unless the app changed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input

from klipui.app import KlipuiApp, Sources
from klipui.demo import demo_paths

NOW = 1_775_000_000.0
"""2026-03-31: a little after the demo sessions were made."""


async def _settle(pilot: Pilot, predicate: Callable[[], bool] | None = None) -> None:
    app = pilot.app
    end = time.monotonic() + 20
    while True:
        await app.workers.wait_for_complete()
        await pilot.pause()
        if predicate is None or predicate() or time.monotonic() > end:
            break
        await pilot.pause(0.05)
    await pilot.wait_for_scheduled_animations()
    for box in app.screen.query(Input):
        box.cursor_blink = False
    await pilot.pause()


def _demo(kind: str) -> Path:
    return next(p for p in demo_paths() if f"/{kind}/" in str(p))


Step = Callable[[Pilot], Awaitable[None]]


async def _session_loaded(pilot: Pilot) -> None:
    await _settle(pilot, lambda: getattr(pilot.app.screen, "session", None) is not None)
    view = pilot.app.screen.query_one("EventView")
    await _settle(pilot, lambda: view.document is not None)


async def shot(
    out: Path, name: str, size: tuple[int, int], steps: Step, open_first: Path | None = None
) -> Path:
    """Run the app on the demo sessions, play `steps`, save `name.svg`."""
    app = KlipuiApp(Sources(paths=demo_paths()), now=NOW, open_first=open_first)
    async with app.run_test(size=size) as pilot:
        await _settle(pilot)
        await steps(pilot)
        await _settle(pilot)
        return Path(app.save_screenshot(f"{name}.svg", path=str(out)))


async def sessions(pilot: Pilot) -> None:
    await _settle(pilot, lambda: not pilot.app.screen.discovering)


async def session(pilot: Pilot) -> None:
    await _session_loaded(pilot)
    await pilot.press("down", "space", "shift+down")
    await _session_loaded(pilot)


async def events(pilot: Pilot) -> None:
    await _session_loaded(pilot)
    await pilot.press("down", "down")
    await _session_loaded(pilot)
    await pilot.press("tab", "right_square_bracket")


async def interval(pilot: Pilot) -> None:
    await _session_loaded(pilot)
    await pilot.press("colon", *"1..2, 9..5")


async def interval_error(pilot: Pilot) -> None:
    await _session_loaded(pilot)
    await pilot.press("colon", *"1..x")


async def clip(pilot: Pilot) -> None:
    await _session_loaded(pilot)
    await pilot.press("down", "space", "shift+down", "k")
    await _settle(pilot, lambda: getattr(pilot.app.screen, "plan", None) is not None)


async def shrink(pilot: Pilot) -> None:
    await _session_loaded(pilot)
    await pilot.press("s")
    await _settle(pilot, lambda: getattr(pilot.app.screen, "line_map", None) is not None)
    await pilot.press("m")


async def help_screen(pilot: Pilot) -> None:
    await _session_loaded(pilot)
    await pilot.press("f1")


async def palette(pilot: Pilot) -> None:
    await _session_loaded(pilot)
    await pilot.press("ctrl+p", *"clip")


def _sealed_home() -> None:
    """Run on a home of its own: no user sessions, caches or data in the pictures."""
    home = Path(tempfile.gettempdir()) / "klipui-screenshots-home"
    for name, sub in (
        ("HOME", ""),
        ("XDG_CACHE_HOME", ".cache"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_CONFIG_HOME", ".config"),
        ("CLAUDE_CONFIG_DIR", ".claude"),
        ("CODEX_HOME", ".codex"),
        ("DSH_HOME", ".dsh"),
    ):
        os.environ[name] = str(home / sub) if sub else str(home)


async def main() -> None:
    _sealed_home()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("screenshots"))
    parser.add_argument("--size", default="120x36", help="terminal size, COLSxROWS")
    args = parser.parse_args()
    cols, rows = (int(x) for x in args.size.split("x"))
    args.out.mkdir(parents=True, exist_ok=True)
    claude = _demo("claude")
    plan: list[tuple[str, tuple[int, int], Step, Path | None]] = [
        ("sessions", (cols, rows), sessions, None),
        ("session", (cols, rows), session, claude),
        ("session-80x24", (80, 24), session, claude),
        ("events", (cols, rows), events, _demo("dsh")),
        ("interval-bar", (cols, rows), interval, claude),
        ("interval-error", (cols, rows), interval_error, claude),
        ("clip-preview", (cols, rows), clip, claude),
        ("shrink-pane", (cols, rows), shrink, claude),
        ("help", (cols, rows), help_screen, claude),
        ("command-palette", (cols, rows), palette, claude),
    ]
    for name, size, steps, first in plan:
        path = await shot(args.out, name, size, steps, first)
        print(path)


if __name__ == "__main__":
    asyncio.run(main())
