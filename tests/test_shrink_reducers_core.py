"""The core reducers (diff, json, csv, tree, repeat, grep, outline, semantic, size) on real
outputs from the corpus and on hand-built edge cases."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import corpus_case, design_cases

from klipui.shrink import Budget, Hint, Keep, Summary, shrink
from klipui.shrink.reducers import csv as csv_reducer
from klipui.shrink.reducers import diff, grep, outline, repeat, semantic, size, tree
from klipui.shrink.reducers import json as json_reducer
from klipui.shrink.text import split_lines

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from shrink_quality import head_tail


def run_case(name: str, **kwargs: object) -> tuple[str, dict, object]:
    text, meta = corpus_case(name)
    hint = Hint(tool=meta["tool"], command=meta["command"])
    out = shrink(text, hint, Budget(max_chars=meta["budget_chars"]), **kwargs)  # type: ignore[arg-type]
    return text, meta, out


def assert_keeps(out: object, meta: dict) -> None:
    content = out.content  # type: ignore[attr-defined]
    missing = [s for s in meta["must_keep"] if s not in content]
    assert not missing
    assert len(content) <= meta["budget_chars"]


# diff --------------------------------------------------------------------------------------


def test_diff_keeps_the_hidden_non_mechanical_changes() -> None:
    text, meta, out = run_case("14-git-diff-jinja-rename")
    assert out.strategy == "diff"  # type: ignore[attr-defined]
    assert_keeps(out, meta)
    assert "= True," not in head_tail(text, meta["budget_chars"])  # a blind cut loses it


def test_diff_plan_ranks_mechanical_renames_below_unique_changes() -> None:
    text, _ = corpus_case("14-git-diff-jinja-rename")
    plan = diff.reduce(text, Hint(), Budget())
    assert plan
    lines = split_lines(text)
    priority = {i: p.priority for p in plan for i in range(p.start, p.end)}
    flip = next(i for i, line in enumerate(lines) if line.startswith("+") and "= True," in line)
    rename = next(
        i
        for i, line in enumerate(lines)
        if line.startswith("+") and "EvaluationContext" in line and i > 30
    )
    header = next(i for i, line in enumerate(lines) if line.startswith("diff --git"))
    assert priority[header] > priority[flip] > priority[rename]


def test_diff_small_context_label_and_crlf() -> None:
    body = "".join(f" context {i}\n" for i in range(40))
    text = (
        "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,81 +1,81 @@\n" + body + "-old\n+new\n" + body
    )
    out = shrink(text.replace("\n", "\r\n"), Hint(command="git diff"), Budget(max_chars=400))
    assert out.strategy == "diff"
    assert "-old\n+new" in out.content
    assert "(unchanged)" in out.content
    assert diff.detect(text, Hint())
    assert not diff.detect("+ a bullet\n- another\n", Hint())


# json --------------------------------------------------------------------------------------


def test_json_keeps_the_manifest_not_the_version_maps() -> None:
    _, meta, out = run_case("15-npm-view-rollup-json")
    assert out.strategy == "json"  # type: ignore[attr-defined]
    assert_keeps(out, meta)
    assert '"0.20.0"' not in out.content  # type: ignore[attr-defined]


def test_compact_json_is_sampled() -> None:
    value = {
        "items": [{"id": i, "name": "n" * 20} for i in range(1000)],
        "wide": {f"k{i}": i for i in range(800)},
        "long": "x" * 10_000,
    }
    text = json.dumps(value)
    out = shrink(text, Hint(tool="bash"), Budget(max_chars=3000))
    assert out.strategy == "json"
    assert "... 996 more items ..." in out.content
    assert '"id": 999' in out.content  # the last item is part of the sample
    assert '"...": "795 more keys omitted"' in out.content
    assert "(+9,500 chars)" in out.content


def test_json_declines_invalid_and_jsonl() -> None:
    assert json_reducer.reduce('{"a": 1,\n', Hint(), Budget()) is None
    jsonl = "\n".join(json.dumps({"i": i}) for i in range(100))
    assert json_reducer.reduce(jsonl, Hint(), Budget()) is None


def test_json_pretty_lines_follow_the_nesting_without_a_full_parse() -> None:
    items = ",\n".join(f'    "dep-{i}": "^1.{i}.0"' for i in range(400))
    jsonc = '{\n  // generated\n  "name": "x",\n  "dependencies": {\n' + items + "\n  }\n}\n"
    out = shrink(jsonc, Hint(tool="read", path="package.jsonc"), Budget(max_chars=600))
    assert out.strategy == "json" and len(out.content) <= 600
    assert '"name": "x",' in out.content and out.content.rstrip().endswith("}")
    unbalanced = '{\n  "a": [\n    1,\n    2\n' + "    3,\n" * 300 + "}\n"
    assert json_reducer.reduce(unbalanced, Hint(), Budget()) is None


# csv ---------------------------------------------------------------------------------------


def test_csv_keeps_header_warnings_and_totals() -> None:
    _, meta, out = run_case("20-csv-zoneinfo-export")
    assert out.strategy == "csv"  # type: ignore[attr-defined]
    assert_keeps(out, meta)
    assert "CSV: 600 data rows, 7 columns" in out.content  # type: ignore[attr-defined]


def test_csv_delimiter_is_quote_aware() -> None:
    rows = ["id;name;note"] + [f'{i};"Doe, Jane";"a, b, c"' for i in range(100)]
    assert csv_reducer.find_delimiter(rows) == (";", 3)
    tricky = ["a,b,c"] + [f'{i},"x; y | z","q\tr"' for i in range(100)]
    assert csv_reducer.find_delimiter(tricky) == (",", 3)


def test_csv_quoted_field_spanning_lines_stays_whole() -> None:
    rows = ["id,text,n"] + [f'{i},"first line\nsecond line",{i}' for i in range(200)]
    text = "\n".join(rows)
    out = shrink(text, Hint(path="data.csv"), Budget(max_chars=600))
    assert out.strategy == "csv"
    rows = out.content.split("\n")
    for i, row in enumerate(rows):
        if row.endswith('"first line'):
            assert rows[i + 1].startswith('second line"'), "a quoted record was cut in two"
    assert "CSV: 200 data rows, 3 columns" in out.content


def test_csv_tsv_and_not_cat_n() -> None:
    tsv = "\n".join(["a\tb\tc"] + [f"{i}\t{i * 2}\tx" for i in range(100)])
    assert shrink(tsv, Hint(), Budget(500)).content.endswith("TSV: 100 data rows, 3 columns")
    cat_n = "\n".join(f"{i:6d}\tprint({i})" for i in range(100))
    assert not csv_reducer.detect(cat_n, Hint(tool="read"))


SHAPES = Path(__file__).parent / "fixtures" / "shrink_shapes"


@pytest.mark.parametrize("hint", [Hint(tool="bash", command="go test ./..."), Hint()])
def test_go_test_package_lines_are_tests_not_csv(hint: Hint) -> None:
    """`ok  \tpkg\t0.01s` lines split evenly on tabs; they are a test run all the same."""
    text = (SHAPES / "go-test-all.txt").read_text(encoding="utf-8")
    assert not csv_reducer.detect(text, hint)
    out = shrink(text, hint, Budget(max_chars=1000))
    assert out.strategy == "tests" and len(out.content) <= 1000
    for kept in (
        "--- FAIL: TestReconcile_MultiCurrency (0.00s)",
        "reconcile_test.go:88: balance mismatch for EUR: got 100.01, want 100.00",
        "reconcile_test.go:131: rounding 2.675 half-even: got 2.68, want 2.67",
        "store_test.go:64: rollback left 1 row in ledger_entries, want 0",
        "FAIL\tgithub.com/tallyq/ledger/internal/reconcile\t0.052s",
        "FAIL\tgithub.com/tallyq/ledger/internal/store/pg\t0.231s",
    ):
        assert kept in out.content


@pytest.mark.parametrize("hint", [Hint(tool="bash", command="./orders-api"), Hint()])
def test_json_lines_log_is_a_log_not_csv(hint: Hint) -> None:
    """Records with the same keys have the same number of commas; they are no table."""
    text = (SHAPES / "jsonl-app-log.txt").read_text(encoding="utf-8")
    assert not csv_reducer.detect(text, hint)
    out = shrink(text, hint, Budget(max_chars=2500))
    assert out.strategy == "log" and len(out.content) <= 2500
    assert "CSV:" not in out.content
    assert out.content.count('"level":"ERROR"') == 3
    assert "[records by level: INFO 893, WARN 4, ERROR 3]" in out.content


def test_csv_needs_a_header_or_many_columns_without_a_file_name() -> None:
    values = "\n".join(f"{i},{i * 7 % 13},x{i}" for i in range(100))
    assert not csv_reducer.detect(values, Hint())
    assert csv_reducer.detect(values, Hint(path="numbers.csv"))
    assert csv_reducer.detect("id,score,label\n" + values, Hint())
    wide = "\n".join(f"{i},{i % 3},{i % 5},{i % 7},{i % 11}" for i in range(100))
    assert csv_reducer.detect(wide, Hint())
    assert csv_reducer.header_like("zone,utc_offset,dst,abbrev", ",")
    assert not csv_reducer.header_like("ok  \tgithub.com/a/b\t0.01s", "\t")
    assert not csv_reducer.header_like("?   \tgithub.com/a/cmd\t[no test files]", "\t")


def test_csv_rows_must_agree_on_their_field_count() -> None:
    header = "when,who,what"
    ragged = [header] + [",".join(["f"] * (3 + i % 3)) for i in range(100)]
    assert not csv_reducer.detect("\n".join(ragged), Hint())


# tree --------------------------------------------------------------------------------------


def test_tree_keeps_top_level_layout_of_ls_lar() -> None:
    _, meta, out = run_case("19-ls-laR-node-modules")
    assert out.strategy == "tree"  # type: ignore[attr-defined]
    assert_keeps(out, meta)
    assert "[node_modules/ajv/: 645 entries in 45 directories]" in out.content  # type: ignore[attr-defined]


def test_tree_summarises_crowded_directory_sets() -> None:
    paths = [
        f"./pkg{p}/src/mod{m}/file{f}.ts" for p in range(5) for m in range(60) for f in range(3)
    ]
    text = "\n".join(paths)
    out = shrink(text, Hint(tool="bash", command="find . -type f"), Budget(max_chars=1500))
    assert out.strategy.startswith("tree")
    for p in range(5):
        assert f"[./pkg{p}/: 180 entries in 60 directories]" in out.content
    assert len(out.content) <= 1500


def test_tree_files_per_directory() -> None:
    text = "\n".join(f"src/components/Widget{i}.tsx" for i in range(300))
    plan = tree.reduce(text, Hint(), Budget(max_chars=1_000))
    assert plan is not None
    summaries = [p for p in plan if isinstance(p, Summary)]
    # one folder is the root of the listing: it keeps 40 entries
    assert summaries[-1].lines == ("  ... and 260 more in src/components",)
    assert sum(p.end - p.start for p in plan if isinstance(p, Keep)) == 40
    nested = "\n".join(f"src/{d}/Widget{i}.tsx" for d in ("a", "b") for i in range(300))
    nested_plan = tree.reduce(nested, Hint(), Budget(max_chars=400))
    assert nested_plan is not None
    assert ("  ... and 292 more in src/a",) in [
        p.lines for p in nested_plan if isinstance(p, Summary)
    ]
    # with room, more names a directory, the count of the rest exact
    roomy = tree.reduce(text, Hint(), Budget(max_chars=6_000))
    assert roomy is not None
    shown = sum(p.end - p.start for p in roomy if isinstance(p, Keep))
    assert shown > 40
    assert [p.lines for p in roomy if isinstance(p, Summary)][-1] == (
        f"  ... and {300 - shown} more in src/components",
    )


# repeat ------------------------------------------------------------------------------------


def test_repeat_collapses_retry_storm_and_progress() -> None:
    _, meta, out = run_case("18-curl-retry-wget-progress")
    assert out.strategy == "repeat"  # type: ignore[attr-defined]
    assert_keeps(out, meta)
    assert "[… 88 similar lines, 7,077 chars]" in out.content  # type: ignore[attr-defined]


def test_repeat_counts_exactly() -> None:
    text = "".join(f"2026-01-01T00:00:{i % 60:02d} retry {i} of 3000\n" for i in range(3000))
    plan = repeat.reduce(text, Hint(), Budget(max_chars=200))
    assert plan is not None
    summary = next(p for p in plan if isinstance(p, Summary))
    assert summary.start >= 2 and summary.end == 2999  # the first two and the last are shown
    assert summary.lines[0].startswith(f"[… {summary.end - summary.start:,} similar lines, ")
    # with room, more of both ends is shown and the count is of what is still hidden
    roomy = repeat.reduce(text, Hint(), Budget(max_chars=4_000))
    assert roomy is not None
    summary = next(p for p in roomy if isinstance(p, Summary))
    assert summary.start > 2 and summary.end < 2999
    assert summary.lines[0].startswith(f"[… {summary.end - summary.start:,} similar lines, ")


def test_repeat_leaves_unrepeated_text() -> None:
    text = "\n".join(f"{w} {w * 2}" for w in ("alpha", "beta", "gamma", "delta") * 20)
    assert repeat.reduce(text, Hint(), Budget()) is not None  # period 4
    assert repeat.reduce("\n".join(str(i) + "x" * i for i in range(80)), Hint(), Budget()) is None


# grep and outline --------------------------------------------------------------------------


def test_grep_keeps_definitions_above_per_file_counts() -> None:
    _, meta, out = run_case("21-grep-jinja-undefined")
    assert out.strategy == "grep"  # type: ignore[attr-defined]
    assert_keeps(out, meta)
    assert "[src/jinja2/runtime.py: 109 matches]" not in out.content  # type: ignore[attr-defined]
    assert not grep.detect("just\nsome\nprose\n" * 20, Hint())


def test_outline_of_a_source_file_read() -> None:
    _, meta, out = run_case("22-read-bottle-py", disable=[])
    assert out.strategy == "outline"  # type: ignore[attr-defined]
    assert_keeps(out, meta)


def test_outline_of_a_man_page() -> None:
    _, meta, out = run_case("23-man-git-rebase-prose")
    assert out.strategy == "outline"  # type: ignore[attr-defined]
    assert_keeps(out, meta)
    text, _ = corpus_case("23-man-git-rebase-prose")
    assert outline.detect(text, Hint(tool="bash"))


# semantic and size -------------------------------------------------------------------------


def test_semantic_keeps_the_blocks_about_the_query_in_order() -> None:
    text, _ = corpus_case("23-man-git-rebase-prose")
    out = shrink(text, Hint(tool="bash", query="autostash stash"), Budget(2500), only=["semantic"])
    assert out.strategy.startswith("semantic")
    assert "--autostash" in out.content
    starts = [span.start for span in out.kept if span.kind != "footer"]
    assert starts == sorted(starts)


def test_bm25_scores_matching_blocks_higher() -> None:
    text = "the cat sat\nnothing here\ncat cat cat\n"
    spans = [(0, 12), (12, 25), (25, 37)]
    scores = semantic.bm25(text, spans, "Cats?")
    assert scores[1] == 0 and scores[2] > 0 and scores[0] > 0
    assert semantic.bm25(text, spans, "the a of") == [0, 0, 0]
    assert not semantic.detect(text, Hint(query="   "))


@pytest.mark.parametrize(
    ("hint", "direction"),
    [
        (Hint(tool="bash"), "tail"),
        (Hint(tool="Bash"), "tail"),
        (Hint(tool="grep"), "head"),
        (Hint(tool="Read"), "head"),
        (Hint(tool="mcp__fetch"), "both"),
        (Hint(), "both"),
        (Hint(tool="bash", exit_code=1), "both"),
        (Hint(tool="bash", exit_code=0), "tail"),
    ],
)
def test_size_direction(hint: Hint, direction: str) -> None:
    assert size.direction(hint) == direction


def test_every_corpus_case_improves_on_head_tail(tmp_path: Path) -> None:
    """The whole chain keeps every must_keep string of the design corpus within its budget."""
    total = kept = 0
    for folder in design_cases():
        _, meta, out = run_case(folder.name)
        assert len(out.content) <= meta["budget_chars"]  # type: ignore[attr-defined]
        total += len(meta["must_keep"])
        kept += sum(1 for s in meta["must_keep"] if s in out.content)  # type: ignore[attr-defined]
    assert kept / total >= 0.97


def test_grep_of_definitions_only_keeps_per_file_counts() -> None:
    text = "".join(
        f"pkg/mod{f}.py:{i * 10}:def function_{f}_{i}(arg):\n" for f in range(30) for i in range(20)
    )
    out = shrink(text, Hint(tool="grep"), Budget(max_chars=1500))
    assert out.strategy.startswith("grep")
    assert "[pkg/mod0.py: 20 matches]" in out.content
    assert sum(1 for row in out.content.split("\n") if row.startswith("[pkg/")) >= 10


def test_tree_path_list_with_interleaved_root_files() -> None:
    rows = []
    for d in range(12):
        rows.append(f"./root_file_{d}.py")
        rows.extend(f"./pkg{d}/module_{m}.py" for m in range(30))
        rows.append(f"./root_other_{d}.py")
    out = shrink("\n".join(rows), Hint(tool="bash", command="find ."), Budget(max_chars=1500))
    assert out.strategy == "tree"
    counts = [row for row in out.content.split("\n") if row.endswith("entries in 1 directory]")]
    assert len(counts) == 12
    assert len(out.content) <= 1500
