"""diff: unified diffs (git diff, git show, patches).

Keeps every file header and hunk header, every changed line and one line of context on each
side; drops the rest of the unchanged context. Under a tight budget, changes that repeat a
substitution seen elsewhere in the diff (a mechanical rename: the same words removed and added
on three or more line pairs) are dropped before the changes that are unique, so the one
non-mechanical edit hidden in a big refactor survives; file headers survive longest.
"""

from __future__ import annotations

import re
from collections import Counter

from klipui.shrink.plan import Budget, Hint, Keep, Plan
from klipui.shrink.text import sample_lines, split_lines

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

FILE, UNIQUE, HUNK, MECHANICAL = 6, 5, 3, 2


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


def reduce(text: str, hint: Hint, budget: Budget) -> Plan | None:
    lines = split_lines(text)
    n = len(lines)
    priority = [0] * n
    in_hunk = False
    pairs: list[tuple[int, int]] = []
    changed: list[tuple[int, int]] = []  # (line, hunk number)
    hunk_lines: list[int] = []
    i = 0
    while i < n:
        line = lines[i]
        first = line[:1]
        if in_hunk and first == " ":
            i += 1
            continue
        if first == "@" and _HUNK.match(line):
            in_hunk = True
            hunk_lines.append(i)
            priority[i] = HUNK
        elif not in_hunk:
            if line.startswith(_FILE_HEADERS):
                priority[i] = FILE
        elif first == "-" and not line.startswith("--- "):
            start = i
            while i < n and lines[i][:1] == "-":
                i += 1
            middle = i
            while i < n and lines[i][:1] == "+" and not lines[i].startswith("+++ "):
                i += 1
            hunk = len(hunk_lines) - 1
            changed.extend((k, hunk) for k in range(start, i))
            if middle - start == i - middle:
                pairs.extend(zip(range(start, middle), range(middle, i), strict=True))
            continue
        elif first == "+" and not line.startswith("+++ "):
            changed.append((i, len(hunk_lines) - 1))
        elif first not in ("\\", "") and not line.startswith(("+++ ", "--- ")):
            in_hunk = False
            if line.startswith(_FILE_HEADERS):
                priority[i] = FILE
        i += 1
    if not changed:
        return None
    # the preamble of `git show` or a mailed patch: commit, author, date, message
    header_end = next((k for k in range(n) if priority[k] or lines[k].startswith("@@")), n)
    for k in range(min(header_end, PREAMBLE)):
        if lines[k].strip():
            priority[k] = FILE
    for k, _ in changed:
        priority[k] = UNIQUE
    pair_signatures = [_signature(lines[a], lines[b]) for a, b in pairs]
    signatures = Counter(pair_signatures)
    for (a, b), signature in zip(pairs, pair_signatures, strict=True):
        if signatures[signature] >= MECHANICAL_REPEATS and not _is_bump(signature):
            priority[a] = priority[b] = MECHANICAL
    unique_hunks = {hunk for k, hunk in changed if priority[k] == UNIQUE and hunk >= 0}
    for index in unique_hunks:
        priority[hunk_lines[index]] = UNIQUE
    for k, _ in changed:
        context = priority[k]  # context goes (and stays) with its change
        for j in (*range(k - CONTEXT, k), *range(k + 1, k + 1 + CONTEXT)):
            if 0 <= j < n and priority[j] < context and lines[j][:1] in (" ", "\\", ""):
                priority[j] = context
    plan: Plan = []
    k = 0
    while k < n:
        if priority[k] == 0:
            k += 1
            continue
        start = k
        while k < n and priority[k] == priority[start]:
            k += 1
        plan.append(Keep(start, k, priority[start]))
    return plan
