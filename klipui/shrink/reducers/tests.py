"""Test-runner output: every failure (header, message, location) and every summary line.

Handles pytest, unittest, mocha, jest/vitest, cargo test, go test, the node test runner (TAP),
Maven Surefire/JUnit and rspec. Failures are found anywhere in the output; passing tests and
progress are dropped.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from klipui.shrink.plan import Budget, Hint, Plan
from klipui.shrink.reducers._patterns import (
    FLOOR,
    HIGH,
    LOW,
    MID,
    TABLE_PRIORITY,
    TOP,
    Fitter,
    Lines,
    Mark,
    Marks,
    command_matches,
    finish,
    line_regex,
    lines_containing,
    lines_holding,
    sample,
    table_roles,
)

name = "tests"

_COMMAND = re.compile(
    r"\b(?:pytest|py\.test|unittest|tox|nox|jest|vitest|mocha|ava|tap|cargo\s+(?:test|nextest)"
    r"|go\s+test|npm\s+(?:t|test|run\s+test\S*)|yarn\s+test|pnpm\s+test|rspec|phpunit|mvn|gradle"
    r"|gradlew|dotnet\s+test|ctest|node\s+--test|bun\s+test|deno\s+test|test)\b"
)

_UNIT_RESULT_END = r"\s+\S+\s+(?:\(?[\d.]+m?s\)?|\[(?:build|setup) failed\])"
"""What follows `ok` or `FAIL` in a unit's (a package's) result line: its name and time."""
_SUMMARY = line_regex(
    r"^(?:"
    r"=+ .*\b\d+ (?:passed|failed|errors?|skipped|xfailed|xpassed|deselected)\b.*=+"
    r"|=+ (?:no tests ran|short test summary info)\b.*"
    r"|(?:FAILED|ERROR) \S+"
    r"|\s*\d+ (?:passing|failing|pending)\b"
    r"|test result: (?:ok|FAILED)\."
    r"|error: (?:\d+ targets? failed|test failed)"
    r"|(?:\[\w+\] )?Tests run: \d+, Failures: \d+, Errors: \d+, Skipped: \d+$"
    r"|\[(?:ERROR|INFO)\] (?:BUILD (?:FAILURE|SUCCESS)|Failures: ?$|Errors: ?$)"
    r"|\[ERROR\] {3}\S.*"
    r"|BUILD (?:FAILURE|SUCCESS(?:FUL)?|FAILED)\b"
    r"|\s*Test (?:Suites|Files):? .*\d"
    r"|\s*Tests:? .*\d+ (?:passed|failed|total)"
    r"|Snapshots: .*\d"
    r"|[#ℹ] (?:tests|suites|pass|fail|cancelled|skipped|todo) \d+"
    r"|(?:ok|FAIL)" + _UNIT_RESULT_END + r"|!{3,} .* !{3,}"
    r"|FAIL$"
    r"|Ran \d+ tests? in "
    r"|(?:OK|FAILED) \(.*\)"
    r"|\d+ examples?, \d+ failures?"
    r"|rspec \./\S+"
    r"|Tests: \d+, Assertions: \d+"
    r"|FAILURES!$"
    r"|\d+ (?:passed|failed)(?:, \d+ \w+)*(?: in [\d.]+m?s)?$"
    r")",
)

_HEADER = line_regex(
    r"^(?:"
    r"(?P<pytest>_{3,} \S.* _{3,})$"
    r"|(?P<mocha> {2}\d+\) \S.*)"
    r"|(?P<cargo>---- \S[^\n]* stdout ----)$"
    r"|(?P<go>\s*--- FAIL: \S+)"
    r"|(?P<tap>\s*not ok \d+\b.*)"
    r"|(?P<jest>\s*● \S.*)"
    r"|(?P<vitest>\s*FAIL\s+\S.* > .*)"
    r"|(?P<unittest>(?:FAIL|ERROR): \w+ \(.*\))"
    r")",
)

_SUREFIRE = line_regex(r"^(?:\[ERROR\] )?[^\s<][^<\n]* <<< (?:FAILURE|ERROR)!$")
_SUREFIRE_END = re.compile(r" <<< (?:FAILURE|ERROR)!$", re.M)
_SUREFIRE_MARK = " <<< "
"""Surefire's failure header, found from its end (the lines holding ` <<< ` among those holding
`FAIL` or `ERROR`, which other rules search for anyway) and then checked whole: led by its start
it would read every line to the end."""

_SECTION = line_regex(r"^(?:={5,}|-{5,} Captured|failures:$|Failures:$)")

_FAIL_LINE = line_regex(
    r"^(?:\s*(?:[✗×✕✖]|FAIL(?:ED)?\b|not ok\b)|.*\s(?:FAILED|ERROR)\s*(?:\[\s*\d+%\])?$"
    r"|test \S.* \.\.\. FAILED$|.*<<< (?:FAILURE|ERROR)!$)",
)
_PASS_LINE = re.compile(
    r"^(?:\s*(?:[✓√✔]|PASS(?:ED)?\b|ok\s)|.*\sPASSED\b|test \S.* \.\.\. ok$|\s*--- PASS:"
    r"|\[INFO\] Tests run: \d+, Failures: 0)",
)
_STRONG = re.compile(
    r"^(?:=+ .*\d+ (?:passed|failed)|\s*\d+ (?:passing|failing)|test result: "
    r"|(?:\[\w+\] )?Tests run:"
    r"|\s*Tests:? .*\d+ (?:passed|failed)|# (?:pass|fail) \d+|(?:ok|FAIL)\s+\S+\s+[\d.]+s"
    r"|Ran \d+ tests? in |\d+ examples?, \d+ failures?|=+ FAILURES =+|Test Suites:"
    r"|\d+ (?:passed|failed)\b|Failed examples:|FAILED \(|Ran \d+ tests?)"
)

_MESSAGE = re.compile(
    r"^\s*(?:[\w.$]*(?:Error|Exception|Failure|Failed|Fault)\b[:\s!]|Error:|panic:"
    r"|thread '.*' panicked"
    r"|.*\bpanicked at\b|note: test did not panic|AssertionError|assertion\b.*\bfailed"
    r"|(?:error|message):\s|Expected\b|expect\(|E {3})"
)
_DETAIL = re.compile(
    r"^\s*(?:left|right|expected|actual|received|Expected|Received|Difference|diff)\s*:"
    r"|^\s*[+-] (?:expected|actual)\b|^\s*>\s*\d+\s*\||^\s*❯ \S+:\d+|^>\s"
)
_LOCATION = re.compile(r"^\s*(?:\S+\.\w+:\d+(?::\d+)?:?(?:\s|$)|location:|at \S+:\d+|--> )")
_FRAME = re.compile(r"^\s*(?:at\s|\d+: |\t?at |File \"|from \S+:\d+|\S+\.go:\d+)")
_FOREIGN = re.compile(
    r"node_modules|node:internal|internal/|<anonymous>|/rustc/|\b(?:core|std|alloc)::"
    r"|java\.base/|org\.junit|org\.apache\.maven|sun\.reflect|jdk\.internal|site-packages"
    r"|/usr/lib/|runtime/|testing\.go|__rust_|rust_begin_unwind"
)

_FAILING = re.compile(
    r"\b[1-9]\d* (?:failed|failing|failures?|errors?)\b|(?:Failures|Errors): [1-9]|# fail [1-9]"
    r"|FAIL|ERROR|[Ee]rror:|✗|×|✕|✖|not ok|ℹ (?:fail|cancelled) [1-9]"
)
"""A summary line that reports trouble outranks one that reports success."""
_PANIC = line_regex(r"^(?:panic: |fatal error: |[\w./-]+\.go:\d+:\d+: )")

_SCAN_GUARD = (
    r"(?=[ \t]*(?:[-●F\d]|not ok|Test)|[_=\[#!ℹ]|ERROR|OK |ok|test result: |error: |BUILD "
    r"|Snapshots: |Ran |rspec |failures:|panic: |fatal error: )"
)
"""What every line `_SCAN` matches starts with (after white space, for the branches that allow
it): a cheap test that turns most lines away before the branches are tried one by one."""
_GO_LOCATION = ".go:"
"""The literal every go location line (the last branch of `_PANIC`) holds: those lines are found
by substring search, as that branch would read every line that starts with a word."""
_SCAN = line_regex(
    "^"
    + _SCAN_GUARD
    + "(?:"
    + re.sub(r"\(\?P<\w+>", "(?:", _HEADER.pattern[4:-1])
    + "|"
    + _SUMMARY.pattern[4:-1]
    + "|"
    + _SECTION.pattern[4:-1]
    + "|panic: |fatal error: )"
)
"""Headers, summaries, sections and panics (but go locations) in one pass over the text; which
one a line is, `_kind` tells."""


def _kind(line: str) -> str:
    """The first of header (by runner), "summary", "section" and "panic" that `line` is."""
    header = _HEADER.match(line)
    if header is not None:
        return header.lastgroup or ""
    if _SUMMARY.match(line):
        return "summary"
    return "section" if _SECTION.match(line) else "panic"


_SETUP = re.compile(
    r"(?:platform \S+ -- Python .*|rootdir: .*|(?:collecting \.\.\. )?collected \d+ items?.*"
    r"|running \d+ tests?$|Running \S.*\(target/\S+\)$|Test run started.*)"
)
_SETUP_LINE = line_regex("^" + _SETUP.pattern)
"""`_SETUP` for a whole-text scan: each branch starts with a literal, so a newline-led scan
turns most lines away at their first character."""
_SKIPPED = re.compile(
    r"(?:(?:SKIPPED|XFAIL|XPASS|SKIP) .*|\S+::\S+ (?:SKIPPED|XFAIL|XPASS)\b.*"
    r"|test \S+ \.\.\. ignored.*|\s*--- SKIP: .*)"
)
_SKIP_WORDS = ("SKIP", "XPASS")
"""What a run that passes still says: where it ran, how many tests it collected, which it
skipped (kept when there is room, below every failure). Skips are found by plain substring
search first, as their pattern would read every line to its end; `XFAIL` lines are among the
lines holding `FAIL`, which are searched once for both, and cargo's `test x ... ignored` among
the lines of `_LEADING`."""
_FAIL = "FAIL"
_FAIL_WORDS = ("ERROR",)
_LEADING = line_regex(r"^(?:[ \t]*(?:[✗×✕✖]|not ok)|test \S+ \.\.\. ignored)")
"""With `_FAIL`, `_FAIL_WORDS` hold or `_LEADING` starts every line `_FAIL_LINE` matches (a
`<<< FAILURE!` or `<<< ERROR!` holds one of the words)."""
_SETUP_OR_LEADING = line_regex("^(?:" + _SETUP_LINE.pattern[1:] + "|" + _LEADING.pattern[1:] + ")")
"""Both in one pass over the text (few lines match either: each is then told apart)."""
_NOT_TEST_WORD = "(?!t(?!est ))"
"""A line that starts with a lower-case `t` matches `_SCAN` or `_SETUP_OR_LEADING` only as
`test ` (`test result: `, `test x ... ignored`): a verbose run's `tests/test_x.py::test_y PASSED`
lines are turned away at their second character instead of being tried by every branch."""
_SCAN_OR_SETUP = line_regex(
    "^" + _NOT_TEST_WORD + "(?:" + _SCAN.pattern[1:] + "|" + _SETUP_OR_LEADING.pattern[1:] + ")"
)
"""`_SCAN` and `_SETUP_OR_LEADING` in one pass over the text (each pass reads every line
start): the few lines it finds are then matched by each alone."""

_MAX_BLOCK = 400

HEADLINE = HIGH - 2
"""A failure's header ranks just below its message: with little room, every failure's message
comes first (the summary usually names the tests already), then the headers."""


def detect(text: str, hint: Hint) -> bool:
    """A summary line of a test runner plus pass/fail lines, or a test command with results."""
    lines = sample(text)
    if len(lines) < 3:
        return False
    strong = passes = fails = 0
    for line in lines:
        if _STRONG.match(line):
            strong += 1
        elif _PASS_LINE.match(line):
            passes += 1
        elif _FAIL_LINE.match(line):
            fails += 1
    if strong and passes + fails >= 1:
        return True
    if strong >= 2:
        return True
    if strong and command_matches(hint.command, _COMMAND):
        return True
    if command_matches(hint.command, _COMMAND) and passes + fails >= 2:
        return True
    return passes + fails >= 8 and passes + fails >= len(lines) * 0.3


def reduce(text: str, hint: Hint, budget: Budget) -> Plan | None:
    """Keep the summary lines and each failure, most important parts first."""
    lines = Lines(text)
    n = len(lines)
    if n == 0:
        return None
    priority = Marks()
    mark = priority.mark
    text_lines = lines.lines
    hits = lines.hits(_SCAN_OR_SETUP)
    scan = _SCAN.match
    found = {i: _kind(text_lines[i]) for i in hits if scan(text_lines[i])}
    for i in lines_containing(lines, (_GO_LOCATION,)):
        if i not in found and _PANIC.match(text_lines[i]):
            found[i] = "panic"
    searched = _Searched(lines, hits)
    headers, stops = _mark_found(lines, found, searched, mark)
    _mark_blocks(lines, headers, stops, priority)
    _mark_unit_output(text_lines, found, priority)
    for i in lines.hits(_LEVEL_LINE):
        if i not in priority:
            mark(i, HIGH - 5)
    _mark_fail_index(lines, bool(headers), searched, mark)
    for i in searched.setup():
        mark(i, MID - 5)
    skips = {*lines_holding(lines, _SKIP_WORDS), *searched.leading()}
    skips.update(i for i in searched.failing() if "XFAIL" in text_lines[i])
    for i in sorted(skips):
        if _SKIPPED.match(text_lines[i]):
            mark(i, LOW + 5)
    if not priority:
        return None
    for i, role in table_roles(lines).items():
        mark(i, TABLE_PRIORITY[role])  # a table (benchmarks, timings) keeps its header
    fitter = Fitter(lines, budget)
    fitter.add_marks(priority)
    return finish(fitter.plan(), n)


class _Searched:
    """Whole-text searches that several rules share, each run once."""

    def __init__(self, lines: Lines, hits: list[int] | None = None) -> None:
        self.lines = lines
        self._hits = hits
        """The lines `_SCAN_OR_SETUP` matches, when already searched."""
        self._fail: list[int] | None = None
        self._errors: list[int] | None = None
        self._starts: tuple[list[int], list[int]] | None = None

    def failing(self) -> list[int]:
        """The lines holding `FAIL`."""
        if self._fail is None:
            self._fail = lines_holding(self.lines, (_FAIL,))
        return self._fail

    def errors(self) -> list[int]:
        """The lines holding one of `_FAIL_WORDS`."""
        if self._errors is None:
            self._errors = lines_holding(self.lines, _FAIL_WORDS)
        return self._errors

    def surefire(self) -> list[int]:
        """The lines holding `_SUREFIRE_MARK` among those holding `FAIL` or `ERROR`: a
        Surefire header ends with `<<< FAILURE!` or `<<< ERROR!`, so it is among them (no
        search of its own)."""
        text_lines = self.lines.lines
        candidates = sorted({*self.failing(), *self.errors()})
        return [i for i in candidates if _SUREFIRE_MARK in text_lines[i]]

    def leading(self) -> list[int]:
        """The lines `_LEADING` matches."""
        return self._setup_or_leading()[1]

    def setup(self) -> list[int]:
        """The lines `_SETUP_LINE` matches."""
        return self._setup_or_leading()[0]

    def _setup_or_leading(self) -> tuple[list[int], list[int]]:
        if self._starts is None:
            text_lines = self.lines.lines
            if self._hits is None:
                hits = self.lines.hits(_SETUP_OR_LEADING)
            else:
                setup_or_leading = _SETUP_OR_LEADING.match
                hits = [i for i in self._hits if setup_or_leading(text_lines[i])]
            self._starts = (
                [i for i in hits if _SETUP_LINE.match(text_lines[i])],
                [i for i in hits if _LEADING.match(text_lines[i])],
            )
        return self._starts


def _mark_found(
    lines: Lines, found: dict[int, str], searched: _Searched, mark: Mark
) -> tuple[list[tuple[int, str]], list[int]]:
    """Mark the summaries, sections and panics found; the failure headers (sorted) and the
    lines where a failure block stops."""
    text_lines = lines.lines
    summary_lines: list[int] = []
    sections: list[int] = []
    headers: list[tuple[int, str]] = []
    for i, kind in found.items():
        if kind == "summary":
            summary_lines.append(i)
            line = text_lines[i]
            if _FAILING.search(line):
                mark(i, TOP)
            else:
                mark(i, LOW + 5 if _GO_PACKAGE_OK.match(line) else MID + 10)
        elif kind == "section":
            sections.append(i)
            mark(i, MID)
        elif kind == "panic":
            mark(i, HIGH)
        else:
            headers.append((i, kind))
    for i in searched.surefire():
        line = text_lines[i]
        if _SUREFIRE_END.search(line) and _SUREFIRE.match(line) and "Tests run:" not in line:
            headers.append((i, "surefire"))
    headers.sort()
    stops = sorted({i for i, _ in headers} | set(summary_lines) | set(sections))
    return headers, stops


def _mark_fail_index(lines: Lines, has_headers: bool, searched: _Searched, mark: Mark) -> None:
    """Mark the one-line index of the failures (`test x ... FAILED`, `path::test FAILED`):
    each names a failing test, which the summary does not always repeat. Without failure
    blocks, each such line keeps a few lines after it."""
    text_lines = lines.lines
    n = len(text_lines)
    if not has_headers:
        for i in lines.hits(_FAIL_LINE):
            mark(i, MID)
            for j in range(i + 1, min(n, i + 6)):
                mark(j, LOW)
        return
    candidates = {*searched.failing(), *searched.errors(), *searched.leading()}
    for i in sorted(candidates):
        if _FAIL_LINE.match(text_lines[i]):
            mark(i, MID + 10)


def _mark_blocks(
    lines: Lines, headers: list[tuple[int, str]], stops: list[int], marks: Marks
) -> None:
    """Give each line of each failure block its priority."""
    text_lines = lines.lines
    n = len(text_lines)
    copies = _middle_copies(text_lines, headers)
    for start, kind in headers:
        k = bisect_right(stops, start)
        end = stops[k] if k < len(stops) else n
        end = min(end, start + _MAX_BLOCK, n)
        if start in copies:
            marks.mark(start, HEADLINE - _COPY_DEMOTION)
        else:
            _mark_block(text_lines, start, end, kind, marks)


_NUMBERS = re.compile(r"\d+")
_COPY_DEMOTION = MID - LOW
"""How far the header of a copy between the first and last of a repeated failure ranks below a
distinct failure's header (the copy's body is not marked: the first and last show it)."""


def _middle_copies(lines: list[str], headers: list[tuple[int, str]]) -> set[int]:
    """The headers of failures that repeat an earlier failure's shape (header numbers masked)
    and are not the last of that shape: the first and the last of a repeated failure say what
    the copies between them say, so each distinct failure comes before them."""
    keys = [_NUMBERS.sub("#", lines[start]) for start, _ in headers]
    last = {key: k for k, key in enumerate(keys)}
    seen: set[str] = set()
    copies: set[int] = set()
    for k, key in enumerate(keys):
        if key in seen and last[key] != k:
            copies.add(headers[k][0])
        seen.add(key)
    return copies


def _mark_block(lines: list[str], start: int, end: int, kind: str, marks: Marks) -> None:
    """Give each line of the failure block `[start, end)` its priority."""
    mark = marks.mark
    mark(start, HEADLINE)
    if kind == "surefire" or kind == "mocha":
        end = _until_blank_run(lines, start + 1, end, 2 if kind == "mocha" else 1)
    elif kind == "go" or kind == "tap":
        end = _until_dedent(lines, start, end, yaml=kind == "tap")
    if kind == "pytest":
        _mark_pytest(lines, start + 1, end, marks)
        return
    if kind == "go":
        _mark_go_run(lines, start, mark)
    _mark_body(lines, start + 1, end, kind == "go", mark)


_SOURCE_LABELS = ("Failure/Error:",)
"""Labels of the failing source line at the head of a failure block (RSpec's)."""


def _mark_body(lines: list[str], start: int, end: int, go: bool, mark: Mark) -> None:
    """A failure block of any runner but pytest: messages, details, the first user frame
    and the first location over the rest."""
    seen_message = False
    seen_location = False
    seen_frame = -1  # the first user frame
    after_panic = False
    after_source = False
    for i in range(start, end):
        line = lines[i]
        stripped = line.strip()
        if not stripped:
            mark(i, FLOOR)
            continue
        if go and _GO_MESSAGE.match(line):
            mark(i, HIGH if not seen_message else MID)
            seen_message = True
            continue
        if after_panic:
            mark(i, HIGH - 1)
            after_panic = False
            continue
        if "panicked at" in line:
            mark(i, HIGH)
            after_panic = True
            continue
        if _FRAME.match(line):
            if seen_frame < 0 and not _FOREIGN.search(line):
                mark(i, MID)
                seen_frame = i
            elif seen_frame >= 0 and seen_frame == i - 1 and stripped.startswith("at "):
                mark(i, MID)  # the location line under a Rust frame
            else:
                mark(i, FLOOR)
            continue
        if _MESSAGE.match(line):
            mark(i, HIGH if not seen_message else MID)
            seen_message = True
            continue
        if _DETAIL.match(line):
            mark(i, MID)
            continue
        if _LOCATION.match(line):
            mark(i, MID if not seen_location else LOW)
            seen_location = True
            continue
        if stripped.startswith(_SOURCE_LABELS):
            mark(i, LOW)  # the failing source line; what went wrong follows it
            after_source = True
            continue
        mark(i, MID if after_source and not seen_message else LOW)
        seen_message = seen_message or after_source


_LEVEL_LINE = line_regex(r"^(?:ERROR|Error|error|FATAL|fatal): \S")
"""A line that opens with a level word of trouble, outside every failure block: a plugin's or
the runner's own error (`ERROR: Coverage failure: ...`), as telling as a failure's message."""
_UNIT_FAILED = re.compile("FAIL" + _UNIT_RESULT_END)
"""A unit's result line (`FAIL <package> <time>`): what the unit printed comes before it."""
_UNIT_RESULT = re.compile(r"(?:ok|FAIL|\?)\s+\S+\s")
_MAX_UNIT_OUTPUT = 200


def _mark_unit_output(lines: list[str], found: dict[int, str], marks: Marks) -> None:
    """Units (packages) that print one result line each: the lines a failing unit printed,
    back to the previous unit's result line, are its failure block (its first line the
    message when nothing else says so), above the passing units' result lines."""
    results = sorted(i for i, kind in found.items() if kind == "summary")
    for i in results:
        if not _UNIT_FAILED.match(lines[i]):
            continue
        start = i
        while start > 0 and i - start < _MAX_UNIT_OUTPUT:
            above = lines[start - 1]
            if _UNIT_RESULT.match(above) or found.get(start - 1) in ("summary", "section"):
                break
            start -= 1
        if start == i:
            continue
        # the block's first line, when no rule ranked it before this one: its message
        opens = start not in marks and lines[start].strip() and not _FRAME.match(lines[start])
        _mark_body(lines, start, i, True, marks.mark)
        if opens:
            marks[start] = max(marks.get(start, 0), MID)


_GO_PACKAGE_OK = re.compile(r"ok\s+\S+\s")
"""`go test ./...`: one line a passing package, many of them; a failing one says FAIL."""
_GO_RUN = re.compile(r"^\s*=== (?:RUN|CONT|PAUSE)\s+(\S+)")
_GO_MESSAGE = re.compile(r"^\s+\S+\.go:\d+: ")


def _mark_go_run(lines: list[str], header: int, mark: Mark) -> None:
    """`go test -v` prints a test's messages between its `=== RUN` and `--- FAIL` lines."""
    test = lines[header].split("--- FAIL:", 1)[1].split()[0]
    first = True
    for j in range(header - 1, max(-1, header - 300), -1):
        m = _GO_RUN.match(lines[j])
        if m and m.group(1) == test:
            break
        if _GO_MESSAGE.match(lines[j]) or lines[j].lstrip().startswith("panic:"):
            mark(j, MID)
            first_line = j
            first = False
    if not first:
        mark(first_line, HIGH)


_PYTEST_LOCATION = re.compile(r"^\S+:\d+: ")
_CHAINED = ("The above exception was the direct cause", "During handling of the above exception")
"""Python's words between the exceptions of a chain."""


def _mark_pytest(lines: list[str], start: int, end: int, marks: Marks) -> None:
    """A pytest failure section: the final exception and its location first, then the chain."""
    get = marks.get  # `Marks.mark` inlined: this loop reads every line of every section
    e_runs: list[int] = []
    locations: list[int] = []
    seen_locations: set[str] = set()
    previous_e = False
    for i in range(start, end):
        line = lines[i]
        if line.startswith(_CHAINED):
            priority = MID  # where one exception of a chain ends and the next begins
        elif line[:1] == "E" and (line[1:2] == " " or len(line) == 1):  # `E` alone or `E ...`
            if not previous_e:
                e_runs.append(i)
                priority = MID
            else:
                priority = LOW if line.strip() != "E" else FLOOR
            previous_e = True
        else:
            previous_e = False
            if ": " in line and _PYTEST_LOCATION.match(line):
                locations.append(i)
                # the same place again (recursion) adds nothing but its depth
                priority = LOW if line not in seen_locations else FLOOR
                seen_locations.add(line)
            elif line.startswith(">"):
                priority = LOW
            else:
                priority = FLOOR
        if get(i, -1) < priority:
            marks[i] = priority
    if e_runs:
        marks.mark(e_runs[0], HIGH - 1)
        marks.mark(e_runs[-1], HIGH)
    own = next((i for i in locations if not _FOREIGN.search(lines[i])), None)
    if own is not None:
        marks.mark(own, MID)  # the first place in the user's code: the test's own line
    if locations:
        marks.mark(locations[-1], MID)


def _until_blank_run(lines: list[str], start: int, end: int, run: int) -> int:
    blanks = 0
    for i in range(start, end):
        if not lines[i].strip():
            blanks += 1
            if blanks >= run and i > start:
                return i
        else:
            blanks = 0
    return end


def _until_dedent(lines: list[str], header: int, end: int, yaml: bool) -> int:
    first = lines[header]
    indent = len(first) - len(first.lstrip())
    for i in range(header + 1, end):
        line = lines[i]
        if not line.strip():
            continue
        if yaml and line.strip() == "...":
            return i + 1
        if len(line) - len(line.lstrip()) <= indent:
            return i
    return end
