"""diff: unified diffs (git diff, git show, patches).

Keeps every file header and hunk header, every changed line and one line of context on each
side; drops the rest of the unchanged context. Under a tight budget, changes that repeat a
substitution seen elsewhere in the diff (a mechanical rename: the same words removed and added
on three or more line pairs) are dropped before the changes that are unique, so the one
non-mechanical edit hidden in a big refactor survives; file headers survive longest, except
those of files moved with mechanical changes only, which go before the changes of their own.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from itertools import compress, islice, pairwise, repeat
from operator import add, itemgetter, ne, not_
from typing import NamedTuple

from klipui.shrink import segments
from klipui.shrink.plan import Budget, Hint, Keep, Plan
from klipui.shrink.text import cap_line, sample_lines, split, split_lines

name = "diff"
describe = "file and hunk headers and changed lines kept, unchanged context dropped"
gap_label = "unchanged"
overflow = "head"

_HUNK = re.compile(r"@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@")
_FILE_HEADERS = (
    "diff --git ",
    "diff --cc ",
    "index ",
    "--- ",
    "+++ ",
    "new file mode",
    "deleted file mode",
    "old mode",
    "new mode",
    "rename from",
    "rename to",
    "copy from",
    "copy to",
    "similarity index",
    "dissimilarity index",
    "Binary files",
)
_WORD = re.compile(r"\w+")
CONTEXT = 1
MECHANICAL_REPEATS = 3
PREAMBLE = 40
"""Lines before the first file header kept as the commit or mail header (at most)."""

FILE, UNIQUE, MOVED_FILE, HUNK, MECHANICAL = 6, 5, 4, 3, 2
"""Priorities: file headers, changes of their own, the headers of a file renamed or copied with
only mechanical changes (or none), hunk headers, mechanical changes."""
_MOVED = ("rename from", "copy from")


def _is_change(line: str) -> bool:
    return (line.startswith("+") and not line.startswith("+++ ")) or (
        line.startswith("-") and not line.startswith("--- ")
    )


_LOG_HEADER = re.compile(r"(?:[*|/\\ ]*)commit [0-9a-f]{7,40}\b")


def detect(text: str, hint: Hint) -> bool:
    lines = sample_lines(text, 200, 0)
    commits = sum(1 for line in lines if _LOG_HEADER.match(line))
    if commits >= 2 and sum(1 for line in lines if line.startswith("Author: ")) >= 2:
        return False  # `git log -p`: commits holding diffs, for gitlog
    headers = sum(1 for line in lines if line.startswith("diff --git ") or _HUNK.match(line))
    changes = sum(1 for line in lines if _is_change(line))
    if headers and changes:
        return any(_HUNK.match(line) for line in lines)
    command = hint.command or ""
    return bool(re.search(r"\bgit (diff|show)\b|\bdiff\b", command)) and changes >= 2


def _signature(old: str, new: str) -> tuple[frozenset[str], frozenset[str]]:
    """The words a changed line pair removes and adds (what a rename substitutes)."""
    old_words, new_words = frozenset(_WORD.findall(old, 1)), frozenset(_WORD.findall(new, 1))
    return old_words - new_words, new_words - old_words


def _is_bump(signature: tuple[frozenset[str], frozenset[str]]) -> bool:
    """A substitution of numbers only (a version bump repeated in several files): each copy
    matters, unlike a renamed word."""
    removed, added = signature
    return bool(removed or added) and all(word.isdigit() for word in removed | added)


_FIRST = itemgetter(slice(0, 1))
_QUIET = frozenset(("", " "))
"""First characters of lines that never change the reading (context and blank lines)."""
_CONTEXT_FIRSTS = frozenset((" ", "\\", ""))


class _Reading(NamedTuple):
    priority: list[int]
    firsts: list[str]
    files: list[int]
    """The lines at `FILE` priority (headers, preamble), in order."""
    hunk_lines: list[int]
    runs: list[tuple[int, int, int, int]]
    """Runs of changes `(start, middle, end, hunk)`: lines `[start, middle)` removed, then
    `[middle, end)` added, in hunk number `hunk` (-1 before any hunk)."""


def _read(lines: list[str]) -> _Reading:
    """Headers, hunks and changed lines: only lines that are not context are looked at."""
    n = len(lines)
    firsts = list(map(_FIRST, lines))
    priority = [0] * n
    files: list[int] = []
    hunk_lines: list[int] = []
    runs: list[tuple[int, int, int, int]] = []
    in_hunk = False
    noisy = list(compress(range(n), map(not_, map(_QUIET.__contains__, firsts))))
    count = len(noisy)
    position = 0
    while position < count:
        i = noisy[position]
        position += 1
        line = lines[i]
        first = firsts[i]
        if first == "@" and _HUNK.match(line):
            in_hunk = True
            hunk_lines.append(i)
            priority[i] = HUNK
        elif not in_hunk:
            if line.startswith(_FILE_HEADERS):
                priority[i] = FILE
                files.append(i)
        elif first == "-" and not line.startswith("--- "):
            k = i
            while k < n and firsts[k] == "-":
                k += 1
            middle = k
            while k < n and firsts[k] == "+" and not lines[k].startswith("+++ "):
                k += 1
            runs.append((i, middle, k, len(hunk_lines) - 1))
            position = bisect_left(noisy, k, position)  # the run is read
        elif first == "+" and not line.startswith("+++ "):
            runs.append((i, i, i + 1, len(hunk_lines) - 1))
        elif first != "\\" and not line.startswith(("+++ ", "--- ")):
            in_hunk = False
            if line.startswith(_FILE_HEADERS):
                priority[i] = FILE
                files.append(i)
    return _Reading(priority, firsts, files, hunk_lines, runs)


_HUNK_AT = r"@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@"
_HUNK_LINE = re.compile(r"\n" + _HUNK_AT)
"""A hunk header after a newline (what `_HUNK` matches at a line's start)."""
_READING = re.compile(r"\n(?:(\+\+\+ |--- )|[^ +\-\\\n@\r]|@(?!" + _HUNK_AT[1:] + r")|\r+[^\r\n])")
"""A line, after its newline, that changes the reading (`_read` looks at it: neither context,
a changed line, a `\\` line, a blank one nor a hunk header): a `+++ `/`--- ` line (group 1)
keeps a hunk open and is a header outside one; any other ends the hunk."""
_CHANGE = re.compile(r"\n(?:\+(?!\+\+ )|-(?!-- ))")
"""A changed line (what `_read` takes for one inside a hunk)."""


class _Outline(NamedTuple):
    files: list[int]
    """As `_Reading.files`."""
    first: int
    """The first file header, hunk header or line starting with `@@` (`n` when none)."""
    changed: bool
    """Whether a hunk changes a line (`_Reading.runs` is not empty)."""


def _outline(text: str) -> _Outline:
    """What `_read` finds of the headers, and whether any hunk holds a change: what a plan that
    keeps only the headers needs, without reading every changed line or every hunk header. One
    regex pass finds the lines that end a hunk or are `+++ `/`--- ` lines; whether a hunk is
    open at one of the latter is a search for a hunk header since the last line that ends one."""
    split_text = split(text)
    lines, starts = split_text.lines, split_text.starts
    n = len(lines)
    if not n:
        return _Outline([], 0, False)
    head = lines[0][:1]
    hunk_first = head == "@" and _HUNK.match(lines[0]) is not None
    in_hunk = hunk_first
    files: list[int] = []
    if not in_hunk and head not in _QUIET and lines[0].startswith(_FILE_HEADERS):
        files.append(0)  # a `+++ ` or `--- ` line counts too: no hunk is open yet
    ends: list[int] = []  # where each line that ends a hunk begins (its newline)
    searched = 0  # a hunk header was looked for up to here since the last end
    for match in _READING.finditer(text):
        at = match.start()
        if match.lastindex:  # `+++ ` or `--- `: a file header unless a hunk is open
            if not in_hunk:
                in_hunk = _HUNK_LINE.search(text, searched, at) is not None
                searched = at
            if not in_hunk:
                files.append(bisect_left(starts, at + 1))
            continue
        ends.append(at)
        in_hunk = False
        searched = at + 1
        if text.startswith(_FILE_HEADERS, at + 1):
            files.append(bisect_left(starts, at + 1))
    at_hunk = text.find("\n@@") + 1
    first = min(files[0] if files else n, bisect_left(starts, at_hunk) if at_hunk else n)
    if lines[0].startswith("@@"):
        first = 0
    return _Outline(files, first, _hunk_changes(text, hunk_first, ends))


def _hunk_changes(text: str, hunk_first: bool, ends: list[int]) -> bool:
    """Whether a line between a hunk header (the first line when `hunk_first`) and the next
    line that ends a hunk (`ends`: where each begins, its newline) is a change."""
    at = 0 if hunk_first else -1
    k = 0
    while True:
        if at < 0:
            found = _HUNK_LINE.search(text, ends[k - 1] if k else 0)
            if found is None:
                return False
            at = found.start()
        k = bisect_right(ends, at, k)
        end = ends[k] if k < len(ends) else len(text)
        if _CHANGE.search(text, at, end) is not None:
            return True
        if k >= len(ends):
            return False
        at = -1
        k += 1


def _changes(
    runs: list[tuple[int, int, int, int]],
) -> tuple[list[int], list[int], list[tuple[int, int]]]:
    """The changed lines, the hunk number of each, and the line pairs of the runs that remove
    and add as many lines (a substitution)."""
    changed: list[int] = []
    changed_hunk: list[int] = []
    pairs: list[tuple[int, int]] = []
    for start, middle, end, hunk in runs:
        changed.extend(range(start, end))
        changed_hunk.extend(repeat(hunk, end - start))
        if middle - start == end - middle:
            pairs.extend(zip(range(start, middle), range(middle, end), strict=True))
    return changed, changed_hunk, pairs


def _headers_overflow(lines: list[str], files: list[int], budget: Budget) -> bool:
    """True when the `FILE` lines alone are over the budget: the pipeline then keeps them and
    drops every other piece of the plan whatever its priority (and fills by salience)."""
    if budget.max_lines and len(files) > budget.max_lines:
        return True
    if not budget.max_chars:
        return False
    cap = budget.max_line_chars
    chars = 0
    for k in files:
        line = lines[k]
        chars += (len(cap_line(line, cap)) if cap > 0 and len(line) > cap else len(line)) + 1
        if chars > budget.max_chars:
            return True
    return False


def reduce(text: str, hint: Hint, budget: Budget) -> Plan | None:
    outline = _outline(text)
    if not outline.changed:
        return None
    lines = split_lines(text)
    # the preamble of `git show` or a mailed patch: commit, author, date, message
    preamble = [k for k in range(min(outline.first, PREAMBLE)) if lines[k].strip()]
    files = sorted([*outline.files, *preamble]) if preamble else outline.files
    if len(text) > segments.MAX_CHARS and _headers_overflow(lines, files, budget):
        # too big to be one region of a segmented output, so the plan only feeds the
        # pipeline, which keeps no piece below the headers: rank nothing else
        return [Keep(start, end, FILE) for start, end in _consecutive(files)]
    reading = _read(lines)
    for k in preamble:
        reading.priority[k] = FILE
    return _rank(lines, reading)


def _rank(lines: list[str], reading: _Reading) -> Plan:
    """Changes over mechanical changes, hunks holding a unique change over the others, one
    line of context going with each change."""
    n = len(lines)
    priority, firsts = reading.priority, reading.firsts
    changed, changed_hunk, pairs = _changes(reading.runs)
    for k in changed:
        priority[k] = UNIQUE
    pair_signatures = [_signature(lines[a], lines[b]) for a, b in pairs]
    counts = Counter(pair_signatures)
    mechanical = {
        signature
        for signature, count in counts.items()
        if count >= MECHANICAL_REPEATS and not _is_bump(signature)
    }
    if mechanical:
        for (a, b), signature in zip(pairs, pair_signatures, strict=True):
            if signature in mechanical:
                priority[a] = priority[b] = MECHANICAL
    hunk_lines = reading.hunk_lines
    unique_hunks = {
        hunk
        for k, hunk in zip(changed, changed_hunk, strict=True)
        if hunk >= 0 and priority[k] == UNIQUE
    }
    for index in unique_hunks:
        priority[hunk_lines[index]] = UNIQUE
    _demote_moved_files(lines, reading.files, priority, changed)
    for k in changed:
        context = priority[k]  # context goes (and stays) with its change
        for j in range(max(0, k - CONTEXT), min(n, k + 1 + CONTEXT)):
            if priority[j] < context and firsts[j] in _CONTEXT_FIRSTS:
                priority[j] = context
    return _runs(priority, n)


def _demote_moved_files(
    lines: list[str], files: list[int], priority: list[int], changed: list[int]
) -> None:
    """Rank the headers of a file renamed (or copied) with no change of its own, only mechanical
    ones or none, below the changes of their own elsewhere: fifty files moved with one word
    replaced must not push out a version bump repeated in four files."""
    if all(priority[k] == MECHANICAL for k in changed):
        return  # nothing of their own elsewhere: the headers are what tells the files apart
    header = set(files)
    starts = [
        k
        for k in files
        if lines[k].startswith("diff ") or (lines[k].startswith("--- ") and k - 1 not in header)
    ]
    ends = [*starts[1:], len(lines)] if starts else []
    for start, end in zip(starts, ends, strict=True):
        heads = files[bisect_left(files, start) : bisect_left(files, end)]
        if not any(lines[k].startswith(_MOVED) for k in heads):
            continue
        block = changed[bisect_left(changed, start) : bisect_left(changed, end)]
        if all(priority[k] == MECHANICAL for k in block):
            for k in heads:
                if priority[k] == FILE:
                    priority[k] = MOVED_FILE


def _consecutive(indices: list[int]) -> list[tuple[int, int]]:
    """Runs of consecutive line indices (ascending) as `[start, end)` ranges."""
    count = len(indices)
    following = map(add, indices, repeat(1))  # where a run would go on
    breaks = [0, *compress(range(1, count), map(ne, indices[1:], following)), count]
    return [(indices[a], indices[b - 1] + 1) for a, b in pairwise(breaks) if a < b]


def _runs(priority: list[int], n: int) -> Plan:
    """One `Keep` a run of lines of the same non-zero priority."""
    bounds = [0, *compress(range(1, n), map(ne, islice(priority, 1, None), priority)), n]
    return [Keep(start, end, priority[start]) for start, end in pairwise(bounds) if priority[start]]
