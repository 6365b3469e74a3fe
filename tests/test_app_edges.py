"""Pilot tests of the rough edges a new user hit (issue 15): toasts, keys, layout."""

from __future__ import annotations

from app_support import SAMPLES, make_app, settle, wait_for

from klipui.screens.session import SessionScreen
from klipui.widgets.turn_list import TurnList

PI = SAMPLES / "pi" / "pi_before-compaction_v1.jsonl"
MULTI = SAMPLES / "dsh" / "multi-turn.jsonl"


async def _open(pilot, app) -> SessionScreen:
    await settle(pilot, app)
    screen = app.screen
    assert isinstance(screen, SessionScreen)
    await wait_for(pilot, lambda: screen.session is not None)
    await settle(pilot, app)
    return screen


def _messages(app) -> list[str]:
    return [n.message for n in app._notifications]


async def test_next_error_says_which_of_how_many_and_when_it_wraps() -> None:
    app = make_app(PI, open_first=PI)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _open(pilot, app)
        turns = screen.query_one(TurnList)
        total = sum(t.errors for t in turns.turns)
        assert total > 1
        seen = []
        for _ in range(total + 1):
            await pilot.press("x")
            await pilot.pause()
            seen.append(_messages(app)[-1])
        assert seen[0].startswith(f"Failed tool call 1 of {total}: turn ")
        assert seen[1].startswith(f"Failed tool call 2 of {total}")
        assert seen[-1].startswith(f"Failed tool call 1 of {total}")
        assert "from the top again" in seen[-1]
        assert not any("from the top again" in m for m in seen[:-1])


async def test_no_compaction_names_what_is_missing_and_marks_count() -> None:
    app = make_app(MULTI, open_first=MULTI)
    async with app.run_test(size=(120, 36)) as pilot:
        await _open(pilot, app)
        await pilot.press("c")
        await pilot.pause()
        assert _messages(app)[-1] == "No compaction in this session."
        await pilot.press("d")
        await pilot.pause()
        assert _messages(app)[-1] == "No sidechain in this session."
    app = make_app(PI, open_first=PI)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _open(pilot, app)
        turns = screen.query_one(TurnList)
        await wait_for(pilot, lambda: bool(turns.marks))
        marked = [n for n, m in turns.marks.items() if "◆" in m]
        await pilot.press("c")
        await pilot.pause()
        assert _messages(app)[-1] == f"Compaction 1 of {len(marked)}: turn {marked[0]}"


async def test_all_events_toggle_says_on_and_off_and_shows_in_the_header() -> None:
    app = make_app(MULTI, open_first=MULTI)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _open(pilot, app)
        info = screen.query_one("#session-info")
        await pilot.press("m")
        await pilot.pause()
        assert _messages(app)[-1].startswith("All events: on")
        assert "all events (m)" in str(info.render())
        await pilot.press("m")
        await pilot.pause()
        assert _messages(app)[-1].startswith("All events: off")
        assert "all events" not in str(info.render())


async def test_j_and_k_move_the_turn_cursor_and_w_previews_the_clip() -> None:
    from klipui.screens.clip import ClipScreen

    app = make_app(MULTI, open_first=MULTI)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _open(pilot, app)
        turns = screen.query_one(TurnList)
        await pilot.press("j")
        assert turns.cursor == 1
        await pilot.press("k")
        assert turns.cursor == 0
        await pilot.press("space", "w")
        await settle(pilot, app)
        assert isinstance(app.screen, ClipScreen)
