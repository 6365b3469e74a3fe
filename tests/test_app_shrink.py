"""Pilot tests of the shrink pane: figures, budget and reducer keys, mapping, spilled originals."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import pytest
from app_support import SAMPLES, make_app, settle, tool_result_session, wait_for

from klipui.screens.session import SessionScreen
from klipui.screens.shrink import BUDGET_STEPS, ShrinkScreen
from klipui.widgets.event_view import EventView
from klipui.widgets.line_view import LineView

CORPUS = Path(__file__).resolve().parent / "fixtures" / "corpus"
PYTEST_LOG = (CORPUS / "01-pytest-ledger-mixed" / "output.txt").read_text(encoding="utf-8")


async def _shrink_pane(pilot, app) -> ShrinkScreen:
    await settle(pilot, app)
    screen = app.screen
    assert isinstance(screen, SessionScreen)
    await wait_for(pilot, lambda: screen.session is not None)
    view = screen.query_one(EventView)
    await wait_for(pilot, lambda: view.document is not None)
    await pilot.press("s")
    await settle(pilot, app)
    pane = app.screen
    assert isinstance(pane, ShrinkScreen)
    await wait_for(pilot, lambda: pane.state.shrunk is not None)
    return pane


async def test_shrunk_and_original_side_by_side(tmp_path: Path) -> None:
    path = tool_result_session(tmp_path / "tests.jsonl", PYTEST_LOG)
    app = make_app(path, open_first=path)
    async with app.run_test(size=(140, 40)) as pilot:
        pane = await _shrink_pane(pilot, app)
        result = pane.state.shrunk
        assert result.strategy == "tests"
        assert result.stats.input_lines == PYTEST_LOG.count("\n") + (
            0 if PYTEST_LOG.endswith("\n") else 1
        )
        left = pane.query_one("#shrink-left", LineView)
        right = pane.query_one("#shrink-right", LineView)
        assert left.virtual_size.height == result.stats.output_lines
        assert right.virtual_size.height == result.stats.input_lines
        head = str(pane.query_one("#shrink-head").render())
        assert "strategy tests" in head
        assert f"{result.stats.input_chars:,} chars" in head
        assert "spill:bash-" in head  # the locator a real save would give
        # every input line is kept, summarised or dropped, as Shrunk.kept says
        states = [pane.line_map.state(i) for i in range(result.stats.input_lines)]
        assert states.count("kept") == result.stats.kept_lines
        assert states.count("dropped") + states.count("summary") == result.stats.dropped_lines
        # the failure summary line is kept and shown on the right as kept
        summary = next(
            i for i, line in enumerate(PYTEST_LOG.splitlines()) if "10 failed, 684 passed" in line
        )
        assert states[summary] == "kept"


async def test_budget_keys_change_the_result(tmp_path: Path) -> None:
    rng = random.Random(7)
    words = [
        "the",
        "a",
        "river",
        "stone",
        "cloud",
        "quickly",
        "open",
        "seven",
        "lamp",
        "under",
        "bright",
        "north",
        "wind",
    ]
    text = "\n".join(
        " ".join(rng.choice(words) for _ in range(rng.randint(3, 12))) for _ in range(6000)
    )
    path = tool_result_session(tmp_path / "plain.jsonl", text, command="cat notes")
    app = make_app(path, open_first=path)
    async with app.run_test(size=(140, 40)) as pilot:
        pane = await _shrink_pane(pilot, app)
        before = pane.state.shrunk
        index = pane.state.budget_index
        await pilot.press("plus")
        await settle(pilot, app)
        await wait_for(pilot, lambda: pane.state.shrunk is not before)
        assert pane.state.budget.max_chars == BUDGET_STEPS[index + 1]
        assert pane.state.shrunk.stats.output_chars > before.stats.output_chars
        assert pane.state.shrunk.stats.output_chars <= BUDGET_STEPS[index + 1]
        bigger = pane.state.shrunk
        await pilot.press("minus", "minus")
        await settle(pilot, app)
        await wait_for(pilot, lambda: pane.state.shrunk is not bigger)
        assert pane.state.budget.max_chars == BUDGET_STEPS[index - 1]
        assert pane.state.shrunk.stats.output_chars <= BUDGET_STEPS[index - 1]
        assert pane.state.shrunk.stats.output_chars < before.stats.output_chars
        assert f"budget {BUDGET_STEPS[index - 1]:,} chars" in str(
            pane.query_one("#shrink-head").render()
        )


async def test_reducer_cycle_and_pick(tmp_path: Path) -> None:
    path = tool_result_session(tmp_path / "tests.jsonl", PYTEST_LOG)
    app = make_app(path, open_first=path)
    async with app.run_test(size=(140, 40)) as pilot:
        pane = await _shrink_pane(pilot, app)
        assert pane.state.reducer is None
        first = pane.state.shrunk
        await pilot.press("r")  # auto → diff: not a diff, so the salience fallback cuts it
        await settle(pilot, app)
        await wait_for(pilot, lambda: pane.state.shrunk is not first)
        assert pane.state.reducer == "diff"
        assert pane.state.shrunk.strategy == "salience"
        assert "reducer diff" in str(pane.query_one("#shrink-head").render())
        cycled = pane.state.shrunk
        await pilot.press("R")  # pick from the list
        await pilot.pause()
        picker = app.screen
        options = [label for label, _ in picker.options]
        await pilot.press(*["down"] * (options.index("tests") - picker.current), "enter")
        await settle(pilot, app)
        await wait_for(pilot, lambda: pane.state.shrunk is not cycled)
        assert pane.state.reducer == "tests"
        assert pane.state.shrunk.strategy == "tests"


async def test_line_cap_and_marker_arithmetic(tmp_path: Path) -> None:
    text = "\n".join(["short line"] * 50 + ["y" * 3000] + ["tail line"] * 50)
    path = tool_result_session(tmp_path / "long.jsonl", text, command="cat data")
    app = make_app(path, open_first=path)
    async with app.run_test(size=(140, 40)) as pilot:
        pane = await _shrink_pane(pilot, app)
        first = pane.state.shrunk
        await pilot.press("l")
        await settle(pilot, app)
        await wait_for(pilot, lambda: pane.state.shrunk is not first)
        assert pane.state.budget.max_line_chars > 0
        assert all(len(line) <= 3000 for line in pane.state.shrunk.content.splitlines())
        await pilot.press("number_sign")
        await pilot.pause()
        box = pane.query_one("#shrink-arithmetic")
        assert box.has_class("-open")
        lines = str(box.render()).splitlines()
        assert lines[0].startswith(f"in {len(text):,} chars")
        gaps = [line for line in lines if "marker: input lines" in line or "summary: input" in line]
        assert gaps  # each marker or summary with the input lines it stands for


async def test_missing_spill_file_is_reported_not_fatal() -> None:
    path = SAMPLES / "dsh" / "bash-spill.jsonl"  # its preview names a /tmp file that is gone
    app = make_app(path, open_first=path)
    async with app.run_test(size=(120, 30)) as pilot:
        pane = await _shrink_pane(pilot, app)
        assert pane.original_missing
        assert "missing" in pane.state.origin_note
        assert "2ce9d7a31a38-bash.txt" in pane.state.origin_note
        assert pane.state.original == pane.state.preview
        assert "missing" in str(pane.query_one("#shrink-head").render())
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, SessionScreen)


async def test_spilled_original_is_loaded_through_its_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # pi writes to the temp folder
    full = tmp_path / "pi-bash-0123456789abcdef.log"
    full.write_text(PYTEST_LOG, encoding="utf-8")
    tail = "\n".join(PYTEST_LOG.splitlines()[-40:])
    preview = f"{tail}\n\n[Showing lines 945-984 of 984. Full output: {full}]"
    path = tool_result_session(tmp_path / "spilled.jsonl", preview)
    app = make_app(path, open_first=path)
    async with app.run_test(size=(120, 30)) as pilot:
        pane = await _shrink_pane(pilot, app)
        assert not pane.original_missing
        assert pane.state.original == PYTEST_LOG
        assert pane.state.shrunk.stats.input_chars == len(PYTEST_LOG)
        assert str(full) in pane.state.origin_note


async def test_panes_scroll_together(tmp_path: Path) -> None:
    path = tool_result_session(tmp_path / "tests.jsonl", PYTEST_LOG)
    app = make_app(path, open_first=path)
    async with app.run_test(size=(140, 30)) as pilot:
        pane = await _shrink_pane(pilot, app)
        left = pane.query_one("#shrink-left", LineView)
        right = pane.query_one("#shrink-right", LineView)
        row = pane.state.shrunk.stats.output_lines // 2
        left.scroll_to(y=row, animate=False)
        await pilot.pause()
        expected = pane.line_map.input_for(int(left.scroll_offset.y))
        assert expected is not None and expected > row
        assert int(right.scroll_offset.y) == min(expected, int(right.max_scroll_y))


async def test_a_superseded_run_never_replaces_a_newer_result(tmp_path: Path) -> None:
    path = tool_result_session(tmp_path / "tests.jsonl", PYTEST_LOG)
    app = make_app(path, open_first=path)
    async with app.run_test(size=(140, 40)) as pilot:
        pane = await _shrink_pane(pilot, app)
        pane.state.budget_index = len(BUDGET_STEPS) - 1  # big budget: slow and large
        pane.reshrink()
        pane.state.budget_index = 1  # then a small one, asked for at once
        pane.reshrink()
        await settle(pilot, app)
        await pilot.pause(0.2)
        assert pane.state.shrunk.stats.output_chars <= BUDGET_STEPS[1]
