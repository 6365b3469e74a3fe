"""Codex rollout adapter: sniffing, lowering (prompts vs injected context, response_item over
event_msg copies, call_id pairs, reasoning, turn_context, compacted, unknown lines) and the
byte-for-byte round trip, on the real samples and on generated rollouts."""

from __future__ import annotations

import base64
import tempfile
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

CODEX = sample_files("codex")
SAMPLE = {p.name[:12]: p for p in CODEX}
SYNTHETIC = SAMPLE["ccl_syntheti"]
TOKENS_ONLY = SAMPLE["ccusage_code"]
REAL = SAMPLE["rollout-2025"]
OTHERS = [p for p in sample_files() if p.parent.name != "codex"]


def raised(session: Session, events: list | None = None) -> bytes:
    return b"\n".join(codex.raise_records(session, session.events if events is None else events))


def line(kind: str, payload: dict[str, Any], second: int = 0) -> dict[str, Any]:
    return {"timestamp": f"2026-02-03T04:05:{second:02d}.000Z", "type": kind, "payload": payload}


def meta(session_id: str = "019b0000-0000-7000-8000-000000000001", **more: Any) -> dict:
    payload = {"id": session_id, "timestamp": "2026-02-03T04:05:00.000Z", "cwd": "/w/p"}
    payload.update(more)
    return line("session_meta", payload)


def user(text: str) -> dict[str, Any]:
    content = [{"type": "input_text", "text": text}]
    return line("response_item", {"type": "message", "role": "user", "content": content})


def reply(text: str) -> dict[str, Any]:
    content = [{"type": "output_text", "text": text}]
    return line("response_item", {"type": "message", "role": "assistant", "content": content})


def call(call_id: str, command: str) -> dict[str, Any]:
    arguments = orjson.dumps({"command": ["bash", "-lc", command]}).decode()
    payload = {"type": "function_call", "name": "shell", "arguments": arguments, "call_id": call_id}
    return line("response_item", payload)


def output(call_id: str, text: str, exit_code: int = 0) -> dict[str, Any]:
    wrapped = orjson.dumps({"output": text, "metadata": {"exit_code": exit_code}}).decode()
    return line(
        "response_item", {"type": "function_call_output", "call_id": call_id, "output": wrapped}
    )


ENV = "<environment_context>\n  <cwd>/w/p</cwd>\n</environment_context>"


# ------------------------------------------------------------------------------ sniffing


@pytest.mark.parametrize("path", CODEX, ids=lambda p: p.name[:40])
def test_every_codex_sample_is_sniffed_as_codex_only(path: Path) -> None:
    values = [r.value for r in read_jsonl(path).records]
    assert codex.sniff(values)
    assert not claude.sniff(values)
    assert detect_format(values) is codex.ADAPTER


@pytest.mark.parametrize("path", OTHERS, ids=lambda p: p.name[:40])
def test_other_formats_are_not_claimed(path: Path) -> None:
    assert not codex.sniff([r.value for r in read_jsonl(path).records][:64])


# ------------------------------------------------------------------------------ round trip


@pytest.mark.parametrize("path", CODEX, ids=lambda p: p.name[:40])
def test_round_trip_is_byte_identical(path: Path) -> None:
    session = open_session(path)
    assert not session.problems
    assert raised(session) + b"\n" == path.read_bytes()


@pytest.mark.parametrize("path", CODEX, ids=lambda p: p.name[:40])
def test_lowering_invariants(path: Path) -> None:
    session = open_session(path)
    events = session.events
    assert [e.seq for e in events] == list(range(len(events)))
    assert {i for e in events for i in record_indexes(e)} == set(range(len(session.records)))
    turn_of = {i: t.number for t in session.turns for i in range(t.start, t.end)}
    for event in events:
        if event.type.startswith("codex/event_msg/"):
            assert event.ignorable
        if event.type == "tool/result" and event.source_event_seqs:
            (seq,) = event.source_event_seqs
            assert events[seq].type == "tool/call" and seq < event.seq
            assert turn_of.get(seq) == turn_of.get(event.seq)


# ------------------------------------------------------------------------------ turns


def test_turns_of_the_samples_match_their_typed_prompts() -> None:
    for path in CODEX:
        typed = [
            v["payload"]["content"][0]["text"]
            for v in json_lines(path)
            if v["type"] == "response_item"
            and v["payload"].get("type") == "message"
            and v["payload"].get("role") == "user"
            and not v["payload"]["content"][0]["text"].startswith("<environment_context>")
        ]
        session = open_session(path)
        assert [t.prompt for t in session.turns] == [t.strip().splitlines()[0] for t in typed]
    assert len(open_session(SYNTHETIC).turns) == 1
    assert len(open_session(REAL).turns) == 1
    assert open_session(TOKENS_ONLY).turns == []


def test_environment_context_is_context_not_a_prompt() -> None:
    session = open_session(REAL)
    users = [e for e in session.events if e.type == "user/message"]
    kinds = [e.data["source"]["kind"] for e in users]
    assert kinds == ["context", "user"]
    assert users[0].data["content"][0]["text"].startswith("<environment_context>")
    assert session.header_events[-1] is users[0]
    assert session.header is not None and session.header["type"] == "session_meta"
    assert session.session_id == "019a93b9-f380-7600-98ff-940e6b99603c"
    assert session.cwd == json_lines(REAL)[0]["payload"]["cwd"]


def test_last_turn_without_a_final_answer_stays_open() -> None:
    real = open_session(REAL)
    assert not real.turns[0].completed
    assert not [e for e in real.events if e.type == "turn/end"]
    synthetic = open_session(SYNTHETIC)
    assert synthetic.turns[0].completed


def test_turn_context_before_a_prompt_opens_its_turn() -> None:
    session = open_session(SYNTHETIC)
    turn = session.turns[0]
    kinds = [e.type for e in session.events[turn.start : turn.start + 4]]
    assert kinds == [
        "turn/start",
        "codex/turn_context",
        "codex/event_msg/user_message",
        "user/message",
    ]
    assert [e.type for e in session.header_events] == ["codex/session_meta"]


# ------------------------------------------------------------------------------ content


def test_render_from_response_items_not_event_msg_copies() -> None:
    session = open_session(SYNTHETIC)
    shown = [e for e in session.events if not e.ignorable]
    texts = [
        b.get("text")
        for e in shown
        for b in (e.data.get("content") or e.data.get("message", {}).get("content") or [])
    ]
    assert texts.count("The synthetic files are alpha.txt and beta.txt.") == 1
    assert texts.count("List the synthetic files.") == 1
    copies = [e for e in session.events if e.type.startswith("codex/event_msg/")]
    assert {e.type for e in copies} == {
        "codex/event_msg/user_message",
        "codex/event_msg/agent_message",
    }


def test_reasoning_from_its_summary_never_the_encrypted_content() -> None:
    session = open_session(SYNTHETIC)
    shown = orjson.dumps([e.to_dict() for e in session.events if not e.ignorable])
    assert b"SYNTHETIC_ENCRYPTED_CONTENT_MUST_NOT_RENDER" not in shown
    first = next(e for e in session.events if e.type == "assistant/message")
    assert first.data["message"]["content"][0] == {
        "type": "reasoning",
        "text": "I will inspect the synthetic directory.",
    }


@pytest.mark.parametrize("path", [SYNTHETIC, REAL], ids=["synthetic", "real"])
def test_calls_and_outputs_pair_by_call_id(path: Path) -> None:
    values = json_lines(path)
    call_ids = [
        v["payload"]["call_id"]
        for v in values
        if v["type"] == "response_item" and v["payload"]["type"].endswith("call")
    ]
    session = open_session(path)
    calls = {e.data["callId"]: e for e in session.events if e.type == "tool/call"}
    assert list(calls) == call_ids
    results = [e for e in session.events if e.type == "tool/result"]
    assert len(results) == len(call_ids)
    for result in results:
        call_id = result.data["message"]["content"][0]["toolCallId"]
        assert result.source_event_seqs == [calls[call_id].seq]
    assert session.turns[0].tool_calls == len(call_ids)


def test_custom_tool_call_and_content_item_outputs() -> None:
    session = open_session(SYNTHETIC)
    patch = next(
        e for e in session.events if e.type == "tool/call" and e.data["name"] == "apply_patch"
    )
    assert orjson.loads(patch.data["arguments"])["input"].startswith("*** Begin Patch")
    result = next(e for e in session.events if e.source_event_seqs == [patch.seq])
    assert result.data["message"]["content"][0]["content"] == [{"type": "text", "text": "Done!"}]


def test_old_output_json_is_unwrapped_and_exit_codes_mark_errors() -> None:
    session = open_session(REAL)
    results = [e for e in session.events if e.type == "tool/result"]
    failing = []
    for event in results:
        native = (
            orjson.loads(session.records[event.origin].value["payload"]["output"])
            if (session.records[event.origin].value["payload"]["output"].startswith("{"))
            else None
        )
        block = event.data["message"]["content"][0]
        if native is not None:
            assert block["content"] == (
                [{"type": "text", "text": native["output"]}] if native["output"] else []
            )
            assert event.data["meta"] == native["metadata"]
            if native["metadata"]["exit_code"] != 0:
                failing.append(event)
            assert block["isError"] == (native["metadata"]["exit_code"] != 0)
    assert failing and session.turns[0].errors == len(failing)


def test_unknown_line_types_are_kept_ignorable() -> None:
    session = open_session(SYNTHETIC)
    unknown = [e for e in session.events if e.type == "codex/future_synthetic_record"]
    assert len(unknown) == 1 and unknown[0].ignorable
    assert unknown[0].data == json_lines(SYNTHETIC)[-1]


def test_tokens_only_file_keeps_every_line() -> None:
    session = open_session(TOKENS_ONLY)
    assert [e.type for e in session.events] == [
        "codex/turn_context",
        "codex/event_msg/token_count",
        "codex/event_msg/token_count",
    ]
    assert session.header is None


# ------------------------------------------------------------------------------ generated


def test_several_turns_compaction_images_and_subset_raising(tmp_path: Path) -> None:
    picture = b"\x89PNG" + bytes(300)
    url = "data:image/png;base64," + base64.b64encode(picture).decode()
    values = [
        meta(forked_from_id="019a-parent"),
        user(ENV),
        line("turn_context", {"cwd": "/w/p", "model": "m"}),
        user("first task"),
        call("c1", "ls"),
        output("c1", "a.txt"),
        reply("listed"),
        line("event_msg", {"type": "token_count", "info": None}),
        line("compacted", {"message": "we listed files", "replacement_history": [{}, {}]}),
        line("turn_context", {"cwd": "/w/p", "model": "m"}),
        user(ENV.replace("/w/p", "/w/q")),
        line(
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [
                    {"type": "input_text", "text": "what is this?"},
                    {"type": "input_image", "image_url": url},
                ],
            },
        ),
        call("c2", "false"),
        output("c2", "", exit_code=1),
        reply("an image"),
    ]
    path = write_lines(tmp_path / "rollout-gen.jsonl", values)
    session = open_session(path)
    assert [t.prompt for t in session.turns] == ["first task", "what is this?"]
    assert all(t.completed for t in session.turns)
    assert session.parent == "019a-parent"
    (compaction,) = [e for e in session.events if e.type == "compaction/summary"]
    assert compaction.data == {"summary": "we listed files", "replacementItems": 2}
    second = session.turn_events(2)
    assert [e.type for e in second[:3]] == ["turn/start", "codex/turn_context", "user/message"]
    assert second[2].data["source"]["kind"] == "context"
    prompt = next(e for e in second if e.data.get("source", {}).get("kind") == "user")
    assert prompt.data["content"][1] == {
        "type": "image",
        "mediaType": "image/png",
        "size": len(picture),
    }
    assert session.turns[1].errors == 1
    assert raised(session) + b"\n" == path.read_bytes()
    # keep turn 2 only: the session_meta line still comes first
    out = list(codex.raise_records(session, second))
    assert orjson.loads(out[0])["type"] == "session_meta"
    assert [orjson.loads(x)["type"] for x in out[1:3]] == ["turn_context", "response_item"]
    assert not any(b"first task" in x for x in out)


def test_info_from_the_head() -> None:
    values = json_lines(REAL)[:10]
    info = codex.info(REAL, values)
    assert info.format == "codex" and info.agent == "Codex"
    assert info.session_id == values[0]["payload"]["id"]
    assert info.first_prompt and info.first_prompt.startswith("finish up the users work")
    assert info.project == "chatbot-ui"


@st.composite
def rollouts(draw: st.DrawFn) -> list[dict[str, Any]]:
    values = [meta()]
    counter = 0
    for _ in range(draw(st.integers(0, 4))):
        if draw(st.booleans()):
            values.append(line("turn_context", {"cwd": "/w/p"}))
        if draw(st.booleans()):
            values.append(user(ENV))
        values.append(user(draw(st.sampled_from(["do it", "and then?", "thanks"]))))
        values.append(line("event_msg", {"type": "user_message", "message": "copy"}))
        for _ in range(draw(st.integers(0, 3))):
            ids = []
            for _ in range(draw(st.integers(1, 3))):
                counter += 1
                ids.append(f"call_{counter}")
            values.append(line("response_item", {"type": "reasoning", "summary": []}))
            values.extend(call(c, "ls") for c in ids)
            values.extend(output(c, "x", draw(st.sampled_from([0, 1]))) for c in ids)
        if draw(st.booleans()):
            values.append(reply("done"))
            values.append(line("event_msg", {"type": "agent_message", "message": "done"}))
    return values


@settings(max_examples=60, deadline=None)
@given(rollouts())
def test_generated_rollouts_round_trip_and_pair(values: list[dict[str, Any]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = write_lines(Path(folder) / "rollout.jsonl", values)
        session = open_session(path)
        prompts = [
            v
            for v in values
            if v["payload"].get("role") == "user"
            and not v["payload"]["content"][0]["text"].startswith("<environment_context>")
        ]
        assert len(session.turns) == len(prompts)
        assert raised(session) + b"\n" == path.read_bytes()
        turn_of = {i: t.number for t in session.turns for i in range(t.start, t.end)}
        calls = {e.data["callId"]: e.seq for e in session.events if e.type == "tool/call"}
        for event in session.events:
            if event.type == "tool/result":
                seq = calls[event.data["message"]["source"]["callId"]]
                assert event.source_event_seqs == [seq] and turn_of[seq] == turn_of[event.seq]
