"""General salience mechanisms (issue 16): context grows around what is kept, table outliers,
signal words that are names, and how an output began and ended surviving any reducer's plan."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_shrink_properties import check_idempotent, check_rules

from klipui.shrink import Budget, Hint, Keep, Summary, shrink
from klipui.shrink.salience import SUMMARY, Ranking, Scores, column_outliers, order
from klipui.shrink.text import split, split_lines


def _routine(count: int, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    return [
        f"10:{i // 60 % 60:02}:{i % 60:02} poller-{rng.randrange(6)} synced {rng.randrange(900)}"
        f" rows from shard {rng.randrange(40)} in {rng.randrange(2, 99)} ms"
        for i in range(count)
    ]


# context around what is kept -------------------------------------------------------------------


def test_a_kept_lines_neighbours_come_next_and_context_stops_at_a_blank_line() -> None:
    lines = split("a\nb\nc\nd\n\nf\ng\n")
    ranking = Ranking(lines, [], iter([(900, 2), (300, 6), (200, 5)]), iter(()))
    given: list[int] = []
    for i in ranking:
        given.append(i)
        ranking.kept(i)
    # 450 for both neighbours of line 2 (the later first), then 400 below it but line 4 is
    # blank: the block ends; 350 above line 1, still above the next ranked line (300), which
    # is scored too low to grow context of its own
    assert given == [2, 3, 1, 0, 6, 5]


def test_context_continues_outwards_a_step_lower_each_line() -> None:
    lines = split("".join(f"line {i}\n" for i in range(10)))
    ranking = Ranking(lines, [], iter([(1000, 5), (100, 9)]), iter(()))
    given: list[int] = []
    for i in ranking:
        given.append(i)
        if i != 9:
            ranking.kept(i)
        if len(given) == 8:
            break
    # 500 for lines 4 and 6, then a half step less each line below (the block under a line),
    # a step less each line above; the later first on a tie
    assert given == [5, 6, 4, 7, 8, 3, 9, 2]


def test_a_line_not_kept_grows_no_context() -> None:
    lines = split("".join(f"line {i}\n" for i in range(6)))
    ranking = Ranking(lines, [], iter([(900, 2), (100, 5)]), iter(()))
    assert next(ranking) == 2
    assert next(ranking) == 5  # line 2 did not fit: its neighbours are not context


def test_the_details_under_an_error_are_kept_beyond_three_lines() -> None:
    lines = _routine(1500)
    frames = [f"    #{k}  0x{0x401A2B + 64 * k:016x} in step (depth={k}) at walk.c:{80 + k}"
              for k in range(8)]  # fmt: skip
    detail = ["Thread 7 received signal SIGSEGV, Segmentation fault.", *frames]
    lines[800:800] = detail
    text = "\n".join(lines)
    budget = Budget(max_chars=5000)
    out = shrink(text, Hint(tool="bash"), budget, only=[])
    assert all(line in out.content for line in detail)
    check_rules(text, out, budget)


def test_order_is_a_ranking_that_ends_with_every_line() -> None:
    lines = split("\n".join(_routine(300)))
    ranking = order(lines, Hint(tool="bash"), 1000)
    assert isinstance(ranking, Ranking)
    assert set(ranking) == set(range(300))


# table outliers --------------------------------------------------------------------------------


def test_the_rarest_values_of_a_column_rank_even_when_other_rare_values_are_many() -> None:
    rows: list[str] = []
    rng = random.Random(5)
    states = ["ESTAB"] * 900 + ["CLOSE-WAIT"] * 16 + ["SYN-SENT"] * 2 + ["FIN-WAIT-2"]
    rng.shuffle(states)
    rows += [f"{s:<11} {rng.randrange(9)}  10.0.0.{rng.randrange(250)}:{4000 + k}" for k, s in
             enumerate(states)]  # fmt: skip
    found = column_outliers(rows)
    picked = {rows[i].split()[0] for i in found}
    assert {"FIN-WAIT-2", "SYN-SENT"} <= picked and "ESTAB" not in picked
    rarest = next(i for i in found if rows[i].startswith("FIN-WAIT-2"))
    assert found[rarest] == max(found.values())


def test_the_largest_numbers_of_a_column_rank_largest_first() -> None:
    rng = random.Random(2)
    sizes = rng.sample(range(1, 10_000), 400)
    rows = [f"{size}K\t/usr/share/doc/package-{k}" for k, size in enumerate(sizes)]
    found = column_outliers(rows)
    top = sorted(sizes, reverse=True)[:6]
    ranked = sorted(found, key=found.__getitem__, reverse=True)
    assert [int(rows[i].split("K")[0]) for i in ranked[:6]] == top


# signal words that are names -------------------------------------------------------------------


def test_signal_words_inside_names_and_paths_are_not_reports() -> None:
    lines = _routine(200)
    checks = {
        50: ("52K\t/usr/share/doc/liberror-perl", False),
        60: ("12K\t/usr/share/doc/libgpg-error0", False),
        70: ("built src/errors/mod.rs in 4 ms", False),
        75: ("  12: 0x55c3a53e1298 - std::panicking::begin_panic_handler", False),
        80: ("ValueError: not a number", True),
        90: ("src/a.js:6:1: Unexpected var. [Error/no-var]", True),
        100: ("src/m.ts:1:20 - \x1b[91merror\x1b[0m TS6133: 'x' is never read.", True),
        110: ("tests/test_fx.py::test_convert[USD-EUR-39818] PASSED", False),
        120: ("src/ledger.py:14:8: E1101 Instance has no member", True),
    }
    for i, (line, _) in checks.items():
        lines[i] = line
    scores = Scores(split("\n".join(lines)), Hint(tool="bash")).score
    for i, (line, strong) in checks.items():
        assert (scores.get(i, 0) >= 900) is strong, line


# how an output began and ended survives a reducer's plan ---------------------------------------


class _Middle:
    """A reducer that keeps the middle of the output at one priority, as a narrow recogniser
    that owns the wrong part would."""

    name = "middle"

    @staticmethod
    def detect(text: str, hint: Hint) -> bool:
        return True

    @staticmethod
    def reduce(text: str, hint: Hint, budget: Budget) -> list[Keep]:
        n = len(split_lines(text))
        return [Keep(n // 4, 3 * n // 4, 1)]


def test_first_lines_and_final_summary_survive_a_plan_that_drops_them() -> None:
    lines = ["$ make all", "building 600 targets", *_routine(600), "211 warnings and 2 errors"]
    text = "\n".join(lines) + "\n"
    budget = Budget(max_chars=2000)
    out = shrink(text, Hint(tool="bash"), budget, only=["middle"], extra=[_Middle()])
    assert out.strategy.startswith("middle")
    assert out.content.startswith("$ make all\nbuilding 600 targets\n")
    assert "211 warnings and 2 errors" in out.content
    check_rules(text, out, budget)
    check_idempotent(out, Hint(tool="bash"), budget, only=["middle"], extra=[_Middle()])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    count=st.integers(min_value=50, max_value=900),
    seed=st.integers(min_value=0, max_value=1000),
    max_chars=st.integers(min_value=600, max_value=5000),
    last=st.sampled_from(["done", "exit status 2", "3 failed, 40 passed", "Killed"]),
)
def test_the_last_line_survives_any_plan(count: int, seed: int, max_chars: int, last: str) -> None:
    lines = [*_routine(count, seed), last]
    text = "\n".join(lines)
    if len(text) <= max_chars:
        return
    budget = Budget(max_chars=max_chars)
    out = shrink(text, Hint(tool="bash"), budget, only=["middle"], extra=[_Middle()])
    assert split_lines(out.content)[-1] == last
    check_rules(text, out, budget)


# encoded data is routine -----------------------------------------------------------------------


def test_hex_dump_rows_and_base64_blocks_are_not_rare_lines() -> None:
    rng = random.Random(11)
    lines = [f"tick-{i}" for i in range(300)]  # repetitive, and no table to read
    dump = [
        f"    {16 * k:04x} - " + " ".join(f"{rng.randrange(256):02x}" for _ in range(16))
        for k in range(8)
    ]
    blob = ["".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
                    for _ in range(64)) for _ in range(8)]  # fmt: skip
    prose = "subject=CN = api.internal.test"
    lines[100:100] = ["-----BEGIN CERTIFICATE-----", *blob, "-----END CERTIFICATE-----"]
    lines[50:50] = [*dump, prose]
    scores = Scores(split("\n".join(lines)), Hint(tool="bash")).score
    index = {line: i for i, line in enumerate(lines)}
    assert scores.get(index[prose], 0) >= 400  # a line seen once in a repetitive output
    assert all(scores.get(index[row], 0) < 400 for row in dump + blob)


def test_the_source_location_an_error_names_links_to_its_frame() -> None:
    lines = _routine(400)
    lines[10] = "thread 'main' panicked at src/ledger.rs:14:27:"
    lines[300] = "      at /home/u/proj/src/ledger.rs:14:27"
    lines[310] = "      at /home/u/proj/src/ledger.rs:15:49"
    scores = Scores(split("\n".join(lines)), Hint(tool="bash")).score
    assert scores.get(300, 0) > scores.get(310, 0)


def test_a_count_is_a_summary_a_key_value_field_is_not() -> None:
    lines = _routine(200)
    lines[60] = (
        "   ->  Seq Scan on products p  (cost=0.00..97.00 rows=5000 width=21)"
        " (actual time=0.020..0.467 rows=5000 loops=3)"
    )
    lines[199] = "(36 rows)"
    scores = Scores(split("\n".join(lines)), Hint(tool="bash")).score
    assert scores.get(60, 0) < SUMMARY <= scores[199]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(
        st.sampled_from(["", "ok 1", "ok 2", "error: boom", "Summary: 3 failed", "x"]),
        min_size=1,
        max_size=120,
    ),
    budget=st.integers(min_value=0, max_value=3000),
    keep=st.lists(st.booleans(), min_size=1, max_size=50),
)
def test_a_ranking_gives_every_line_in_range_whatever_is_kept(
    rows: list[str], budget: int, keep: list[bool]
) -> None:
    lines = split("\n".join(rows) + "\n")
    ranking = order(lines, Hint(tool="bash"), budget)
    seen: list[int] = []
    for k, i in enumerate(ranking):
        assert 0 <= i < len(lines)
        seen.append(i)
        if keep[k % len(keep)]:
            ranking.kept(i)
    assert set(seen) == set(range(len(lines)))


# a reducer's summary never hides a signal line ---------------------------------------------------


class _Summarise:
    """A reducer that stands one summary for everything but the first and last lines, as a
    recogniser that takes an error for one more repeat of a warning would."""

    name = "summarise"

    @staticmethod
    def detect(text: str, hint: Hint) -> bool:
        return True

    @staticmethod
    def reduce(text: str, hint: Hint, budget: Budget) -> list[Keep | Summary]:
        n = len(split_lines(text))
        return [Keep(0, 1, 5), Summary(("[x many] warning",), 1, n - 1, 5), Keep(n - 1, n, 5)]


@pytest.mark.parametrize("where", [0.1, 0.5, 0.9])
def test_a_summary_gives_way_to_the_error_it_would_hide(where: float) -> None:
    lines = [f"m{i:03}.hs:3:35: warning: [-Wunused-imports] unused import" for i in range(300)]
    error = "m117.hs:18:27: error: Couldn't match expected type Double with actual type Int"
    lines.insert(int(len(lines) * where), error)
    text = "\n".join(["[1 of 300] compiling", *lines, "done"]) + "\n"
    budget = Budget(max_chars=2000)
    hint = Hint(tool="bash")
    extra = [_Summarise()]
    out = shrink(text, hint, budget, only=["summarise"], extra=extra)
    assert out.strategy.startswith("summarise")
    assert error in split_lines(out.content)
    check_rules(text, out, budget)
    check_idempotent(out, hint, budget, only=["summarise"], extra=extra)


def test_a_summary_of_routine_lines_stays() -> None:
    lines = [f"m{i:03}.hs:3:35: warning: [-Wunused-imports] unused import" for i in range(300)]
    text = "\n".join(["[1 of 300] compiling", *lines, "done"]) + "\n"
    out = shrink(
        text, Hint(tool="bash"), Budget(max_chars=2000), only=["summarise"], extra=[_Summarise()]
    )
    assert "[x many] warning" in out.content


# a generic reducer's keeps do not outrank what salience knows -----------------------------------


def test_the_odd_row_of_a_repeated_table_survives_the_repeat_reducer() -> None:
    rng = random.Random(7)
    header = "State      Recv-Q Send-Q Local Address:Port  Peer Address:Port Process"
    rows = [header]
    for k in range(160):
        state = "CLOSE-WAIT" if k % 9 == 4 else "ESTAB     "
        port = 54000 + rng.randrange(2000)
        rows.append(
            f"{state} {k % 9 == 4:d}      0          127.0.0.1:7400     127.0.0.1:{port} "
            f'users:(("python3",pid=17380,fd={k + 3}))'
        )
    odd = "FIN-WAIT-2 0      0          127.0.0.1:54734    127.0.0.1:7400"
    rows.insert(97, odd)
    text = "\n".join(rows) + "\n"
    budget = Budget(max_chars=2000)
    out = shrink(text, Hint(tool="bash", command="ss -tanp"), budget)
    assert out.strategy.startswith("repeat")
    assert odd in split_lines(out.content)
    assert header in split_lines(out.content)
    check_rules(text, out, budget)
