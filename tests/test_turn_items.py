"""What a turn shows, decided by the engine (`klipui.conversation` items and calls), checked
directly on the real sample sessions and on crafted events, without drawing anything."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import AGENT_WRITTEN, CORPUS, sample_files
from hypothesis import given, settings
from hypothesis import strategies as st

from klipui.conversation import (
    CallBody,
    ItemKind,
    call_of,
    call_view,
    calls_by_id,
    edit_diff,
    result_call,
    result_text,
    turn_items,
)
from klipui.session import open_session
from klipui.session.blocks import message_content
from klipui.session.model import Event, Session

SESSIONS = [*sample_files(), *sorted(AGENT_WRITTEN.glob("*.jsonl"))]
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _opened(path: Path) -> Session:
    try:
        return open_session(path)
    except Exception as error:  # a sample that is not a session at all says so in its test
        pytest.skip(f"{path.name}: {error}")


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.name)
def test_items_of_every_turn_follow_the_events(path: Path) -> None:
    session = _opened(path)
    for turn in session.turns:
        items = turn_items(session, turn.start, turn.end)
        indexes = [item.event_index for item in items]
        assert indexes == sorted(indexes)
        assert all(turn.start <= i < turn.end for i in indexes)
        for index in range(turn.start, turn.end):
            event = session.events[index]
            own = [item for item in items if item.event_index == index]
            if event.type == "user/message":
                assert [i.kind for i in own].count(ItemKind.PROMPT) == 1
            if event.type == "tool/call":
                assert [i.kind for i in own] == [ItemKind.CALL]
                assert own[0].call_id == str(event.data.get("callId") or "")
            if event.type == "tool/result":
                blocks = [
                    b
                    for b in message_content(event) or []
                    if isinstance(b, dict) and b.get("type") == "tool-result"
                ]
                shown = [i for i in own if i.kind in (ItemKind.RESULT, ItemKind.ERROR)]
                assert len(shown) == max(1, len(blocks))
                errors = [bool(b.get("isError")) for b in blocks] or [False]
                assert [i.kind is ItemKind.ERROR for i in shown] == errors
        for item in items:
            assert not CONTROL.search(item.text.replace("\n", "").replace("\t", ""))
            assert not CONTROL.search(item.label)


@pytest.mark.parametrize("path", sorted(AGENT_WRITTEN.glob("*.jsonl")), ids=lambda p: p.name)
def test_every_result_the_agents_wrote_is_paired_with_its_call_in_its_turn(path: Path) -> None:
    session = _opened(path)
    paired = 0
    for turn in session.turns:
        calls = calls_by_id(session.events, turn.start, turn.end)
        for item in turn_items(session, turn.start, turn.end):
            if item.kind in (ItemKind.RESULT, ItemKind.ERROR) and item.call_id:
                call = calls[item.call_id]
                assert call.index < item.event_index
                assert call_of(session.events, item.event_index, item.call_id) == call
                assert result_call(session, item.event_index, item.call_id) == call
                paired += 1
    assert paired > 0


def test_a_result_is_shaped_by_its_reducer_given_its_call() -> None:
    log = (CORPUS / "01-pytest-ledger-mixed" / "output.txt").read_text(encoding="utf-8")
    call = {"command": "pytest -v"}
    events = [
        Event("user/message", 0, data={"content": [{"type": "text", "text": "run"}]}),
        Event("tool/call", 1, data={"callId": "c", "name": "Bash", "arguments": json.dumps(call)}),
        _result(2, "c", log),
        _result(3, "other", '{"a": [1, 2], "b": {"c": "d"}}'),
        _result(4, "none", "just some words"),
    ]
    items = turn_items(Session(Path("x.jsonl"), "dsh", events=events), 0, len(events))
    shapes = [item.shape for item in items if item.kind is ItemKind.RESULT]
    assert shapes == ["tests", "json", "text"]
    first = next(item for item in items if item.kind is ItemKind.RESULT)
    assert first.size == len(log.encode()) and first.lines == log.count("\n") + (
        0 if log.endswith("\n") else 1
    )


def _result(seq: int, call_id: str, text: str, error: bool = False) -> Event:
    block = {
        "type": "tool-result",
        "toolCallId": call_id,
        "content": [{"type": "text", "text": text}],
        "isError": error,
    }
    return Event("tool/result", seq, data={"message": {"role": "user", "content": [block]}})


def test_result_text_is_the_raw_text_of_the_named_result() -> None:
    two = {
        "message": {
            "content": [
                {"type": "tool-result", "toolCallId": "a", "content": "first \x1b[31mred"},
                {"type": "tool-result", "toolCallId": "b", "content": "second"},
            ]
        }
    }
    session = Session(Path("x.jsonl"), "dsh", events=[Event("tool/result", 0, data=two)])
    assert result_text(session, 0, "b") == "second"
    assert result_text(session, 0, "a") == "first \x1b[31mred"  # raw: what a shrink sees
    assert result_text(session, 0, "missing") == "first \x1b[31mred"
    assert result_text(session, 5, "a") == ""
    items = turn_items(session, 0, 1)
    assert [i.call_id for i in items] == ["a", "b"] and "\x1b" not in items[0].text


def test_times_sidechains_and_bookkeeping() -> None:
    events = [
        Event("turn/start", 0, data={"turn": 1}),
        Event(
            "user/message",
            1,
            time=1_767_000_000_000,
            data={"content": "sub", "sidechain": {"root": "u"}},
        ),
        Event("assistant/message", 2, time=12, data={"message": {"content": "hi"}}),
        Event("dsh/other", 3, data={"x": 1}, ignorable=True),
        Event("turn/end", 4, data={"turn": 1}),
    ]
    session = Session(Path("x.jsonl"), "dsh", events=events)
    items = turn_items(session, 0, 5)
    assert [i.kind for i in items] == [ItemKind.PROMPT, ItemKind.ASSISTANT]
    assert items[0].sidechain and items[0].time == 1_767_000_000_000
    assert not items[1].sidechain and items[1].time is None  # 12 ms after 1970: damaged
    shown = turn_items(session, 0, 5, show_all=True)
    assert [i.kind for i in shown] == [ItemKind.PROMPT, ItemKind.ASSISTANT, ItemKind.META]
    assert shown[-1].label == "dsh/other" and '"x": 1' in shown[-1].text


def test_a_cancelled_walk_gives_nothing() -> None:
    events = [_result(i, "c", "x") for i in range(100)]
    session = Session(Path("x.jsonl"), "dsh", events=events)
    assert turn_items(session, 0, 100, cancelled=lambda: True) == []
    assert len(turn_items(session, 0, 100, cancelled=lambda: False)) == 100


def test_calls_are_commands_diffs_patches_or_json() -> None:
    shell = call_view(json.dumps({"command": ["bash", "-lc", "ls"], "workdir": "/w"}))
    assert shell.body is CallBody.COMMAND and shell.text.startswith("bash -lc ls\n# ")
    assert json.loads(shell.copy) == {"command": ["bash", "-lc", "ls"], "workdir": "/w"}
    edit = call_view(json.dumps({"file_path": "a.py", "old_string": "x", "new_string": "y"}))
    assert edit.body is CallBody.DIFF and "-x\n+y\n" in edit.text
    patch = call_view(json.dumps({"input": "*** Begin Patch\n*** Add File: a\n+x\n"}))
    assert patch.body is CallBody.PATCH and patch.text.startswith("*** Begin Patch")
    raw = call_view("*** Begin Patch\n*** Update File: a\n-x\n+y\n*** End Patch")
    assert raw.body is CallBody.PATCH
    other = call_view(json.dumps({"path": "a.py", "bad": "\x1b]0;title\x07"}))
    assert other.body is CallBody.JSON and "\x1b" not in other.text and "\x07" not in other.text
    assert call_view("not json {").body is CallBody.JSON


def test_edit_calls_in_the_real_sessions_show_as_diffs() -> None:
    found = 0
    for path in SESSIONS:
        session = _opened(path)
        for event in session.events:
            if event.type == "tool/call" and str(event.data.get("name")) in ("Edit", "edit"):
                view = call_view(event.data.get("arguments"))
                if view.body is CallBody.DIFF:
                    found += 1
                    args = json.loads(view.copy)
                    same = args.get("oldText", args.get("old_string")) == args.get(
                        "newText", args.get("new_string")
                    )
                    assert view.text.startswith("--- a/") or (same and view.text == "")
    assert found > 0


def _apply(diff: str, old: str) -> list[str]:
    """`old`'s lines with the hunks of one-file unified `diff` applied."""
    lines = old.split("\n")
    if len(lines) > 1 and lines[-1] == "":
        lines.pop()
    out: list[str] = []
    at = 0
    for line in diff.split("\n")[2:]:
        if line.startswith("@@"):
            start = int(re.match(r"@@ -(\d+)", line).group(1))  # type: ignore[union-attr]
            start = start - 1 if ",0 " not in line.split("+")[0] + " " else start
            out += lines[at:start]
            at = start
        elif line.startswith(("-", " ")):
            at += 1
            if line.startswith(" "):
                out.append(line[1:])
        elif line.startswith("+"):
            out.append(line[1:])
    return out + lines[at:]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(["a", "b", "c", "", "d e"]), max_size=12),
    st.lists(st.sampled_from(["a", "b", "x", "", "d e"]), max_size=12),
    st.booleans(),
)
def test_an_edit_diff_turns_the_old_text_into_the_new(
    old: list[str], new: list[str], newline: bool
) -> None:
    old_text = "\n".join(old) + ("\n" if newline and old else "")
    new_text = "\n".join(new) + ("\n" if newline and new else "")
    diff = edit_diff({"file_path": "f", "old_string": old_text, "new_string": new_text})
    assert diff is not None
    expected = new_text.split("\n")
    if len(expected) > 1 and expected[-1] == "":
        expected.pop()
    if not diff:
        assert _apply("", old_text) == expected
        return
    assert diff.startswith("--- a/f\n+++ b/f\n") and diff.endswith("\n")
    assert _apply(diff.rstrip("\n"), old_text) == expected


def test_not_an_edit_is_none() -> None:
    assert edit_diff({"path": "a"}) is None
    assert edit_diff({"edits": ["x", 3]}) is None
