"""Write `screenshots/*.svg`: every screen of the app, on the bundled demo sessions.

    python scripts/screenshots.py [--out screenshots] [--size 120x36]

Each picture is taken headless after the workers have finished, with everything that could
change between runs frozen: the clock, the demo files' times (the sessions are copied into a
home of the script's own, with a fixed mtime, since the Updated column reads it) and the id a
new child would get (the clip preview shows its path). Running the script again gives the same
pictures unless the app changed.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import os
import shutil
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input

from klipui.app import KlipuiApp, Sources
from klipui.demo import SESSIONS, demo_paths

NOW = 1_775_000_000.0
"""2026-03-31: a little after the demo sessions were made."""
FILE_TIME = 1_772_467_200.0
"""2026-03-02 16:00 UTC, the day of the demo sessions: the mtime their copies get (the Updated
column of the sessions screen)."""
HOME = Path(tempfile.gettempdir()) / "klipui-screenshots-home"
DEMO = HOME / "demo-sessions"
CHILD_WRITERS = ("claude", "codex", "pi", "dsh", "messages")


def fixed_child_id(format_name: str, now: datetime) -> str:
    """A child id in the format's own shape, the same on every run (not random)."""
    digest = int.from_bytes(hashlib.sha256(f"{format_name} {now}".encode()).digest()[:16], "big")
    if format_name in ("dsh", "messages"):
        from klipui.klip.children import base36, epoch_ms

        stamp = f"{base36(epoch_ms(now))}-{base36(digest)[:6]}"
        return f"session-klip-{stamp}" if format_name == "dsh" else stamp
    return str(uuid.UUID(int=digest, version=4))


def _freeze_child_ids() -> None:
    """Child writers make random ids; the pictures need the same one every run."""
    from klipui.session.formats import adapter

    for name in CHILD_WRITERS:
        owner = type(adapter(name))
        owner.new_id = lambda self, now, name=name: fixed_child_id(name, now)  # type: ignore[method-assign]


def _demo_copies() -> list[Path]:
    """The demo sessions (and the spilled outputs beside them) copied under the script's home,
    every file with the mtime `FILE_TIME`; the copies of the session files."""
    shutil.rmtree(DEMO, ignore_errors=True)
    shutil.copytree(SESSIONS, DEMO)
    for path in DEMO.rglob("*"):
        if path.is_file():
            os.utime(path, (FILE_TIME, FILE_TIME))
    return [DEMO / path.relative_to(SESSIONS) for path in demo_paths()]


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


def _demo(sessions: list[Path], kind: str) -> Path:
    return next(p for p in sessions if p.relative_to(DEMO).parts[0] == kind)


Step = Callable[[Pilot], Awaitable[None]]


async def _session_loaded(pilot: Pilot) -> None:
    await _settle(pilot, lambda: getattr(pilot.app.screen, "session", None) is not None)
    view = pilot.app.screen.query_one("EventView")
    await _settle(pilot, lambda: view.document is not None)


async def shot(
    out: Path,
    name: str,
    size: tuple[int, int],
    steps: Step,
    sessions: list[Path],
    open_first: Path | None = None,
    notifications: bool = False,
) -> Path:
    """Run the app on the demo sessions, play `steps`, save `name.svg` (with the toasts shown
    when `notifications`)."""
    app = KlipuiApp(Sources(paths=sessions), now=NOW, open_first=open_first)
    async with app.run_test(size=size, notifications=notifications) as pilot:
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
    await pilot.press("down", "space", "shift+down", "w")
    await _settle(pilot, lambda: getattr(pilot.app.screen, "plan", None) is not None)


async def shrink(pilot: Pilot) -> None:
    await _session_loaded(pilot)
    await pilot.press("s")
    await _settle(pilot, lambda: getattr(pilot.app.screen, "line_map", None) is not None)
    await pilot.press("number_sign")


async def help_screen(pilot: Pilot) -> None:
    await _session_loaded(pilot)
    await pilot.press("f1")


async def palette(pilot: Pilot) -> None:
    await _session_loaded(pilot)
    await pilot.press("ctrl+p", *"clip")


LIVE_LINES = 9
"""Lines of the Claude Code demo session on disk when the follow picture's app opens it."""


def _live_copy(claude: Path) -> tuple[Path, list[bytes]]:
    """A copy of the Claude Code demo session cut after its first lines (written just now, for
    the app's clock), and the lines still to come."""
    lines = claude.read_bytes().splitlines(keepends=True)
    live = HOME / "live" / claude.name
    live.parent.mkdir(parents=True, exist_ok=True)
    live.write_bytes(b"".join(lines[:LIVE_LINES]))
    os.utime(live, (NOW - 5, NOW - 5))
    return live, lines[LIVE_LINES:]


def follow_steps(rest: list[bytes]) -> Step:
    """Press `f`, then the agent writes the rest of the session: the newest event in view."""

    async def follow(pilot: Pilot) -> None:
        await _session_loaded(pilot)
        screen = pilot.app.screen
        await pilot.press("f")
        with screen.path.open("ab") as out:
            out.write(b"".join(rest))
        await _settle(pilot, lambda: len(screen.session.turns) > 1)
        await pilot.pause(0.3)

    return follow


def _resumable_copy(claude: Path) -> Path:
    """A copy of the Claude Code demo session where Claude Code keeps it, its project folder
    existing (under the script's home, `ledgerline` as in the demo)."""
    project = HOME / "ledgerline"
    project.mkdir(parents=True, exist_ok=True)
    text = claude.read_text(encoding="utf-8").replace("/home/dev/ledgerline", str(project))
    from klipui.session.resume import project_key

    copy = HOME / ".claude" / "projects" / project_key(str(project)) / claude.name
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text(text, encoding="utf-8")
    os.utime(copy, (FILE_TIME, FILE_TIME))
    return copy


async def copy_resume(pilot: Pilot) -> None:
    await _session_loaded(pilot)
    await pilot.press("Y")


def _sealed_home() -> None:
    """Run on a home of its own: no user sessions, caches or data in the pictures."""
    home = HOME
    shutil.rmtree(home / ".cache", ignore_errors=True)  # no listing cache from an earlier run
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
    _freeze_child_ids()
    demo = _demo_copies()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("screenshots"))
    parser.add_argument("--size", default="120x36", help="terminal size, COLSxROWS")
    args = parser.parse_args()
    cols, rows = (int(x) for x in args.size.split("x"))
    args.out.mkdir(parents=True, exist_ok=True)
    claude = _demo(demo, "claude")
    plan: list[tuple[str, tuple[int, int], Step, Path | None]] = [
        ("sessions", (cols, rows), sessions, None),
        ("session", (cols, rows), session, claude),
        ("session-80x24", (80, 24), session, claude),
        ("events", (cols, rows), events, _demo(demo, "dsh")),
        ("interval-bar", (cols, rows), interval, claude),
        ("interval-error", (cols, rows), interval_error, claude),
        ("clip-preview", (cols, rows), clip, claude),
        ("shrink-pane", (cols, rows), shrink, claude),
        ("help", (cols, rows), help_screen, claude),
        ("command-palette", (cols, rows), palette, claude),
    ]
    for name, size, steps, first in plan:
        path = await shot(args.out, name, size, steps, demo, first)
        print(path)
    live, rest = _live_copy(claude)
    follow = follow_steps(rest)
    print(await shot(args.out, "follow", (cols, rows), follow, [live], live, True))
    resumable = _resumable_copy(claude)
    print(await shot(args.out, "continue", (cols, rows), copy_resume, [resumable], resumable, True))


if __name__ == "__main__":
    asyncio.run(main())
