"""repeat: retry storms, progress spam, any run of near-identical lines.

Lines are compared by template (digits, number punctuation and white space removed). A run of at
least 5 lines that repeats a pattern of 1 to 4 lines (so `error / retrying` pairs count too)
keeps its first two and its last repetition, and more from both ends when the budget has room;
the rest becomes one line `[… N similar lines, C chars]`. Lines outside runs
stay.
"""

from __future__ import annotations

from collections import Counter
from typing import NamedTuple

from klipui.shrink.plan import Budget, Hint, Keep, Plan, Summary
from klipui.shrink.text import Lines, chunks, plural, sample_lines, split

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


class _Run(NamedTuple):
    """A run of lines `[start, end)` repeating a pattern of `period` lines."""

    start: int
    period: int
    end: int


def _runs(shapes: list[bytes]) -> list[_Run]:
    """The runs worth collapsing, in order."""
    runs: list[_Run] = []
    n = len(shapes)
    i = 0
    while i < n:
        period, length = _run_at(shapes, i) if shapes[i].strip() else (1, 1)
        if length < max(MIN_RUN, 3 * period) or length // period < 4:
            i += 1
            continue
        runs.append(_Run(i, period, i + length))
        i += length
    return runs


SPARE_SHARE = 0.9
"""Share of the room a minimal plan leaves that shows more lines of the runs (the rest is a
margin for the pipeline's markers and footer)."""


def _summary(lines: Lines, start: int, end: int) -> str:
    chars = plural(lines.span_chars(start, end), "char")
    return f"[… {plural(end - start, 'similar line')}, {chars}]"


def _widen(lines: Lines, runs: list[_Run], budget: Budget) -> list[tuple[int, int]]:
    """The hidden part `[a, b)` of each run: all but its first two and last repetitions, less
    the lines the room a minimal plan leaves can show (shared by the runs as their hidden
    characters are, taken from both ends of each inwards); `a == b` shows the whole run."""
    n = len(lines.lines)
    hidden = [(r.start + 2 * r.period, r.end - r.period) for r in runs]
    hidden_chars = [lines.span_chars(a, b) for a, b in hidden]
    summaries = [len(_summary(lines, a, b)) + 1 for a, b in hidden]
    total_chars = sum(hidden_chars)
    total_rows = sum(b - a for a, b in hidden)
    shown_chars = lines.span_chars(0, n) - total_chars
    shown_rows = n - total_rows
    spare_chars = (
        int((budget.max_chars - shown_chars - sum(summaries)) * SPARE_SHARE)
        if budget.max_chars
        else 1 << 62
    )
    spare_rows = (
        int((budget.max_lines - shown_rows - len(runs)) * SPARE_SHARE)
        if budget.max_lines
        else 1 << 62
    )
    if spare_chars <= 0 or spare_rows <= 0 or total_rows == 0:
        return hidden
    widened: list[tuple[int, int]] = []
    for (a, b), chars, summary in zip(hidden, hidden_chars, summaries, strict=True):
        room = spare_chars * chars // total_chars
        rows = spare_rows * (b - a) // total_rows
        if chars <= room + summary and b - a <= rows + 1:
            widened.append((a, a))  # the whole run fits where its summary was
            continue
        front = True
        while a < b and rows > 0:
            k = a if front else b - 1
            cost = lines.span_chars(k, k + 1)
            if cost > room:
                break
            room -= cost
            rows -= 1
            a, b = (a + 1, b) if front else (a, b - 1)
            front = not front
        widened.append((a, b))
    return widened


def reduce(text: str, hint: Hint, budget: Budget) -> Plan | None:
    lines = split(text)
    shapes = text_templates(text)
    n = len(shapes)
    runs = _runs(shapes)
    if not runs:
        return None
    plan: Plan = []
    pending = 0
    for run, (a, b) in zip(runs, _widen(lines, runs, budget), strict=True):
        if pending < run.start:
            plan.append(Keep(pending, run.start, 2))
        if a == b:
            plan.append(Keep(run.start, run.end, 1))
        else:
            plan.append(Keep(run.start, a, 1))
            plan.append(Summary((_summary(lines, a, b),), a, b, 1))
            plan.append(Keep(b, run.end, 1))
        pending = run.end
    if pending < n:
        plan.append(Keep(pending, n, 2))
    return plan
