"""Snippets: the text around a hit, read back from the session file, its terms marked.

The index keeps no copy of the text (it would double its size): a hit's snippet is cut from the
record(s) the unit came from, read at their byte offset, or from the text stored for units a file
cannot give back. Every string is cleaned of escape and control sequences before it is marked.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson

from klipui.session.display import clean_line, clean_text

MARK_START = "\x02"
MARK_END = "\x03"
"""Around each matched term in a snippet (control characters are cleaned out of every text
first, so they cannot come from a session)."""
ELLIPSIS = "…"
SNIPPET_CHARS = 160
MAX_RECORD_BYTES = 64 * 1024 * 1024
_MARKS = re.compile(f"[{MARK_START}{MARK_END}]")
_SPACES = re.compile(r"\s+")
_WORD = re.compile(r"\w+")


class Terms:
    """Where the tokens of query terms occur: each term's tokens in order, separated by anything
    that is not a word character, the last one as a prefix (case-insensitive)."""

    def __init__(self, terms: Sequence[str]) -> None:
        parts: list[str] = []
        needles: set[str] = set()
        for term in sorted(set(terms), key=len, reverse=True):
            tokens = _WORD.findall(term)
            if tokens:
                parts.append(r"(?<!\w)" + r"\W+".join(re.escape(t) for t in tokens) + r"\w*")
                needles.add(tokens[0].lower())
        self.pattern = re.compile("|".join(parts), re.IGNORECASE) if parts else None
        self.needles = tuple(needles)

    def search(self, text: str) -> re.Match[str] | None:
        """The first match in `text`. The pattern is tried only where a term's first token
        occurs (found by `str.find`): scanning a long text with it is a hundred times slower."""
        if self.pattern is None:
            return None
        low = text.lower()
        if len(low) != len(text):  # lowering moved the offsets: scan with the pattern
            return self.pattern.search(text)
        best: re.Match[str] | None = None
        for needle in self.needles:
            position = low.find(needle)
            while position >= 0 and (best is None or position < best.start()):
                found = self.pattern.match(text, position)
                if found is not None:
                    best = found
                    break
                position = low.find(needle, position + 1)
        return best

    def mark(self, text: str) -> str:
        """`text` with every match between `MARK_START` and `MARK_END`."""
        if self.pattern is None:
            return text
        return self.pattern.sub(lambda m: f"{MARK_START}{m.group()}{MARK_END}", text)


def term_pattern(terms: Sequence[str]) -> Terms | None:
    """`Terms` for `terms`, None when they hold no token."""
    found = Terms(terms)
    return found if found.pattern is not None else None


def cut(texts: Sequence[str], pattern: Terms | None, width: int = SNIPPET_CHARS) -> str:
    """A snippet of about `width` characters around the first match in the longest of `texts`
    that has one (the start of the longest text when none has), matches marked."""
    return cut_found(texts, pattern, width)[0]


def cut_found(
    texts: Sequence[str], pattern: Terms | None, width: int = SNIPPET_CHARS
) -> tuple[str, bool]:
    """`cut`, and whether a match was found. The window is cleaned of escape and control
    sequences once cut (cleaning whole records would cost more than the rest of a query)."""
    ordered = sorted((t for t in texts if t), key=len, reverse=True)
    if not ordered:
        return "", False
    text, found = ordered[0], None
    if pattern is not None:
        for candidate in ordered:
            found = pattern.search(candidate)
            if found:
                text = candidate
                break
    start = 0 if found is None else max(0, found.start() - width // 3)
    if start:
        space = text.rfind(" ", max(0, start - 20), start)
        start = space + 1 if space >= 0 else start
    end = min(len(text), start + width)
    if end < len(text):
        space = text.find(" ", end, end + 20)
        end = space if space >= 0 else end
    window = clean_text(_MARKS.sub("", text[start:end]))
    if pattern is not None:
        window = pattern.mark(window)
    snippet = (ELLIPSIS if start else "") + window + (ELLIPSIS if end < len(text) else "")
    return snippet, found is not None


def record_texts(path: Path, offset: int, length: int) -> list[str]:
    """The strings of the JSON records in `length` bytes at `offset` of `path` (not cleaned:
    `cut` cleans what it keeps); [] when they cannot be read (the file changed, or is gone)."""
    if offset < 0 or length <= 0 or length > MAX_RECORD_BYTES:
        return []
    try:
        with open(path, "rb") as handle:
            handle.seek(offset)
            data = handle.read(length)
    except OSError:
        return []
    texts: list[str] = []
    for line in data.split(b"\n"):
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        texts.extend(_strings(value, 0))
    return texts


def _strings(value: Any, depth: int) -> Iterator[str]:
    """The strings inside a decoded record; a string that is itself a JSON object (Codex keeps
    a tool's output as `{"output": …, "metadata": …}` text) gives the strings inside it."""
    if isinstance(value, str):
        nested = _json_object(value) if depth <= 40 else None
        if nested is None:
            yield value
        else:
            yield from _strings(nested, depth + 1)
    elif depth > 40:
        return
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item, depth + 1)


def _json_object(text: str) -> dict[str, Any] | None:
    """`text` decoded, when it is a whole JSON object; None for any other string."""
    if not (text.startswith("{") and text.rstrip().endswith("}")):
        return None
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def spilled_texts(texts: Sequence[str], session_path: Path) -> list[str]:
    """The spilled original a preview among `texts` names, when it may be read ([] else)."""
    from klipui.search.units import SPILL_SIGNS
    from klipui.session.spilled import find_reference, load_original

    for text in texts:
        if len(text) > 200_000 or not any(sign in text for sign in SPILL_SIGNS):
            continue
        ref = find_reference(text, session_path)
        if ref is not None:
            loaded = load_original(ref, session_path=session_path)
            if loaded.text:
                return [loaded.text]
    return []


def snippet_pieces(snippet: str) -> list[tuple[str, bool]]:
    """(text, matched) pieces of a snippet, in order: whitespace runs made one space, every
    escape and control sequence removed (the marks are split off first)."""
    pieces: list[tuple[str, bool]] = []
    for number, piece in enumerate(_MARKS.split(snippet)):
        text = _SPACES.sub(" ", clean_line(piece))
        if text:
            pieces.append((text, number % 2 == 1))
    return pieces
