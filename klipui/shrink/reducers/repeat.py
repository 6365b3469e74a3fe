"""repeat: retry storms, progress spam, any run of near-identical lines.

Lines are compared by template (digits, number punctuation and white space removed). A run of at
least 5 lines that repeats a pattern of 1 to 4 lines (so `error / retrying` pairs count too)
keeps its first two and its last repetition; the rest becomes one line
`... N similar lines (C characters) omitted ...`. Lines outside runs stay.
"""

from __future__ import annotations

from collections import Counter

from klipui.shrink.plan import Budget, Hint, Keep, Plan, Summary
from klipui.shrink.text import chunks, plural, sample_lines, split

name = "repeat"
describe = "runs of similar lines collapsed to their first and last repetitions"
overflow = "hint"

MIN_SAMPLE = 50
MIN_RUN = 5
MAX_PERIOD = 4
_VARYING = b"0123456789.,: \t\r"
"""Bytes a template leaves out: digits, number punctuation, white space (alignment shifts as
numbers grow) and carriage returns."""


def _masked(text: str) -> list[bytes]:
    """`text` with its varying parts masked, split at every newline (as `str.split`)."""
    return text.encode("utf-8", "surrogatepass").translate(None, _VARYING).split(b"\n")


def templates(lines: list[str]) -> list[bytes]:
    """Each line with its varying parts (digits, number punctuation, white space) removed."""
    return _masked("\n".join(lines)) if lines else []


def text_templates(text: str) -> list[bytes]:
    """`templates(split_lines(text))`, built piece by piece from the text itself (no join of
    the lines, each pass over a piece that stays in the cache)."""
    shapes: list[bytes] = []
    for _, piece in chunks(text):
        shapes += _masked(piece)
        if piece.endswith("\n"):
            shapes.pop()
    return shapes


def detect(text: str, hint: Hint) -> bool:
    lines = sample_lines(text, 500, 0)
    if len(lines) < MIN_SAMPLE:
        return False
    counts = Counter(t for t in templates(lines) if t.strip())
    return bool(counts) and counts.most_common(1)[0][1] * 3 >= len(lines)


def _run_at(shapes: list[bytes], i: int) -> tuple[int, int]:
    """(period, length) of the longest repeating run starting at line i."""
    n = len(shapes)
    best = (1, 1)
    for period in range(1, MAX_PERIOD + 1):
        if i + 2 * period > n:
            break
        if period > 1 and len(set(shapes[i : i + period])) == 1:
            continue  # same as a shorter period
        end = i + period
        while end < n and shapes[end] == shapes[end - period]:
            end += 1
        length = end - i
        whole = length - length % period
        if whole // period >= 2 and whole > best[1]:
            best = (period, whole)
    return best


def reduce(text: str, hint: Hint, budget: Budget) -> Plan | None:
    lines = split(text)
    shapes = text_templates(text)
    n = len(shapes)
    plan: Plan = []
    collapsed = False
    pending = 0
    i = 0
    while i < n:
        period, length = _run_at(shapes, i) if shapes[i].strip() else (1, 1)
        if length < max(MIN_RUN, 3 * period) or length // period < 4:
            i += 1
            continue
        if pending < i:
            plan.append(Keep(pending, i, 2))
        head_end = i + 2 * period
        tail_start = i + length - period
        hidden = tail_start - head_end
        chars = plural(lines.span_chars(head_end, tail_start), "character")
        line = f"... {plural(hidden, 'similar line')} ({chars}) omitted ..."
        plan.append(Keep(i, head_end, 1))
        plan.append(Summary((line,), head_end, tail_start, 1))
        plan.append(Keep(tail_start, i + length, 1))
        collapsed = True
        i = pending = i + length
    if pending < n:
        plan.append(Keep(pending, n, 2))
    return plan if collapsed else None
