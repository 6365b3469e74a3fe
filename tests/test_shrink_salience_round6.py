"""Salience, round 6: the unusual answer in a `key: value` report, property lines that are not
table headers, and the rows that stand out in a table of any size."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from test_shrink_properties import check_idempotent, check_rules

from klipui.shrink import Budget, Hint, shrink
from klipui.shrink.salience import (
    HEADING,
    MAX_ODD,
    NONZERO,
    ODD_VALUE,
    PEAK,
    SMALL_TABLE,
    TABLE_ROW,
    WEAK,
    Scores,
    _odd_ones,
)
from klipui.shrink.text import split

BASH = Hint(tool="bash")

PROPERTIES = [
    "Architecture:            x86_64",
    "Byte Order:              Little Endian",
    "Model name:              Generic CPU",
    "Thread(s) per core:      1",
    "Core(s) per socket:      2",
    "Socket(s):               1",
    "NUMA node(s):            1",
]


def _report(answers: list[str]) -> list[str]:
    """A report of properties, then a family of checks (`Check NAME: answer`), each check's
    name a word of its own."""
    width = max([12, *(len(_name(k)) + 2 for k in range(len(answers)))])
    return PROPERTIES + [
        f"Check {_name(k)}:{' ' * (width - len(_name(k)))}{answer}"
        for k, answer in enumerate(answers)
    ]


def _name(k: int) -> str:
    """A word for `k`, without digits or hex letters: `ghi`, `jkl`, `ghj`..."""
    letters = "ghijklmnopqrstuvwxyz"
    word = ""
    while True:
        word += letters[k % len(letters)]
        k //= len(letters)
        if not k:
            return word + "s"


PAD = 12


def _scores(lines: list[str], budget: int = 0) -> dict[int, int]:
    """The scores of `lines` placed in the middle of an output (index 0 is `lines[0]`), away
    from the ends that rank for where they are."""
    before = [f"step {k} took {k * 37 % 90} ms" for k in range(PAD)]
    after = [f"step {k} took {k * 53 % 90} ms" for k in range(PAD, 2 * PAD)]
    text = "\n".join([*before, "", *lines, "", *after]) + "\n"
    score = Scores(split(text), BASH, budget).score
    return {i - PAD - 1: v for i, v in score.items() if PAD < i <= PAD + len(lines)}


# the unusual answer in a key: value report ---------------------------------------------------


def test_the_odd_answer_among_keys_of_one_family_ranks() -> None:
    answers = ["Not affected"] * 9
    answers[5] = "Vulnerable"
    lines = _report(answers)
    score = _scores(lines)
    odd = len(PROPERTIES) + 5
    assert score.get(odd, 0) >= ODD_VALUE
    assert all(score.get(i, 0) < ODD_VALUE for i in range(len(PROPERTIES) + 1, odd))


def test_no_odd_answer_when_answers_do_not_agree() -> None:
    lines = _report([f"value {k}" for k in range(9)])
    score = _scores(lines)
    assert all(score.get(i, 0) < ODD_VALUE for i in range(len(PROPERTIES), len(lines)))


def test_keys_of_different_families_are_not_compared() -> None:
    # five properties with their own first words, each answered "yes" but one: no family
    lines = [
        "Alpha enabled:   yes",
        "Beta enabled:    yes",
        "Gamma enabled:   no",
        "Delta enabled:   yes",
        "Epsilon enabled: yes",
    ]
    score = _scores(lines)
    assert score.get(2, 0) < ODD_VALUE


def test_the_odd_answer_survives_a_tight_budget() -> None:
    answers = ["Not affected"] * 30
    answers[17] = "Vulnerable"
    lines = [f"Setting {k:03}: {k * 37 % 101} units" for k in range(60)]
    lines += _report(answers) + [f"Counter {k:03}: {k * 53 % 97}" for k in range(60)]
    out = shrink("\n".join(lines) + "\n", BASH, Budget(max_chars=1200), only=[])
    assert len(out.content) <= 1200
    assert f"Check {_name(17)}:" in out.content and "Vulnerable" in out.content


# property lines are not table headers --------------------------------------------------------


def test_property_lines_are_not_header_rows() -> None:
    score = _scores(PROPERTIES)
    # `Model name:  Generic CPU` is over `Thread(s) per core:  1`: words over digits, aligned
    assert score.get(2, 0) < HEADING


def test_a_labelled_header_row_over_rows_of_the_same_label_is_still_one() -> None:
    lines = ["Average:        CPU      %usr     %sys    %idle"]
    lines += [
        f"Average:        {k:<3}    {10 + k:5.2f}    {k:5.2f}    {80 - k:5.2f}" for k in range(4)
    ]
    score = _scores(lines)
    assert score.get(0, 0) >= HEADING


# rows that stand out in a table of any size --------------------------------------------------


DF = [
    "Filesystem     Type      Size  Used Avail Use% Mounted on",
    "/dev/vda       ext4      252G   34G   69G  33% /",
    "devtmpfs       devtmpfs   12G     0   12G   0% /dev",
    "tmpfs          tmpfs      24G  2.3M   24G   1% /dev/shm",
    "tmpfs          tmpfs      12G     0   12G   0% /sys/fs/cgroup",
    "tmpfs          tmpfs      16M   16M     0 100% /mnt/cache",
    "/dev/loop0     ext4       27M  2.1M   23M   9% /mnt/db",
]


def test_the_largest_percentage_of_a_small_table_ranks() -> None:
    score = _scores(DF)
    assert score.get(5, 0) >= PEAK
    assert all(score.get(i, 0) < PEAK for i in (1, 2, 3, 4, 6))


def test_equal_percentages_pick_no_row() -> None:
    rows = [f"disk{k}          ext4      10G    5G    5G  50% /m{k}" for k in range(6)]
    score = _scores([DF[0], *rows])
    assert all(score.get(i, 0) < PEAK for i in range(1, 7))


def test_the_odd_flag_of_a_small_table_ranks() -> None:
    lines = ["  Type           Offset   FileSiz  Flg Align"]
    flags = ["R  ", "R E", "R  ", "RW ", "RW ", "R  ", "RWE", "R  "]
    for k, flag in enumerate(flags):
        lines.append(f"  SEG{k}           0x{k:06x} 0x{k * 16:06x} {flag} 0x1000")
    score = _scores(lines)
    assert score.get(7, 0) >= ODD_VALUE
    assert all(score.get(i, 0) < ODD_VALUE for i in range(1, 9) if i != 7)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.sampled_from(["Not affected", "Vulnerable", "Mitigation; x", "ok"]), max_size=40),
    st.lists(st.integers(0, 100), max_size=20),
    st.integers(200, 3000),
)
def test_reports_and_tables_keep_the_rules(
    answers: list[str], percents: list[int], budget: int
) -> None:
    lines = [*_report(answers), "", DF[0]]
    lines += [f"dev{k}  ext4  10G  5G  5G {p:3}% /m{k}" for k, p in enumerate(percents)]
    text = "\n".join(lines) + "\n"
    out = shrink(text, BASH, Budget(max_chars=budget), only=[])
    check_rules(text, out, Budget(max_chars=budget))
    check_idempotent(out, BASH, Budget(max_chars=budget), only=[])


# the few non-zero counts where a count is zero on most lines ---------------------------------


def _vacuum(dead: dict[int, int]) -> list[str]:
    """One report line per table: a dead-row count of zero but for the tables in `dead`."""
    return [
        f"table t{k}: {k * 7 + 3} rows remain, {dead.get(k, 0)} dead rows kept" for k in range(40)
    ]


def test_a_nonzero_count_among_zeros_ranks() -> None:
    score = _scores(_vacuum({11: 160, 29: 5}))
    assert score.get(11, 0) >= NONZERO and score.get(29, 0) >= NONZERO
    assert all(score.get(i, 0) < NONZERO for i in range(1, 39) if i not in (11, 29))


def test_nonzero_counts_that_are_common_are_routine() -> None:
    score = _scores(_vacuum({k: k + 1 for k in range(0, 40, 3)}))
    assert all(score.get(i, 0) < NONZERO for i in range(1, 39))


def test_a_nonzero_count_survives_a_tight_budget() -> None:
    lines: list[str] = []
    for k in range(60):
        lines += [
            f"INFO: vacuuming t{k}",
            f"pages: {k * 3 + 1} scanned",
            f"tuples: {k * 7 + 2} remain, {2 if k == 37 else 0} are dead",
        ]
    text = "\n".join(lines) + "\n"
    out = shrink(text, BASH, Budget(max_chars=900), only=[])
    assert len(out.content) <= 900 and "tuples: 261 remain, 2 are dead" in out.content


# a family whose every member is named once has no odd member ---------------------------------


def test_a_family_of_names_each_seen_once_has_no_odd_member() -> None:
    names = [_name(k) for k in range(30)]
    lines = [f'suite "{name}": 4 tests passed in 20 files' for name in names]
    lines += ['suite "aaa": 4 tests passed in 20 files'] * 3
    score = _scores(lines)
    raised = [i for i in range(1, 29) if score.get(i, 0) > 700]
    assert not raised


# the rows of a small table with details between them -----------------------------------------


def _ports(rows: int) -> tuple[list[str], list[str]]:
    """A table of `rows` rows, each followed by lines of details; and its rows."""
    lines = ["PORT     STATE SERVICE    VERSION"]
    kept: list[str] = []
    for k in range(rows):
        row = f"{3000 + 7 * k}/tcp open  svc{_name(k):<7}v{k}.{k % 3}"
        kept.append(row)
        lines.append(row)
        lines += [f"|   banner of {_name(k)} part {_name(m)}: {_name(m * k)}" for m in range(4)]
    return lines, kept


def test_rows_of_a_small_table_between_their_details_rank() -> None:
    lines, rows = _ports(5)
    score = _scores(lines)
    for row in rows:
        assert score.get(lines.index(row), 0) >= TABLE_ROW
    details = [i for i, line in enumerate(lines) if line.startswith("|")]
    assert all(score.get(i, 0) < TABLE_ROW for i in details)


def test_a_large_table_keeps_no_row_for_being_one() -> None:
    lines, rows = _ports(SMALL_TABLE + 3)
    score = _scores(lines)
    assert all(score.get(lines.index(row), 0) < TABLE_ROW for row in rows[1:-1])


def test_rows_of_a_small_table_survive_a_tight_budget() -> None:
    lines, rows = _ports(6)
    before = [f"scan step {k}: {k * 13 % 70} probes sent" for k in range(40)]
    after = [f"script pass {k} done in {k * 11 % 50} ms" for k in range(40)]
    text = "\n".join([*before, "", *lines, "", *after]) + "\n"
    out = shrink(text, BASH, Budget(max_chars=1500), only=[])
    assert len(out.content) <= 1500
    assert all(row in out.content for row in rows)


# an explanation in parentheses is about the line above it -----------------------------------


def _plan(explained: set[int]) -> list[str]:
    lines: list[str] = []
    for k in range(30):
        if k in explained:
            lines.append(f'  # resource["{_name(k)}"] will be replaced')
            lines.append(f'  # (deprecated: key ["{_name(k)}"] was renamed)')
        else:
            lines.append(f'  # resource["{_name(k)}"] will be created')
        lines.append(f'      + id = "{_name(k)}-{k}"')
    return lines


def test_the_line_an_explanation_is_about_ranks_with_it() -> None:
    lines = _plan({19})
    score = _scores(lines)
    subject = lines.index(f'  # resource["{_name(19)}"] will be replaced')
    explanation = score.get(subject + 1, 0)
    assert explanation >= WEAK and score.get(subject, 0) == explanation - 5


def test_a_run_of_parenthesised_lines_explains_nothing() -> None:
    lines = ["(Reading database ... 5%", "(Reading database ... 50%"]
    lines += ["(Reading database ... 100%", "(Reading database ... 2000 files installed.)"]
    lines += [f"Unpacking pkg{_name(k)} ..." for k in range(20)]
    lines[3] += " warning: 1 skipped"
    score = _scores(lines)
    assert score.get(2, 0) < score.get(3, 0) - 5


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["ok", "ok", "ok", "fail", "skip", "n/a", "odd1", "odd2"])))
def test_odd_ones_are_few_unique_and_only_where_most_agree(values: list[str]) -> None:
    odd = _odd_ones([(value, i) for i, value in enumerate(values)], len(values))
    assert len(odd) <= min(MAX_ODD, max(1, len(values) // 4))
    assert all(values.count(values[i]) == 1 for i in odd)
    if odd:
        assert max(values.count(v) for v in values) * 2 > len(values)
