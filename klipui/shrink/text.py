"""Line and character helpers shared by the pipeline and every reducer.

Lines: `split_lines` splits on `\\n`; a trailing empty element is dropped ("a\\nb\\n" is 2 lines,
"" is 0 lines, "\\n" is 1 empty line) and `\\r`s at the end of a line are not part of it, so CRLF
input gives the same lines as LF input. Line indices in a reducer's `Plan` refer to these lines.

Counts: an omission is measured against the original text: its characters are the code points
the omitted lines occupy there, terminators (`\\n` or `\\r\\n`) included, so a marker's figures
add up to what is missing.
"""

from __future__ import annotations

import unicodedata
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate, repeat
from operator import add

SAMPLE_HEAD_CHARS = 200_000
SAMPLE_TAIL_CHARS = 50_000
CHUNK_CHARS = 1 << 18
"""Size of the pieces a whole-text pass works on: small enough to stay in the CPU cache, so
that several passes over one piece (lower-case, then search; encode, translate, split) cost
what one pass over memory does."""


@dataclass(frozen=True, slots=True)
class Lines:
    """The lines of a text with the offset of each line in it."""

    text: str
    lines: list[str]
    """The lines without terminators."""
    starts: list[int]
    """`starts[i]` is where line i begins in `text`; `starts[len(lines)] == len(text)`."""

    def __len__(self) -> int:
        return len(self.lines)

    def span_chars(self, start: int, end: int) -> int:
        """Characters of `text` that lines `[start, end)` occupy, terminators included."""
        return self.starts[end] - self.starts[start]


_last: Lines | None = None


def line_starts(lines: Sequence[str]) -> list[int]:
    """Where each line begins when every line is followed by one newline, then the end:
    `[0, len(l0) + 1, len(l0) + len(l1) + 2, ...]` (computed without a Python-level loop)."""
    return list(accumulate(map(add, map(len, lines), repeat(1)), initial=0))


def split(text: str, *, cache: bool = True) -> Lines:
    """`text` as `Lines` (the last result is reused when called again with the same string)."""
    global _last
    cached = _last
    if cached is not None and cached.text is text:
        return cached
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    starts = line_starts(parts)
    if parts and not text.endswith("\n"):
        starts[-1] -= 1
    if "\r" in text:
        parts = [part.rstrip("\r") if part.endswith("\r") else part for part in parts]
    result = Lines(text, parts, starts)
    if cache:
        _last = result
    return result


def chunks(text: str, size: int | None = None) -> Iterator[tuple[int, str]]:
    """`(offset, piece)` for consecutive pieces of `text` of about `size` (default
    `CHUNK_CHARS`) characters, each ending just after a newline (but the last), so that no line
    is cut between two pieces."""
    size = size or CHUNK_CHARS
    n = len(text)
    if n <= size:
        if n:
            yield 0, text
        return
    start = 0
    while start < n:
        end = text.find("\n", start + size - 1)
        end = n if end < 0 else end + 1
        yield start, text[start:end]
        start = end


def split_lines(text: str) -> list[str]:
    """The lines of `text` (see the module docstring); do not modify the returned list."""
    return split(text).lines


def join_lines(lines: Sequence[str]) -> str:
    """The inverse of `split_lines` for lines without `\\n`: `split_lines(join_lines(x)) == x`."""
    if not lines:
        return ""
    joined = "\n".join(lines)
    return joined + "\n" if lines[-1] == "" else joined


def count_lines(text: str) -> int:
    """Number of lines as `split_lines` counts them, without building the list."""
    if not text:
        return 0
    return text.count("\n") + (0 if text.endswith("\n") else 1)


def fits(text: str, max_chars: int, max_lines: int) -> bool:
    """True when `text` is within both limits (0 means no limit)."""
    if max_chars and len(text) > max_chars:
        return False
    return not (max_lines and count_lines(text) > max_lines)


def plural(count: int, word: str) -> str:
    """`1 line`, `2 lines`, `15,903 characters`."""
    return f"{count:,} {word}" if count == 1 else f"{count:,} {word}s"


def marker(chars: int, lines: int, label: str = "") -> str:
    """The omission marker: `[… 401 lines, 15,903 chars]` (+ ` (label)`). Both figures are
    exact; the form is short because every marker is paid for out of the budget (the longer
    `... 15,903 characters, 401 lines omitted ...` took a sixth of an average shrunk output)."""
    text = f"[… {plural(lines, 'line')}, {plural(chars, 'char')}]"
    return f"{text} ({label})" if label else text


def marker_length(chars: int, lines: int, label: str = "") -> int:
    """`len(marker(chars, lines, label))`, without building the string: `[… `, ` line`, `, `,
    ` char` and `]` are 16 characters, plus the figures and plurals."""
    length = 16 + len(f"{chars:,}{lines:,}") + (chars != 1) + (lines != 1)
    return length + (len(label) + 3 if label else 0)


def _glued(before: str, after: str) -> bool:
    """True when a cut between these two characters would split one visible character."""
    a, b = ord(before), ord(after)
    if 0xD800 <= a <= 0xDBFF:
        return True  # high surrogate of a pair
    if 0xDC80 <= a <= 0xDCFF and 0xDC80 <= b <= 0xDCFF:
        return True  # run of surrogate escapes standing for one undecodable byte sequence
    if a == 0x200D or b == 0x200D:
        return True  # zero-width joiner sequences
    if 0xFE00 <= b <= 0xFE0F or 0xE0100 <= b <= 0xE01EF or 0x1F3FB <= b <= 0x1F3FF:
        return True  # variation selectors, skin tones
    if 0xE0020 <= b <= 0xE007F:
        return True  # tag sequences (flags)
    if 0x1F1E6 <= a <= 0x1F1FF and 0x1F1E6 <= b <= 0x1F1FF:
        return True  # regional indicator pair (may over-protect odd runs)
    if 0x1160 <= b <= 0x11FF or 0xD7B0 <= b <= 0xD7FF:
        return True  # Hangul jamo medial/final
    if after == "\n" and before == "\r":
        return True
    return unicodedata.combining(after) != 0 or unicodedata.category(after) in ("Mn", "Me", "Mc")


def safe_cut(text: str, index: int) -> int:
    """The largest cut position <= `index` that splits no character sequence (0 if none)."""
    index = max(0, min(index, len(text)))
    while 0 < index < len(text) and _glued(text[index - 1], text[index]):
        index -= 1
    return index


def safe_slice(text: str, limit: int) -> str:
    """At most `limit` leading code points of `text`, never splitting a character sequence."""
    if len(text) <= limit:
        return text
    return text[: safe_cut(text, limit)]


def cap_line(line: str, cap: int) -> str:
    """`line` cut to `cap` code points plus ` ... +N characters` when longer (cap > 0)."""
    if cap <= 0 or len(line) <= cap:
        return line
    kept = line[: safe_cut(line, cap)]
    return f"{kept} ... +{plural(len(line) - len(kept), 'character')}"


def sample(text: str) -> str:
    """A bounded sample for detection: the first 200,000 and last 50,000 characters, whole lines."""
    if len(text) <= SAMPLE_HEAD_CHARS + SAMPLE_TAIL_CHARS:
        return text
    head = text[:SAMPLE_HEAD_CHARS]
    head = head[: head.rfind("\n") + 1] or head
    tail = text[-SAMPLE_TAIL_CHARS:]
    tail = tail[tail.find("\n") + 1 :] or tail
    return head + tail


def sample_lines(text: str, head: int = 400, tail: int = 100) -> list[str]:
    """Up to `head` first and `tail` last lines, read from a bounded sample of `text`."""
    lines = split(sample(text), cache=False).lines
    if len(lines) <= head + tail:
        return list(lines)
    return lines[:head] + lines[-tail:] if tail else lines[:head]


def long_lines(lines: Lines, room: int) -> list[int]:
    """Indices of the lines longer than `room` characters, in order.

    A line that long holds a whole window of `(room + 1) // 2` characters starting at a
    multiple of that width, so only windows without a newline lead to a line to measure: a few
    characters are read a window, and no line object is touched for a text of short lines.
    """
    text, starts = lines.text, lines.starts
    width = max(1, (room + 1) // 2)
    found: list[int] = []
    position, end = 0, len(text)
    while position < end:
        if text.find("\n", position, position + width) >= 0:
            position += width
            continue
        i = bisect_right(starts, position) - 1
        if len(lines.lines[i]) > room:
            found.append(i)
        after = starts[i + 1]
        position = max(position + width, -(-after // width) * width)
    return found
