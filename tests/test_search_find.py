"""Find inside a session (the engine under the find bar) and the query rule of search."""

from __future__ import annotations

from conftest import SAMPLES
from hypothesis import given
from hypothesis import strategies as st

from klipui.search.find import Match, MatchCursor, find_matches, find_terms
from klipui.search.query import is_syntax, parse_query
from klipui.session import open_session

PI = SAMPLES / "pi" / "pi_before-compaction_v1.jsonl"


def test_find_terms_follow_the_rule() -> None:
    assert find_terms("npm error") == ("npm error",)  # as typed, one string
    assert find_terms('"npm error" boom') == ("npm error", "boom")
    assert find_terms("  ") == ()


def test_matches_are_in_reading_order_and_counted_per_unit() -> None:
    session = open_session(PI)
    matches = find_matches(session, "npm error")
    assert len(matches) > 3
    keys = [(m.turn, m.event, m.start) for m in matches]
    assert [k[:2] for k in keys] == sorted(k[:2] for k in keys)
    for match in matches:
        event = session.events[match.event]
        assert event.seq == match.seq
        turn = session.turns[match.turn - 1]
        assert turn.start <= match.event < turn.end
    previous: dict[tuple[int, str], int] = {}
    for match in matches:
        key = (match.event, match.kind)
        assert match.occurrence == previous.get(key, -1) + 1
        previous[key] = match.occurrence


def test_find_is_case_insensitive_and_finds_nothing_for_nothing() -> None:
    session = open_session(PI)
    assert len(find_matches(session, "NPM ERROR")) == len(find_matches(session, "npm error"))
    assert find_matches(session, "") == []
    assert find_matches(session, "zzz-no-such-text-zzz") == []


def _matches(count: int) -> list[Match]:
    return [Match(1 + n // 3, n, n, "result", 0, 1, 0) for n in range(count)]


@given(st.integers(min_value=1, max_value=40), st.sampled_from([1, -1]))
def test_stepping_all_the_way_round_wraps_once(count: int, delta: int) -> None:
    cursor = MatchCursor(_matches(count))
    first, wrapped = cursor.step(delta)
    assert not wrapped and first is not None
    wraps = 0
    for _ in range(count):
        _, wrapped = cursor.step(delta)
        wraps += wrapped
    assert cursor.current == first
    assert wraps == 1
    assert cursor.position() == f"match {cursor.index + 1} of {count}"


def test_first_from_an_event_and_kind() -> None:
    matches = [
        Match(1, 2, 2, "answer", 0, 1, 0),
        Match(1, 5, 5, "call", 0, 1, 0),
        Match(1, 5, 5, "result", 0, 1, 0),
        Match(2, 9, 9, "prompt", 0, 1, 0),
    ]
    cursor = MatchCursor(matches)
    assert cursor.position() == "4 matches"
    assert cursor.first_from(5, "result") == matches[2]
    assert cursor.first_from(3) == matches[1]
    assert cursor.first_from(10) == matches[0]  # past the last: wraps to the first
    assert MatchCursor([]).first_from(0) is None
    assert MatchCursor([]).position() == "no match"


def test_the_syntax_rule() -> None:
    assert not is_syntax("TypeError: 'NoneType' object")
    assert not is_syntax("and or not")  # lower-case words are words
    assert not is_syntax("a * b")
    assert is_syntax('"a phrase"')
    assert is_syntax("prefix*")
    assert is_syntax("cats OR dogs")
    plain = parse_query("src/app.py: line 3")
    assert not plain.syntax and plain.expression == '"src/app.py:" AND "line" AND "3"'
    syntax = parse_query('("npm error" OR panic*) NOT flaky')
    assert syntax.syntax
    assert syntax.expression == '( "npm error" OR "panic"* ) NOT "flaky"'
    assert syntax.terms == ("npm error", "panic", "flaky")
