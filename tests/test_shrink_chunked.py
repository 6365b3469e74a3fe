"""The piecewise (cache-sized) passes used on big inputs give exactly what whole-text passes give:
chunks, repeat templates, BM25, the analysis lines of the shape reducers, the drop order."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import klipui.shrink.text as text_module
from klipui.shrink.pipeline import _drop_order, _middle_out
from klipui.shrink.reducers import semantic
from klipui.shrink.reducers._patterns import _ANSI, Lines
from klipui.shrink.reducers.repeat import templates, text_templates
from klipui.shrink.text import chunks, line_starts, split, split_lines

PARTS = ["a", "B", " ", "\t", "7", "3.5", "\n", "\n", "\r\n", "\r", "\x1b[31m", "\x1b[0m", "é"]
PARTS += ["İ", "error", "Error:", "failed", "timeout", "\udcff", "日本"]
TEXT = st.lists(st.sampled_from(PARTS), max_size=200).map("".join)
SMALL = st.integers(min_value=1, max_value=40)


@pytest.fixture
def tiny_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces of a few characters, so that the examples cross many piece boundaries."""
    monkeypatch.setattr(text_module, "CHUNK_CHARS", 7)


@settings(max_examples=300, deadline=None)
@given(TEXT, SMALL)
def test_chunks_cover_the_text_at_line_ends(text: str, size: int) -> None:
    pieces = list(chunks(text, size))
    assert "".join(piece for _, piece in pieces) == text
    for offset, piece in pieces:
        assert text[offset : offset + len(piece)] == piece and piece
    assert all(piece.endswith("\n") for _, piece in pieces[:-1])


@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_line_starts_and_split_agree(text: str) -> None:
    lines = split(text, cache=False)
    starts = line_starts(lines.lines)
    assert starts[: len(lines.lines)] == [
        sum(len(line) + 1 for line in lines.lines[:i]) for i in range(len(lines.lines))
    ]
    assert lines.starts[-1] == len(text)


@pytest.mark.usefixtures("tiny_chunks")
@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_repeat_templates_from_the_text_equal_those_from_the_lines(text: str) -> None:
    assert text_templates(text) == templates(split(text, cache=False).lines)


def _bm25_whole(text: str, spans: list[tuple[int, int]], query: str) -> list[float]:
    """The same scores computed over the whole text at once (the definition)."""
    scores = [0.0] * len(spans)
    terms = semantic.query_terms(query)
    if not spans or not terms:
        return scores
    lengths = [max(1, b - a) for a, b in spans]
    average = sum(lengths) / len(lengths)
    lowered = semantic._lower_same_length(text)
    for term in terms:
        frequency = {}
        for index, (a, b) in enumerate(spans):
            hits = 0
            position = lowered.find(term, a, b)
            while position >= 0:
                if position == 0 or not semantic._is_word_char(lowered[position - 1]):
                    hits += 1
                position = lowered.find(term, position + len(term), b)
            if hits:
                frequency[index] = hits
        if not frequency:
            continue
        idf = semantic.math.log(1 + (len(spans) - len(frequency) + 0.5) / (len(frequency) + 0.5))
        for index, tf in frequency.items():
            norm = semantic.K1 * (1 - semantic.B + semantic.B * lengths[index] / average)
            scores[index] += idf * tf * (semantic.K1 + 1) / (tf + norm)
    return scores


@pytest.mark.usefixtures("tiny_chunks")
@settings(max_examples=300, deadline=None)
@given(TEXT, st.sampled_from(["error timeout", "failed", "ERROR b", "i̇ error"]))
def test_bm25_piecewise_equals_whole(text: str, query: str) -> None:
    lines = split(text, cache=False)
    blocks = list(semantic.blocks(lines.lines, 0, len(lines)))
    spans = [(lines.starts[a], lines.starts[b]) for a, b in blocks]
    assert semantic.bm25(text, spans, query) == pytest.approx(_bm25_whole(text, spans, query))


@pytest.mark.usefixtures("tiny_chunks")
@settings(max_examples=400, deadline=None)
@given(TEXT)
def test_analysis_lines_match_the_shown_lines(text: str) -> None:
    text_module._last = None
    analysed = Lines(text)
    assert len(analysed.lines) == len(analysed.raw) == len(split_lines(text))
    for i, line in enumerate(analysed.lines):
        assert analysed.text[analysed.starts[i] : analysed.starts[i] + len(line)] == line
        assert "\n" not in line and "\x1b[" not in line
        shown = _ANSI.sub("", analysed.raw[i])
        assert line.replace("\r", "") == shown.replace("\r", "")  # a lone CR may stay or go


def test_many_colour_codes_take_the_piecewise_path(tiny_chunks: None) -> None:
    text = "".join(f"\x1b[32mok\x1b[0m {i}\r\n" for i in range(50)) + "\x1b[0m"
    analysed = Lines(text)
    assert analysed.lines == [f"ok {i}" for i in range(50)] + [""]
    assert analysed.raw[-1] == "\x1b[0m"


@settings(max_examples=500, deadline=None)
@given(st.integers(min_value=0, max_value=80), st.data())
def test_middle_out_is_the_sorted_both_order(count: int, data: st.DataObject) -> None:
    indices = sorted(data.draw(st.sets(st.integers(min_value=0, max_value=max(0, count - 1)))))
    indices = [i for i in indices if i < count]
    expected = sorted(indices, key=lambda i: _drop_order("both", i, count))
    assert list(_middle_out(indices, count)) == expected


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.tuples(st.integers(min_value=0, max_value=200), st.booleans()), max_size=12),
    st.integers(min_value=1, max_value=120),
    st.booleans(),
)
def test_long_lines_are_found_by_windows_exactly(
    shape: list[tuple[int, bool]], room: int, newline: bool
) -> None:
    from klipui.shrink.pipeline import long_lines

    rows = ["y" * length + ("\r" if cr else "") for length, cr in shape]
    lines = split("\n".join(rows) + ("\n" if newline else ""), cache=False)
    expected = [i for i, line in enumerate(lines.lines) if len(line) > room]
    assert long_lines(lines, room) == expected
