"""Stack traces: every exception message and cause, the user's frames; dependency frames dropped.

Handles Node (including `[cause]` chains and error properties), Python (chained tracebacks),
Java/Kotlin (`at a.b.C.m(File.java:12)`, `Caused by:`, `... 12 more`), Ruby, Go panics and Rust
backtraces. Frames in node_modules, site-packages, the standard library or the runtime count as
dependency frames: the first and last of each run stay to show the call shape.
"""

from __future__ import annotations

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
    named_union,
    sample,
    template,
)

name = "stacktrace"
describe = "exception messages, causes and user frames kept, dependency frames dropped"
overflow = "both"

_FRAME = line_regex(
    r"^(?:\s+at \S.*"
    r"|\s+File \".*\", line \d+.*"
    r"|\s+from \S+:\d+:in .*"
    r"|\s+\.\.\. \d+ (?:more|common frames omitted)"
    r"|\s+\d+: \S.*"
    r"|\t/\S+\.go:\d+(?: \+0x[0-9a-f]+)?"
    r"|[\w./-]+\.[\w()*.]+\([0-9a-fx, .{}?]*\)"
    r"|\s*#\d+\s+(?:0x[0-9a-fA-F]+ in )?\S.*"
    r"|==\d+==\s+(?:at|by) 0x[0-9A-Fa-f]+: .*"
    r"|\s+at \S.* in \S+:line \d+"
    r")$",
)
"""Frames: JS/Java/.NET `at`, Python `File`, Ruby `from`, Java `... N more`, Rust `N: sym`, Go
`\tpath.go:N +0x..`, Go function lines, gdb/ASan/PHP `#N 0x.. in f file:line`, valgrind
`==pid==    at 0x..: f (file:line)`."""
_HEADER = line_regex(
    r"^(?:"
    r"Traceback \(most recent call last\):"
    r"|(?:Exception in thread \".*\" )?(?:[\w$]+\.)*\w*(?:Error|Exception|Throwable|Warning|Exit"
    r"|Interrupt|Failure|Panic)\b(?::.*)?"
    r"|\s*(?:Caused by|Suppressed): .*"
    r"|\s*\[cause\]: .*"
    r"|\s*\[errors?\]: .*"
    r"|(?:Uncaught |Unhandled ).*"
    r"|panic: .*|fatal error: .*|goroutine \d+ \[.*\]:"
    r"|thread '.*' panicked at .*"
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
    r"|Program (?:received|terminated with) signal .*"
    r"|Unhandled exception\. .*"
    r"|PHP (?:Fatal error|Warning|Notice): .*"
    r")$",
)
_FOREIGN = re.compile(
    r"node_modules|node:internal|\(internal/|\binternal/|<anonymous>|site-packages|dist-packages"
    r"|/usr/lib/|/usr/local/lib/|lib/python\d|<frozen |\bjava\.base/|\bat (?:java|javax|sun|jdk"
    r"|kotlin|kotlinx|scala|org\.junit|org\.springframework|org\.apache|reactor|io\.netty)\."
    r"|/rustc/|\b(?:std|core|alloc)::|/usr/local/go/|\bruntime\.|/gems/|/ruby/\d|<internal:"
    r"|\.\./sysdeps/|\.\./csu/|libsanitizer|vgpreload_|\(in /usr/|\bin _start\b|\bSystem\."
    r"|\bMicrosoft\."
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
MESSAGE_LINES = 3
_TOOL_PREFIX = re.compile(r"^==\d+==|^--\d+--")
"""valgrind's `==PID==` prefix: a line with nothing after it is blank."""
_JAVA_FRAME = re.compile(r"^\s+at ((?:[a-z][\w$]*\.){2})[\w$.<>]+\(")
_MORE = re.compile(r"^\s+\.\.\. \d+ ")
_SCAN = named_union(header=_HEADER, frame=_FRAME, notice=_NOTICE)
"""Exception headers, frames and warning/error notices in one pass (named groups)."""
_PROPERTY = re.compile(r"^\s+[\w$]+: .+$|^\s*[{}],?$")
_LOCATION = re.compile(r"^(?:/|[A-Za-z]:\\|\./)?\S+\.\w+:\d+$")


def detect(text: str, hint: Hint) -> bool:
    """An exception header followed by frames, in output that is not mainly a log."""
    lines = sample(text)
    headers = frames = logged = 0
    for line in lines:
        if _FRAME.match(line):
            frames += 1
        elif _HEADER.match(line):
            headers += 1
        elif is_log_line(line):
            logged += 1
    if not headers or frames < 3:
        return False
    return logged < len(lines) * 0.3


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
    repeats = _repeated(text_lines, headers)
    for i in headers:
        line = text_lines[i].strip()
        if i in repeats:
            mark(i, LOW + 5)
        elif line.startswith(("Traceback", "During handling", "The above exception")):
            mark(i, MID)
        else:
            mark(i, TOP if not line.startswith("goroutine") else MID)
    home = _java_home(text_lines, frames)
    for run in _frame_runs(text_lines, frames):
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
    for i in headers:
        for j in range(i + 1, min(n, i + 7)):
            if j in frame_set or j in priority:
                break
            mark(j, LOW)
        for j in range(i - 1, max(-1, i - 6), -1):
            if _LOCATION.match(text_lines[j].strip() or "-"):
                for k in range(j, i):
                    mark(k, MID if k == j else LOW)
                break
    if n:
        mark(0, LOW)
        mark(n - 1, LOW)
    if not frames:
        return None
    fitter = Fitter(lines, budget)
    fitter.add_marks(priority)
    return finish(fitter.plan(), n)


def _repeated(lines: list[str], headers: list[int]) -> set[int]:
    """Headers that repeat one seen before and after them (the same words, numbers and hex
    masked): the first and the last of each kind stay headlines, those between are routine."""
    by_kind: dict[str, list[int]] = {}
    for i in headers:
        by_kind.setdefault(template(lines[i]), []).append(i)
    return {i for group in by_kind.values() for i in group[1:-1]}


def _frame_runs(lines: list[str], frames: list[int]) -> list[list[int]]:
    """Frames grouped into traces: a run continues across Python source lines and blank-free gaps
    of at most two lines."""
    runs: list[list[int]] = []
    for i in frames:
        if runs and i - runs[-1][-1] <= 3:
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


def _mark_message(lines: list[str], first: int, mark: Mark) -> None:
    """The lines just above a trace, back to a blank one, say what happened (valgrind's
    `Possible data race ...`, `Locks held: none`, a log's message): the first ranks high."""
    above = []
    for j in range(first - 1, max(-1, first - 1 - MESSAGE_LINES), -1):
        if not _TOOL_PREFIX.sub("", lines[j]).strip() or _FRAME.match(lines[j]):
            break
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
