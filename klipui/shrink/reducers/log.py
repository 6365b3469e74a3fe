"""Application logs: errors with their tracebacks, warnings, 5xx requests, start and end kept.

The first record of each kind of error or warning is kept (numbers masked to group repeats),
with the traceback that follows it; repeats and routine INFO/DEBUG records are dropped and
counted per level in one summary line.
"""

from __future__ import annotations

import re
from collections import Counter

from klipui.shrink.plan import Budget, Hint, Plan
from klipui.shrink.reducers import stacktrace
from klipui.shrink.reducers._patterns import (
    FLOOR,
    HIGH,
    LOG_LINE,
    LOW,
    MID,
    Fitter,
    Lines,
    Mark,
    Marks,
    finish,
    is_log_line,
    line_regex,
    lines_containing,
    sample,
    template,
)

name = "log"
describe = "errors with tracebacks, warnings, 5xx requests, first and last records kept"
overflow = "tail"

_LEVEL = line_regex(
    r"^[^\n]{0,80}?\b(TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|FATAL|CRITICAL|SEVERE"
    r"|PANIC|ALERT|EMERG)\b",
)
_FIELD_LEVEL = line_regex(
    r"^[^\n]{0,300}?(?:\"(?:level|lvl|severity|log\.level|levelname|loglevel)\": ?\"?"
    r"|\b(?:level|lvl|severity)=\"?)"
    r"(trace|debug|info|notice|warn|warning|error|err|fatal|critical|panic"
    r"|TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|FATAL|CRITICAL|PANIC"
    r"|Trace|Debug|Info|Notice|Warn|Warning|Error|Fatal|Critical|Panic|[1-6]0)\b"
)
"""The level of a JSON-lines or logfmt record (`"level":"error"`, `level=warn`, `"severity":
"ERROR"`), or pino's and bunyan's numeric level (`"level":50`)."""
_NEEDLES = ("WARN", "ERR", "FATAL", "CRITICAL", "SEVERE", "PANIC", "ALERT", "EMERG")
_FIELD_NEEDLES = (
    *_NEEDLES,
    *("warn", "Warn", "err", "Err", "fatal", "Fatal", "crit", "Crit", "panic", "Panic"),
    *(":40", ":50", ":60", ": 40", ": 50", ": 60"),
)
"""Words a line of a level worth a look holds: only those lines are matched one by one."""
_NUMERIC_LEVEL = {"10": "TRACE", "20": "DEBUG", "30": "INFO", "40": "WARN", "50": "ERROR"}
"""pino/bunyan levels; 60 is FATAL."""
_STRUCTURED = re.compile(r"\s*(?:\{\"|(?:time|ts|timestamp)=\S+ level=|level=)")
_SEVERE = frozenset({"ERROR", "ERR", "FATAL", "CRITICAL", "SEVERE", "PANIC", "ALERT", "EMERG"})
_WARN = frozenset({"WARN", "WARNING"})
_SERVER_ERROR = re.compile(r"\" 5\d\d ")
_KEYWORDS = (
    "slow query",
    "Slow query",
    "slow request",
    "timed out",
    "Timed out",
    "timeout",
    "Timeout",
    "refused",
    "Traceback",
    "Exception",
    "exception",
    "panic",
    "segfault",
    "Segmentation fault",
    "core dumped",
    "OutOfMemory",
    "out of memory",
    "Out of memory",
    "oom-kill",
    "OOMKilled",
    "Killed",
    "denied",
    "unreachable",
)
_KEYWORD_NEEDLES = tuple(
    dict.fromkeys(
        {
            "slow query": "low query",
            "Slow query": "low query",
            "timed out": "imed out",
            "Timed out": "imed out",
            "timeout": "imeout",
            "Timeout": "imeout",
            "Exception": "xception",
            "exception": "xception",
            "out of memory": "ut of memory",
            "Out of memory": "ut of memory",
            "OOMKilled": "Killed",
        }.get(keyword, keyword)
        for keyword in _KEYWORDS
    )
)
"""What the lines holding a keyword hold, in fewer words (one search of the text each): words
that differ in their first letter's case share their tail; `Killed` is in `OOMKilled`."""
_PREFIX = re.compile(r"^[\[\d\-T:.,+Z /]*")
_EXCEPTION = re.compile(r"^(?:[\w.]+(?:Error|Exception|Warning|Exit)\b|[\w.]+: )")
_FOREIGN = re.compile(
    r"site-packages|dist-packages|lib/python\d|node_modules|node:internal|<frozen"
)


def detect(text: str, hint: Hint) -> bool:
    """Most lines start like log records (or a .log file with a fair share of them)."""
    lines = [line for line in sample(text) if line.strip()]
    if len(lines) < 10:
        return False
    shaped = sum(1 for line in lines if is_log_line(line))
    if shaped >= len(lines) * 0.6:
        return True
    path = (hint.path or "").lower()
    return (path.endswith(".log") or "/log" in path) and shaped >= len(lines) * 0.2


def reduce(text: str, hint: Hint, budget: Budget) -> Plan | None:
    """Trouble first (errors, 5xx, slow, warnings), then start and end, then repeats."""
    lines = Lines(text)
    n = len(lines)
    if n == 0:
        return None
    text_lines = lines.lines
    priority = Marks()
    mark = priority.mark

    seen: set[str] = set()
    last_of: dict[str, tuple[int, str]] = {}
    structured = bool(_STRUCTURED.match(lines.text[:2_000]))
    levels = _count_levels(lines.text, _FIELD_LEVEL if structured else _LEVEL)
    pattern = _FIELD_LEVEL if structured else _LEVEL
    for i in lines_containing(lines, _FIELD_NEEDLES if structured else _NEEDLES):
        m = pattern.match(text_lines[i])
        if m is None:
            continue
        level = _level_name(m.group(1))
        if level not in _SEVERE and level not in _WARN:
            continue
        key = template(_PREFIX.sub("", text_lines[i]))
        first = key not in seen
        seen.add(key)
        last_of[key] = (i, level)
        if level in _SEVERE:
            mark(i, HIGH if first else LOW)
            _mark_continuation(text_lines, i, first, mark)
        else:
            mark(i, MID + 5 if first else FLOOR + 1)
            _mark_continuation(text_lines, i, False, mark)

    # the last of each repeated kind too: the final retry says how it ended
    for i, level in last_of.values():
        mark(i, HIGH - 3 if level in _SEVERE else MID)
    for i in lines.hits(_SERVER_ERROR):
        key = template(_PREFIX.sub("", text_lines[i]))
        mark(i, HIGH - 5 if key not in seen else LOW)
        seen.add(key)
    for i in lines_containing(lines, _KEYWORD_NEEDLES):
        if not any(keyword in text_lines[i] for keyword in _KEYWORDS):
            continue
        key = "kw:" + template(_PREFIX.sub("", text_lines[i]))
        mark(i, HIGH - 10 if key not in seen else FLOOR + 1)
        seen.add(key)

    for i in range(min(2, n)):
        mark(i, MID)
    for i in range(max(0, n - 3), n):
        mark(i, MID)
    last = n - 1
    while last > 0 and not text_lines[last].strip():
        last -= 1
    mark(last, HIGH - 5)  # the final record: how the run ended

    fitter = Fitter(lines, budget)
    fitter.add_marks(priority, least=FLOOR + 1 + 1)
    if levels:
        counts = ", ".join(f"{level} {count:,}" for level, count in levels.most_common())
        fitter.add_summary([f"[records by level: {counts}]"])
    fitter.add_marks(priority, below=FLOOR + 1 + 1)
    return finish(fitter.plan(), n)


def _level_name(word: str) -> str:
    level = word.upper()
    return _NUMERIC_LEVEL.get(level, "FATAL") if level.isdigit() else level


def _count_levels(text: str, pattern: re.Pattern[str]) -> Counter[str]:
    """Records by level: the level words found by one scan, counted without a Python loop."""
    led = re.compile("\n" + pattern.pattern[1:], pattern.flags)
    words = Counter(led.findall(text))
    first = pattern.match(text)
    if first is not None:
        words[first.group(1)] += 1
    levels: Counter[str] = Counter()
    for word, count in words.items():
        levels[_level_name(word)] += count
    return levels


def _mark_continuation(lines: list[str], i: int, first: bool, mark: Mark) -> None:
    """The lines after a record that are not records themselves: its traceback. Exception
    headers and causes rank with the record, the first frame after each and the user's frames
    next, dependency frames last."""
    end = min(len(lines), i + 200)
    end = next((j for j in range(i + 1, end) if LOG_LINE.match(lines[j])), end)
    if end <= i + 1:
        return
    last = end - 1
    while last > i and not lines[last].strip():
        last -= 1
    after_header = False
    for j in range(i + 1, end):
        line = lines[j]
        if not first:
            mark(j, FLOOR)
        elif j == last or _EXCEPTION.match(line) or stacktrace.HEADER.match(line):
            mark(j, HIGH)
            after_header = True
            continue
        elif stacktrace.FRAME.match(line):
            if stacktrace.is_dependency_frame(line) or _FOREIGN.search(line):
                mark(j, FLOOR)
            else:
                mark(j, MID + 5 if after_header else MID)
                after_header = False
            continue
        else:
            mark(j, LOW)
