"""Conversation utilities: walking blocks, merging, validation, sanitising, API messages."""

from __future__ import annotations

import base64
import itertools
import random
from typing import Any

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from klipui.conversation.api import NO_RESULT, START, anthropic_messages, to_openai
from klipui.conversation.merge import merge_consecutive
from klipui.conversation.sanitize import (
    human_size,
    looks_binary,
    sanitize_messages,
    sanitize_text,
)
from klipui.conversation.validate import check_alternation, check_messages, check_tool_pairs
from klipui.conversation.walk import message_text, tool_result_ids, tool_use_ids, walk_blocks
from klipui.session.model import Event

PNG = b"\x89PNG\r\n\x1a\n" + random.Random(7).randbytes(3000)
PNG64 = base64.b64encode(PNG).decode()


# --- walk ---------------------------------------------------------------------------------


def test_walk_blocks_both_shapes() -> None:
    openai = {
        "role": "assistant",
        "content": "let me look",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": '{"a": 1}'}},
            {"id": "c2", "type": "function", "function": {"name": "ls", "arguments": "not json"}},
        ],
    }
    blocks = list(walk_blocks(openai))
    assert blocks[0] == {"type": "text", "text": "let me look"}
    assert blocks[1] == {"type": "tool_use", "id": "c1", "name": "ls", "input": {"a": 1}}
    assert blocks[2]["input"] == {"arguments": "not json"}
    assert tool_use_ids(openai) == ["c1", "c2"]
    tool = {"role": "tool", "tool_call_id": "c1", "content": "out"}
    assert tool_result_ids(tool) == ["c1"]
    anthropic = {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": "x"}]},
            "loose",
        ],
    }
    assert tool_result_ids(anthropic) == ["t"]
    assert message_text(anthropic) == "x\nloose"


# --- merge --------------------------------------------------------------------------------


def test_merge_strings_and_blocks() -> None:
    merged = merge_consecutive(
        [
            {"role": "user", "content": "A"},
            {"role": "user", "content": "B"},
            {"role": "assistant", "content": "C"},
            {"role": "assistant", "content": [{"type": "text", "text": "D"}]},
            {"role": "tool", "tool_call_id": "1", "content": "r1"},
            {"role": "tool", "tool_call_id": "2", "content": "r2"},
        ]
    )
    assert merged[0] == {"role": "user", "content": "A\n\nB"}
    assert merged[1]["content"] == [{"type": "text", "text": "C"}, {"type": "text", "text": "D"}]
    assert [m["role"] for m in merged] == ["user", "assistant", "tool", "tool"]


def test_merge_openai_tool_calls_and_none_content() -> None:
    merged = merge_consecutive(
        [
            {"role": "assistant", "content": None, "tool_calls": [{"id": "a"}]},
            {"role": "assistant", "content": "x", "tool_calls": [{"id": "b"}]},
        ]
    )
    assert merged == [
        {"role": "assistant", "content": "x", "tool_calls": [{"id": "a"}, {"id": "b"}]}
    ]


messages_strategy = st.lists(
    st.fixed_dictionaries(
        {
            "role": st.sampled_from(["user", "assistant", "system"]),
            "content": st.one_of(
                st.text(max_size=5),
                st.lists(
                    st.builds(lambda t: {"type": "text", "text": t}, st.text(max_size=5)),
                    max_size=3,
                ),
            ),
        }
    ),
    max_size=12,
)


@settings(max_examples=150, deadline=None)
@given(messages_strategy)
def test_merge_properties(messages: list[dict[str, Any]]) -> None:
    original = [dict(m) for m in messages]
    merged = merge_consecutive(messages)
    assert messages == original
    for first, second in itertools.pairwise(merged):
        assert not (first["role"] == second["role"] and first["role"] in ("user", "assistant"))
    texts = [t for m in messages for t in (b["text"] for b in walk_blocks(m)) if t]
    merged_texts = [t for m in merged for t in (b["text"] for b in walk_blocks(m)) if t]
    assert "".join(merged_texts).replace("\n\n", "") == "".join(texts).replace("\n\n", "")
    assert merge_consecutive(merged) == merged


# --- validate -----------------------------------------------------------------------------


def test_anthropic_validation_names_indexes() -> None:
    messages = [
        {"role": "assistant", "content": "hi"},
        {"role": "user", "content": "a"},
        {"role": "user", "content": "b"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "x", "input": {}}],
        },
        {"role": "user", "content": [{"type": "text", "text": "no result"}]},
        {"role": "assistant", "content": "x"},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t9"}]},
    ]
    alternation = {(p.index, p.reason) for p in check_alternation(messages)}
    assert (0, "the first message is not from the user") in alternation
    assert (2, "two user messages in a row") in alternation
    pairs = [(p.index, p.reason) for p in check_tool_pairs(messages)]
    assert (3, "tool_use t1 has no tool_result in the next message") in pairs
    assert (6, "tool_result t9 answers no tool_use of the previous message") in pairs
    assert str(check_tool_pairs(messages)[0]).startswith("message 3: ")


def test_openai_validation() -> None:
    good = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "u"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "a", "function": {"name": "f"}}],
        },
        {"role": "tool", "tool_call_id": "a", "content": "r"},
        {"role": "assistant", "content": "done"},
    ]
    assert check_messages(good) == []
    bad = [
        *good[:3],
        {"role": "user", "content": "?"},
        {"role": "tool", "tool_call_id": "zz", "content": "r"},
    ]
    reasons = {(p.index, p.reason) for p in check_messages(bad)}
    assert (2, "tool call a has no tool message after it") in reasons
    assert (4, "tool message zz answers no pending tool call") in reasons


# --- sanitize -----------------------------------------------------------------------------


def test_sanitize_base64_blob_and_data_url() -> None:
    text = f"before\n{PNG64}\nafter"
    clean, count = sanitize_text(text)
    assert count == 1
    assert clean == f"before\n[base64 data omitted: image/png, {human_size(len(PNG))}]\nafter"
    url = f"see data:image/jpeg;base64,{PNG64} end"
    clean, count = sanitize_text(url)
    assert (
        count == 1 and clean == f"see [base64 data omitted: image/jpeg, {human_size(len(PNG))}] end"
    )


def test_sanitize_leaves_ordinary_text() -> None:
    hashes = " ".join(f"{n:064x}" for n in range(40))
    words = "a" * 5000
    path = "/usr/lib/python3.11/site-packages/" * 50
    for text in (hashes, words, path, "short"):
        assert sanitize_text(text) == (text, 0)
    ansi = "\x1b[31mred\x1b[0m\n" * 100
    assert not looks_binary(ansi)


def test_sanitize_binary() -> None:
    blob = PNG.decode("latin-1")
    clean, count = sanitize_text(blob)
    assert count == 1 and clean.startswith("[binary content omitted: ")
    assert looks_binary("ok\x00")


def test_sanitize_messages_images() -> None:
    messages = [
        {
            "role": "user",
            "content": [
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": PNG64},
                },
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG64}"}},
                {
                    "type": "tool_result",
                    "tool_use_id": "x",
                    "content": [{"type": "text", "text": PNG64}],
                },
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"},
                },
            ],
        }
    ]
    result = sanitize_messages(messages)
    assert result.replaced == 3
    blocks = result.messages[0]["content"]
    assert blocks[0] == {
        "type": "text",
        "text": f"[base64 data omitted: image/png, {human_size(len(PNG))}]",
    }
    assert blocks[1]["type"] == "text"
    assert "omitted" in blocks[2]["content"][0]["text"]
    assert blocks[3] == messages[0]["content"][3]
    assert messages[0]["content"][0]["type"] == "image"


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(max_size=40),
            st.binary(min_size=800, max_size=1600).map(lambda b: base64.b64encode(b).decode()),
        ),
        max_size=6,
    )
)
def test_sanitize_text_properties(parts: list[str]) -> None:
    text = "\n".join(parts)
    clean, count = sanitize_text(text)
    again, more = sanitize_text(clean)
    assert again == clean and more == 0
    assert len(clean) <= max(len(text), 64)
    blobs = [
        p
        for p in parts
        if len(p) >= 1024
        and any(c.isupper() for c in p)
        and any(c.islower() for c in p)
        and any(c.isdigit() for c in p)
    ]
    if blobs and not looks_binary(text):
        assert count >= 1 and all(b not in clean for b in blobs)


# --- API messages from events -------------------------------------------------------------


def ev(kind: str, ignorable: bool = False, sources: list[int] | None = None, **data: Any) -> Event:
    return Event(type=kind, seq=0, data=data, ignorable=ignorable, source_event_seqs=sources)


def user(text: str) -> Event:
    return ev(
        "user/message",
        id="u",
        role="user",
        content=[{"type": "text", "text": text}],
        source={"kind": "user"},
    )


def assistant(*blocks: dict[str, Any]) -> Event:
    return ev("assistant/message", message={"role": "assistant", "content": list(blocks)})


def call_block(call_id: str) -> dict[str, Any]:
    return {"type": "tool-call", "id": call_id, "name": "bash", "arguments": '{"command": "ls"}'}


def result(call_id: str, text: str = "out", error: bool = False) -> Event:
    block = {
        "type": "tool-result",
        "toolCallId": call_id,
        "content": [{"type": "text", "text": text}],
        "isError": error,
    }
    return ev(
        "tool/result",
        message={"role": "user", "content": [block], "source": {"kind": "tool", "callId": call_id}},
    )


def test_api_messages_repairs() -> None:
    events = [
        assistant({"type": "text", "text": "hello first"}),
        user("do it"),
        assistant({"type": "reasoning", "text": "secret"}, call_block("c1"), call_block("c2")),
        result("c1"),
        user("interjection"),
        assistant({"type": "text", "text": "later"}),
        result("c2", "late", error=True),
        result("ghost", "orphan"),
        ev("tool/call", callId="c3", name="read", arguments="{}"),
        ev("user/message", ignorable=True, content=[{"type": "text", "text": "sidechain"}]),
        ev("compaction/summary", summary="we did things"),
        user("next"),
    ]
    system, messages, _ = anthropic_messages(events)
    assert system is None
    assert check_messages(messages) == []
    assert messages[0] == {"role": "user", "content": [{"type": "text", "text": START}]}
    dumped = orjson.dumps(messages).decode()
    assert "secret" not in dumped and "sidechain" not in dumped
    assert [m["role"] for m in messages[:4]] == ["user", "assistant", "user", "assistant"]
    calls = messages[3]
    assert [b["id"] for b in calls["content"] if b["type"] == "tool_use"] == ["c1", "c2"]
    answer = messages[4]["content"]
    assert [b.get("tool_use_id") for b in answer[:2]] == ["c1", "c2"]
    assert answer[1]["is_error"] and answer[1]["content"] == "late"
    assert answer[2] == {"type": "text", "text": "interjection"}
    texts = [b["text"] for m in messages for b in m["content"] if b["type"] == "text"]
    assert any("ghost" in t and "orphan" in t for t in texts)
    c3 = next(m for m in messages if any(b.get("id") == "c3" for b in m["content"]))
    after = messages[messages.index(c3) + 1]["content"][0]
    assert after["tool_use_id"] == "c3" and after["content"] == NO_RESULT
    assert any("we did things" in t for t in texts)
    openai = to_openai("sys", messages)
    assert openai[0] == {"role": "system", "content": "sys"}
    assert check_messages(openai) == []
    tool = next(m for m in openai if m["role"] == "tool" and m["tool_call_id"] == "c2")
    assert tool["content"] == "(error) late"


@st.composite
def event_logs(draw: st.DrawFn) -> list[Event]:
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    ids: list[str] = []
    events: list[Event] = []
    for _ in range(draw(st.integers(0, 25))):
        roll = rng.random()
        if roll < 0.2:
            events.append(user(rng.choice(["", " ", "ask", "more"])))
        elif roll < 0.45:
            blocks = [{"type": "text", "text": rng.choice(["", "ok", "hmm"])}]
            for _ in range(rng.randrange(3)):
                ids.append(f"c{len(ids)}" if rng.random() < 0.9 or not ids else rng.choice(ids))
                blocks.append(call_block(ids[-1]))
            events.append(assistant(*blocks))
        elif roll < 0.55:
            ids.append(f"c{len(ids)}")
            events.append(
                ev(
                    "tool/call",
                    callId=ids[-1],
                    name="t",
                    arguments=rng.choice(["{}", "[1]", "bad"]),
                )
            )
        elif roll < 0.85:
            target = rng.choice(ids) if ids and rng.random() < 0.85 else "nowhere"
            events.append(result(target, rng.choice(["", "x", PNG64]), rng.random() < 0.2))
        elif roll < 0.9:
            events.append(ev("compaction/summary", summary="sum"))
        else:
            events.append(ev("pi/model_change", ignorable=True, modelId="m"))
    return events


@settings(max_examples=200, deadline=None)
@given(event_logs())
def test_api_messages_always_valid(events: list[Event]) -> None:
    _system, messages, _ = anthropic_messages(events)
    if not messages:
        return
    assert check_messages(messages) == [], orjson.dumps(messages).decode()
    assert all(PNG64 not in orjson.dumps(m).decode() for m in messages)
    assert check_messages(to_openai(None, messages)) == []
    for message in messages:
        for block in message["content"]:
            if block["type"] == "tool_use":
                assert isinstance(block["input"], dict)
            if block["type"] == "text":
                assert block["text"].strip()
