"""Claude Code adapter: sniffing, lowering (turns, tool pairs, chunks, sidechains, branches,
compaction, titles, images, unknown lines) and the byte-for-byte round trip, on the real
samples and on generated files for what the samples lack."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from conftest import sample_files
from hypothesis import given, settings
from hypothesis import strategies as st

from klipui.session.formats import claude, codex, detect_format
from klipui.session.formats._native import record_indexes
from klipui.session.jsonl import read_jsonl
from klipui.session.load import open_session
from klipui.session.model import Session
from tests.format_support import json_lines, write_lines

CLAUDE = sample_files("claude-code")
SAMPLE = {p.name: p for p in CLAUDE}
OTHERS = [p for p in sample_files() if p.parent.name != "claude-code"]


def good_lines(path: Path, session: Session) -> bytes:
    """The file's bytes without the lines reported as problems, lines joined by newlines."""
    bad = {p.line for p in session.problems}
    lines = path.read_bytes().split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return b"\n".join(line for n, line in enumerate(lines, 1) if n not in bad and line.strip())


def raised(session: Session, events: list | None = None) -> bytes:
    return b"\n".join(claude.raise_records(session, session.events if events is None else events))


def prompts(session: Session) -> list[str]:
    return [turn.prompt for turn in session.turns]


def text_of(value: dict[str, Any]) -> str:
    content = value["message"]["content"]
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if isinstance(b, dict))


# ------------------------------------------------------------------------------ sniffing


@pytest.mark.parametrize("path", CLAUDE, ids=lambda p: p.name)
def test_every_claude_sample_is_sniffed_as_claude_only(path: Path) -> None:
    values = [r.value for r in read_jsonl(path).records]
    assert claude.sniff(values)
    assert not codex.sniff(values)
    assert detect_format(values) is claude.ADAPTER


@pytest.mark.parametrize("path", OTHERS, ids=lambda p: p.name)
def test_other_formats_are_not_claimed(path: Path) -> None:
    values = [r.value for r in read_jsonl(path).records][:64]
    assert not claude.sniff(values)


# ------------------------------------------------------------------------------ round trip


@pytest.mark.parametrize("path", CLAUDE, ids=lambda p: p.name)
def test_round_trip_is_byte_identical(path: Path) -> None:
    session = open_session(path)
    assert raised(session) == good_lines(path, session)


@pytest.mark.parametrize("path", CLAUDE, ids=lambda p: p.name)
def test_lowering_invariants(path: Path) -> None:
    session = open_session(path)
    events = session.events
    assert [e.seq for e in events] == list(range(len(events)))
    covered = {i for e in events for i in record_indexes(e)}
    assert covered == set(range(len(session.records)))
    by_seq = {e.seq: e for e in events}
    turn_of = {}
    for turn in session.turns:
        for index in range(turn.start, turn.end):
            turn_of[index] = turn.number
    for index, event in enumerate(events):
        if event.type in ("turn/start", "turn/end"):
            assert event.origin is None
        if event.type == "tool/result" and event.source_event_seqs is not None:
            (call_seq,) = event.source_event_seqs
            call = by_seq[call_seq]
            assert call.type == "tool/call" and call_seq < event.seq
            assert call.data["callId"] == event.data["message"]["source"]["callId"]
            assert turn_of.get(call_seq) == turn_of.get(index)
    for turn in session.turns:
        first = events[turn.start]
        assert first.type == "turn/start"
        prompt = next(
            e
            for e in events[turn.start : turn.end]
            if e.data.get("source", {}).get("kind") == "user"
        )
        value = session.records[prompt.origin].value
        assert value["type"] == "user" and not value.get("isMeta")
        assert not value.get("isCompactSummary") and "toolUseResult" not in value


# ------------------------------------------------------------------------------ turns


EXPECTED_PROMPTS = {
    # read off each file: the user lines a person typed (not tool results, meta, summaries)
    "ccl_dag_compact_after_rewind.jsonl": [
        "Start",
        "Second attempt",
        "Keep going",
        "After compaction",
    ],
    "ccl_todowrite_examples.jsonl": [
        "Can you help me implement a new feature with proper task management?",
        "Can you add a task for security review as well?",
    ],
    "cct_sample_session.jsonl": ["Create a hello world function", "Now add a goodbye function"],
    "ccusage_usage_alpha.jsonl": [],
    "ccv_1af7fc5e_tools_error.jsonl": ["/init"],
    "ccv_5c0375b4_task_sidechain.jsonl": [
        "/orchestrator @CLAUDE.md を最新の状態にアップデートしてください"
    ],
    "ccv_fe5e1c67_sidechains_summary_errors.jsonl": [
        "/orchestrator create TODO app by Next.js",
        "Thanks! Please update CLAUDE.md for current changes",
    ],
    "ccl_subagents_agent-showcol1.jsonl": [
        "Survey src/web and report its layout, with a screenshot."
    ],
    "ccv_agent-test-hash-123_legacy_agent_file.jsonl": ["Run the test suite"],
    "ccl_edge_cases.jsonl": [
        "Here's a message with some **markdown** formatting, `inline code`, and even a "
        "[link](https://example.com). Let's see how it renders!",
        None,  # a long Lorem ipsum prompt, checked by prefix below
        "test-command --verbose --output /tmp/test.log",
        "Testing special characters: café, naïve, résumé, 中文, العربية, русский, 🎉 emojis 🚀 "
        "and symbols ∑∆√π∞",
    ],
}


@pytest.mark.parametrize("name", sorted(EXPECTED_PROMPTS))
def test_turns_start_at_typed_prompts(name: str) -> None:
    session = open_session(SAMPLE[name])
    expected = EXPECTED_PROMPTS[name]
    got = prompts(session)
    assert len(got) == len(expected)
    for want, have in zip(expected, got, strict=True):
        if want is None:
            assert have.startswith("Let's test a very long message")
        else:
            assert have == want


def test_representative_sample_turns_match_its_plain_user_lines() -> None:
    path = SAMPLE["ccl_representative_messages.jsonl"]
    typed = [
        text_of(v)
        for v in json_lines(path)
        if v.get("type") == "user" and "toolUseResult" not in v and not v.get("isMeta")
    ]
    assert prompts(open_session(path)) == [t.splitlines()[0] for t in typed]


def test_meta_and_tool_result_lines_never_open_turns() -> None:
    session = open_session(SAMPLE["ccv_1af7fc5e_tools_error.jsonl"])
    assert len(session.turns) == 1
    meta = [
        e for e in session.events if e.type == "user/message" and e.data["source"]["kind"] == "meta"
    ]
    assert len(meta) == 1 and session.records[meta[0].origin].value["isMeta"]


# ------------------------------------------------------------------------------ chunks and tools


@pytest.mark.parametrize(
    "name", ["ccv_1af7fc5e_tools_error.jsonl", "ccv_fe5e1c67_sidechains_summary_errors.jsonl"]
)
def test_chunks_of_one_message_id_make_one_assistant_message(name: str) -> None:
    session = open_session(SAMPLE[name])
    values = [r.value for r in session.records]
    assistant_ids = [
        v["message"]["id"]
        for v in values
        if v.get("type") == "assistant" and isinstance(v.get("message"), dict)
    ]
    messages = [e for e in session.events if e.type == "assistant/message"]
    assert len(messages) == len(set(assistant_ids))
    for event in messages:
        indexes = record_indexes(event)
        assert event.origin == indexes[0]
        assert {values[i]["message"]["id"] for i in indexes} == {event.data["message"]["id"]}
        tool_uses = [
            b["id"]
            for i in indexes
            for b in values[i]["message"]["content"]
            if b["type"] == "tool_use"
        ]
        blocks = [b["id"] for b in event.data["message"]["content"] if b["type"] == "tool-call"]
        assert blocks == tool_uses
    biggest = max(messages, key=lambda e: len(record_indexes(e)))
    assert len(record_indexes(biggest)) > 1


@pytest.mark.parametrize("path", CLAUDE, ids=lambda p: p.name)
def test_every_tool_use_and_result_is_paired_by_id(path: Path) -> None:
    session = open_session(path)
    values = [r.value for r in session.records]
    uses, results = set(), set()
    for v in values:
        message = v.get("message")
        content = message.get("content") if isinstance(message, dict) else None
        for block in content if isinstance(content, list) else ():
            if isinstance(block, dict) and block.get("type") == "tool_use":
                uses.add(block["id"])
            if isinstance(block, dict) and block.get("type") == "tool_result":
                results.add(block["tool_use_id"])
    calls = {e.data["callId"]: e for e in session.events if e.type == "tool/call"}
    assert set(calls) == uses
    cited = {
        e.data["message"]["source"]["callId"]: e.source_event_seqs
        for e in session.events
        if e.type == "tool/result"
    }
    assert set(cited) == results
    for call_id, seqs in cited.items():
        assert seqs == ([calls[call_id].seq] if call_id in calls else None)


def test_tool_use_result_travels_with_its_result() -> None:
    session = open_session(SAMPLE["ccv_5c0375b4_task_sidechain.jsonl"])
    results = [e for e in session.events if e.type == "tool/result"]
    with_meta = [e for e in results if "meta" in e.data]
    assert len(with_meta) == len(results)
    for event in with_meta:
        native = session.records[event.origin].value
        assert event.data["meta"]["toolUseResult"] == native["toolUseResult"]
    errors = open_session(SAMPLE["ccl_edge_cases.jsonl"])
    failed = [e for e in errors.events if e.type == "tool/result"]
    assert failed[0].data["message"]["content"][0]["isError"] is True
    assert errors.turns[1].errors == 1


# ------------------------------------------------------------------------------ sidechains


def test_inline_sidechains_are_ignorable_and_never_open_turns() -> None:
    path = SAMPLE["ccv_fe5e1c67_sidechains_summary_errors.jsonl"]
    session = open_session(path)
    side_lines = sum(1 for v in json_lines(path) if v.get("isSidechain"))
    side_events = [e for e in session.events if e.data.get("sidechain")]
    assert {i for e in side_events for i in record_indexes(e)} == {
        i for i, r in enumerate(session.records) if r.value.get("isSidechain")
    }
    assert side_lines == len({i for e in side_events for i in record_indexes(e)})
    assert all(e.ignorable for e in side_events)
    main = [e for e in session.events if e.type == "user/message" and not e.ignorable]
    assert [e.data["source"]["kind"] for e in main].count("user") == 2


@pytest.mark.parametrize(
    "name", ["ccv_5c0375b4_task_sidechain.jsonl", "ccv_fe5e1c67_sidechains_summary_errors.jsonl"]
)
def test_each_sidechain_links_to_the_task_call_that_spawned_it(name: str) -> None:
    session = open_session(SAMPLE[name])
    calls = {e.data["callId"]: e for e in session.events if e.type == "tool/call"}
    turn_of = {i: t.number for t in session.turns for i in range(t.start, t.end)}
    roots = [
        e
        for e in session.events
        if e.type == "user/message" and e.data.get("sidechain")
        if session.records[e.origin].value["parentUuid"] is None
    ]
    assert roots
    for root in roots:
        call = calls[root.data["sidechain"]["callId"]]
        assert not call.ignorable and call.data["name"] == "Task"
        assert (
            orjson.loads(call.data["arguments"])["prompt"].strip()
            == text_of(session.records[root.origin].value).strip()
        )
        assert turn_of[call.seq] == turn_of[root.seq]
    linked = {e.data["sidechain"]["callId"] for e in session.events if e.data.get("sidechain")}
    assert linked == {r.data["sidechain"]["callId"] for r in roots}


def test_subagent_file_is_its_own_conversation() -> None:
    session = open_session(SAMPLE["ccl_subagents_agent-showcol1.jsonl"])
    assert len(session.turns) == 1
    assert not any(e.ignorable for e in session.events)
    assert session.turns[0].completed


def test_subagent_files_next_to_a_session_are_found(tmp_path: Path) -> None:
    source = SAMPLE["ccv_5c0375b4_task_sidechain.jsonl"]
    session_id = json_lines(source)[0]["sessionId"]
    project = tmp_path / "-work-demo"
    project.mkdir()
    main = project / f"{session_id}.jsonl"
    main.write_bytes(source.read_bytes())
    nested = project / session_id / "subagents"
    nested.mkdir(parents=True)
    agent_new = nested / "agent-a1.jsonl"
    agent_new.write_bytes(SAMPLE["ccl_subagents_agent-showcol1.jsonl"].read_bytes())
    (nested / "agent-a1.meta.json").write_text("{}")
    legacy = project / "agent-legacy1.jsonl"
    legacy.write_bytes(SAMPLE["ccv_agent-test-hash-123_legacy_agent_file.jsonl"].read_bytes())
    stranger = project / "agent-other.jsonl"
    write_lines(stranger, [{**json_lines(legacy)[0], "sessionId": "someone-else"}])
    assert json_lines(legacy)[0]["sessionId"] == session_id
    session = open_session(main)
    assert session.subagents == [agent_new, legacy]
    assert open_session(legacy).subagents == []


# ------------------------------------------------------------------------------ titles, compaction


@pytest.mark.parametrize(
    "name",
    [
        "ccv_fe5e1c67_sidechains_summary_errors.jsonl",
        "ccl_todowrite_examples.jsonl",
        "cct_sample_session.jsonl",
        "ccl_edge_cases.jsonl",
    ],
)
def test_summary_lines_give_the_title(name: str) -> None:
    path = SAMPLE[name]
    summaries = [v["summary"] for v in json_lines(path) if v.get("type") == "summary"]
    session = open_session(path)
    assert session.title == summaries[-1]
    titles = [e for e in session.events if e.type == "session/title"]
    assert [e.data["title"] for e in titles] == summaries
    assert claude.info(path, json_lines(path)).title == summaries[-1]


def test_compact_boundary_and_summary_line() -> None:
    path = SAMPLE["ccl_dag_compact_after_rewind.jsonl"]
    values = json_lines(path)
    summary_line = next(v for v in values if v.get("isCompactSummary"))
    session = open_session(path)
    (compaction,) = [e for e in session.events if e.type == "compaction/summary"]
    assert compaction.data["summary"] == text_of(summary_line)
    assert compaction.data["trigger"] == "auto" and compaction.data["preTokens"] == 150000
    replacing = session.events[compaction.seq + 1]
    assert replacing.type == "user/message"
    assert replacing.data["source"]["kind"] == "compaction"
    last = session.turns[-1]
    assert session.events[last.start + 1] is compaction, "an auto compaction opens the next turn"
    assert last.prompt == "After compaction"
    prompt = session.events[compaction.seq + 2]
    assert prompt.data["content"][0]["text"] == "After compaction"


# ------------------------------------------------------------------------------ branches


def test_rewind_branch_is_kept_reachable_but_off_the_main_line() -> None:
    path = SAMPLE["ccl_dag_compact_after_rewind.jsonl"]
    session = open_session(path)
    branch = [e for e in session.events if e.type == "claude/branch"]
    assert [e.data["uuid"] for e in branch] == ["b1u", "b1a"]
    assert all(e.ignorable for e in branch)
    texts = [
        b["text"]
        for e in session.events
        if e.type in ("user/message", "assistant/message") and not e.ignorable
        for b in (e.data.get("content") or e.data["message"]["content"])
    ]
    assert "First attempt" not in texts and "First answer" not in texts
    assert "Second attempt" in texts and "Final answer" in texts


@pytest.mark.parametrize("path", CLAUDE, ids=lambda p: p.name)
def test_parallel_results_and_sidechains_are_not_branches(path: Path) -> None:
    if path.name == "ccl_dag_compact_after_rewind.jsonl":
        pytest.skip("has a real rewind branch")
    assert not [e for e in open_session(path).events if e.type == "claude/branch"]


def _line(kind: str, uuid: str, parent: str | None, **more: Any) -> dict[str, Any]:
    value: dict[str, Any] = {
        "type": kind,
        "uuid": uuid,
        "parentUuid": parent,
        "sessionId": "s-gen",
        "timestamp": "2026-01-01T10:00:00.000Z",
        "cwd": "/work/gen",
        "isSidechain": False,
    }
    value.update(more)
    return value


def _user(uuid: str, parent: str | None, content: Any, **more: Any) -> dict[str, Any]:
    return _line("user", uuid, parent, message={"role": "user", "content": content}, **more)


def _assistant(uuid: str, parent: str | None, msg_id: str, blocks: list, **more: Any) -> dict:
    message = {
        "id": msg_id,
        "type": "message",
        "role": "assistant",
        "model": "claude-x",
        "content": blocks,
        "stop_reason": "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn",
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    return _line("assistant", uuid, parent, message=message, **more)


def _text(text: str) -> list[dict[str, str]]:
    return [{"type": "text", "text": text}]


def test_regenerated_reply_is_a_branch_and_raising_relinks(tmp_path: Path) -> None:
    values = [
        _user("u1", None, "first"),
        _assistant("a1", "u1", "m1", _text("old reply")),
        _assistant("a2", "u1", "m2", _text("new reply")),
        _user("u2", "a2", "second"),
        _assistant("a3", "u2", "m3", _text("done")),
    ]
    path = write_lines(tmp_path / "regen.jsonl", values)
    session = open_session(path)
    assert [e.data["uuid"] for e in session.events if e.type == "claude/branch"] == ["a1"]
    assert prompts(session) == ["first", "second"]
    assert raised(session) + b"\n" == path.read_bytes()
    # keep turn 2 only: its prompt loses its dropped parent and becomes a root
    kept = session.events[session.turns[1].start : session.turns[1].end]
    out = [orjson.loads(line) for line in claude.raise_records(session, kept)]
    assert [v["uuid"] for v in out] == ["u2", "a3"]
    assert out[0]["parentUuid"] is None and out[1]["parentUuid"] == "u2"


def test_dropping_a_middle_turn_relinks_to_the_nearest_kept_line(tmp_path: Path) -> None:
    path = SAMPLE["ccl_dag_compact_after_rewind.jsonl"]
    session = open_session(path)
    drop = session.turns[1]
    kept = session.events[: drop.start] + session.events[drop.end :]
    out = [orjson.loads(line) for line in claude.raise_records(session, kept)]
    by_uuid = {v["uuid"]: v for v in out}
    keep_going = by_uuid["b2u2"]
    assert keep_going["parentUuid"] == "a1"
    untouched = [line for line in claude.raise_records(session, kept) if b'"b2u2"' not in line]
    original = path.read_bytes().split(b"\n")
    assert all(line in original for line in untouched)


# ------------------------------------------------------------------------------ images, unknowns


def test_images_become_sized_blocks(tmp_path: Path) -> None:
    picture = bytes(range(256)) * 5 + b"end"
    data = base64.b64encode(picture).decode()
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}
    use = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "a.png"}}
    result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": [image]}
    values = [
        _user("u1", None, [{"type": "text", "text": "what is this?"}, image]),
        _assistant("a1", "u1", "m1", [use]),
        _user("r1", "a1", [result], toolUseResult={"type": "image"}),
        _assistant("a2", "r1", "m2", _text("a picture")),
    ]
    path = write_lines(tmp_path / "image.jsonl", values)
    session = open_session(path)
    prompt = next(e for e in session.events if e.type == "user/message")
    assert prompt.data["content"][1] == {
        "type": "image",
        "mediaType": "image/png",
        "size": len(picture),
    }
    tool_result = next(e for e in session.events if e.type == "tool/result")
    inner = tool_result.data["message"]["content"][0]["content"]
    assert inner == [{"type": "image", "mediaType": "image/png", "size": len(picture)}]
    assert data not in json.dumps([e.to_dict() for e in session.events if e.type != "tool/result"])
    assert raised(session) + b"\n" == path.read_bytes()


def test_unknown_and_odd_lines_are_kept_never_fatal(tmp_path: Path) -> None:
    values = [
        {
            "type": "file-history-snapshot",
            "messageId": "u1",
            "snapshot": {},
            "isSnapshotUpdate": False,
        },
        _user("u1", None, "hello"),
        _line("brand-new-thing", "x1", "u1", payload={"k": [1, 2]}),
        _line("progress", "p1", "u1", data={"tick": 1}),
        _line("system", "s1", "u1", subtype="turn_duration", durationMs=5),
        {"type": "queue-operation", "operation": "enqueue", "sessionId": "s-gen"},
        _assistant("a1", "u1", "m1", [{"type": "thinking", "thinking": "hmm", "signature": "x"}]),
        _assistant("a2", "a1", "m1", _text("hi")),
        {"no": "type at all"},
    ]
    path = tmp_path / "odd.jsonl"
    path.write_bytes(
        b"\n".join(orjson.dumps(v) for v in values[:3])
        + b'\n[1, 2]\n"text"\n'
        + b"\n".join(orjson.dumps(v) for v in values[3:])
    )
    session = open_session(path)
    assert [p.line for p in session.problems] == [4, 5]
    kinds = {e.type: e for e in session.events}
    assert kinds["claude/brand-new-thing"].data == values[2]
    assert kinds["claude/brand-new-thing"].ignorable
    for kind in ("claude/progress", "claude/system", "claude/queue-operation", "claude/unknown"):
        assert kinds[kind].ignorable
    # the snapshot right before a prompt belongs to that prompt's turn
    assert session.events[0].type == "turn/start"
    assert session.events[1].type == "claude/file-history-snapshot"
    (reply,) = [e for e in session.events if e.type == "assistant/message"]
    assert [b["type"] for b in reply.data["message"]["content"]] == ["reasoning", "text"]
    assert session.turns[0].completed
    assert raised(session) == good_lines(path, session)


def test_a_prompt_typed_while_a_tool_runs_stays_in_the_turn(tmp_path: Path) -> None:
    use = {"type": "tool_use", "id": "toolu_9", "name": "Bash", "input": {"command": "sleep 9"}}
    values = [
        _user("u1", None, "run it"),
        _assistant("a1", "u1", "m1", [use]),
        _user("u2", "a1", "also check the logs"),
        _user("r1", "u2", [{"type": "tool_result", "tool_use_id": "toolu_9", "content": "ok"}]),
        _assistant("a2", "r1", "m2", _text("done")),
        _user("u3", "a2", "next"),
    ]
    session = open_session(write_lines(tmp_path / "steer.jsonl", values))
    assert prompts(session) == ["run it", "next"]
    assert session.turns[0].tool_calls == 1 and session.turns[0].completed
    assert not session.turns[1].completed


def test_info_from_the_head() -> None:
    path = SAMPLE["ccv_fe5e1c67_sidechains_summary_errors.jsonl"]
    values = json_lines(path)[:20]
    info = claude.info(path, values)
    assert info.format == "claude" and info.agent == "Claude Code"
    assert info.first_prompt == "/orchestrator create TODO app by Next.js"
    assert info.session_id == values[1]["sessionId"]
    assert info.cwd == next(v["cwd"] for v in values if "cwd" in v)


# ------------------------------------------------------------------------------ property


@st.composite
def conversations(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Random well-formed transcripts: prompts, chunked replies, parallel tools, meta lines."""
    values: list[dict[str, Any]] = []
    parent: str | None = None
    counter = 0

    def add(value: dict[str, Any]) -> None:
        nonlocal parent
        values.append(value)
        parent = value["uuid"]

    def uid() -> str:
        nonlocal counter
        counter += 1
        return f"id{counter}"

    for _ in range(draw(st.integers(0, 4))):
        if draw(st.booleans()):
            add(_user(uid(), parent, "caveat", isMeta=True))
        add(_user(uid(), parent, draw(st.sampled_from(["fix it", "why?", "go on"]))))
        for _ in range(draw(st.integers(0, 3))):
            msg = uid()
            ids = [uid() for _ in range(draw(st.integers(0, 3)))]
            if draw(st.booleans()):
                add(_assistant(uid(), parent, msg, _text("thinking aloud")))
            for call in ids:
                block = {"type": "tool_use", "id": call, "name": "Bash", "input": {"c": call}}
                add(_assistant(uid(), parent, msg, [block]))
            if draw(st.booleans()):
                add(_line("progress", uid(), parent, data={}))
            for call in draw(st.permutations(ids)):
                result = {"type": "tool_result", "tool_use_id": call, "content": "out"}
                add(_user(uid(), parent, [result], toolUseResult={"stdout": "out"}))
        if draw(st.booleans()):
            add(_assistant(uid(), parent, uid(), _text("all done")))
    return values


@settings(max_examples=60, deadline=None)
@given(conversations())
def test_generated_transcripts_round_trip_and_pair(values: list[dict[str, Any]]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = write_lines(Path(folder) / "gen.jsonl", values)
        session = open_session(path) if values else None
        if session is None:
            return
        typed = [
            v
            for v in values
            if v["type"] == "user" and "toolUseResult" not in v and not v.get("isMeta")
        ]
        assert len(session.turns) == len(typed)
        assert raised(session) + b"\n" == path.read_bytes()
        turn_of = {i: t.number for t in session.turns for i in range(t.start, t.end)}
        calls = {e.data["callId"]: e.seq for e in session.events if e.type == "tool/call"}
        for event in session.events:
            if event.type == "tool/result":
                call = calls[event.data["message"]["source"]["callId"]]
                assert event.source_event_seqs == [call]
                assert turn_of[call] == turn_of[event.seq]
        ids = {v["message"]["id"] for v in values if v["type"] == "assistant"}
        assert len([e for e in session.events if e.type == "assistant/message"]) == len(ids)


def test_repeated_chunk_lines_do_not_repeat_blocks(tmp_path: Path) -> None:
    use = {"type": "tool_use", "id": "toolu_5", "name": "Read", "input": {"file_path": "x"}}
    chunk_text = _assistant("a1", "u1", "m1", _text("reading"))
    chunk_call = _assistant("a2", "a1", "m1", [use])
    snapshot = _assistant("a3", "a2", "m1", [use], requestId="again")
    values = [
        _user("u1", None, "read x"),
        chunk_text,
        chunk_call,
        snapshot,
        _user("r1", "a3", [{"type": "tool_result", "tool_use_id": "toolu_5", "content": "x"}]),
        _assistant("a4", "r1", "m2", _text("x it is")),
    ]
    path = write_lines(tmp_path / "snap.jsonl", values)
    session = open_session(path)
    first = next(e for e in session.events if e.type == "assistant/message")
    assert [b["type"] for b in first.data["message"]["content"]] == ["text", "tool-call"]
    assert record_indexes(first) == [1, 2, 3]
    assert [e.data["callId"] for e in session.events if e.type == "tool/call"] == ["toolu_5"]
    assert session.turns[0].completed
    assert raised(session) + b"\n" == path.read_bytes()


@st.composite
def rewound_conversations(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Turns that sometimes restart from an earlier reply (Esc-Esc rewinds), in file order."""
    values: list[dict[str, Any]] = []
    replies: list[str] = []
    tip: str | None = None
    for number in range(draw(st.integers(1, 7))):
        parent = tip
        if replies and draw(st.integers(0, 2)) == 0:
            parent = draw(st.sampled_from([None, *replies]))
        values.append(_user(f"u{number}", parent, f"prompt {number}"))
        last = f"u{number}"
        if draw(st.booleans()):
            use = {"type": "tool_use", "id": f"t{number}", "name": "Bash", "input": {}}
            values.append(_assistant(f"c{number}", last, f"mc{number}", [use]))
            result = {"type": "tool_result", "tool_use_id": f"t{number}", "content": "ok"}
            values.append(_user(f"r{number}", f"c{number}", [result]))
            last = f"r{number}"
        values.append(_assistant(f"a{number}", last, f"m{number}", _text(f"reply {number}")))
        replies.append(f"a{number}")
        tip = f"a{number}"
    return values


@settings(max_examples=60, deadline=None)
@given(rewound_conversations())
def test_current_branch_is_the_chain_from_the_last_line(values: list[dict[str, Any]]) -> None:
    """Lines on the chain from the last line are shown; lines hanging off it are branch events;
    a tree with another root (a rewind to the very start) stays shown (documented limit)."""
    import tempfile

    parents = {v["uuid"]: v["parentUuid"] for v in values}
    path: list[str] = []
    node: str | None = values[-1]["uuid"]
    while node is not None:
        path.append(node)
        node = parents[node]
    on_path = set(path)
    with tempfile.TemporaryDirectory() as folder:
        session = open_session(write_lines(Path(folder) / "rewind.jsonl", values))
        shown = [
            session.records[i].value["uuid"]
            for e in session.events
            if not e.ignorable and e.type in ("user/message", "assistant/message", "tool/result")
            for i in record_indexes(e)
        ]
        branch = [e.data["uuid"] for e in session.events if e.type == "claude/branch"]
        detached = {v["uuid"] for v in values if _root_of(v["uuid"], parents) != path[-1]}
        assert set(shown) == on_path | detached
        assert set(branch) == {v["uuid"] for v in values} - on_path - detached
        typed = [u for u in shown if u.startswith("u")]
        assert len(session.turns) == len(typed)
        assert (
            raised(session) + b"\n"
            == write_lines(Path(folder) / "again.jsonl", values).read_bytes()
        )


def _root_of(uuid: str, parents: dict[str, str | None]) -> str:
    while parents[uuid] is not None:
        uuid = parents[uuid]
    return uuid
