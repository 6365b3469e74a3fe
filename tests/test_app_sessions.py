"""Pilot tests of the sessions screen: listing, problems, live filter, sort, grouping, open."""

from __future__ import annotations

from pathlib import Path

from app_support import copy_samples, make_app, settle

from klipui.screens.session import SessionScreen
from klipui.screens.sessions import SessionsScreen, SessionTable

NAMES = [
    "pi/pi_large-session_v1.jsonl",
    "pi/pi_before-compaction_v1.jsonl",
    "dsh/multi-turn.jsonl",
    "dsh/permission-policy-context.jsonl",
    "claude-code/cct_sample_session.jsonl",
    "codex/ccl_synthetic_rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl",
]


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "sessions"
    folder.mkdir()
    copy_samples(folder, NAMES)
    (folder / "broken.jsonl").write_bytes(b"this is not json\n\x00\x01\n")
    return folder


def _titles(screen: SessionsScreen) -> list[str]:
    table = screen.query_one(SessionTable)
    return [str(table.get_row_at(i)[0]).strip() for i in range(table.row_count)]


async def test_every_file_listed_with_exact_figures_and_problems(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    app = make_app(folder)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        assert not screen.discovering
        assert len(screen.infos) == len(NAMES) + 1
        broken = screen.infos[str(folder / "broken.jsonl")]
        assert broken.format is None and broken.problem
        titles = _titles(screen)
        assert any(t.startswith("⚠ broken.jsonl") for t in titles), titles
        pi = screen.infos[str(folder / "pi_large-session_v1.jsonl")]
        assert pi.exact and pi.turns == 88
        # the table shows the exact turn count of that row
        table = screen.query_one(SessionTable)
        row = table.get_row(str(folder / "pi_large-session_v1.jsonl"))
        assert str(row[4]) == "88"


async def test_filter_is_live_and_escape_clears(tmp_path: Path) -> None:
    app = make_app(_folder(tmp_path))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        everything = screen.query_one(SessionTable).row_count
        await pilot.press("slash", *"pi-mono")
        await pilot.pause()
        table = screen.query_one(SessionTable)
        assert table.row_count == 2
        assert all(screen.infos[str(k.value)].project == "pi-mono" for k in table.rows)
        await pilot.press("backspace", *"zzz")
        await pilot.pause()
        assert table.row_count == 0
        await pilot.press("escape")
        await pilot.pause()
        assert table.row_count == everything
        assert screen.needle == ""


async def test_filter_matches_first_prompt(tmp_path: Path) -> None:
    app = make_app(_folder(tmp_path))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        wanted = [i for i in screen.infos.values() if i.first_prompt]
        assert wanted
        word = wanted[0].first_prompt.split()[0]
        await pilot.press("slash", *word)
        await pilot.pause()
        keys = {str(k.value) for k in screen.query_one(SessionTable).rows}
        assert str(wanted[0].path) in keys


async def test_sort_by_column_and_reverse(tmp_path: Path) -> None:
    app = make_app(_folder(tmp_path))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        screen.sort_by("turns")
        await pilot.pause()
        table = screen.query_one(SessionTable)

        def turns() -> list[int]:
            infos = [screen.infos[str(k.value)] for k in table.rows]
            return [i.turns or 0 for i in infos if i.format]

        assert turns() == sorted(turns(), reverse=True)
        await pilot.press("O")
        await pilot.pause()
        assert turns() == sorted(turns())
        await pilot.press("o")  # next column: tokens, largest first
        await pilot.pause()
        tokens = [screen.infos[str(k.value)].tokens or 0 for k in table.rows]
        assert tokens == sorted(tokens, reverse=True)


async def test_typing_a_filter_replaces_rows_and_keeps_the_columns(tmp_path: Path) -> None:
    app = make_app(_folder(tmp_path))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, app)
        table = app.screen.query_one(SessionTable)
        columns = dict(table.columns)
        await pilot.press("slash", *"pi-m")
        await pilot.pause()
        assert table.row_count == 2
        assert table.columns == columns
        assert all(table.columns[key] is column for key, column in columns.items())
        assert sum(column.width for column in columns.values()) <= 120


async def test_a_changed_session_is_drawn_anew_and_the_others_keep_their_cells(
    tmp_path: Path,
) -> None:
    from dataclasses import replace

    app = make_app(_folder(tmp_path))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        table = screen.query_one(SessionTable)
        key = next(str(k.value) for k in table.rows)
        other = [str(k.value) for k in table.rows][1]
        before = table.get_row(other)
        screen.infos[key] = replace(screen.infos[key], turns=4321, title="renamed session")
        screen.refresh_table(keep_cursor=True)
        await pilot.pause()
        row = table.get_row(key)
        assert "renamed session" in row[0].plain and row[4].plain == "4.3k"
        assert [cell.plain for cell in table.get_row(other)] == [c.plain for c in before]
        assert table.get_row(other)[1] is before[1]  # drawn once, not again


async def test_group_by_project(tmp_path: Path) -> None:
    app = make_app(_folder(tmp_path))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, app)
        await pilot.press("g")
        await pilot.pause()
        table = app.screen.query_one(SessionTable)
        groups = [
            table.get_row(key)[0].plain for key in table.rows if str(key.value).startswith("group:")
        ]
        assert "pi-mono · 2" in groups, groups
        await pilot.press("g")
        await pilot.pause()
        assert not any(str(k.value).startswith("group:") for k in table.rows)


async def test_enter_opens_the_session(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    app = make_app(folder)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        screen.sort_by("turns")
        await pilot.pause()
        await pilot.press("enter")
        await settle(pilot, app)
        assert isinstance(app.screen, SessionScreen)
        assert app.screen.session is not None
        assert app.screen.path == folder / "pi_large-session_v1.jsonl"
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, SessionsScreen)


async def test_unreadable_row_does_not_open(tmp_path: Path) -> None:
    folder = _folder(tmp_path)
    app = make_app(folder)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, app)
        table = app.screen.query_one(SessionTable)
        keys = [str(k.value) for k in table.rows]
        table.move_cursor(row=keys.index(str(folder / "broken.jsonl")))
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, SessionsScreen)


async def test_no_sessions_found_falls_back_to_the_demo() -> None:
    from klipui.app import KlipuiApp, Sources
    from klipui.demo import demo_paths

    demo = demo_paths()
    assert demo
    app = KlipuiApp(Sources(), now=1_800_000_000.0)  # the sealed home has no sessions
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        assert {Path(k) for k in screen.infos} == set(demo)
        assert any("demo" in n.message for n in app._notifications)


async def test_demo_flag_lists_the_demo_sessions(tmp_path: Path) -> None:
    from klipui.app import KlipuiApp, resolve_sources
    from klipui.demo import demo_paths

    app = KlipuiApp(resolve_sources([str(tmp_path)], demo=True), now=1_800_000_000.0)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, app)
        assert {Path(k) for k in app.screen.infos} == set(demo_paths())


async def test_table_refits_on_resize_and_home_end(tmp_path: Path) -> None:
    app = make_app(_folder(tmp_path))
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot, app)
        table = app.screen.query_one(SessionTable)
        await pilot.resize_terminal(80, 24)
        await settle(pilot, app)
        widths = sum(c.get_render_width(table) for c in table.columns.values())
        assert widths <= 80  # every column visible again, not only the title
        await pilot.press("end")
        assert table.cursor_row == table.row_count - 1
        await pilot.press("home")
        assert table.cursor_row == 0


def test_title_prefers_the_whole_first_prompt() -> None:
    from klipui.screens.sessions import display_title
    from klipui.session.model import SessionInfo

    cut = SessionInfo(
        Path("a.jsonl"),
        "dsh",
        title="Use the bash tool to",
        first_prompt="Use the bash tool to print the date",
    )
    assert display_title(cut) == "Use the bash tool to print the date"
    own = SessionInfo(
        Path("b.jsonl"), "claude", title="Fix the parser", first_prompt="the parser breaks on tabs"
    )
    assert display_title(own) == "Fix the parser"
    assert display_title(SessionInfo(Path("c.jsonl"), "pi")) == "c.jsonl"
