"""General mechanisms that keep what matters in outputs no reducer was written for: rows that
stand out in a column, ids of a strong line found again, search words that are no signal, ties
broken by salience, the last summary kept by a plan, and the reducers' grouping of repeats."""

from __future__ import annotations

import random
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st
from test_shrink_properties import check_idempotent, check_rules

from klipui.shrink import Budget, Hint, Keep, shrink
from klipui.shrink.reducers import grep
from klipui.shrink.salience import MAX_OUTLIERS, TOP_VALUES, Scores, column_outliers
from klipui.shrink.text import split, split_lines

# rows that stand out in a column -------------------------------------------------------------


def _packages(count: int, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    return [
        f"ii  lib{rng.choice('abcdefgh')}{i:04}-{rng.randrange(9)}    "
        f"{rng.randrange(1, 9)}.{rng.randrange(20)}.{rng.randrange(9)}-1    amd64    "
        f"library number {i} for things"
        for i in range(count)
    ]


def test_a_rare_status_in_a_table_is_an_outlier() -> None:
    rows = _packages(400)
    rows[123] = rows[123].replace("ii", "hi", 1)
    rows[321] = rows[321].replace("ii", "rc", 1)
    found = column_outliers(rows)
    assert 123 in found and 321 in found
    assert len(found) <= 2 + TOP_VALUES * 8


def test_largest_sizes_of_a_listing_are_outliers() -> None:
    rng = random.Random(5)
    rows = [
        f"-rwxr-xr-x 1 root root {rng.randrange(1000, 90000):>9} 2026-01-{rng.randrange(1, 28):02}"
        f" tool{i}"
        for i in range(300)
    ]
    rows[40] = "-rwxr-xr-x 1 root root  98932688 2026-03-24 node"
    rows[250] = "-rwsr-xr-x 1 root root     72000 2024-11-21 su"
    found = column_outliers(rows)
    assert 40 in found  # the largest size
    assert 250 in found  # the setuid mode, rare in its column


def test_a_column_of_one_value_has_no_outliers() -> None:
    rows = [f"INFO worker ready {i % 3}" for i in range(100)]
    assert column_outliers(rows) == {}


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from(["ii", "hi", "7", "12K", "3.5M", "x", "-", "a b"]), max_size=8),
        max_size=120,
    )
)
def test_column_outliers_are_bounded_rows(table: list[list[str]]) -> None:
    rows = [" ".join(fields) for fields in table]
    found = column_outliers(rows)
    assert all(0 <= i < len(rows) for i in found)
    assert len(found) <= 12 * (MAX_OUTLIERS + TOP_VALUES)


def test_salience_keeps_the_held_package_of_a_long_table() -> None:
    rows = _packages(900)
    rows[500] = rows[500].replace("ii", "hi", 1)
    header = (
        "||/ Name    Version    Architecture Description\n+++-=====-=======-============-====\n"
    )
    text = header + "\n".join(rows) + "\n"
    budget = Budget(max_chars=2500)
    out = shrink(text, Hint(tool="bash"), budget, only=[])
    assert rows[500] in out.content and out.content.startswith("||/ Name")
    check_rules(text, out, budget)


# ids of a strong line found again --------------------------------------------------------------


def _thread_dump() -> tuple[str, list[str]]:
    lines = [f"[New Thread 0x7ffff{i:03x}6c0 (LWP {1200 + i})]" for i in range(40)]
    lines += ["", 'Thread 25 "srv" received signal SIGSEGV, Segmentation fault.']
    lines += ["[Switching to Thread 0x7fffec5ba6c0 (LWP 1292)]", ""]
    for t in range(40, 0, -1):
        address = "0x7fffec5ba6c0" if t == 25 else f"0x7ffff{t:03x}6c0"
        lwp = 1292 if t == 25 else 1200 + t
        lines.append(f'Thread {t} (Thread {address} (LWP {lwp}) "srv"):')
        if t == 25:
            crashed = [
                "#0  __strlen_evex () at ../sysdeps/x86_64/multiarch/strlen-evex.S:79",
                "#1  0x00005555555551d8 in parse_header (c=0x7fffec5b9ec0) at srv.c:8",
                "#2  0x0000555555555219 in handle (c=0x7fffec5b9ec0) at srv.c:9",
            ]
            lines += crashed
        else:
            lines += [
                f"#0  __futex_abstimed_wait_common64 (private=128, futex_word=0x7fff{t:04x}) at"
                " ./nptl/futex-internal.c:57",
                f"#1  0x00007ffff7e5af7b in __pthread_clockjoin_ex (threadid={t}) at"
                " ./nptl/pthread_join_common.c:102",
            ]
        lines.append("")
    return "\n".join(lines) + "\n", crashed


def test_the_crashed_threads_frames_are_found_by_its_address() -> None:
    text, crashed = _thread_dump()
    budget = Budget(max_chars=2000)
    out = shrink(text, Hint(tool="bash"), budget, only=[])
    for frame in crashed:
        assert frame in out.content
    check_rules(text, out, budget)
    check_idempotent(out, Hint(tool="bash"), budget)


# search results ------------------------------------------------------------------------------


def test_the_searched_word_is_no_signal_in_search_results() -> None:
    rows = [
        f"src/pkg/m{i}.py:{i * 7}:    value = handle_error(x{i})  # error path" for i in range(80)
    ]
    rows[40] = "src/pkg/errors.py:12:class ErrorBudget:"
    text = "\n".join(rows)
    lines = split(text)
    searched = Scores(lines, Hint(tool="grep", command="grep -rn error src")).score
    assert searched[40] > max(searched.get(i, 0) for i in range(5, 35))


def test_grep_does_not_take_ls_columns_for_a_path() -> None:
    rows = [
        f"-rw-r--r--  1 root root   {1000 + i:>6} 2026-12-03 11:{i % 60:02} file{i}.txt"
        for i in range(60)
    ]
    assert not grep.detect("\n".join(rows), Hint(tool="bash", command="ls -la"))


# plans over budget ---------------------------------------------------------------------------


class _FlatPlan:
    """A reducer that ranks its first line highest, its last lowest, all others alike."""

    name = "flat"

    @staticmethod
    def detect(text: str, hint: Hint) -> bool:
        return True

    @staticmethod
    def reduce(text: str, hint: Hint, budget: Budget) -> list[Keep]:
        n = len(split_lines(text))
        return [Keep(0, 1, 5), *(Keep(i, i + 1, 3) for i in range(1, n - 1)), Keep(n - 1, n, 1)]


def _routine(count: int) -> list[str]:
    return [f"step {i:04} copied chunk {i * 37 % 1000:03} of the archive" for i in range(count)]


def test_ties_in_a_plan_go_by_salience_and_the_last_summary_stays() -> None:
    lines = _routine(600)
    lines[333] = "step 0333 ERROR: checksum mismatch in chunk 333 (expected 9f2c, got 11aa)"
    lines.append("copy finished: 599 chunks copied, 1 failed")
    text = "\n".join(lines)
    budget = Budget(max_chars=1500)
    out = shrink(text, Hint(tool="bash"), budget, only=["flat"], extra=[_FlatPlan()])
    assert out.strategy == "flat"
    assert lines[333] in out.content and lines[-1] in out.content
    check_rules(text, out, budget)


# reducers: repeats grouped, explanations kept --------------------------------------------------


def test_go_vet_package_headers_give_way_to_the_rare_findings() -> None:
    lines: list[str] = []
    for p in range(100):
        lines.append(f"# example.com/svc/internal/h{p:02}")
        lines.append(
            f"internal/h{p:02}/h.go:17:2: log.Printf format %s has arg r.ID of wrong type int"
        )
        if p == 17:
            lines.append("internal/h17/h.go:29:7: the cancel function is not used on all paths")
        lines.append(
            f"internal/h{p:02}/h.go:18:9: fmt.Sprintf format %d has arg r.Name of wrong type"
        )
    text = "\n".join(lines)
    budget = Budget(max_chars=2000)
    out = shrink(text, Hint(tool="bash", command="go vet ./..."), budget)
    assert out.strategy == "build"
    assert "internal/h17/h.go:29:7: the cancel function is not used on all paths" in out.content
    check_rules(text, out, budget)


def test_pip_error_explanation_outranks_repeated_warnings() -> None:
    lines = ["Using pip 23.2.1 from /venv/lib/python3.11/site-packages/pip (python 3.11)"]
    for k in range(60):
        lines.append(f"WARNING: Location 'file:///opt/simple/pkg{k}/' is ignored: not a directory.")
        lines.append(f"Collecting pkg{k}")
        lines.append(f"  Downloading pkg{k}-1.0-py3-none-any.whl (12 kB)")
    lines += [
        "ERROR: Cannot install idna<2.5 and requests==2.31.0 because of conflicting dependencies.",
        "",
        "The conflict is caused by:",
        "    The user requested idna<2.5",
        "    requests 2.31.0 depends on idna<4 and >=2.5",
        "",
        "ERROR: ResolutionImpossible: for help visit https://pip.pypa.io/",
    ]
    text = "\n".join(lines)
    budget = Budget(max_chars=1500)
    out = shrink(text, Hint(tool="bash", command="pip install requests==2.31.0 idna<2.5"), budget)
    assert out.strategy == "install"
    for kept in ("    The user requested idna<2.5", "    requests 2.31.0 depends on idna<4 and"):
        assert kept in out.content
    assert lines[1] in out.content  # the first of the repeated warning
    check_rules(text, out, budget)


def test_the_message_above_a_valgrind_trace_is_kept() -> None:
    pid = "==1973=="
    lines = [f"{pid} Helgrind, a thread error detector", f"{pid} "]
    for k in range(30):
        lines += [f"--1973-- Reading syms from /usr/lib/x86_64-linux-gnu/lib{k}.so"]
    for k in range(6):
        lines += [
            f"{pid} ----------------------------------------------------------------",
            f"{pid} ",
            f"{pid} Possible data race during read of size 8 at 0x10C28{k} by thread #3",
            f"{pid} Locks held: none",
            f"{pid}    at 0x1092AA: hitter (cache.c:1{k})",
            f"{pid}    by 0x484C7D6: ??? (in /usr/libexec/valgrind/vgpreload_helgrind-amd64.so)",
            f"{pid}    by 0x48ED1F4: start_thread (pthread_create.c:442)",
            f"{pid}    by 0x496CB4F: clone (clone.S:100)",
            f"{pid} ",
        ]
    lines.append(f"{pid} ERROR SUMMARY: 6 errors from 6 contexts (suppressed: 0 from 0)")
    text = "\n".join(lines)
    budget = Budget(max_chars=2000)
    out = shrink(text, Hint(tool="bash", command="valgrind --tool=helgrind ./cache"), budget)
    assert out.strategy == "stacktrace+salience"
    assert "Possible data race during read of size 8" in out.content
    assert lines[-1] in out.content
    check_rules(text, out, budget)


def test_a_kept_last_line_keeps_its_newline() -> None:
    lines = _routine(500)
    text = "\n".join(lines) + "\n"
    out = shrink(text, Hint(tool="bash"), Budget(max_chars=600), only=[])
    assert out.content.endswith(lines[-1] + "\n")
    check_rules(text, out, Budget(max_chars=600))
    check_idempotent(out, Hint(tool="bash"), Budget(max_chars=600))


# the rules hold for any plan the salience ties and the protected lines rework ---------------------


class _RandomPlan:
    """A reducer whose plan is drawn by hypothesis: pieces in order, random priorities."""

    name = "drawn"

    def __init__(self, cuts: list[int], priorities: list[int]) -> None:
        self.cuts = cuts
        self.priorities = priorities

    @staticmethod
    def detect(text: str, hint: Hint) -> bool:
        return True

    def reduce(self, text: str, hint: Hint, budget: Budget) -> list[Keep]:
        n = len(split_lines(text))
        bounds = sorted({min(c, n) for c in self.cuts} | {0, n})
        pieces = [(a, b) for a, b in pairwise(bounds) if a < b]
        return [
            Keep(a, b, self.priorities[k % len(self.priorities)])
            for k, (a, b) in enumerate(pieces)
            if k % 3 != 1  # some lines in no piece
        ]


@settings(max_examples=80, deadline=None)
@given(
    rows=st.lists(
        st.sampled_from(
            [
                "step copied chunk",
                "ERROR: checksum mismatch in chunk 7",
                "done: 40 copied, 1 failed",
                "",
                "process exited with status 2",
                "x" * 300,
            ]
        ),
        min_size=1,
        max_size=200,
    ),
    cuts=st.lists(st.integers(0, 200), max_size=30),
    priorities=st.lists(st.integers(0, 5), min_size=1, max_size=6),
    max_chars=st.integers(80, 2500),
    max_lines=st.sampled_from([0, 5, 40]),
)
def test_rules_hold_for_drawn_plans_over_budget(
    rows: list[str], cuts: list[int], priorities: list[int], max_chars: int, max_lines: int
) -> None:
    text = "\n".join(f"{i:03} {row}" for i, row in enumerate(rows)) + "\n"
    budget = Budget(max_chars=max_chars, max_lines=max_lines)
    hint = Hint(tool="bash")
    out = shrink(text, hint, budget, only=["drawn"], extra=[_RandomPlan(cuts, priorities)])
    check_rules(text, out, budget)
    check_idempotent(out, hint, budget)


def test_a_failed_image_build_keeps_its_base_image() -> None:
    lines = ["STEP 1/60: FROM docker.io/library/python:3.11-slim AS build"]
    for k in range(2, 60):
        lines += [f"STEP {k}/60: RUN make part{k}", f"building part{k}", "--> Using cache 3f2a9c1d"]
        lines += [f"--> {k:02}ab{k:02}cd{k:02}ef"]
    lines += [
        "STEP 60/60: RUN make check",
        "tests/run.sh: line 12: pytest: command not found",
        'Error: building at STEP "RUN make check": while running runtime: exit status 127',
    ]
    text = "\n".join(lines)
    budget = Budget(max_chars=1200)
    out = shrink(text, Hint(tool="bash", command="podman build ."), budget)
    assert out.strategy.startswith("docker")
    assert lines[0] in out.content and lines[-1] in out.content
    check_rules(text, out, budget)
