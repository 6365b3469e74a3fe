"""Qwen Code, the sixth agent: a session the real CLI wrote (tests/fixtures/agent-written), read,
raised back, clipped and found where the CLI keeps it. The resume check in the real CLI is in
the fidelity matrix (test_real_agents.py)."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import AGENT_WRITTEN, sample_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from klipui.klip import plan_child, write_child
from klipui.session import open_session
from klipui.session.discover import default_roots, find_session_files, list_sessions
from klipui.session.formats import adapter, adapters, detect_format, qwen
from klipui.session.jsonl import read_jsonl

QWEN = AGENT_WRITTEN / "qwen_9turns.jsonl"
CALLS = [2, 2, 0, 1, 1, 1, 3, 0]
"""Tool calls of each turn, as the script asked: [tools:2] [par] [none] [big] [fail] [tools:1]
[tools:3] [none]."""


def rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines() if line]


def chain(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records Qwen Code rebuilds: `parentUuid` links from the last record, oldest first."""
    by_uuid = {r["uuid"]: r for r in records}
    node: dict[str, Any] | None = records[-1]
    out: list[dict[str, Any]] = []
    while node is not None and node not in out:
        out.append(node)
        node = by_uuid.get(node.get("parentUuid") or "")
    return out[::-1]


def prompts(records: list[dict[str, Any]]) -> list[str]:
    return [
        part["text"]
        for r in records
        if r["type"] == "user" and r.get("provenance") == "real_user"
        for part in r["message"]["parts"]
    ]


def test_the_written_session_is_sniffed_as_qwen_only() -> None:
    values = [r.value for r in read_jsonl(QWEN).records]
    assert qwen.sniff(values)
    assert detect_format(values) is qwen.ADAPTER
    # Claude Code's sniff takes it too (same record envelope): Qwen is registered before it.
    accepting = [one.name for one in adapters() if one.sniff(values)]
    assert accepting[0] == "qwen"


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name)
def test_no_other_sample_is_taken_for_qwen(path: Path) -> None:
    values = [r.value for r in read_jsonl(path).records[:64]]
    assert not qwen.sniff(values)


def test_turns_prompts_calls_and_the_failed_command() -> None:
    session = open_session(QWEN)
    assert session.format == "qwen"
    assert [t.tool_calls for t in session.turns] == CALLS
    assert [t.prompt for t in session.turns] == prompts(rows(QWEN))
    assert all(t.completed for t in session.turns)
    assert [t.errors for t in session.turns] == [0, 0, 0, 0, 1, 0, 0, 0]
    calls = {e.data["callId"]: e.seq for e in session.events if e.type == "tool/call"}
    results = [e for e in session.events if e.type == "tool/result"]
    assert len(results) == sum(CALLS) == len(calls)
    for result in results:
        assert result.source_event_seqs == [calls[result.data["message"]["source"]["callId"]]]
    telemetry = [e for e in session.events if e.type == "qwen/ui_telemetry"]
    assert telemetry and all(e.ignorable for e in telemetry)
    assert session.session_id == rows(QWEN)[0]["sessionId"]


def test_select_all_raises_the_file_byte_for_byte() -> None:
    session = open_session(QWEN)
    lines = list(adapter("qwen").raise_records(session, session.events))
    assert lines == QWEN.read_bytes().splitlines()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sets(st.integers(1, len(CALLS)), min_size=1))
def test_raised_records_link_only_to_kept_records(turns: set[int]) -> None:
    session = open_session(QWEN)
    kept = [e for t in session.turns if t.number in turns for e in session.events[t.start : t.end]]
    raised = [json.loads(line) for line in adapter("qwen").raise_records(session, kept)]
    uuids = {r["uuid"] for r in raised}
    assert all(r["parentUuid"] is None or r["parentUuid"] in uuids for r in raised)
    assert prompts(chain(raised)) == [session.turns[n - 1].prompt for n in sorted(turns)]


@pytest.mark.parametrize("selection", ["..", "1", "-1", "2..5, not 3"])
def test_a_child_is_one_session_the_cli_can_walk(tmp_path: Path, selection: str) -> None:
    parent = shutil.copyfile(QWEN, tmp_path / QWEN.name)
    plan = plan_child(parent, selection, now=datetime(2026, 12, 3, tzinfo=UTC))
    assert not plan.blockers and not plan.violations
    write_child(plan)
    assert plan.path.parent == tmp_path and plan.path.stem == plan.child_id
    records = rows(plan.path)
    assert {r["sessionId"] for r in records} == {plan.child_id}
    title = records[-1]
    assert title["subtype"] == "custom_title"
    assert title["systemPayload"]["customTitle"].startswith("KLIP ")
    session = open_session(parent)
    expected = [session.turns[n - 1].prompt for n in sorted(plan.turns)]
    assert prompts(chain(records)) == expected
    assert open_session(plan.path).title == title["systemPayload"]["customTitle"]
    assert parent.read_bytes() == QWEN.read_bytes()


def test_compaction_replaces_a_result_in_the_native_record() -> None:
    session = open_session(QWEN)
    result = next(e for e in session.events if e.type == "tool/result")
    call_id = result.data["message"]["source"]["callId"]
    value = session.records[result.origin].value
    changed = adapter("qwen").replace_result(value, call_id, "short")
    assert changed is not None and changed != value
    assert changed["message"]["parts"][0]["functionResponse"]["response"] == {"output": "short"}
    assert adapter("qwen").replace_result(value, "no-such-call", "x") is None


def test_sessions_are_found_where_the_cli_keeps_them(sealed_home: Path) -> None:
    chats = sealed_home / ".qwen" / "projects" / "-home-ana-app" / "chats"
    chats.mkdir(parents=True)
    target = shutil.copyfile(QWEN, chats / "4aff4ed2-c449-4bf8-a05d-3f99e51754b1.jsonl")
    (sealed_home / ".qwen" / "projects" / "-home-ana-app" / "notes.jsonl").write_text("{}\n")
    assert any(root.agent == "qwen" for root in default_roots())
    assert find_session_files() == [target]
    [info] = list_sessions(cache=False)
    assert (info.format, info.agent, info.turns) == ("qwen", "Qwen Code", len(CALLS))
    assert info.first_prompt == prompts(rows(QWEN))[0]
