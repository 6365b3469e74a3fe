"""Stack traces: every exception message and cause, the user's frames; dependency frames dropped.

Handles Node (including `[cause]` chains and error properties), Python (chained tracebacks),
Java/Kotlin (`at a.b.C.m(File.java:12)`, `Caused by:`, `... 12 more`), Ruby, Go panics and Rust
backtraces. Frames in node_modules, site-packages, the standard library or the runtime count as
dependency frames: the first and last of each run stay to show the call shape.
"""

from __future__ import annotations

import itertools
import re

from klipui.shrink.plan import Budget, Hint, Plan
from klipui.shrink.reducers._patterns import (
    FLOOR,
    HIGH,
    LOW,
    MID,
    TOP,
    Fitter,
    Lines,
    Mark,
    Marks,
    finish,
    is_log_line,
    line_regex,
    lines_containing,
    named_union,
    sample,
    template,
)

name = "stacktrace"
describe = "exception messages, causes and user frames kept, dependency frames dropped"
overflow = "both"
blend = True
"""A trace is often one part of a longer output (a tool's report, a summary after it): its plan
joins salience's ranking even when it fits, so what it did not read can still be kept."""

_FRAME = line_regex(
    r"^(?:\s+at \S.*"
    r"|\s+File \".*\", line \d+.*"
    r"|\s+from \S+:\d+:in .*"
    r"|\s+\.\.\. \d+ (?:more|common frames omitted)"
    r"|\s+\d+:\s+(?:0x[0-9a-f]+ - )?\S.*"
    r"|\t/\S+\.go:\d+(?: \+0x[0-9a-f]+)?"
    r"|[\w./-]+\.[\w()*.]+\([0-9a-fx, .{}?]*\)"
    r"|\s*#\d+\s+(?:0x[0-9a-fA-F]+ in )?\S.*"
    r"|==\d+==\s+(?:at|by) 0x[0-9A-Fa-f]+: .*"
    r"|\s+at \S.* in \S+:line \d+"
    r"|\t\S.* called at \S+ line \d+"
    r")$",
)
"""Frames: JS/Java/.NET `at`, Python `File`, Ruby `from`, Java `... N more`, Rust `N: sym`, Go
`\tpath.go:N +0x..`, Go function lines, gdb/ASan/PHP `#N 0x.. in f file:line`, valgrind
`==pid==    at 0x..: f (file:line)`, Perl Carp `\tPkg::f(args) called at file line N`."""
_HEADER = line_regex(
    r"^(?:"
    r"Traceback \(most recent call last\):"
    r"|(?:Exception in thread \".*\" )?(?:[\w$]+\.)*\w*(?:Error|Exception|Throwable|Warning|Exit"
    r"|Interrupt|Failure|Panic)\b(?::.*)?"
    r"|\s*(?:Caused by|Suppressed): .*|Next [\w\\]+: .*"
    r"|\s*\[cause\]: .*"
    r"|\s*\[errors?\]: .*"
    r"|(?:Uncaught |Unhandled ).*"
    r"|panic: .*|fatal error: .*|goroutine \d+ \[.*\]:"
    r"|thread '[^']*'(?: \(\d+\))? panicked at .*"
    r"|\S+:\d+:in [`'].*': .*"
    r"|During handling of the above exception.*"
    r"|The above exception was the direct cause.*"
    r"|==\d+== ?(?:ERROR: \w+Sanitizer: .*|Invalid (?:read|write|free)\b.*|Conditional jump .*"
    r"|Use of uninitialised .*|Mismatched free.*|Syscall param .*|Source and destination .*"
    r"|[\d,]+ bytes in [\d,]+ blocks are .*lost.*|Process terminating .*|ERROR SUMMARY: .*"
    r"|(?:LEAK|HEAP) SUMMARY:|\s+definitely lost: .*)"
    r"|SUMMARY: \w+Sanitizer: .*"
    r"|(?:READ|WRITE) of size \d+ at .*"
    r"|(?:freed|previously allocated) by thread \S+ here:"
    r"|(?:Program|Thread \d+ .*) (?:received|terminated with) signal .*"
    r"|Thread \d+ \(.*\):"
    r"|Unhandled exception\. .*"
    r"|PHP (?:Fatal error|Warning|Notice): .*"
    r"|WARNING: ThreadSanitizer: .*"
    r"|\S+:\d+:\d+: runtime error: .*"
    r"|terminate called after throwing an instance of .*"
    r"|Fatal Python error: .*"
    r")$",
)
_FOREIGN = re.compile(
    r"node_modules|node:internal|\(internal/|\binternal/|\(<anonymous>\)|at <anonymous>$"
    r"|site-packages|dist-packages"
    r"|/usr/lib/|/usr/local/lib/|lib/python\d|<frozen |\bjava\.base/|\bat (?:java|javax|sun|jdk"
    r"|kotlin|kotlinx|scala|org\.junit|org\.springframework|org\.apache|reactor|io\.netty)\."
    r"|/rustc/|\b(?:std|core|alloc)(?:\[[0-9a-f]+\])?::|\b__rustc\b|/usr/local/go/|\bruntime\.|/gems/|/ruby/\d|<internal:"
    r"|\.\./sysdeps/|\.\./csu/|\./nptl/|libsanitizer|vgpreload_|\(in /usr/|\bin _start\b|\bSystem\."
    r"|\bMicrosoft\."
    r"|\(lib[\w+.-]*\.so[.\d]*\+0x|<null> <null>|(?:: | in )__\w+ \("
)
FRAME = _FRAME
"""A stack frame line, of any of the layouts above (for reducers that meet traces in logs)."""
HEADER = _HEADER
"""An exception header or cause line."""


def is_dependency_frame(line: str) -> bool:
    """Whether a frame line is in a dependency, the standard library or the runtime."""
    return _foreign(line, None)


_NOTICE = line_regex(
    r"^\s*\[?(?:warn|warning|error|fatal|critical|WARN|WARNING|ERROR|FATAL|CRITICAL|Warning|Error)\b",
)
_LEVELS = ("ERROR", "WARN", "FATAL", "CRITICAL", "SEVERE")
_LOGGED_NOTICE = re.compile(r"^\S.{0,60}?[\s\[|](?:WARN|WARNING|ERROR|FATAL|CRITICAL|SEVERE)\b")
"""A log record of level warning or worse (the level after a timestamp or logger name)."""
MESSAGE_LINES = 3
REPORT_LINES = 80
"""Lines after a header read as the details of its report."""
MAX_REPORTS = 1_000
"""Reports whose details are read (the first ones): the work stays bounded on huge logs."""
DETAIL = HIGH - 10
"""The first line of each kind in a report that is neither a frame nor a header (`Address
0x4a41818 is 8 bytes inside a block of size 24 free'd`): above the middle user frames."""
_COUNTED = re.compile(
    r"\b(?:reported|found|detected) [\d,]+ (?:warnings?|errors?|races?|leaks?|problems?)\b"
)
"""A closing count (`ThreadSanitizer: reported 2 warnings`)."""
_TOOL_PREFIX = re.compile(r"^==\d+==|^--\d+--")
"""valgrind's `==PID==` prefix: a line with nothing after it is blank."""
_JAVA_FRAME = re.compile(r"^\s+at ((?:[a-z][\w$]*\.){2})[\w$.<>]+\(")
_MORE = re.compile(r"^\s+\.\.\. \d+ ")
_SCAN = named_union(header=_HEADER, frame=_FRAME, notice=_NOTICE)
"""Exception headers, frames and warning/error notices in one pass (named groups)."""
_PROPERTY = re.compile(r"^\s+[\w$]+: .+$|^\s*[{}],?$")
_LOCATION = re.compile(r"^(?:/|[A-Za-z]:\\|\./)?\S+\.\w+:\d+$")


def detect(text: str, hint: Hint) -> bool:
    """An exception header followed by frames, in output that is not mainly a log, or a log
    that a crash ends (a trace in its last lines: the program died of it)."""
    lines = sample(text)
    headers = frames = logged = 0
    for line in lines:
        if _TEST_RUN.match(line):
            return False  # panics inside a test run: the tests reducer reads those
        if _FRAME.match(line):
            frames += 1
        elif _HEADER.match(line):
            headers += 1
        elif is_log_line(line):
            logged += 1
    if not headers or frames < 3:
        return False
    return logged < len(lines) * 0.3 or _ends_in_trace(lines)


_TEST_RUN = re.compile(r"^(?:test result: |running \d+ tests?$)")
"""cargo test's own lines."""
TAIL_AFTER_TRACE = 3
"""Non-blank lines a runtime may print after the trace that ended it (`Node.js v20.1.0`)."""


def _ends_in_trace(lines: list[str]) -> bool:
    """Whether the last lines are a trace: a header, at least three frames after it, and at
    most `TAIL_AFTER_TRACE` non-blank lines after the last frame."""
    after = 0
    frames = 0
    for line in reversed(lines[-200:]):
        if _FRAME.match(line):
            frames += 1
        elif _HEADER.match(line):
            if frames >= 3:
                return True
        elif is_log_line(line):
            return False
        elif not frames and line.strip():
            after += 1
            if after > TAIL_AFTER_TRACE:
                return False
    return False


def reduce(text: str, hint: Hint, budget: Budget) -> Plan | None:
    """Messages and causes first, then the user's frames, then notices before the crash."""
    lines = Lines(text)
    n = len(lines)
    if n == 0:
        return None
    text_lines = lines.lines
    priority = Marks()
    mark = priority.mark

    headers: list[int] = []
    frames: list[int] = []
    notices: list[int] = []
    found = {"header": headers, "frame": frames, "notice": notices}
    for i, m in lines.scan(_SCAN):
        found[m.lastgroup or "notice"].append(i)
    logged = [
        i
        for i in lines_containing(lines, _LEVELS)
        if _LOGGED_NOTICE.match(text_lines[i]) and is_log_line(text_lines[i])
    ]
    notices = sorted({*notices, *logged})
    repeats = _mark_headers(text_lines, headers, mark)
    home = _java_home(text_lines, frames)
    for run in _frame_runs(text_lines, frames, headers):
        _mark_run(text_lines, run, mark, home)
        _mark_message(text_lines, run[0], mark)
    following = [*headers[1:], n]
    for k, i in enumerate(headers):
        if i in repeats:
            for j in range(i + 1, min(following[k], i + 200)):
                priority[j] = min(priority.get(j, FLOOR), FLOOR)
    seen: set[str] = set()
    for i in notices:
        if i in priority:
            continue
        key = template(text_lines[i])
        mark(i, MID - 5 if key not in seen else FLOOR + 1)
        seen.add(key)
    frame_set = set(frames)
    _mark_details(text_lines, headers, frame_set, priority)
    for i in lines_containing(lines, ("reported ", "found ", "detected ")):
        if _COUNTED.search(text_lines[i]):
            mark(i, HIGH)
    _mark_around_headers(text_lines, headers, frame_set, priority)
    if n:
        mark(0, LOW)
        mark(n - 1, LOW)
    if not frames:
        return None
    _demote_copies(text_lines, priority, set(headers))
    fitter = Fitter(lines, budget)
    fitter.add_marks(priority)
    return finish(fitter.plan(), n)


def _mark_headers(lines: list[str], headers: list[int], mark: Mark) -> set[int]:
    """Exception headers and causes at the top, Python's connecting lines and per-thread
    headers lower, routine repeats low; returns the repeats."""
    repeats = _repeated(lines, headers)
    for i in headers:
        line = lines[i].strip()
        if i in repeats:
            mark(i, LOW + 5)
        elif line.startswith(("Traceback", "During handling", "The above exception")):
            mark(i, MID)
        else:
            mark(i, MID if line.startswith(("goroutine", "Thread ")) and line[-1] == ":" else TOP)
    return repeats


def _mark_around_headers(
    lines: list[str], headers: list[int], frames: set[int], priority: Marks
) -> None:
    """The message lines under a header (before its frames), the error or warning record a
    header follows (`ERROR worker: batch 37 failed` above `Traceback ...`; a routine record
    there lower, as the step that was running), and a `file:line`
    location a few lines above it (Node prints the source line and a caret there)."""
    n = len(lines)
    for i in headers:
        if i and is_log_line(lines[i - 1]):
            # the record a trace follows says what the program was doing when it failed
            priority.mark(i - 1, HIGH if _LOGGED_NOTICE.match(lines[i - 1]) else MID)
        for j in range(i + 1, min(n, i + 7)):
            if j in frames or j in priority:
                break
            priority.mark(j, LOW)
        for j in range(i - 1, max(-1, i - 6), -1):
            if _LOCATION.match(lines[j].strip() or "-"):
                for k in range(j, i):
                    priority.mark(k, MID if k == j else LOW)
                break


def _mark_details(lines: list[str], headers: list[int], frames: set[int], priority: Marks) -> None:
    """The other lines of each report (from its header to its last frame before the next
    header, at most `REPORT_LINES`):
    what a sanitizer or valgrind says about the place (`Location is global 'g' of size 16`),
    the first of each kind above routine context, repeats of a kind at the floor."""
    seen: set[str] = set()
    ends = [*headers[1:], len(lines)] if headers else []
    for i, end in itertools.islice(zip(headers, ends, strict=True), MAX_REPORTS):
        end = min(end, i + REPORT_LINES)
        while end > i and end - 1 not in frames:
            end -= 1  # what follows the last frame is no longer about a place
        for j in range(i + 1, end):
            if j in frames or j in priority or not _TOOL_PREFIX.sub("", lines[j]).strip():
                continue
            key = template(" ".join(lines[j].split()))
            priority.mark(j, DETAIL if key not in seen else FLOOR)
            seen.add(key)


def _demote_copies(lines: list[str], priority: Marks, headers: set[int]) -> None:
    """A line that repeats an earlier kept one (numbers and addresses masked), such as the same
    frames in a second report of the same race, ranks one step lower than its first copy:
    among equals the distinct lines survive, not the later copies."""
    seen: set[str] = set()
    for i in sorted(priority):
        p = priority[i]
        if i in headers or p < MID:
            continue
        key = template(lines[i])
        if key in seen:
            priority[i] = p - 15
        seen.add(key)


def _repeated(lines: list[str], headers: list[int]) -> set[int]:
    """Headers that repeat one seen before and after them (the same words, numbers and hex
    masked): the first and the last of each kind stay headlines, those between are routine."""
    by_kind: dict[str, list[int]] = {}
    for i in headers:
        by_kind.setdefault(template(lines[i]), []).append(i)
    return {i for group in by_kind.values() for i in group[1:-1]}


def _frame_runs(lines: list[str], frames: list[int], headers: list[int]) -> list[list[int]]:
    """Frames grouped into traces: a run continues across Python source lines and gaps of at
    most two lines, but not across a blank line or an exception header (a cause starts a trace
    of its own)."""
    runs: list[list[int]] = []
    heads = iter([*headers, 1 << 62])
    head = next(heads)
    for i in frames:
        crossed = False
        while head < i:
            crossed = True
            head = next(heads)
        near = bool(runs) and i - runs[-1][-1] <= 3
        if near and any(not _TOOL_PREFIX.sub("", lines[j]).strip() for j in range(runs[-1][-1], i)):
            near = False  # a blank line ends a trace
        if near and not crossed:
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


def _java_home(lines: list[str], frames: list[int]) -> str | None:
    """The package prefix (`com.acme.`) of the first Java frame outside the runtime: frames of
    other packages (libraries) count as dependency frames."""
    for i in frames[:200]:
        m = _JAVA_FRAME.match(lines[i])
        if m and not _FOREIGN.search(lines[i]):
            return m.group(1)
    return None


def _foreign(line: str, home: str | None) -> bool:
    if _FOREIGN.search(line) or _MORE.match(line):
        return True
    if home is not None:
        m = _JAVA_FRAME.match(line)
        return m is not None and m.group(1) != home
    return False


def _mark_run(lines: list[str], run: list[int], mark: Mark, home: str | None) -> None:
    """One trace: user frames (first and last highest), the ends of dependency runs, properties."""
    user = [i for i in run if not _foreign(lines[i], home)]
    for k, i in enumerate(user):
        p = HIGH if k == 0 or k == len(user) - 1 else MID
        if 0 < k < len(user) - 1 and _same_frame(lines[i], lines[user[k - 1]]):
            p = LOW  # recursion: the same frame again adds nothing but its depth
        mark(i, p)
        _mark_source(lines, i, p - 5, mark)
    users = set(user)
    stretch: list[int] = []
    for i in [*run, -1]:
        if i >= 0 and i not in users:
            stretch.append(i)
            continue
        for j in stretch:
            p = LOW if j in (stretch[0], stretch[-1]) else FLOOR
            mark(j, p)
            _mark_source(lines, j, p, mark)
        stretch = []
    last = run[-1]
    n = len(lines)
    for j in range(last + 1, min(n, last + 12)):
        if _PROPERTY.match(lines[j]):
            mark(j, MID)
        elif lines[j].strip():
            break


_FRAME_NUMBER = re.compile(r"^\s*#\d+\s+(?:0x[0-9a-fA-F]+ in )?|0x[0-9a-fA-F]+")


def _same_frame(line: str, other: str) -> bool:
    """Whether two frame lines name the same place (gdb/sanitizer frame numbers and addresses
    aside)."""
    return line == other or _FRAME_NUMBER.sub("", line) == _FRAME_NUMBER.sub("", other)


def _mark_message(lines: list[str], first: int, mark: Mark) -> None:
    """The lines just above a trace, back to a blank one, say what happened (valgrind's
    `Possible data race ...`, `Locks held: none`, a log's message): the first ranks high."""
    above = []
    prefixed = _TOOL_PREFIX.match(lines[first]) is not None
    for j in range(first - 1, max(-1, first - 1 - MESSAGE_LINES), -1):
        if prefixed and not _TOOL_PREFIX.match(lines[j]):
            break  # the program's own output interleaved with the tool's report
        if not _TOOL_PREFIX.sub("", lines[j]).strip() or _FRAME.match(lines[j]):
            break
        if _HEADER.match(lines[j]):
            break  # the headline of the report, marked as such
        above.append(j)
    for j in above:
        mark(j, HIGH if j == above[-1] else MID)


def _mark_source(lines: list[str], i: int, p: int, mark: Mark) -> None:
    """The source line (and caret) Python prints under a frame."""
    for j in range(i + 1, min(len(lines), i + 3)):
        line = lines[j]
        if not line.startswith("    ") or _FRAME.match(line):
            break
        mark(j, p)
