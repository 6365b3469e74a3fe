"""Pilot tests of search across sessions and find inside one: hits open at their event, n/N
step through matches across turns with wrap-around, a 10 MB result is searched and drawn."""

from __future__ import annotations

from pathlib import Path

from app_support import SAMPLES, big_result_session, make_app, settle, wait_for
from search_support import session_file

from klipui.app import KlipuiApp, Sources
from klipui.screens.search import SearchScreen
from klipui.screens.session import SessionScreen
from klipui.widgets.event_view import EventView
from klipui.widgets.find_bar import FindBar
from klipui.widgets.turn_list import TurnList

PI = SAMPLES / "pi" / "pi_before-compaction_v1.jsonl"  # 55 turns


def _row_text(view: EventView, row: int) -> str:
    strip = view.document.render_row(row, view.text_width, view.base_style)  # type: ignore[union-attr]
    return strip.text


async def _session(pilot, app) -> SessionScreen:
    await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen))
    screen = app.screen
    await wait_for(pilot, lambda: screen.session is not None and not screen.partial)
    await settle(pilot, app)
    return screen


async def test_a_hit_opens_its_session_at_the_event_and_escape_comes_back(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    session_file(folder / "a.jsonl", ("first turn", "nothing here", "plain output"))
    path = session_file(
        folder / "b.jsonl",
        ("fix the build", "it builds", "compiling\nok"),
        ("now the tests", "one failed", "test_io FAILED\nAssertionError: wombat mismatch"),
        ("and again", "the wombat is fixed", None),
    )
    app = make_app(folder)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, SearchScreen))
        search = app.screen
        await pilot.press(*"wombat mismatch")
        await wait_for(pilot, lambda: len(search.hits) == 1)
        hit = search.hits[0]
        assert (hit.path, hit.turn, hit.kind) == (path, 2, "result")
        await pilot.press("enter")  # to the results
        await pilot.press("enter")  # open the hit
        screen = await _session(pilot, app)
        await wait_for(pilot, lambda: screen.finder.current is not None)
        match = screen.finder.current
        assert match.seq == hit.seq and match.kind == "result" and match.turn == 2
        assert screen.query_one(TurnList).current.number == 2
        view = screen.query_one(EventView)
        assert view.current_block.kind == "error" or view.current_block.kind == "result"
        assert view.current_block.event_index == match.event
        row, _ = view.document.current_match
        assert "wombat" in _row_text(view, row).lower()
        bar = screen.query_one(FindBar)
        assert "match" in str(bar.query_one("#find-status").render())
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is search)
        assert search.hits and search.hits[0].path == path  # the results are still there


async def test_tools_can_be_left_out_of_the_results(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    session_file(folder / "a.jsonl", ("ask about the quagga", "ok", "quagga in a tool result"))
    app = make_app(folder)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, SearchScreen))
        search = app.screen
        await pilot.press(*"quagga")
        await wait_for(pilot, lambda: len(search.hits) == 2)
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: len(search.hits) == 1)
        assert search.hits[0].kind == "prompt"
        assert "tools left out" in str(search.query_one("#search-count").render())


async def test_find_bar_steps_across_turns_and_wraps_around() -> None:
    app = make_app(PI, open_first=PI)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await _session(pilot, app)
        turns = screen.query_one(TurnList)
        await pilot.press("slash", *"npm error")
        await wait_for(pilot, lambda: len(screen.finder) > 0)
        await settle(pilot, app)
        total = len(screen.finder)
        assert total > 3
        turn_numbers = {m.turn for m in screen.finder.matches}
        assert len(turn_numbers) > 1
        bar = screen.query_one(FindBar)
        assert str(bar.query_one("#find-status").render()) == f"match 1 of {total}"
        first = screen.finder.current
        assert turns.current.number == first.turn
        await pilot.press("escape")  # leaves the box; the bar and matches stay
        assert isinstance(screen.focused, EventView)
        await pilot.press("n")
        assert screen.finder.index == 1
        assert str(bar.query_one("#find-status").render()) == f"match 2 of {total}"
        # step to the first match of another turn: the turn list follows
        other = next(i for i, m in enumerate(screen.finder.matches) if m.turn != first.turn)
        for _ in range(other - 1):
            await pilot.press("n")
        assert turns.current.number == screen.finder.matches[other].turn != first.turn
        view = screen.query_one(EventView)
        row, _ = view.document.current_match
        assert "error" in _row_text(view, row).lower()
        # back to the first, then once more: wraps to the last, and says so
        for _ in range(other):
            await pilot.press("N")
        assert screen.finder.index == 0
        await pilot.press("N")
        await settle(pilot, app)
        assert screen.finder.index == total - 1
        assert "wrapped" in str(bar.query_one("#find-status").render())
        assert any("wrapped" in n.message for n in app._notifications)


async def test_n_moves_blocks_when_nothing_is_found() -> None:
    app = make_app(PI, open_first=PI)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await _session(pilot, app)
        view = screen.query_one(EventView)
        view.focus()
        before = view.document.current
        await pilot.press("n")
        assert view.document.current == before + 1
        assert not screen.finder.matches


async def test_find_in_a_ten_megabyte_result(tmp_path: Path) -> None:
    path = big_result_session(tmp_path / "big.jsonl")
    app = make_app(path, open_first=path)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await _session(pilot, app)
        await pilot.press("slash", *"ERROR boom", "enter")
        await wait_for(pilot, lambda: len(screen.finder) == 30)
        view = screen.query_one(EventView)
        seen = []
        for _ in range(3):
            row, _ = view.document.current_match
            assert "ERROR boom" in _row_text(view, row)
            assert view.scroll_offset.y <= row < view.scroll_offset.y + view.size.height
            seen.append(row)
            await pilot.press("enter")  # Enter in the box: the next match
            await settle(pilot, app)
        assert seen == sorted(seen) and len(set(seen)) == 3


async def test_search_works_on_the_demo_sessions() -> None:
    app = KlipuiApp(Sources(demo=True), now=1_800_000_000.0)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, SearchScreen))
        search = app.screen
        await pilot.press(*"ROUND_HALF_EVEN")
        await wait_for(pilot, lambda: len({h.agent for h in search.hits}) >= 4)
        assert all(h.kind == "result" for h in search.hits)
