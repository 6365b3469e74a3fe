"""The fast paths of the shrink engine give what the plain ones give.

Each speed-up (a cheap guard before a regex, a substring search instead of a scan, a fit check
that stops early, a plan that ranks nothing the pipeline would drop) is checked against the
straightforward computation it replaces, on random and crafted inputs.
"""

from __future__ import annotations

import re
import sys
from bisect import bisect_right
from itertools import pairwise
from pathlib import Path

import pytest
from conftest import corpus_cases
from hypothesis import given, settings
from hypothesis import strategies as st

from klipui.shrink import Budget, Hint, Keep, Summary, salience, segments, shrink
from klipui.shrink import pipeline as pipeline_module
from klipui.shrink.reducers import _patterns, diff, json, log, tests, tree
from klipui.shrink.reducers._patterns import Lines, line_regex, lines_containing, lines_holding
from klipui.shrink.text import long_lines, marker, marker_length, split

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from corpus_folds import part_of

# tests reducer: the guarded scan ---------------------------------------------------------------

_RUNNER_PIECES = [
    "", " ", "  ", "\t", "=", "=====", "_____", "-----", "---- ", "--- FAIL: ", "FAIL", "FAILED",
    "ERROR", "ERROR: ", "not ok ", "ok ", "OK ", "● ", "✗", "×", "test ", "test result: ",
    "error: ", "Tests run: ", "Tests: ", "Test Suites: ", "[ERROR] ", "[INFO] ", "BUILD ",
    "SUCCESS", "FAILURE", "Snapshots: ", "# tests ", "# fail ", "!!! ", "Ran 3 tests in ",
    "rspec ./", "FAILURES!", "failures:", "Failures:", "panic: ", "fatal error: ", "main.go:",
    "12", "3 ", "passed", "failed", " passing", "examples, ", "failures", "(", ")", "x",
    "foo_test", "::", " stdout ----", " ... ", "ignored", "platform linux -- Python 3",
    "rootdir: /x", "collected 4 items", "running 2 tests", "Running tests/x (target/y)",
    "Test run started", "SKIPPED ", "XFAIL ", "XPASS ", " <<< FAILURE!", " <<< ERROR!", " <<< ",
    "1.5s", "ms", ",", "tests/test_x.py::test_y PASSED", "thread 'main'", "t", "total",
]  # fmt: skip


def _runner_text() -> st.SearchStrategy[str]:
    line = st.lists(st.sampled_from(_RUNNER_PIECES), max_size=6).map("".join)
    return st.lists(line, min_size=1, max_size=30).map("\n".join)


def _one_named_union() -> re.Pattern[str]:
    """Headers, summaries, sections and panics as one alternation, named by group: what the
    guarded scan, `_kind` and the search for go locations stand for."""
    return line_regex(
        "^(?:"
        + tests._HEADER.pattern[4:-1]
        + "|(?P<summary>"
        + tests._SUMMARY.pattern[4:-1]
        + ")|(?P<section>"
        + tests._SECTION.pattern[4:-1]
        + ")|(?P<panic>"
        + tests._PANIC.pattern[4:-1]
        + "))"
    )


@settings(max_examples=150, deadline=None)
@given(text=_runner_text())
def test_tests_scan_guard_turns_away_no_line_the_patterns_match(text: str) -> None:
    lines = Lines(text)
    found = {i: tests._kind(lines.lines[i]) for i, _ in lines.scan(tests._SCAN)}
    for i in lines_containing(lines, (tests._GO_LOCATION,)):
        if i not in found and tests._PANIC.match(lines.lines[i]):
            found[i] = "panic"
    union = _one_named_union()
    expected = {}
    for i, line in enumerate(lines.lines):
        match = union.match(line)
        if match is not None:
            expected[i] = match.lastgroup
    assert found == expected
    hits = lines.hits(tests._SCAN_OR_SETUP)
    assert [i for i in hits if tests._SCAN.match(lines.lines[i])] == lines.hits(tests._SCAN)
    searched = tests._Searched(lines, hits)
    alone = tests._Searched(lines)
    assert (searched.setup(), searched.leading()) == (alone.setup(), alone.leading())
    surefire = [i for i in searched.surefire() if tests._SUREFIRE_END.search(lines.lines[i])]
    assert surefire == [
        i
        for i in lines_containing(lines, (tests._SUREFIRE_MARK,))
        if tests._SUREFIRE_END.search(lines.lines[i])
    ]


@settings(max_examples=120, deadline=None)
@given(text=_runner_text())
def test_tests_setup_and_leading_scans_match_the_line_patterns(text: str) -> None:
    lines = Lines(text)
    assert lines.hits(tests._SETUP_LINE) == [
        i for i, line in enumerate(lines.lines) if tests._SETUP.match(line)
    ]
    fail_candidates = {
        *lines_containing(lines, (tests._FAIL, *tests._FAIL_WORDS)),
        *lines.hits(tests._LEADING),
    }
    assert {i for i in fail_candidates if tests._FAIL_LINE.match(lines.lines[i])} == {
        i for i, line in enumerate(lines.lines) if tests._FAIL_LINE.match(line)
    }
    skip_candidates = {
        *lines_containing(lines, (*tests._SKIP_WORDS, "XFAIL")),
        *lines.hits(tests._LEADING),
    }
    assert {i for i in skip_candidates if tests._SKIPPED.match(lines.lines[i])} == {
        i for i, line in enumerate(lines.lines) if tests._SKIPPED.match(line)
    }


# json reducer: bracket lines ------------------------------------------------------------------


def _bracket_text() -> st.SearchStrategy[str]:
    piece = st.sampled_from(["{", "}", "[", "]", " ", "\t", "\r", '"a": 1', ",", "x", "\n"])
    return st.lists(piece, max_size=60).map("".join)


@settings(max_examples=120, deadline=None)
@given(text=_bracket_text())
def test_json_bracket_lines_by_search_equal_the_regex_scan(text: str) -> None:
    starts = split(text, cache=False).starts
    for opening in (True, False):
        pattern = json._OPEN if opening else json._CLOSE
        shift = -1 if opening else 0
        scanned = [bisect_right(starts, m.start()) + shift for m in pattern.finditer(text)]
        assert json._bracket_lines(text, starts, opening) == scanned


def test_json_bracket_lines_take_the_scan_when_brackets_are_many() -> None:
    text = "[" + "[1], " * 50 + "[\n  [\n  ]\n]\n]\n"
    starts = split(text, cache=False).starts
    assert text.count("[") > len(starts) // 2
    assert json._bracket_lines(text, starts, True) == [0, 1]
    assert json._bracket_lines(text, starts, False) == [2, 3, 4]


# log reducer: keyword tails ----------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(
        st.lists(
            st.sampled_from(
                [*log._KEYWORDS, "primed out", "Rimeout", "lowquery", "kill", "k", "x", " "]
            ),
            max_size=4,
        ).map("".join),
        max_size=20,
    ),
    probe=st.integers(1, 60),
    spacing=st.integers(1, 40),
)
def test_log_keywords_by_their_rarest_character_find_the_lines_a_search_finds(
    lines: list[str], probe: int, spacing: int
) -> None:
    """Whatever the head says is rare, and however soon a common character hands over to the
    search of the whole needle, the lines found are those holding a keyword."""
    analysed = Lines("\n".join(lines))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_patterns, "ANCHOR_PROBE", probe)
        patch.setattr(_patterns, "ANCHOR_SPACING", spacing)
        by_anchor = lines_holding(analysed, log._KEYWORDS)
    assert by_anchor == lines_containing(analysed, log._KEYWORDS)


@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(
        st.lists(
            st.sampled_from(
                ['"', '" ', "404", "500", "503", " ", '"status": ', '"statusCode":', "status=", "x"]
            ),
            max_size=6,
        ).map("".join),
        max_size=12,
    )
)
def test_log_status_forms_of_4xx_and_5xx_in_one_search_find_what_each_finds(
    lines: list[str],
) -> None:
    """One search a status form for 4xx and 5xx together: the lines of each 5xx, and the
    first and last line of each 4xx status, are those of one search a form and class."""
    analysed = Lines("\n".join(lines))
    marks: dict[int, int] = {}
    log._mark_signals(analysed, set(), lambda i, p: marks.__setitem__(i, max(p, marks.get(i, 0))))
    forms = [re.compile(form.format(d=d)) for d in "45" for form in log._STATUS_FORMS]
    servers = {i for pattern in forms[3:] for i in analysed.hits(pattern)}
    by_status: dict[str, list[int]] = {}
    for pattern in forms[:3]:
        for i, m in analysed.scan(pattern):
            by_status.setdefault(m[1], []).append(i)
    edges = {i for found in by_status.values() for i in (min(found), max(found))}
    assert set(marks) == servers | edges
    assert all(marks[i] == log.LOW + 5 for i in edges - servers)
    assert all(marks[i] in (log.HIGH - 5, log.LOW) for i in servers - edges)


@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(
        st.lists(
            st.sampled_from(
                [
                    "2024-01-01 12:00:00 ",
                    "[12:00:00] ",
                    "INFO ",
                    "WARN ",
                    "WARNING: ",
                    "ERROR",
                    "ERR ",
                    "FATAL",
                    "xERROR ",
                    "level=warn ",
                    "level=50 ",
                    '{"level":"error",',
                    '{"level":40,',
                    '"level": 60 ',
                    "lvl=Err ",
                    "severity=CRITICAL ",
                    "a" * 70,
                    "msg ",
                    "ALERT",
                    "err",
                    "PANIC ",
                    "7",
                    "_",
                    "é",
                    "[main] ",
                    "\t",
                ]
            ),
            max_size=5,
        ).map("".join),
        max_size=15,
    ),
    structured=st.booleans(),
)
def test_log_levels_in_one_pass_equal_the_line_by_line_reading(
    lines: list[str], structured: bool
) -> None:
    analysed = Lines("\n".join(lines))
    pattern = log._FIELD_LEVEL if structured else log._LEVEL
    needles = log._FIELD_NEEDLES if structured else log._NEEDLES
    levels: dict[str, int] = {}
    trouble = []
    for i, line in enumerate(analysed.lines):
        m = pattern.match(line)
        if m is None:
            continue
        level = log._level_name(m.group(1))
        levels[level] = levels.get(level, 0) + 1
        worth = level in log._SEVERE or level in log._WARN
        if worth and any(needle in line for needle in needles):
            trouble.append((i, level))
    counted, found = log._read_levels(analysed, structured)
    assert dict(counted) == levels
    assert found == trouble


@settings(max_examples=150, deadline=None)
@given(
    lines=st.lists(
        st.lists(
            st.sampled_from(
                [
                    "2024-01-01 12:00:00,5 ",
                    "[12:00:00] ",
                    "0x1f",
                    "0x",
                    "12",
                    "-",
                    "T",
                    " ",
                    "",
                    "ERROR",
                    "worker 7 failed",
                    "abc",
                    "Z/",
                    "é",
                    "\t",
                    ":",
                    "0xZZ",
                ]
            ),
            max_size=5,
        ).map("".join),
        max_size=12,
    ),
    picks=st.lists(st.integers(0, 11), max_size=12),
)
def test_log_kinds_of_lines_joined_equal_each_line_alone(
    lines: list[str], picks: list[int]
) -> None:
    """The kinds of the trouble lines, templated all at once joined by newlines, are each
    line's own kind (prefix stripped, every token holding a digit masked)."""
    from klipui.shrink.reducers._patterns import kind

    prefix = re.compile(log._PREFIX.pattern)  # one line at a time: no multiline flag
    indices = sorted({k for k in picks if k < len(lines)})
    expected = [kind(prefix.sub("", lines[i])) for i in indices]
    assert log._kinds(lines, indices) == expected


# tree reducer: ls -R sections ---------------------------------------------------------------------


def _sections_by_loop(lines: list[str]) -> list[tuple[str, int, int, int, list[int]]]:
    groups: list[tuple[str, int, int, int, list[int]]] = []
    for i, line in enumerate(lines):
        if tree._is_section(lines, i):
            groups.append((line.rstrip(":").rstrip("/"), i, i + 1, i + 1, []))
        elif groups and line.strip():
            directory, header, start, _, entries = groups[-1]
            groups[-1] = (directory, header, start, i + 1, [*entries, i])
        elif line.strip():
            groups.append((".", -1, i, i + 1, [i]))
    return groups


def _section_rows(groups: tree._Groups) -> list[tuple[str, int, int, int, list[int]]]:
    """The columns of `tree._sections` read back as one row a directory run."""
    return [
        (directory, header, start, end, groups.entries[first:last])
        for directory, header, start, end, first, last in zip(
            groups.directories,
            groups.headers,
            groups.starts,
            groups.ends,
            groups.firsts,
            groups.lasts,
            strict=True,
        )
    ]


@settings(max_examples=150, deadline=None)
@given(
    lines=st.lists(
        st.sampled_from(["", " ", "./a:", "./a/b:", "x:", "a b:", "file.txt", "  total 4", ":"]),
        max_size=30,
    )
)
def test_tree_sections_equal_the_line_by_line_reading(lines: list[str]) -> None:
    for newline in ("\n", "\r\n"):
        analysed = split("".join(line + newline for line in lines))
        groups = tree._sections(analysed)
        found = _section_rows(groups)
        assert found == _sections_by_loop(lines)


@settings(max_examples=150, deadline=None)
@given(
    lines=st.lists(st.sampled_from(["", "a:", "b", ":", "a: b", "c:\r", "\r", "d::"]), max_size=12),
    newline=st.sampled_from(["\n", "\r\n", "\r\r\n"]),
    last=st.booleans(),
)
def test_tree_colon_ends_are_the_lines_ending_with_a_colon(
    lines: list[str], newline: str, last: bool
) -> None:
    text = newline.join(lines) + (newline if last else "")
    analysed = split(text, cache=False)
    expected = [i for i, line in enumerate(analysed.lines) if line.endswith(":")]
    assert tree._colon_ends(analysed) == expected


# diff reducer: headers over the budget -----------------------------------------------------------


def _diff_text(files: int, changes: int) -> str:
    parts = []
    for k in range(files):
        parts.append(f"diff --git a/src/module_{k}.py b/src/module_{k}.py\n")
        parts.append(f"index {k:07x}..{k + 1:07x} 100644\n")
        parts.append(f"--- a/src/module_{k}.py\n+++ b/src/module_{k}.py\n")
        for c in range(changes):
            parts.append(f"@@ -{c * 10 + 1},3 +{c * 10 + 1},3 @@\n context line {c}\n")
            parts.append(f"-old_name = compute({c})\n+new_name = compute({c})\n context after\n")
    return "".join(parts)


@pytest.mark.parametrize("budget", [Budget(1500), Budget(4000, max_lines=40), Budget(900, 0, 30)])
def test_diff_headers_only_plan_shrinks_like_the_full_ranking(
    budget: Budget, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = _diff_text(files=60, changes=4)
    hint = Hint(tool="bash", command="git diff")
    monkeypatch.setattr(segments, "MAX_CHARS", 10**12)  # never short: the full ranking
    full = diff.reduce(text, hint, budget)
    ranked = shrink(text, hint, budget)
    monkeypatch.setattr(segments, "MAX_CHARS", 0)  # always allowed to be short
    short = diff.reduce(text, hint, budget)
    fast = shrink(text, hint, budget)
    assert full is not None and short is not None
    assert len(short) < len(full)  # the shortcut was taken
    assert all(type(item) is Keep and item.priority == diff.FILE for item in short)
    assert (fast.content, fast.kept, fast.strategy, fast.note) == (
        ranked.content,
        ranked.kept,
        ranked.strategy,
        ranked.note,
    )


_DIFF_PIECES = [
    "", " ctx", "+new", "-old", "+++ b/x", "--- a/x", "---", "+", "-", "-- x", "+++", "@@ -1 +1 @@",
    "@@ -1,2 +1,2 @@ f", "@@ bad", "diff --git a/x b/x", "index 1..2", "\\ No newline", "commit 1",
    "Author: a", "x", "\r", "\rx", "new file mode 100644", "rename from a", "Binary files a b",
    "\r\r", "\r@@ -1 +1 @@", "@", "@@@ -1 -1 +1 @@@", "@@ -1 +1 @", "+++ ", "--- ", "\\",
]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    lines=st.lists(st.sampled_from(_DIFF_PIECES), max_size=25),
    newline=st.sampled_from(["\n", "\r\n"]),
    last=st.booleans(),
)
def test_diff_outline_reads_the_headers_the_full_reading_reads(
    lines: list[str], newline: str, last: bool
) -> None:
    text = newline.join(lines) + (newline if last else "")
    reading = diff._read(split(text).lines)
    n = len(split(text).lines)
    starts = {*reading.files, *reading.hunk_lines}
    first = next((k for k in range(n) if k in starts or split(text).lines[k].startswith("@@")), n)
    outline = diff._outline(text)
    assert outline == (reading.files, first, bool(reading.runs))


def test_diff_outline_reads_the_headers_the_full_reading_reads_on_the_corpus() -> None:
    for case in _TUNED:
        text = (case / "output.txt").read_text(encoding="utf-8")
        for variant in (text, text.replace("\n", "\r\n")):
            lines = split(variant, cache=False).lines
            reading = diff._read(lines)
            starts = {*reading.files, *reading.hunk_lines}
            n = len(lines)
            first = next((k for k in range(n) if k in starts or lines[k].startswith("@@")), n)
            assert diff._outline(variant) == (reading.files, first, bool(reading.runs)), case.name


def test_diff_keeps_its_full_ranking_when_the_headers_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    text = _diff_text(files=3, changes=4)
    monkeypatch.setattr(segments, "MAX_CHARS", 0)
    plan = diff.reduce(text, Hint(), Budget(50_000))
    assert plan is not None
    assert {item.priority for item in plan} > {diff.FILE}


# pipeline: fit checks and markers -------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(chars=st.integers(0, 10**13), lines=st.integers(0, 10**9), label=st.sampled_from(["", "x"]))
def test_marker_length_is_the_length_of_the_marker(chars: int, lines: int, label: str) -> None:
    assert marker_length(chars, lines, label) == len(marker(chars, lines, label))


@settings(max_examples=150, deadline=None)
@given(
    cuts=st.lists(st.integers(0, 60), max_size=20),
    summaries=st.lists(st.booleans(), max_size=20),
    max_chars=st.integers(0, 400),
    max_rows=st.integers(0, 30),
    label=st.sampled_from(["", "unchanged"]),
)
def test_early_stopping_fit_check_equals_the_total(
    cuts: list[int], summaries: list[bool], max_chars: int, max_rows: int, label: str
) -> None:
    lines = split("".join(f"line {i} {'x' * (i % 7)}\n" for i in range(60)), cache=False)
    layout = pipeline_module._Layout(lines, 0)
    layout.label = label
    plan: list[Keep | Summary] = []
    for (start, end), summary in zip(pairwise(sorted({0, 60, *cuts})), summaries, strict=False):
        if summary:
            plan.append(Summary(("[summary]",), start, end))
        elif end - start > 1:
            plan.append(Keep(start + 1, end))
    pieces = pipeline_module._pieces(plan, lines, layout)
    total = pipeline_module._total(pieces, layout)
    expected = pipeline_module._within(*total, max_chars, max_rows)
    assert pipeline_module._fits(pieces, layout, max_chars, max_rows) == expected
    assert pipeline_module._fits(iter(pieces), layout, max_chars, max_rows) == expected


@settings(max_examples=200, deadline=None)
@given(
    priorities=st.lists(st.integers(0, 3), min_size=1, max_size=240)
    | st.lists(st.integers(0, 3), min_size=100, max_size=240),
    top=st.integers(0, 239),
    max_chars=st.integers(0, 900),
    max_rows=st.sampled_from([0, 0, 5, 40]),
    direction=st.sampled_from(["head", "tail", "both"]),
)
def test_drop_by_priority_keeps_what_dropping_one_by_one_keeps(
    priorities: list[int], top: int, max_chars: int, max_rows: int, direction: str
) -> None:
    """The galloping search (its survivors sorted when few, picked by rank when many) keeps the
    protected pieces and the last `k` pieces of the drop order, for a `k` where they fit and the
    next one more does not (a plan's cost is not monotone in what it keeps: dropping a piece
    between two gaps merges their markers, so this is the property, not "the first fit when
    dropping one at a time")."""
    n = len(priorities)
    priorities[top % n] = 5  # one protected piece
    lines = split("".join(f"line {i} {'x' * (i % 9)}\n" for i in range(n)), cache=False)
    layout = pipeline_module._Layout(lines, 0)
    plan: list[Keep | Summary] = [Keep(i, i + 1, p) for i, p in enumerate(priorities)]
    pieces = pipeline_module._pieces(plan, lines, layout)
    got = pipeline_module._drop_by_priority(list(pieces), layout, max_chars, max_rows, direction)
    spans = [(p.start, p.end) for p in got]
    if pipeline_module._fits(pieces, layout, max_chars, max_rows):
        assert spans == [(p.start, p.end) for p in pieces]
        return
    order = pipeline_module._drop_sequence(pieces, max(priorities), direction, None)

    def survivors(kept: int) -> list[int]:
        going = set(order[: len(order) - kept])
        return [j for j in range(n) if j not in going]

    def fits(kept: int) -> bool:
        return pipeline_module._fits(
            [pieces[j] for j in survivors(kept)], layout, max_chars, max_rows
        )

    matches = [
        k
        for k in range(len(order) + 1)
        if [(pieces[j].start, pieces[j].end) for j in survivors(k)] == spans
    ]
    assert len(matches) == 1
    kept = matches[0]
    if fits(0):
        assert fits(kept)
        assert kept == len(order) or not fits(kept + 1)
    else:
        assert kept == 0


# json reducer: the lowest weight of each line ----------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(1, 40),
    ranges=st.lists(
        st.tuples(st.integers(0, 40), st.integers(0, 40), st.integers(-50, 0)), max_size=12
    ),
)
def test_json_sweep_gives_each_line_its_lowest_weight(
    n: int, ranges: list[tuple[int, int, int]]
) -> None:
    lowered = [(min(a, n), min(max(a, b), n), float(w)) for a, b, w in ranges]
    lowered = [(a, b, w) for a, b, w in lowered if a < b]
    starts, values = json._lowest(list(lowered), n)
    assert starts[0] == 0 and starts == sorted(set(starts))
    for i in range(n):
        expected = min([w for a, b, w in lowered if a <= i < b], default=json.TOP)
        assert values[bisect_right(starts, i) - 1] == expected


# outline reducer: the guarded scan ---------------------------------------------------------------

_OUTLINE_PIECES = [
    "", " ", "    ", "\t", "12\t", "  7→", "# ", "## Title", "NAME", "DESCRIPTION", "class ",
    "export ", "default ", "abstract ", "interface ", "struct ", "enum ", "def ", "async ",
    "function ", "fn ", "func ", "pub ", "pub(crate) ", "static ", "sub ", "proc ", "type ",
    "__all__ = ", "MAX_SIZE = ", "x", "Rebase", "text", ":", "=", "(", ")", "object", "module",
]  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(
    lines=st.lists(st.lists(st.sampled_from(_OUTLINE_PIECES), max_size=5).map("".join), max_size=25)
)
def test_outline_guard_turns_away_no_outline_line(lines: list[str]) -> None:
    from klipui.shrink.reducers import outline

    text = "\n" + "\n".join(lines)
    unguarded = re.compile(
        outline._OUTLINE_LINE.pattern.replace(outline._GUARD, "", 1), outline._OUTLINE_LINE.flags
    )
    assert outline._GUARD in outline._OUTLINE_LINE.pattern
    found = [(m.start(), m.lastgroup) for m in outline._OUTLINE_LINE.finditer(text)]
    assert found == [(m.start(), m.lastgroup) for m in unguarded.finditer(text)]


@settings(max_examples=150, deadline=None)
@given(
    lines=st.lists(
        st.lists(st.sampled_from(_OUTLINE_PIECES), max_size=5).map("".join), max_size=25
    ),
    ending=st.sampled_from(["", "\n"]),
)
def test_outline_lines_found_in_one_pass_equal_each_line_read_alone(
    lines: list[str], ending: str
) -> None:
    """The whole-text pass (the first line matched alone, the text not copied) finds the kinds
    each line matched on its own has."""
    from klipui.shrink.reducers import outline

    text = "\n".join(lines) + (ending if lines else "")
    split_text = split(text, cache=False)
    expected: dict[str, list[int]] = {kind: [] for kind in outline._KINDS}
    for i, line in enumerate(split_text.lines):
        m = outline._OUTLINE_LINE.match("\n" + line)
        if m is not None:
            expected[m.lastgroup or ""].append(i)
    assert outline._find_lines(text, split_text.starts) == expected


@settings(max_examples=150, deadline=None)
@given(
    directories=st.lists(
        st.lists(st.sampled_from(["a", "b", "ab", "", "."]), max_size=4).map("/".join),
        max_size=8,
    )
)
def test_tree_common_root_is_the_parts_every_directory_shares(directories: list[str]) -> None:
    parts = [d.split("/") for d in directories if d and d != "."]
    shared: list[str] = parts[0] if parts else []
    for other in parts[1:]:
        k = 0
        while k < min(len(shared), len(other)) and shared[k] == other[k]:
            k += 1
        shared = shared[:k]
    assert tree._common_root(directories) == "/".join(shared)


# salience: a scan reused for the same lines, hint and budget ------------------------------------


def test_salience_scores_are_reused_as_copies() -> None:
    from klipui.shrink import salience

    text = "".join(f"step {i} ok\n" for i in range(200)) + "error: disk full\nexit status 1\n"
    lines = split(text, cache=False)
    hint = Hint(tool="bash")
    first = salience.Scores(lines, hint, 2000)
    expected = dict(first.score)
    first.score.clear()  # what `order` does to its copy must not reach the next one
    again = salience.Scores(lines, hint, 2000)
    assert again.score == expected and again.score is not first.score
    assert salience.Scores(lines, Hint(tool="read"), 2000).score != expected


# long lines by windows, on real outputs ------------------------------------------------------

_TUNED = [case for case in corpus_cases() if part_of(case.name) == "tuned"]


@pytest.mark.parametrize("room", [40, 200, json.LONG_LINE])
def test_long_lines_by_windows_equal_every_line_measured_on_the_corpus(room: int) -> None:
    for case in _TUNED:
        lines = split((case / "output.txt").read_text(encoding="utf-8"), cache=False)
        expected = [i for i, line in enumerate(lines.lines) if len(line) > room]
        assert long_lines(lines, room) == expected, case.name


def test_tree_sections_as_columns_equal_the_line_by_line_reading_on_the_corpus() -> None:
    for case in _TUNED:
        text = (case / "output.txt").read_text(encoding="utf-8")
        lines = split(text, cache=False)
        if sum(1 for i in range(len(lines)) if tree._is_section(lines.lines, i)) < 3:
            continue
        groups = tree._sections(lines)
        found = _section_rows(groups)
        assert found == _sections_by_loop(lines.lines), case.name


class _KeptPlan:
    """A reducer from elsewhere that returns the same list every time."""

    name = "kept"

    def __init__(self) -> None:
        self.plan: list[Keep | Summary] = [
            Keep(0, 5, 2),
            Summary(("[middle]",), 5, 195),
            Keep(195, 200, 1),
        ]

    def detect(self, text: str, hint: Hint) -> bool:
        return True

    def reduce(self, text: str, hint: Hint, budget: Budget) -> list[Keep | Summary]:
        return self.plan


def test_a_plan_is_read_once_by_the_pipeline_but_a_kept_one_is_left_whole() -> None:
    """The pipeline empties a built-in reducer's plan as it costs it (fewer live objects); the
    list a reducer from elsewhere returns is copied first, so one that keeps it finds it whole."""
    text = "".join(f"row {i} of a listing\n" for i in range(200))
    reducer = _KeptPlan()
    before = list(reducer.plan)
    budget = Budget(max_chars=400)
    first = shrink(text, Hint(), budget, only=["kept"], extra=[reducer])
    again = shrink(text, Hint(), budget, only=["kept"], extra=[reducer])
    assert reducer.plan == before
    assert first.strategy == again.strategy == "kept"
    assert first.content == again.content
    plan = tree.reduce(text.replace("row ", "src/a/row"), Hint(), budget)
    assert plan
    lines = split(text.replace("row ", "src/a/row"), cache=False)
    pieces = pipeline_module._pieces(plan, lines, pipeline_module._Layout(lines, 0))
    assert plan == [] and pieces


# salience: key=value pairs and numbers read from the whole text ---------------------------------

_PAIR_PIECES = [
    "a", "b=", "=", "x1", " ", ",", "é", "-", ".", "_k", "=v", "\n", "0", "1.5", "!", "a" * 45,
    "b" * 85, "²", "٣", "\t", "status=200", "k=v=w", ";", "&",
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PAIR_PIECES), max_size=20).map("".join))
def test_salience_pairs_read_at_each_equals_sign_equal_the_whole_text_scan(text: str) -> None:
    assert salience._pairs_at_equals(text) == salience._PAIR.findall(text)
    assert salience._pairs(text) == salience._PAIR.findall(text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(_PAIR_PIECES), max_size=8).map("".join), max_size=12))
def test_salience_numbers_of_joined_lines_equal_each_line_alone(lines: list[str]) -> None:
    lines = [line.replace("\n", "") for line in lines]
    indices = list(range(0, len(lines), 2))
    expected = [salience._COUNT.findall(lines[i]) for i in indices]
    assert salience._numbers_of(lines, indices) == expected


def test_salience_pairs_and_numbers_on_the_corpus() -> None:
    for case in _TUNED:
        text = (case / "output.txt").read_text(encoding="utf-8")
        assert salience._pairs_at_equals(text) == salience._PAIR.findall(text), case.name
        lines = split(text, cache=False).lines
        indices = list(range(len(lines)))
        expected = [salience._COUNT.findall(line) for line in lines]
        assert salience._numbers_of(lines, indices) == expected, case.name


def test_tests_scan_or_setup_guard_turns_away_no_line_on_the_corpus() -> None:
    plain = line_regex(
        "^(?:" + tests._SCAN.pattern[1:] + "|" + tests._SETUP_OR_LEADING.pattern[1:] + ")"
    )
    assert tests._NOT_TEST_WORD in tests._SCAN_OR_SETUP.pattern
    for case in _TUNED:
        lines = Lines((case / "output.txt").read_text(encoding="utf-8"))
        assert lines.hits(tests._SCAN_OR_SETUP) == lines.hits(plain), case.name


_SUMMARY_EVERY_START = re.compile(
    r"\b\d[\d,.]*\s*%?\s+[A-Za-z][\w()+-]*(?:\s+[A-Za-z][\w()+-]*)?\s*(?:,|;|\band\b|\|)"
    r".{0,60}?\b\d[\d,.]*\s*%?\s+[A-Za-z]"
    r"|(?i:\b\d[\d,.]*\s+(?:tests?|passed|failed|failures?|errors?|warnings?|skipped|problems?"
    r"|issues?|files?|packages?|items?|checks?|examples?|specs?|suites?|assertions?|cases?"
    r"|vulnerabilit\w+|commits?|insertions?|deletions?|changes?|modules?|crates?|targets?"
    r"|lines?|records?|rows?)\b(?!=))|(?i:\b(?:total|found|done)\b.*\d)"
)
"""The summary pattern as it was: a number tried from every digit at a word boundary."""


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="0123456789,. %\t\rxaEtests|;and", max_size=80))
def test_summary_numbers_tried_once_a_run_find_the_same_lines(line: str) -> None:
    assert bool(salience._SUMMARY.search(line)) == bool(_SUMMARY_EVERY_START.search(line))


def test_summary_numbers_tried_once_a_run_on_corpus_lines() -> None:
    for case in corpus_cases():
        for line in (case / "output.txt").read_text(encoding="utf-8").splitlines()[:3000]:
            expected = bool(_SUMMARY_EVERY_START.search(line[:2000]))
            assert bool(salience._SUMMARY.search(line[:2000])) == expected, line
