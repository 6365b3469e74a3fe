"""Salience: which lines of any output matter most, without knowing its shape.

One pass groups the lines by template (the line without digits, hex letters, white space and
number punctuation, so lines that differ only in a number, an id or a duration share one).
The regular expressions then run once over one representative line of each template, not over
every line, and what they find holds for the whole group:

- signal words (error, fail, fatal, exception, panic, denied, refused, conflict, traceback,
  abort, segfault, exhausted, overflow, one-letter codes like `E0308`, a non-zero exit, a count
  above zero of a trouble as in `failed=1`...) and weaker ones (warning, skipped), unless they
  are part of a name (`liberror`, `src/errors/`, `lib/ErrorHandling.pm`, `std::panicking::…`),
  a denial (`0 errors`, `NOERROR`) or a numbered line of quoted code (`464│ raise X(...)`);
- summaries with counts in any words (`211 warnings and 2 errors`, `Tests: 3 failed, 40 passed`)
  or lines labelled as one (`SUMMARY: ...`, `Result: FAIL`);
- structure: section headings, table header rows (the row above a `----` rule, or words aligned
  with the numeric rows under them), the first lines of blocks after a blank line, the first
  and the last lines of the output.

A repeated template is represented by its first and last lines; its middle lines are routine,
but the odd one among them (a text seen once among repeats, a template seen once or twice in a
family of repeats) and, in a template whose first line counts zero, the lines that count more.
A distinct strong line brings its subject: the line above it, the first line of its block, the
first source location under it. In a repetitive output, a template seen once is itself a signal
(but rows of encoded data). Rows that stand out in a column of a table, and lines sharing an id
with an error, rank too.

`order` gives line indices, most important first; among equals the later line first (the last
error and the final summary outrank the first ones). The pipeline adds lines in that order while
they fit the budget, so every gap keeps its exact omission marker, and tells the `Ranking` what
it kept: the neighbours of a kept signal, heading or summary rank next (context grows around
what is kept, within its block); then lines from both ends, as a blind cut would keep them.
"""

from __future__ import annotations

import heapq
import math
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from itertools import islice, pairwise
from typing import NamedTuple

from klipui.shrink import linemodel
from klipui.shrink.plan import Hint, Keep
from klipui.shrink.segments import Region
from klipui.shrink.text import Lines, chunks

DESCRIBE = "signal, summary, heading and distinct lines kept, with both ends"

END = 1000
"""The last non-blank line and the first line, and a non-zero exit status."""
SUMMARY = 950
STRONG = 900
FLOOR = 800
"""Lines a head+tail cut of a share of the budget keeps, from both ends."""
END_BAND = 540
"""The next `budget // FLOOR_SHARE` characters from each end: below weak signals, table outliers
and headings, above context and rare lines."""
ROUTINE = 3
ROUTINE_BAND = 200
"""A line near an end whose template is seen `ROUTINE` times or more (one of a run of alike
lines) ranks this much lower in the end band: below context and rare lines."""
PLANNED = 880
"""Lines a region's reducer keeps at its top priority."""
PLAN_STEP = 150
PLAN_LINES = 400
"""Lines of one kept piece of a region's plan that are ranked (the rest come from both ends)."""
HEADING = 700
DEFINITION = 720
"""A definition in code (`class Undefined:`, `path:12:def f(`): a heading of code."""
WEAK = 600
REPEATED = 500
ODD_STEP = 100
"""An odd one among repeats ranks this much above them: a line whose text is seen once in a
template whose lines repeat (`5 errors generated.` among `2 errors generated.`), or this much
below its family's last line for a template seen at most twice in a family of repeats."""
"""The middle lines of a repeated template that carries a strong signal."""
FEW_REPEATS = 4
FEW_MIDDLE = 620
"""The middle lines of a family of strong signals of at most `FEW_REPEATS` lines (the same error
in a few files) rank above weak signals: each names another place."""
CONTEXT = (450, 350, 250)
"""Lines 1, 2 and 3 away from a strong line."""
SUBJECT = 530
"""The line above a distinct strong line and the first line of its block (what the signal is
about): context, above the middle lines of repeated signals, below the end band."""
WHERE = 610
"""The first source location under a distinct strong line: where the error is, above weak
signals (a warning's last line) and the end bands."""
WEAK_WHERE = 520
"""The first source location under a distinct weak signal: below an error's subjects."""
SUBJECT_REACH = 12
LOCATION_REACH = 6
"""The first source location (`src/main.rs:16:21`, `line 5`) 2 to this many lines under a
distinct strong line, within its block, is its subject too (the line just under it is context
already)."""
_LOCATION = re.compile(r"[\w.-]\.\w{1,8}[:(]\d+|\bline \d+")
MAX_SUBJECTS = 64
RARE = 400
NOVEL = 150
DISTINCT = 300
BLOCK = 200

FLOOR_SHARE = 6
HEAD_FLOOR_SHARE = 9
"""The tail's floor is `budget // FLOOR_SHARE` characters of whole lines, the head's
`budget // HEAD_FLOOR_SHARE` (the end of an output says how it ended more often than its start
says what matters), taken before anything else; the next as many characters from each end rank
at `END_BAND`."""
_NAMES = re.compile(
    r"\"[^\"\n]*\"|'[^'\n]*'|‘[^‘’\n]*’|“[^“”\n]*”|`[^`\n]*`"
    r"|(?<![^\s/\\])[^\s/\\]*+[/\\]\S*|(?<=[\"'’”`])[^\s/\\\"'’”`]*+[/\\]\S*"
    r"|\b\w*[_.]\w+|\b[A-Z][a-z0-9]+[A-Z]\w*"
)
"""Quoted strings, paths, dotted, snake_case and CamelCase names: what varies between lines that
say the same thing about different things. Linear in the line's length: a path is looked for only
from the start of a word, a slash or a closing quote, and each scan stops where the next may
begin (a scan from every character of a long run without spaces cost its square)."""
REPETITIVE = 0.3
"""Share of lines in templates seen at least 3 times above which a unique template is rare."""
MAX_BLOCK_STARTS = 4_000
MAX_SPREAD_LINES = 4_000
"""Middle lines of repeated signal templates are ranked when there are at most this many."""
MAX_SPREAD = 32
"""Up to this many repeated signal templates are located by `list.index` (a scan in C each)."""
READ_TOOLS = ("read", "cat", "view", "open")
HEAD_TOOLS = ("grep", "search", "find", "glob", "read", "cat", "view")

MAX_ECHO_CHARS = 2_000_000
MAX_ECHO_SOURCES = 24
MAX_ECHO_TOKENS = 32
MAX_ECHOES = 4
"""An id found more often than this is no link between lines (a date, a host name)."""
ECHO = 420
ECHO_BLOCK = 6
_ID = re.compile(
    r"(?<![\w-])[\w-]+\.\w+:\d+(?::\d+)?|0x[0-9a-fA-F]{4,}|\b\d{4,}\b"
    r"|\b[A-Za-z_][\w-]{0,99}\d[\w-]{0,99}\b"
    r"|(?<![\w.-])[A-Za-z][\w-]{0,62}(?:\.[A-Za-z][\w-]{0,62}){2,6}(?![\w-])"
)
"""Ids: source locations (`main.rs:14:27`), addresses, numbers of 4 digits or more, names
holding a digit, dotted names of three parts or more (a host `npm.internal.example`, a module
`com.acme.metrics`). Linear in the line's length: a location starts a word, a name's scan is bounded
(a scan from every character of a long word cost its square)."""
_QUOTED_NAME = re.compile(r"'([^'\s]{3,80})'|\"([^\"\s]{3,80})\"|`([^`\s]{3,80})`")
"""A quoted name without spaces in a strong line (`'libs/metrics'`): an id of what failed."""
MAX_COLUMN_LINES = 20_000
"""Outputs with more lines are not read as tables (their templates must do)."""
MIN_TABLE_ROWS = 12
COLUMN_QUANTILE = 0.8
MAX_COLUMNS = 12
MAX_OUTLIERS = 12
OUTLIER_CHARS = 250
"""A column's rare rows are kept together up to `MAX_OUTLIERS` rows, or one row for each
`OUTLIER_CHARS` characters of the budget when that is more."""
TOP_VALUES = 6
COLUMN_RARE = 620
COLUMN_TOP = 610
HEADER_ROWS = 3
"""A header row is aligned with each of the next this many rows."""
_KEY_VALUE = re.compile(r"[ \t]*([^\W\d][^:\n]{0,60}):[ \t]+(\S[^\n]{0,200})$")
"""A `key: value` line (the key starts with a letter and holds no colon)."""
MIN_KEY_VALUES = 5
MIN_RECORDS = 3
RECORD_LINES = 4
"""Lines of an unusual record ranked: its first line, its names, its rarest values; the
records take turns (each one's first line, then each one's second...)."""
ODD_RECORD = 580
ODD_RECORD_CHARS = 500
"""The most unusual records of an output made of records rank just below a small table's rows,
one record for each `ODD_RECORD_CHARS` characters of the budget (at most `MAX_ODD`)."""
_RECORD_KEY = re.compile(r"[ \t]*[A-Za-z>][\w >.()-]{0,40}[:=]")
"""The key of a field of a record (`Location:`, `Lines executed:`, `maxmemory=`)."""
_PAIR = re.compile(r"(?<![\w.=-])([A-Za-z_][\w.-]{0,40})=([^\s,;&=]{1,80})")
"""A `key=value` field (`status=200`, `rejected_calls=0`)."""
_COUNT = re.compile(r"\b\d+(?:\.\d+)?\b")
_SETTING = re.compile(
    r"(?:[^\t]*\t)*[;#]?\s*([A-Za-z_][\w.\-/\[\]]{2,60}?)(?:\s*(?:=>|=)\s*|:\s+)(\S.{0,120})"
)
"""A line that sets a key: the key (after origin columns ending in tabs, or commented out with
`;` or `#`), then `=`, `=>` or `: `, then its value."""
MIN_SETTINGS = 15
SET_ONCE = 0.7
"""A listing of settings sets at least this share of its keys once."""
SETTING_CHARS = 240
"""A setting is read in the first this many characters of its line (a hostile line of tabs costs
no more)."""
NONZERO = 640
MAX_ODD = 6
"""A line whose number is not zero where that number is zero on most lines of its template (on
all but at most a quarter of them, and at most `MAX_ODD` lines); `MAX_ODD` bounds the odd
values of a family or a column too."""
MAX_PEAK_ROWS = 200
ODD_VALUE = 640
"""A value of its own where more than half of a family of `key: value` lines (at least
`MIN_KEY_VALUES`) or of a table's column share one value: above a column's rarest rows of a
large table and weak signals, below headings and their first lines."""
PEAK = 615
"""The row with the largest value of a column of percentages: above the largest values of the
columns of a large table."""
_EXPLANATION = re.compile(r"[ \t]*(?:[#>|*]+|//)?[ \t]*\(")
SMALL_TABLE = 8
TABLE_ROW = 590
"""The rows of a table of at most `SMALL_TABLE` rows whose rows are apart: below weak signals
and a large table's outliers, above the end bands."""
MAX_HEADER_CHECKS = 2_000
_DIGIT = re.compile(r"\d")
_UNDERLINE = re.compile(r"^[ \t]*[=─-]{3,}[ \t]*$")
"""A line of `=` or `-` that underlines a header row."""
_FIELD = re.compile(r"\S+")
_NUMBER = re.compile(r"[-+]?(\d[\d,]*(?:\.\d+)?)[ \t]*(%|[KMGTkmgt](?:i?B)?|B|ms|s|us|µs)?")
_UNITS = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}

_NOVEL_WORD = re.compile(r"[A-Za-z]{4,}")
_TEMPLATE_DROP = b"0123456789abcdefABCDEF.,: \t\r"
"""Bytes a template leaves out: digits, hex letters (ids, hashes), number punctuation, white
space. Lines that differ only in these are one template."""

STRONG_WORDS = (
    "error", "exception", "fail", "fatal", "panic", "denied", "refus", "conflict", "unmerged",
    "traceback", "abort", "segfault", "segmentation fault", "core dumped", "cannot", "can't",
    "could not", "couldn't", "unable to", "not found", "no such", "undefined", "unresolved",
    "critical", "killed", "out of memory", "timed out", "timeout", "unreachable", "assert",
    "mismatch", "uncaught", "unhandled", "violation", "invalid", "leak", "crash", "missing",
    "broken", "reject", "forbidden", "unauthori", "permission", "err!", "errno", "exhaust",
    "overflow", "corrupt", "deadlock", "no space left", "illegal", "malformed", "unsupported",
    "incompatible", "expired", "vulnerable", "insecure", "unexpected", "not allowed",
    "inconsistent",
)  # fmt: skip
"""Words of trouble, lower case, each a prefix of the words it stands for (`fail`: failed)."""
COMMON_SHARE = 0.25
"""In search results, a signal word found on more than this share of the distinct lines is what
was searched for (`grep -rn undefined`), not a sign of trouble."""
_SEARCH = re.compile(r"^\s*(?:grep|egrep|rg|ag|ack|git\s+grep|findstr|select-string)\b")
INSIDE_NAMES = ("error", "exception")
"""Signal words also found inside a name (`ValueError`, `NullPointerException`)."""
WEAK_WORDS = (
    "warn", "deprecat", "skip", "xfail", "xpass", "retry", "retrying", "caused by", "expected",
    "actual", "hint:", "note:", "help:", "todo", "fixme", "cancel", "interrupt", "stopped",
    "unknown", "ignored", "not ok", "slow",
)  # fmt: skip
EXIT_WORDS = ("exit", "non-zero", "nonzero", "status", "process finished", "returned")
COUNT_WORDS = (
    "test", "pass", "problem", "issue", "file", "package", "item", "check", "example", "spec",
    "vulnerabilit", "insertion", "change", "total", "found", "done",
)  # fmt: skip
"""With the signal words, the words a summary line with counts contains."""
_CODE = re.compile(r"[A-Z]+[0-9]{3,5}\b|[A-Z]+-[0-9]{3,5}\b")
_SEVERITY_LETTER = re.compile(r"^[ \t]*([EFW]):[ \t]+\S", re.MULTILINE)
"""A line led by a one-letter severity (`E: Unable to locate package`, `W: pkg: no-manual-page`):
E and F are errors, W a warning."""
_EXIT = re.compile(
    r"(?i)exit(?:ed)?(?: with)?(?: code| status)?[ :=]+-?[1-9]\d*\b|non-?zero (?:exit|status)"
    r"|returned non-zero|exit (?:code|status)|\bstatus[ :=]+[1-9]\d*\b|process finished"
)
_SUMMARY = re.compile(
    r"(?<![\d,.])(?>[\d,.]*?\b(?=\d))[\d,.]++(?:\s*+%)?\s++[A-Za-z][\w()+-]*"
    r"(?:\s+[A-Za-z][\w()+-]*)?\s*(?:,|;|\band\b|\|)"
    r".{0,60}?\b\d[\d,.]*+(?:\s*+%)?\s++[A-Za-z]"
    r"|(?i:(?<![\d,.])(?>[\d,.]*?\b(?=\d))[\d,.]++\s+(?:tests?|passed|failed|failures?|errors?"
    r"|warnings?|skipped|problems?"
    r"|issues?|files?|packages?|items?|checks?|examples?|specs?|suites?|assertions?|cases?"
    r"|vulnerabilit\w+|commits?|insertions?|deletions?|changes?|modules?|crates?|targets?"
    r"|lines?|records?|rows?)\b(?!=))|(?i:\b(?:total|found|done)\b.*\d)"
)
"""A summary with counts. A number is tried once a run of digits, commas and dots, from its
first digit at a word boundary (the same matches as from every such digit, in linear time: a
line of `1,1,1,…` made the search quadratic)."""
_LABELLED = re.compile(
    r"^[ \t]*\W{0,3}(?i:summary|results?|totals?|verdict|outcome)[ \t]*:[ \t]*\S", re.MULTILINE
)
"""A line that says it is the summary or the result (`SUMMARY: AddressSanitizer: ...`,
`Result: FAIL`)."""
_HEADING = re.compile(
    r"^(?:#{1,6}[ \t]\S|[=*#~-]{3,}[ \t]*\S|\S[^\n]{0,78}:[ \t]*$|[A-Z][A-Z0-9 _/&()-]{2,60}$"
    r"|\[[^\]\n]{1,60}\]$|[$+>] \S|==> |---+ \S|\S[^\n]{0,60} [=-]{3,}$)",
    re.MULTILINE,
)
_DEFINITION = re.compile(
    r"^(?:[^\s:]+:\d+[:-])?[ \t]*(?:(?:export|pub|async|public|private|static|abstract|default)"
    r"[ \t]+)*(?:class|def|function|fn|func|struct|interface|trait|enum|impl|module|type)[ \t]+"
    r"[A-Za-z_$][\w$]*[ \t]*[(:<{=\[]",
    re.MULTILINE,
)
"""A definition in code, or in a grep match of code: `class Undefined:`, `path:12:def f(`."""
_ZERO = re.compile(
    r"\b(?:errors?|failures?|failed|failing|fatal|warnings?|skipped|conflicts?|problems?"
    r"|missing|broken|crash\w*|leaks?|vulnerabilit\w*|issues?)\b[ \t]*[:=]?[ \t]*0\b(?![.\d])"
    r"|(?<![=:])\b0[ \t]+(?:[a-z]+[ \t]+)?(?:errors?|failures?|failed|warnings?|conflicts?"
    r"|problems?|vulnerabilit\w*|leaks?|issues?)\b"
    r"|\bno (?:errors?|failures?|problems?|issues?|warnings?|conflicts?|leaks?)\b"
    r"|\bwithout (?:errors?|failures?|warnings?)\b"
    r"|\b[a-z_]+[\"']?[ \t]*[:=][ \t]*(?:none|null|nil|false|\[\]|\{\}|\"\"|'')(?![\w.-])"
)
"""Counts of zero and denials ("0 errors", "Failures: 0", "no errors"), and a field named by
a trouble word with an empty value (`timeout: None`, `"error": null`): not a signal."""
_DATA = re.compile(r"\s*(?:[0-9A-Fa-f]{2,8}[ \t:-]+){8}|\s*[A-Za-z0-9+/]{40,}={0,2}\s*$")
"""A row of encoded data: a hex dump (8 groups of hex digits and more) or a base64 block."""
_COUNT_AFTER = re.compile(r"[\w-]*[ \t]*[:=][ \t]*[1-9]")
_COUNT_BEFORE = re.compile(r"(?<![^\s(\[])[1-9]\d*[ \t]+\Z")
"""A count above zero of the trouble a word names (`failed=1`, `errors: 2`, `3 errors`): a
report, however long its line."""
_SGR = re.compile(r"\x1b\[[\d;]*m")
_RED = re.compile(r"\x1b\[(?:\d+;)*(?:31|91)(?:;\d+)*m")
"""A colour sequence, and one that turns the text red."""
RED = 610
_ANSI_END = re.compile(r"\x1b\[[\d;]*m\Z")
_GUTTER = re.compile(r"^[ \t]*(?:[→>][ \t]*)?(\d{1,7})(?:[ \t]*[│|]|\t)", re.MULTILINE)
"""A line number in the gutter of quoted code (`  464│`, `→ 468│`, ` 12 |`, `961\t`)."""


def _indent(line: str) -> int:
    """The width of the white space `line` starts with (a tab counts as one)."""
    return len(line) - len(line.lstrip(" \t"))


def _gutter(line: str) -> int | None:
    """The gutter line number of `line`, or None."""
    match = _GUTTER.match(line)
    return int(match.group(1)) if match else None


_RULE = re.compile(r"^[ \t]*[-=+|:_ ]*[-=]{3,}[-=+|:_ ]*$", re.MULTILINE)


_EXPANDING = "\u0130"
"""The character whose lower case is two characters long (`İ` → `i̇`)."""
_WORD_START = re.compile(r"[^\W\d]")
_FIELD_GAP = re.compile(r"\S[ \t]{2,}")
_GAP_AT = re.compile(r"[ \t]{2,}")


def _lower_in_place(text: str) -> str:
    """`text` lower-cased character for character, so that offsets stay: a character whose lower
    case is longer (`İ`, the only one in Unicode 15) stays as it is. The text is lowered between
    those characters in C; the character-by-character loop is kept for any other."""
    lowered = _EXPANDING.join(part.lower() for part in text.split(_EXPANDING))
    if len(lowered) == len(text):
        return lowered
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in text)


def _words_only(line: str) -> bool:
    """True for a header-like line: it starts with a letter, has two fields apart by two spaces
    or more, and holds no digit but just before that gap or as its last character (`CPU0  CPU1`
    is one). Read with linear scans: one regex with two nested runs took a time growing with the
    square of a line of spaced fields."""
    if "  " not in line and "\t" not in line:
        return False  # no gap of two blanks: the fields below cannot be apart
    body = line.lstrip(" \t").rstrip(" \t")
    if len(body) < 2 or not _WORD_START.match(body) or body[-1].isspace():
        return False
    digits = [m.start() for m in islice(_DIGIT.finditer(body, 1, len(body) - 1), 2)]
    if not digits:
        return _FIELD_GAP.search(body, 1) is not None
    if len(digits) > 1:
        return False
    return _GAP_AT.match(body, digits[0] + 1) is not None


def _templates(text: str) -> list[bytes]:
    """The template of each line of `text` (as `split_lines` counts them), piece by piece."""
    shapes: list[bytes] = []
    for _, piece in chunks(text):
        encoded = piece.encode("utf-8", "surrogatepass")
        shapes += encoded.translate(None, _TEMPLATE_DROP).split(b"\n")
        if piece.endswith("\n"):
            shapes.pop()
    return shapes


def family(line: str) -> bytes:
    """The template of `line` without its names, paths and quoted strings: lines that say the
    same thing about different things share it."""
    bare = _NAMES.sub("", line).encode("utf-8", "surrogatepass")
    return bare.translate(None, _TEMPLATE_DROP)


def _hits(pattern: re.Pattern[str], text: str, starts: list[int]) -> set[int]:
    """Indices of the `starts`-delimited lines of `text` where `pattern` matches."""
    found: set[int] = set()
    for match in pattern.finditer(text):
        found.add(bisect_right(starts, match.start()) - 1)
    return found


def _word_hits(
    lowered: str, words: tuple[str, ...], starts: list[int], inside: tuple[str, ...] = ()
) -> dict[int, list[tuple[int, int]]]:
    """Where each of `words` begins a word of `lowered` (or anywhere, for those in `inside`),
    as `{line: [(start, end), ...]}`; one hit a word a line (the first)."""
    found: dict[int, list[tuple[int, int]]] = {}
    for word in words:
        anywhere = word in inside
        position = lowered.find(word)
        while position >= 0:
            line = bisect_right(starts, position) - 1
            if anywhere or position == 0 or not lowered[position - 1].isalnum():
                found.setdefault(line, []).append((position, position + len(word)))
                position = lowered.find(word, starts[line + 1])
            else:
                position = lowered.find(word, position + 1)
    return found


def _lines_matching(
    pattern: re.Pattern[str], candidates: Iterable[int], reps: list[str]
) -> set[int]:
    """Those of the `candidates` line indices whose representative matches `pattern`."""
    return {k for k in candidates if pattern.search(reps[k])}


def _severity_letters(text: str, starts: list[int]) -> dict[int, str]:
    """Lines led by a one-letter severity: `{line: letter}`."""
    return {
        bisect_right(starts, match.start()) - 1: match.group(1)
        for match in _SEVERITY_LETTER.finditer(text)
    }


def _code_lines(text: str, starts: list[int]) -> dict[int, str]:
    """Lines with a code like `E0308`, `TS2304`, `SC2086` or `ORA-00942` (1 to 5 capitals then 3
    to 5 digits, a word of its own): `{line: the letter of its first code}`, the letter only for
    a code of one letter (a severity, as in `E0308` or `F401`; not in `ED25519`), else ""."""
    found: dict[int, str] = {}
    for match in _CODE.finditer(text):
        start = match.start()
        if start and (text[start - 1].isalnum() or text[start - 1] in "-_"):
            continue
        letters = len(match.group()) - len(match.group().lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
        if letters > 5:
            continue
        found.setdefault(bisect_right(starts, start) - 1, match.group()[0] if letters == 1 else "")
    return found


def _emphatic(original: str, start: int, end: int) -> bool:
    """True when a signal word at `original[start:end]` reads as a report, not as prose: it is
    capitalised (`Error`, `FAILED`), part of a name (`ValueError`), bracketed or followed by a
    colon or `!`, or its line is short."""
    if original[start].isupper() or (start and original[start - 1].isalpha()):
        return True
    before = original[start - 1] if start else "\n"
    after = original[end : end + 1] or "\n"
    word_end = end
    while word_end < len(original) and original[word_end].isalpha():
        word_end += 1
    following = original[word_end : word_end + 1] or "\n"
    if before in "[<(!*" or after in ":!]>)" or following in ":!]>)\n":
        return True
    line_start = original.rfind("\n", 0, start) + 1
    if _COUNT_AFTER.match(original, word_end) or _COUNT_BEFORE.search(
        original, max(line_start, start - 24), start
    ):
        return True
    line_end = original.find("\n", end)
    line = original[line_start : line_end if line_end >= 0 else len(original)]
    if len(line.split()) > 6:
        return False
    # a short line that names a file or directory after the word (`errors v0.3 (ws/errors)`)
    word = re.escape(original[start:word_end])
    return re.search(rf"(?i)[/\\]{word}(?![\w.-])", line) is None


def _negated(lowered: str, start: int) -> bool:
    """True when the signal word at `lowered[start:]` is joined to a `no` or `non` before it
    (`NOERROR`, `no-error`, `nonfatal`): a denial."""
    j = start - 1 if start and lowered[start - 1] in "-_" else start
    for prefix in ("non", "no"):
        k = j - len(prefix)
        if k >= 0 and lowered.startswith(prefix, k) and (k == 0 or not lowered[k - 1].isalnum()):
            return True
    return False


def _inside_name(original: str, start: int, end: int) -> bool:
    """True when the signal word at `original[start:end]` is part of a name, not a report:
    inside a lower-case word (`liberror`, not `ValueError` or a coloured `\\x1b[91merror`), a
    path (`lib/errors.py`; capitalised, at the start of a path's part: `lib/ErrorHandling.pm`) or
    a lower-case qualified name (`std::panicking::begin_panic`)."""
    if original[start].isupper():
        return bool(start) and original[start - 1] in "/\\"
    if start and original[start - 1].isalpha():
        return not _ANSI_END.search(original, max(0, start - 12), start)
    line_start = original.rfind("\n", 0, start) + 1
    line_end = original.find("\n", end)
    line_end = len(original) if line_end < 0 else line_end
    left = max(original.rfind(" ", line_start, start), original.rfind("\t", line_start, start))
    rights = [k for k in (original.find(c, end, line_end) for c in " \t") if k >= 0]
    token = original[max(left + 1, line_start) : min(rights, default=line_end)]
    return "/" in token or "\\" in token or "::" in token


def searching(hint: Hint) -> bool:
    """True for the results of a search (a grep-like tool or command)."""
    tool = (hint.tool or "").lower()
    return tool in ("grep", "search", "rg") or bool(_SEARCH.match(hint.command or ""))


def _signals(
    lowered: str,
    original: str,
    starts: list[int],
    reps: list[str],
    searching: bool = False,
    quoted: frozenset[int] = frozenset(),
    zeroed: set[int] | None = None,
) -> tuple[set[int], set[int]]:
    """Lines with a strong signal word used as a report, and lines that only mention one (the
    `quoted` lines of code among them); a word in a count of zero or a denial (`0 errors`,
    `Failures: 0`, `no errors`, `NOERROR`) does not count (the lines where a count of zero was
    passed over are added to `zeroed`)."""
    strong: set[int] = set()
    mentions: set[int] = set()
    found = _word_hits(lowered, STRONG_WORDS, starts, INSIDE_NAMES)
    lines_of: Counter[str] = Counter()
    for spans in found.values():
        lines_of.update({lowered[start:end] for start, end in spans})
    # in search results, a word on a large share of the lines is what was searched for
    common = {w for w, c in lines_of.items() if searching and c > COMMON_SHARE * len(reps)}
    for line, spans in found.items():
        zero = [m.span() for m in _ZERO.finditer(reps[line].lower())]
        offset = starts[line]
        for start, end in sorted(spans):
            if any(a <= start - offset < b for a, b in zero):
                if zeroed is not None:
                    zeroed.add(line)
                continue
            if lowered[start:end] in common:
                continue
            if _negated(lowered, start) or _inside_name(original, start, end):
                continue
            if line not in quoted and _emphatic(original, start, end):
                strong.add(line)
                break
            mentions.add(line)
    return strong, mentions - strong


def _line_signal(line: str) -> int:
    """`STRONG` for a line with a strong signal word used as a report, `WEAK` for one that
    mentions one, else 0."""
    lowered = line.lower()
    if len(lowered) != len(line):
        lowered = "".join(c if len(c.lower()) != 1 else c.lower() for c in line)
    strong, mentions = _signals(lowered, line, [0, len(line) + 1], [line])
    return STRONG if strong else WEAK if mentions else 0


class _Templates(NamedTuple):
    """The lines of an output grouped by template."""

    shapes: list[bytes]
    """The template of each line."""
    counts: Counter[bytes]
    first: dict[bytes, int]
    last: dict[bytes, int]
    groups: list[bytes]
    """The templates by their last line, the latest first."""
    reps: list[str]
    """The first line of each template, in the order of `groups`."""


def _group(lines: Lines) -> _Templates:
    shapes = _templates(lines.text)
    last = dict(zip(shapes, range(len(shapes)), strict=True))
    # the first line of each template, found in the order templates first appear (the order of
    # `last`'s keys): each `list.index` scan (in C) starts after the previous first line
    first: dict[bytes, int] = {}
    i = -1
    for shape in last:
        i = shapes.index(shape, i + 1)
        first[shape] = i
    groups = sorted(last, key=last.__getitem__, reverse=True)
    reps = [lines.lines[first[g]] for g in groups]
    return _Templates(shapes, Counter(shapes), first, last, groups, reps)


_last_scan: (
    tuple[
        Lines, tuple[Hint, int], dict[int, int], _Templates | None, dict[int, int], frozenset[int]
    ]
    | None
) = None
"""The scores of the last scan: a shrink that ranks a plan's pieces by salience and then fills
by salience scans the same lines with the same hint and budget twice."""


class Scores:
    """Salience of each line of `lines` (sparse: routine lines have none)."""

    def __init__(self, lines: Lines, hint: Hint, budget: int = 0) -> None:
        self.lines = lines
        self.hint = hint
        self.budget = budget
        self.n = len(lines)
        self.score: dict[int, int] = {}
        self.templates: _Templates | None = None
        self.subjects: dict[int, int] = {}
        """`{line: first line of its record}` for the lines that name their record when kept."""
        self.echoed: set[int] = set()
        """Lines raised for naming again an id or a quoted name of a strong line."""
        self.zeroed: set[int] = set()
        """Templates (by index) whose first line has a signal word in a count of zero."""
        self._headers: list[int] = []
        """The lines before `_headers_read` that `_header_lines` found."""
        self._headers_read = 0
        self._line_fields: dict[int, _Fields] = {}
        """The fields of the lines the table passes read (a line is split once)."""
        global _last_scan
        last = _last_scan
        if last is not None and last[0] is lines and last[1] == (hint, budget):
            self.score = dict(last[2])
            self.templates = last[3]
            self.subjects = last[4]
            self.echoed = set(last[5])
        elif self.n:
            self._scan()
            scan = (dict(self.score), self.templates, self.subjects, frozenset(self.echoed))
            _last_scan = (lines, (hint, budget), *scan)

    def routine(self, i: int) -> bool:
        """True when line `i` shares its template with at least `ROUTINE` lines."""
        t = self.templates
        return t is not None and t.counts[t.shapes[i]] >= ROUTINE

    def _raise(self, index: int, value: int) -> None:
        if self.score.get(index, -1) < value:
            self.score[index] = value

    def _scan(self) -> None:
        t = self.templates = _group(self.lines)
        rep_text = "\n".join(t.reps)
        rep_starts = [0]
        for rep in t.reps:
            rep_starts.append(rep_starts[-1] + len(rep) + 1)
        quoted = self._quoted(rep_text, rep_starts)
        headings = _hits(_HEADING, rep_text, rep_starts) - quoted
        group_score = self._group_scores(rep_text, rep_starts, t.reps, quoted, headings)
        self._families(t, group_score)
        self._counts_above_zero(t, group_score)
        # a table header: the row above a rule line; a heading's first line of content
        for k in _hits(_RULE, rep_text, rep_starts):
            g = t.groups[k]
            for i in (t.first[g], t.last[g]):
                if i > 0:
                    self._raise(i - 1, HEADING)
        for k in headings:
            i = t.first[t.groups[k]]
            if i + 1 < self.n and not _DATA.match(self.lines.lines[i + 1]):
                self._raise(i + 1, HEADING - 50)
        strongest = sorted(i for i, value in self.score.items() if value >= STRONG)
        self._context(strongest)
        self._weak_locations(t)
        self._echoes(strongest)
        self._distinct(t)
        self._columns()
        self._odd_values()
        self._odd_pairs()
        self._overridden()
        self._red()
        self._table_peaks()
        self._small_tables()
        self._nonzero(t)
        self._explained()
        self._table_headers()
        self._copies()
        records = self._records(t, headings)
        self._odd_records(records)
        self._record_subjects(t, records)
        self._blocks()
        self._ends()

    def _group_scores(
        self,
        rep_text: str,
        rep_starts: list[int],
        reps: list[str],
        quoted: frozenset[int],
        headings: set[int],
    ) -> dict[int, int]:
        """The score of each template (by index) its representative line earns: signal words,
        codes, summaries, exit statuses, headings and definitions; in `quoted` lines of code,
        signal words are mentions."""
        lowered = rep_text.lower()
        if len(lowered) != len(rep_text):
            lowered = _lower_in_place(rep_text)
        tool = (self.hint.tool or "").lower()
        reading = any(word in tool for word in READ_TOOLS) or searching(self.hint)
        strong, mentions = _signals(
            lowered, rep_text, rep_starts, reps, searching(self.hint), quoted, self.zeroed
        )
        codes = _code_lines(rep_text, rep_starts)
        strong |= {k for k, letter in codes.items() if letter in ("E", "F")}
        levels = _severity_letters(rep_text, rep_starts)
        strong |= {k for k, letter in levels.items() if letter != "W"}
        weak = (
            set(_word_hits(lowered, WEAK_WORDS, rep_starts)) | set(codes) | set(levels) | mentions
        )
        counted = set(_word_hits(lowered, COUNT_WORDS, rep_starts)) | strong | weak
        group_score: dict[int, int] = {}
        for found, value in (
            (headings, HEADING),
            (_hits(_DEFINITION, rep_text, rep_starts), DEFINITION),
            (weak, WEAK if not reading else BLOCK),
            (strong, RARE + 20 if reading else STRONG),
            (_lines_matching(_SUMMARY, counted, reps), SUMMARY if not reading else HEADING),
            (_hits(_LABELLED, rep_text, rep_starts), SUMMARY if not reading else HEADING),
            (_lines_matching(_EXIT, _word_hits(lowered, EXIT_WORDS, rep_starts), reps), END),
        ):
            for k in found:
                if group_score.get(k, -1) < value:
                    group_score[k] = value
        return group_score

    def _quoted(self, rep_text: str, rep_starts: list[int]) -> frozenset[int]:
        """Templates (by index) of numbered lines of quoted code (`464│ raise X(...)`,
        `961\t    except OSError:`): a line with a number gutter next to a line numbered one
        more or one less. Their signal words name code; they report nothing."""
        t = self.templates
        if t is None:
            return frozenset()
        lines, found = self.lines.lines, set()
        for k in _hits(_GUTTER, rep_text, rep_starts):
            i = t.first[t.groups[k]]
            number = _gutter(lines[i])
            if number is not None and any(
                0 <= j < self.n and _gutter(lines[j]) in (number - 1, number + 1)
                for j in (i - 1, i + 1)
            ):
                found.add(k)
        return frozenset(found)

    def _families(self, t: _Templates, group_score: dict[int, int]) -> None:
        """Templates that differ only in names, paths and quoted strings (the same message about
        another thing) form one family: its last line scores fully, its first a little less,
        the lines between less still (`REPEATED` for a strong signal)."""
        families: dict[tuple[bytes, int], list[bytes]] = {}
        for k, value in group_score.items():
            g = t.groups[k]
            if g == b"" and value < STRONG:
                continue  # lines of only digits, rules or white space, repeated
            families.setdefault((family(t.reps[k]), value), []).append(g)
        spread: dict[bytes, int] = {}
        for (_, value), members in families.items():
            lo = min(t.first[g] for g in members)
            hi = max(t.last[g] for g in members)
            self._raise(hi, value)
            if lo != hi:
                self._raise(lo, value - 50)
                total = sum(t.counts[g] for g in members)
                if total > 2:
                    middle = REPEATED if value >= STRONG else min(value, DISTINCT)
                    if 2 * total > self.n:
                        middle = min(middle, DISTINCT)
                    elif value >= STRONG and total <= FEW_REPEATS:
                        middle = FEW_MIDDLE
                    for g in members:
                        spread[g] = max(spread.get(g, 0), middle)
                    if max(t.counts[g] for g in members) > 2:
                        self._odd_members(t, members, value - ODD_STEP)
        if sum(t.counts[g] for g in spread) > MAX_SPREAD_LINES:
            return  # so many repeats that their first and last must do
        if len(spread) > MAX_SPREAD:
            for i, shape in enumerate(t.shapes):
                spread_at = spread.get(shape)
                if spread_at is not None:
                    self._raise(i, spread_at)
            return
        lines = self.lines.lines
        for shape, value in spread.items():
            i = t.first[shape]
            texts: dict[str, list[int]] = {}
            for _ in range(t.counts[shape]):
                self._raise(i, value)
                texts.setdefault(lines[i], []).append(i)
                i = t.shapes.index(shape, i + 1) if i < t.last[shape] else i
            if len(texts) > 1 and max(len(found) for found in texts.values()) > 2:
                for found in texts.values():
                    if len(found) == 1:
                        self._raise(found[0], value + ODD_STEP)

    def _odd_members(self, t: _Templates, members: list[bytes], value: int) -> None:
        """The templates of a family seen once or twice while another is seen more often (the
        one `Could not resolve "lodash-es"` among many `Could not resolve "./util/fmtN.js"`)
        rank at `value`, above the family's repeats, unless they are most of the family's lines
        (then each thing is named once: none is odd)."""
        odd = [g for g in members if t.counts[g] <= 2]
        if 2 * sum(t.counts[g] for g in odd) > sum(t.counts[g] for g in members):
            return
        for g in odd:
            self._raise(t.first[g], value)
            self._raise(t.last[g], value)

    def _counts_above_zero(self, t: _Templates, group_score: dict[int, int]) -> None:
        """In a template whose first line counts zero of a trouble (`failed=0`, `0 errors`), the
        lines that count more (`failed=1`, `3 errors`): signals, the last fully, the first a
        little less, the others as repeats (at most `MAX_SPREAD` templates and
        `MAX_SPREAD_LINES` lines read)."""
        lines, budget = self.lines.lines, MAX_SPREAD_LINES
        for k in sorted(self.zeroed)[:MAX_SPREAD]:
            g = t.groups[k]
            level = group_score.get(k, 0)
            if t.counts[g] < 2 or level >= STRONG or t.counts[g] > budget:
                continue
            budget -= t.counts[g]
            found: list[tuple[int, int]] = []
            i = t.first[g]
            while i < t.last[g]:
                i = t.shapes.index(g, i + 1)
                value = _line_signal(lines[i])
                if value > level:
                    found.append((i, value))
            for rank, (i, value) in enumerate(found):
                if rank == len(found) - 1:
                    self._raise(i, value)
                elif rank == 0:
                    self._raise(i, value - 50)
                else:
                    self._raise(i, REPEATED if value >= STRONG else DISTINCT)

    def _context(self, strongest: list[int]) -> None:
        """Lines 1, 2 and 3 away from a strong line rank at `CONTEXT`; for a distinct strong line
        (its template seen at most twice), the line just above it and the first line of its
        block (what the signal is about: the file, the query, the test) rank at `SUBJECT`."""
        lines = self.lines.lines
        for i in strongest:
            for distance, context in enumerate(CONTEXT, 1):
                for j in (i - distance, i + distance):
                    if 0 <= j < self.n:
                        self._raise(j, context)
        t = self.templates
        distinct = [i for i in strongest if t is not None and t.counts[t.shapes[i]] <= 2]
        for i in distinct[-MAX_SUBJECTS:]:
            if i > 0 and lines[i - 1].strip():
                self._raise(i - 1, SUBJECT)
            depth = _indent(lines[i])
            for j in range(i - 1, max(-1, i - SUBJECT_REACH - 1), -1):
                if not lines[j].strip():
                    if j + 1 < i:
                        self._raise(j + 1, SUBJECT)
                    break
                if depth and _indent(lines[j]) < depth:
                    self._raise(j, SUBJECT)
                    depth = 0
            self._raise_location(i + 2, i + LOCATION_REACH + 1, WHERE)

    def _raise_location(self, start: int, stop: int, value: int) -> None:
        """Raise to `value` the first line of `[start, stop)` naming a source location (colour
        sequences aside), within the block: where the line above it points."""
        lines = self.lines.lines
        for j in range(start, min(self.n, stop)):
            if not lines[j].strip():
                return
            if _LOCATION.search(_SGR.sub("", lines[j])):
                self._raise(j, value)
                return

    def _weak_locations(self, t: _Templates) -> None:
        """The first source location 1 to `LOCATION_REACH` lines under a distinct weak signal
        (a warning seen once or twice), within its block, ranks at `WEAK_WHERE`: where it is, below
        what an error is about."""
        shapes, counts = t.shapes, t.counts
        weak = [i for i, v in self.score.items() if WEAK <= v < STRONG and counts[shapes[i]] <= 2]
        for i in sorted(weak)[-MAX_SUBJECTS:]:
            self._raise_location(i + 1, i + LOCATION_REACH + 1, WEAK_WHERE)

    def _distinct(self, t: _Templates) -> None:
        """The first and last line of each repeated template; in a repetitive output, each line
        of a template seen once (but encoded data: a hex dump row, a base64 block)."""
        repeated = sum(c for c in t.counts.values() if c >= 3)
        rare_too = repeated >= REPETITIVE * self.n
        for k, g in enumerate(t.groups):
            c = t.counts[g]
            if not g:
                continue
            if c == 1:
                if rare_too and not _DATA.match(t.reps[k]):
                    self._raise(t.first[g], RARE)
            else:
                self._raise(t.first[g], DISTINCT)
                self._raise(t.last[g], DISTINCT)

    def _echoes(self, strong: list[int]) -> None:
        """Where an id of a strong line or its neighbours (a thread's address, a pid, a request
        id, a test name with digits) is found again elsewhere, that line and the block under it
        rank next: the crashed thread's frames, the request's other log lines."""
        if not strong or len(self.lines.text) > MAX_ECHO_CHARS:
            return
        lines, n, text = self.lines.lines, self.n, self.lines.text
        sources = {j for i in strong[-MAX_ECHO_SOURCES:] for j in (i - 1, i, i + 1) if 0 <= j < n}
        strong_set = set(strong[-MAX_ECHO_SOURCES:])
        tokens: dict[str, None] = {}
        for i in sorted(sources, reverse=True):
            for token in _ID.findall(lines[i]):
                tokens.setdefault(token, None)
            if i in strong_set:
                for match in _QUOTED_NAME.finditer(lines[i]):
                    tokens.setdefault(match.group(1) or match.group(2) or match.group(3), None)
        starts = self.lines.starts
        for token in list(tokens)[:MAX_ECHO_TOKENS]:
            found: list[int] = []
            position = text.find(token)
            while position >= 0 and len(found) <= MAX_ECHOES:
                line = bisect_right(starts, position) - 1
                if not found or found[-1] != line:
                    found.append(line)
                position = text.find(token, position + len(token))
            if len(found) > MAX_ECHOES:
                continue
            for i in found:
                if i in sources:
                    continue
                self._raise(i, ECHO)
                self.echoed.add(i)
                for k in range(1, ECHO_BLOCK + 1):
                    if i + k >= n or not lines[i + k].strip():
                        break
                    self._raise(i + k, ECHO - 10 * k)
                    self.echoed.add(i + k)

    def _columns(self) -> None:
        """Rows that stand out in a column: a rare value where few values repeat (a status
        `hi` among `ii`, a level `E` among `I`, a mode `-rwsr-xr-x`), the largest numbers of a
        numeric column (sizes, durations, counts)."""
        if self.n > MAX_COLUMN_LINES:
            return
        rows = max(MAX_OUTLIERS, self.budget // OUTLIER_CHARS)
        for i, value in column_outliers(self.lines.lines, rows).items():
            self._raise(i, value)

    def _odd_values(self) -> None:
        """In a run of `key: value` lines, the keys that share their first word ask the same
        question about different things; where more than half of them get one answer (`Not
        affected`, `ok`, `0`), the lines with an answer of their own are the unusual ones."""
        if self.n > MAX_COLUMN_LINES:
            return
        runs: dict[tuple[int, str], list[tuple[int, str]]] = {}
        start, previous = 0, -2
        for i, line in enumerate(self.lines.lines):
            match = _KEY_VALUE.match(line)
            if match is None:
                continue
            if i != previous + 1:
                start = i
            previous = i
            key = (start, match.group(1).split(None, 1)[0].lower())
            runs.setdefault(key, []).append((i, match.group(2).rstrip()))
        for run in runs.values():
            if len(run) >= MIN_KEY_VALUES:
                for i in _odd_ones([(value, i) for i, value in run], len(run)):
                    self._raise(i, ODD_VALUE)

    def _red(self) -> None:
        """Lines the tool coloured red (`\x1b[31m`, `\x1b[0;31m`, `\x1b[91m`): the tool says they
        are errors, whatever their words; when they are a minority of the coloured lines, the
        first and the last rank at `RED`, and all of them when they are at most `MAX_ODD`."""
        text = self.lines.text
        if "\x1b[" not in text or len(text) > MAX_ECHO_CHARS:
            return
        starts = self.lines.starts
        coloured = _hits(_SGR, text, starts)
        red = sorted(_hits(_RED, text, starts))
        if not red or 2 * len(red) > len(coloured):
            return
        for i in red if len(red) <= MAX_ODD else (red[0], red[-1]):
            self._raise(i, RED)

    def _odd_pairs(self) -> None:
        """Fields `key=value` (`status=200`, `rejected_calls=0`) ask the same question on every
        line that has them; where more than half of the fields of a key give one answer, the
        few with an answer of their own (each seen once) are the unusual ones (see
        `_odd_ones`). Counted over the whole text at once; only the odd ones are looked up."""
        text = self.lines.text
        if self.n > MAX_COLUMN_LINES or "=" not in text:
            return
        keys: dict[str, list[tuple[str, int]]] = {}
        for (key, value), count in Counter(_pairs(text)).items():
            keys.setdefault(key, []).append((value, count))
        starts = self.lines.starts
        for key, values in keys.items():
            rows = sum(count for _, count in values)
            if rows < MIN_KEY_VALUES or len(values) < 2:
                continue
            if max(count for _, count in values) * 2 <= max(rows, 2 * ROUTINE - 1):
                continue
            odd = [value for value, count in values if count == 1]
            if not odd or len(odd) > min(MAX_ODD, max(1, rows // 4)):
                continue
            for value in odd:
                field = f"{key}={value}"
                for match in _PAIR.finditer(text, text.find(field)):
                    if match.group(1, 2) == (key, value):
                        self._raise(bisect_right(starts, match.start()) - 1, ODD_VALUE)
                        break

    def _overridden(self) -> None:
        """In a listing of settings (`key=value`, `key = value`, `key: value`, `key => value`:
        most keys set once), a key set again with another value is the override an expert looks
        for: each of its lines is an odd value (none when more than `MAX_ODD` keys change:
        layered settings, not one override)."""
        if self.n > MAX_COLUMN_LINES:
            return
        found: dict[str, list[tuple[int, str]]] = {}
        for i, line in enumerate(self.lines.lines):
            match = _SETTING.match(line, 0, SETTING_CHARS)
            if match:
                found.setdefault(match.group(1), []).append((i, match.group(2)))
        once = sum(1 for uses in found.values() if len(uses) == 1)
        if len(found) < MIN_SETTINGS or once < SET_ONCE * len(found):
            return
        changed = [
            uses
            for uses in found.values()
            if 2 <= len(uses) <= 3 and len({value for _, value in uses}) > 1
        ]
        if len(changed) > MAX_ODD:
            return  # many keys set twice: layered settings, not one override
        for uses in changed:
            for i, _ in uses:
                self._raise(i, ODD_VALUE)

    def _nonzero(self, t: _Templates) -> None:
        """In a template seen `ROUTINE` times or more, a number that is zero on most of its
        lines marks the few lines where it is not (`0 are dead` on every table but three): at
        most a quarter of the template's lines, the others routine."""
        if self.n > MAX_COLUMN_LINES:
            return
        shapes, counts = t.shapes, t.counts
        routine = [i for i, shape in enumerate(shapes) if counts[shape] >= ROUTINE]
        founds = _numbers_of(self.lines.lines, routine)
        # each template's lines as positions in `routine` (no object a line for the collector)
        groups: dict[bytes, list[int]] = {}
        for k, i in enumerate(routine):
            groups.setdefault(shapes[i], []).append(k)
        for rows in groups.values():
            width = len(founds[rows[0]])
            if not width or any(len(founds[k]) != width for k in rows):
                continue
            most = min(MAX_ODD, max(1, len(rows) // 4))
            for p in range(width):
                others = [routine[k] for k in rows if founds[k][p].strip("0.")]
                if 0 < len(others) <= most:
                    for i in others:
                        self._raise(i, NONZERO)

    def _table_peaks(self) -> None:
        """Rows that stand out in a column of a table of any size, under its header row (read
        down to a blank line or a row without digits): in a column of percentages (`Use%`,
        `%util`) the row with its largest value (a full disk, a saturated device); in a column
        where more than half of the rows share one value, the rows with a value of their own (the
        one `RWE` among `R` and `RW`)."""
        if self.n > MAX_COLUMN_LINES:
            return
        lines, checked = self.lines.lines, 0
        for i, line in self._header_lines(self.n):
            checked += 1
            if checked > MAX_HEADER_CHECKS:
                return
            rows: list[tuple[int, list[tuple[int, int]]]] = []
            first = i + 2 if i + 1 < self.n and _UNDERLINE.match(lines[i + 1]) else i + 1
            for j in range(first, min(self.n, first + MAX_PEAK_ROWS)):
                if not _DIGIT.search(lines[j]):
                    break
                rows.append((j, self._fields_of(j).edges))
            if len(rows) < MIN_KEY_VALUES:
                continue
            header = self._fields_of(i).edges
            for k, (a, b) in enumerate(header):
                column = [(lines[j][c:d], j) for j, fields in rows for c, d in fields if c == a]
                if line[a:b] == "%" and k + 1 < len(header):
                    # `% Time`: the sign names the field after it
                    a, b = header[k + 1]
                    column = [
                        (lines[j][c:d], j)
                        for j, fields in rows
                        for c, d in fields
                        if c == a or d == b
                    ]
                    self._peak(column)
                elif "%" in line[a:b]:
                    column = [(lines[j][c:d], j) for j, fields in rows for c, d in fields if d == b]
                    self._peak(column)
                else:
                    self._odd(column, len(rows))

    def _explained(self) -> None:
        """A line that explains the one above it (it opens with a parenthesis, after its
        indentation and a comment or quote mark: `# (because key ... is not in ...)`) is about
        that line: when it ranks as a weak signal or more, the line above ranks just under it
        (unless that one opens with a parenthesis too: a run of such lines is no explanation)."""
        lines = self.lines.lines
        for i, value in list(self.score.items()):
            if value < WEAK or not i or not _EXPLANATION.match(lines[i]):
                continue
            above = lines[i - 1]
            if above.strip() and not _EXPLANATION.match(above):
                self._raise(i - 1, value - 5)

    def _small_tables(self) -> None:
        """The rows of a small table: under a header row of three fields or more, down to a
        blank line, the lines of as many fields as the header or more that start where it starts,
        whose fields start or end where at least three of the header's do, and whose first fields
        share a template (`3341/tcp`, `8081/tcp`); when other lines come between them (details of
        a row) and there are at most `SMALL_TABLE` of them, each row is what the table says."""
        if self.n > MAX_COLUMN_LINES:
            return
        lines, checked = self.lines.lines, 0
        for i, _line in self._header_lines(self.n):
            header = self._fields_of(i).edges
            if len(header) < 3:
                continue
            checked += 1
            if checked > MAX_HEADER_CHECKS:
                return
            starts: dict[bytes, list[int]] = {}
            for j in range(i + 1, min(self.n, i + 1 + MAX_PEAK_ROWS)):
                if not lines[j].strip():
                    break
                fields = self._fields_of(j)
                if (
                    len(fields.edges) >= len(header)
                    and fields.edges[0][0] == header[0][0]
                    and _aligned(header, fields) >= 3
                ):
                    first = lines[j][: fields.edges[0][1]].encode("utf-8", "surrogatepass")
                    group = starts.setdefault(first.translate(None, _TEMPLATE_DROP), [])
                    group.append(j)
                    if len(group) > SMALL_TABLE:  # the largest group only grows: no small table
                        break
            rows = max(starts.values(), key=len, default=[])
            if 2 <= len(rows) <= SMALL_TABLE and rows[-1] - rows[0] >= len(rows):
                for j in rows:
                    self._raise(j, TABLE_ROW)

    def _peak(self, column: list[tuple[str, int]]) -> None:
        """The rows of `column` with its largest number, when its numbers differ."""
        values = [(x, j) for text, j in column if (x := _number(text)) is not None]
        if len(values) >= 2 and min(values)[0] != max(values)[0]:
            top = max(values)[0]
            for number, j in values:
                if number == top:
                    self._raise(j, PEAK)

    def _odd(self, column: list[tuple[str, int]], rows: int) -> None:
        """The rows of a table's `column` with a value of their own (see `_odd_ones`)."""
        for j in _odd_ones(column, rows):
            self._raise(j, ODD_VALUE)

    def _fields_of(self, i: int) -> _Fields:
        """The fields of line `i`, split once a scan."""
        found = self._line_fields.get(i)
        if found is None:
            found = self._line_fields[i] = _fields(self.lines.lines[i])
        return found

    def _header_lines(self, stop: int) -> Iterator[tuple[int, str]]:
        """`(index, line)` of the lines before `stop` that may head a table (`_words_only`) over
        a line that is not another `key: value` property of a report. The lines found are kept
        for the next reader: each line is read once however many rules ask."""
        lines = self.lines.lines
        limit = min(stop, self.n - 1)
        found = self._headers
        for i in found:
            if i >= limit:
                return
            yield i, lines[i]
        i = self._headers_read
        while i < limit:
            line = lines[i]
            self._headers_read = i + 1
            if _words_only(line) and not _property(line, lines[i + 1]):
                found.append(i)
                yield i, line
            i += 1

    def _table_headers(self) -> None:
        """A header row: a line of words without digits over rows with digits whose fields
        start or end where its fields do (`  flat  flat%   sum%   cum` over `0.61s  7.81% ...`).
        Header rows of one family (the same words about other names) head each section alike:
        the first and the last rank as headings."""
        if self.n > MAX_COLUMN_LINES:
            return
        lines, checked = self.lines.lines, 0
        found: dict[bytes, list[int]] = {}
        for i, line in self._header_lines(self.n - HEADER_ROWS):
            if not _DIGIT.search(lines[i + 1]):
                continue
            checked += 1
            if checked > MAX_HEADER_CHECKS:
                break
            fields = self._fields_of(i).edges
            if len(fields) < 2 or any(
                not _DIGIT.search(lines[i + k]) or _aligned(fields, self._fields_of(i + k)) < 2
                for k in range(1, HEADER_ROWS + 1)
            ):
                continue
            found.setdefault(family(line), []).append(i)
        for rows in found.values():
            for i in (rows[0], rows[-1]):
                self._raise(i, HEADING)

    def _record_starts(self, t: _Templates, headings: set[int]) -> list[int]:
        """The first lines of the records of an output made of records: the lines that open a
        block (after a blank line, past a rule) or head one (a heading template), sharing one
        family seen at least `MIN_RECORDS` times and never on two lines in a row; the family
        with the most lines wins (none over `MAX_COLUMN_LINES` lines)."""
        if self.n > MAX_COLUMN_LINES:
            return []
        lines, shapes = self.lines.lines, t.shapes
        heading = {t.groups[k] for k in headings if t.counts[t.groups[k]] >= MIN_RECORDS}
        found: dict[bytes, list[int]] = {}
        opens = True
        for i, line in enumerate(lines):
            if not line.strip():
                opens = True
                continue
            if opens and _RULE.match(line):
                continue
            if opens or shapes[i] in heading:
                found.setdefault(family(line), []).append(i)
            opens = False
        best: list[int] = []
        for starts in found.values():
            if len(starts) > max(len(best), MIN_RECORDS - 1) and all(
                b - a > 1 for a, b in pairwise(starts)
            ):
                best = starts
        return best

    def _records(self, t: _Templates, headings: set[int]) -> list[tuple[int, int]]:
        """`(first, end)` of each record (see `_record_starts`): up to the next record or the
        next blank line; the last record reaches as far as the longest other one."""
        starts = self._record_starts(t, headings)
        if not starts:
            return []
        lines = self.lines.lines
        reach = max((b - a for a, b in pairwise(starts)), default=0)
        ends = [*starts[1:], min(self.n, starts[-1] + reach)]
        for k, start in enumerate(starts):
            for j in range(start + 1, ends[k]):
                if not lines[j].strip():
                    ends[k] = j
                    break
        return list(zip(starts, ends, strict=True))

    def _record_subjects(self, t: _Templates, records: list[tuple[int, int]]) -> None:
        """A line ranked for what it says (`RARE` or more) and seen at most twice, inside a
        record, names the record's first line (the thread, the file, the table) as its subject:
        when the fill keeps the line, the subject comes next."""
        if not records:
            return
        starts = [start for start, _ in records]
        starting = set(starts)
        for i, value in self.score.items():
            if value < RARE or i in starting or t.counts[t.shapes[i]] > 2:
                continue
            k = bisect_right(starts, i) - 1
            if k >= 0 and i < records[k][1]:
                self.subjects[i] = starts[k]

    def _odd_records(self, records: list[tuple[int, int]]) -> None:
        """The records whose fields say something most records do not. A field is a key
        (`Severity:`, `Lines executed:`) found in at least half of the records; where more than a
        quarter of them share one value, a record weighs `1 / n` for each of its values that
        `n` records hold, `n` at most a quarter of them. The heaviest records (one for each
        `ODD_RECORD_CHARS` characters of the budget, at most `MAX_ODD`) rank their first line,
        the fields whose values all differ (their names: a `Location:`) and their rarest values,
        taking turns: each record's first line, then each one's second..."""
        if len(records) < MIN_KEY_VALUES:
            return
        lines = self.lines.lines
        fields: list[dict[str, int]] = []
        seen: Counter[str] = Counter()
        for start, end in records:
            found: dict[str, int] = {}
            for j in range(start + 1, end):
                match = _RECORD_KEY.match(lines[j])
                if match:
                    found.setdefault(match.group(), j)
            fields.append(found)
            seen.update(found)
        keys = {key for key, count in seen.items() if 2 * count >= len(records)}
        values: dict[str, Counter[str]] = {key: Counter() for key in keys}
        for found in fields:
            for key in keys & found.keys():
                values[key][lines[found[key]]] += 1
        names = {key for key in keys if len(values[key]) == seen[key]}
        rare = max(1, len(records) // 4)
        usual = {key for key in keys if values[key].most_common(1)[0][1] > rare}
        odd: list[list[tuple[int, int]]] = []
        for found in fields:
            odd.append(
                sorted(
                    (held, j)
                    for key, j in found.items()
                    if key in usual and (held := values[key][lines[j]]) <= rare
                )
            )
        weights = sorted((-sum(1 / held for held, _ in odd[k]), k) for k in range(len(records)))
        top = [
            k
            for weight, k in weights[: min(MAX_ODD, max(1, self.budget // ODD_RECORD_CHARS))]
            if weight
        ]
        for rank, k in enumerate(top):
            named = [j for key, j in fields[k].items() if key in names]
            picked = [records[k][0], *named, *(j for _, j in odd[k])]
            for depth, j in enumerate(picked[:RECORD_LINES]):
                self._raise(j, ODD_RECORD - depth * len(top) - rank)

    def _copies(self) -> None:
        """A ranked line whose very text another ranked line holds at a higher score (or the
        same score, later) says nothing new (the same problem reported again in a later pass):
        it loses its rank (none over `MAX_COLUMN_LINES` lines)."""
        if self.n > MAX_COLUMN_LINES:
            return
        lines, score = self.lines.lines, self.score
        best: dict[str, int] = {}
        for i in sorted(score):
            line = lines[i]
            other = best.get(line)
            if other is None:
                best[line] = i
            elif score[i] >= score[other]:
                best[line] = i
                del score[other]
            else:
                del score[i]

    def _blocks(self) -> None:
        """The first line of each block after a blank line."""
        text, starts = self.lines.text, self.lines.starts
        position = text.find("\n\n")
        found = 0
        while position >= 0 and found < MAX_BLOCK_STARTS:
            index = bisect_right(starts, position + 2) - 1
            if index < self.n:
                self._raise(index, BLOCK)
            found += 1
            position = text.find("\n\n", position + 2)

    def _ends(self) -> None:
        lines, n = self.lines.lines, self.n
        self._raise(0, END)
        last = n - 1
        while last > 0 and not lines[last].strip():
            last -= 1
        self._raise(last, END)
        for i in range(1, min(3, n)):
            self._raise(i, FLOOR)
        for i in range(max(0, last - 4), last):
            self._raise(i, FLOOR + 10)


def _odd_ones(values: list[tuple[str, int]], rows: int) -> list[int]:
    """The lines of `(value, line)` pairs whose value is seen once, when more than half of the
    `rows` (and at least `ROUTINE`) share one value and those lines are at most a quarter of
    them and `MAX_ODD`: the few unusual answers where most agree."""
    counts = Counter(value for value, _ in values)
    if len(counts) < 2 or counts.most_common(1)[0][1] * 2 <= max(rows, 2 * ROUTINE - 1):
        return []
    odd = [i for value, i in values if counts[value] == 1]
    return odd if len(odd) <= min(MAX_ODD, max(1, rows // 4)) else []


def _property(line: str, below: str) -> bool:
    """True when `line` and the line `below` it are `key: value` lines of different keys: a
    report of properties (`Model name:  AMD EPYC` over `CPU(s):  2`), not a table's header row
    (`Average:  CPU  %usr` over `Average:  all  90.70` is one)."""
    match, under = _KEY_VALUE.match(line), _KEY_VALUE.match(below)
    return match is not None and under is not None and match.group(1) != under.group(1)


class _Fields(NamedTuple):
    """Where the fields of a line (runs of non-blank characters) start and end."""

    edges: list[tuple[int, int]]
    starts: frozenset[int]
    ends: frozenset[int]


def _fields(line: str) -> _Fields:
    """The fields of `line`, with their starts and ends as sets for alignment tests."""
    edges = [match.span() for match in _FIELD.finditer(line)]
    return _Fields(edges, frozenset(a for a, _ in edges), frozenset(b for _, b in edges))


def _aligned(header: list[tuple[int, int]], row: _Fields) -> int:
    """How many fields of `header` start where a field of `row` starts or end where one ends."""
    starts, ends = row.starts, row.ends
    return sum(1 for a, b in header if a in starts or b in ends)


def _number(field: str) -> float | None:
    """`field` as a number (`1,204`, `47M`, `3.5%`, `120ms`), or None."""
    match = _NUMBER.fullmatch(field)
    if match is None:
        return None
    value = float(match.group(1).replace(",", ""))
    return value * _UNITS.get((match.group(2) or "").upper()[:1], 1.0)


_COUNT_OR_NEWLINE = re.compile(r"\n|\d(?<!\w\d)\d*(?:\.\d+)?\b")
"""A newline or what `_COUNT` matches, led by the digit (its word boundary checked behind it)
so that the regex engine skips from digit to digit instead of trying every character."""
_PAIR_KEY = 41
_PAIR_VALUE = 80
"""The longest key and value `_PAIR` reads."""


def _numbers_of(lines: list[str], indices: list[int]) -> list[list[str]]:
    """`_COUNT.findall` of each line of `indices`, from one pass over those lines joined (a
    number never runs across a newline, which is a word boundary as the ends of a line are)."""
    if not indices:
        return []
    joined = "\n".join([lines[i] for i in indices])
    return list(map(str.split, " ".join(_COUNT_OR_NEWLINE.findall(joined)).split("\n")))


def _pairs(text: str) -> list[tuple[str, str]]:
    """`_PAIR.findall(text)`, read from each `=` (a key ends just before one and holds none,
    nor does a value) instead of trying the pattern at every character, unless `=` is common."""
    if text.count("=") * 64 > len(text):
        return _PAIR.findall(text)
    return _pairs_at_equals(text)


def _pairs_at_equals(text: str) -> list[tuple[str, str]]:
    """`_PAIR.findall(text)`, each match looked for around one `=`."""
    found: list[tuple[str, str]] = []
    position, equals = 0, text.find("=")
    while equals >= 0:
        if text.startswith("=", equals + 1) or (equals and text[equals - 1] == "="):
            equals = text.find("=", equals + 1)  # in a run of `=`: neither key nor value
            continue
        match = _PAIR.search(text, max(position, equals - _PAIR_KEY), equals + 1 + _PAIR_VALUE)
        if match is not None and match.end(1) == equals:
            found.append((match.group(1), match.group(2)))
            position = match.end()
            equals = text.find("=", position)
        else:
            equals = text.find("=", equals + 1)
    return found


def _leading_fields(lines: Sequence[str]) -> tuple[list[int], list[list[str]], int]:
    """The rows of `lines` split on white space that have at least the number of fields most
    rows reach (`COLUMN_QUANTILE` of the rows with two or more), and that number."""
    split_rows = list(map(str.split, lines))
    widths = sorted(count for count in map(len, split_rows) if count >= 2)
    if len(widths) < MIN_TABLE_ROWS:
        return [], [], 0
    width = min(widths[int(len(widths) * (1 - COLUMN_QUANTILE))], MAX_COLUMNS)
    index = [i for i, fields in enumerate(split_rows) if len(fields) >= width]
    return index, [split_rows[i] for i in index], width


def column_outliers(lines: Sequence[str], max_rows: int = MAX_OUTLIERS) -> dict[int, int]:
    """`{line: score}` for the rows of a table-like output that stand out in one of its leading
    columns: the rarest values of a column with few distinct values, and the largest values of
    a numeric column; bounded per column, nothing when no column has that shape."""
    index, rows, width = _leading_fields(lines)
    found: dict[int, int] = {}
    if not rows:
        return found
    count = len(rows)
    for j in range(width):
        column = [fields[j] for fields in rows]
        values = Counter(column)
        if 1 < len(values) <= max(3, count // 20):
            picked, top = _rarest(column, values, max(1, count // 50), max_rows), COLUMN_RARE
        else:
            picked, top = _largest(column, count, values), COLUMN_TOP
        for rank, k in enumerate(picked):
            found[index[k]] = max(found.get(index[k], 0), top - rank)
    return found


def _rarest(column: list[str], values: Counter[str], most: int, max_rows: int) -> list[int]:
    """Rows of `column` holding its rarest values (each seen at most `most` times), the rarest
    value first, at most `max_rows` rows: the odd status among many of a few kinds."""
    rare = {value for value, seen in values.items() if seen <= most}
    if not rare:
        return []
    rows_of: dict[str, list[int]] = {}
    for k, value in enumerate(column):
        if value in rare:
            rows_of.setdefault(value, []).append(k)
    picked: list[int] = []
    for value in sorted(rows_of, key=values.__getitem__):
        rows = rows_of[value]
        if len(picked) + len(rows) <= max_rows:
            picked += rows
    return picked


def _largest(column: list[str], count: int, values: Counter[str]) -> list[int]:
    """Rows of a numeric `column` (its `values` counted) with its largest values, the largest
    first (none when the column is not numeric or has few distinct values)."""
    number_of = {value: _number(value) for value in values}  # each distinct value read once
    numeric = sum(seen for value, seen in values.items() if number_of[value] is not None)
    distinct = {x for x in number_of.values() if x is not None}
    if numeric < COLUMN_QUANTILE * count or len(distinct) < MIN_TABLE_ROWS:
        return []
    known = [(x, k) for k, value in enumerate(column) if (x := number_of[value]) is not None]
    return [k for _, k in heapq.nlargest(TOP_VALUES, known)]


def _ends_order(n: int, hint: Hint) -> Iterator[int]:
    """All lines from both ends inwards: a head+tail cut's order (head-heavy for reading tools,
    tail-heavy for a shell that succeeded)."""
    tool = (hint.tool or "").lower()
    head_first = any(word in tool for word in HEAD_TOOLS)
    head_step, tail_step = (2, 1) if head_first else (1, 1)
    head, tail = 0, n - 1
    while head <= tail:
        for _ in range(tail_step):
            if head <= tail:
                yield tail
                tail -= 1
        for _ in range(head_step):
            if head <= tail:
                yield head
                head += 1


def _end_lines(lines: Lines, head_share: int, share: int) -> tuple[list[int], list[int]]:
    """The lines within `head_share` characters of the start, and within `share` of the end
    (last first)."""
    starts, n = lines.starts, len(lines)
    head_end = bisect_right(starts, head_share) - 1
    tail_start = bisect_right(starts, max(0, starts[n] - share))
    return list(range(min(head_end, n))), list(range(n - 1, max(tail_start, 0) - 1, -1))


def _interleave(head: list[int], tail: list[int]) -> Iterator[int]:
    for k in range(max(len(head), len(tail))):
        if k < len(tail):
            yield tail[k]
        if k < len(head):
            yield head[k]


class Ranking:
    """Line indices, most important first (see `order`); `kept(i)` after the pipeline keeps
    the line just given makes its neighbours candidates (context grows around what is kept)."""

    def __init__(
        self,
        lines: Lines,
        floor: Iterable[int],
        ranked: Iterator[tuple[int, int]],
        rest: Iterator[int],
        placed: frozenset[int] = frozenset(),
        subjects: dict[int, int] | None = None,
    ) -> None:
        self.lines = lines.lines
        self.subjects = subjects or {}
        """`{line: first line of its record}`: kept, the line brings its record's name next."""
        self.placed = placed
        """Lines ranked for where they are (near an end), not for what they say: no context."""
        self.floor = iter(floor)
        self.ranked = ranked
        self.rest = rest
        self.pending: tuple[int, int] | None = None
        self.context: list[tuple[int, int, int, int]] = []
        """A heap of `(-score, -index, index, direction)` for the neighbours of kept lines."""
        self.given: tuple[int, int, int] | None = None
        """`(index, score, direction)` of the line just given (score 0: no context)."""
        self.done: set[int] = set()
        """Lines the pipeline kept: context passes over them to the next line."""

    def __iter__(self) -> Ranking:
        return self

    def __next__(self) -> int:
        for i in self.floor:
            self.given = None
            return i
        if self.pending is None:
            self.pending = next(self.ranked, None)
        pending, context = self.pending, self.context
        while context and (pending is None or -context[0][0] >= pending[0]):
            negative, _, i, direction = heapq.heappop(context)
            if i in self.done:  # kept for itself meanwhile: its context goes on past it
                if direction:
                    self._grow(i, -negative, direction)
                continue
            self.given = (i, -negative, direction)
            return i
        if pending is not None:
            self.pending = None
            self.given = (pending[1], pending[0], 0)
            return pending[1]
        self.given = None
        return next(self.rest)

    def kept(self, i: int) -> None:
        """The pipeline kept line `i`, the one just given: its neighbours come next when their
        context score (half the line's, then `CONTEXT_STEP` less a line further) beats the rest;
        context does not cross a blank line."""
        given = self.given
        if given is None or given[0] != i:
            return
        self.done.add(i)
        if i in self.placed:
            return
        _, value, direction = given
        subject = self.subjects.get(i)
        if subject is not None and subject not in self.done and value > 1:
            heapq.heappush(self.context, (1 - value, -subject, subject, 0))
        if direction or value >= CONTEXT_FROM:
            self._grow(i, value, direction)

    def _grow(self, i: int, value: int, direction: int) -> None:
        """Queue the neighbours of kept line `i` (given at `value`, as context in `direction`,
        or for itself when 0), passing over lines already kept."""
        if direction:
            near = value - (CONTEXT_STEP // 2 if direction > 0 else CONTEXT_STEP)
        else:
            near = value // 2
        lines = self.lines
        for step in (direction,) if direction else (-1, 1):
            j, score = i + step, near
            while j in self.done and 0 <= j < len(lines) and lines[j].strip():
                score -= CONTEXT_STEP // 2 if step > 0 else CONTEXT_STEP
                j += step
            if score > 0 and 0 <= j < len(lines) and lines[j].strip():
                heapq.heappush(self.context, (-score, -j, j, step))


CONTEXT_FROM = 650
"""A kept line scored at least this (a heading, a strong signal, a summary; not a weak signal
or a table outlier, whose neighbours are just more rows) has its neighbours ranked as context."""
CONTEXT_STEP = 100


def order(
    lines: Lines,
    hint: Hint,
    budget_chars: int,
    regions: Sequence[Region] = (),
    floor_first: bool = True,
) -> Ranking:
    """Line indices of `lines`: first those a head+tail cut of under a third of the budget keeps
    (`budget_chars // FLOOR_SHARE` at the end, `// HEAD_FLOOR_SHARE` at the start), then the most
    salient and the context of what is kept, then every line from both ends inwards (a line may
    come twice; the pipeline skips what it already keeps). Without `floor_first` the blind
    head+tail share is not put first (a plan that fits has chosen what it needs of the ends).

    In `regions` a reducer recognised, its plan decides: the lines it keeps at its top priority
    rank just below strong signals, its other kept lines as weak signals, and the lines it drops
    lose their salience (but strong signals).
    """
    n = len(lines)
    if not n:
        return Ranking(lines, (), iter(()), iter(()))
    share = budget_chars // FLOOR_SHARE if budget_chars else 0
    head_share = budget_chars // HEAD_FLOOR_SHARE if budget_chars else 0
    floor = (
        list(_interleave(*_end_lines(lines, head_share, share))) if share and floor_first else []
    )
    scores = Scores(lines, hint, budget_chars)
    novel = _novel(lines)
    # the model reads the levels the scan gave, before the plan and the ends move them
    odds = linemodel.log_odds(lines, hint, scores.score, scores.templates, novel)
    for region in regions:
        if region.reducer:
            _follow_plan(scores, region)
    placed = {*range(min(3, n)), *range(max(0, n - 8), n)}
    if share:
        head, tail = _end_lines(lines, 2 * head_share, 2 * share)
        for rank, i in enumerate(_interleave(head, tail)):
            band = END_BAND - rank // 8 if rank < 80 else END_BAND - 10
            scores._raise(i, band - ROUTINE_BAND if scores.routine(i) else band)
        placed.update(head, tail)
    for i in novel:
        scores._raise(i, NOVEL)
    score = scores.score
    if odds is not None:
        score = linemodel.nudged(score, odds, scores.echoed | set(scores.subjects.values()))
    ranked = _by_score(score, novel)
    return Ranking(lines, floor, ranked, _ends_order(n, hint), frozenset(placed), scores.subjects)


def likelihoods(lines: Lines, hint: Hint, budget_chars: int) -> list[float] | None:
    """Each line's chance, by the line model, of being one an expert insists on; None when the
    output is too long to weigh line by line."""
    scores = Scores(lines, hint, budget_chars)
    odds = linemodel.log_odds(lines, hint, scores.score, scores.templates, _novel(lines))
    return None if odds is None else [1 / (1 + math.exp(-z)) for z in odds]


def _novel(lines: Lines) -> set[int]:
    """The lines holding a word (4 letters or more) found nowhere else in the output: what they
    say is said once (none over `MAX_COLUMN_LINES` lines)."""
    if len(lines) > MAX_COLUMN_LINES:
        return set()
    once = {w for w, c in Counter(_NOVEL_WORD.findall(lines.text)).items() if c == 1}
    if not once:
        return set()
    return {
        i for i, line in enumerate(lines.lines) if not once.isdisjoint(_NOVEL_WORD.findall(line))
    }


def _by_score(
    score: dict[int, int], novel: frozenset[int] | set[int] = frozenset()
) -> Iterator[tuple[int, int]]:
    """`(score, line)` by score, highest first; among equal scores the `novel` lines first, then
    from both ends of their order inwards, the last first (the last error, then the first, the
    one before the last...)."""
    levels: dict[int, list[int]] = {}
    for i, value in score.items():
        levels.setdefault(value, []).append(i)
    for value in sorted(levels, reverse=True):
        same = sorted(levels[value])
        ordered = list(_interleave(same[: len(same) // 2], same[len(same) // 2 :][::-1]))
        if novel:
            ordered.sort(key=lambda i: i not in novel)
        for i in ordered:
            yield value, i


def _follow_plan(scores: Scores, region: Region) -> None:
    """Lines a region's reducer keeps rank by its priorities (the top ones at `PLANNED`, each
    lower priority a step down, earlier lines of a piece first); lines it drops lose their
    salience unless they carry a strong signal."""
    keeps = [item for item in region.plan if isinstance(item, Keep)]
    levels = sorted({item.priority for item in keeps}, reverse=True)
    step = {priority: PLANNED - PLAN_STEP * rank for rank, priority in enumerate(levels)}
    kept: set[int] = set()
    for item in keeps:
        kept.update(range(item.start, item.end))
    salient = {i for i in kept if scores.score.get(i, 0) >= WEAK}
    for i in [i for i in scores.score if region.start <= i < region.end and i not in kept]:
        if scores.score[i] < STRONG:
            del scores.score[i]
    for i in salient:
        scores._raise(i, PLANNED + 10)
    for item in keeps:
        value = max(BLOCK, step[item.priority])
        for i in range(item.start, min(item.end, item.start + PLAN_LINES)):
            scores._raise(i, value - (i - item.start) // 8)
