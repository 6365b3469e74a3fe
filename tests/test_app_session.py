"""Pilot tests of the session screen: turn list, selection keys, interval bar, event view."""

from __future__ import annotations

import json
from pathlib import Path

from app_support import SAMPLES, big_result_session, make_app, settle, wait_for

from klipui.screens.session import SessionScreen
from klipui.session.marks import TurnMark
from klipui.widgets.event_view import EventView
from klipui.widgets.interval_bar import IntervalBar
from klipui.widgets.turn_list import TurnList

PI = SAMPLES / "pi" / "pi_before-compaction_v1.jsonl"  # 55 turns, compaction, 51 KB result


async def _open(pilot, app, path: Path) -> SessionScreen:
    await settle(pilot, app)
    screen = app.screen
    assert isinstance(screen, SessionScreen)
    await wait_for(pilot, lambda: screen.session is not None)
    await settle(pilot, app)
    return screen


async def test_selection_keys() -> None:
    app = make_app(PI, open_first=PI)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _open(pilot, app, PI)
        turns = screen.query_one(TurnList)
        assert len(turns.turns) == 55
        await pilot.press("down", "space")
        assert turns.selected == {2}
        await pilot.press("shift+down", "shift+down")
        assert turns.selected == {2, 3, 4}
        await pilot.press("shift+up")
        assert turns.selected == {2, 3}
        await pilot.press("space")  # toggles the cursor turn (3) off
        assert turns.selected == {2}
        await pilot.press("i")
        assert turns.selected == set(range(1, 56)) - {2}
        await pilot.press("a")
        assert turns.selected == set(range(1, 56))
        await pilot.press("escape")
        assert turns.selected == set()
        await pilot.pause()
        assert "selected" not in str(screen.query_one("#session-info").render())


async def test_interval_bar_valid_invalid_and_warnings() -> None:
    app = make_app(PI, open_first=PI)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _open(pilot, app, PI)
        turns = screen.query_one(TurnList)
        bar = screen.query_one(IntervalBar)
        await pilot.press("space", "down", "space", "down", "space", "end", "space")
        assert turns.selected == {1, 2, 3, 55}
        await pilot.press("colon")
        await pilot.pause()
        assert bar.has_class("-open")
        assert bar.input.value == "1..3, 55"  # the selection in canonical form
        # typing re-selects live
        await pilot.press(*["backspace"] * len(bar.input.value), *"10..12, -1")
        await pilot.pause()
        assert bar.input.value == "10..12, -1"
        assert turns.selected == {10, 11, 12, 55}
        assert bar.error is None
        # an error shows a caret under its column and keeps the last valid selection ("1..")
        await pilot.press(*["backspace"] * len(bar.input.value), *"1..x")
        await pilot.pause()
        assert bar.error is not None and bar.error.column == 4
        error_text = str(bar.query_one("#interval-error").render())
        caret_line = error_text.splitlines()[0]
        # the caret stands under the offending character of the input, on screen
        error_box = bar.query_one("#interval-error")
        caret_x = error_box.content_region.x + caret_line.index("^")
        assert caret_x == bar.input.content_region.x + bar.error.column - 1
        assert bar.input.value[bar.error.column - 1] == "x"
        assert "expected" in error_text
        assert turns.selected == set(range(1, 56))
        # a clause that selects nothing warns
        await pilot.press(*["backspace"] * len(bar.input.value), *"5..2")
        await pilot.pause()
        assert bar.error is None
        assert any("5..2" in w for w in bar.warnings), bar.warnings
        assert "5..2" in str(bar.query_one("#interval-warnings").render())
        assert turns.selected == set()
        # Escape restores what was selected before the bar opened
        await pilot.press("escape")
        await pilot.pause()
        assert not bar.has_class("-open")
        assert turns.selected == {1, 2, 3, 55}
        assert app.focused is turns
        # Enter keeps a typed selection
        await pilot.press("colon", *["backspace"] * 20, *".., not 2..54", "enter")
        await pilot.pause()
        assert turns.selected == {1, 55}


async def test_event_view_shows_the_turn_under_the_cursor() -> None:
    app = make_app(PI, open_first=PI)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await _open(pilot, app, PI)
        view = screen.query_one(EventView)
        await wait_for(pilot, lambda: view.document is not None)
        kinds = [b.kind for b in view.document.blocks]
        assert kinds[0] == "prompt"
        assert "call" in kinds and "result" in kinds
        thinking = [b for b in view.document.blocks if b.kind == "thinking"]
        assert all(b.collapsed for b in thinking)
        first = view.document
        await pilot.press("down")
        await wait_for(pilot, lambda: view.document is not first)
        turn = screen.session.turns[1]
        assert view.document.blocks[0].event_index >= turn.start
        assert all(turn.start <= b.event_index < turn.end for b in view.document.blocks)


async def test_event_view_blocks_navigation_and_folding() -> None:
    app = make_app(PI, open_first=PI)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await _open(pilot, app, PI)
        view = screen.query_one(EventView)
        await wait_for(pilot, lambda: view.document is not None)
        await pilot.press("tab")
        assert app.focused is view
        await pilot.press("right_square_bracket")
        assert view.current_block is not None and view.current_block.kind in ("result", "error")
        rows = view.virtual_size.height
        await pilot.press("enter")  # fold the result
        await pilot.pause()
        assert view.current_block.collapsed
        assert view.virtual_size.height < rows
        await pilot.press("right_curly_bracket", "left_curly_bracket")
        assert view.current_block.kind in ("result", "error")


async def test_compaction_turn_is_marked_and_reachable() -> None:
    app = make_app(PI, open_first=PI)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _open(pilot, app, PI)
        turns = screen.query_one(TurnList)
        await wait_for(pilot, lambda: bool(turns.marks))
        marked = [n for n, m in turns.marks.items() if TurnMark.COMPACTION in m]
        assert marked
        await pilot.press("c")
        assert turns.current.number == marked[0]
        view = screen.query_one(EventView)
        await wait_for(
            pilot,
            lambda: (
                view.document is not None
                and any(b.kind == "compaction" for b in view.document.blocks)
            ),
        )


async def test_ten_megabyte_result_is_drawn_lazily(tmp_path: Path) -> None:
    path = big_result_session(tmp_path / "big.jsonl")
    assert path.stat().st_size > 10_000_000
    app = make_app(path, open_first=path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _open(pilot, app, path)
        view = screen.query_one(EventView)
        await wait_for(pilot, lambda: view.document is not None)
        assert view.virtual_size.height > 150_000
        await pilot.press("tab", "right_square_bracket")
        for _ in range(30):
            await pilot.press("pagedown")
        await pilot.press("end")
        await pilot.pause()
        assert view.scroll_offset.y > 1_000
        # rows are drawn as they come into view: a small fraction of the 150,000
        assert view._cache.misses < 15_000


async def test_help_is_per_context_and_palette_lists_every_action() -> None:
    from klipui.app import context_actions
    from klipui.screens.help import HelpScreen

    app = make_app(PI, open_first=PI)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _open(pilot, app, PI)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = app.screen._text
        assert text.index("## Turns") < text.index("## Session screen")  # focused context first
        assert "Extend" in text and "Interval" in text
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        titles = {title for title, *_ in context_actions(screen)}
        for group, widget in (("Turns", TurnList), ("Session screen", SessionScreen)):
            for binding in widget.BINDINGS:
                movement = binding.action.startswith(("move(", "page(", "jump("))
                assert (f"{group}: {binding.description}" in titles) != movement
        commands = [c.title for c in app.get_system_commands(screen)]
        assert "Session screen: Clip" in commands and "Turns: Invert" in commands
        await pilot.press("tab")  # the event view's actions join the palette when it has focus
        commands = [c.title for c in app.get_system_commands(screen)]
        assert "Events: Fold" in commands
        assert not any("Scroll" in c or "Page" in c for c in commands)  # movement stays out


async def test_sub_agent_files_open_from_the_session(tmp_path: Path) -> None:
    import shutil

    from klipui.screens.pick import PickScreen

    parent = tmp_path / "11111111-2222-4333-8444-555555555555.jsonl"
    shutil.copyfile(SAMPLES / "claude-code" / "cct_sample_session.jsonl", parent)
    agents = tmp_path / parent.stem / "subagents"
    agents.mkdir(parents=True)
    child = agents / "agent-showcol1.jsonl"
    shutil.copyfile(SAMPLES / "claude-code" / "ccl_subagents_agent-showcol1.jsonl", child)
    app = make_app(parent, open_first=parent)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _open(pilot, app, parent)
        assert screen.session.subagents == [child]
        assert "1 sub-agent (A)" in str(screen.query_one("#session-info").render())
        await pilot.press("A")
        await pilot.pause()
        assert isinstance(app.screen, PickScreen)
        await pilot.press("enter")
        await settle(pilot, app)
        opened = app.screen
        assert isinstance(opened, SessionScreen) and opened.path == child
        await wait_for(pilot, lambda: opened.session is not None)
        await pilot.press("q")
        await pilot.pause()
        assert app.screen is screen


async def test_sidechain_turns_are_marked_and_reachable() -> None:
    path = SAMPLES / "claude-code" / "ccv_fe5e1c67_sidechains_summary_errors.jsonl"
    app = make_app(path, open_first=path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _open(pilot, app, path)
        turns = screen.query_one(TurnList)
        await wait_for(pilot, lambda: bool(turns.marks))
        marked = sorted(n for n, m in turns.marks.items() if TurnMark.SIDECHAIN in m)
        assert marked
        await pilot.press("d")
        await pilot.pause()
        assert TurnMark.SIDECHAIN in turns.marks[turns.current.number]
        view = screen.query_one(EventView)
        await wait_for(
            pilot,
            lambda: view.document is not None and any(b.sidechain for b in view.document.blocks),
        )


async def test_a_file_that_cannot_be_opened_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "garbage.jsonl"
    path.write_text("not a session\n", encoding="utf-8")
    app = make_app(path, open_first=path)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        await wait_for(pilot, lambda: "⚠" in str(screen.query_one("#session-info").render()))
        assert "garbage.jsonl" in str(screen.query_one("#session-info").render())
        assert screen.session is None
        await pilot.press("w", "s", "colon")  # nothing to act on: no crash
        await pilot.press("q")
        await settle(pilot, app)
        assert not isinstance(app.screen, SessionScreen)


async def test_next_error_goes_to_the_failed_result() -> None:
    app = make_app(PI, open_first=PI)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _open(pilot, app, PI)
        turns = screen.query_one(TurnList)
        view = screen.query_one(EventView)
        await pilot.press("x")
        await pilot.pause()
        assert turns.current.errors
        assert view.current_block is not None and view.current_block.kind == "error"
        first = (turns.current.number, view.document.current)
        await pilot.press("x")  # the next failure: later in the turn, or in a later turn
        await pilot.pause()
        assert view.current_block.kind == "error"
        assert (turns.current.number, view.document.current) != first


async def test_big_file_shows_its_head_first_then_the_whole(tmp_path: Path) -> None:
    import klipui.screens.session as session_module

    path = tmp_path / "many.jsonl"
    rows = []
    for turn in range(3000):
        rows.append(json.dumps({"role": "user", "content": f"prompt {turn} {'x' * 3000}"}))
        rows.append(json.dumps({"role": "assistant", "content": f"answer {turn}"}))
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert path.stat().st_size > session_module.PREVIEW_FROM
    head = session_module.open_head(path)
    assert head is not None and 1 < len(head.turns) < 3000
    assert [t.prompt for t in head.turns[:2]] == [
        r.prompt for r in session_module._open(path).turns[:2]
    ]
    app = make_app(path, open_first=path)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: getattr(app.screen, "session", None) is not None)
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        await wait_for(pilot, lambda: not screen.partial)
        await settle(pilot, app)
        assert len(screen.query_one(TurnList).turns) == 3000
        assert "reading the rest" not in str(screen.query_one("#session-info").render())
        await pilot.press("a", "w")  # clipping needs the whole file, which is now there
        await settle(pilot, app)
        assert type(app.screen).__name__ == "ClipScreen"


async def test_rewound_branch_is_marked_and_shown_folded() -> None:
    path = SAMPLES / "claude-code" / "ccl_dag_compact_after_rewind.jsonl"
    app = make_app(path, open_first=path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _open(pilot, app, path)
        turns = screen.query_one(TurnList)
        await wait_for(pilot, lambda: bool(turns.marks))
        assert TurnMark.BRANCH in turns.marks.get(1, ())
        view = screen.query_one(EventView)
        await wait_for(pilot, lambda: view.document is not None)
        branches = [b for b in view.document.blocks if b.kind == "branch"]
        assert branches and all(b.collapsed for b in branches)
        assert "rewound branch" in branches[0].header.plain


def _note(view: EventView) -> str:
    """The header and sentence of the note ending the turn ("" when there is none)."""
    block = view.document.blocks[-1]
    if block.kind != "ending":
        return ""
    width = 60
    body = "".join(
        s.text for row in range(block.body.rows(width)) for s in block.body.render(row, width)
    )
    return f"{block.header.plain} {body}"


async def test_unfinished_turns_say_how_they_ended_and_what_a_clip_does() -> None:
    """⊘ for a turn that ended without completing (its reason in the events header, kept by a
    clip); … only for the never-ended last turn (left out of a clip by default)."""
    from klipui.screens.help import help_markdown

    path = SAMPLES / "claude-code" / "ccl_edge_cases.jsonl"
    app = make_app(path, open_first=path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _open(pilot, app, path)
        turns = screen.query_one(TurnList)
        view = screen.query_one(EventView)
        count = len(turns.turns)
        interrupted = [n for n, how in sorted(turns.endings.items()) if how == "interrupted"]
        assert interrupted and count not in interrupted
        assert turns.endings[count] == "left open"
        assert all(t.completed for t in turns.turns if t.number not in turns.endings)
        width = turns.scrollable_content_region.width
        for turn in turns.turns:
            row = "".join(s.text for s in turns._row(turn, False, width))
            assert ("⊘" in row) == (turn.number in interrupted)
            assert ("…" in row[-4:]) == (turn.number == count)
        await pilot.press(*["down"] * (interrupted[0] - 1))
        await wait_for(pilot, lambda: view.document.blocks[-1].kind == "ending")
        assert view.document.blocks[0].kind == "prompt"
        note = _note(view)
        assert "ended: interrupted" in note and "A clip keeps it" in note
        assert "drop" not in note and "leaves it out" not in note
        assert view.document.blocks[view.document.current].kind != "ending"
        await pilot.press("end")
        await wait_for(pilot, lambda: "never ended" in _note(view))
        assert "leaves it out unless you include it" in _note(view)
        await pilot.press("home")
        await wait_for(pilot, lambda: view.document.blocks[-1].kind != "ending")
        legend = help_markdown(screen, turns)
        for word in ("aborted", "interrupted", "error", "max-tokens", "a clip keeps it"):
            assert word in legend
