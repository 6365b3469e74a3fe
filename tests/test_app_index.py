"""The session screen with an index-first session: the head first, the read's share shown while
the rest is read, then every turn, its events decoded when shown."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path

import orjson
import pytest

from klipui.screens.session import SessionScreen
from klipui.session import open_session
from klipui.session.index import LazyEvents
from klipui.widgets.turn_list import TurnList
from tests.app_support import make_app, settle, wait_for


def _dsh_file(path: Path, turns: int = 40) -> Path:
    lines = [orjson.dumps({"type": "session", "version": 0, "id": "app-index", "cwd": "/w"})]
    seq = 0
    for turn in range(1, turns + 1):
        for kind, data in (
            ("turn/start", {"turn": turn}),
            ("user/message", {"content": [{"type": "text", "text": f"prompt {turn}"}]}),
            ("turn/end", {"turn": turn, "reason": {"kind": "completed"}}),
        ):
            lines.append(orjson.dumps({"type": kind, "seq": seq, "time": seq, "data": data}))
            seq += 1
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


async def test_the_share_read_is_shown_then_every_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import klipui.screens.session as session_module

    path = _dsh_file(tmp_path / "session.jsonl")
    monkeypatch.setattr(session_module, "PREVIEW_FROM", 0)  # show the head of any file first
    release = threading.Event()

    def held_open(where: Path, progress: Callable[[int, int], None] | None = None):
        assert progress is not None
        progress(1, 4)
        release.wait(10)
        return open_session(where, progress=progress)

    monkeypatch.setattr(session_module, "_open", held_open)
    app = make_app(path, open_first=path)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, SessionScreen))
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        info = screen.query_one("#session-info")
        await wait_for(pilot, lambda: "reading the rest of the file… 25%" in str(info.render()))
        assert screen.partial
        release.set()
        await wait_for(pilot, lambda: not screen.partial)
        await settle(pilot, app)
        assert "reading the rest" not in str(info.render())
        assert len(screen.query_one(TurnList).turns) == 40
        assert screen.session is not None and isinstance(screen.session.events, LazyEvents)


def test_the_head_of_a_zstd_session_is_shown_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import klipui.screens.session as session_module
    from klipui.session.jsonl import write_new

    plain = _dsh_file(tmp_path / "plain.jsonl")
    path = tmp_path / "session.jsonl.zstd"
    write_new(path, plain.read_bytes().splitlines(), compression="zstd")
    monkeypatch.setattr(session_module, "PREVIEW_FROM", 0)
    head = session_module.open_head(path)
    whole = open_session(path)
    assert head is not None and len(head.turns) == len(whole.turns) - 1  # the last may go on
    assert head.turns == whole.turns[: len(head.turns)]
    assert head.turn_events(1) == whole.turn_events(1)
