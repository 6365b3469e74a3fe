"""Rough edges a new user hit (issue 15): engine decisions and the blocks the views draw."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.style import Style

from klipui.session import open_session
from klipui.widgets.event_doc import build_blocks
from klipui.widgets.event_view import STYLE_NAMES

SAMPLES = Path(__file__).resolve().parent / "fixtures" / "samples"
CONSOLE = Console(width=100, color_system=None, force_terminal=False)
STYLES = {name: Style() for name in STYLE_NAMES}


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
