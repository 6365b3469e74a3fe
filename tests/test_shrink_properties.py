"""The four rules of `klipui.shrink`, as properties over random text and over every reducer.

1. never over budget (code points and lines, spill footer included);
2. never a partial input line except an explicit line cap, never a split character;
3. every omission counted exactly against the original;
4. idempotent: shrinking the result again returns it unchanged.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import corpus_cases
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from klipui.shrink import Budget, FileSpillStore, Hint, Shrunk, builtin_reducers, shrink
from klipui.shrink.text import _glued, marker, split, split_lines

CAPPED = re.compile(r"^(?P<kept>.*) \.\.\. \+(?P<cut>[\d,]+) characters?$", re.DOTALL)
FOOTER = re.compile(r"^\[full output saved as spill:[A-Za-z0-9_-]+(: .*)?\]$")

PIECES = [
    "ok",
    "PASSED",
    "FAILED test_x - AssertionError",
    "error: boom",
    "  at foo (bar.js:1:2)",
    "é",
    "e\u0301",  # combining acute
    "👩\u200d💻",  # ZWJ sequence
    "🇫🇷",
    "\udcff\udcfe",  # surrogate escapes
    "日本語",
    "x" * 300,
    "   ",
    "\t",
    "diff --git a/x b/x",
    "+added",
    "-removed",
    "{",
    '"k": 1,',
    "a,b,c",
]


def _line() -> st.SearchStrategy[str]:
    return st.lists(
        st.one_of(st.sampled_from(PIECES), st.text(max_size=30).map(lambda s: s.replace("\n", ""))),
        max_size=6,
    ).map("".join)


def _text() -> st.SearchStrategy[str]:
    return st.tuples(
        st.one_of(st.lists(_line(), max_size=20), st.lists(_line(), min_size=20, max_size=400)),
        st.sampled_from(["\n", "\r\n"]),
        st.booleans(),
    ).map(lambda t: t[1].join(t[0]) + (t[1] if t[2] and t[0] else ""))


def _budget() -> st.SearchStrategy[Budget]:
    return st.builds(
        Budget,
        max_chars=st.one_of(st.integers(80, 400), st.integers(400, 4000)),
        max_lines=st.one_of(st.just(0), st.integers(1, 120)),
        max_line_chars=st.one_of(st.just(0), st.integers(5, 200)),
    )


def _hint() -> st.SearchStrategy[Hint]:
    return st.builds(
        Hint,
        tool=st.sampled_from([None, "bash", "grep", "read", "other", "weird tool/name"]),
        command=st.sampled_from([None, "pytest", "git diff", "ls -R", "npm install"]),
        query=st.sampled_from([None, "error boom", "foo bar"]),
        exit_code=st.sampled_from([None, 0, 1]),
    )


def check_rules(text: str, result: Shrunk, budget: Budget) -> None:
    """Assert rules 1-3 for one result (rule 4 needs a second call)."""
    content = result.content
    rows = split_lines(content)
    # 1. within budget
    if budget.max_chars:
        assert len(content) <= budget.max_chars
    if budget.max_lines:
        assert len(rows) <= budget.max_lines
    assert result.stats.output_chars == len(content)
    assert result.stats.output_lines == len(rows)
    if not result.reduced:
        assert content == text and result.strategy == "none"
        return
    lines = split(text)
    assert len(rows) == len(result.kept)
    covered = 0
    last_summary: tuple[int, int] | None = None
    for row, span in zip(rows, result.kept, strict=True):
        if span.kind == "footer":
            assert FOOTER.match(row), row
            continue
        if span.kind == "summary":
            if (span.start, span.end) != last_summary:
                assert span.start == covered, (span, covered)
                covered = span.end
                last_summary = (span.start, span.end)
            continue
        last_summary = None
        assert span.start == covered, (span, covered)
        original = lines.lines[span.start] if span.kind in ("line", "capped") else None
        if span.kind == "line":
            # 2. whole lines only
            assert row == original
        elif span.kind == "capped":
            match = CAPPED.match(row)
            assert match and budget.max_line_chars > 0, row
            kept = match["kept"]
            assert original is not None and original.startswith(kept)
            assert len(kept) <= budget.max_line_chars
            assert int(match["cut"].replace(",", "")) == len(original) - len(kept)
            assert not _glued(original[len(kept) - 1], original[len(kept)]) if kept else True
        elif span.kind == "omitted":
            # 3. exact counts against the original
            exact = marker(lines.span_chars(span.start, span.end), span.end - span.start)
            labelled = row.startswith(exact + " (") and row.endswith(")")
            assert row == exact or labelled, (row, exact)
        else:
            raise AssertionError(f"unknown span kind {span.kind}")
        covered = span.end
    assert covered == len(lines), (covered, len(lines))


def check_idempotent(result: Shrunk, hint: Hint, budget: Budget, **kwargs: object) -> None:
    again = shrink(result.content, hint, budget, **kwargs)
    assert again.content == result.content
    assert again.strategy == "none" and not again.reduced


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_text(), hint=_hint(), budget=_budget())
def test_rules_on_random_text(text: str, hint: Hint, budget: Budget) -> None:
    result = shrink(text, hint, budget)
    event(result.strategy)
    check_rules(text, result, budget)
    check_idempotent(result, hint, budget)
    uncapped = Budget(budget.max_chars, budget.max_lines, 0)
    check_idempotent(result, hint, uncapped)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_text(), hint=_hint(), budget=_budget())
def test_rules_with_spill(text: str, hint: Hint, budget: Budget, tmp_path_factory) -> None:
    store = FileSpillStore(tmp_path_factory.mktemp("spill"))
    result = shrink(text, hint, budget, spill=store)
    check_rules(text, result, budget)
    check_idempotent(result, hint, budget, spill=store)
    if result.reduced:
        assert result.locator is not None
        assert store.load(result.locator) == text


REDUCER_NAMES = [m.name for m in builtin_reducers()]
CASES = corpus_cases()


def _case_text(case: Path) -> str:
    return (case / "output.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", REDUCER_NAMES)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    case=st.sampled_from(CASES),
    budget=_budget(),
    crlf=st.booleans(),
    query=st.sampled_from([None, "error failed", "version"]),
)
def test_rules_for_every_reducer_on_corpus(
    name: str, case: Path, budget: Budget, crlf: bool, query: str | None
) -> None:
    import json

    meta = json.loads((case / "meta.json").read_text(encoding="utf-8"))
    text = _case_text(case)
    if crlf:
        text = text.replace("\n", "\r\n")
    hint = Hint(tool=meta["tool"], command=meta["command"], query=query)
    result = shrink(text, hint, budget, only=[name])
    check_rules(text, result, budget)
    check_idempotent(result, hint, budget)


@pytest.mark.parametrize("name", REDUCER_NAMES)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=_text(), hint=_hint(), budget=_budget())
def test_rules_for_every_reducer_on_random_text(
    name: str, text: str, hint: Hint, budget: Budget
) -> None:
    result = shrink(text, hint, budget, only=[name])
    check_rules(text, result, budget)
    check_idempotent(result, hint, budget)


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_rules_on_every_corpus_case_at_its_budget(case: Path) -> None:
    import json

    meta = json.loads((case / "meta.json").read_text(encoding="utf-8"))
    text = _case_text(case)
    hint = Hint(tool=meta["tool"], command=meta["command"])
    for budget in (Budget(max_chars=meta["budget_chars"]), Budget(meta["budget_chars"], 40, 120)):
        result = shrink(text, hint, budget)
        assert result.reduced
        check_rules(text, result, budget)
        check_idempotent(result, hint, budget)
