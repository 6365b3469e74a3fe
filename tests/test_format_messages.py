"""Generic messages JSONL: OpenAI and Anthropic shapes, a message or a conversation a line."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from klipui.session.formats import messages
from klipui.session.jsonl import read_jsonl
from klipui.session.model import Session
from tests.format_support import check_invariants, lower_with, write_lines


def raised(session: Session, events: list | None = None) -> bytes:
    lines = messages.raise_records(session, session.events if events is None else events)
    return b"".join(line + b"\n" for line in lines)


def openai_conversation(rng: random.Random, turns: int, tag: str = "") -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": "You are terse."}]
    for t in range(turns):
        out.append({"role": "user", "content": f"task {tag}{t}"})
        for c in range(rng.randrange(3)):
            ids = [f"call_{tag}{t}_{c}_{k}" for k in range(rng.randrange(1, 3))]
            out.append(
                {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": i,
                            "type": "function",
                            "function": {"name": "shell", "arguments": '{"cmd": "ls"}'},
                        }
                        for i in ids
                    ],
                }
            )
            out.extend({"role": "tool", "tool_call_id": i, "content": f"out {i}"} for i in ids)
        out.append({"role": "assistant", "content": f"done {tag}{t}"})
    return out


def anthropic_conversation(rng: random.Random, turns: int, tag: str = "") -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for t in range(turns):
        out.append({"role": "user", "content": [{"type": "text", "text": f"task {tag}{t}"}]})
        for c in range(rng.randrange(3)):
            ids = [f"toolu_{tag}{t}_{c}_{k}" for k in range(rng.randrange(1, 3))]
            out.append(
                {
                    "role": "assistant",
                    "content": [{"type": "thinking", "thinking": "hm", "signature": "s"}]
                    + [
                        {"type": "tool_use", "id": i, "name": "Read", "input": {"path": "a"}}
                        for i in ids
                    ],
                }
            )
            results = [
                {"type": "tool_result", "tool_use_id": i, "content": f"out {i}", "is_error": c == 1}
                for i in ids
            ]
            if rng.random() < 0.3:
                results.append({"type": "text", "text": "and also this"})
            out.append({"role": "user", "content": results})
        out.append({"role": "assistant", "content": [{"type": "text", "text": f"done {tag}{t}"}]})
    return out


def test_openai_lines(tmp_path: Path) -> None:
    conversation = openai_conversation(random.Random(1), 4)
    path = write_lines(tmp_path / "o.jsonl", conversation)
    assert messages.sniff(conversation)
    session = lower_with(messages, path)
    check_invariants(session, same_turn_citations=True)
    assert raised(session) == path.read_bytes()
    assert [t.prompt for t in session.turns] == [f"task {t}" for t in range(4)]
    assert all(t.completed for t in session.turns)
    calls = sum(len(m.get("tool_calls", [])) for m in conversation)
    assert sum(t.tool_calls for t in session.turns) == calls
    assert session.events[0].type == "messages/system" and session.events[0].ignorable
    assert all(e.source_event_seqs for e in session.events if e.type == "tool/result")


def test_anthropic_lines(tmp_path: Path) -> None:
    conversation = anthropic_conversation(random.Random(2), 5)
    path = write_lines(tmp_path / "a.jsonl", conversation)
    session = lower_with(messages, path)
    check_invariants(session, same_turn_citations=True)
    assert raised(session) == path.read_bytes()
    errors = sum(
        1
        for m in conversation
        if isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result" and b["is_error"]
    )
    assert sum(t.errors for t in session.turns) == errors
    reasoning = [
        b
        for e in session.events
        if e.type == "assistant/message"
        for b in e.data["message"]["content"]
        if b["type"] == "reasoning"
    ]
    assert reasoning and all(b["text"] == "hm" for b in reasoning)


def test_conversation_lines(tmp_path: Path) -> None:
    rng = random.Random(3)
    lines = [
        {"messages": openai_conversation(rng, 2, "a"), "id": "one"},
        {"messages": anthropic_conversation(rng, 3, "b")},
    ]
    path = write_lines(tmp_path / "c.jsonl", lines)
    assert messages.sniff(lines)
    session = lower_with(messages, path)
    check_invariants(session, same_turn_citations=True)
    assert raised(session) == path.read_bytes()
    assert len(session.turns) == 5
    assert {e.origin for e in session.events if e.origin is not None} == {0, 1}
    # raising one turn of a conversation line rebuilds that line with that turn only
    turn = session.turn_events(2)
    (line,) = messages.raise_records(session, turn)
    rebuilt = orjson.loads(line)
    assert rebuilt["id"] == "one"
    assert rebuilt["messages"][0] == {"role": "user", "content": "task a1"}
    assert rebuilt["messages"][-1] == {"role": "assistant", "content": "done a1"}


def test_partial_user_message_drops_dropped_results(tmp_path: Path) -> None:
    values = [
        {"role": "user", "content": "go"},
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "x", "input": {}}],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "r"},
                {"type": "text", "text": "next question"},
            ],
        },
        {"role": "assistant", "content": "answer"},
    ]
    path = write_lines(tmp_path / "p.jsonl", values)
    session = lower_with(messages, path)
    assert len(session.turns) == 2 and session.turns[1].prompt == "next question"
    kept = session.turn_events(2)
    lines = [orjson.loads(line) for line in messages.raise_records(session, kept)]
    assert lines == [
        {"role": "user", "content": [{"type": "text", "text": "next question"}]},
        {"role": "assistant", "content": "answer"},
    ]


def test_unknown_lines_and_images(tmp_path: Path) -> None:
    png = "iVBORw0KGgo" + "A" * 400
    values = [
        {"type": "meta", "model": "x"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "look"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{png}"}},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/jpeg", "data": png},
                },
            ],
        },
        {"role": "function", "name": "f", "content": "legacy"},
        {"role": "assistant", "content": "seen"},
    ]
    path = write_lines(tmp_path / "u.jsonl", values)
    assert messages.sniff(values)
    assert not messages.sniff(values[:1])
    session = lower_with(messages, path)
    assert raised(session) == path.read_bytes()
    assert session.events[0].type == "messages/meta" and session.events[0].data == values[0]
    user = next(e for e in session.events if e.type == "user/message")
    images = [b for b in user.data["content"] if b["type"] == "image"]
    assert [b["mediaType"] for b in images] == ["image/png", "image/jpeg"]
    assert all(b["size"] == len(png) * 3 // 4 for b in images)
    assert any(e.type == "messages/function" for e in session.events)


def test_sniff() -> None:
    assert messages.sniff([{"role": "user", "content": "x"}])
    assert messages.sniff([{"messages": [{"role": "user", "content": "x"}]}])
    assert not messages.sniff([])
    assert not messages.sniff([{"type": "user", "message": {"role": "user", "content": "x"}}])
    assert not messages.sniff([{"role": "wizard", "content": "x"}])
    assert not messages.sniff([{"messages": []}])


def test_info(tmp_path: Path) -> None:
    path = write_lines(
        tmp_path / "i.jsonl", [{"messages": openai_conversation(random.Random(0), 1)}]
    )
    info = messages.info(path, [r.value for r in read_jsonl(path).records])
    assert info.format == "messages" and info.first_prompt == "task 0" and info.title == "task 0"


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seed=st.integers(0, 2**32 - 1),
    shape=st.sampled_from(["openai", "anthropic"]),
    packed=st.booleans(),
    keep=st.lists(st.booleans(), min_size=1, max_size=12),
)
def test_round_trip_and_turn_subsets(
    tmp_path: Path, seed: int, shape: str, packed: bool, keep: list[bool]
) -> None:
    rng = random.Random(seed)
    make = openai_conversation if shape == "openai" else anthropic_conversation
    if packed:
        values: list[Any] = [
            {"messages": make(rng, rng.randrange(1, 4), f"c{n}")} for n in range(3)
        ]
    else:
        values = make(rng, rng.randrange(1, 6))
    path = write_lines(tmp_path / "r.jsonl", values)
    session = lower_with(messages, path)
    check_invariants(session, same_turn_citations=True)
    assert raised(session) == path.read_bytes()
    # keep a subset of whole turns: the raised file lowers again without orphan tool results
    kept = list(session.header_events)
    for turn, flag in zip(session.turns, keep * 10, strict=False):
        if flag:
            kept.extend(session.events[turn.start : turn.end])
    out = tmp_path / "child.jsonl"
    out.write_bytes(raised(session, kept))
    child = lower_with(messages, out)
    check_invariants(child, same_turn_citations=True)
    assert [t.prompt for t in child.turns] == [
        t.prompt for t, flag in zip(session.turns, keep * 10, strict=False) if flag
    ]
    assert all(e.source_event_seqs for e in child.events if e.type == "tool/result")


def test_open_session_detects_messages(tmp_path: Path) -> None:
    from klipui.session import open_session

    rng = random.Random(5)
    for name, values in (
        ("o.jsonl", openai_conversation(rng, 2)),
        ("a.jsonl", anthropic_conversation(rng, 2)),
        ("c.jsonl", [{"messages": openai_conversation(rng, 2)}]),
    ):
        path = write_lines(tmp_path / name, values)
        session = open_session(path)
        assert session.format == "messages" and len(session.turns) == 2
        assert raised(session) == path.read_bytes()


json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=6))
json_value = st.recursive(
    json_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.sampled_from(["type", "text", "id", "tool_use_id", "content", "function", "input"]),
            inner,
            max_size=4,
        ),
    ),
    max_leaves=12,
)
odd_records = st.dictionaries(
    st.sampled_from(["role", "content", "tool_calls", "tool_call_id", "messages", "type", "id"]),
    st.one_of(
        st.sampled_from(["user", "assistant", "tool", "system", "x"]),
        json_value,
        st.lists(
            st.fixed_dictionaries(
                {"role": st.sampled_from(["user", "assistant", "tool"])},
                optional={"content": json_value, "tool_calls": json_value},
            ),
            max_size=3,
        ),
    ),
    max_size=5,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(values=st.lists(odd_records, min_size=1, max_size=8))
def test_odd_records_never_break_lowering(tmp_path: Path, values: list[dict[str, Any]]) -> None:
    path = write_lines(tmp_path / "odd.jsonl", values)
    session = lower_with(messages, path)
    assert [e.seq for e in session.events] == list(range(len(session.events)))
    assert raised(session) == path.read_bytes()
