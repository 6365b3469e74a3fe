"""Pilot tests of the rough edges a new user hit (issue 15): toasts, keys, layout."""

from __future__ import annotations

from pathlib import Path

from app_support import SAMPLES, make_app, settle, tool_result_session, wait_for
from rich.style import Style
from textual.widgets import Input

from klipui.screens.session import SessionScreen
from klipui.screens.shrink import LINE_CAP, ShrinkScreen, app_wording
from klipui.session.marks import TurnMark
from klipui.widgets.event_view import EventView
from klipui.widgets.line_view import LineView
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
        marked = [n for n, m in turns.marks.items() if TurnMark.COMPACTION in m]
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


async def _shrink_pane(pilot, app) -> ShrinkScreen:
    screen = await _open(pilot, app)
    view = screen.query_one(EventView)
    await wait_for(pilot, lambda: view.document is not None)
    await pilot.press("s")
    await settle(pilot, app)
    pane = app.screen
    assert isinstance(pane, ShrinkScreen)
    await wait_for(pilot, lambda: pane.state.shrunk is not None)
    return pane


def _rows(view: LineView) -> list[str]:
    width = view.text_width
    return [
        "".join(s.text for s in view.source.render_row(row, width, Style()))
        for row in range(view.source.row_count(width))
    ]


async def test_shrink_pane_long_lines_end_in_an_ellipsis_and_pan(tmp_path: Path) -> None:
    lines = [f"row {i} " + "abcdefghij" * 30 + f" END{i}" for i in range(60)]
    path = tool_result_session(tmp_path / "long.jsonl", "\n".join(lines), command="cat x")
    app = make_app(path, open_first=path)
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await _shrink_pane(pilot, app)
        left = pane.query_one("#shrink-left", LineView)
        right = pane.query_one("#shrink-right", LineView)
        long_rows = [r for r in _rows(right) if "row " in r]
        assert long_rows and all(r.rstrip().endswith("…") for r in long_rows)
        await pilot.press("right")
        await pilot.pause()
        assert pane.column == 20
        assert "from column 21" in str(pane.query_one("#shrink-head").render())
        panned = [r for r in _rows(left) if "│…" in r]
        assert panned and all("row " not in r for r in panned)
        await pilot.press("left")
        await pilot.pause()
        assert pane.column == 0 and any("row 0 " in r for r in _rows(right))


async def test_shrink_pane_says_why_a_bigger_budget_changes_nothing(tmp_path: Path) -> None:
    path = tool_result_session(tmp_path / "small.jsonl", "ok\n" * 20, command="true")
    app = make_app(path, open_first=path)
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await _shrink_pane(pilot, app)
        before = pane.state.shrunk
        await pilot.press("plus")
        await wait_for(pilot, lambda: pane.state.shrunk is not before)
        await pilot.pause()
        assert "fits the budget" in _messages(app)[-1]


async def test_shrink_pane_line_cap_names_the_cap_and_the_note_names_the_key(
    tmp_path: Path,
) -> None:
    text = "short\n" + "x" * 60_000 + "\nshort again\n"
    path = tool_result_session(tmp_path / "wide.jsonl", text, command="cat x")
    app = make_app(path, open_first=path)
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await _shrink_pane(pilot, app)
        head = str(pane.query_one("#shrink-head").render())
        assert "line cap off" in head
        assert "--" not in head
        first = pane.state.shrunk
        await pilot.press("l")
        await wait_for(pilot, lambda: pane.state.shrunk is not first)
        assert f"line cap {LINE_CAP:,} chars" in str(pane.query_one("#shrink-head").render())
        assert f"{LINE_CAP:,} characters" in _messages(app)[-1]


def test_engine_advice_is_worded_with_the_pane_key() -> None:
    note = "lines are kept whole unless a line cap is set: set max_line_chars (--max-line-chars)"
    assert app_wording(note).endswith("set the line cap (l)")


async def test_shrink_pane_query_feeds_the_semantic_reducer(tmp_path: Path) -> None:
    blocks = [
        f"section {i}\n" + "\n".join(f"filler line {i}.{j}" for j in range(30)) for i in range(40)
    ]
    blocks[17] = "section 17\n" + "\n".join("the payment webhook failed" for _ in range(5))
    path = tool_result_session(tmp_path / "q.jsonl", "\n".join(blocks), command="cat log")
    app = make_app(path, open_first=path)
    async with app.run_test(size=(120, 36)) as pilot:
        pane = await _shrink_pane(pilot, app)
        await pilot.press("slash")
        await pilot.pause()
        assert isinstance(app.focused, Input)
        await pilot.press(*"payment webhook", "enter")
        await wait_for(pilot, lambda: pane.state.reducer == "semantic")
        await settle(pilot, app)
        await wait_for(pilot, lambda: pane.state.shrunk.strategy == "semantic")
        assert pane.hint.query == "payment webhook"
        assert "payment webhook failed" in pane.state.shrunk.content
        assert "query 'payment webhook'" in str(pane.query_one("#shrink-head").render())


async def test_a_offers_inline_sidechains_when_there_is_no_subagent_file(tmp_path: Path) -> None:
    from klipui.screens.pick import PickScreen

    path = tmp_path / "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
    path.write_bytes((SAMPLES / "claude-code/ccv_5c0375b4_task_sidechain.jsonl").read_bytes())
    app = make_app(path, open_first=path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _open(pilot, app)
        turns = screen.query_one(TurnList)
        await wait_for(pilot, lambda: bool(turns.marks))
        inline = [
            t.number for t in turns.turns if TurnMark.SIDECHAIN in turns.marks.get(t.number, ())
        ]
        assert inline and not screen.session.subagents
        await pilot.press("A")
        await pilot.pause()
        pick = app.screen
        assert isinstance(pick, PickScreen)
        labels = [label for label, _ in pick.options]
        assert labels == [f"turn {n}, inline ⑂ · {turns.turns[n - 1].prompt}" for n in inline]
        await pilot.press("end", "enter")
        await pilot.pause()
        assert app.screen is screen and turns.current.number == inline[-1]


def _footer_fits(app) -> bool:
    from textual.widgets import Footer
    from textual.widgets._footer import FooterKey

    footer = app.screen.query_one(Footer)
    keys = [key for key in footer.query(FooterKey) if key.display]
    return bool(keys) and max(key.region.right for key in keys) <= footer.region.right


async def test_every_footer_fits_at_80_columns(tmp_path: Path) -> None:
    lines = [f"line {i} " + "x" * 50 for i in range(400)]
    path = tool_result_session(tmp_path / "t.jsonl", "\n".join(lines))
    app = make_app(path, open_first=path)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(pilot, app)
        assert _footer_fits(app)
        screen.query_one(EventView).focus()
        await pilot.pause()
        assert _footer_fits(app)
        await pilot.press("s")
        await settle(pilot, app)
        assert isinstance(app.screen, ShrinkScreen)
        await pilot.pause()
        assert _footer_fits(app)
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert app.screen is screen
        screen.query_one(TurnList).focus()
        await pilot.press("space", "w")
        await settle(pilot, app)
        await pilot.pause()
        assert _footer_fits(app)
        await pilot.press("escape", "q")
        await settle(pilot, app)
        await pilot.pause()
        assert _footer_fits(app)


async def test_session_header_fits_and_names_the_session_as_the_list_does(tmp_path: Path) -> None:
    name = "rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl"
    path = tmp_path / name
    path.write_bytes((SAMPLES / "codex" / name).read_bytes())
    for width in (80, 120, 160):
        app = make_app(path, open_first=path)
        async with app.run_test(size=(width, 30)) as pilot:
            screen = await _open(pilot, app)
            text = str(screen.query_one("#session-info").render()).rstrip()
            prompt = screen.session.turns[0].prompt
            assert name not in text and text.startswith(prompt[:10])
            assert len(text) <= width - 2 and text.endswith(" kB"), text


async def test_sessions_table_fits_beside_its_scrollbar_at_80_columns() -> None:
    from klipui.screens.sessions import SessionsScreen, SessionTable

    app = make_app(SAMPLES)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        await wait_for(pilot, lambda: not screen.discovering)
        await settle(pilot, app)
        table = screen.query_one(SessionTable)
        assert table.row_count > 20  # the vertical scrollbar is shown
        room = table.scrollable_content_region.width
        assert room - 2 <= table.virtual_size.width <= room  # the title takes what is left
        sizes = [str(table.get_row_at(i)[-1]) for i in range(table.row_count)]
        assert all(s.endswith(("B", "kB", "MB")) for s in sizes)
        titles = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        assert max(len(t) for t in titles) >= 18


async def test_every_page_down_counts_when_keys_come_at_once(tmp_path: Path) -> None:
    lines = [f"line {i}" for i in range(20_000)]
    path = tool_result_session(tmp_path / "long.jsonl", "\n".join(lines))
    app = make_app(path, open_first=path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _open(pilot, app)
        view = screen.query_one(EventView)
        await wait_for(pilot, lambda: view.document is not None)
        view.focus()
        await pilot.pause()
        page = view.scrollable_content_region.height
        assert view.max_scroll_y > 60 * page
        for _ in range(50):  # fifty presses handled before any refresh
            view.action_page_down()
        assert view.scroll_y == 50 * page
        for _ in range(20):
            view.action_page_up()
        for _ in range(5):
            view.action_scroll_down()
        await pilot.pause()
        assert view.scroll_y == 30 * page + 5


async def test_theme_chosen_is_the_theme_next_time(sealed_home: Path) -> None:
    app = make_app(MULTI, open_first=MULTI)
    async with app.run_test(size=(100, 30)) as pilot:
        await _open(pilot, app)
        app.theme = "nord"
        await pilot.pause()
    saved = sealed_home / ".config/klipui/ui.json"
    assert '"nord"' in saved.read_text(encoding="utf-8")
    again = make_app(MULTI, open_first=MULTI)
    async with again.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert again.theme == "nord"


async def test_y_copies_the_focused_block_without_escape_sequences(tmp_path: Path) -> None:
    hostile = "ok \x1b[31mred\x1b[0m done\x1b]52;c;ZXZpbA==\x07 end"
    path = tool_result_session(tmp_path / "t.jsonl", hostile)
    app = make_app(path, open_first=path)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _open(pilot, app)
        view = screen.query_one(EventView)
        await wait_for(pilot, lambda: view.document is not None)
        view.focus()
        await pilot.press("right_square_bracket")  # the tool result
        assert view.current_block.kind == "result"
        await pilot.press("y")
        await pilot.pause()
        assert "\x1b" not in app.clipboard and "\x07" not in app.clipboard
        assert app.clipboard.startswith("ok ") and "red" in app.clipboard
        assert app.clipboard.endswith("end")
        assert _messages(app)[-1].startswith("Copied the tool result:")
        await pilot.press("left_curly_bracket")  # the call: its arguments
        await pilot.press("y")
        await pilot.pause()
        assert '"command": "pytest -v"' in app.clipboard
