"""How events become rows in the event view: block kinds, highlighting choices, lazy wrapping."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.style import Style
from rich.syntax import Syntax

from klipui.conversation import call_view, result_text
from klipui.session.model import Event, Session
from klipui.shrink import Hint, detect_shape
from klipui.widgets.event_doc import (
    EventDocument,
    RichBody,
    TextBody,
    build_blocks,
    call_body,
)
from klipui.widgets.event_view import STYLE_NAMES

CONSOLE = Console(width=100, color_system=None, force_terminal=False)
STYLES = {name: Style() for name in STYLE_NAMES}


def _session(events: list[Event]) -> Session:
    return Session(path=Path("x.jsonl"), format="dsh", events=events)


def _result(seq: int, text: str, error: bool = False, extra: list | None = None) -> Event:
    block = {
        "type": "tool-result",
        "toolCallId": "c1",
        "content": [{"type": "text", "text": text}, *(extra or [])],
        "isError": error,
    }
    return Event("tool/result", seq, data={"message": {"role": "user", "content": [block]}})


def test_block_kinds_for_a_turn() -> None:
    events = [
        Event("user/message", 0, data={"content": [{"type": "text", "text": "fix **it**"}]}),
        Event(
            "assistant/message",
            1,
            data={
                "message": {
                    "content": [
                        {"type": "reasoning", "text": "let me think"},
                        {"type": "text", "text": "Running the tests."},
                    ]
                }
            },
        ),
        Event(
            "tool/call",
            2,
            data={
                "callId": "c1",
                "name": "bash",
                "arguments": json.dumps({"command": "pytest -q"}),
            },
        ),
        _result(
            3,
            "1 failed",
            error=True,
            extra=[{"type": "image", "mediaType": "image/png", "size": 2048}],
        ),
        Event("compaction/summary", 4, data={"summary": "we fixed things"}),
        Event("dsh/whatever", 5, data={"x": 1}, ignorable=True),
    ]
    blocks = build_blocks(_session(events), 0, len(events), CONSOLE, STYLES)
    assert [b.kind for b in blocks] == [
        "prompt",
        "thinking",
        "assistant",
        "call",
        "error",
        "image",
        "compaction",
    ]
    thinking = blocks[1]
    assert thinking.collapsed and "12 chars" in thinking.header.plain
    assert "image/png" in blocks[5].header.plain and "2.0 kB" in blocks[5].header.plain
    assert blocks[4].item is not None and blocks[4].item.call_id == "c1"
    assert "1 line" in blocks[4].header.plain
    shown_all = build_blocks(_session(events), 0, len(events), CONSOLE, STYLES, show_all=True)
    assert shown_all[-1].kind == "meta" and "dsh/whatever" in shown_all[-1].header.plain


def test_sidechain_events_are_labelled() -> None:
    event = Event(
        "user/message",
        0,
        data={"content": [{"type": "text", "text": "sub task"}], "sidechain": {"root": "u1"}},
        ignorable=True,
    )
    (block,) = build_blocks(_session([event]), 0, 1, CONSOLE, STYLES)
    assert block.sidechain and block.header.plain.startswith("⑂ sidechain")


def _body(arguments: str) -> RichBody | TextBody:
    body = call_body(call_view(arguments), CONSOLE)
    assert isinstance(body, RichBody | TextBody)
    return body


def test_shell_command_as_shell_and_edit_as_diff() -> None:
    shell = _body(json.dumps({"command": "ls -la | grep x"}))
    assert isinstance(shell, RichBody) and isinstance(shell.renderable, Syntax)
    assert shell.renderable.lexer.name.lower() in ("bash", "shell", "bash session")
    edit = _body(
        json.dumps({"file_path": "a.py", "old_string": "x = 1\n", "new_string": "x = 2\n"})
    )
    assert isinstance(edit, RichBody) and isinstance(edit.renderable, Syntax)
    assert "-x = 1" in edit.renderable.code and "+x = 2" in edit.renderable.code
    patch = _body(json.dumps({"input": "*** Begin Patch\n+new\n"}))
    assert isinstance(patch, TextBody) and patch.shape == "diff"
    raw_patch = _body("*** Begin Patch\n*** Update File: a\n-x\n+y\n")
    assert isinstance(raw_patch, TextBody) and raw_patch.shape == "diff"
    pi_edit = _body(json.dumps({"path": "t.ts", "oldText": "a\nb\n", "newText": "a\nc\n"}))
    assert isinstance(pi_edit, RichBody) and isinstance(pi_edit.renderable, Syntax)
    assert "-b" in pi_edit.renderable.code
    assert "+c" in pi_edit.renderable.code and "b/t.ts" in pi_edit.renderable.code
    edits = [{"old_string": "1", "new_string": "2"}, {"old_string": "3", "new_string": "4"}]
    multi = _body(json.dumps({"file_path": "m.py", "edits": edits}))
    assert isinstance(multi, RichBody) and isinstance(multi.renderable, Syntax)
    assert "+2" in multi.renderable.code and "+4" in multi.renderable.code
    other = _body(json.dumps({"path": "a.py"}))
    assert isinstance(other, RichBody) and isinstance(other.renderable, Syntax)
    assert "a.py" in other.renderable.code


def test_detect_shape_uses_the_shrink_reducers() -> None:
    corpus = Path(__file__).resolve().parent / "fixtures" / "corpus"
    pytest_log = (corpus / "01-pytest-ledger-mixed" / "output.txt").read_text(encoding="utf-8")
    assert detect_shape('{"a": [1, 2], "b": {"c": "d"}}') == "json"
    assert detect_shape("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n") == "diff"
    assert detect_shape(pytest_log, Hint(tool="bash", command="pytest -v")) == "tests"
    assert detect_shape("plain words") == "text"


def test_escape_sequences_never_reach_the_screen() -> None:
    hostile = "\x1b[?25l\x1b[2K\x1b[1G\x1b[36m?\x1b[39m Would you like \x1b]0;pwned\x07it\r\nok\x07"
    events = [
        Event("user/message", 0, data={"content": [{"type": "text", "text": "hi \x1b[31mred"}]}),
        _result(1, hostile),
    ]
    blocks = build_blocks(_session(events), 0, 2, CONSOLE, STYLES)
    doc = EventDocument(blocks, STYLES, CONSOLE)
    rows = [
        "".join(seg.text for seg in doc.render_row(r, 80, Style()))
        for r in range(doc.row_count(80))
    ]
    drawn = "\n".join(rows)
    assert "\x1b" not in drawn and "\x07" not in drawn and "\r" not in drawn
    assert "[?25l" not in drawn and "pwned" not in drawn
    assert "? Would you like it" in drawn and "hi red" in drawn
    assert result_text(_session(events), 1, "c1") == hostile  # the shrink pane gets the original


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.text(alphabet="ab \t", max_size=300), min_size=1, max_size=40),
    st.integers(min_value=1, max_value=120),
)
def test_wrapped_rows_cover_every_character_once(lines: list[str], width: int) -> None:
    text = "\n".join(lines)
    body = TextBody(text, CONSOLE)
    rows = body.rows(width)
    expected = sum(max(1, -(-len(line.expandtabs(4)) // width)) for line in body.lines)
    assert rows == expected
    joined = "".join(
        "".join(segment.text for segment in body.render(row, width)) for row in range(rows)
    )
    assert joined == "".join(line.expandtabs(4) for line in body.lines)


def test_document_rows_fold_and_cursor() -> None:
    events = [_result(i, "\n".join(f"line {n}" for n in range(50))) for i in range(3)]
    blocks = build_blocks(_session(events), 0, 3, CONSOLE, STYLES)
    doc = EventDocument(blocks, STYLES, CONSOLE)
    assert doc.row_count(80) == 3 * (1 + 50 + 1)
    assert doc.block_at(52, 80) == 1 and doc.block_row(2, 80) == 104
    blocks[1].collapsed = True
    doc.relayout()
    assert doc.row_count(80) == 2 * 52 + 2
    header = "".join(s.text for s in doc.render_row(0, 80, Style()))
    assert header.startswith("▶ ↳ result")
