"""Numbers JSON can hold but orjson cannot (integers beyond 64 bits) and values JSON cannot hold
(NaN, infinities): tool arguments keep them exactly or keep their text, never a Python repr."""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from klipui.conversation.walk import parse_arguments
from klipui.session.formats._values import dumps_json, json_text

_KEYS = st.text(alphabet="abcxyz", min_size=1, max_size=3)
_NUMBERS = st.integers() | st.floats(allow_nan=False, allow_infinity=False)
_VALUES = st.recursive(
    st.none() | st.booleans() | _NUMBERS | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_KEYS, inner, max_size=3),
    max_leaves=10,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_KEYS, _VALUES, max_size=4))
def test_arguments_round_trip_exactly(arguments: dict) -> None:
    text = json_text(arguments)
    assert json.loads(text) == arguments  # big integers digit for digit
    assert parse_arguments(text) == arguments
    assert json.loads(dumps_json(arguments)) == arguments
    assert json.loads(dumps_json(arguments, indent=True)) == arguments


def test_non_finite_numbers_are_null_or_kept_as_text() -> None:
    value = {"n": 2**70, "x": math.nan, "y": [math.inf, -math.inf]}
    assert json.loads(json_text(value)) == {"n": 2**70, "x": None, "y": [None, None]}
    assert json.loads(dumps_json(value)) == {"n": 2**70, "x": None, "y": [None, None]}
    for text in ('{"x": NaN, "n": 12345678901234567890123}', '{"f": 1e400, "n": 2}', "[1"):
        assert parse_arguments(text) == {"arguments": text}
    assert parse_arguments('{"n": 12345678901234567890123}') == {"n": 12345678901234567890123}


def _nested(depth: int) -> dict:
    root: dict = {}
    node = root
    for _ in range(depth):
        node["a"] = {"x": math.nan}
        node = node["a"]
    return root


def test_deep_arguments_are_written_or_refused_never_a_crash() -> None:
    from klipui.session.formats._values import without_non_finite

    for depth in (300, 900):  # orjson writes at most 254 levels
        value = _nested(depth)
        assert json.loads(json_text(value)) == without_non_finite(value)
        assert json.loads(dumps_json(value, indent=True)) == without_non_finite(value)
    deep = _nested(20_000)
    assert json.loads(json_text(deep)) == "(nested too deeply to write as JSON)"
    try:
        dumps_json(deep)
    except ValueError as error:
        assert "nested too deeply" in str(error)
    else:
        raise AssertionError("a value this deep cannot be written")
    plain = without_non_finite(deep)  # iterative: any depth
    for _ in range(20_000):
        plain = plain["a"]
        assert plain["x"] is None
