"""KInterval: §1.4 semantics of research/klip.md, errors with columns, warnings, canonical text."""

from __future__ import annotations

import functools
import itertools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import klipui.klip.interval
from klipui.klip import KInterval, KIntervalError, parse_interval
from klipui.klip.interval import MAX_DIGITS, MAX_TEXT_CHARS


def resolve(text: str, n: int = 10) -> list[tuple[int, int]]:
    return parse_interval(text).resolve(n)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("3", [(3, 3)]),
        ("2..5", [(2, 5)]),
        ("4..", [(4, 10)]),
        ("..3", [(1, 3)]),
        ("..", [(1, 10)]),
        (".., not 2", [(1, 1), (3, 10)]),
        ("-3..", [(8, 10)]),
        # §1.4 step 2: map, then clamp; a pair whose start exceeds its end selects nothing
        ("0", []),
        ("-0", []),
        ("0..2", [(1, 2)]),
        ("..0", []),
        ("11", []),
        ("4..12", [(4, 10)]),
        ("12..", []),
        ("..14", [(1, 10)]),
        ("-11", []),
        ("-20..3", [(1, 3)]),
        ("5..2", []),
        ("-1..-3", []),
        ("3..-1", [(3, 10)]),
        ("..-2", [(1, 9)]),
        ("-10", [(1, 1)]),
        # step 4: overlapping or touching pairs merge, duplicates collapse
        ("1..2, 3..5", [(1, 5)]),
        ("1..2, 2..4", [(1, 4)]),
        ("1..2, 4..5", [(1, 2), (4, 5)]),
        ("2,2,2", [(2, 2)]),
        ("7, 1..3", [(1, 3), (7, 7)]),
        # step 5: excludes subtract from the merged includes
        ("1..9, not 3..6", [(1, 2), (7, 9)]),
        ("1..9, not 2..3, not 5..6", [(1, 1), (4, 4), (7, 9)]),
        ("1..9, not 1..2", [(3, 9)]),
        ("1..9, not 1..9", []),
        ("1..2, 5..7, not 1..6", [(7, 7)]),
        # step 6: order does not matter; an exclude outside every include does nothing
        ("not 2, 1..5", [(1, 1), (3, 5)]),
        ("1..5, not 12", [(1, 5)]),
        # step 7: excludes alone select nothing
        ("not 3", []),
        ("not3", []),
        ("not ..", []),
        # whitespace anywhere between tokens, empty clauses
        ("1 .. 2", [(1, 2)]),
        (" \t1..2\n", [(1, 2)]),
        ("- 1", [(10, 10)]),
        ("1,,2", [(1, 2)]),
        ("1,", [(1, 1)]),
        ("", []),
        ("  ", []),
    ],
)
def test_resolve_matches_the_reference(text: str, expected: list[tuple[int, int]]) -> None:
    assert resolve(text) == expected


def test_turns_and_empty_sessions() -> None:
    selection = parse_interval("1..3, 7, -1")
    assert selection.turns(10) == [1, 2, 3, 7, 10]
    assert selection.resolve(0) == []
    assert selection.resolve(-4) == []
    assert selection.turns(2) == [1, 2]


def test_raw_pairs_are_kept_as_written() -> None:
    assert parse_interval("3..").includes == ((3, -1),)
    assert parse_interval("..").includes == ((1, -1),)
    assert parse_interval("..5").includes == ((1, 5),)
    assert parse_interval("-2").includes == ((-2, -2),)
    selection = parse_interval("not 2..4, 6")
    assert selection.includes == ((6, 6),)
    assert selection.excludes == ((2, 4),)


def test_results_are_fresh() -> None:
    selection = parse_interval("1..3")
    first = selection.resolve(5)
    first.append((9, 9))
    assert selection.resolve(5) == [(1, 3)]
    assert parse_interval("1..3") == selection


@pytest.mark.parametrize(
    ("text", "column", "message"),
    [
        ("1..x", 4, "unexpected 'x'; expected a turn number, `,` or end of input"),
        ("1..2..3", 5, "unexpected '..'; expected `,` or end of input"),
        ("1.5", 2, "expected `..`, `,` or end of input"),
        ("1-2", 2, "unexpected '-'"),
        ("abc3", 1, "unexpected 'a'"),
        ("+3", 1, "unexpected '+'"),
        ("--3", 2, "expected a turn number"),
        ("nothing", 4, "unexpected 'h'"),
        ("knot 3", 1, "unexpected 'k'"),
        ("NOT 3", 1, "write `not` in lower case"),
        ("not not 3", 5, "expected a turn number or `..`"),
        ("1..3 not 2", 6, "unexpected 'not'"),
        ("3 4", 3, "unexpected '4'"),
        ("not", 4, "unexpected end of input; expected a turn number or `..`"),
        ("1..-", 5, "unexpected end of input; expected a turn number"),
        ("1...3", 4, "unexpected '.'"),
        ("２", 1, "unexpected '２'"),
    ],
)
def test_bad_text_is_an_error_with_a_column(text: str, column: int, message: str) -> None:
    with pytest.raises(KIntervalError) as caught:
        parse_interval(text)
    error = caught.value
    assert error.column == column
    assert message in error.message
    assert error.text == text
    assert isinstance(error, ValueError)
    assert f"column {column}" in str(error)


def test_error_rendering_puts_a_caret_under_the_column() -> None:
    with pytest.raises(KIntervalError) as caught:
        parse_interval("1..x")
    lines = caught.value.render().splitlines()
    assert lines[0] == "1..x"
    assert lines[1] == "   ^"
    assert lines[2] == caught.value.message


@pytest.mark.parametrize(
    ("text", "n", "warning"),
    [
        ("5..2", 10, "5..2 selects nothing — did you mean 2..5?"),
        ("-1..-3", 10, "-1..-3 selects nothing — did you mean -3..-1?"),
        ("12", 10, "12 selects nothing: the session has 10 turns"),
        ("4..9", 1, "4..9 selects nothing: the session has 1 turn"),
        ("0", 10, "0 selects nothing: turns are numbered from 1"),
        ("..0", 10, "1..0 selects nothing: turns are numbered from 1"),
        ("not 3", 10, "only exclusions, so nothing is selected — did you mean `.., not 3`?"),
        ("1..3, not 12", 10, "not 12 excludes nothing: the session has 10 turns"),
        ("1..3, not 5..2", 10, "not 5..2 excludes nothing — did you mean not 2..5?"),
        ("1..3, not 5..7", 10, "not 5..7 excludes nothing: no selected turn is in it"),
        ("1..9, not 1..9", 10, "1..9, not 1..9 selects nothing"),
        ("", 10, "an empty selection selects nothing"),
        ("..", 0, "the session has no completed turn"),
    ],
)
def test_warnings(text: str, n: int, warning: str) -> None:
    assert any(w.startswith(warning) for w in parse_interval(text).warnings(n)), parse_interval(
        text
    ).warnings(n)


@pytest.mark.parametrize("text", ["..", "1..3, 7", "-5.., not -3", "2", "1..9, not 3..6"])
def test_sensible_selections_have_no_warnings(text: str) -> None:
    assert parse_interval(text).warnings(10) == []


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("1 .. 3 ,7", "1..3, 7"),
        ("not 2, 1..5", "1..5, not 2"),
        ("..5", "1..5"),
        ("3..", "3.."),
        ("1..-1", ".."),
        ("..", ".."),
        ("-0", "0"),
        ("not3,,", "not 3"),
        ("", ""),
    ],
)
def test_canonical_text(text: str, canonical: str) -> None:
    assert str(parse_interval(text)) == canonical
    assert parse_interval(canonical).resolve(12) == parse_interval(text).resolve(12)


def test_from_turns_builds_ascending_runs() -> None:
    selection = KInterval.from_turns([7, 1, 2, 3, 3, 9, 10])
    assert str(selection) == "1..3, 7, 9..10"
    assert selection.turns(10) == [1, 2, 3, 7, 9, 10]
    assert str(KInterval.from_turns([])) == ""
    with pytest.raises(ValueError, match="start at 1"):
        KInterval.from_turns([0, 1])


# --- properties -----------------------------------------------------------------------------

numbers = st.integers(-14, 14)


@st.composite
def clause_texts(draw: st.DrawFn) -> str:
    """One clause in any of the six shapes, with random spacing."""
    space = st.sampled_from(["", " ", "  ", "\t"])
    a, b = draw(numbers), draw(numbers)
    shape = draw(st.sampled_from(["x", "a..b", "a..", "..b", ".."]))
    body = {
        "x": f"{a}",
        "a..b": f"{a}{draw(space)}..{draw(space)}{b}",
        "a..": f"{a}{draw(space)}..",
        "..b": f"..{draw(space)}{b}",
        "..": "..",
    }[shape]
    if draw(st.booleans()):
        body = f"not{draw(space) or ' '}{body}" if body[0] != "." else f"not{draw(space)}{body}"
    return f"{draw(space)}{body}{draw(space)}"


selection_texts = st.lists(clause_texts(), max_size=5).map(",".join)


def brute_force(text: str, n: int) -> set[int]:
    """§1.4 as a set model: map, include every turn inside each clamped pair, subtract."""
    selection = parse_interval(text)

    def covered(pairs: tuple[tuple[int, int], ...]) -> set[int]:
        out: set[int] = set()
        for start, end in pairs:
            lo = n + 1 + start if start < 0 else start
            hi = n + 1 + end if end < 0 else end
            out |= {t for t in range(1, n + 1) if lo <= t <= hi}
        return out

    return covered(selection.includes) - covered(selection.excludes)


@settings(max_examples=400, deadline=None)
@given(selection_texts, st.integers(-2, 16))
def test_resolve_equals_the_set_model(text: str, n: int) -> None:
    intervals = parse_interval(text).resolve(n)
    expected = brute_force(text, n) if n > 0 else set()
    assert {t for s, e in intervals for t in range(s, e + 1)} == expected
    for (_, end), (start, _) in itertools.pairwise(intervals):
        assert end + 1 < start  # sorted, disjoint and not touching
    assert all(1 <= s <= e <= max(n, 0) for s, e in intervals)
    assert parse_interval(text).turns(n) == sorted(expected)


@settings(max_examples=300, deadline=None)
@given(selection_texts)
def test_canonical_text_round_trips(text: str) -> None:
    selection = parse_interval(text)
    again = parse_interval(str(selection))
    assert again == selection
    assert str(again) == str(selection)
    for n in (0, 1, 5, 13):
        assert again.resolve(n) == selection.resolve(n)


@settings(max_examples=300, deadline=None)
@given(selection_texts, st.integers(0, 14))
def test_an_empty_result_is_always_explained(text: str, n: int) -> None:
    selection = parse_interval(text)
    if not selection.resolve(n):
        assert selection.warnings(n)


@settings(max_examples=200, deadline=None)
@given(st.sets(st.integers(1, 40)))
def test_from_turns_selects_exactly_its_turns(turns: set[int]) -> None:
    selection = KInterval.from_turns(turns)
    assert selection.turns(40) == sorted(turns)
    assert parse_interval(str(selection)) == selection
    assert not selection.excludes


# --- the grammar, limits and hostile text (issue 11 item 7) ----------------------------------


@functools.cache
def _lark() -> Any:
    from lark import Lark

    grammar = Path(klipui.klip.interval.__file__).with_name("kinterval.lark")
    return Lark(grammar.read_text(encoding="utf-8"), parser="lalr", maybe_placeholders=True)


def _lark_pairs(text: str) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """Parse with the lark grammar in kinterval.lark: the specification of the hand parser."""
    from lark import Token, Tree

    out: tuple[list[tuple[int, int]], list[tuple[int, int]]] = ([], [])
    for clause in _lark().parse(text).children:
        if clause is None:
            continue
        assert isinstance(clause, Tree)
        span = clause.children[-1]
        assert isinstance(span, Tree)
        numbers = [
            int("".join(str(t) for t in child.children if isinstance(t, Token)))
            for child in span.children
            if isinstance(child, Tree)
        ]
        match str(span.data):
            case "single":
                pair = (numbers[0], numbers[0])
            case "closed":
                pair = (numbers[0], numbers[1])
            case "open_end":
                pair = (numbers[0], -1)
            case "open_start":
                pair = (1, numbers[0])
            case _:
                assert span.data == "whole"
                pair = (1, -1)
        out[len(clause.children) == 2].append(pair)
    return tuple(out[0]), tuple(out[1])


grammar_texts = st.text(alphabet=list("0123456789-.,  notN\tx"), max_size=24) | selection_texts


@settings(max_examples=600, deadline=None)
@given(grammar_texts)
def test_the_parser_reads_exactly_the_lark_grammar(text: str) -> None:
    from lark.exceptions import UnexpectedInput

    try:
        expected = _lark_pairs(text)
    except UnexpectedInput:
        expected = None
    try:
        selection = parse_interval(text)
    except KIntervalError:
        assert expected is None, text
    else:
        assert expected == (selection.includes, selection.excludes), text


@settings(max_examples=1000, deadline=None)
@given(st.text(max_size=60) | grammar_texts.map(lambda t: t * 3))
def test_any_text_parses_or_raises_kinterval_error(text: str) -> None:
    try:
        selection = parse_interval(text)
    except KIntervalError as error:
        assert 1 <= error.column <= len(text) + 1
        assert error.message
        assert len(error.render().splitlines()) == 3
        return
    assert parse_interval(str(selection)) == selection
    for n in (0, 1, 7):
        selection.resolve(n)
        selection.warnings(n)


def test_a_number_of_thousands_of_digits_is_an_error_with_a_column() -> None:
    for text in ("1" * 5000, "3.." + "9" * 4301, "1, not -" + "7" * 10_000):
        with pytest.raises(KIntervalError) as caught:
            parse_interval(text)
        assert caught.value.column == text.index(text[-1] * 101) + 1
        assert "turn number too long" in caught.value.message
    assert parse_interval("1.." + "9" * MAX_DIGITS).resolve(4) == [(1, 4)]


def test_text_over_the_length_bound_is_refused_with_a_clear_message() -> None:
    text = "1," * (MAX_TEXT_CHARS // 2) + "1"
    with pytest.raises(KIntervalError) as caught:
        parse_interval(text)
    assert f"at most {MAX_TEXT_CHARS:,}" in caught.value.message
    assert caught.value.column == MAX_TEXT_CHARS + 1
    assert len(str(caught.value)) < 300


def test_64k_clauses_parse_resolve_and_warn() -> None:
    count = 64_000
    text = ", ".join(str(i) if i % 2 else f"not {i}" for i in range(1, count + 1))
    selection = parse_interval(text)
    assert len(selection.includes) == len(selection.excludes) == count // 2
    assert selection.turns(count) == list(range(1, count + 1, 2))
    assert len(selection.warnings(count)) == count // 2  # no exclude meets a selected turn


@pytest.mark.parametrize(
    "text", ["1," * 300 + "x" + ",2" * 300, "1.. " + "9" * 5000, "x" + "1" * 300]
)
def test_long_text_renders_a_window_with_the_caret_under_the_column(text: str) -> None:
    with pytest.raises(KIntervalError) as caught:
        parse_interval(text)
    error = caught.value
    line, caret, message = error.render().splitlines()
    assert len(line) <= 82 and message == error.message
    column = caret.index("^")
    offender = text[error.column - 1]
    assert line[column] == offender
    before = line[:column].lstrip("…")
    assert text[: error.column - 1].endswith(before)
