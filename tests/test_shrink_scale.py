"""Shrinking large inputs: a rare record of trouble deep inside a big log is found, whatever
the size (the scans that find it read the whole text; no timing here, see
bench/shrink_speed.py)."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import corpus_cases

from klipui.shrink import Budget, Hint, shrink
from klipui.shrink.reducers import _patterns, log, tests
from klipui.shrink.reducers._patterns import Lines, lines_containing, lines_holding

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from corpus_folds import part_of

CASE = Path(__file__).parent / "fixtures" / "corpus" / "17-python-http-app-log"


def _case() -> tuple[list[str], dict]:
    meta = json.loads((CASE / "meta.json").read_text(encoding="utf-8"))
    return (CASE / "output.txt").read_text(encoding="utf-8").splitlines(), meta


def _error_record(lines: list[str]) -> list[str]:
    """The case's first ERROR record with its traceback and the 500 access line after it."""
    start = next(i for i, line in enumerate(lines) if " ERROR " in line)
    end = next(i for i in range(start + 1, len(lines)) if '" 500 ' in lines[i])
    return lines[start : end + 1]


@pytest.mark.parametrize("megabytes", [3, 24])
def test_one_error_deep_inside_a_large_log_is_kept(megabytes: int) -> None:
    """Routine INFO records of the case, copied to a few MB, with the case's one ERROR record
    (its traceback and its 500 response) placed two thirds in: all of it is kept."""
    lines, meta = _case()
    routine = [line for line in lines if " INFO " in line and '" 500 ' not in line]
    block = "\n".join(routine) + "\n"
    copies = megabytes * 1_000_000 // len(block) + 1
    error = _error_record(lines)
    cut = copies * 2 // 3
    text = block * cut + "\n".join(error) + "\n" + block * (copies - cut)
    hint = Hint(tool=meta["tool"], command=meta["command"])
    out = shrink(text, hint, Budget(max_chars=meta["budget_chars"]))
    assert out.reduced and len(out.content) <= meta["budget_chars"]
    assert out.strategy.startswith("log")
    kept = out.content.splitlines()
    assert error[0] in kept  # the ERROR record
    assert any(line.startswith("ValueError: invalid literal") for line in kept)
    assert error[-1] in kept  # its 500 response
    assert any(line.startswith('  File "/tmp/ordersvc/serve_orders.py"') for line in kept)


_TUNED = [case for case in corpus_cases() if part_of(case.name) == "tuned"]


@pytest.mark.parametrize("structured", [False, True])
def test_a_huge_logs_trouble_found_by_needles_is_the_trouble_read_line_by_line(
    structured: bool,
) -> None:
    """On every tuned corpus output, the records worth a look that a huge log's reading finds
    (lines holding a needle, then their level) are those every line's level gives, in order
    and with the same levels; so are their counts."""
    for case in _TUNED:
        lines = Lines((case / "output.txt").read_text(encoding="utf-8"))
        levels, trouble = log._read_levels(lines, structured)
        found_levels, found = log._find_trouble(lines, structured)
        assert found == trouble, case.name
        assert found_levels == Counter({k: v for k, v in levels.items() if k in found_levels})
        assert set(found_levels) == {level for _, level in trouble}


@pytest.mark.parametrize("probe", [_patterns.ANCHOR_PROBE, 64])
def test_keywords_by_their_rarest_character_are_found_on_every_tuned_output(probe: int) -> None:
    """`lines_holding` finds the lines `lines_containing` does on real outputs (the log's and the
    tests reducer's needles), with the rarest characters picked from the whole head or from a
    short one (which often picks badly)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_patterns, "ANCHOR_PROBE", probe)
        patch.setattr(_patterns, "ANCHOR_SPACING", 20)
        for case in _TUNED:
            lines = Lines((case / "output.txt").read_text(encoding="utf-8"))
            for needles in (
                log._KEYWORDS,
                log._NEEDLES,
                log._FIELD_NEEDLES,
                tests._SKIP_WORDS,
                (tests._FAIL,),
                tests._FAIL_WORDS,
            ):
                expected = lines_containing(lines, needles)
                assert lines_holding(lines, needles) == expected, case.name


def test_a_huge_log_summary_counts_its_warnings_and_errors_and_the_other_lines() -> None:
    """Above `HUGE_CHARS` the summary counts the records worth a look and the lines besides."""
    lines, meta = _case()
    text = "\n".join(lines) + "\n"
    text *= log.HUGE_CHARS // len(text) + 1
    out = shrink(text, Hint(tool=meta["tool"]), Budget(max_chars=meta["budget_chars"]))
    levels, _ = log._read_levels(Lines(text), False)
    total = text.count("\n")
    others = total - levels["WARNING"] - levels["ERROR"]
    summary = (
        f"[records by level: WARNING {levels['WARNING']:,}, ERROR {levels['ERROR']:,};"
        f" {others:,} other lines]"
    )
    assert summary in out.content.splitlines()
