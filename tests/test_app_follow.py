"""Pilot tests of following a live session and continuing it in its agent."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from app_support import FIXED_NOW, make_app, settle, wait_for
from conftest import AGENT_WRITTEN

from klipui.screens.session import SessionScreen
from klipui.session.resume import project_key
from klipui.widgets.event_view import EventView
from klipui.widgets.turn_list import TurnList

SOURCE = AGENT_WRITTEN / "claude_10turns_compact6.jsonl"
LINES = SOURCE.read_bytes().splitlines(keepends=True)
CLAUDE_ID = "95104dc0-2d86-419e-9b9e-b56a05e21645"


def _grow(path: Path, lines: list[bytes]) -> None:
    with path.open("ab") as out:
        out.write(b"".join(lines))


def _info(screen: SessionScreen) -> str:
    return str(screen.query_one("#session-info").render())


def _notes(app) -> list[str]:
    return [note.message for note in app._notifications]


async def _open(pilot, app) -> SessionScreen:
    await settle(pilot, app)
    screen = app.screen
    assert isinstance(screen, SessionScreen)
    await wait_for(pilot, lambda: screen.session is not None and screen.follower is not None)
    return screen


async def test_new_turns_appear_and_are_counted_when_out_of_view(tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    path.write_bytes(b"".join(LINES[:12]))
    app = make_app(path, open_first=path)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await _open(pilot, app)
        turns = screen.query_one(TurnList)
        assert len(turns.turns) == 1
        assert "LIVE" not in _info(screen)  # written long before the app's "now"
        assert screen.check_action("toggle_follow", ()) is False  # f is not offered
        await pilot.press("space")  # a selection that must survive the update
        _grow(path, LINES[12:40])
        await wait_for(pilot, lambda: len(turns.turns) > 1)
        assert len(turns.turns) == len(screen.session.turns) >= 4
        assert turns.cursor == 0 and turns.selected == {1}  # the user's place is kept
        await wait_for(pilot, lambda: "new event" in _info(screen))
        assert "LIVE" in _info(screen)


async def test_f_follows_the_newest_event_until_the_user_moves_away(tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    path.write_bytes(b"".join(LINES[:12]))
    os.utime(path, (FIXED_NOW - 10, FIXED_NOW - 10))  # written 10 s before the app's "now"
    app = make_app(path, open_first=path)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await _open(pilot, app)
        turns = screen.query_one(TurnList)
        view = screen.query_one(EventView)
        assert "LIVE" in _info(screen)
        assert screen.check_action("toggle_follow", ()) is True  # f is offered
        await pilot.press("f")
        assert screen.following
        _grow(path, LINES[12:40])
        await wait_for(pilot, lambda: len(turns.turns) >= 4)
        await pilot.pause()
        assert turns.cursor == len(turns.turns) - 1  # jumped to the newest turn
        assert view.at_end
        assert "following" in _info(screen)
        await pilot.press("home")  # away from the end: no more jumping
        count = len(turns.turns)
        _grow(path, LINES[40:70])
        await wait_for(pilot, lambda: len(turns.turns) > count)
        assert turns.cursor == 0
        await wait_for(pilot, lambda: "new event" in _info(screen))
        await pilot.press("end")  # back at the newest turn: the count is cleared
        await pilot.pause()
        assert "new event" not in _info(screen)


async def test_a_truncated_file_is_read_again_with_a_notice(tmp_path: Path) -> None:
    path = tmp_path / "live.jsonl"
    path.write_bytes(b"".join(LINES[:70]))
    app = make_app(path, open_first=path)
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        screen = await _open(pilot, app)
        turns = screen.query_one(TurnList)
        await pilot.press("down")
        before = len(turns.turns)
        path.write_bytes(b"".join(LINES[:30]))
        await wait_for(pilot, lambda: len(turns.turns) < before)
        assert turns.cursor == 1  # still on the second turn, which still exists
        await wait_for(pilot, lambda: any("shorter" in n for n in _notes(app)))


async def test_a_partial_last_line_is_not_reported_while_it_grows(
    tmp_path: Path, monkeypatch
) -> None:
    import klipui.session.follow as follow

    monkeypatch.setattr(follow, "SETTLE", 600.0)  # a slow machine must not see the line settle
    path = tmp_path / "live.jsonl"
    path.write_bytes(b"".join(LINES[:12]) + LINES[12][:30])
    app = make_app(path, open_first=path)
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        screen = await _open(pilot, app)
        assert not any("truncated" in n for n in _notes(app))
        _grow(path, [LINES[12][30:], *LINES[13:30]])
        turns = screen.query_one(TurnList)
        await wait_for(pilot, lambda: len(turns.turns) > 1)
        assert not any("truncated" in n for n in _notes(app))


def _installed_claude(tmp_path: Path) -> tuple[Path, Path]:
    """The Claude Code session where Claude Code keeps it, its project folder existing."""
    project = tmp_path / "proj"
    project.mkdir()
    text = SOURCE.read_text().replace("/tmp/agents_ws/claude-ten/proj", str(project))
    folder = tmp_path / "home" / ".claude" / "projects" / project_key(str(project))
    folder.mkdir(parents=True)
    path = folder / f"{CLAUDE_ID}.jsonl"
    path.write_text(text)
    return path, project


async def test_y_copies_the_exact_resume_command(tmp_path: Path) -> None:
    path, project = _installed_claude(tmp_path)
    app = make_app(path, open_first=path)
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await _open(pilot, app)
        await pilot.press("Y")
        assert app.clipboard == f"cd {project} && claude --resume {CLAUDE_ID}"
        assert any(app.clipboard in n for n in _notes(app))


async def test_c_names_a_missing_cli_and_shows_the_command(tmp_path: Path, monkeypatch) -> None:
    path, _ = _installed_claude(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    app = make_app(path, open_first=path)
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await _open(pilot, app)
        await pilot.press("C")
        (note,) = [n for n in _notes(app) if "PATH" in n]
        assert "`claude`" in note and f"claude --resume {CLAUDE_ID}" in note


async def test_c_runs_the_agent_in_the_project_folder_and_comes_back(
    tmp_path: Path, monkeypatch
) -> None:
    path, project = _installed_claude(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "ran.txt"
    fake = bin_dir / "claude"
    fake.write_text(f'#!/bin/sh\necho "$PWD $*" > {record}\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    app = make_app(path, open_first=path)
    suspended: list[bool] = []

    @contextlib.contextmanager
    def suspend():
        suspended.append(True)
        yield

    monkeypatch.setattr(app, "suspend", suspend)
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await _open(pilot, app)
        await pilot.press("C")
        await pilot.pause()
        assert suspended == [True]
        assert record.read_text().split() == [str(project), "--resume", CLAUDE_ID]
        assert any("back in klipui" in n for n in _notes(app))
        assert isinstance(app.screen, SessionScreen)


async def test_c_refuses_a_session_of_no_agent_with_the_reason(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text('{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "yo"}\n')
    app = make_app(path, open_first=path)
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        await _open(pilot, app)
        await pilot.press("C")
        assert any("no agent" in n for n in _notes(app))


async def test_the_sessions_list_updates_grown_rows_and_adds_new_sessions(tmp_path: Path) -> None:
    from klipui.screens.sessions import SessionsScreen, SessionTable

    folder = tmp_path / "sessions"
    folder.mkdir()
    grown = folder / "live.jsonl"
    grown.write_bytes(b"".join(LINES[:12]))
    pi = folder / "pi.jsonl"
    pi.write_bytes((AGENT_WRITTEN / "pi_10turns.jsonl").read_bytes())
    app = make_app(folder)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, SessionsScreen)
        table = screen.query_one(SessionTable)
        await pilot.press("slash", *"o", "enter")  # a filter both titles pass ("Turn one", "…")
        needle = screen.needle
        keys = [str(k.value) for k in table.rows]
        table.move_cursor(row=keys.index(str(pi)))
        assert screen.infos[str(grown)].turns == 1
        _grow(grown, LINES[12:40])
        (folder / "new.jsonl").write_bytes(b"".join(LINES[:30]))
        await wait_for(pilot, lambda: screen.infos[str(grown)].turns > 1, timeout=15)
        await wait_for(pilot, lambda: str(folder / "new.jsonl") in screen.infos, timeout=15)
        assert screen.infos[str(grown)].turns == len(open_session_turns(grown))
        assert screen.current_key() == str(pi)  # the cursor stayed on its session
        assert screen.needle == needle


def open_session_turns(path: Path) -> list:
    from klipui.session import open_session

    return open_session(path).turns


async def test_live_ends_when_the_file_stops_growing(tmp_path: Path) -> None:
    import time

    path = tmp_path / "live.jsonl"
    path.write_bytes(b"".join(LINES[:12]))
    app = make_app(path, open_first=path)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await _open(pilot, app)
        _grow(path, LINES[12:20])
        await wait_for(pilot, lambda: "LIVE" in _info(screen))
        assert screen.query_one("#session-info").has_class("-live")
        screen._live_until = time.monotonic()  # as if LIVE_SECONDS had passed without growth
        await wait_for(pilot, lambda: "LIVE" not in _info(screen))
        assert not screen.query_one("#session-info").has_class("-live")
        assert screen.check_action("toggle_follow", ()) is False


async def test_a_dsh_zstd_session_grows_by_frames(tmp_path: Path) -> None:
    import zstandard

    lines = (AGENT_WRITTEN / "dsh_7turns.jsonl").read_bytes().splitlines(keepends=True)
    compressor = zstandard.ZstdCompressor()
    path = tmp_path / "session.jsonl.zstd"
    path.write_bytes(compressor.compress(lines[0]) + compressor.compress(b"".join(lines[1:15])))
    app = make_app(path, open_first=path)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await _open(pilot, app)
        turns = screen.query_one(TurnList)
        before = len(turns.turns)
        _grow(path, [compressor.compress(b"".join(lines[15:]))])
        await wait_for(pilot, lambda: len(turns.turns) > before)
        from klipui.session import open_session

        assert len(turns.turns) == len(open_session(path).turns)


async def test_fork_at_turn_n_then_the_child_resumes_in_its_agent(tmp_path: Path) -> None:
    """`..2` in the interval bar, `w`, `w`: the child opens, and `Y` gives the child's resume."""
    from klipui.screens.clip import ClipScreen

    path, project = _installed_claude(tmp_path)
    app = make_app(path, open_first=path)
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        screen = await _open(pilot, app)
        await pilot.press("colon", *"..2", "enter")
        assert screen.query_one(TurnList).selected == {1, 2}
        await pilot.press("w")  # the clip preview
        await wait_for(pilot, lambda: isinstance(app.screen, ClipScreen) and app.screen.plan)
        plan = app.screen.plan
        await pilot.press("w")
        await wait_for(
            pilot, lambda: isinstance(app.screen, SessionScreen) and app.screen.path == plan.path
        )
        child = app.screen
        await wait_for(pilot, lambda: child.session is not None)
        assert any("C continues it in Claude Code" in n for n in _notes(app))
        await pilot.press("Y")
        assert plan.path.parent == path.parent and plan.path.stem != CLAUDE_ID
        assert app.clipboard == f"cd {project} && claude --resume {plan.path.stem}"


async def test_a_rewritten_file_redraws_the_turn_under_the_cursor(tmp_path: Path) -> None:
    from rich.style import Style

    path = tmp_path / "live.jsonl"
    path.write_bytes(b"".join(LINES[:40]))
    app = make_app(path, open_first=path)
    async with app.run_test(size=(140, 40), notifications=True) as pilot:
        screen = await _open(pilot, app)
        view = screen.query_one(EventView)

        def shown() -> str:
            doc = view.document
            rows = doc.row_count(80)
            return "\n".join(
                "".join(s.text for s in doc.render_row(r, 80, Style())) for r in range(rows)
            )

        assert "Turn one" in shown()
        path.write_bytes(b"".join(LINES[:40]).replace(b"Turn one", b"Turn uno"))
        await wait_for(pilot, lambda: any("rewritten" in n for n in _notes(app)))
        await wait_for(pilot, lambda: "Turn uno" in shown())
        assert "Turn one" not in shown()


async def test_c_without_a_terminal_to_hand_over_shows_the_command(
    tmp_path: Path, monkeypatch
) -> None:
    path, project = _installed_claude(tmp_path)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "ran.txt"
    (bin_dir / "claude").write_text(f"#!/bin/sh\ntouch {record}\n")
    (bin_dir / "claude").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    app = make_app(path, open_first=path)
    async with app.run_test(size=(140, 40), notifications=True) as pilot:  # headless: no suspend
        await _open(pilot, app)
        await pilot.press("C")
        await pilot.pause()
        (note,) = [n for n in _notes(app) if "Run:" in n]
        assert f"cd {project} && claude --resume {CLAUDE_ID}" in note
        assert not record.exists()


async def test_a_bundled_demo_session_is_never_live() -> None:
    """Installed package data has the install time as its file time: a demo session opened
    right after `pip install` must not say LIVE (a new user saw it on the messages demo)."""
    from klipui.app import KlipuiApp, Sources
    from klipui.demo import demo_paths

    path = next(p for p in demo_paths() if "messages" in p.parts)
    app = KlipuiApp(Sources(demo=True), now=path.stat().st_mtime + 5, open_first=path)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await _open(pilot, app)
        await settle(pilot, app)
        assert not screen.live
        assert "LIVE" not in _info(screen)
