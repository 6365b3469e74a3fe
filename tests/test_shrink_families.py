"""The specific reducers on outputs of other ecosystems captured here (Ruby, PHP, Perl, sanitizers,
gdb, go test -json, pip inspect, podman, CMake/Ninja, apt, grep -C): each recognises its shape or
declines, and keeps what an expert looks for; counts they write are exact."""

from __future__ import annotations

import json
import re

from conftest import FIXTURES, corpus_case
from hypothesis import given, settings
from hypothesis import strategies as st

from klipui.shrink import Budget, Hint, shrink
from klipui.shrink.plan import Keep, Summary
from klipui.shrink.reducers import build, docker, grep, install, stacktrace
from klipui.shrink.reducers import json as json_reducer

SHAPES = FIXTURES / "shrink_shapes"


def _shape(name: str) -> str:
    return (SHAPES / name).read_text(encoding="utf-8")


def _shrunk(text: str, max_chars: int, command: str | None = None) -> tuple[str, str]:
    assert len(text) > max_chars
    out = shrink(text, Hint(tool="bash", command=command), Budget(max_chars=max_chars))
    assert len(out.content) <= max_chars
    return out.strategy, out.content


# ---------------------------------------------------------------------------------------------
# stack traces


def test_ruby_cause_keeps_both_exceptions_and_the_first_user_frame_of_each() -> None:
    strategy, content = _shrunk(_shape("ruby-rescue-cause.txt"), 800)
    assert strategy == "stacktrace+salience"
    assert "(Inventory::ParseError)" in content
    assert "(JSON::ParserError)" in content
    # the cause's trace starts in the json library: its first user frame is the one to keep
    assert "\tfrom app.rb:11:in `parse_row'" in content
    # seven copies of a recursive frame: fewer than all of them survive at this budget
    assert content.count("in `deep'") < 7


def test_php_uncaught_exception_with_next_keeps_both_and_the_warning() -> None:
    strategy, content = _shrunk(_shape("php-uncaught-next.txt"), 1_000)
    assert strategy == "stacktrace+salience"
    assert "PHP Fatal error:  Uncaught Shop\\PriceException" in content
    assert "Next LogicException: checkout failed for cart 8812" in content
    assert "#0 /tmp/fam/php/src/Cart.php(7): Shop\\Cart->lineTotal()" in content
    assert "PHP Warning:  Undefined variable $notDefined" in content


def test_perl_carp_frames_are_frames() -> None:
    frame = "\tLedger::Book::total(Ledger::Book=HASH(0x55a226c50680)) called at report.pl line 14"
    assert stacktrace.FRAME.match(frame)
    # two frames are not a stack trace worth a reducer: the output goes elsewhere, whole lines
    text = _shape("perl-carp-confess.txt")
    assert not stacktrace.detect(text, Hint())
    _, content = _shrunk(text, 600)
    assert "row 353: amount '12,50' is not a number at report.pl line 5." in content


def test_sanitizer_and_gdb_layouts_are_read_as_traces() -> None:
    for header in (
        "WARNING: ThreadSanitizer: data race (pid=30592)",
        "ub.c:4:36: runtime error: signed integer overflow: 2147483647 * 2 cannot be represented",
        'Thread 25 "srv" received signal SIGSEGV, Segmentation fault.',
        "thread 'shard-0' (12184) panicked at src/main.rs:14:27:",
        "terminate called after throwing an instance of 'std::out_of_range'",
    ):
        assert stacktrace.HEADER.match(header), header
    for frame, foreign in (
        ("    #7 <null> <null> (libstdc++.so.6+0xd44a2)", True),
        ("    #0 record(int) /tmp/fam/cc/race.cpp:6 (race+0x12a5)", False),
        ("#4  0x00007ffff7e5e1f5 in start_thread (arg=<optimized out>) at ./nptl/x.c:442", True),
        ("  17:     0x55c3a54085d4 - core[c1f1a4ba060b9bfa]::option::expect_failed", True),
        ("==14765==    by 0x48B9257: __vfprintf_internal (vfprintf-process-arg.c:397)", True),
    ):
        assert stacktrace.FRAME.match(frame), frame
        assert stacktrace.is_dependency_frame(frame) is foreign, frame


def test_tsan_report_keeps_the_location_and_the_first_report_over_its_copy() -> None:
    text, meta = corpus_case("203-tsan-data-race-stats")
    _, content = _shrunk(text, meta["budget_chars"])
    assert "  Location is global 'g_stats' of size 16 at 0x5654999a70d0 (race+0x40d0)" in content
    assert "  Read of size 8 at 0x5654999a70d0 by thread T2:" in content
    assert "ThreadSanitizer: reported 2 warnings" in content


def test_a_log_ended_by_a_crash_is_a_trace_with_its_error_record() -> None:
    text, meta = corpus_case("206-python-logging-chained-crash")
    assert stacktrace.detect(text, Hint())
    _, content = _shrunk(text, meta["budget_chars"])
    assert "ERROR   sync.worker: batch 37 failed, will retry later" in content
    # the same log without the crash at its end is a log, not a trace
    cut = text[: text.rindex("Traceback (most recent call last):")]
    assert not stacktrace.detect(cut, Hint())


def test_frame_runs_stop_at_blank_lines_and_headers() -> None:
    lines = [
        "Error: a",
        "    at f (a.js:1:1)",
        "    at g (a.js:2:1)",
        "",
        "    at h (b.js:3:1)",
        "Caused by: Error: b",
        "    at k (c.js:4:1)",
    ]
    frames = [1, 2, 4, 6]
    assert stacktrace._frame_runs(lines, frames, [0, 5]) == [[1, 2], [4], [6]]


def test_cargo_test_output_is_left_to_the_tests_reducer() -> None:
    text, _ = corpus_case("03-cargo-test-tallyq")
    assert not stacktrace.detect(text, Hint())


# ---------------------------------------------------------------------------------------------
# JSON


def test_go_test_json_lines_keep_the_failure_events() -> None:
    text, meta = corpus_case("207-go-test-json-ndjson")
    assert json_reducer.detect(text, Hint())
    strategy, content = _shrunk(text, meta["budget_chars"])
    assert strategy == "json"
    assert "calc_test.go:30: Mean([1 2 3]) = 3, want 2" in content
    assert '"Action":"skip"' in content
    assert content.rstrip().endswith('"Elapsed":0.003}')


def test_json_lines_that_are_log_records_are_left_to_the_log_reducer() -> None:
    records = "\n".join(
        json.dumps({"level": "info", "time": 1700000000 + i, "msg": f"request {i} served"})
        for i in range(400)
    )
    assert json_reducer.reduce(records, Hint(), Budget(max_chars=2_000)) is None


@settings(max_examples=40, deadline=None)
@given(
    kinds=st.lists(st.sampled_from(["pass", "run", "output", "fail", "skip"]), min_size=60),
    budget=st.integers(min_value=600, max_value=4_000),
)
def test_json_lines_plans_are_ordered_whole_lines(kinds: list[str], budget: int) -> None:
    text = "\n".join(
        json.dumps({"Action": kind, "Test": f"T{i}", "Elapsed": i / 10})
        for i, kind in enumerate(kinds)
    )
    plan = json_reducer.reduce(text, Hint(), Budget(max_chars=budget))
    if plan is None:
        return
    last = 0
    for piece in plan:
        assert isinstance(piece, Keep)
        assert last <= piece.start < piece.end <= len(kinds)
        last = piece.end
    out = shrink(text, Hint(), Budget(max_chars=budget))
    assert len(out.content) <= budget


def test_http_responses_before_a_compact_json_body() -> None:
    text, meta = corpus_case("101-curl-i-L-redirect-chain")
    assert json_reducer.detect(text, Hint())
    strategy, content = _shrunk(text, meta["budget_chars"])
    assert strategy == "json"
    assert "HTTP/1.1 301 MOVED PERMANENTLY" in content
    assert "HTTP/1.1 200 OK" in content
    assert content.rstrip().endswith('"total":4213}')  # compact as it came, last key kept
    assert re.search(r"\.\.\. \d[\d,]* more items \.\.\.", content)


def test_pretty_json_with_long_values_keeps_the_last_item_and_the_trailing_key() -> None:
    text, meta = corpus_case("208-pip-inspect-json")
    _, content = _shrunk(text, meta["budget_chars"])
    assert '"name": "matplotlib-inline",' in content  # the last of 103 distributions
    assert '"environment": {' in content
    assert content.rstrip().endswith("}")


# ---------------------------------------------------------------------------------------------
# builds, containers, installs


def test_link_errors_after_a_flood_of_one_warning() -> None:
    text, meta = corpus_case("213-cmake-ninja-undefined-reference")
    assert build.detect(text, Hint(command=meta["command"]))
    _, content = _shrunk(text, meta["budget_chars"], meta["command"])
    assert "undefined reference to `perimeter(double, double)'" in content
    assert "collect2: error: ld returned 1 exit status" in content
    real = text.count("warning: unused variable")
    assert f"[x{real}] warning: unused variable ‘…’ [-Wunused-variable]" in content


@settings(max_examples=30, deadline=None)
@given(files=st.integers(min_value=3, max_value=80), budget=st.integers(900, 3_000))
def test_warnings_differing_in_a_name_are_counted_exactly(files: int, budget: int) -> None:
    parts = []
    for i in range(files):
        parts.append(f"[{i + 1}/{files + 1}] Building CXX object src/f{i}.cpp.o")
        parts.append(f"src/f{i}.cpp:2:9: warning: unused variable ‘v{i}’ [-Wunused-variable]")
        parts.append(f"    2 | int v{i} = {i};")
    parts += ["main.cpp:(.text+0x1f): undefined reference to `go()'", "ninja: build stopped."]
    text = "\n".join(parts) + "\n"
    out = shrink(text, Hint(command="ninja"), Budget(max_chars=budget))
    assert len(out.content) <= budget
    counts = re.findall(r"^\[x(\d+)\] warning: unused variable", out.content, re.M)
    if not out.reduced:
        return
    assert out.strategy.startswith("build")
    assert counts == [str(files)] or (budget < 1_500 and not counts)
    assert "undefined reference to `go()'" in out.content


def test_clang_notes_under_a_distinct_error_are_kept() -> None:
    text, meta = corpus_case("65-clang-cxx-errors-notes")
    _, content = _shrunk(text, meta["budget_chars"], meta["command"])
    assert "./shapes.h:9:25: note: unimplemented pure virtual method 'name' in 'Rect'" in content
    assert "5 errors generated." in content


def test_maven_compiler_lines_are_build_diagnostics() -> None:
    text, meta = corpus_case("64-mvn-compile-failure-xlint")
    assert build.detect(text, Hint(command=meta["command"]))
    _, content = _shrunk(text, meta["budget_chars"], meta["command"])
    assert "[INFO] BUILD FAILURE" in content
    assert "cannot find symbol" in content


def test_podman_build_keeps_step_results_above_metadata_steps() -> None:
    text, meta = corpus_case("212-podman-build-success-commit")
    assert docker.detect(text, Hint())
    _, content = _shrunk(text, meta["budget_chars"], meta["command"])
    assert "10984 bundle.js" in content
    assert "Successfully tagged localhost/fam-web:0.3.1" in content
    # a step that only sets metadata gives way before a RUN step's result, which gives way
    # before the RUN step itself
    plan = docker.reduce(text, Hint(), Budget(max_chars=meta["budget_chars"]))
    assert plan is not None
    lines = text.splitlines()
    rank = {
        lines[p.start]: p.priority for p in plan if isinstance(p, Keep) and p.end == p.start + 1
    }
    env, result = "[2/2] STEP 4/8: ENV PORT=8080", "16.0K\t/srv/www"
    assert (
        rank.get(env, 0)
        < rank[result]
        < rank["[2/2] STEP 6/8: RUN ls -la /srv/www && du -sh /srv/www"]
    )


def test_apt_get_install_keeps_the_package_list_and_counts() -> None:
    text, meta = corpus_case("214-apt-get-install-new-packages")
    assert install.detect(text, Hint(command=meta["command"]))
    _, content = _shrunk(text, meta["budget_chars"], meta["command"])
    assert "0 upgraded, 5 newly installed, 0 to remove and 131 not upgraded." in content
    assert "  cowsay figlet fortune-mod librecode0 libtext-charwidth-perl" in content
    assert "Unpacking cowsay" not in content


# ---------------------------------------------------------------------------------------------
# grep


def test_grep_with_context_counts_match_lines_only() -> None:
    text, _ = corpus_case("216-grep-rn-context-asyncio-timeout")
    plan = grep.reduce(text, Hint(tool="grep"), Budget(max_chars=2_500))
    assert plan is not None
    truth: dict[str, int] = {}
    for line in text.splitlines():
        m = re.match(r"(asyncio/\S+?\.py):\d+:", line)
        if m:
            truth[m.group(1)] = truth.get(m.group(1), 0) + 1
    counts = {}
    for piece in plan:
        if isinstance(piece, Summary):
            m = re.fullmatch(r"\[(\S+): ([\d,]+) match(?:es)?\]", piece.lines[0])
            assert m, piece.lines
            counts[m.group(1)] = int(m.group(2).replace(",", ""))
    assert counts
    assert all(truth[path] == count for path, count in counts.items())
    assert len(counts) == sum(1 for count in truth.values() if count > grep.FIRST_MATCHES)


@settings(max_examples=40, deadline=None)
@given(
    groups=st.lists(
        st.tuples(st.sampled_from(["a.py", "b/c.py", "d-e.py"]), st.integers(1, 5)),
        min_size=3,
        max_size=40,
    ),
    budget=st.integers(600, 3_000),
)
def test_grep_context_summaries_are_exact(groups: list[tuple[str, int]], budget: int) -> None:
    rows: list[str] = []
    line = 1
    for path, hits in groups:
        if rows:
            rows.append("--")
        rows.append(f"{path}-{line}-    before = 1")
        for _ in range(hits):
            line += 1
            rows.append(f"{path}:{line}:    x = timeout({line})")
        line += 1
        rows.append(f"{path}-{line}-    after = 2")
        line += 5
    text = "\n".join(rows) + "\n"
    out = shrink(text, Hint(tool="grep"), Budget(max_chars=budget))
    assert len(out.content) <= budget
    plan = grep.reduce(text, Hint(tool="grep"), Budget(max_chars=budget))
    assert plan is not None
    for piece in plan:
        if isinstance(piece, Summary):
            m = re.fullmatch(r"\[(\S+): ([\d,]+) match(?:es)?\]", piece.lines[0])
            assert m
            path = m.group(1)
            end = piece.start
            while end < len(rows) and (rows[end] == "--" or rows[end].startswith(path)):
                end += 1
            if rows[end - 1] == "--":
                end -= 1
            real = sum(1 for row in rows[piece.start : end] if row.startswith(f"{path}:"))
            assert int(m.group(2)) == real


# ---------------------------------------------------------------------------------------------
# tables


def test_csv_keeps_rows_of_rare_values_and_numeric_extremes() -> None:
    text, meta = corpus_case("217-psql-csv-orders-export")
    strategy, content = _shrunk(text, meta["budget_chars"])
    assert strategy == "csv"
    assert ",chargeback," in content
    assert content.count(",chargeback,") == text.count(",chargeback,")
    assert ",9850000," in content


def test_tsv_keeps_error_rows_and_the_slowest_event() -> None:
    text = _shape("sqlite-tsv-events.txt")
    strategy, content = _shrunk(text, 1_200)
    assert strategy == "csv"
    assert content.startswith("id\tts\tservice\tlevel\tduration_ms\troute\n")
    assert content.count("\terror\t") == 2
    assert "\t48213\t" in content
    assert "TSV: 2,400 data rows, 6 columns" in content


def test_csv_without_outliers_marks_none() -> None:
    from klipui.shrink.reducers import csv as csv_reducer

    lines = ["id,kind,size", *(f"{i},{'ab'[i % 2]},{100 + i % 7}" for i in range(400))]
    data = [(i, i + 1) for i in range(1, len(lines))]
    assert csv_reducer._outliers(lines, data, ",") == {}
    lines[200] = "199,c,100"
    lines[300] = "299,a,99999"
    found = csv_reducer._outliers(lines, data, ",")
    assert set(found) == {(200, 201), (300, 301)}


def test_bordered_table_outliers_in_any_column() -> None:
    text, meta = corpus_case("218-mariadb-table-rows-in-set")
    strategy, content = _shrunk(text, meta["budget_chars"], meta["command"])
    assert strategy == "sql"
    assert content.count("| escalated |") == 2
    assert "|        91200 |" in content  # minutes_open: the sixth column
    assert "1500 rows in set (0.002 sec)" in content


# ---------------------------------------------------------------------------------------------
# outline


def _go_file() -> str:
    parts = ["// Package shop: a generated file.", "", "package shop", "", 'import "fmt"', ""]
    for i in range(12):
        parts += [f"func helper{i}(x int) int {{", *[f"\tx += {k}" for k in range(30)], "}", ""]
        parts += [f"func (s *store) Get{i}(id int) string {{", "\treturn fmt.Sprint(id)", "}", ""]
        parts += [f"func Public{i}(id int) int {{ return helper{i}(id) }}", ""]
    parts += ["type Store interface {", "\tGet0(id int) string", "}", ""]
    return "\n".join(parts) + "\n"


def test_go_outline_keeps_the_package_and_exported_names_first() -> None:
    text = _go_file()
    out = shrink(text, Hint(tool="read", path="shop.go"), Budget(max_chars=1_200))
    assert out.strategy == "outline"
    assert len(out.content) <= 1_200
    assert "package shop" in out.content
    assert "type Store interface {" in out.content
    public = sum(f"func Public{i}(" in out.content for i in range(12))
    private = sum(f"func helper{i}(" in out.content for i in range(12))
    assert public >= 10  # each costs its line and a marker: nearly all fit
    assert private == 0  # the longer unexported helpers give way first


@settings(max_examples=60, deadline=None)
@given(
    table=st.lists(
        st.tuples(st.sampled_from(["ok", "ok", "ok", "warn", "gone"]), st.integers(0, 10**6)),
        min_size=0,
        max_size=300,
    )
)
def test_table_outliers_are_bounded_and_rare(table: list[tuple[str, int]]) -> None:
    from klipui.shrink.reducers._patterns import MAX_RARE_ROWS, RARE_SHARE, table_outliers

    rows = [[status, str(number)] for status, number in table]
    found = table_outliers(rows)
    assert all(0 <= k < len(rows) for k in found)
    assert sum(found.values()) <= 2 * MAX_RARE_ROWS  # at most MAX_RARE_ROWS a column
    assert len(found) - sum(found.values()) <= 2  # the two ends of the numeric column at most
    for k, rare in found.items():
        if rare:
            share = min(sum(1 for row in rows if row[j] == rows[k][j]) for j in (0, 1))
            assert share <= max(1, RARE_SHARE * len(rows))
