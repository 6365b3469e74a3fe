"""Pilot tests of clipping: the preview (turns, drops, validation, target, title) and the write."""

from __future__ import annotations

from pathlib import Path

from app_support import copy_samples, make_app, settle, wait_for

from klipui.screens.clip import ClipScreen
from klipui.screens.session import SessionScreen
from klipui.screens.sessions import SessionsScreen, SessionTable
from klipui.session import open_session
from klipui.widgets.turn_list import TurnList


async def _session(pilot, app) -> SessionScreen:
    await settle(pilot, app)
    screen = app.screen
    assert isinstance(screen, SessionScreen)
    await wait_for(pilot, lambda: screen.session is not None)
    return screen


async def _preview(pilot, app) -> ClipScreen:
    await pilot.press("w")
    await settle(pilot, app)
    clip = app.screen
    assert isinstance(clip, ClipScreen)
    await wait_for(pilot, lambda: clip.plan is not None or clip.error is not None)
    return clip


async def test_preview_then_write_opens_the_child_under_its_parent(tmp_path: Path) -> None:
    (parent,) = copy_samples(tmp_path, ["dsh/permission-policy-context.jsonl"])
    before = set(tmp_path.rglob("*"))
    app = make_app(tmp_path, open_first=parent)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _session(pilot, app)
        assert len(screen.session.turns) == 4
        await pilot.press("down", "space", "down", "down", "space")  # turns 2 and 4
        clip = await _preview(pilot, app)
        plan = clip.plan
        assert plan is not None and plan.ok
        assert plan.turns == {2: 1, 4: 2}
        assert plan.selection == "2, 4"
        summary = str(clip.query_one("#clip-summary").render())
        assert f"KLIP {screen.session.title}" in summary
        assert str(plan.path) in summary
        assert "✓ valid" in summary
        rows = [str(r) for r in clip.query_one("#clip-details").source.rows]
        assert any("2 → 1" in r for r in rows) and any("4 → 2" in r for r in rows)
        assert set(tmp_path.rglob("*")) == before  # a preview writes nothing
        await pilot.press("w")
        await settle(pilot, app)
        await wait_for(
            pilot, lambda: isinstance(app.screen, SessionScreen) and app.screen.path == plan.path
        )
        child = app.screen
        await wait_for(pilot, lambda: child.session is not None)
        assert plan.path.exists() and plan.path.parent == parent.parent
        assert len(child.session.turns) == 2
        assert child.session.title == f"KLIP {screen.session.title}"
        assert [t.prompt for t in child.session.turns] == [
            screen.session.turns[1].prompt,
            screen.session.turns[3].prompt,
        ]
        await pilot.press("q")
        await pilot.pause()
        sessions = app.screen_stack[1]
        assert isinstance(sessions, SessionsScreen)
        table = sessions.query_one(SessionTable)
        keys = [str(k.value) for k in table.rows]
        assert keys.index(str(plan.path)) == keys.index(str(parent)) + 1
        assert "└" in str(table.get_row(str(plan.path))[0])


async def test_escape_leaves_without_writing(tmp_path: Path) -> None:
    (parent,) = copy_samples(tmp_path, ["dsh/multi-turn.jsonl"])
    app = make_app(tmp_path, open_first=parent)
    async with app.run_test(size=(100, 30)) as pilot:
        await _session(pilot, app)
        await pilot.press("a")
        clip = await _preview(pilot, app)
        assert clip.plan is not None
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, SessionScreen)
        assert sorted(p.name for p in tmp_path.iterdir()) == [parent.name]


async def test_clip_needs_a_selection(tmp_path: Path) -> None:
    (parent,) = copy_samples(tmp_path, ["dsh/multi-turn.jsonl"])
    app = make_app(tmp_path, open_first=parent)
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await _session(pilot, app)
        assert not screen.query_one(TurnList).selected
        await pilot.press("w")
        await pilot.pause()
        assert isinstance(app.screen, SessionScreen)


async def test_interval_bar_selection_feeds_the_clip(tmp_path: Path) -> None:
    (parent,) = copy_samples(tmp_path, ["pi/pi_large-session_v1.jsonl"])
    app = make_app(tmp_path, open_first=parent)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _session(pilot, app)
        await pilot.press("colon", *"-3..", "enter")
        turns = screen.query_one(TurnList)
        count = len(screen.session.turns)
        assert turns.selected == {count - 2, count - 1, count}
        clip = await _preview(pilot, app)
        if clip.plan is not None:
            assert set(clip.plan.turns) <= turns.selected
            assert clip.plan.selection == f"{count - 2}..{count}"
        else:  # the engine refuses turns it cannot clip; the screen says why
            assert clip.error
            assert "Cannot clip" in str(clip.query_one("#clip-summary").render())
        assert open_session(parent).turns  # the parent is untouched and still reads


async def test_demo_children_go_to_the_user_data_folder(sealed_home: Path) -> None:
    from klipui.demo import SESSIONS, demo_paths

    demo = next(p for p in demo_paths() if "/claude/" in str(p))
    before = sorted(SESSIONS.rglob("*"))
    app = make_app(demo, open_first=demo)
    async with app.run_test(size=(120, 36)) as pilot:
        await _session(pilot, app)
        await pilot.press("space")
        clip = await _preview(pilot, app)
        assert clip.plan is not None
        assert clip.plan.path.parent == sealed_home / ".local/share/klipui/demo-clips"
        await pilot.press("w")
        await settle(pilot, app)
        await wait_for(pilot, lambda: clip.plan.path.exists())
    assert sorted(SESSIONS.rglob("*")) == before  # the package data is untouched


async def test_preview_title_is_the_title_written(tmp_path: Path) -> None:
    import orjson

    (parent,) = copy_samples(tmp_path, ["claude-code/ccv_1af7fc5e_tools_error.jsonl"])
    app = make_app(tmp_path, open_first=parent)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _session(pilot, app)
        assert screen.session.title is None  # no summary line: the writer titles it itself
        await pilot.press("a")
        clip = await _preview(pilot, app)
        assert clip.plan is not None
        written = orjson.loads(clip.plan.lines[0])["summary"]
        assert written.startswith("KLIP ")
        assert written in str(clip.query_one("#clip-summary").render())


async def test_preview_lists_unfinished_turns_and_includes_the_open_one_on_u(
    tmp_path: Path,
) -> None:
    """Interrupted turns are kept and listed with how they ended; the never-ended last turn is
    left out until `u` plans with it."""
    (parent,) = copy_samples(tmp_path, ["claude-code/ccl_edge_cases.jsonl"])
    app = make_app(tmp_path, open_first=parent)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _session(pilot, app)
        count = len(screen.session.turns)
        await pilot.press("a")
        clip = await _preview(pilot, app)
        plan = clip.plan
        assert plan is not None
        assert plan.left_open == [count]
        assert plan.unfinished and set(plan.unfinished.values()) == {"interrupted"}
        summary = str(clip.query_one("#clip-summary").render())
        assert f"{len(plan.turns)} of {plan.turn_count} turns" in summary
        assert "completed turns" not in summary
        assert "left out" in summary
        rows = [str(r) for r in clip.query_one("#clip-details").source.rows]
        for turn, how in plan.unfinished.items():
            assert any(f"turn {turn} ended: {how}" in r for r in rows)
        assert any(f"turn {count} never ended" in r and "u includes it" in r for r in rows)
        await pilot.press("u")
        await wait_for(pilot, lambda: clip.plan is not None)
        assert clip.plan.left_open == []
        assert count in clip.plan.turns and clip.plan.unfinished[count] == "open"
        assert "unfinished last turn included" in str(clip.query_one("#clip-summary").render())
        await pilot.press("u")
        await wait_for(pilot, lambda: clip.plan is not None)
        assert clip.plan.left_open == [count] and count not in clip.plan.turns


async def test_unfinished_key_is_in_footer_palette_and_help(tmp_path: Path) -> None:
    from klipui.app import context_actions
    from klipui.screens.help import help_markdown

    (parent,) = copy_samples(tmp_path, ["claude-code/ccl_edge_cases.jsonl"])
    app = make_app(tmp_path, open_first=parent)
    async with app.run_test(size=(120, 36)) as pilot:
        await _session(pilot, app)
        await pilot.press("a")
        clip = await _preview(pilot, app)
        actions = [a for _, _, _, a in context_actions(clip)]
        assert "toggle_unfinished" in actions
        assert "`u` Unfinished turn" in help_markdown(clip, clip.focused)
        await pilot.pause()
        footer_keys = [key.key for key in clip.query("FooterKey")]
        assert "u" in footer_keys


async def test_codex_child_preview_says_the_format_stores_no_title(tmp_path: Path) -> None:
    from klipui.screens.clip import NO_TITLE

    (parent,) = copy_samples(
        tmp_path,
        [
            "codex/ccl_synthetic_rollout-2026-01-02T03-04-05-11111111-1111-4111-8111"
            "-111111111111.jsonl"
        ],
    )
    app = make_app(tmp_path, open_first=parent)
    async with app.run_test(size=(120, 36)) as pilot:
        await _session(pilot, app)
        await pilot.press("a")
        clip = await _preview(pilot, app)
        assert clip.plan is not None and clip.plan.child_title is None
        assert NO_TITLE in str(clip.query_one("#clip-summary").render())


async def test_dsh_demo_child_goes_inside_its_own_folder(sealed_home: Path) -> None:
    from klipui.demo import SESSIONS, demo_paths

    demo = next(p for p in demo_paths() if "/dsh/" in str(p))
    before = sorted(SESSIONS.rglob("*"))
    app = make_app(demo, open_first=demo)
    async with app.run_test(size=(120, 36)) as pilot:
        await _session(pilot, app)
        await pilot.press("space")
        clip = await _preview(pilot, app)
        plan = clip.plan
        assert plan is not None
        clips = sealed_home / ".local/share/klipui/demo-clips"
        assert plan.path == clips / plan.child_id / "session.jsonl"
        await pilot.press("w")
        await settle(pilot, app)
        await wait_for(pilot, lambda: plan.path.exists())
        assert not (clips / "session.jsonl").exists()
    assert sorted(SESSIONS.rglob("*")) == before


async def test_unfinished_key_is_disabled_when_every_turn_ended(tmp_path: Path) -> None:
    (parent,) = copy_samples(tmp_path, ["dsh/multi-turn.jsonl"])
    app = make_app(tmp_path, open_first=parent)
    async with app.run_test(size=(120, 36)) as pilot:
        await _session(pilot, app)
        await pilot.press("a")
        clip = await _preview(pilot, app)
        assert clip.plan is not None and not clip.plan.left_open
        await pilot.pause()
        assert clip.check_action("toggle_unfinished", ()) is None
        before = clip.plan
        await pilot.press("u")
        await settle(pilot, app)
        assert clip.plan is before and not clip.include_unfinished


async def test_preview_warns_when_claude_code_would_not_show_the_child(tmp_path: Path) -> None:
    """A file whose every parentUuid is null: the preview says Claude Code will rebuild only
    the chain from the last line, under Warnings."""
    (parent,) = copy_samples(tmp_path, ["claude-code/ccl_edge_cases.jsonl"])
    app = make_app(tmp_path, open_first=parent)
    async with app.run_test(size=(120, 36)) as pilot:
        await _session(pilot, app)
        await pilot.press("a")
        clip = await _preview(pilot, app)
        assert clip.plan is not None
        (warning,) = [w for w in clip.plan.warnings if "parentUuid" in w]
        rows = [str(r) for r in clip.query_one("#clip-details").source.rows]
        assert "Warnings" in rows
        assert rows[rows.index("Warnings") + 1].strip() == warning


async def test_only_turn_never_ended_u_plans_it_and_w_writes(tmp_path: Path) -> None:
    """A session whose only turn never ended: the preview names `u` (not a command-line flag),
    `u` plans the child with that turn, and `w` writes it."""
    (parent,) = copy_samples(
        tmp_path, ["codex/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl"]
    )
    app = make_app(tmp_path, open_first=parent)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await _session(pilot, app)
        assert len(screen.session.turns) == 1
        await pilot.press("space")
        clip = await _preview(pilot, app)
        assert clip.plan is None and clip.error is not None
        summary = str(clip.query_one("#clip-summary").render())
        assert "u clips it as it is" in summary and "--include" not in summary
        assert clip.check_action("toggle_unfinished", ()) is True
        await pilot.press("u")
        await wait_for(pilot, lambda: clip.plan is not None)
        assert clip.plan.turns == {1: 1} and clip.include_unfinished
        await pilot.press("w")
        await settle(pilot, app)
        await wait_for(pilot, lambda: clip.written is not None)
        assert clip.written.exists() and clip.written != parent


async def test_write_before_a_plan_says_why(tmp_path: Path) -> None:
    (parent,) = copy_samples(
        tmp_path, ["codex/rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl"]
    )
    app = make_app(tmp_path, open_first=parent)
    async with app.run_test(size=(120, 36)) as pilot:
        await _session(pilot, app)
        await pilot.press("space")
        clip = await _preview(pilot, app)
        await pilot.press("w")
        await pilot.pause()
        messages = [n.message for n in app._notifications]
        assert any("Nothing to write" in m and "u clips it" in m for m in messages)
        assert clip.written is None
