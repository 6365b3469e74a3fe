"""How a search hit is drawn in the results list: its place, then its snippet."""

from __future__ import annotations

from datetime import datetime

from rich.text import Text

from klipui.search import Hit
from klipui.search.snippet import snippet_pieces
from klipui.session.display import clean_line

KIND_LABELS = {
    "prompt": "prompt",
    "answer": "answer",
    "thinking": "thinking",
    "call": "tool call",
    "result": "tool result",
}


def hit_prompt(hit: Hit, number: int) -> Text:
    """Two lines: title · agent · project · date · turn · event, and the snippet with its
    matched terms highlighted."""
    when = datetime.fromtimestamp(hit.time / 1000).strftime("%Y-%m-%d") if hit.time else ""
    place = [hit.agent, hit.project, when, f"turn {hit.turn}", KIND_LABELS.get(hit.kind, hit.kind)]
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(clean_line(hit.title)[:120], style="bold")
    text.append("  " + " · ".join(clean_line(p) for p in place if p), style="dim")
    text.append("\n  ")
    for piece, matched in snippet_pieces(hit.snippet):
        text.append(piece, style="bold reverse" if matched else "")
    return text
