"""Sessions the real agents wrote themselves (tests/fixtures/agent-written): a compaction belongs to
the turn of its command, a child keeps how its last turn ended, and the clip report warns when
Claude Code would not show part of a child. The `real_agents` tests resume the children in Claude
Code and skip when it is not installed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import fidelity_matrix as fm
import orjson
import pytest
from conftest import AGENT_WRITTEN, SAMPLES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from klipui.klip import plan_child, write_child
from klipui.session import open_session
from klipui.session.model import Session

CLAUDE = AGENT_WRITTEN / "claude_10turns_compact6.jsonl"
INTERRUPTED = AGENT_WRITTEN / "claude_interrupted_turn3.jsonl"
CODEX = next(AGENT_WRITTEN.glob("rollout-*.jsonl"))
PI = AGENT_WRITTEN / "pi_10turns.jsonl"
DSH = AGENT_WRITTEN / "dsh_7turns.jsonl"
BEFORE_COMPACTION = ["5", "..5", "2..5"]


def values(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def endings(session: Session) -> list[str | None]:
    """The reason kind of every turn's `turn/end` (None: never ended)."""
    out: list[str | None] = []
    for turn in session.turns:
        last = session.events[turn.end - 1]
        out.append(last.data["reason"]["kind"] if last.type == "turn/end" else None)
    return out


def chain_from_leaf(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The main-chain lines Claude Code rebuilds: `parentUuid` links from the last user or
    assistant line, oldest first."""
    by_uuid = {r["uuid"]: r for r in rows if isinstance(r.get("uuid"), str)}
    leaf = next(r for r in reversed(rows) if r.get("type") in ("user", "assistant") and "uuid" in r)
    chain: list[dict[str, Any]] = []
    node: dict[str, Any] | None = leaf
    while node is not None and node not in chain:
        chain.append(node)
        parent = node.get("parentUuid")
        node = by_uuid.get(parent) if isinstance(parent, str) else None
    return chain[::-1]


def texts(row: dict[str, Any]) -> list[str]:
    content = row.get("message", {}).get("content")
    if isinstance(content, str):
        return [content]
    return [b.get("text", "") for b in content or [] if b.get("type") == "text"]


def tool_ids(rows: list[dict[str, Any]], kind: str, key: str) -> set[str]:
    return {
        b[key]
        for r in rows
        if isinstance(r.get("message", {}).get("content"), list)
        for b in r["message"]["content"]
        if b.get("type") == kind
    }


# ------------------------------------------------------------------------- the sessions as read


TEN = [2, 2, 0, 1, 1, 0, 1, 3, 2, 0]
"""Tool calls a turn of the 10-turn script: [tools:2], [par], [none], [big], [fail], /compact,
[tools:1], [tools:3], [par], [none]."""


@pytest.mark.parametrize(
    ("path", "calls"),
    [(CLAUDE, TEN), (CODEX, TEN), (PI, TEN), (DSH, [2, 2, 0, 1, 1, 3, 0]), (INTERRUPTED, TEN[:5])],
    ids=["claude", "codex", "pi", "dsh", "claude-interrupted"],
)
def test_agent_written_sessions_read_whole(path: Path, calls: list[int]) -> None:
    session = open_session(path)
    assert session.problems == []
    assert [t.tool_calls for t in session.turns] == calls
    wanted = [t.prompt for t in session.turns if t.prompt.startswith("Turn ")]
    assert len(wanted) == len(calls) - (path in (CLAUDE, CODEX, PI)), "one turn is /compact"


def test_claude_compaction_lies_in_the_turn_of_its_command() -> None:
    session = open_session(CLAUDE)
    compaction = [
        (turn.number, event.type)
        for turn in session.turns
        for event in session.events[turn.start : turn.end]
        if event.type == "compaction/summary"
        or (event.type == "user/message" and event.data["source"]["kind"] == "compaction")
    ]
    assert compaction == [(6, "compaction/summary"), (6, "user/message")]
    assert session.turns[5].prompt == "/compact"
    assert [t.completed for t in session.turns] == [True] * 10
    # Nothing of the compaction is left between turns, nor at the end of turn 5.
    inside = {i for t in session.turns for i in range(t.start, t.end)}
    boundary = next(e for e in session.events if e.type == "compaction/summary")
    assert boundary.seq in inside
    assert boundary.seq >= session.turns[5].start


@pytest.mark.parametrize("selection", BEFORE_COMPACTION)
def test_a_child_ending_before_the_compaction_keeps_the_chain_of_its_turns(
    selection: str, tmp_path: Path
) -> None:
    copy = Path(shutil.copy(CLAUDE, tmp_path))
    plan = plan_child(copy, selection)
    assert plan.ok and plan.warnings == []
    write_child(plan)
    rows = values(plan.path)
    assert not any(
        r.get("subtype") == "compact_boundary" or r.get("isCompactSummary") for r in rows
    )
    chain = chain_from_leaf(rows)
    prompts = [t for r in chain for t in texts(r) if t.startswith("Turn ")]
    first = int(selection.split("..")[0] or 1)
    names = ["one", "two", "three", "four", "five"]
    assert [p.split(":")[0] for p in prompts] == [f"Turn {n}" for n in names[first - 1 : 5]]
    uses = tool_ids(chain, "tool_use", "id")
    results = tool_ids(chain + rows, "tool_result", "tool_use_id")
    parent = open_session(copy)
    kept_calls = sum(parent.turns[n - 1].tool_calls for n in range(first, 6))
    assert len(uses) == kept_calls and uses <= results


def test_a_child_from_the_compaction_on_starts_at_its_boundary(tmp_path: Path) -> None:
    copy = Path(shutil.copy(CLAUDE, tmp_path))
    plan = plan_child(copy, "6..")
    write_child(plan)
    chain = chain_from_leaf(values(plan.path))
    assert chain[0].get("subtype") == "compact_boundary"
    assert chain[1].get("isCompactSummary")


# --------------------------------------------------------------------------- interrupted turns


def test_an_interruption_mark_ends_the_turn_even_as_the_last(tmp_path: Path) -> None:
    assert endings(open_session(INTERRUPTED))[2] == "interrupted"
    lines = INTERRUPTED.read_bytes().splitlines()
    mark = next(i for i, line in enumerate(lines) if b"[Request interrupted by user]" in line)
    cut = tmp_path / "cut.jsonl"
    cut.write_bytes(b"\n".join(lines[: mark + 1]) + b"\n")
    assert endings(open_session(cut)) == ["completed", "completed", "interrupted"]


def _without_mark(tmp_path: Path) -> Path:
    """The interrupted fixture with its mark removed: turn 3 is interrupted only because turn
    4 follows it (the user moved on without an answer)."""
    rows = values(INTERRUPTED)
    mark = next(r for r in rows if "[Request interrupted by user]" in texts(r))
    out = []
    for row in rows:
        if row is mark:
            continue
        if row.get("parentUuid") == mark["uuid"]:
            row = {**row, "parentUuid": mark["parentUuid"]}
        out.append(orjson.dumps(row))
    path = tmp_path / "3f0e8a54-6a53-4c33-9d71-0c7c2d1b5e44.jsonl"
    path.write_bytes(b"\n".join(out) + b"\n")
    return path


@pytest.mark.parametrize("marked", [True, False], ids=["marked", "inferred"])
@pytest.mark.parametrize("selection", ["3", "..3", "2..3"])
def test_claude_child_keeps_an_interrupted_last_turn(
    marked: bool, selection: str, tmp_path: Path
) -> None:
    parent = Path(shutil.copy(INTERRUPTED, tmp_path)) if marked else _without_mark(tmp_path)
    assert endings(open_session(parent))[2] == "interrupted"
    plan = plan_child(parent, selection)
    assert plan.unfinished == {3: "interrupted"} and plan.ok
    added = [n for n in plan.notes if "Request interrupted" in n]
    assert bool(added) != marked, "a mark is added only when the child has none"
    write_child(plan)
    child = open_session(plan.path)
    assert endings(child)[-1] == "interrupted"
    again = plan_child(child, "..")
    assert again.turns == {n: n for n in range(1, len(child.turns) + 1)}
    assert again.unfinished == {len(child.turns): "interrupted"}
    rows = values(plan.path)
    assert sum("[Request interrupted by user]" in texts(r) for r in rows) == 1
    assert chain_from_leaf(rows)[-1]["message"]["content"][0]["text"].startswith("[Request")


def test_claude_child_of_completed_turns_gets_no_mark(tmp_path: Path) -> None:
    plan = plan_child(Path(shutil.copy(INTERRUPTED, tmp_path)), "1..2, 4")
    assert not any("Request interrupted" in n for n in plan.notes)
    assert b"Request interrupted" not in b"".join(plan.lines)


def _codex_interrupted(tmp_path: Path, marked: bool) -> Path:
    """The Codex fixture with turn 3's answer removed (and a `turn_aborted` event in its place
    when `marked`), as Codex leaves a turn the user interrupted."""
    session = open_session(CODEX)
    turn = session.turns[2]
    drop = {
        e.origin
        for e in session.events[turn.start : turn.end]
        if e.type == "assistant/message" or e.type == "codex/event_msg/agent_message"
    }
    drop |= {
        e.origin
        for e in session.events[turn.start : turn.end]
        if e.type == "codex/event_msg/task_complete"
    }
    out = []
    for index in range(len(session.records)):
        if index in drop:
            continue
        out.append(session.record_bytes(index))
    if marked:
        last = max(i for i in drop if i is not None)
        stamp = session.records[last].value["timestamp"]
        payload = {"type": "turn_aborted", "turn_id": "turn-3", "reason": "interrupted"}
        abort = {"timestamp": stamp, "type": "event_msg", "payload": payload}
        position = sum(1 for i in range(last) if i not in drop)
        out.insert(position, orjson.dumps(abort))
    path = tmp_path / CODEX.name
    path.write_bytes(b"\n".join(out) + b"\n")
    return path


@pytest.mark.parametrize("marked", [True, False], ids=["marked", "inferred"])
def test_codex_child_keeps_an_interrupted_last_turn(marked: bool, tmp_path: Path) -> None:
    parent = _codex_interrupted(tmp_path, marked)
    session = open_session(parent)
    assert endings(session)[2] == "interrupted"
    plan = plan_child(session, "2..3", out=tmp_path / "child.jsonl")
    assert plan.unfinished == {3: "interrupted"}
    write_child(plan)
    child = open_session(plan.path)
    assert endings(child) == ["completed", "interrupted"]
    assert plan_child(child, "..").unfinished == {2: "interrupted"}
    aborts = [r for r in values(plan.path) if r.get("payload", {}).get("type") == "turn_aborted"]
    assert len(aborts) == 1


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(start=st.integers(1, 5), end=st.integers(1, 5), marked=st.booleans())
def test_every_claude_child_ends_its_turns_as_the_parent_did(
    start: int, end: int, marked: bool, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Property: whatever run of turns a child keeps, each kept turn ends in the child as it
    ended in the parent (never "never ended")."""
    folder = tmp_path_factory.mktemp("prop")
    parent = Path(shutil.copy(INTERRUPTED, folder)) if marked else _without_mark(folder)
    first, last = min(start, end), max(start, end)
    parent_endings = endings(open_session(parent))
    plan = plan_child(parent, f"{first}..{last}")
    write_child(plan)
    assert endings(open_session(plan.path)) == parent_endings[first - 1 : last]


# ------------------------------------------------------------------- what Claude Code won't show


def test_a_file_of_null_parents_is_reported(tmp_path: Path) -> None:
    sample = SAMPLES / "claude-code" / "ccl_edge_cases.jsonl"
    plan = plan_child(Path(shutil.copy(sample, tmp_path)), "1..2")
    (warning,) = [w for w in plan.warnings if "parentUuid" in w]
    assert "every parentUuid is null" in warning
    assert "4 of its 5 user/assistant lines are off that chain" in warning
    assert plan.to_dict()["warnings"] == plan.warnings


def test_a_well_linked_file_gets_no_chain_warning() -> None:
    for selection in ("..", "1..2", "2", "9", "6..", BEFORE_COMPACTION[1]):
        assert plan_child(CLAUDE, selection).warnings == []


def test_breaking_one_link_is_reported(tmp_path: Path) -> None:
    rows = values(CLAUDE)
    prompt = next(r for r in rows if texts(r) and texts(r)[0].startswith("Turn eight"))
    prompt["parentUuid"] = None
    path = tmp_path / CLAUDE.name
    path.write_bytes(b"\n".join(orjson.dumps(r) for r in rows) + b"\n")
    plan = plan_child(path, "7..")
    (warning,) = plan.warnings
    assert "off that chain" in warning and "null" not in warning.split(":")[-1]


def test_the_cli_prints_the_chain_warning(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from klipui.cli import main

    sample = Path(shutil.copy(SAMPLES / "claude-code" / "ccl_edge_cases.jsonl", tmp_path))
    main(["klip", str(sample), "1..2", "--dry-run"])
    out = capsys.readouterr().out
    assert "warning: Claude Code rebuilds only the parentUuid chain" in out


# -------------------------------------------------------------------------- in the real agent


@pytest.mark.real_agents
@pytest.mark.skipif(not fm.installed("claude"), reason="Claude Code is not installed")
@pytest.mark.parametrize("selection", BEFORE_COMPACTION)
def test_claude_code_resumes_a_child_ending_before_the_compaction(
    selection: str, tmp_path: Path
) -> None:
    copy = Path(shutil.copy(CLAUDE, tmp_path))
    plan = plan_child(copy, selection)
    write_child(plan)
    report = fm.resume_check().check("claude", plan.path, timeout=fm.TIMEOUTS["claude"])
    assert report.get("accepted"), report.get("error")
    conversation = report["conversation"]
    first = int(selection.split("..")[0] or 1)
    prompts = [p for p in conversation["user_prompts"] if p.startswith("Turn ")]
    names = ["one", "two", "three", "four", "five"]
    assert [p.split(":")[0] for p in prompts] == [f"Turn {n}" for n in names[first - 1 : 5]]
    parent = open_session(copy)
    assert conversation["tool_calls"] == sum(
        parent.turns[n - 1].tool_calls for n in range(first, 6)
    )
    assert conversation["all_calls_answered"] and conversation["problems"] == []


def _all_null_parents(folder: Path) -> Path:
    """The well-linked Claude Code fixture with every `parentUuid` set to null."""
    rows = [{**r, "parentUuid": None} if "parentUuid" in r else r for r in values(CLAUDE)]
    path = folder / CLAUDE.name
    path.write_bytes(b"\n".join(orjson.dumps(r) for r in rows) + b"\n")
    return path


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(turns=st.sets(st.integers(1, 10), min_size=1))
def test_the_chain_warning_matches_what_claude_code_would_walk(
    turns: set[int], tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Property: any selection of the well-linked file gets no warning; the same selection of
    the file with every parentUuid null is warned about exactly when the child's chain walk
    (from its last user/assistant line) misses one of its user/assistant lines."""
    selection = ", ".join(str(t) for t in sorted(turns))
    assert plan_child(CLAUDE, selection).warnings == []
    folder = tmp_path_factory.mktemp("nulls")
    plan = plan_child(_all_null_parents(folder), selection)
    write_child(plan)
    rows = values(plan.path)
    after = max(
        (i for i, r in enumerate(rows) if r.get("subtype") == "compact_boundary"), default=-1
    )
    chat = [r for r in rows[after + 1 :] if r.get("type") in ("user", "assistant")]
    shown = chain_from_leaf(rows)
    assert bool(plan.warnings) == (len(chat) > len(shown))
    if plan.warnings:
        assert f"{len(chat) - 1} of its {len(chat)} user/assistant lines" in plan.warnings[0]
        assert "every parentUuid is null" in plan.warnings[0]


def test_a_compaction_inside_a_turn_stays_in_that_turn(tmp_path: Path) -> None:
    """An automatic compaction between a tool result and the reply (no prompt follows it
    directly) belongs to the turn it happened in."""
    rows = values(CLAUDE)
    boundary = next(r for r in rows if r.get("subtype") == "compact_boundary")
    summary = next(r for r in rows if r.get("isCompactSummary"))
    rows = [r for r in rows if r is not boundary and r is not summary]
    result = next(
        i
        for i, r in enumerate(rows)
        if r.get("type") == "user"
        and "toolUseResult" in r
        and r["parentUuid"] is not None
        and rows[i + 1].get("type") == "assistant"
        and any("Turn eight" in t for q in rows[:i] for t in texts(q))
    )
    rows[result + 1 : result + 1] = [boundary, summary]
    path = tmp_path / CLAUDE.name
    path.write_bytes(b"\n".join(orjson.dumps(r) for r in rows) + b"\n")
    session = open_session(path)
    (compaction,) = [e for e in session.events if e.type == "compaction/summary"]
    owner = next(t for t in session.turns if t.start <= compaction.seq < t.end)
    assert owner.prompt.startswith("Turn eight")
    assert session.turns[5].prompt == "/compact"


def test_codex_mark_is_numbered_after_the_last_kept_record(tmp_path: Path) -> None:
    plan = plan_child(_codex_interrupted(tmp_path, False), "2..3", out=tmp_path / "child.jsonl")
    rows = [orjson.loads(line) for line in plan.lines]
    assert rows[-1]["payload"] == {"type": "turn_aborted", "reason": "interrupted"}
    assert rows[-1]["ordinal"] == rows[-2]["ordinal"] + 1


@pytest.mark.real_agents
@pytest.mark.parametrize("agent", ["claude", "codex"])
def test_the_agent_resumes_a_child_given_an_interruption_mark(agent: str, tmp_path: Path) -> None:
    """The mark klipui adds (the parent's turn 3 was interrupted without one) is accepted, and
    the agent sends the kept prompts with every call answered."""
    if not fm.installed(agent):
        pytest.skip(f"{agent} is not installed")
    parent = _without_mark(tmp_path) if agent == "claude" else _codex_interrupted(tmp_path, False)
    plan = plan_child(parent, "2..3")
    assert any("interrupted" in note for note in plan.notes)
    write_child(plan)
    report = fm.resume_check().check(agent, plan.path, timeout=fm.TIMEOUTS[agent])
    assert report.get("accepted"), report.get("error")
    conversation = report["conversation"]
    prompts = [p for p in conversation["user_prompts"] if p.startswith("Turn ")]
    assert [p.split(":")[0] for p in prompts] == ["Turn two", "Turn three"]
    assert conversation["tool_calls"] == 2
    assert conversation["all_calls_answered"] and conversation["problems"] == []
