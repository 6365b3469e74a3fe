"""A big turn's events are built in a worker: the UI says "building…" meanwhile, shows the turn
once built, drops a build that a newer move made stale, and runs what waited for the turn."""

from __future__ import annotations

import gc
import json
from pathlib import Path

from app_support import make_app, settle, wait_for
from textual.pilot import Pilot

from klipui.app import KlipuiApp
from klipui.screens.session import SessionScreen
from klipui.session.model import Session
from klipui.widgets.event_doc import EventDocument
from klipui.widgets.event_view import BUILD_HERE, EventView
from klipui.widgets.turn_list import TurnList


def _messages_session(path: Path, calls: list[int]) -> Path:
    """A generic (Anthropic-shaped) messages file: a turn a number in `calls`, with that many
    tool calls, the last of which fails."""
    rows: list[dict[str, object]] = []
    for turn, count in enumerate(calls, 1):
        rows.append({"role": "user", "content": f"prompt {turn}"})
        for n in range(count):
            call_id = f"c{turn}_{n}"
            use = {"type": "tool_use", "id": call_id, "name": "bash", "input": {"command": "ls"}}
            rows.append({"role": "assistant", "content": [use]})
            result = {
                "type": "tool_result",
                "tool_use_id": call_id,
                "content": "boom" if n == count - 1 else f"ok {n}",
                "is_error": n == count - 1,
            }
            rows.append({"role": "user", "content": [result]})
        rows.append({"role": "assistant", "content": f"done {turn}"})
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


async def test_a_big_turn_is_built_in_a_worker_and_shown_when_ready(tmp_path: Path) -> None:
    path = _messages_session(tmp_path / "big.jsonl", [1, 120, 1])
    app = make_app(tmp_path, open_first=path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        turns = screen.query_one(TurnList)
        view = screen.query_one(EventView)
        big = screen.session.turns[1]
        assert big.end - big.start > BUILD_HERE
        screen.show_turn(2)
        assert view.building  # asked for, not built on the UI thread
        assert view.document is not None and [b.kind for b in view.document.blocks] == ["building"]
        await wait_for(pilot, lambda: not view.building)
        blocks = view.document.blocks
        assert all(big.start <= b.event_index < big.end for b in blocks)
        assert [b.kind for b in blocks].count("call") == 120
        assert [b.kind for b in blocks].count("error") == 1  # the last call failed
        assert turns.cursor == 0  # showing a turn does not move the list


async def test_a_superseded_build_is_never_shown(tmp_path: Path) -> None:
    path = _messages_session(tmp_path / "two.jsonl", [1, 90, 1, 100])
    app = make_app(tmp_path, open_first=path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        view = screen.query_one(EventView)
        installed: list[EventDocument] = []
        install = view._install

        def recorded(document: EventDocument, keep_place: bool) -> None:
            installed.append(document)
            install(document, keep_place)

        view._install = recorded  # type: ignore[method-assign]
        screen.show_turn(2)
        screen.show_turn(4)
        await wait_for(pilot, lambda: not view.building)
        await settle(pilot, app)
        last = screen.session.turns[3]
        assert len(installed) == 1
        assert all(last.start <= b.event_index < last.end for b in installed[0].blocks)
        assert view.document is installed[0]


async def test_next_error_waits_for_the_big_turn(tmp_path: Path) -> None:
    path = _messages_session(tmp_path / "errors.jsonl", [0, 80])
    app = make_app(tmp_path, open_first=path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        view = screen.query_one(EventView)
        turns = screen.query_one(TurnList)
        turns.focus()
        await pilot.press("x")
        await wait_for(pilot, lambda: not view.building and turns.cursor == 1)
        await settle(pilot, app)
        block = view.current_block
        assert block is not None and block.kind == "error"


async def test_a_failed_build_says_so_instead_of_building_forever(
    tmp_path: Path, monkeypatch
) -> None:
    import klipui.widgets.event_view as event_view

    def broken(*args: object, **kwargs: object) -> list[object]:
        raise RecursionError("too deep \x1b]0;pwned\x07[@click=app.quit]here[/]")

    path = _messages_session(tmp_path / "broken.jsonl", [1, 60])
    app = make_app(tmp_path, open_first=path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        view = screen.query_one(EventView)
        monkeypatch.setattr(event_view, "build_blocks", broken)
        screen.show_turn(2)
        await wait_for(pilot, lambda: not view.building)
        assert [b.kind for b in view.document.blocks] == ["failed"]
        header = view.document.blocks[0].header.plain
        assert "RecursionError: too deep" in header
        assert "\x1b" not in header and "\x07" not in header and "pwned" not in header


async def _build_and_find(pilot: Pilot, app: KlipuiApp) -> None:
    screen = app.screen
    assert isinstance(screen, SessionScreen)
    view = screen.query_one(EventView)
    screen.show_turn(2)
    await wait_for(pilot, lambda: not view.building)
    screen.find("done")
    await wait_for(pilot, lambda: bool(screen.finder.matches))
    await settle(pilot, app)


async def test_a_closed_screen_keeps_no_session_after_a_build_and_a_find(tmp_path: Path) -> None:
    def sessions() -> set[int]:
        """Ids of the live sessions (other tests of this process may have left theirs)."""
        gc.collect()  # what stays is held, not garbage waiting for a collection
        return {id(thing) for thing in gc.get_objects() if isinstance(thing, Session)}

    before = sessions()
    path = _messages_session(tmp_path / "closed.jsonl", [1, 60])
    app = make_app(tmp_path, open_first=path)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        await _build_and_find(pilot, app)
        opened = sessions() - before
        assert opened
        app.pop_screen()
        await settle(pilot, app)
        assert not opened & sessions()
