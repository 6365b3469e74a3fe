"""Snapshots of each screen in its key states (fixed size, frozen clock, workers awaited).

Update on purpose only: `pytest tests/test_app_snapshots.py --snapshot-update -n 0`, after
looking at `snapshot_report.html`.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from app_support import (
    FIXED_NOW,
    SAMPLES,
    copy_samples,
    make_app,
    settle,
    tool_result_session,
    wait_for,
)
from textual.widgets import Input

from klipui.screens.session import SessionScreen
from klipui.screens.sessions import SessionsScreen
from klipui.screens.shrink import ShrinkScreen
from klipui.widgets.event_view import EventView

CORPUS = Path(__file__).resolve().parent / "fixtures" / "corpus"
DSH = SAMPLES / "dsh" / "permission-policy-context.jsonl"


async def _loaded(pilot) -> None:
    app = pilot.app
    await settle(pilot, app)
    screen = app.screen
    if isinstance(screen, SessionsScreen):
        await wait_for(pilot, lambda: not screen.discovering and screen._refresh_pending is False)
    if isinstance(screen, SessionScreen):
        await wait_for(pilot, lambda: screen.session is not None)
        view = screen.query_one(EventView)
        await wait_for(pilot, lambda: view.document is not None)
    await settle(pilot, app)


def _no_blink(app) -> None:
    for box in app.screen.query(Input):
        box.cursor_blink = False


@pytest.fixture
def sessions_folder(tmp_path: Path) -> Path:
    copy_samples(
        tmp_path,
        [
            "dsh/permission-policy-context.jsonl",
            "dsh/multi-turn.jsonl",
            "pi/pi_large-session_v1.jsonl",
            "claude-code/cct_sample_session.jsonl",
        ],
    )
    broken = tmp_path / "broken.jsonl"
    broken.write_text("not json at all\n", encoding="utf-8")
    os.utime(broken, (FIXED_NOW - 7200, FIXED_NOW - 7200))
    return tmp_path


def test_sessions_screen(snap_compare, sessions_folder: Path) -> None:
    assert snap_compare(make_app(sessions_folder), terminal_size=(100, 16), run_before=_loaded)


def test_sessions_screen_grouped_and_filtered(snap_compare, sessions_folder: Path) -> None:
    async def before(pilot) -> None:
        await _loaded(pilot)
        await pilot.press("g", "slash", *"dsh")
        _no_blink(pilot.app)
        await pilot.pause()

    assert snap_compare(make_app(sessions_folder), terminal_size=(100, 16), run_before=before)


def test_session_screen_with_selection_80x24(snap_compare) -> None:
    async def before(pilot) -> None:
        await _loaded(pilot)
        await pilot.press("down", "space", "shift+down")
        await _loaded(pilot)

    app = make_app(DSH, open_first=DSH)
    assert snap_compare(app, terminal_size=(80, 24), run_before=before)


def test_session_screen_interval_error(snap_compare) -> None:
    async def before(pilot) -> None:
        await _loaded(pilot)
        await pilot.press("colon", *"1..x")
        _no_blink(pilot.app)
        await pilot.pause()

    app = make_app(DSH, open_first=DSH)
    assert snap_compare(app, terminal_size=(100, 28), run_before=before)


def test_shrink_pane(snap_compare, tmp_path: Path) -> None:
    log = (CORPUS / "01-pytest-ledger-mixed" / "output.txt").read_text(encoding="utf-8")
    path = tool_result_session(tmp_path / "tests.jsonl", log)

    async def before(pilot) -> None:
        await _loaded(pilot)
        await pilot.press("s")
        await settle(pilot, pilot.app)
        pane = pilot.app.screen
        assert isinstance(pane, ShrinkScreen)
        await wait_for(pilot, lambda: pane.state.shrunk is not None)
        await pilot.press("number_sign")
        await settle(pilot, pilot.app)

    app = make_app(path, open_first=path)
    assert snap_compare(app, terminal_size=(120, 34), run_before=before)


def test_help_on_session_screen(snap_compare) -> None:
    async def before(pilot) -> None:
        await _loaded(pilot)
        await pilot.press("f1")
        await settle(pilot, pilot.app)

    app = make_app(DSH, open_first=DSH)
    assert snap_compare(app, terminal_size=(100, 30), run_before=before)


def test_session_screen_unfinished_turns_80x24(snap_compare) -> None:
    """⊘ on turns that ended without completing, … on the never-ended last turn, and the
    note heading an interrupted turn's events."""
    path = SAMPLES / "claude-code" / "ccl_edge_cases.jsonl"

    async def before(pilot) -> None:
        await _loaded(pilot)
        await pilot.press("down")
        await _loaded(pilot)
        pilot.app.clear_notifications()  # the file's bad lines, named by machine-specific path
        await pilot.pause()

    app = make_app(path, open_first=path)
    assert snap_compare(app, terminal_size=(80, 24), run_before=before)
