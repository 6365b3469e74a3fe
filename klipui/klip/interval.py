"""KInterval: the turn selection language of `klipui klip` (`1..3, 7`, `-5.., not -3`).

The grammar is written down in `kinterval.lark`; `parse_interval` reads it with a hand lexer
and a small state machine (one pass, linear in the text; the tests check it against the lark
grammar). Raw include and exclude pairs are then resolved against a turn count exactly as the
reference dsh-klip does for valid text: endpoints are mapped (`-1` is the last turn) and clamped
to `1..n`, a pair whose start exceeds its end selects nothing, overlapping or touching pairs
merge, excludes apply after every include wherever they stand, and excludes alone select
nothing. Unlike the reference, text that cannot be read is an error (`KIntervalError`, with the
column), and clauses that select nothing produce warnings (`KInterval.warnings`).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from dataclasses import dataclass

Pair = tuple[int, int]
"""A raw clause as written: `(start, end)`, with `a..` stored as `(a, -1)` and `..b` as `(1, b)`."""

MAX_TEXT_CHARS = 1_000_000
"""The longest selection text read (about 80,000 clauses)."""
MAX_DIGITS = 100
"""The most digits a turn number may have."""

_TOKEN = re.compile(
    r"[ \t\f\r\n]*(?:(?P<DIGITS>[0-9]+)|(?P<DOTS>\.\.)|(?P<NOT>not)|(?P<MINUS>-)|(?P<COMMA>,))"
)
_SPACE = re.compile(r"[ \t\f\r\n]*")
_WORDS = {
    "DIGITS": "a turn number",
    "MINUS": "a turn number",
    "DOTS": "`..`",
    "NOT": "`not`",
    "COMMA": "`,`",
    "END": "end of input",
}
_WORD_ORDER = ["a turn number", "`..`", "`not`", "`,`", "end of input"]

# Parser states: what may come next (the LALR states of kinterval.lark, by hand).
_CLAUSE = "clause"  # start of a clause: after the start or a comma
_AFTER_NOT = "after not"
_SIGN = "sign"  # after `-`: digits must follow
_FIRST = "first"  # after the first number of a clause
_DOTS_OPEN = "dots open"  # after `a..` or a leading `..`: a number may follow
_DONE = "done"  # after a complete clause
_ACCEPTS: dict[str, frozenset[str]] = {
    _CLAUSE: frozenset({"DIGITS", "MINUS", "DOTS", "NOT", "COMMA", "END"}),
    _AFTER_NOT: frozenset({"DIGITS", "MINUS", "DOTS"}),
    _SIGN: frozenset({"DIGITS"}),
    _FIRST: frozenset({"DOTS", "COMMA", "END"}),
    _DOTS_OPEN: frozenset({"DIGITS", "MINUS", "COMMA", "END"}),
    _DONE: frozenset({"COMMA", "END"}),
}


class KIntervalError(ValueError):
    """Selection text that cannot be read: what was expected, and where (1-based column)."""

    def __init__(self, text: str, column: int, message: str) -> None:
        self.text = text
        self.column = column
        self.message = message
        shown = text if len(text) <= 80 else text[:77] + "..."
        super().__init__(f"invalid selection {shown!r}, column {column}: {message}")

    def render(self, width: int = 80) -> str:
        """The text (at most `width` characters of it around the column, `…` where cut), a caret
        under the offending column, and the message (three lines)."""
        start = max(0, min(self.column - 1 - width // 2, len(self.text) - width))
        shown = self.text[start : start + width]
        line = "".join(char if char.isprintable() else " " for char in shown)
        caret = self.column - 1 - start
        if start:
            line, caret = "…" + line, caret + 1
        if start + width < len(self.text):
            line += "…"
        return f"{line}\n{' ' * caret}^\n{self.message}"


@dataclass(frozen=True, slots=True)
class KInterval:
    """A parsed selection: raw include and exclude pairs, resolved only against a turn count."""

    includes: tuple[Pair, ...] = ()
    excludes: tuple[Pair, ...] = ()

    @classmethod
    def from_turns(cls, turns: Iterable[int]) -> KInterval:
        """The canonical selection of exactly these (positive) turn numbers, as ascending runs."""
        runs: list[Pair] = []
        for turn in sorted(set(turns)):
            if turn < 1:
                raise ValueError(f"turn numbers start at 1, got {turn}")
            if runs and runs[-1][1] + 1 == turn:
                runs[-1] = (runs[-1][0], turn)
            else:
                runs.append((turn, turn))
        return cls(tuple(runs))

    def resolve(self, n: int) -> list[tuple[int, int]]:
        """Sorted, disjoint, non-touching closed 1-based intervals selected among `n` turns."""
        if n <= 0:
            return []
        included = _merge(p for p in (_clamp(pair, n) for pair in self.includes) if p)
        excluded = _merge(p for p in (_clamp(pair, n) for pair in self.excludes) if p)
        return _subtract(included, excluded)

    def turns(self, n: int) -> list[int]:
        """The selected turn numbers among `n` turns, ascending."""
        return [turn for start, end in self.resolve(n) for turn in range(start, end + 1)]

    def warnings(self, n: int) -> list[str]:
        """Why (parts of) this selection select nothing among `n` turns; [] when all is well."""
        if n <= 0:
            return ["the session has no completed turn, so nothing can be selected"]
        if not self.includes and not self.excludes:
            return ["an empty selection selects nothing"]
        out: list[str] = []
        for pair in self.includes:
            if not _clamp(pair, n):
                out.append(_empty_clause_warning(pair, n, "", "selects"))
        included = _merge(p for p in (_clamp(pair, n) for pair in self.includes) if p)
        starts = [start for start, _ in included]
        for pair in self.excludes:
            clamped = _clamp(pair, n)
            if not clamped:
                out.append(_empty_clause_warning(pair, n, "not ", "excludes"))
            elif included and not _meets(clamped, included, starts):
                out.append(f"not {_pair_text(pair)} excludes nothing: no selected turn is in it")
        if not self.includes:
            example = _pair_text(self.excludes[0])
            out.append(
                f"only exclusions, so nothing is selected — did you mean `.., not {example}`?"
            )
        elif not out and not self.resolve(n):
            out.append(f"{self} selects nothing")
        return out

    def __str__(self) -> str:
        """Canonical text: includes then excludes, each as `x`, `a..b`, `a..` or `..`, joined
        by ", "; it parses back to an equal KInterval."""
        parts = [_pair_text(p) for p in self.includes]
        parts += [f"not {_pair_text(p)}" for p in self.excludes]
        return ", ".join(parts)


def parse_interval(text: str) -> KInterval:
    """Parse selection text; raise `KIntervalError` (with the column) when it cannot be read."""
    _check_length(text)
    includes: list[Pair] = []
    excludes: list[Pair] = []
    state = _CLAUSE
    negated = False
    sign = 1
    numbers: list[int] = []
    dots = False
    pos = 0
    size = len(text)
    match_token = _TOKEN.match

    def finish() -> None:
        pair = _clause_pair(state, dots, numbers)
        if pair is not None:
            (excludes if negated else includes).append(pair)

    while True:
        found = match_token(text, pos)
        if found is None:
            start = _skip_space(text, pos)
            if start == size:
                if "END" not in _ACCEPTS[state]:
                    raise _error(text, size, "unexpected end of input", state)
                finish()
                return KInterval(tuple(includes), tuple(excludes))
            raise _unexpected_character(text, start, state)
        kind = found.lastgroup
        assert kind is not None
        start = found.start(kind)
        if kind not in _ACCEPTS[state]:
            raise _error(text, start, f"unexpected {found.group(kind)!r}", state)
        pos = found.end()
        if kind == "COMMA":
            finish()
            state, negated, sign, numbers, dots = _CLAUSE, False, 1, [], False
        elif kind == "NOT":
            negated, state = True, _AFTER_NOT
        elif kind == "MINUS":
            sign, state = -1, _SIGN
        elif kind == "DOTS":
            dots, state = True, _DOTS_OPEN
        else:
            numbers.append(sign * _number(text, start, found.group(kind)))
            sign = 1
            state = _DONE if dots else _FIRST


def _check_length(text: str) -> None:
    """KIntervalError when the selection text is longer than `MAX_TEXT_CHARS`."""
    if len(text) > MAX_TEXT_CHARS:
        raise KIntervalError(
            text,
            MAX_TEXT_CHARS + 1,
            f"selection too long: {len(text):,} characters (at most {MAX_TEXT_CHARS:,})",
        )


def _number(text: str, start: int, digits: str) -> int:
    """The turn number `digits` at `start` (KIntervalError when it has too many digits)."""
    if len(digits) > MAX_DIGITS:
        raise KIntervalError(
            text,
            start + 1,
            f"turn number too long: {len(digits):,} digits (at most {MAX_DIGITS})",
        )
    return int(digits)


def _clause_pair(state: str, dots: bool, numbers: list[int]) -> Pair | None:
    """The (start, end) pair a finished clause stands for (None before any clause)."""
    if state == _CLAUSE:
        return None
    if not dots:
        return (numbers[0], numbers[0])
    if state == _DOTS_OPEN:
        return (numbers[0], -1) if numbers else (1, -1)
    return (numbers[0], numbers[1]) if len(numbers) == 2 else (1, numbers[0])


def _skip_space(text: str, pos: int) -> int:
    found = _SPACE.match(text, pos)
    return found.end() if found else pos


def _unexpected_character(text: str, pos: int, state: str) -> KIntervalError:
    found = f"unexpected {text[pos]!r}"
    if not text[pos].isspace():
        rest = text[pos:].lstrip()
        if rest[:3].lower() == "not" and rest[:3] != "not":
            found += " (write `not` in lower case)"
    return _error(text, pos, found, state)


def _error(text: str, pos: int, found: str, state: str) -> KIntervalError:
    words = {_WORDS[name] for name in _ACCEPTS[state]}
    ordered = [w for w in _WORD_ORDER if w in words]
    return KIntervalError(text, pos + 1, f"{found}; expected {_join_or(ordered)}")


def _join_or(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " or " + words[-1]


def _pair_text(pair: Pair) -> str:
    start, end = pair
    if start == end:
        return str(start)
    if start == 1 and end == -1:
        return ".."
    if end == -1:
        return f"{start}.."
    return f"{start}..{end}"


def _map(x: int, n: int) -> int:
    return n + 1 + x if x < 0 else x


def _clamp(pair: Pair, n: int) -> Pair | None:
    start = max(_map(pair[0], n), 1)
    end = min(_map(pair[1], n), n)
    return (start, end) if start <= end else None


def _merge(pairs: Iterable[Pair]) -> list[Pair]:
    merged: list[Pair] = []
    for start, end in sorted(pairs):
        if merged and start <= merged[-1][1] + 1:
            if end > merged[-1][1]:
                merged[-1] = (merged[-1][0], end)
        else:
            merged.append((start, end))
    return merged


def _subtract(included: list[Pair], excluded: list[Pair]) -> list[Pair]:
    """`included` minus `excluded` (both sorted and disjoint), in one pass over each."""
    out: list[Pair] = []
    first = 0
    for start, end in included:
        while first < len(excluded) and excluded[first][1] < start:
            first += 1
        cursor = start
        index = first
        while index < len(excluded) and excluded[index][0] <= end:
            ex_start, ex_end = excluded[index]
            if ex_start > cursor:
                out.append((cursor, ex_start - 1))
            cursor = max(cursor, ex_end + 1)
            index += 1
        if cursor <= end:
            out.append((cursor, end))
    return out


def _meets(pair: Pair, merged: list[Pair], starts: list[int]) -> bool:
    """Whether `pair` shares a turn with `merged` (sorted, disjoint; `starts` its starts)."""
    index = bisect.bisect_right(starts, pair[1]) - 1
    return index >= 0 and merged[index][1] >= pair[0]


def _empty_clause_warning(pair: Pair, n: int, prefix: str, verb: str) -> str:
    text = f"{prefix}{_pair_text(pair)}"
    start, end = _map(pair[0], n), _map(pair[1], n)
    if 1 <= end < start <= n:
        return f"{text} {verb} nothing — did you mean {prefix}{pair[1]}..{pair[0]}?"
    if end < 1:
        return f"{text} {verb} nothing: turns are numbered from 1 (or -1 for the last)"
    turns = "turn" if n == 1 else "turns"
    return f"{text} {verb} nothing: the session has {n} {turns}"
