"""Text helpers shared by the renderers: cleaning untrusted text, sizes, diffs, fences."""

from __future__ import annotations

import difflib
import re

from klipui.session.display import clean_text

untrusted = clean_text
"""Text from a session made inert for any output (see `clean_text`)."""


def size_label(text: str) -> str:
    """`12 lines, 3.4 KB` for a text."""
    lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
    size = len(text.encode("utf-8", "replace"))
    amount = f"{size} B" if size < 1000 else f"{size / 1000:.1f} KB"
    if size >= 1_000_000:
        amount = f"{size / 1_000_000:.1f} MB"
    return f"{lines} line{'s' if lines != 1 else ''}, {amount}"


def edit_diff(path: str, old: str, new: str) -> list[str]:
    """A unified diff of one edit, as lines without newlines."""
    return list(
        difflib.unified_diff(
            old.splitlines(), new.splitlines(), f"a/{path}", f"b/{path}", lineterm="", n=3
        )
    )


def fence_for(text: str, char: str = "`") -> str:
    """A fence longer than every run of `char` in `text` (at least three)."""
    longest = max((len(run) for run in re.findall(f"{re.escape(char)}+", text)), default=0)
    return char * max(3, longest + 1)


def first_line(text: str, width: int = 80) -> str:
    """The first non-blank line of `text`, cut to `width` characters."""
    for line in text.splitlines():
        line = " ".join(line.split())
        if line:
            return line if len(line) <= width else line[: width - 1] + "…"
    return ""
