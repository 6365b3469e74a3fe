"""KInterval: the turn selection language of `klipui klip` (`1..3, 7`, `-5.., not -3`).

Text is parsed with the lark grammar in `kinterval.lark` into raw include and exclude pairs,
then resolved against a turn count exactly as the reference dsh-klip does for valid text:
endpoints are mapped (`-1` is the last turn) and clamped to `1..n`, a pair whose start exceeds
its end selects nothing, overlapping or touching pairs merge, excludes apply after every include
wherever they stand, and excludes alone select nothing. Unlike the reference, text that cannot be
read is an error (`KIntervalError`, with the column), and clauses that select nothing produce
warnings (`KInterval.warnings`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

Pair = tuple[int, int]
"""A raw clause as written: `(start, end)`, with `a..` stored as `(a, -1)` and `..b` as `(1, b)`."""

_GRAMMAR = Path(__file__).with_name("kinterval.lark")

_TERMINAL_WORDS = {
    "DIGITS": "a turn number",
    "MINUS": "a turn number",
    "_DOTS": "`..`",
    "NOT": "`not`",
    "_COMMA": "`,`",
    "$END": "end of input",
}
_WORD_ORDER = ["a turn number", "`..`", "`not`", "`,`", "end of input"]


class KIntervalError(ValueError):
    """Selection text that cannot be read: what was expected, and where (1-based column)."""

    def __init__(self, text: str, column: int, message: str) -> None:
        self.text = text
        self.column = column
        self.message = message
        super().__init__(f"invalid selection {text!r}, column {column}: {message}")

    def render(self) -> str:
        """The text, a caret under the offending column, and the message (three lines)."""
        line = self.text.replace("\n", " ").replace("\t", " ")
        return f"{line}\n{' ' * (self.column - 1)}^\n{self.message}"


@cache
def _parser() -> Lark:
    return Lark(_GRAMMAR.read_text(encoding="utf-8"), parser="lalr", maybe_placeholders=True)


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
        for pair in self.excludes:
            clamped = _clamp(pair, n)
            if not clamped:
                out.append(_empty_clause_warning(pair, n, "not ", "excludes"))
            elif included and not _subtract([clamped], _complement(included, n)):
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
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as error:
        raise _error(text, error) from None
    includes: list[Pair] = []
    excludes: list[Pair] = []
    for clause in tree.children:
        if clause is None:
            continue
        assert isinstance(clause, Tree)
        negated = len(clause.children) == 2
        span = clause.children[-1]
        assert isinstance(span, Tree)
        numbers = [_number(child) for child in span.children if isinstance(child, Tree)]
        pair = _raw_pair(str(span.data), numbers)
        (excludes if negated else includes).append(pair)
    return KInterval(tuple(includes), tuple(excludes))


def _number(tree: Tree) -> int:
    digits = "".join(str(token) for token in tree.children if isinstance(token, Token))
    return int(digits)


def _raw_pair(shape: str, numbers: list[int]) -> Pair:
    if shape == "single":
        return (numbers[0], numbers[0])
    if shape == "closed":
        return (numbers[0], numbers[1])
    if shape == "open_end":
        return (numbers[0], -1)
    if shape == "open_start":
        return (1, numbers[0])
    return (1, -1)


def _error(text: str, error: UnexpectedInput) -> KIntervalError:
    if isinstance(error, UnexpectedCharacters):
        column = error.column
        found = f"unexpected {text[error.pos_in_stream]!r}"
        expected = set(error.allowed or ())
        if not text[error.pos_in_stream].isspace():
            rest = text[error.pos_in_stream :].lstrip()
            if rest[:3].lower() == "not" and rest[:3] != "not":
                found += " (write `not` in lower case)"
    elif isinstance(error, UnexpectedToken):
        token = error.token
        if token.type == "$END":
            column, found = len(text) + 1, "unexpected end of input"
        else:
            column, found = token.column or 1, f"unexpected {str(token)!r}"
        expected = set(error.accepts or error.expected or ())
    elif isinstance(error, UnexpectedEOF):
        column, found, expected = len(text) + 1, "unexpected end of input", set(error.expected)
    else:  # pragma: no cover - lark raises only the three kinds above
        column, found, expected = 1, str(error), set()
    if "_COMMA" in expected:
        expected.add("$END")  # wherever a comma may come, the text may also end
    words = {_TERMINAL_WORDS.get(name, name) for name in expected}
    ordered = [w for w in _WORD_ORDER if w in words] + sorted(words - set(_WORD_ORDER))
    message = f"{found}; expected {_join_or(ordered)}" if ordered else found
    return KIntervalError(text, column, message)


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
    out: list[Pair] = []
    for start, end in included:
        cursor = start
        for ex_start, ex_end in excluded:
            if ex_end < cursor or ex_start > end:
                continue
            if ex_start > cursor:
                out.append((cursor, ex_start - 1))
            cursor = max(cursor, ex_end + 1)
            if cursor > end:
                break
        if cursor <= end:
            out.append((cursor, end))
    return out


def _complement(pairs: list[Pair], n: int) -> list[Pair]:
    return _subtract([(1, n)], pairs)


def _empty_clause_warning(pair: Pair, n: int, prefix: str, verb: str) -> str:
    text = f"{prefix}{_pair_text(pair)}"
    start, end = _map(pair[0], n), _map(pair[1], n)
    if 1 <= end < start <= n:
        return f"{text} {verb} nothing — did you mean {prefix}{pair[1]}..{pair[0]}?"
    if end < 1:
        return f"{text} {verb} nothing: turns are numbered from 1 (or -1 for the last)"
    turns = "turn" if n == 1 else "turns"
    return f"{text} {verb} nothing: the session has {n} {turns}"
