"""Pilot tests on hostile sessions: what the app draws holds no escape or control sequence and no
click action from content, clicking content does nothing, and spill references are not followed
out of the agents' folders."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from app_support import SAMPLES, make_app, settle, tool_result_session, wait_for
from hostile_support import (
    CLICK,
    HOSTILE_NAME,
    PAYLOAD,
    SHOWN_NAME,
    hostile_copy,
    unsafe_segments,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.style import Style
from textual.widgets._toast import Toast

from klipui.screens.session import SessionScreen
from klipui.screens.shrink import ShrinkScreen
from klipui.widgets.event_view import EventView
from klipui.widgets.line_view import LineView
from klipui.widgets.turn_list import TurnList

HOSTILE_SAMPLES = [
    "claude-code/ccv_1af7fc5e_tools_error.jsonl",
    "codex/ccl_synthetic_rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl",
    "pi/pi_large-session_v1.jsonl",
    "dsh/advanced-toolchain.jsonl",
]


def _screen_text(app) -> tuple[list[str], list[str]]:
    """(rows of text, unsafe segments) of everything on screen now."""
    strips = app.screen._compositor.render_strips()
    rows = ["".join(segment.text for segment in strip) for strip in strips]
    bad = [found for strip in strips for found in unsafe_segments(strip)]
    return rows, bad


def _document_text(view: EventView, width: int = 150) -> tuple[str, list[str]]:
    """Every row of the event view's document (not only those on screen), and unsafe parts."""
    doc = view.document
    assert doc is not None
    rows, bad = [], []
    for row in range(doc.row_count(width)):
        strip = doc.render_row(row, width, Style())
        rows.append("".join(segment.text for segment in strip))
        bad += unsafe_segments(strip)
    return "\n".join(rows), bad


def _source_text(view: LineView, width: int = 120) -> tuple[str, list[str]]:
    source = view.source
    assert source is not None
    rows, bad = [], []
    for row in range(source.row_count(width)):
        strip = source.render_row(row, width, Style())
        rows.append("".join(segment.text for segment in strip))
        bad += unsafe_segments(strip)
    return "\n".join(rows), bad


async def _open_hostile_turn(pilot, app) -> SessionScreen:
    await settle(pilot, app)
    screen = app.screen
    assert isinstance(screen, SessionScreen)
    await wait_for(pilot, lambda: screen.session is not None and not screen.partial)
    session = screen.session
    index = next(
        i
        for i, turn in enumerate(session.turns)
        if any(
            e.type == "tool/call" and e.data.get("name") == HOSTILE_NAME
            for e in session.events[turn.start : turn.end]
        )
    )
    screen.query_one(TurnList).cursor = index
    await settle(pilot, app)
    view = screen.query_one(EventView)
    await wait_for(pilot, lambda: view.document is not None)
    return screen


@pytest.mark.parametrize("sample", HOSTILE_SAMPLES, ids=lambda s: s.split("/")[0])
async def test_hostile_tool_calls_and_results_draw_clean(sample: str, tmp_path: Path) -> None:
    path = hostile_copy(SAMPLES / sample, tmp_path / Path(sample).name)
    app = make_app(path, open_first=path)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await _open_hostile_turn(pilot, app)
        view = screen.query_one(EventView)
        text, bad = _document_text(view)
        assert not bad
        assert SHOWN_NAME in text  # the name is drawn, as plain text
        assert PAYLOAD not in text  # the OSC 52 sequence went whole, payload included
        _, bad = _screen_text(app)
        assert not bad
        # the shrink pane on the turn's result: both panes and the head
        await pilot.press("s")
        await settle(pilot, app)
        pane = app.screen
        assert isinstance(pane, ShrinkScreen)
        await wait_for(pilot, lambda: pane.state.shrunk is not None)
        for side in ("#shrink-left", "#shrink-right"):
            shown, bad = _source_text(pane.query_one(side, LineView))
            assert not bad and PAYLOAD not in shown
        assert CLICK in str(pane.query_one("#shrink-head").render())  # our tool's result
        rows, bad = _screen_text(app)
        assert not bad
        for y, row in enumerate(rows):
            if CLICK in row:
                await pilot.click(offset=(row.index(CLICK) + 3, y))
                await pilot.pause()
        assert not app._exit and app.screen is pane


async def test_clicking_content_never_runs_an_action(tmp_path: Path) -> None:
    sample = SAMPLES / HOSTILE_SAMPLES[3]
    path = hostile_copy(sample, tmp_path / f"s{CLICK}.jsonl")
    app = make_app(path, open_first=path)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await _open_hostile_turn(pilot, app)
        view = screen.query_one(EventView)
        header = next(i for i, b in enumerate(view.document.blocks) if b.kind == "call")
        view.document.current = header
        view.scroll_to(y=view.document.block_row(header, view.size.width), animate=False)
        await settle(pilot, app)
        rows, bad = _screen_text(app)
        assert not bad
        hits = [(row.index(CLICK), y) for y, row in enumerate(rows) if CLICK in row]
        assert hits, "the click text should be on screen"
        for x, y in hits:
            await pilot.click(offset=(x + 3, y))
            await pilot.pause()
        assert not app._exit
        assert isinstance(app.screen, SessionScreen)


async def test_notifications_and_file_names_are_plain(tmp_path: Path) -> None:
    path = tmp_path / f"n{CLICK}\x1b]0;t\x07.jsonl"
    rows = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "hello"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n{broken line\n", encoding="utf-8")
    app = make_app(path, open_first=path)
    async with app.run_test(size=(160, 40), notifications=True) as pilot:
        await settle(pilot, app)
        screen = app.screen
        assert isinstance(screen, SessionScreen)
        await wait_for(pilot, lambda: screen.session is not None)
        await wait_for(pilot, lambda: bool(app._notifications))
        await pilot.pause(0.2)
        (note,) = list(app._notifications)
        assert CLICK in note.message and "\x1b" not in note.message and not note.markup
        rows, bad = _screen_text(app)
        assert not bad
        toasts = list(app.screen.query(Toast))
        assert toasts
        for toast in toasts:  # clicking anywhere on the toast (the file name included)
            region = toast.region
            for x in range(region.x, region.right, 4):
                await pilot.click(offset=(x, region.y + region.height // 2))
        await pilot.pause()
        assert not app._exit
        app.notify(f"direct {CLICK}[b]x\x1b[2J", markup=True)  # markup is refused even if asked
        await pilot.pause(0.2)
        rows, bad = _screen_text(app)
        assert not bad
        assert any(f"direct {CLICK}[b]x" in row for row in rows)


async def test_sessions_screen_lists_hostile_titles_and_projects_plainly(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    claude = SAMPLES / "claude-code" / "ccv_1af7fc5e_tools_error.jsonl"
    hostile_copy(claude, folder / f"c{CLICK}.jsonl")
    broken = folder / f"b{CLICK}\x1b]0;t\x07.jsonl"
    broken.write_text("{not json\n", encoding="utf-8")
    app = make_app(folder)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot, app, rounds=5)
        await wait_for(pilot, lambda: len(app.screen.infos) == 2)
        await settle(pilot, app)
        rows, bad = _screen_text(app)
        assert not bad
        assert any(CLICK in row for row in rows)
        await pilot.press("g")  # grouped by project: the group title is drawn too
        await settle(pilot, app)
        rows, bad = _screen_text(app)
        assert not bad
        for y, row in enumerate(rows):
            if CLICK in row:
                await pilot.click(offset=(row.index(CLICK) + 3, y))
                await pilot.pause()
        assert not app._exit
        await pilot.press("slash")
        app.screen.query_one("#session-filter").value = f"c\x1b]52;c;{PAYLOAD}\x07"  # a paste
        await settle(pilot, app)
        rows, bad = _screen_text(app)
        assert not bad and not any(PAYLOAD in row for row in rows)


async def test_a_reference_to_a_private_key_is_not_followed(
    tmp_path: Path, sealed_home: Path
) -> None:
    key = sealed_home / ".ssh" / "id_ed25519"
    key.parent.mkdir(parents=True)
    key.write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nTOPSECRET\n", encoding="utf-8")
    preview = f"tail of it\n\n[Showing lines 9-10 of 10. Full output: {key}]"
    rows = [
        {"role": "user", "content": "run it"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "bash", "arguments": '{"command": "ls"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": preview},
    ]
    path = tmp_path / "leak.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    app = make_app(path, open_first=path)
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        await wait_for(pilot, lambda: screen.session is not None)
        await wait_for(pilot, lambda: screen.query_one(EventView).document is not None)
        await pilot.press("s")
        await settle(pilot, app)
        pane = app.screen
        assert isinstance(pane, ShrinkScreen)
        await wait_for(pilot, lambda: pane.state.shrunk is not None)
        assert pane.original_missing
        assert pane.state.original == preview
        assert "not followed: outside the agent's folders" in pane.state.origin_note
        rows, _ = _screen_text(app)
        assert not any("TOPSECRET" in row for row in rows)
        assert "not followed" in str(pane.query_one("#shrink-head").render())


@pytest.mark.parametrize("sample", HOSTILE_SAMPLES, ids=lambda s: s.split("/")[0])
def test_every_event_of_a_hostile_session_draws_clean(sample: str, tmp_path: Path) -> None:
    from rich.console import Console

    from klipui.session import open_session
    from klipui.widgets.event_doc import EventDocument, build_blocks
    from klipui.widgets.event_view import STYLE_NAMES

    path = hostile_copy(SAMPLES / sample, tmp_path / Path(sample).name)
    session = open_session(path)
    console = Console(width=120, color_system="truecolor", force_terminal=True)
    styles = {name: Style() for name in STYLE_NAMES}
    blocks = build_blocks(session, 0, len(session.events), console, styles, show_all=True)
    assert any(block.kind == "call" for block in blocks)
    for block in blocks:
        block.collapsed = False
    doc = EventDocument(blocks, styles, console)
    bad = []
    for row in range(doc.row_count(120)):
        bad += unsafe_segments(doc.render_row(row, 120, Style()))
    assert not bad, bad[:5]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
async def test_a_fifo_reference_neither_blocks_the_pane_nor_the_quit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where pi writes its full outputs
    fifo = tmp_path / "pi-bash-0123456789abcdef.log"
    os.mkfifo(fifo)
    preview = f"tail\n\n[Showing lines 9-10 of 10. Full output: {fifo}]"
    path = tool_result_session(tmp_path / "fifo.jsonl", preview)
    app = make_app(path, open_first=path)
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        await wait_for(pilot, lambda: screen.session is not None)
        await wait_for(pilot, lambda: screen.query_one(EventView).document is not None)
        await pilot.press("s")
        pane = app.screen
        assert isinstance(pane, ShrinkScreen)
        await wait_for(pilot, lambda: pane.state.shrunk is not None and pane.state.origin_note)
        assert "not followed: not a regular file" in pane.state.origin_note
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: app._exit)


async def test_a_capped_original_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from klipui.session import spilled

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(spilled, "MAX_ORIGINAL_BYTES", 2_000)
    full = tmp_path / "pi-bash-0123456789abcdef.log"
    full.write_text("".join(f"line {i}\n" for i in range(1_000)), encoding="utf-8")
    path = tool_result_session(tmp_path / "cap.jsonl", f"tail\n\n[Full output: {full}]")
    app = make_app(path, open_first=path)
    async with app.run_test(size=(160, 30)) as pilot:
        await settle(pilot, app)
        screen = app.screen
        await wait_for(pilot, lambda: screen.session is not None)
        await wait_for(pilot, lambda: screen.query_one(EventView).document is not None)
        await pilot.press("s")
        pane = app.screen
        assert isinstance(pane, ShrinkScreen)
        await wait_for(pilot, lambda: pane.state.shrunk is not None and pane.state.origin_note)
        size = full.stat().st_size
        assert f"of {size:,} bytes" in pane.state.origin_note
        assert len(pane.state.original.encode()) <= 2_000 and pane.state.original.endswith("\n")
        assert f"of {size:,} bytes" in str(pane.query_one("#shrink-head").render())


async def test_pasted_sequences_in_the_interval_bar_are_not_drawn(tmp_path: Path) -> None:
    from klipui.widgets.interval_bar import IntervalBar

    path = hostile_copy(SAMPLES / HOSTILE_SAMPLES[3], tmp_path / "i.jsonl")
    app = make_app(path, open_first=path)
    async with app.run_test(size=(140, 36)) as pilot:
        await _open_hostile_turn(pilot, app)
        await pilot.press("colon")
        await pilot.pause()
        bar = app.screen.query_one(IntervalBar)
        bar.input.value = f"1..2, x\x1b]52;c;{PAYLOAD}\x07{CLICK}"  # as a paste would put it
        await settle(pilot, app)
        assert bar.error is not None
        rows, bad = _screen_text(app)
        assert not bad
        assert not any(PAYLOAD in row for row in rows)


_NASTY = st.sampled_from(
    [
        "\x1b[2J",
        "\x1b]52;c;QQ==\x07",
        "\x1b]0;t\x1b\\",
        "\x1bP+q\x1b\\",
        "\x9b1m",
        "\x9d0;x\x9c",
        "\x07",
        "\x00",
        "\x7f",
        "\r",
        "\n",
        "\t",
        "[@click=app.quit]",
        "[b]",
        "[/]",
        "\x1b",
    ]
)
_TEXT = st.lists(st.one_of(_NASTY, st.text(max_size=6)), max_size=12).map("".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=_TEXT,
    command=_TEXT,
    old=_TEXT,
    new=_TEXT,
    result=_TEXT,
    prompt=_TEXT,
    kind=st.sampled_from(["edit", "bash", "patch", "json"]),
)
def test_no_string_from_a_session_reaches_the_screen_raw(
    name: str, command: str, old: str, new: str, result: str, prompt: str, kind: str
) -> None:
    from rich.console import Console

    from klipui.session.model import Event, Session
    from klipui.widgets.event_doc import EventDocument, build_blocks
    from klipui.widgets.event_view import STYLE_NAMES

    arguments = {
        "edit": {"file_path": command, "old_string": old, "new_string": new},
        "bash": {"command": command, "description": old},
        "patch": {"input": f"*** Begin Patch\n{old}\n@@\n{new}"},
        "json": {command: [old, {"x": new}]},
    }[kind]
    message = {"content": [{"type": "text", "text": prompt}]}
    events = [
        Event("user/message", 0, data=message),
        Event("session/title", 1, data={"title": prompt}),
        Event("tool/call", 2, data={"callId": name, "name": name, "arguments": arguments}),
        Event(
            "tool/result",
            3,
            data={
                "message": {
                    "content": [
                        {"type": "tool-result", "toolCallId": name, "content": result},
                        {"type": "image", "mediaType": name},
                    ]
                }
            },
        ),
        Event(f"x/{name}", 4, data={"v": result}, ignorable=True),
    ]
    console = Console(width=60, color_system="truecolor", force_terminal=True)
    styles = {style: Style() for style in STYLE_NAMES}
    session = Session(path=Path("x.jsonl"), format="dsh", events=events)
    blocks = build_blocks(session, 0, len(events), console, styles, show_all=True)
    for block in blocks:
        block.collapsed = False
    doc = EventDocument(blocks, styles, console)
    for row in range(doc.row_count(60)):
        assert not unsafe_segments(doc.render_row(row, 60, Style()))


@pytest.mark.parametrize("sample", [HOSTILE_SAMPLES[0], HOSTILE_SAMPLES[3]], ids=["claude", "dsh"])
async def test_the_clip_preview_of_a_hostile_session_draws_clean(
    sample: str, tmp_path: Path
) -> None:
    from klipui.screens.clip import ClipScreen

    path = hostile_copy(SAMPLES / sample, tmp_path / f"t{CLICK}\x1b]0;x\x07.jsonl")
    app = make_app(path, open_first=path)
    async with app.run_test(size=(160, 50), notifications=True) as pilot:
        screen = await _open_hostile_turn(pilot, app)
        await pilot.press("space", "w")
        await settle(pilot, app)
        clip = app.screen
        assert isinstance(clip, ClipScreen)
        await wait_for(pilot, lambda: clip.plan is not None or clip.error is not None)
        await settle(pilot, app)
        _, bad = _source_text(clip.query_one("#clip-details", LineView), 150)
        assert not bad
        rows, bad = _screen_text(app)
        assert not bad
        if sample.startswith("claude"):  # a Claude child is named after its parent
            assert CLICK in str(clip.query_one("#clip-summary").render())
        for y, row in enumerate(rows):
            if CLICK in row:
                await pilot.click(offset=(row.index(CLICK) + 3, y))
                await pilot.pause()
        assert not app._exit and app.screen is clip
        assert screen.session is not None
