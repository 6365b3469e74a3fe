"""semantic: keep the blocks of lines most relevant to the agent's current goal (`hint.query`).

Blocks are paragraphs (runs between blank lines) of at most `BLOCK_LINES` lines. Each block is
scored by BM25 against the query's words (lightly stemmed; a query word also matches words it
begins, so "failed" matches "failure"); the pipeline keeps the best blocks in their original
order within the budget and writes a marker for every gap. Lexical only: no model is needed.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Iterator, Sequence

from klipui.shrink.plan import Budget, Hint, Keep, Plan
from klipui.shrink.text import chunks, split

name = "semantic"
describe = "blocks most relevant to the query kept in order"
overflow = "hint"

BLOCK_LINES = 8
K1 = 1.2
B = 0.75
STOPWORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "do",
        "does",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "me",
        "my",
        "not",
        "of",
        "on",
        "or",
        "our",
        "so",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "this",
        "to",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "why",
        "will",
        "with",
        "you",
        "your",
    ]
)
_WORD = re.compile(r"[A-Za-z0-9_]+")


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


SUFFIXES = ("ing", "ed", "es", "s")


def _stem(word: str) -> str:
    for suffix in SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def query_terms(query: str) -> list[str]:
    """Distinct lower-cased query words, lightly stemmed, without stopwords and one-letter words."""
    words = (w.lower() for w in _WORD.findall(query))
    kept = (_stem(w) for w in words if len(w) > 1 and w not in STOPWORDS)
    return list(dict.fromkeys(kept))


def blocks(lines: Sequence[str], start: int, end: int) -> Iterator[tuple[int, int]]:
    """`[start, end)` cut into paragraphs of at most `BLOCK_LINES` lines."""
    block_start = start
    for i in range(start, end):
        blank = not lines[i].strip()
        if blank or i - block_start + 1 >= BLOCK_LINES:
            if i + 1 > block_start:
                yield block_start, i + 1
            block_start = i + 1
    if block_start < end:
        yield block_start, end


def _lower_same_length(piece: str) -> str:
    """`piece.lower()`, keeping the characters whose lower case is longer (`İ`) as they are, so
    that positions in the result are positions in `piece`."""
    lowered = piece.lower()
    if len(lowered) == len(piece):
        return lowered
    return "".join(c if len(low := c.lower()) != 1 else low for c in piece)


def bm25(text: str, spans: Sequence[tuple[int, int]], query: str) -> list[float]:
    """BM25 score of each `text[a:b]` for `(a, b)` in `spans` (sorted, disjoint) against `query`."""
    scores = [0.0] * len(spans)
    terms = query_terms(query)
    if not spans or not terms:
        return scores
    starts = [a for a, _ in spans]
    lengths = [max(1, b - a) for a, b in spans]
    average = sum(lengths) / len(lengths)
    count = len(spans)
    frequencies: list[dict[int, int]] = [{} for _ in terms]
    # piece by piece: lower-casing a piece and searching it for every term stays in the cache
    for offset, piece in chunks(text):
        lowered = _lower_same_length(piece)
        for term, frequency in zip(terms, frequencies, strict=True):
            position = lowered.find(term)
            while position >= 0:
                if position == 0 or not _is_word_char(lowered[position - 1]):
                    at = offset + position
                    index = bisect_right(starts, at) - 1
                    if index >= 0 and at < spans[index][1]:
                        frequency[index] = frequency.get(index, 0) + 1
                position = lowered.find(term, position + len(term))
    for frequency in frequencies:
        if not frequency:
            continue
        idf = math.log(1 + (count - len(frequency) + 0.5) / (len(frequency) + 0.5))
        for index, tf in frequency.items():
            norm = K1 * (1 - B + B * lengths[index] / average)
            scores[index] += idf * tf * (K1 + 1) / (tf + norm)
    return scores


def detect(text: str, hint: Hint) -> bool:
    return bool(hint.query and query_terms(hint.query))


def reduce(text: str, hint: Hint, budget: Budget) -> Plan | None:
    """Every block, with its BM25 score as priority; None when no block matches the query."""
    lines = split(text)
    ranges = list(blocks(lines.lines, 0, len(lines)))
    spans = [(lines.starts[a], lines.starts[b]) for a, b in ranges]
    scores = bm25(text, spans, hint.query or "")
    if not any(scores):
        return None
    return [
        Keep(a, b, priority=round(score * 1000))
        for (a, b), score in zip(ranges, scores, strict=True)
    ]
