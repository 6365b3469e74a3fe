"""Child sessions: every sample format clipped several ways re-reads in its own format with the
kept turns; ids, uuids, headers and links rewritten as each agent needs; the parent is never
touched and no existing file is ever overwritten."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import tempfile
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson
import pytest
import zstandard
from conftest import SAMPLES, sample_files
from dsh_gen import dsh_sessions
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from klipui.klip import ClipError, KIntervalError, parse_interval, plan_child, validate, write_child
from klipui.klip.children import base36
from klipui.klip.rules import Cell, SkipN, rules_for_format
from klipui.session import exact_info, open_session, read_info
from klipui.session.jsonl import write_new

SELECTIONS = ["..", "1", "-1", "1..2", "2..-2, not 3", "1..3, not 2"]
NOW = datetime(2026, 12, 2, 11, 0, 0, tzinfo=UTC)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def completed_turns(session: Any) -> int:
    for event in reversed(session.events):
        if event.type == "turn/end":
            return int(event.data.get("turn") or 0)
    return 0


def clippable() -> list[Path]:
    return [p for p in sample_files() if completed_turns(open_session(p)) > 0]


def copy_of(sample: Path, folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / sample.name
    shutil.copyfile(sample, target)
    return target


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


@pytest.mark.parametrize("sample", clippable(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_children_reread_in_their_own_format_with_the_kept_turns(sample: Path, tmp_path: Path):
    parent = copy_of(sample, tmp_path / "parent")
    before = digest(parent)
    session = open_session(parent)
    n = completed_turns(session)
    made = set()
    for text in SELECTIONS:
        kept = parse_interval(text).turns(n)
        if not kept or tuple(kept) in made:
            continue
        made.add(tuple(kept))
        plan = plan_child(session, text)
        assert plan.turns == {old: new for new, old in enumerate(kept, start=1)}
        assert not plan.violations, [str(v) for v in plan.violations]
        write_child(plan, force=bool(plan.blockers))
        assert plan.path.parent.is_relative_to(tmp_path / "parent")
        child = open_session(plan.path)
        assert child.format == session.format
        assert not child.problems, [str(p) for p in child.problems]
        expected = [session.turns[old - 1].prompt for old in kept]
        assert [t.prompt for t in child.turns] == expected
        # a kept turn that never finished loses its turn/end in formats that end a turn only
        # at the next prompt, once it is the child's last
        assert len(kept) - (not child.turns[-1].completed) <= completed_turns(child) <= len(kept)
    assert digest(parent) == before


def test_dsh_child_header_seed_end_and_title(tmp_path: Path):
    parent = copy_of(SAMPLES / "dsh" / "multi-turn.jsonl", tmp_path)
    session = open_session(parent)
    plan = plan_child(session, "2", now=NOW)
    write_child(plan)
    assert re.fullmatch(r"session-klip-[0-9a-z]+-[0-9a-z]{6}", plan.child_id)
    assert plan.child_id.split("-")[2] == base36(int(NOW.timestamp() * 1000))
    assert plan.path == tmp_path / f"{plan.child_id}.jsonl"
    rows = lines_of(plan.path)
    header, events = rows[0], rows[1:]
    assert header["type"] == "session" and header["version"] == 0
    assert header["id"] == plan.child_id
    assert header["parentSession"] == session.header["id"]
    assert header["cwd"] == session.header["cwd"]
    assert header["delegationDepth"] == 0
    seed = header["seedLength"]
    assert [e["seq"] for e in events] == list(range(len(events)))
    assert events[seed]["type"] == "session/end-seed"
    title = events[seed + 1]
    assert title["type"] == "session/title"
    assert title["data"] == {
        "title": f"KLIP {session.title}",
        "messageSeqs": [],
        "source": {"kind": "user"},
    }
    assert len(events) == seed + 2
    assert validate(events) == []


def test_dsh_child_keeps_the_harness_layout_and_zstd_header_frame(tmp_path: Path):
    source = open_session(SAMPLES / "dsh" / "bash-spill.jsonl")
    key = tmp_path / "sessions" / "--home-ana-proj--"
    parent = key / "parent-id" / "session.jsonl.zstd"
    write_new(
        parent, (source.record_bytes(i) for i in range(len(source.records))), compression="zstd"
    )
    plan = plan_child(parent, "..")
    write_child(plan)
    assert plan.path == key / plan.child_id / "session.jsonl.zstd"
    data = plan.path.read_bytes()
    first = zstandard.ZstdDecompressor().decompressobj()
    head = first.decompress(data)
    assert head.count(b"\n") == 1 and orjson.loads(head)["id"] == plan.child_id
    assert first.unused_data, "the events follow in later frames"
    child = open_session(plan.path)
    assert child.compression == "zstd"
    assert [t.prompt for t in child.turns] == [t.prompt for t in source.turns]


def test_dsh_header_without_delegation_depth_is_repaired_and_said(tmp_path: Path):
    parent = copy_of(SAMPLES / "dsh" / "approval-composer.jsonl", tmp_path)
    assert "delegationDepth" not in open_session(parent).header
    plan = plan_child(parent, "..")
    assert any("delegationDepth" in note for note in plan.notes)
    write_child(plan)
    assert lines_of(plan.path)[0]["delegationDepth"] == 0


def test_claude_child_rewrites_session_ids_and_uuids_consistently(tmp_path: Path):
    parent = copy_of(
        SAMPLES / "claude-code" / "ccv_fe5e1c67_sidechains_summary_errors.jsonl", tmp_path
    )
    old_rows = lines_of(parent)
    old_uuids = {r["uuid"] for r in old_rows if "uuid" in r}
    plan = plan_child(parent, "..")
    write_child(plan)
    assert plan.path == tmp_path / f"{plan.child_id}.jsonl"
    namespace = uuid.UUID(plan.child_id)
    rows = lines_of(plan.path)
    assert rows[0]["type"] == "summary" and rows[0]["summary"].startswith("KLIP ")
    body = rows[1:]
    uuids = {r["uuid"] for r in body if "uuid" in r}
    assert rows[0]["leafUuid"] in uuids
    assert not uuids & old_uuids
    assert all(r["sessionId"] == plan.child_id for r in body if "sessionId" in r)
    assert all(r.get("parentUuid") in uuids | {None} for r in body if "uuid" in r)
    kept_old = [r for r in old_rows if r.get("type") != "summary"]
    assert len(kept_old) == len(body)
    for old, new in zip(kept_old, body, strict=True):
        assert new["uuid"] == str(uuid.uuid5(namespace, old["uuid"]))
        if old.get("parentUuid") is not None:
            assert new["parentUuid"] == str(uuid.uuid5(namespace, old["parentUuid"]))
        assert {k: v for k, v in new.items() if k not in ("uuid", "parentUuid", "sessionId")} == {
            k: v for k, v in old.items() if k not in ("uuid", "parentUuid", "sessionId")
        }


def test_claude_child_relinks_the_parent_chain_over_removed_lines(tmp_path: Path):
    parent = copy_of(SAMPLES / "claude-code" / "ccl_dag_compact_after_rewind.jsonl", tmp_path)
    old = lines_of(parent)
    by_uuid = {r["uuid"]: r for r in old}
    plan = plan_child(parent, "1, 4")
    write_child(plan)
    namespace = uuid.UUID(plan.child_id)
    rows = [r for r in lines_of(plan.path) if "uuid" in r]
    new_to_old = {str(uuid.uuid5(namespace, r["uuid"])): r["uuid"] for r in old}
    kept_old = {new_to_old[r["uuid"]] for r in rows}
    assert rows[0]["parentUuid"] is None
    for row in rows:
        ancestor = by_uuid[new_to_old[row["uuid"]]]
        link = ancestor.get("parentUuid") or ancestor.get("logicalParentUuid")
        while link is not None and link not in kept_old:
            link = by_uuid[link].get("parentUuid") or by_uuid[link].get("logicalParentUuid")
        if by_uuid[new_to_old[row["uuid"]]].get("parentUuid") is None:
            assert row["parentUuid"] is None
        else:
            assert row["parentUuid"] == (None if link is None else str(uuid.uuid5(namespace, link)))


def test_claude_child_keeps_tool_pairs_and_message_chunks_whole(tmp_path: Path):
    parent = copy_of(SAMPLES / "claude-code" / "ccv_5c0375b4_task_sidechain.jsonl", tmp_path)
    plan = plan_child(parent, "1")
    write_child(plan)
    rows = lines_of(plan.path)
    uses = [b["id"] for r in rows for b in _blocks(r) if b.get("type") == "tool_use"]
    results = [b["tool_use_id"] for r in rows for b in _blocks(r) if b.get("type") == "tool_result"]
    assert uses and sorted(uses) == sorted(results)
    ids = {}
    for row in lines_of(parent):
        if row.get("type") == "assistant":
            ids.setdefault(row["message"]["id"], 0)
            ids[row["message"]["id"]] += 1
    kept = {}
    for row in rows:
        if row.get("type") == "assistant":
            kept.setdefault(row["message"]["id"], 0)
            kept[row["message"]["id"]] += 1
    assert all(ids[m] == count for m, count in kept.items())


def _blocks(row: dict[str, Any]) -> list[dict[str, Any]]:
    content = (
        (row.get("message") or {}).get("content") if isinstance(row.get("message"), dict) else None
    )
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def test_claude_sidechain_only_file_is_refused_unless_forced(tmp_path: Path):
    parent = copy_of(SAMPLES / "claude-code" / "ccl_subagents_agent-showcol1.jsonl", tmp_path)
    plan = plan_child(parent, "..")
    assert plan.blockers and "sidechain" in plan.blockers[0]
    with pytest.raises(ClipError, match="sidechain"):
        write_child(plan)
    assert not plan.path.exists()
    write_child(plan, force=True)
    assert plan.path.exists()


def test_codex_child_under_todays_date_folder_with_a_new_meta(tmp_path: Path):
    sample = (
        SAMPLES
        / "codex"
        / "ccl_synthetic_rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl"
    )
    root = tmp_path / "sessions"
    parent = copy_of(sample, root / "2026" / "01" / "02")
    plan = plan_child(parent, "..", now=NOW)
    write_child(plan)
    local = NOW.astimezone()
    assert plan.path.parent == root / f"{local:%Y}" / f"{local:%m}" / f"{local:%d}"
    assert plan.path.name == f"rollout-{local:%Y-%m-%dT%H-%M-%S}-{plan.child_id}.jsonl"
    assert uuid.UUID(plan.child_id).version == 7
    rows = lines_of(plan.path)
    assert rows[0]["type"] == "session_meta" and rows[0]["payload"]["id"] == plan.child_id
    old = parent.read_bytes().splitlines()
    assert plan.path.read_bytes().splitlines()[1:] == [line for line in old[1:] if line.strip()]
    calls = [
        r["payload"]["call_id"]
        for r in rows
        if r.get("type") == "response_item" and r["payload"]["type"].endswith("_call")
    ]
    outputs = [
        r["payload"]["call_id"]
        for r in rows
        if r.get("type") == "response_item" and r["payload"]["type"].endswith("_output")
    ]
    assert calls and sorted(calls) == sorted(outputs)


def test_codex_child_records_its_parent_not_a_grandparent(tmp_path: Path):
    sample = (
        SAMPLES / "codex" / "rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl"
    )
    parent = copy_of(sample, tmp_path / "sessions" / "2025" / "11" / "17")
    parent_id = open_session(parent).session_id
    assert parent_id and read_info(parent).parent is None
    # its one turn never ended: clipped as it is, so the files stay past the head read's size
    child = plan_child(parent, "..", now=NOW, include_unfinished=True)
    write_child(child)
    grandchild = plan_child(child.path, "..", now=NOW, include_unfinished=True)
    write_child(grandchild)
    for plan, expected in ((child, parent_id), (grandchild, child.child_id)):
        assert lines_of(plan.path)[0]["payload"]["forked_from_id"] == expected
        quick = read_info(plan.path)
        assert not quick.exact  # the head read, not the full one
        assert quick.session_id == plan.child_id and quick.parent == expected
        exact = exact_info(plan.path)
        assert exact.session_id == plan.child_id and exact.parent == expected


def test_codex_child_outside_a_date_folder_goes_beside_its_parent(tmp_path: Path):
    sample = (
        SAMPLES
        / "codex"
        / "ccl_synthetic_rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl"
    )
    parent = copy_of(sample, tmp_path / "loose")
    plan = plan_child(parent, "1")
    assert plan.path.parent == tmp_path / "loose"


def test_pi_child_header_and_moved_compaction_target(tmp_path: Path):
    parent = copy_of(SAMPLES / "pi" / "pi_before-compaction_v1.jsonl", tmp_path)
    session = open_session(parent)
    compaction_turns = [
        t.number
        for t in session.turns
        if any(
            e.origin is not None and session.records[e.origin].value.get("type") == "compaction"
            for e in session.events[t.start : t.end]
        )
    ]
    last = compaction_turns[-1]
    plan = plan_child(session, f"{last}..", now=NOW)
    write_child(plan)
    rows = lines_of(plan.path)
    header = rows[0]
    assert header["id"] == plan.child_id and header["parentSession"] == str(parent.resolve())
    assert "version" not in header, "a v1 parent stays v1 (pi migrates it on load)"
    assert plan.path.name == f"2026-12-02T11-00-00-000Z_{plan.child_id}.jsonl"
    compactions = [i for i, r in enumerate(rows) if r.get("type") == "compaction"]
    assert compactions
    for index in compactions:
        target = rows[index]["firstKeptEntryIndex"]
        assert 1 <= target <= index
    assert rows[-1]["type"] == "session_info" and rows[-1]["name"] == f"KLIP {session.title}"


def test_pi_v3_child_relinks_parent_ids(tmp_path: Path):
    header = {
        "type": "session",
        "version": 3,
        "id": "v3",
        "timestamp": "2026-01-01T00:00:00.000Z",
        "cwd": str(tmp_path),
    }
    entries, parent_id = [], None
    for turn in range(1, 4):
        for role, text in (("user", f"prompt {turn}"), ("assistant", f"answer {turn}")):
            entry_id = f"{turn}{role[0]}000000"
            message: dict[str, Any] = {
                "role": role,
                "content": [{"type": "text", "text": text}],
                "timestamp": 1,
            }
            if role == "assistant":
                message.update(
                    provider="anthropic", model="m", stopReason="stop", api="x", usage={}
                )
            entries.append(
                {
                    "type": "message",
                    "id": entry_id,
                    "parentId": parent_id,
                    "timestamp": "2026-01-01T00:00:01.000Z",
                    "message": message,
                }
            )
            parent_id = entry_id
    parent = tmp_path / "v3.jsonl"
    parent.write_bytes(b"\n".join(orjson.dumps(v) for v in [header, *entries]) + b"\n")
    plan = plan_child(parent, "1, 3")
    write_child(plan)
    rows = lines_of(plan.path)[1:]
    ids = [r["id"] for r in rows]
    assert ids[:4] == ["1u000000", "1a000000", "3u000000", "3a000000"]
    assert rows[0]["parentId"] is None and rows[2]["parentId"] == "1a000000"
    assert rows[-1]["type"] == "session_info" and rows[-1]["parentId"] == "3a000000"
    assert [t.prompt for t in open_session(plan.path).turns] == ["prompt 1", "prompt 3"]


def test_messages_child_beside_its_source(tmp_path: Path):
    source = tmp_path / "chat.jsonl"
    rows = [
        {"role": "user", "content": "first question"},
        {"role": "assistant", "content": "first answer"},
        {"role": "user", "content": "second question"},
        {"role": "assistant", "content": "second answer"},
    ]
    source.write_bytes(b"\n".join(orjson.dumps(r) for r in rows) + b"\n")
    plan = plan_child(source, "2")
    write_child(plan)
    assert plan.path.parent == tmp_path and plan.path.name.startswith("chat.klip-")
    child = open_session(plan.path)
    assert child.format == "messages" and [t.prompt for t in child.turns] == ["second question"]


def test_a_child_never_overwrites_a_file(tmp_path: Path):
    parent = copy_of(SAMPLES / "dsh" / "multi-turn.jsonl", tmp_path)
    plan = plan_child(parent, "1")
    write_child(plan)
    written = digest(plan.path)
    with pytest.raises(ClipError, match="already exists"):
        write_child(plan)
    assert digest(plan.path) == written
    taken = tmp_path / "taken.jsonl"
    taken.write_text("precious\n")
    with pytest.raises(ClipError, match="already exists"):
        write_child(plan_child(parent, "2", out=taken))
    assert taken.read_text() == "precious\n"
    with pytest.raises(ClipError, match="already exists"):
        write_child(plan_child(parent, "..", out=parent))


def test_an_invalid_child_is_not_written_unless_forced_and_says_why(tmp_path: Path):
    parent = copy_of(SAMPLES / "dsh" / "advanced-toolchain.jsonl", tmp_path)
    rules = rules_for_format("dsh").with_cells(seq={"tool/call": Cell((SkipN(0),))})
    plan = plan_child(parent, "..", rules=rules)
    assert plan.violations
    broken = {v.rule for v in plan.violations}
    assert "tool-call-unanswered" in broken
    assert any(d.type == "tool/result" and d.reason == "reference" for d in plan.dropped)
    with pytest.raises(ClipError, match="tool-call-unanswered"):
        write_child(plan)
    assert not plan.path.exists()
    write_child(plan, force=True)
    assert plan.path.exists()


def test_selections_that_keep_nothing_or_cannot_be_read(tmp_path: Path):
    parent = copy_of(SAMPLES / "dsh" / "multi-turn.jsonl", tmp_path)
    with pytest.raises(ClipError, match="keeps none of the 2"):
        plan_child(parent, "5")
    with pytest.raises(KIntervalError):
        plan_child(parent, "1..x")
    usage = copy_of(SAMPLES / "claude-code" / "ccusage_usage_alpha.jsonl", tmp_path)
    with pytest.raises(ClipError, match="no turn to clip"):
        plan_child(usage, "..")
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "ccusage_usage_alpha.jsonl",
        "multi-turn.jsonl",
    ]


_PI = open_session(SAMPLES / "pi" / "pi_large-session_v1.jsonl")
_PI_TURNS = completed_turns(_PI)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sets(st.integers(1, _PI_TURNS), min_size=1, max_size=12))
def test_any_turn_subset_of_a_real_session_reads_back_as_exactly_those_turns(turns: set[int]):
    kept = sorted(turns)
    selection = ", ".join(str(t) for t in kept)
    with tempfile.TemporaryDirectory() as folder:
        plan = plan_child(_PI, selection, out=Path(folder) / "child.jsonl")
        write_child(plan)
        child = open_session(plan.path)
    assert [t.prompt for t in child.turns] == [_PI.turns[t - 1].prompt for t in kept]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dsh_sessions(min_turns=1), st.data())
def test_generated_dsh_children_are_valid_logs(events: list[dict[str, Any]], data: st.DataObject):
    n = max((e["data"]["turn"] for e in events if e["type"] == "turn/end"), default=0)
    if n == 0:
        return
    start = data.draw(st.integers(1, n))
    end = data.draw(st.integers(start, n))
    header = {
        "type": "session",
        "version": 0,
        "id": "gen",
        "createdAt": 0,
        "cwd": "/p",
        "delegationDepth": 0,
    }
    with tempfile.TemporaryDirectory() as folder:
        parent = Path(folder) / "gen.jsonl"
        parent.write_bytes(b"\n".join(orjson.dumps(v) for v in [header, *events]) + b"\n")
        plan = plan_child(parent, f"{start}..{end}")
        write_child(plan)
        rows = lines_of(plan.path)
        child = open_session(plan.path)
    body = rows[1:]
    assert [e["seq"] for e in body] == list(range(len(body)))
    assert body[rows[0]["seedLength"]]["type"] == "session/end-seed"
    assert validate(body) == []
    assert completed_turns(child) == end - start + 1


@pytest.mark.parametrize(
    "sample",
    [
        SAMPLES / "dsh" / "multi-turn.jsonl",
        SAMPLES / "claude-code" / "ccv_fe5e1c67_sidechains_summary_errors.jsonl",
        SAMPLES / "pi" / "pi_before-compaction_v1.jsonl",
        SAMPLES
        / "codex"
        / "ccl_synthetic_rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl",
    ],
    ids=lambda p: p.parent.name,
)
def test_a_child_clips_again_like_its_parent(sample: Path, tmp_path: Path):
    parent = open_session(copy_of(sample, tmp_path))
    child = plan_child(parent, "..")
    write_child(child)
    again = plan_child(child.path, "..")
    write_child(again)
    last = plan_child(child.path, "-1")
    write_child(last)
    n = completed_turns(parent)
    prompts = [t.prompt for t in parent.turns[:n]]
    assert [t.prompt for t in open_session(child.path).turns][:n] == prompts
    assert [t.prompt for t in open_session(again.path).turns][:n] == prompts
    assert [t.prompt for t in open_session(last.path).turns] == prompts[-1:]
    assert len({parent.path, child.path, again.path, last.path}) == 4


def test_claude_child_does_not_end_on_a_line_claude_code_would_resume_from_wrongly(tmp_path: Path):
    rewind = copy_of(SAMPLES / "claude-code" / "ccl_dag_compact_after_rewind.jsonl", tmp_path)
    plan = plan_child(rewind, "1")
    write_child(plan)
    texts = [b["text"] for r in lines_of(plan.path) if r.get("type") == "user" for b in _blocks(r)]
    assert texts == ["Start"], "the abandoned 'First attempt' branch would become the leaf"
    assert any("would take as the leaf" in note for note in plan.notes)
    edge = copy_of(SAMPLES / "claude-code" / "ccl_edge_cases.jsonl", tmp_path)
    plan = plan_child(edge, "..")
    write_child(plan)
    chain = [r for r in lines_of(plan.path) if r.get("type") in ("user", "assistant")]
    last = chain[-1]["message"]
    assert isinstance(last, dict) and isinstance(last.get("content"), str | list)


def written_title(plan: Any) -> str | None:
    """The title stored in a written child, read from its native lines."""
    rows = lines_of(plan.path)
    if plan.format == "claude":
        return next((r["summary"] for r in rows if r.get("type") == "summary"), None)
    if plan.format == "dsh":
        titles = [r["data"]["title"] for r in rows if r.get("type") == "session/title"]
        return titles[-1] if titles else None
    if plan.format == "pi":
        names = [r["name"] for r in rows if r.get("type") == "session_info"]
        return names[-1] if names else None
    return None


@pytest.mark.parametrize("sample", clippable(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_planned_title_is_the_title_written(sample: Path, tmp_path: Path):
    parent = copy_of(sample, tmp_path)
    plan = plan_child(parent, "-1")
    write_child(plan, force=True)
    assert plan.child_title == written_title(plan)
    assert plan.to_dict()["title"] == plan.child_title
    if plan.format in ("claude", "dsh", "pi"):
        assert plan.child_title == f"KLIP {plan.title}"
        assert open_session(plan.path).title == plan.child_title


def test_an_untitled_claude_parent_gets_its_first_kept_prompt_as_title(tmp_path: Path):
    parent = copy_of(SAMPLES / "claude-code" / "ccv_1af7fc5e_tools_error.jsonl", tmp_path)
    session = open_session(parent)
    assert not any(r.value.get("type") == "summary" for r in session.records)
    plan = plan_child(session, "..")
    write_child(plan)
    prompt = next(t.prompt for t in session.turns if t.prompt)
    assert plan.child_title == f"KLIP {prompt}"[: len("KLIP ") + 80]
    assert written_title(plan) == plan.child_title


@pytest.mark.parametrize(
    "sample",
    [
        SAMPLES / "dsh" / "multi-turn.jsonl",
        SAMPLES / "claude-code" / "ccl_representative_messages.jsonl",
        SAMPLES / "pi" / "pi_large-session_v1.jsonl",
        SAMPLES
        / "codex"
        / "ccl_synthetic_rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl",
    ],
    ids=lambda p: p.parent.name,
)
@pytest.mark.parametrize("mode", [0o640, 0o604])
def test_a_child_gets_its_parents_permission_bits(sample: Path, mode: int, tmp_path: Path):
    parent = copy_of(sample, tmp_path)
    parent.chmod(mode)
    plan = plan_child(parent, "1")
    write_child(plan)
    assert plan.path.stat().st_mode & 0o7777 == mode
    assert sorted(p.name for p in plan.path.parent.iterdir() if p.name.startswith(".")) == []


def test_codex_reports_where_its_child_goes_and_why(tmp_path: Path):
    sample = (
        SAMPLES
        / "codex"
        / "ccl_synthetic_rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl"
    )
    loose = plan_child(copy_of(sample, tmp_path / "loose"), "1")
    assert any("beside its parent" in n and "sessions/YYYY/MM/DD" in n for n in loose.notes)
    filed = plan_child(copy_of(sample, tmp_path / "sessions" / "2025" / "11" / "17"), "1")
    local = datetime.now(UTC).astimezone()
    assert filed.path.parent.parent.parent.parent == tmp_path / "sessions"
    assert filed.path.parent.name == f"{local:%d}"
    assert any("today's date folder" in n and str(filed.path.parent) in n for n in filed.notes)


@pytest.mark.parametrize("exists", [True, False])
def test_output_into_a_folder_uses_the_childs_own_name(exists: bool, tmp_path: Path):
    out = tmp_path / "out"
    if exists:
        out.mkdir()
    for sample in (
        SAMPLES / "dsh" / "multi-turn.jsonl",
        SAMPLES / "pi" / "pi_large-session_v1.jsonl",
    ):
        parent = copy_of(sample, tmp_path / "src")
        default = plan_child(parent, "1", now=NOW)
        target = str(out) if exists else f"{out}/"
        plan = plan_child(parent, "1", out=target, now=NOW)
        assert plan.path.parent == out
        assert re.sub(plan.child_id, "ID", plan.path.name) == re.sub(
            default.child_id, "ID", default.path.name
        )
        write_child(plan)
        assert plan.path.is_file() and open_session(plan.path).format == default.format
    store = copy_of(SAMPLES / "dsh" / "multi-turn.jsonl", tmp_path / "store" / "--p--" / "s1")
    store = store.rename(store.parent / "session.jsonl")
    plan = plan_child(store, "1", out=f"{out}/")
    assert plan.path == out / plan.child_id / "session.jsonl"
    assert plan_child(store, "1", out=str(out / "named.jsonl")).path == out / "named.jsonl"


@pytest.mark.parametrize("sample", sample_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_klip_and_the_turn_list_agree_on_which_turns_completed(sample: Path):
    """One definition: the turns klip calls completed are the turns `Turn.completed` marks;
    every other kept turn is listed as unfinished with how it ended; only turns after the last
    end are left out, and `include_unfinished` keeps them too."""
    session = open_session(sample)
    marked = {t.number for t in session.turns if t.completed}
    try:
        plan = plan_child(session, "..")
    except ClipError:
        assert marked == set()
        assert not any(e.type == "turn/end" for e in session.events)
        return
    assert plan.completed == marked
    assert set(plan.turns) - set(plan.unfinished) == marked
    for turn, how in plan.unfinished.items():
        assert not session.turns[turn - 1].completed and how != "completed"
    assert set(plan.turns) | set(plan.left_open) == {t.number for t in session.turns}
    assert all(t > max(plan.turns) for t in plan.left_open)
    everything = plan_child(session, "..", include_unfinished=True)
    assert set(everything.turns) == {t.number for t in session.turns}
    assert {t: "open" for t in plan.left_open}.items() <= everything.unfinished.items()


def test_a_session_whose_only_turn_never_ended_says_why_and_what_to_do(tmp_path: Path):
    sample = (
        SAMPLES / "codex" / "rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl"
    )
    parent = copy_of(sample, tmp_path)
    with pytest.raises(ClipError) as caught:
        plan_child(parent, "..")
    message = str(caught.value)
    assert "its only turn never ended" in message and "task_complete" in message
    assert "--include-unfinished" in message
    plan = plan_child(parent, "..", include_unfinished=True)
    assert plan.turns == {1: 1} and plan.unfinished == {1: "open"} and plan.ok
    write_child(plan)
    source, child = open_session(parent), open_session(plan.path)
    assert [t.prompt for t in child.turns] == [t.prompt for t in source.turns]
    assert [e.type for e in child.events] == [e.type for e in source.events]
    assert not child.turns[0].completed


def test_an_unfinished_last_turn_is_left_out_and_said_unless_included(tmp_path: Path):
    parent = copy_of(SAMPLES / "claude-code" / "ccl_edge_cases.jsonl", tmp_path)
    session = open_session(parent)
    assert not session.turns[-1].completed
    plan = plan_child(session, "..")
    assert plan.left_open == [len(session.turns)] and len(plan.turns) == len(session.turns) - 1
    assert plan.unfinished == {2: "interrupted", 3: "interrupted"}
    assert parse_interval("-1").turns(plan.turn_count) == [len(session.turns) - 1]
    whole = plan_child(session, "-1", include_unfinished=True)
    assert whole.turns == {len(session.turns): 1}
    write_child(whole)
    assert [t.prompt for t in open_session(whole.path).turns] == [session.turns[-1].prompt]


BIG = 18446744073709551616
"""One past the largest 64-bit integer: orjson cannot write it, JSON can hold it."""


@pytest.mark.parametrize(
    "sample",
    sorted((Path(__file__).parent / "fixtures" / "agent-written").glob("*.jsonl")),
    ids=lambda p: p.name[:24],
)
def test_records_with_a_lone_surrogate_and_a_huge_integer_are_written_again(
    sample: Path, tmp_path: Path
) -> None:
    """Such a line is decoded by the standard library (orjson refuses the lone surrogate), which
    keeps the integer exact; a rewritten record must still be written, its integer digit for
    digit."""
    lines = []
    for line in sample.read_bytes().splitlines():
        value = orjson.loads(line)
        if isinstance(value, dict):
            where = value["data"] if isinstance(value.get("data"), dict) else value
            where["bigNumber"] = BIG
            where["note"] = "\ud83d"
            line = json.dumps(value).encode()
        lines.append(line)
    path = tmp_path / sample.name
    path.write_bytes(b"\n".join(lines) + b"\n")
    session = open_session(path)
    assert not session.problems
    plan = plan_child(session, "2..", include_unfinished=True)
    assert plan.lines
    carried = [line for line in plan.lines if b"bigNumber" in line]
    assert len(carried) >= plan.kept_records // 2
    assert all(str(BIG).encode() in line for line in carried)
    for line in carried:
        json.loads(line)
