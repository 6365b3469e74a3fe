"""Pilot: hostile text in the `:` bar shows an error and never crashes (issue 11 item 7)."""

from __future__ import annotations

from app_support import SAMPLES, make_app, settle, wait_for

from klipui.klip.interval import MAX_DIGITS, MAX_TEXT_CHARS
from klipui.screens.session import SessionScreen
from klipui.widgets.interval_bar import IntervalBar
from klipui.widgets.turn_list import TurnList

PI = SAMPLES / "pi" / "pi_before-compaction_v1.jsonl"


async def test_the_bar_shows_errors_for_huge_numbers_and_text_and_keeps_running() -> None:
    app = make_app(PI, open_first=PI)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        await wait_for(pilot, lambda: screen.session is not None)
        await settle(pilot, app)
        bar = screen.query_one(IntervalBar)
        turns = screen.query_one(TurnList)
        await pilot.press("colon", *"1..3")
        await pilot.pause()
        assert turns.selected == {1, 2, 3}
        error_box = bar.query_one("#interval-error")
        for text, column, words in (
            ("1.." + "9" * 5000, 4, "turn number too long"),
            ("1," * (MAX_TEXT_CHARS // 2 + 1), MAX_TEXT_CHARS + 1, "selection too long"),
        ):
            bar.input.value = text
            await pilot.pause()
            assert bar.error is not None and bar.error.column == column
            shown = str(error_box.render())
            assert words in shown
            assert "\x1b" not in shown
            assert turns.selected == {1, 2, 3}  # the last valid selection stays
            assert app.is_running
        assert f"column {MAX_TEXT_CHARS + 1:,}" in str(error_box.render())
        bar.input.value = "1\x1b]52;c;Y3VybA==\x07"
        await pilot.pause()
        assert "\x1b" not in bar.input.value and "\x07" not in bar.input.value
        assert "\x1b" not in str(error_box.render())
        bar.input.value = "2.." + "9" * MAX_DIGITS
        await pilot.pause()
        assert bar.error is None
        assert turns.selected == set(range(2, len(turns.turns) + 1))
        await pilot.press("enter")
        await pilot.pause()
        assert not bar.has_class("-open")
