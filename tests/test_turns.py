"""Turns computed from lowered events."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import sample_files
from hypothesis import given, settings
from hypothesis import strategies as st

from klipui.conversation.tokens import estimate_tokens
from klipui.session import open_session
from klipui.session.blocks import blocks_text, event_text, first_line
from klipui.session.model import Event
from klipui.session.turns import build_turns


def ev(seq: int, kind: str, **data: object) -> Event:
    return Event(type=kind, seq=seq, data=dict(data))


def user(seq: int, text: str) -> Event:
    return ev(seq, "user/message", role="user", content=[{"type": "text", "text": text}])


def result(seq: int, text: str, error: bool = False) -> Event:
    block = {
        "type": "tool-result",
        "toolCallId": "c",
        "content": [{"type": "text", "text": text}],
        "isError": error,
    }
    return ev(seq, "tool/result", message={"role": "user", "content": [block]})


def test_turn_figures() -> None:
    events = [
        ev(0, "permission/preset"),
        ev(1, "turn/start", turn=1),
        user(2, "\n  fix the build\nplease"),
        user(3, "runtime context"),
        ev(
            4,
            "assistant/message",
            message={
                "content": [
                    {"type": "text", "text": "on it"},
                    {"type": "tool-call", "id": "c", "name": "bash", "arguments": '{"c":"make"}'},
                ]
            },
        ),
        ev(5, "tool/call", callId="c", name="bash", arguments='{"c":"make"}'),
        result(6, "x" * 400, error=True),
        ev(7, "tool/call", callId="d", name="bash", arguments="{}"),
        result(8, "ok"),
        ev(9, "turn/end", turn=1, reason={"kind": "completed"}),
        ev(10, "command/run"),
        ev(11, "turn/start", turn=2),
        user(12, "second"),
        ev(13, "turn/end", turn=2, reason={"kind": "aborted"}),
        ev(14, "turn/start", turn=3),
        user(15, "third, never ended"),
        ev(16, "assistant/message", message={"content": [{"type": "text", "text": "hm"}]}),
    ]
    turns = build_turns(events)
    assert [(t.number, t.start, t.end) for t in turns] == [(1, 1, 10), (2, 11, 14), (3, 14, 17)]
    first = turns[0]
    assert first.prompt == "fix the build"
    assert first.tool_calls == 2
    assert first.errors == 1
    assert first.completed
    texts = ["\n  fix the build\nplease", "runtime context", "on it", '{"c":"make"}']
    texts += ["x" * 400, "{}", "ok"]
    expected = sum(estimate_tokens(t) for t in texts)
    assert first.tokens == expected
    assert [t.completed for t in turns] == [True, False, False]
    assert turns[2].prompt == "third, never ended"


def test_no_turns_and_header_only() -> None:
    assert build_turns([]) == []
    assert build_turns([ev(0, "permission/preset"), user(1, "stray")]) == []


def test_block_text_helpers() -> None:
    blocks = [
        {"type": "text", "text": "a"},
        {"type": "reasoning", "text": "b"},
        {"type": "image", "mediaType": "image/png", "size": 10},
        {"type": "tool-result", "content": [{"type": "text", "text": "c"}]},
        {"type": "tool-call", "arguments": "{}"},
    ]
    assert blocks_text(blocks) == "a\nb\nc\n{}"
    assert blocks_text(blocks, tool_calls=False) == "a\nb\nc"
    assert blocks_text("plain") == "plain"
    assert event_text(ev(0, "tool/call", arguments="{}")) == "{}"
    assert event_text(ev(0, "turn/start")) == ""
    assert first_line("\n\n  x  \ny") == "x"


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["start", "end", "user", "call", "other"]), max_size=40))
def test_turns_partition_in_order(kinds: list[str]) -> None:
    events: list[Event] = []
    for seq, kind in enumerate(kinds):
        if kind == "start":
            events.append(ev(seq, "turn/start"))
        elif kind == "end":
            events.append(ev(seq, "turn/end", reason={"kind": "completed"}))
        elif kind == "user":
            events.append(user(seq, f"u{seq}"))
        elif kind == "call":
            events.append(ev(seq, "tool/call", arguments="{}"))
        else:
            events.append(ev(seq, "other"))
    turns = build_turns(events)
    assert len(turns) == kinds.count("start")
    previous_end = 0
    for number, turn in enumerate(turns, start=1):
        assert turn.number == number
        assert previous_end <= turn.start < turn.end <= len(events)
        assert events[turn.start].type == "turn/start"
        previous_end = turn.end
        inside = events[turn.start : turn.end]
        assert turn.tool_calls == sum(e.type == "tool/call" for e in inside)
        assert [e.type for e in inside[1:]].count("turn/start") == 0


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_format_keeps_the_turn_contract(path: Path) -> None:
    """Turns as every adapter lowers them agree with the brackets in their events (adapters may
    pick a better prompt line, e.g. a slash command over its expansion)."""
    session = open_session(path)
    rebuilt = build_turns(session.events)
    figures = [(t.number, t.start, t.end, t.tool_calls, t.tokens, t.errors) for t in rebuilt]
    assert figures == [
        (t.number, t.start, t.end, t.tool_calls, t.tokens, t.errors) for t in session.turns
    ]
    assert [t.completed for t in rebuilt] == [t.completed for t in session.turns]
    for turn in session.turns:
        assert session.events[turn.start].type == "turn/start"
        ended = session.events[turn.end - 1].type == "turn/end"
        cut = turn.end == len(session.events) or session.events[turn.end].type == "turn/start"
        assert ended or cut
