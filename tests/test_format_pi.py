"""pi sessions: sniffing, lowering (v1 samples, generated v2/v3 trees), raising, round trips."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from klipui.session.formats import pi
from klipui.session.jsonl import read_jsonl
from klipui.session.model import Session
from tests.conftest import sample_files
from tests.format_support import check_invariants, lower_with, write_lines

PI_SAMPLES = sample_files("pi")


def raised(session: Session, events: list | None = None) -> bytes:
    lines = list(pi.raise_records(session, session.events if events is None else events))
    return b"".join(line + b"\n" for line in lines)


def test_samples_are_present() -> None:
    assert len(PI_SAMPLES) == 2


@pytest.mark.parametrize("path", PI_SAMPLES, ids=lambda p: p.name)
def test_sample_round_trip_is_byte_identical(path: Path) -> None:
    session = lower_with(pi, path)
    assert session.problems == []
    assert raised(session) == path.read_bytes()
    check_invariants(session)


@pytest.mark.parametrize("path", PI_SAMPLES, ids=lambda p: p.name)
def test_sample_lowering_matches_records(path: Path) -> None:
    session = lower_with(pi, path)
    values = [r.value for r in session.records]
    assert pi.sniff(values[:5])
    roles = [v["message"]["role"] for v in values if v.get("type") == "message"]
    prompts = roles.count("user")
    assert len(session.turns) == prompts
    assert sum(t.tool_calls for t in session.turns) == sum(
        1
        for v in values
        if v.get("type") == "message"
        for b in v["message"].get("content") or []
        if isinstance(b, dict) and b.get("type") == "toolCall"
    ) + roles.count("bashExecution")
    results = [e for e in session.events if e.type == "tool/result"]
    assert len(results) == roles.count("toolResult") + roles.count("bashExecution")
    assert all(e.source_event_seqs for e in results)
    header = values[0]
    assert session.session_id == header["id"] and session.cwd == header["cwd"]
    thinking = sum(
        1
        for v in values
        if v.get("type") == "message" and v["message"]["role"] == "assistant"
        for b in v["message"]["content"]
        if b.get("type") == "thinking"
    )
    reasoning = sum(
        1
        for e in session.events
        if e.type == "assistant/message"
        for b in e.data["message"]["content"]
        if b["type"] == "reasoning"
    )
    assert reasoning == thinking


def test_compaction_and_bash_execution_in_sample() -> None:
    path = next(p for p in PI_SAMPLES if "compaction" in p.name)
    session = lower_with(pi, path)
    summaries = [e for e in session.events if e.type == "compaction/summary"]
    assert len(summaries) == 2 and all(s.data["summary"] for s in summaries)
    user_runs = [e for e in session.events if e.type == "tool/call" and e.data.get("userRun")]
    assert [orjson.loads(e.data["arguments"])["command"] for e in user_runs] == [
        "ls",
        "ls",
        "find .",
    ]
    assert session.parent and session.parent.endswith(".jsonl")


def test_header_change_is_re_encoded(tmp_path: Path) -> None:
    path = PI_SAMPLES[0]
    session = lower_with(pi, path)
    session.header = {**session.header, "id": "new-id"}
    lines = list(pi.raise_records(session, session.events))
    assert orjson.loads(lines[0])["id"] == "new-id"
    assert b"\n".join(lines[1:]) + b"\n" == path.read_bytes().split(b"\n", 1)[1]


# --- generated v2/v3 tree files -----------------------------------------------------------


def v3_file(tmp_path: Path, version: int = 3) -> tuple[Path, list[dict[str, Any]]]:
    """A tree session: a prompt, a tool round, an abandoned branch, a branch summary, more."""
    stamp = "2026-01-01T10:00:00.000Z"
    values: list[dict[str, Any]] = [
        {"type": "session", "version": version, "id": "s-1", "timestamp": stamp, "cwd": "/p"},
    ]

    def entry(kind: str, entry_id: str, parent: str | None, **fields: Any) -> None:
        values.append(
            {"type": kind, "id": entry_id, "parentId": parent, "timestamp": stamp, **fields}
        )

    def message(entry_id: str, parent: str | None, **message: Any) -> None:
        entry("message", entry_id, parent, message={**message, "timestamp": 1767261600000})

    entry("model_change", "00000001", None, provider="anthropic", modelId="claude-x")
    message("00000002", "00000001", role="user", content="fix the tests")
    message(
        "00000003",
        "00000002",
        role="assistant",
        content=[
            {"type": "thinking", "thinking": "run them first"},
            {"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "pytest"}},
        ],
        model="claude-x",
        provider="anthropic",
        stopReason="toolUse",
        usage={"input": 5, "output": 7},
    )
    message(
        "00000004",
        "00000003",
        role="toolResult",
        toolCallId="c1",
        toolName="bash",
        content=[{"type": "text", "text": "1 failed"}],
        isError=True,
    )
    message(
        "00000005",
        "00000004",
        role="assistant",
        content=[{"type": "text", "text": "A"}],
        stopReason="stop",
    )
    # abandoned branch from 00000004
    message("00000006", "00000005", role="user", content=[{"type": "text", "text": "try B"}])
    message(
        "00000007",
        "00000006",
        role="assistant",
        content=[{"type": "text", "text": "B"}],
        stopReason="stop",
    )
    entry("branch_summary", "00000008", "00000005", fromId="00000007", summary="tried B, no luck")
    message("00000009", "00000008", role="user", content="now try C")
    message(
        "0000000a",
        "00000009",
        role="bashExecution",
        command="ls",
        output="a\nb\n",
        exitCode=0,
        cancelled=False,
        truncated=False,
    )
    entry(
        "compaction",
        "0000000b",
        "0000000a",
        summary="earlier: tests",
        firstKeptEntryId="00000009",
        tokensBefore=1000,
    )
    message(
        "0000000c",
        "0000000b",
        role="custom" if version == 3 else "hookMessage",
        customType="note",
        content="remember C",
        display=True,
    )
    message(
        "0000000d",
        "0000000c",
        role="assistant",
        content=[{"type": "text", "text": "C works"}],
        stopReason="stop",
    )
    entry("session_info", "0000000e", "0000000d", name="Fixing tests")
    entry("label", "0000000f", "0000000e", targetId="00000009", label="here")
    return write_lines(tmp_path / f"tree_v{version}.jsonl", values), values


@pytest.mark.parametrize("version", [2, 3])
def test_tree_lowering(tmp_path: Path, version: int) -> None:
    path, values = v3_file(tmp_path, version)
    assert pi.sniff(values)
    session = lower_with(pi, path)
    check_invariants(session)
    assert raised(session) == path.read_bytes()
    off = [e for e in session.events if e.type == "pi/off-branch"]
    assert [e.data["id"] for e in off] == ["00000006", "00000007"]
    assert all(e.ignorable for e in off)
    assert [t.prompt for t in session.turns] == ["fix the tests", "now try C"]
    assert session.turns[0].errors == 1 and session.turns[0].tool_calls == 1
    assert session.title == "Fixing tests"
    kinds = [e.type for e in session.turn_events(2)]
    assert kinds[:2] == ["turn/start", "user/message"]
    assert "compaction/summary" in kinds and "tool/result" in kinds
    custom = [
        e
        for e in session.events
        if e.type == "user/message" and e.data["source"]["kind"] in ("custom", "branch-summary")
    ]
    assert [e.data["source"]["kind"] for e in custom] == ["branch-summary", "custom"]
    assert all(t.completed for t in session.turns)
    assert session.header_events[0].type == "pi/model_change"


def test_partial_raise_relinks_parents(tmp_path: Path) -> None:
    path, values = v3_file(tmp_path)
    session = lower_with(pi, path)
    second = session.turn_events(2)
    lines = [orjson.loads(line) for line in pi.raise_records(session, second)]
    assert lines[0]["type"] == "session"
    entries = lines[1:]
    ids = [e["id"] for e in entries]
    assert ids[0] == "00000009"
    assert entries[0]["parentId"] is None
    for entry in entries[1:]:
        assert entry["parentId"] in ids[: ids.index(entry["id"])]
    by_id = {v.get("id"): v for v in values}
    for entry in entries[1:]:
        assert entry == by_id[entry["id"]]


def test_v1_branch_header_and_orphan_result(tmp_path: Path) -> None:
    values = [
        {
            "type": "session",
            "id": "x",
            "timestamp": "2026-01-01T00:00:00Z",
            "cwd": "/p",
            "branchedFrom": "/a.jsonl",
        },
        {
            "type": "message",
            "timestamp": "2026-01-01T00:00:01Z",
            "message": {"role": "user", "content": "hi"},
        },
        {
            "type": "message",
            "timestamp": "2026-01-01T00:00:02Z",
            "message": {
                "role": "toolResult",
                "toolCallId": "gone",
                "content": [],
                "isError": False,
            },
        },
        {"type": "weird_new_entry", "timestamp": "2026-01-01T00:00:03Z", "x": 1},
    ]
    path = write_lines(tmp_path / "v1.jsonl", values)
    session = lower_with(pi, path)
    assert session.parent == "/a.jsonl"
    orphan = next(e for e in session.events if e.type == "tool/result")
    assert orphan.source_event_seqs is None
    unknown = session.events[-1]
    assert unknown.type == "pi/weird_new_entry" and unknown.ignorable and unknown.data == values[3]
    assert not session.turns[0].completed
    assert raised(session) == path.read_bytes()


def test_sniff_rejects_other_formats() -> None:
    assert not pi.sniff([])
    assert not pi.sniff([{"type": "session", "version": 0, "id": "d", "createdAt": 1, "cwd": "/"}])
    assert not pi.sniff(
        [{"type": "user", "uuid": "u", "message": {"role": "user", "content": "x"}}]
    )
    assert not pi.sniff([{"role": "user", "content": "x"}])
    assert pi.sniff([{"type": "message", "message": {"role": "user", "content": "x"}}])


def test_info_from_head() -> None:
    path = PI_SAMPLES[1]
    values = [r.value for r in read_jsonl(path).records[:20]]
    info = pi.info(path, values)
    assert info.format == "pi" and info.agent == "pi"
    assert info.session_id == values[0]["id"] and info.cwd == values[0]["cwd"]
    assert info.first_prompt == "/mode"
    assert info.started is not None and info.bytes == path.stat().st_size


@st.composite
def trees(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Random append-only trees: each entry's parent is the current leaf or an earlier entry."""
    count = draw(st.integers(1, 30))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = random.Random(seed)
    values: list[dict[str, Any]] = [
        {
            "type": "session",
            "version": 3,
            "id": "t",
            "timestamp": "2026-01-01T00:00:00Z",
            "cwd": "/",
        }
    ]
    ids: list[str] = []
    for n in range(count):
        parent = None
        if ids:
            parent = ids[-1] if rng.random() < 0.7 else rng.choice(ids)
        entry_id = f"{n:08x}"
        role = rng.choice(["user", "assistant", "assistant-call", "result"])
        if role == "user":
            message: dict[str, Any] = {"role": "user", "content": f"prompt {n}"}
        elif role == "assistant":
            message = {
                "role": "assistant",
                "content": [{"type": "text", "text": "ok"}],
                "stopReason": "stop",
            }
        elif role == "assistant-call":
            message = {
                "role": "assistant",
                "content": [{"type": "toolCall", "id": f"c{n}", "name": "t", "arguments": {}}],
                "stopReason": "toolUse",
            }
        else:
            message = {
                "role": "toolResult",
                "toolCallId": f"c{rng.randrange(count)}",
                "content": [],
            }
        values.append(
            {
                "type": "message",
                "id": entry_id,
                "parentId": parent,
                "timestamp": "2026-01-01T00:00:01Z",
                "message": message,
            }
        )
        ids.append(entry_id)
    return values


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(values=trees())
def test_random_trees(tmp_path: Path, values: list[dict[str, Any]]) -> None:
    path = write_lines(tmp_path / "t.jsonl", values)
    session = lower_with(pi, path)
    check_invariants(session)
    assert raised(session) == path.read_bytes()
    parents = {v["id"]: v["parentId"] for v in values[1:]}
    branch, node = set(), values[-1].get("id")
    while node is not None:
        branch.add(node)
        node = parents[node]
    lowered_on = {
        session.records[e.origin].value["id"]
        for e in session.events
        if e.origin is not None and e.type != "pi/off-branch"
    }
    off = {e.data["id"] for e in session.events if e.type == "pi/off-branch"}
    assert lowered_on == branch
    assert off == set(parents) - branch
    # raising only the current branch gives a valid chain
    on_events = [e for e in session.events if e.type != "pi/off-branch"]
    raised_entries = [orjson.loads(line) for line in pi.raise_records(session, on_events)][1:]
    seen: set[str] = set()
    for entry in raised_entries:
        assert entry["parentId"] is None or entry["parentId"] in seen
        seen.add(entry["id"])


@pytest.mark.parametrize("path", PI_SAMPLES, ids=lambda p: p.name)
def test_open_session_detects_pi_and_raises_from_raw(path: Path) -> None:
    from klipui.session import open_session

    session = open_session(path)
    assert session.format == "pi" and session.source_stat is not None
    assert raised(session) == path.read_bytes()
    assert len(session.turns) == len(lower_with(pi, path).turns)


def test_v3_tree_through_open_session(tmp_path: Path) -> None:
    from klipui.session import open_session

    path, _values = v3_file(tmp_path)
    session = open_session(path)
    assert session.format == "pi"
    assert raised(session) == path.read_bytes()


pi_odd_entries = st.fixed_dictionaries(
    {
        "type": st.sampled_from(
            [
                "message",
                "compaction",
                "branch_summary",
                "custom_message",
                "session_info",
                "label",
                "zzz",
            ]
        )
    },
    optional={
        "id": st.sampled_from(["a", "b", "c", "d"]),
        "parentId": st.one_of(st.none(), st.sampled_from(["a", "b", "c", "d", "gone"])),
        "timestamp": st.one_of(
            st.just("2026-01-01T00:00:00Z"), st.text(max_size=4), st.integers(-9, 9)
        ),
        "summary": st.one_of(st.text(max_size=5), st.integers(-9, 9)),
        "name": st.one_of(st.text(max_size=5), st.none()),
        "content": st.one_of(
            st.text(max_size=5),
            st.lists(
                st.dictionaries(st.sampled_from(["type", "text"]), st.text(max_size=5)), max_size=2
            ),
        ),
        "message": st.one_of(
            st.none(),
            st.fixed_dictionaries(
                {
                    "role": st.sampled_from(
                        [
                            "user",
                            "assistant",
                            "toolResult",
                            "bashExecution",
                            "custom",
                            "branchSummary",
                            "compactionSummary",
                            "??",
                        ]
                    )
                },
                optional={
                    "content": st.one_of(
                        st.none(),
                        st.text(max_size=5),
                        st.lists(
                            st.dictionaries(
                                st.sampled_from(
                                    ["type", "text", "id", "name", "arguments", "thinking"]
                                ),
                                st.one_of(
                                    st.text(max_size=4),
                                    st.sampled_from(["text", "toolCall", "thinking", "image"]),
                                ),
                            ),
                            max_size=3,
                        ),
                    ),
                    "toolCallId": st.one_of(st.text(max_size=3), st.integers(-9, 9)),
                    "exitCode": st.one_of(st.none(), st.integers(0, 2)),
                    "timestamp": st.one_of(st.integers(0, 2**41), st.text(max_size=3)),
                    "stopReason": st.sampled_from(
                        ["stop", "toolUse", "aborted", "error", "length"]
                    ),
                },
            ),
        ),
    },
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(entries=st.lists(pi_odd_entries, max_size=10), version=st.sampled_from([1, 2, 3]))
def test_odd_entries_never_break_lowering(
    tmp_path: Path, entries: list[dict[str, Any]], version: int
) -> None:
    header = {
        "type": "session",
        "version": version,
        "id": "h",
        "timestamp": "2026-01-01T00:00:00Z",
        "cwd": "/",
    }
    path = write_lines(tmp_path / "odd.jsonl", [header, *entries])
    session = lower_with(pi, path)
    check_invariants(session)
    assert raised(session) == path.read_bytes()
    # raising any suffix of the events keeps every parent link inside the raised file
    lines = [
        orjson.loads(line)
        for line in pi.raise_records(session, session.events[len(session.events) // 2 :])
    ]
    ids = {line.get("id") for line in lines}
    never_there = {e.get("parentId") for e in entries} - {e.get("id") for e in entries}
    linked = ids | never_there | {None}
    assert all(line.get("parentId") in linked for line in lines[1:] if "parentId" in line)


def pi_finished(session: Session, turn: Any) -> bool:
    """Read from the native entries alone: the turn's last assistant message stopped normally
    (no abort, error or length stop, no tool call of its own) and every tool call was answered."""
    indexes = sorted(
        {e.origin for e in session.events[turn.start : turn.end] if e.origin is not None}
    )
    messages = [session.records[i].value.get("message") or {} for i in indexes]
    replies = [m for m in messages if m.get("role") == "assistant"]
    if not replies:
        return False
    last = replies[-1]
    calls = {
        b.get("id")
        for m in replies
        for b in m.get("content") or []
        if isinstance(b, dict) and b.get("type") == "toolCall"
    }
    answered = {m.get("toolCallId") for m in messages if m.get("role") == "toolResult"}
    own_calls = any(
        isinstance(b, dict) and b.get("type") == "toolCall" for b in last.get("content") or []
    )
    return (
        last.get("stopReason") not in ("aborted", "error", "length", "toolUse")
        and not own_calls
        and calls <= answered
    )


@pytest.mark.parametrize("path", PI_SAMPLES, ids=lambda p: p.name)
def test_a_turn_is_completed_exactly_when_pi_finished_it(path: Path) -> None:
    """`Turn.completed` (what show, the turn list and klip call completed) matches pi's own
    record: turns the user aborted (Esc), that failed, or that a new prompt cut off are not."""
    session = lower_with(pi, path)
    assert session.turns
    for turn in session.turns:
        assert turn.completed == pi_finished(session, turn), turn.number
    assert any(t.completed for t in session.turns) and not all(t.completed for t in session.turns)
