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
    kind,
    line_regex,
    lines_holding,
    sample,
)

name = "log"
describe = "errors with tracebacks, warnings, 5xx requests, first and last records kept"
overflow = "tail"

_LEVEL_WORDS = (
    "TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|FATAL|CRITICAL|SEVERE|PANIC|ALERT|EMERG"
)
_LEVEL = line_regex(rf"^[^\n]{{0,80}}?\b({_LEVEL_WORDS})\b")
_FIELD = (
    r"(?:\"(?:level|lvl|severity|log\.level|levelname|loglevel)\": ?\"?"
    r"|\b(?:level|lvl|severity)=\"?)"
)
_FIELD_WORDS = (
    "trace|debug|info|notice|warn|warning|error|err|fatal|critical|panic"
    "|TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|FATAL|CRITICAL|PANIC"
    "|Trace|Debug|Info|Notice|Warn|Warning|Error|Fatal|Critical|Panic"
)
_FIELD_LEVEL = line_regex(rf"^[^\n]{{0,300}}?{_FIELD}({_FIELD_WORDS}|[1-6]0)\b")
"""The level of a JSON-lines or logfmt record (`"level":"error"`, `level=warn`, `"severity":
"ERROR"`), or pino's and bunyan's numeric level (`"level":50`)."""
_LEVEL_ALIGNED = re.compile(
    rf"\n(?:(?:[^A-Za-z\n]{{0,80}}\b|[^\n]{{0,80}}?(?=[ACDEFINPSTW])\b)({_LEVEL_WORDS})\b)?"
)
_FIELD_LEVEL_ALIGNED = re.compile(
    rf"\n(?:[^\n]{{0,300}}?(?=[\"ls]){_FIELD}({_FIELD_WORDS}|[1-6]0)\b)?"
)
"""`_LEVEL` and `_FIELD_LEVEL` led by the newline before a line instead of `^`, and optional:
`findall` gives one entry a newline (the level word of the line after it, or ""), so the k-th
entry belongs to line k + 1 without a line lookup. The lazy prefix stops only before a letter a
level word or field name starts with; a plain level first tries the common layout (the first
letters of the line are the level, after a timestamp) with one greedy skip of non-letters,
which finds the word the lazy scan would (no word starts before the first letter)."""
_NEEDLES = ("WARN", "ERR", "FATAL", "CRITICAL", "SEVERE", "PANIC", "ALERT", "EMERG")
_FIELD_NEEDLES = (
    *_NEEDLES,
    *("warn", "Warn", "err", "Err", "fatal", "Fatal", "crit", "Crit", "panic", "Panic"),
    *(":40", ":50", ":60", ": 40", ": 50", ": 60"),
)
"""Words a record of a level worth a look holds (a structured record whose level is written
otherwise, `level=50`, is not one)."""
_NEEDLE = re.compile("|".join(map(re.escape, _NEEDLES)))
_FIELD_NEEDLE = re.compile("|".join(map(re.escape, _FIELD_NEEDLES)))
"""One of `_NEEDLES` (`_FIELD_NEEDLES`) in a line: one search a line instead of one a word."""
_NUMERIC_LEVEL = {"10": "TRACE", "20": "DEBUG", "30": "INFO", "40": "WARN", "50": "ERROR"}
"""pino/bunyan levels; 60 is FATAL."""
_PRIORITY = re.compile(r"<(\d{1,3})>")
_PRIORITY_ALIGNED = re.compile(r"\n(?:<(\d{1,3})>)?")
"""A syslog priority leading a line (`<11>`: facility * 8 + severity), and the same led by the
newline before a line, optional (one `findall` entry a line, as `_LEVEL_ALIGNED`)."""
_SEVERITY = ("EMERG", "ALERT", "CRITICAL", "ERROR", "WARNING", "NOTICE", "INFO", "DEBUG")
"""Syslog severities 0 to 7 by their level words."""
_SEVERE = frozenset({"ERROR", "ERR", "FATAL", "CRITICAL", "SEVERE", "PANIC", "ALERT", "EMERG"})
_WARN = frozenset({"WARN", "WARNING"})
_STRUCTURED = re.compile(r"\s*(?:\{\"|(?:time|ts|timestamp)=\S+ level=|level=)")
_STATUS_FORMS = (
    r"\" ({d}\d\d) ",
    r"\"status(?:Code|_code)?\": ?({d}\d\d)\b",
    r"status=({d}\d\d)\b",
)
"""Where a response status is written: an access-log line, a structured record's field. Each
form starts with a literal, which the regex engine scans for fast."""
_ERROR_STATUS = (
    re.compile(r"\" ([45]\d\d) "),
    re.compile(r"status(?:(?<=\"status)(?:Code|_code)?\": ?|=)([45]\d\d)\b"),
)
"""`_STATUS_FORMS` of a 5xx response, or a 4xx one (a weak signal: the first and last of each
status are kept), in two searches of the text: no match of one status or form can hide a match
of another (each starts with a literal that no match holds further in), and the fields share
`status`, which the second search starts from (a match a line: its start is on that line)."""
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
_PREFIX = re.compile(r"^[\[\d\-T:.,+Z /]*", re.M)
_EXCEPTION = re.compile(r"^(?:[\w.]+(?:Error|Exception|Warning|Exit)\b|[\w.]+: )")
_FOREIGN = re.compile(
    r"site-packages|dist-packages|lib/python\d|node_modules|node:internal|<frozen"
)


def detect(text: str, hint: Hint) -> bool:
    """Most lines start like log records (or a .log file with a fair share of them)."""
    lines = [line for line in sample(text) if line.strip()]
    if len(lines) < 10:
        return False
    shaped = sum(1 for line in lines if _is_record(line))
    if shaped >= len(lines) * 0.6:
        return True
    path = (hint.path or "").lower()
    return (path.endswith(".log") or "/log" in path) and shaped >= len(lines) * 0.2


_NUMBER = re.compile(r"[-+]?\.?\d[\d.,:%/]*")


def _is_record(line: str) -> bool:
    """Whether `line` is a log record: it starts like one and is not a row of sampled numbers
    (`12:00:01  all  82.41  0.00  13.57`: a time then mostly numeric columns is a table of
    samples, as `sar`, `vmstat -t` or `iostat` print, not a record with a message)."""
    m = LOG_LINE.match(line)
    if m is None:
        return False
    fields = line[m.end() :].split()
    if len(fields) < 3:
        return True
    numeric = sum(1 for field in fields if _NUMBER.fullmatch(field))
    return numeric * 2 < len(fields)


def reduce(text: str, hint: Hint, budget: Budget) -> Plan | None:
    """Trouble first (errors, 5xx, slow, warnings), then start and end, then repeats."""
    lines = Lines(text)
    n = len(lines)
    if n == 0:
        return None
    priority = Marks()
    priorities = _PRIORITY.match(lines.text) is not None
    huge = not priorities and len(lines.text) > HUGE_CHARS
    if priorities:
        levels, trouble = _read_priorities(lines)
    else:
        structured = bool(_STRUCTURED.match(lines.text[:2_000]))
        levels, trouble = (_find_trouble if huge else _read_levels)(lines, structured)
    # every line's kind, when the rare records are looked for (which reads them all): the
    # other rules then look theirs up instead of reading them again
    every = _kinds(lines.lines, list(range(n))) if n <= MAX_RARE_LINES else None
    seen = _mark_records(lines.lines, trouble, priority.mark, every)
    _mark_signals(lines, seen, priority.mark, every)
    _mark_rare(lines.lines, priority.mark, every)
    _mark_ends(lines.lines, priority.mark)
    fitter = Fitter(lines, budget)
    fitter.add_marks(priority, least=FLOOR + 1 + 1)
    if levels:
        counts = ", ".join(f"{level} {count:,}" for level, count in levels.most_common())
        if huge:  # the routine levels were not counted
            counts += f"; {n - levels.total():,} other lines"
        fitter.add_summary([f"[records by level: {counts}]"])
    fitter.add_marks(priority, below=FLOOR + 1 + 1)
    return finish(fitter.plan(), n)


def _level_name(word: str) -> str:
    level = word.upper()
    return _NUMERIC_LEVEL.get(level, "FATAL") if level.isdigit() else level


_TROUBLE = {
    word: level
    for word in (*_LEVEL_WORDS.split("|"), *_FIELD_WORDS.split("|"), *(f"{d}0" for d in "123456"))
    if (level := _level_name(word)) in _SEVERE or level in _WARN
}
"""Every level word the level regexes capture whose records are worth a look (warnings and
worse), with its level."""


def _read_levels(lines: Lines, structured: bool) -> tuple[Counter[str], list[tuple[int, str]]]:
    """Records by level, and the records worth a look (warnings and worse, holding one of the
    needles) with their level, in order: one `findall` of the newline-led level regex (one
    entry a line, counted and filtered in C), the lines themselves read for trouble only."""
    pattern, aligned, needle = (
        (_FIELD_LEVEL, _FIELD_LEVEL_ALIGNED, _FIELD_NEEDLE)
        if structured
        else (_LEVEL, _LEVEL_ALIGNED, _NEEDLE)
    )
    text, text_lines = lines.text, lines.lines
    first = pattern.match(text)
    words = aligned.findall(text)  # words[k]: the level of line k + 1
    del words[max(0, len(text_lines) - 1) :]  # the entry after a final newline belongs to no line
    counted = Counter(words)
    counted.pop("", None)
    if first is not None:
        counted[first[1]] += 1  # counted last, as it was found last (the order of ties)
    levels: Counter[str] = Counter()
    for word, count in counted.items():
        levels[_level_name(word)] += count
    found: list[tuple[int, str]] = []
    for word in counted.keys() & _TROUBLE.keys():
        i = -1
        while True:  # the lines of a level worth a look (few), each found by a scan in C
            try:
                i = words.index(word, i + 1)
            except ValueError:
                break
            found.append((i + 1, word))
    found.sort()
    if first is not None and first[1] in _TROUBLE:
        found.insert(0, (0, first[1]))
    search = needle.search
    trouble = [(i, _TROUBLE[word]) for i, word in found if search(text_lines[i])]
    return levels, trouble


HUGE_CHARS = 8_000_000
"""Logs longer than this are not read line by line for their levels: the records worth a look
are found by their needles (see `lines_holding`), and the summary counts them alone."""


def _find_trouble(lines: Lines, structured: bool) -> tuple[Counter[str], list[tuple[int, str]]]:
    """`_read_levels` for a huge log: the same records worth a look, each found by one of the
    needles every such record holds, then its level read by the same regexes (the lines holding
    a needle joined: one `findall`), and their count by level (not the routine levels', which
    would take reading every line)."""
    pattern, aligned, needles = (
        (_FIELD_LEVEL, _FIELD_LEVEL_ALIGNED, _FIELD_NEEDLES)
        if structured
        else (_LEVEL, _LEVEL_ALIGNED, _NEEDLES)
    )
    text_lines = lines.lines
    held = lines_holding(lines, needles)
    words = aligned.findall("".join(["\n" + text_lines[i] for i in held]))
    if held and held[0] == 0:
        first = pattern.match(text_lines[0])
        words[0] = first[1] if first is not None else ""
    trouble = [(i, _TROUBLE[word]) for i, word in zip(held, words, strict=True) if word in _TROUBLE]
    return Counter(level for _, level in trouble), trouble


def _read_priorities(lines: Lines) -> tuple[Counter[str], list[tuple[int, str]]]:
    """Records by level, and the warnings and worse, of a log whose records lead with a syslog
    priority: its severity (the priority modulo 8) is the level, whatever the words say."""
    text = lines.text
    first = _PRIORITY.match(text)
    codes = [first[1] if first else "", *_PRIORITY_ALIGNED.findall(text)]
    del codes[len(lines.lines) :]  # the entry after a final newline belongs to no line
    level_of = {code: _SEVERITY[int(code) % 8] for code in set(codes) if code}
    levels = Counter(level_of[code] for code in codes if code)
    trouble = [
        (i, level)
        for i, code in enumerate(codes)
        if code and ((level := level_of[code]) in _SEVERE or level in _WARN)
    ]
    return levels, trouble


def _kinds(lines: list[str], indices: list[int]) -> list[str]:
    """The kind of each line of `indices` (no timestamp-like prefix, every token holding a digit
    masked: see `kind`), for grouping repeats: the lines joined, so that two substitutions in all
    stand for two a line; each distinct line after its prefix is masked once, as records that
    repeat a message (and the copies of a log) share it."""
    if not indices:
        return []
    bodies = _PREFIX.sub("", "\n".join([lines[i] for i in indices])).split("\n")
    distinct = list(dict.fromkeys(bodies))
    if len(distinct) == len(bodies):
        return kind("\n".join(bodies)).split("\n")
    of = dict(zip(distinct, kind("\n".join(distinct)).split("\n"), strict=True))
    return [of[body] for body in bodies]


def _kinds_of(lines: list[str], indices: list[int], every: list[str] | None) -> list[str]:
    """`_kinds(lines, indices)`, looked up in `every` line's kind when given."""
    return _kinds(lines, indices) if every is None else [every[i] for i in indices]


def _mark_records(
    lines: list[str], trouble: list[tuple[int, str]], mark: Mark, every: list[str] | None = None
) -> set[str]:
    """Mark the errors (with their tracebacks) and warnings: the first and the last of each
    kind (numbers masked) above their repeats. Returns the kinds seen."""
    seen: set[str] = set()
    last_of: dict[str, tuple[int, str]] = {}
    keys = _kinds_of(lines, [i for i, _ in trouble], every)
    for (i, level), key in zip(trouble, keys, strict=True):
        first = key not in seen
        seen.add(key)
        last_of[key] = (i, level)
        if level in _SEVERE:
            mark(i, HIGH if first else LOW)
            _mark_continuation(lines, i, first, mark)
            if first:
                for k, j in enumerate(_companions(lines, i, level)):
                    mark(j, HIGH - 4 - 2 * k)
        else:
            mark(i, MID + 5 if first else FLOOR + 1)
            _mark_continuation(lines, i, False, mark)
    # the last of each repeated kind too: the final retry says how it ended
    for i, level in last_of.values():
        mark(i, HIGH - 3 if level in _SEVERE else MID)
    return seen


def _mark_signals(lines: Lines, seen: set[str], mark: Mark, every: list[str] | None = None) -> None:
    """Mark the 5xx responses and the lines holding a trouble keyword, the first of each
    kind above its repeats."""
    text_lines = lines.lines
    server_at: list[int] = []
    first_at: dict[str, int] = {}
    last_at: dict[str, int] = {}
    for pattern in _ERROR_STATUS:
        for m in pattern.finditer(lines.text):
            status, at = m[1], m.start()
            if status[0] == "5":
                server_at.append(at)
            else:
                if status not in first_at or at < first_at[status]:
                    first_at[status] = at
                if status not in last_at or at > last_at[status]:
                    last_at[status] = at
    servers = sorted({lines.line_at(at) for at in server_at})
    for i, key in zip(servers, _kinds_of(text_lines, servers, every), strict=True):
        mark(i, HIGH - 5 if key not in seen else LOW)
        seen.add(key)
    for status, at in first_at.items():
        mark(lines.line_at(at), LOW + 5)
        mark(lines.line_at(last_at[status]), LOW + 5)
    found = lines_holding(lines, _KEYWORDS)
    for i, line_kind in zip(found, _kinds_of(text_lines, found, every), strict=True):
        key = "kw:" + line_kind
        mark(i, HIGH - 10 if key not in seen else FLOOR + 1)
        seen.add(key)


RARE = MID - 5
"""A record of a kind seen once in a repetitive log: below errors and warnings, above the
repeats of an error."""
REPETITIVE = 0.5
"""Share of the lines in kinds seen at least 3 times above which a log is repetitive."""
MAX_RARE_LINES = 20_000
"""Logs with more lines are not searched for rare records (their levels and keywords must do)."""
MAX_RARE = 12
"""More records seen once than this: the log is not that repetitive, none is marked rare."""


def _mark_rare(lines: list[str], mark: Mark, every: list[str] | None = None) -> None:
    """Mark the records of a kind seen once (ids, numbers and times aside) in a log where most
    records repeat a few kinds: the one request to another endpoint, the one startup line, the
    `==> file <==` header between two files."""
    if len(lines) > MAX_RARE_LINES:
        return
    masked = _kinds_of(lines, list(range(len(lines))), every)  # two substitutions in all
    kinds = [key if line.strip() else "" for key, line in zip(masked, lines, strict=True)]
    counts = Counter(kinds)
    repeated = sum(count for key, count in counts.items() if key and count >= 3)
    if repeated < REPETITIVE * len(lines):
        return
    # a line of its own, not the indented continuation of a record (a frame of a traceback)
    rare = [
        i for i, key in enumerate(kinds) if key and counts[key] == 1 and lines[i][:1] not in " \t"
    ]
    if len(rare) <= MAX_RARE:
        for i in rare:
            mark(i, RARE)
            if i > 0 and kinds[i - 1]:
                mark(i - 1, LOW)  # what led to it: the record just before


MAX_COMPANIONS = 3
"""The most records after an error that its own prefix (time, process) marks as its details."""
MAX_PREFIX_TOKENS = 8
MIN_PREFIX_TOKENS = 3
"""A prefix of a time stamp alone (date, time) is shared by unrelated records of one instant:
the prefix must name more (a process, a thread)."""


def _companions(lines: list[str], i: int, level: str) -> list[int]:
    """The records just after error record `i` whose prefix before the level word (time stamp,
    process id, user) is the same as its own: the details the same process wrote in the same
    instant (`DETAIL:`, `HINT:`, `STATEMENT:` lines), indented lines between them skipped."""
    tokens = lines[i].split(None, MAX_PREFIX_TOKENS)
    at = next((k for k, token in enumerate(tokens) if level in token.upper()), -1)
    if at < MIN_PREFIX_TOKENS or not any(c.isdigit() for c in tokens[0]):
        return []
    head = tokens[:at]
    found: list[int] = []
    for j in range(i + 1, min(len(lines), i + 1 + 4 * MAX_COMPANIONS)):
        line = lines[j]
        if line[:1] in " \t":
            continue
        fields = line.split(None, at + 1)
        if fields[:at] != head or len(found) == MAX_COMPANIONS:
            break
        if len(fields) > at and level in fields[at].upper():
            break  # another error: ranked on its own
        found.append(j)
    return found


def _mark_ends(lines: list[str], mark: Mark) -> None:
    """The first two and last three lines, the last record above them: how the run ended."""
    n = len(lines)
    for i in range(min(2, n)):
        mark(i, MID)
    for i in range(max(0, n - 3), n):
        mark(i, MID)
    last = n - 1
    while last > 0 and not lines[last].strip():
        last -= 1
    mark(last, HIGH - 5)


def _mark_continuation(lines: list[str], i: int, first: bool, mark: Mark) -> None:
    """The lines after a record that are not records themselves: its traceback. Exception
    headers and causes rank with the record, the first frame after each and the user's frames
    next, dependency frames last."""
    if i + 1 < len(lines) and LOG_LINE.match(lines[i + 1]):
        return  # the next line is a record (the common case)
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
        elif j == last or _EXCEPTION.match(line.lstrip()) or stacktrace.HEADER.match(line):
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
