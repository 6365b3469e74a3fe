"""What fuzzing the shrink engine found (bench/shrink_fuzz.py), each as a crafted regression, and
a property over the fuzz generator (tests/shrink_fuzz_support.py) with a modest example count."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shrink_fuzz_support import FORCED, make_case
from test_shrink_properties import check_idempotent, check_rules

from klipui.shrink import Budget, Hint, shrink
from klipui.shrink.salience import _SUMMARY as SUMMARY
from klipui.shrink.salience import family

ONLY = [*FORCED, None]


def _check(text: str, hint: Hint, budget: Budget, only: str | None) -> None:
    """The four rules, and no reducer failure in the note."""
    chosen = [only] if only else None
    result = shrink(text, hint, budget, only=chosen)
    check_rules(text, result, budget)
    check_idempotent(result, hint, budget, only=chosen)
    assert "failed:" not in result.note, result.note


# A long run without spaces made the name and id patterns of salience scan the rest of the run
# from each of its characters: a 2 MB line took hours. Under the old patterns these never end.


@pytest.mark.parametrize(
    "line", ["x" * 1_000_000, "a-" * 300_000, "a." * 300_000, '"a' * 300_000, "‘" * 300_000]
)
def test_a_long_run_without_spaces_is_read_in_linear_time(line: str) -> None:
    text = "x.c:1:1: warning: unused\n" + line + "\n#5 ERROR: process did not complete\n"
    _check(text, Hint(tool="glob"), Budget(max_chars=92, max_lines=100), "docker")


def test_families_still_ignore_names_paths_and_quotes() -> None:
    assert family("see src/a.py and 'q' ok") == family("see lib/b/c.py and 'zz' ok")
    assert family('read "x"y/z.txt: gone') == family('read "k"w.txt: gone')
    assert family("‘a’ then ‘b’") == family("‘long name’ then ‘c’")
    assert family("failed at a/b") != family("passed at a/b")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), only=st.sampled_from(ONLY))
def test_rules_hold_on_fuzzed_inputs(seed: int, only: str | None) -> None:
    case = make_case(random.Random(seed), only, limit=60_000)
    _check(case.text, case.hint, case.budget, only)


def test_csv_reads_a_quoted_row_holding_a_carriage_return() -> None:
    # csv.reader raised "new-line character seen in unquoted field" on the lone `\r`
    text = "x\n" + "f\n" * 5 + ",,\n" * 10 + 'y",,\r \n' + ",,\n" * 2 + ", l 9,\n"
    text += '  File "x.py", line 9, in f\n' * 10
    _check(text, Hint(), Budget(max_chars=385, max_lines=8), "csv")


def test_grep_reads_a_long_word_among_other_lines_in_linear_time() -> None:
    # the pattern naming the kind of an "other" line scanned the rest of a word from each of
    # its characters: a 200 kB word took minutes
    text = "src/a.py:1:x = 1\nsrc/a.py:2:y = 2\n" + "z" * 200_000 + "\nsrc/b.py:3:z = 3\n"
    _check(text, Hint(tool="grep"), Budget(max_chars=200), "grep")


def test_grep_kinds_still_mask_paths_and_numbers() -> None:
    text = "".join(f"src/m{i}.py:{i}:hit\n" for i in range(40))
    text += "grep: a/b1: binary file matches\n" * 3 + "grep: c/d22: binary file matches\n"
    result = shrink(text, Hint(tool="grep"), Budget(max_chars=400), only=["grep"])
    check_rules(text, result, Budget(max_chars=400))
    assert "grep: a/b1: binary file matches" in result.content
    assert "grep: c/d22: binary file matches" in result.content


def test_a_one_row_budget_takes_no_region_summary() -> None:
    # half of a one-row budget was 0, read as "no limit": the json region's summary lines were
    # placed whole and the result had 6 rows for 1
    record = '{"id":%d,"items":[{"qty":2,"sku":"SKU-%d"}],"status":"new","total":%d}'
    body = '{"data":[' + ",".join(record % (i, i * 7, i * 13) for i in range(200)) + "]}"
    text = "\n" * 12 + "HTTP/1 302\n\n\n\nHTTP/1 200\n\n\n\n\n\n\n" + body
    for budget in (Budget(2355, 1, 2), Budget(2355, 1, 0), Budget(2355, 2, 0)):
        _check(text, Hint(), budget, None)


def test_sql_reads_a_plan_node_with_a_400_digit_loop_count() -> None:
    # weight * loops raised OverflowError: int too large to convert to float
    node = (
        "->  Seq Scan on t  (cost=0.00..1.00 rows=1 width=4) (actual time=0.1..0.2 rows=1 loops={})"
    )
    text = "QUERY PLAN\n" + "-" * 30 + "\n"
    text += "Hash Join  (cost=1.00..9.00 rows=5 width=8) (actual time=0.5..3.0 rows=5 loops=1)\n"
    text += "".join("  " + node.format("9" * 400 if i % 3 else i + 1) + "\n" for i in range(60))
    text += "Planning Time: 0.1 ms\nExecution Time: 3.2 ms\n(62 rows)\n"
    for only in ("sql", None):
        _check(
            text,
            Hint(tool="bash", command="psql -c 'explain analyze select 1'"),
            Budget(max_chars=1200),
            only,
        )


def test_gitlog_reads_a_stat_line_with_a_5000_digit_count() -> None:
    # int() of more than 4,300 digits raised ValueError
    def commit(k: int, count: str) -> str:
        return (
            f"commit {k:040x}\nAuthor: A <a@b>\nDate:   Mon Jan 1 00:00:00 2024 +0000\n\n"
            f"    change {k}\n\n a/b{k}.py | {count} +++\n 1 file changed, 3 insertions(+)\n\n"
        )

    text = "".join(commit(k, "9" * 5000 if k == 5 else "3") for k in range(1, 40))
    _check(text, Hint(tool="bash", command="git log --stat"), Budget(max_chars=2000), "gitlog")


def test_tests_reads_a_test_line_with_a_long_name_in_linear_time() -> None:
    # `test \S+.* \.\.\. FAILED$` tried every split of a long name between `\S+` and `.*`
    # (equivalent to `\S.*`, which tries none): 81 lines of 5,000 characters took a second
    long = "test tests::kg_" + "1" * 60_000 + " ... ok\r"
    text = "running 5 tests\n" + "test tests::a ... ok\n" * 30 + f"{long}\n" * 3
    text += "test tests::b ... FAILED\n\nfailures:\n\ntest result: FAILED. 32 passed; 1 failed\n"
    _check(text, Hint(tool="bash", command="cargo test"), Budget(max_chars=2000), "tests")


# a table header line is read in linear time --------------------------------------------------

_HEADER_BEFORE = re.compile(r"[ \t]*[^\W\d][^\d\n]*\S[ \t]{2,}[^\d\n]*\S[ \t]*$")
"""The header pattern `_words_only` replaced: its two nested runs were quadratic."""


@settings(max_examples=3000, deadline=None)
@given(st.text(alphabet=st.sampled_from(list(" \t\r\fab_é1.:%٣")), max_size=16))
def test_words_only_reads_lines_as_the_header_pattern_did(line: str) -> None:
    from klipui.shrink.salience import _words_only

    assert _words_only(line) == (_HEADER_BEFORE.match(line) is not None)


def test_lines_of_spaced_fields_ending_in_a_digit_are_scored() -> None:
    line = "ab  " * 50_000 + "5x"  # the old pattern backtracked over every field pair
    text = "\n".join([line, *(f"row {i}  {i * 3}  {i % 7}" for i in range(40)), line]) + "\n"
    out = shrink(text, Hint(tool="bash"), Budget(max_chars=2000))
    assert len(out.content) <= 2000


# a text holding İ is lower-cased in C, its offsets kept ------------------------------------------


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("AbİiIßΣΩ1 \n")), max_size=30) | st.text(max_size=30))
def test_lowering_keeps_every_offset(text: str) -> None:
    from klipui.shrink.salience import _lower_in_place

    lowered = _lower_in_place(text)
    assert len(lowered) == len(text)
    assert lowered == "İ".join(part.lower() for part in text.split("İ"))


def test_a_signal_is_found_in_an_output_that_holds_a_dotted_capital_i() -> None:
    routine = [f"İstanbul worker {i} synced {i * 7} rows in {i % 90} ms" for i in range(400)]
    routine.insert(233, "İzmir worker 233 ERROR: disk full while writing shard 7")
    text = "\n".join(routine) + "\n"
    out = shrink(text, Hint(tool="bash"), Budget(max_chars=1500))
    assert "İzmir worker 233 ERROR: disk full while writing shard 7" in out.content


def test_diff_reads_a_hunk_without_any_file_header() -> None:
    # the moved-file pass zipped an empty list of file starts with one end: ValueError
    _check("\n\n@@ -1 +1 @@\n-", Hint(), Budget(max_chars=32870, max_lines=3), "diff")


def test_a_summary_search_over_a_run_of_separated_digits_ends() -> None:
    # the summary pattern tried a number from every digit of `1,1,1,…` and scanned the run
    # from each: quadratic, 9 s for 40,000 characters, a minute for these 200,000
    assert SUMMARY.search("1," * 100_000 + "x") is None
    assert SUMMARY.search("1" + "\r" * 100_000 + "x") is None
