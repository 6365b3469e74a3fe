"""Snippets as pieces to draw: plain text and matched terms, each one line and cleaned."""

from __future__ import annotations

import re

from klipui.search.index import MARK_END, MARK_START
from klipui.session.display import clean_line

_MARKS = re.compile(f"[{MARK_START}{MARK_END}]")
_SPACES = re.compile(r"\s+")


def snippet_pieces(snippet: str) -> list[tuple[str, bool]]:
    """(text, matched) pieces of a snippet, in order: whitespace runs made one space, every
    escape and control sequence removed (the marks are split off first)."""
    pieces: list[tuple[str, bool]] = []
    for number, piece in enumerate(_MARKS.split(snippet)):
        text = _SPACES.sub(" ", clean_line(piece))
        if text:
            pieces.append((text, number % 2 == 1))
    return pieces
