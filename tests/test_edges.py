"""Rough edges a new user hit (issue 15): engine decisions and the blocks the views draw."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.style import Style

from klipui.session import Event, Session, open_session
from klipui.widgets.event_doc import EventDocument, build_blocks
from klipui.widgets.event_view import STYLE_NAMES

SAMPLES = Path(__file__).resolve().parent / "fixtures" / "samples"
CONSOLE = Console(width=100, color_system=None, force_terminal=False)
STYLES = {name: Style() for name in STYLE_NAMES}
WORDS = ("alpha", "beta", "considering", "the", "interchangeability", "of", "x", "refactor")


def _body_text(block, width: int = 90) -> str:
    body = block.body
    return "\n".join(
        "".join(segment.text for segment in body.render(row, width))
        for row in range(body.rows(width))
    )


def test_dsh_compaction_summary_is_shown_as_its_text() -> None:
    session = open_session(SAMPLES / "dsh/compaction-recovery.jsonl")
    blocks = build_blocks(session, 0, len(session.events), CONSOLE, STYLES, False)
    summaries = [b for b in blocks if b.kind == "compaction"]
    assert summaries
    text = _body_text(summaries[0])
    assert "The request established a durable compaction premise." in text
    assert "{'type'" not in text and "[{" not in text


def _thinking_session(text: str) -> Session:
    events = [
        Event("user/message", 0, data={"content": [{"type": "text", "text": "go"}]}),
        Event(
            "assistant/message",
            1,
            data={"message": {"content": [{"type": "reasoning", "text": text}]}},
        ),
    ]
    return Session(path=Path("x.jsonl"), format="dsh", events=events)


def _row_text(document: EventDocument, row: int, width: int) -> str:
    return "".join(s.text for s in document.render_row(row, width, Style()))


@given(st.lists(st.sampled_from(WORDS), min_size=20, max_size=80), st.integers(24, 70))
@settings(max_examples=30, deadline=None)
def test_unfolded_thinking_wraps_between_words(words: list[str], width: int) -> None:
    session = _thinking_session(" ".join(words))
    blocks = build_blocks(session, 0, 2, CONSOLE, STYLES)
    document = EventDocument(blocks, STYLES, CONSOLE)
    thinking = next(i for i, b in enumerate(blocks) if b.kind == "thinking")
    header_row = document.block_row(thinking, width)
    assert _row_text(document, header_row, width).lstrip().startswith("▸ thinking")
    blocks[thinking].collapsed = False
    document.relayout()
    assert _row_text(document, header_row, width).lstrip().startswith("▾ thinking")
    shown: list[str] = []
    for row in range(header_row + 1, document.block_row(thinking + 1, width) - 1):
        shown += _row_text(document, row, width).replace("│", " ").split()
    assert shown == words
