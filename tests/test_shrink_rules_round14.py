"""Round 14: grep-shaped results rank matches by what they say, not only by where they are."""

from __future__ import annotations

from conftest import corpus_case

from klipui.shrink import Budget, Hint, shrink
from klipui.shrink.reducers import grep
from klipui.shrink.text import split_lines

PYFLAKES = "1254-pyflakes-unused-imports-one-undefined-name"


def _shrunk(case: str) -> tuple[str, dict[str, object]]:
    text, meta = corpus_case(case)
    hint = Hint(tool=meta["tool"], command=meta["command"])
    return shrink(text, hint, Budget(max_chars=meta["budget_chars"])).content, meta


def test_a_finding_unlike_the_repeated_ones_survives_the_cut() -> None:
    content, _ = _shrunk(PYFLAKES)
    assert "svc/m23.py:23:28: undefined name 'discount_rate'" in content
    assert "redefinition of unused 'dup' from line 22" in content


def test_counts_per_file_no_longer_crowd_out_the_one_unusual_finding() -> None:
    content, meta = _shrunk("1162-cpplint-recursive-one-strcpy-among-style")
    assert all(keep in content for keep in meta["must_keep"])


def test_repeats_between_the_first_and_last_are_not_a_files_first_matches() -> None:
    text, _ = corpus_case(PYFLAKES)
    lines = split_lines(text)
    plan = grep.reduce(text, Hint(tool="bash"), Budget(max_chars=2000))
    assert plan is not None
    priority = {i: piece.priority for piece in plan for i in range(piece.start, piece.end)}
    same = [i for i, line in enumerate(lines) if line.endswith("' imported but unused")]
    assert len(same) > grep.REPEATS
    assert all(priority[i] < priority[same[0]] for i in same[1:-1])
    path = [line.split(":", 1)[0] for line in lines]
    assert any(path[i - 1] != path[i] for i in same[1:-1])  # some are their file's first match
