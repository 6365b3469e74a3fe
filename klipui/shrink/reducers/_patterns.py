"""Shared machinery for the shape reducers: line indexing, sampling for detection, budget fitting.

Reducers mark candidate pieces of the input (line ranges with a priority, or summary lines that
stand for a range); `fit` picks the most important ones that fit the budget, counting the omission
markers the pipeline will write for the gaps, and returns a plan in input order.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from klipui.shrink.plan import Budget, Keep, Plan, Summary
from klipui.shrink.salience import STRONG_WORDS
from klipui.shrink.text import chunks, line_starts, marker, marker_length
from klipui.shrink.text import split as split_text

TOP = 100
"""Summary lines of the tool itself (`10 failed, 684 passed`, `BUILD FAILURE`)."""
HIGH = 80
"""The headline of each problem: failure header, error line, exception message."""
MID = 50
"""Where it happened: locations, user frames, the code line."""
LOW = 20
"""Further detail of a problem: the rest of a failure body, notes."""
FLOOR = 5
"""Context worth showing only when there is room left."""

MARKER_SLACK = 18
"""Characters held back per gap beside its marker: what a plan leaves, the pipeline fills with
salience's lines, which often keep more than a reducer's last low-priority candidates."""


MAX_MISSES = 500
"""Consecutive candidates that do not fit after which a nearly full budget stops the search."""


_ANSI = re.compile(
    r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)|\x1b[()][0-9A-Za-z]"
)


class Lines:
    """The input split into lines (CRLF and LF), with character offsets for regex hits.

    Analysis (`text`, `lines`, `starts`) sees the text without terminal colour codes; costs
    (`chars`, `raw`) count the lines as the pipeline will show them, codes included."""

    __slots__ = ("cost_starts", "lines", "raw", "starts", "text", "total_chars")

    def __init__(self, text: str) -> None:
        shown = split_text(text)
        self.raw: list[str] = shown.lines
        """The lines as shown (colour codes kept)."""
        self.cost_starts: list[int] = shown.starts
        """Offsets in the original text (terminators as they are there, `\\r\\n` included)."""
        escapes = text.count("\x1b") if "\x1b" in text else 0
        if escapes > len(shown.lines) // 8:
            ends_with_newline = text.endswith("\n")
            text = "".join(_plain(piece) for _, piece in chunks(text))
            lines = text.split("\n")
            if ends_with_newline or not shown.lines:
                lines.pop()  # not when a last line without newline was only colour codes
            self.starts: list[int] = line_starts(lines)
        elif escapes or "\r" in text:
            # few colour codes: clean the lines holding them; the split lines have no CRs
            lines = list(shown.lines)
            position = text.find("\x1b")
            while position >= 0:
                i = bisect_right(shown.starts, position) - 1
                lines[i] = _ANSI.sub("", lines[i])
                position = text.find("\x1b", shown.starts[i + 1])
            ends_with_newline = text.endswith("\n")
            text = "\n".join(lines) + ("\n" if lines and ends_with_newline else "")
            self.starts = line_starts(lines)
        else:
            lines = shown.lines
            self.starts = shown.starts  # shared: neither side changes it
            if lines and not text.endswith("\n"):
                self.starts = [*shown.starts[:-1], shown.starts[-1] + 1]
        self.text = text
        self.lines: list[str] = lines
        self.total_chars = self.cost_starts[-1]

    def __len__(self) -> int:
        return len(self.lines)

    def line_at(self, offset: int) -> int:
        """The index of the line holding character `offset` of the normalised text."""
        return bisect_right(self.starts, offset) - 1

    def chars(self, start: int, end: int) -> int:
        """Characters of lines [start, end) as shown, newlines included."""
        return self.cost_starts[end] - self.cost_starts[start]

    def grep(self, words: tuple[str, ...], pattern: re.Pattern[str]) -> list[int]:
        """Lines holding one of `words` where `pattern` matches: a fast `hits` for patterns
        whose every match contains one of the words."""
        lines = self.lines
        return [i for i in lines_containing(self, words) if pattern.match(lines[i])]

    def scan(self, pattern: re.Pattern[str]) -> Iterator[tuple[int, re.Match[str]]]:
        """`(line index, match)` for each match of a line pattern (see `line_regex`) in the
        text, in order; a pattern not anchored with `^` is searched as it is."""
        text, starts = self.text, self.starts
        led = _newline_led(pattern)
        if led is None:
            for m in pattern.finditer(text):
                yield bisect_right(starts, m.start()) - 1, m
            return
        first = pattern.match(text)
        if first is not None:
            yield 0, first
        for m in led.finditer(text):
            yield bisect_right(starts, m.start() + 1) - 1, m

    def hits(self, pattern: re.Pattern[str]) -> list[int]:
        """Indices of the lines where `pattern` matches (once a line, in order)."""
        out: list[int] = []
        for i, _ in self.scan(pattern):
            if not out or out[-1] != i:
                out.append(i)
        return out


_LED: dict[re.Pattern[str], re.Pattern[str] | None] = {}


def _newline_led(pattern: re.Pattern[str]) -> re.Pattern[str] | None:
    """`pattern` (anchored with a leading `^`) led by a newline instead: the regex engine
    jumps from newline to newline instead of trying the anchor at every character, which makes
    a whole-text scan several times faster. None for a pattern without a leading `^`."""
    if pattern in _LED:
        return _LED[pattern]
    source = pattern.pattern
    led = None
    if source.startswith("^") and not _top_level_branch(source):
        led = re.compile("\n(?:" + source[1:] + ")", pattern.flags | re.M)
    _LED[pattern] = led
    return led


def _top_level_branch(source: str) -> bool:
    """Whether a regex source has a `|` outside every group and character class."""
    depth = 0
    in_class = False
    i = 0
    while i < len(source):
        c = source[i]
        if c == "\\":
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if source[i + 1 : i + 2] == "]":
                i += 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "|" and depth == 0:
            return True
        i += 1
    return False


def sample(text: str, head: int = 12_000, tail: int = 6_000, windows: int = 3) -> list[str]:
    """Whole lines from the head, the tail and a few middle windows of `text`.

    The cost is independent of the length of `text`: detection looks at this sample only.
    """
    n = len(text)
    if n <= head + tail + windows * 4_000:
        return _split(text)
    parts = [text[:head]]
    width = 4_000
    for k in range(1, windows + 1):
        mid = n * k // (windows + 1)
        parts.append(text[mid : mid + width])
    parts.append(text[n - tail :])
    lines: list[str] = []
    for i, part in enumerate(parts):
        chunk = _split(part)
        if i > 0 and chunk:
            chunk = chunk[1:]
        if i < len(parts) - 1 and chunk:
            chunk = chunk[:-1]
        lines.extend(chunk)
    return lines


def _plain(text: str) -> str:
    """`text` with CRLF as LF and without terminal colour codes."""
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    return text


def _split(text: str) -> list[str]:
    return _split_plain(_plain(text))


def _split_plain(text: str) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def command_matches(hint_command: str | None, pattern: re.Pattern[str]) -> bool:
    """Whether the hint's command looks like the tools `pattern` names."""
    return bool(hint_command) and pattern.search(hint_command or "") is not None


class Marks(dict[int, int]):
    """Line index → priority, for `Fitter.add_marks`; a line keeps the highest it was given."""

    __slots__ = ()

    def mark(self, i: int, p: int) -> None:
        """Give line `i` priority `p` unless it already has a higher one."""
        if self.get(i, -1) < p:
            self[i] = p


Mark = Callable[[int, int], None]
"""`Marks.mark` as handed to a reducer's helpers."""


@dataclass(slots=True)
class Cand:
    """A candidate piece: lines [start, end) with a priority, or summary lines standing for them."""

    start: int
    end: int
    priority: int
    summary: tuple[str, ...] | None = None


def marker_cost(chars: int, lines: int) -> int:
    """The characters of the omission marker line for a gap (newline included), plus slack."""
    return marker_length(chars, lines) + 1 + MARKER_SLACK


class Fitter:
    """Greedy selection of candidates by priority within a character and line budget."""

    def __init__(self, lines: Lines, budget: Budget) -> None:
        self.lines = lines
        n = len(lines)
        self.n = n
        self.max_chars = budget.max_chars if budget.max_chars > 0 else 1 << 62
        self.max_lines = budget.max_lines if budget.max_lines > 0 else 1 << 62
        self.cap = budget.max_line_chars
        # Selected pieces, sorted by start; sentinels at both ends make every gap interior.
        self.sel_starts: list[int] = [-1, n]
        self.sel: list[Cand] = [Cand(-1, 0, 1 << 30), Cand(n, n, 1 << 30)]
        self.chars, self.nlines = self._gap(0, n)

    def _range(self, start: int, end: int) -> tuple[int, int]:
        chars = self.lines.chars(start, end)
        if self.cap > 0:
            longest = max((len(x) for x in self.lines.raw[start:end]), default=0)
            if longest > self.cap:
                chars = sum(min(len(x), self.cap + 24) + 1 for x in self.lines.raw[start:end])
        return chars, end - start

    def _gap(self, start: int, end: int) -> tuple[int, int]:
        """Cost of the gap [start, end): nothing, the lines themselves when cheaper, or a marker."""
        if end <= start:
            return 0, 0
        raw = self.lines.chars(start, end)
        marker = marker_cost(raw, end - start)
        if end - start <= 3:
            chars, count = self._range(start, end)
            if chars <= marker:
                return chars, count
        return marker, 1

    def _filled(self, start: int, end: int) -> bool:
        """Whether the gap [start, end) is cheaper shown than replaced by a marker."""
        if not 0 < end - start <= 3:
            return False
        return self._range(start, end)[0] <= marker_cost(self.lines.chars(start, end), end - start)

    def _cost(self, cand: Cand) -> tuple[int, int]:
        if cand.summary is not None:
            return sum(len(s) + 1 for s in cand.summary), len(cand.summary)
        return self._range(cand.start, cand.end)

    def room(self) -> int:
        """Characters still free."""
        return self.max_chars - self.chars

    def nearly_full(self) -> bool:
        """Little room left in characters or lines: few further candidates can fit."""
        return self.room() < 200 or self.max_lines - self.nlines < 2

    def try_add(self, cand: Cand) -> bool:
        """Add `cand` when it fits and does not overlap a selected piece; report whether it did."""
        if cand.end <= cand.start:
            return False
        i = bisect_left(self.sel_starts, cand.start)
        left = self.sel[i - 1]
        right = self.sel[i]
        if left.end > cand.start or right.start < cand.end:
            return False
        gc, gl = self._gap(left.end, right.start)
        ac, al = self._gap(left.end, cand.start)
        bc, bl = self._gap(cand.end, right.start)
        pc, pl = self._cost(cand)
        chars = self.chars - gc + ac + bc + pc
        count = self.nlines - gl + al + bl + pl
        if chars > self.max_chars or count > self.max_lines:
            return False
        self.chars, self.nlines = chars, count
        self.sel_starts.insert(i, cand.start)
        self.sel.insert(i, cand)
        return True

    def add_all(self, cands: list[Cand]) -> None:
        """Try the candidates, highest priority first (earlier first among equals).

        Once the budget is nearly spent, a long run of candidates that do not fit ends the
        search, so that huge inputs with thousands of candidates stay fast."""
        misses = 0
        for cand in sorted(cands, key=lambda c: (-c.priority, c.start)):
            if self.try_add(cand):
                misses = 0
            else:
                misses += 1
                if misses >= MAX_MISSES and self.nearly_full():
                    break

    def add_summary(
        self, rows: list[str], where: tuple[int, int] | None = None, priority: int = MID
    ) -> bool:
        """Replace the largest gap (or `where`, a gap) by its marker followed by as many `rows`
        as fit, at `priority`. Returns whether anything was added."""
        gaps = self.gaps()
        if where is not None:
            gaps = [g for g in gaps if g[0] <= where[0] and where[1] <= g[1]]
        if not gaps or not rows:
            return False
        start, end = max(gaps, key=lambda g: (g[1] - g[0], -g[0]))
        head = marker(self.lines.chars(start, end), end - start)
        base = Cand(start, end, priority, (head,))
        if not self._fits_replacing(base):
            return False
        room = self.max_chars - self._total_with(base)[0]
        rows_left = self.max_lines - self._total_with(base)[1]
        chosen: list[str] = []
        for row in rows:
            cost = len(row) + 1
            if cost > room or rows_left < 1:
                break
            chosen.append(row)
            room -= cost
            rows_left -= 1
        if not chosen:
            return False
        return self.try_add(Cand(start, end, priority, (head, *chosen)))

    def _fits_replacing(self, cand: Cand) -> bool:
        chars, count = self._total_with(cand)
        return chars <= self.max_chars and count <= self.max_lines

    def _total_with(self, cand: Cand) -> tuple[int, int]:
        """Characters and lines of the output if `cand` (inside a gap) were added."""
        i = bisect_left(self.sel_starts, cand.start)
        left, right = self.sel[i - 1], self.sel[i]
        gc, gl = self._gap(left.end, right.start)
        ac, al = self._gap(left.end, cand.start)
        bc, bl = self._gap(cand.end, right.start)
        pc, pl = self._cost(cand)
        return self.chars - gc + ac + bc + pc, self.nlines - gl + al + bl + pl

    def add_marks(self, priority: dict[int, int], least: int = 0, below: int = 1 << 30) -> None:
        """`add_all` for single lines given as {line: priority}, those with
        `least <= priority < below`."""
        # highest priority first, the later line first among equals: two sorts in C (line
        # indices are unique, and a stable sort keeps the first order among equal priorities)
        order = sorted(priority, reverse=True)
        order.sort(key=priority.__getitem__, reverse=True)
        misses = 0
        for i in order:
            p = priority[i]
            if not least <= p < below:
                continue
            if self.try_add(Cand(i, i + 1, p)):
                misses = 0
            else:
                misses += 1
                if misses >= MAX_MISSES and self.nearly_full():
                    break

    def gaps(self) -> list[tuple[int, int]]:
        """The omitted ranges (before gap filling) between the selected pieces."""
        out = []
        for a, b in zip(self.sel, self.sel[1:], strict=False):
            if b.start > a.end:
                out.append((a.end, b.start))
        return out

    def plan(self) -> Plan:
        """The selection as a plan, small gaps filled with the lines themselves."""
        plan: Plan = []
        pieces = self.sel[1:-1]
        prev_end = 0
        prev_priority = FLOOR
        for cand in pieces:
            if cand.start > prev_end and self._filled(prev_end, cand.start):
                plan.append(Keep(prev_end, cand.start, min(prev_priority, cand.priority)))
            if cand.summary is not None:
                plan.append(Summary(cand.summary, cand.start, cand.end, cand.priority))
            else:
                plan.append(Keep(cand.start, cand.end, cand.priority))
            prev_end = cand.end
            prev_priority = cand.priority
        if pieces and self.n > prev_end and self._filled(prev_end, self.n):
            plan.append(Keep(prev_end, self.n, prev_priority))
        return plan


def finish(plan: Plan, n: int) -> Plan | None:
    """Decline (None) when a plan keeps nothing or keeps every line verbatim."""
    if not plan:
        return None
    kept = sum(p.end - p.start for p in plan if isinstance(p, Keep))
    if kept >= n and all(isinstance(p, Keep) for p in plan):
        return None
    if not any(isinstance(p, Keep) for p in plan):
        return None
    return plan


def runs(indices: list[int]) -> list[tuple[int, int]]:
    """Maximal runs of consecutive line indices, as [start, end) ranges."""
    out: list[tuple[int, int]] = []
    for i in indices:
        if out and out[-1][1] == i:
            out[-1] = (out[-1][0], i + 1)
        else:
            out.append((i, i + 1))
    return out


_MASK = re.compile(r"0x[0-9a-fA-F]+|\d+")


def template(line: str) -> str:
    """A line with its numbers masked, for grouping repeats."""
    return _MASK.sub("#", line)


_ID = re.compile(r"(?<![\w.:/-])[\w.:/-]*\d[\w.:/-]*")


def kind(line: str) -> str:
    """A line with every token holding a digit masked (numbers, ids like `req-0006e`, times,
    versions, `file.js:11:92`): lines that say the same thing about different requests, jobs or
    places share it."""
    return _ID.sub("#", line)


def line_regex(pattern: str) -> re.Pattern[str]:
    """`pattern` compiled for whole-text scans (`re.M`), with `\\s` outside character classes
    narrowed to spaces and tabs so that no match runs across a line break."""
    out: list[str] = []
    i = 0
    in_class = False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            pair = pattern[i : i + 2]
            out.append("[ \\t]" if pair == "\\s" and not in_class else pair)
            i += 2
            continue
        if c == "[" and not in_class:
            in_class = True
            if pattern[i + 1 : i + 2] == "]":
                out.append("[]")
                i += 2
                continue
        elif c == "]" and in_class:
            in_class = False
        out.append(c)
        i += 1
    return re.compile("".join(out), re.M)


def named_union(**groups: re.Pattern[str]) -> re.Pattern[str]:
    """One line regex matching what any of `groups` (each anchored with `^`) matches at a line
    start, in a group named after the pattern, so that one pass tells them apart (`lastgroup`)."""
    parts = []
    for name, pattern in groups.items():
        if not pattern.pattern.startswith("^"):
            raise ValueError(f"{name}: a line pattern starts with ^")
        parts.append(f"(?P<{name}>{pattern.pattern[1:]})")
    return line_regex("^(?:" + "|".join(parts) + ")")


LOG_LINE = re.compile(
    r"^(?:<\d{1,3}>"
    r"|\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}"
    r"|\[?\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\]? "
    r"|\[?(?:TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|FATAL|CRITICAL|SEVERE)\]?[\s:]"
    r"|[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} "
    r"|\S+ \S+ \S+ \[\d{2}/\w{3}/\d{4}:\d{2}:\d{2}:\d{2}"
    r"|[IWEF]\d{4} \d{2}:\d{2}:\d{2}"
    r"|\d{10}(?:\.\d+)? "
    r"|(?:time|ts|timestamp)=\S+ "
    r"|level=\w+ "
    r"|\{\"(?:time|ts|timestamp|@timestamp|level|lvl|severity|msg|message|t)\":"
    r")",
    re.M,
)
"""A line that starts like a log record: a syslog priority (`<11>`, as `logger -s` and `dmesg -r`
print), a timestamp, a level, a syslog or access-log prefix."""


def _signal_regex() -> re.Pattern[str]:
    words = "|".join(re.escape(word) for word in sorted(STRONG_WORDS, key=len, reverse=True))
    return re.compile(rf"(?<![\w./\\-])(?:{words})", re.I)


SIGNAL = _signal_regex()
"""A word of trouble (`denied`, `refused`, `could not`...) starting a word that is not part of a
name or a path (`libgpg-error`, `src/errors/` are no signal): what a reducer must not rank as
routine, whatever tool printed it."""


def is_log_line(line: str) -> bool:
    """Whether `line` starts like a log record."""
    return LOG_LINE.match(line) is not None


def lines_containing(lines: Lines, needles: tuple[str, ...]) -> list[int]:
    """Indices of the lines holding any of `needles` (plain substring search, fast)."""
    text = lines.text
    starts = lines.starts
    found: set[int] = set()
    for needle in needles:
        pos = text.find(needle)
        while pos != -1:
            i = bisect_right(starts, pos) - 1
            found.add(i)
            pos = text.find(needle, starts[i + 1])
    return sorted(found)


ANCHOR_PROBE = 32_768
"""Characters of the text's head counted to pick each needle's rarest character."""
ANCHOR_SPACING = 1_000
"""A needle's rarest character is looked for one by one when it is expected about once in
this many characters or less (up to twice that often when the head misled): each costs about
what a search of the whole needle does over that many characters."""


def lines_holding(lines: Lines, needles: tuple[str, ...]) -> list[int]:
    """`lines_containing` for needles that are rare in big texts: the rarest character of each
    needle (counted in the text's head) is looked for with `str.find` of one character (a
    `memchr`, many times faster than any search of a word) and the needles it anchors checked
    around each one; a needle without a rare character is searched for whole, by the regex
    engine (its scan for a literal beats `str.find`'s on text full of digits)."""
    text, starts = lines.text, lines.starts
    probe = text[:ANCHOR_PROBE]
    seen = {c: probe.count(c) * len(text) // max(1, len(probe)) for c in set("".join(needles))}
    limit = len(text) // ANCHOR_SPACING
    anchored: dict[str, list[tuple[str, int]]] = {}
    plain: list[tuple[str, int]] = []
    # a needle holding another one finds no line that the other does not
    for needle in dict.fromkeys(n for n in needles if not any(o != n and o in n for o in needles)):
        at = min(range(len(needle)), key=lambda k: seen[needle[k]])
        if seen[needle[at]] <= limit:
            anchored.setdefault(needle[at], []).append((needle, at))
        else:
            plain.append((needle, 0))
    found: set[int] = set()
    for char, group in anchored.items():
        first = min(at for _, at in group)
        pos, hits = text.find(char, first), 0
        while pos != -1 and hits < 2 * limit:
            hits += 1
            for needle, at in group:
                if pos >= at and text.startswith(needle, pos - at):
                    found.add(bisect_right(starts, pos - at) - 1)
            pos = text.find(char, pos + 1)
        if pos != -1:  # too common after all: the rest searched for whole
            plain.extend((needle, max(0, pos - at)) for needle, at in group)
    for needle, start in plain:
        for m in re.compile(re.escape(needle)).finditer(text, start):
            found.add(bisect_right(starts, m.start()) - 1)
    return sorted(found)


RARE_SHARE = 0.01
"""A value of a categorical column is rare in at most this share of the rows (at least one)."""
MAX_RARE_ROWS = 6
CATEGORIES = 12
"""A column with at most this many distinct values is categorical."""
FAR = 10.0
"""An extreme numeric value stands out when its distance from the median is this many times the
next value's distance (or the spread of the middle half)."""
MIN_TABLE_ROWS = 20
EMPTY_SHARE = 10
"""A column's empty cells stand out when at most one row in this many has one."""
_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")


def table_outliers(table: list[list[str]]) -> dict[int, bool]:
    """`{row: rare}` for the rows of a table (cells already split) that stand out in a column:
    `True` for a rare value of a categorical column (a status seen in one row in 100), `False`
    for the largest or smallest value of a numeric column when it lies far from the others."""
    if len(table) < MIN_TABLE_ROWS:
        return {}
    width = min(len(row) for row in table)
    found: dict[int, bool] = {}
    for j in range(width):
        column = [row[j] for row in table]
        counts = Counter(column)
        empty = counts.get("", 0)
        if 0 < empty <= MAX_RARE_ROWS and empty * EMPTY_SHARE <= len(column):
            # a missing value where the column is otherwise filled (a row that lost its join)
            found.update(dict.fromkeys((k for k, v in enumerate(column) if not v), True))
        if 1 < len(counts) <= CATEGORIES:
            rare = {v for v, c in counts.items() if c <= max(1, RARE_SHARE * len(column))}
            picked = [k for k, v in enumerate(column) if v in rare]
            if 0 < len(picked) <= MAX_RARE_ROWS:
                found.update(dict.fromkeys(picked, True))
            continue
        if not all(_NUMBER.match(v) for v in column):
            continue
        values = sorted((float(v), k) for k, v in enumerate(column))
        middle = values[len(values) // 2][0]
        spread = max(values[3 * len(values) // 4][0] - values[len(values) // 4][0], 1e-9)
        for end, other in ((values[-1], values[-2]), (values[0], values[1])):
            if abs(end[0] - middle) > FAR * max(abs(other[0] - middle), spread):
                found.setdefault(end[1], False)
    return found


def _is_rule(line: str) -> bool:
    """A table's rule line: dashes or equals signs, with `+`, `|`, `:` or spaces between
    columns (string methods in C, no regex backtracking)."""
    return not line.strip(" \t-=+|:") and (line.count("-") >= 5 or line.count("=") >= 5)


_RULE_NEEDLES = ("-----", "=====")
_CELL_GAP = re.compile(r"\s{2,}|\t")
MAX_TABLES = 50
MAX_TABLE_ROWS = 5_000
"""Rows of one table read for its peaks (the first ones)."""
HEADER, EDGE, PEAK = "header", "edge", "peak"


TABLE_PRIORITY = {HEADER: MID, EDGE: LOW + 5, PEAK: LOW + 5}
"""What a reducer that does not read tables itself gives a table's lines."""


def table_roles(lines: Lines) -> dict[int, str]:
    """The lines that make a table inside any output readable, by role: its header row (the
    line above a rule line) `HEADER`; its first and last rows `EDGE`; the row with the largest
    value of each numeric column `PEAK`. Columns are the rule's segments when it has several
    (`------ ------`), else runs of two or more spaces. Tables without a rule are found by
    `aligned_tables`."""
    text_lines = lines.lines
    n = len(text_lines)
    roles: dict[int, str] = {}
    tables = 0
    for i in lines_containing(lines, _RULE_NEEDLES):
        if tables >= MAX_TABLES:
            break
        if not (_is_rule(text_lines[i]) and 0 < i < n - 1):
            continue
        header = text_lines[i - 1]
        if _is_rule(header) or len(header.split()) < 2:
            continue
        end = i + 1
        while end < n and end - i <= MAX_TABLE_ROWS and text_lines[end].strip():
            if _is_rule(text_lines[end]):
                break
            end += 1
        if end - i < 3:
            continue
        tables += 1
        roles[i - 1] = HEADER
        rows = range(i + 1, end)
        for j in _peaks(text_lines, rows, _spans(text_lines[i])):
            roles.setdefault(j, PEAK)
        roles[rows[0]] = EDGE
        roles[rows[-1]] = EDGE
        closing = end < n and _is_rule(text_lines[end])
        if closing and end + 1 < n and text_lines[end + 1].strip():
            roles.setdefault(end + 1, EDGE)  # a total under the closing rule
    for i, role in aligned_tables(lines).items():
        roles.setdefault(i, role)
    return roles


MAX_ALIGNED_LINES = 20_000
"""Outputs with more lines are searched for ruled tables only."""
MIN_ALIGNED_ROWS = 5


def _numeric_share(fields: list[str]) -> float:
    return sum(1 for f in fields if _LEADING_NUMBER.match(f + " ")) / len(fields)


def aligned_tables(lines: Lines) -> dict[int, str]:
    """`table_roles` for tables without a rule line: a header of three or more words, none a
    number, over at least `MIN_ALIGNED_ROWS` rows with as many fields or more, mostly numbers
    (`flat  flat%  cum  cum%` over a profile, `PID  %CPU  %MEM` over processes)."""
    text_lines = lines.lines
    n = len(text_lines)
    roles: dict[int, str] = {}
    if n > MAX_ALIGNED_LINES:
        return roles
    i = 0
    while i < n - MIN_ALIGNED_ROWS:
        header = text_lines[i].split()
        if len(header) < 3 or _numeric_share(header) > 0 or not _row(text_lines[i + 1], header):
            i += 1
            continue
        end = i + 1
        while end < n and _row(text_lines[end], header):
            end += 1
        if end - i - 1 >= MIN_ALIGNED_ROWS:
            rows = range(i + 1, end)
            roles[i] = HEADER
            for j in _peaks(text_lines, rows, None, words=True):
                roles.setdefault(j, PEAK)
            roles[rows[0]] = EDGE
            roles[rows[-1]] = EDGE
        i = end
    return roles


def _row(line: str, header: list[str]) -> bool:
    """Whether `line` reads as a row under `header`: as many fields or more, half numbers."""
    fields = line.split()
    return len(header) <= len(fields) <= len(header) + 3 and _numeric_share(fields) >= 0.5


def _spans(rule: str) -> list[tuple[int, int]] | None:
    """The column spans of a rule made of several dash runs, None for one unbroken rule."""
    spans = [(m.start(), m.end()) for m in re.finditer(r"[-=]+", rule)]
    return spans if len(spans) >= 2 else None


def _peaks(
    text_lines: list[str], rows: range, spans: list[tuple[int, int]] | None, words: bool = False
) -> set[int]:
    """Rows holding the largest value of each column whose filled cells are mostly numbers."""
    cells: list[list[str]] = []
    for j in rows:
        line = text_lines[j]
        if spans is not None:
            cut = [
                line[a : (spans[k + 1][0] if k + 1 < len(spans) else len(line))]
                for k, (a, _) in enumerate(spans)
            ]
            cells.append([c.strip() for c in cut])
        else:
            cells.append(line.split() if words else _CELL_GAP.split(line.strip()))
    width = max((len(row) for row in cells), default=0)
    found: set[int] = set()
    for column in range(width):
        values: list[tuple[float, int]] = []
        filled = 0
        for k, row in enumerate(cells):
            if column < len(row) and row[column]:
                filled += 1
                m = _LEADING_NUMBER.match(row[column])
                if m is not None:
                    values.append((float(m.group(1).replace(",", "")), k))
        # a blank cell holds no value: the column is numeric by the cells that hold one
        if len(values) >= max(3, filled * 0.6):
            found.add(rows[max(values)[1]])
    return found


_LEADING_NUMBER = re.compile(r"^-?(\d[\d,]*(?:\.\d+)?)(?:\s|$|[%a-zA-Z(])")
