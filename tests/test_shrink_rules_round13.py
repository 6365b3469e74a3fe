"""Round 13: a stack trace's plan joins salience's ranking even when it fits."""

from __future__ import annotations

from conftest import corpus_case

from klipui.shrink import Budget, Hint, shrink

JSCODESHIFT = "1668-jscodeshift-dry-verbose2-var-to-const-parse-error-and-transform-throw"


def _hint(meta: dict, query: str | None = None) -> Hint:
    return Hint(tool=meta["tool"], command=meta["command"], query=query)


def test_a_trace_inside_a_report_keeps_the_reports_summary() -> None:
    text, meta = corpus_case(JSCODESHIFT)
    shrunk = shrink(text, _hint(meta), Budget(max_chars=meta["budget_chars"]))
    assert shrunk.strategy == "stacktrace+salience"
    for line in ("4 errors", "42 ok", "24 skipped"):
        assert f"\n{line}" in shrunk.content
    assert "ERR recast/printer.js Transformation error (Cannot set prope" in shrunk.content


def test_a_trace_after_a_verbose_run_keeps_the_runs_scores() -> None:
    text, meta = corpus_case("831-sklearn-pipeline-verbose-nan-input")
    shrunk = shrink(text, _hint(meta), Budget(max_chars=meta["budget_chars"]))
    assert shrunk.strategy == "stacktrace+salience"
    assert all(keep in shrunk.content for keep in meta["must_keep"])


def test_a_query_still_ranks_a_trace_by_relevance() -> None:
    text, meta = corpus_case(JSCODESHIFT)
    shrunk = shrink(text, _hint(meta, "printer"), Budget(max_chars=meta["budget_chars"]))
    assert "salience" not in shrunk.strategy
