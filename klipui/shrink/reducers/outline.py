"""outline: documents and source files read whole (a read tool, `cat -n`, man pages, Markdown).

Keeps the outline: headings and top-level definitions (classes first, then functions and
module constants), the first lines of the file and the first line or two of each section;
method definitions come next; the body text goes first. `cat -n` style line numbers
(`   12<TAB>` or `   12→`) are looked through.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from klipui.shrink.plan import Budget, Hint, Keep, Plan
from klipui.shrink.text import sample_lines, split

name = "outline"
describe = "headings, top-level definitions and section openings kept"
overflow = "head"

MIN_LINES = 50
FILE_HEAD = 5
HEADING, DUNDER, OPENING = 100_000, 90_000, 80_000
DEFINITION, FILE_START, CONSTANT, OPENING_MORE, METHOD = 1_000, 600, 500, 30, 2
_NUMBERED = re.compile(r"\s*\d+(?:\t|→)")
_MARKDOWN = re.compile(r"#{1,6} \S")
_MAN_HEADING = re.compile(r"[A-Z][A-Z0-9 ,/&()_-]{2,}")
_CLASS = re.compile(
    r"(?:export\s+)?(?:default\s+)?(?:abstract\s+)?(?:class|interface|struct|enum|trait|impl|module|object)\b"
)
_MODIFIERS = (
    r"(?:(?:public|private|protected|internal|static|final|sealed|abstract|partial|open|data)"
    r"[ \t]+)+"
)
_C_DEFINITION = re.compile(
    r"^(?:[ \t]*+\d+(?:\t|→))?(?P<indent>[ \t]*)"
    r"(?!(?:if|else|while|for|switch|return|do|case|catch|try|new|throw|sizeof|typedef|using"
    r"|goto|await|yield|delete|assert)\b)"
    r"(?:[A-Za-z_][\w<>\[\]:.,?]*[ \t]+[*&]*){1,6}"
    r"(?!(?:if|while|for|switch|return|catch)\b)[A-Za-z_~]\w*[ \t]*"
    r"\([^;{}()\n]*(?:\([^;{}()\n]*\)[^;{}()\n]*)*\)"
    r"[ \t]*(?:const[ \t]*|noexcept[ \t]*|throws[ \t]+[\w., \t]+)?"
    r"(?:\{[ \t]*\r?$|\r?\n(?:[ \t]*+\d+(?:\t|→))?[ \t]*\{[ \t]*\r?$)",
    re.MULTILINE,
)
"""A definition in a C-family language (C, C++, Java, C#, Kotlin): type and modifier words, a
name and a parameter list, then an opening brace at the end of the line or alone on the next
(`int editorSave(void) {`, `    private boolean addWorker(Runnable firstTask, boolean core) {`);
not a control statement nor a call (a call ends in `;`, and code without braces has none)."""
C_MEMBER_INDENT = 4
"""The deepest indentation of a C-family definition that is part of the outline (a member of a
class); deeper ones are local."""
_FUNCTION = re.compile(
    r"(?:export\s+)?(?:default\s+)?(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?"
    r"(?:def|function|fn|func|sub|proc|type)\b"
)
_READ_TOOLS = ("read", "cat", "view", "open")


def _body(line: str) -> str:
    match = _NUMBERED.match(line)
    return line[match.end() :] if match else line


EXPORTED, EXPORTED_METHOD = 20_000, 10_000
_DEFINED_NAME = re.compile(
    r"(?P<export>export\s+|pub(?:\([^)]*\))?\s+)?(?:default\s+)?(?:abstract\s+)?(?:async\s+)?"
    r"(?:class|interface|struct|enum|trait|impl|module|object|def|function|fn|func|sub|proc|type)"
    r"\s+(?P<receiver>\([^)]*\)\s*)?(?P<name>[\w$]+)"
)


def _exported(body: str) -> int:
    """How much a top-level definition is part of the file's public face: `export`/`pub`, a
    Go name with a capital, a Python name without a leading underscore rank above the others;
    a Go method (with a receiver) ranks between."""
    m = _DEFINED_NAME.match(body)
    if m is None:
        return 0
    name = m.group("name")
    public = bool(m.group("export")) or (
        not name.startswith("_") and (not body.startswith(("func", "type")) or name[0].isupper())
    )
    if not public:
        return 0
    return EXPORTED_METHOD if m.group("receiver") else EXPORTED


def _is_heading(
    body: str, previous_blank: bool, next_line: str, code: bool = False, previous: str = ""
) -> bool:
    if _MARKDOWN.match(body):
        # a `# comment` in code is no heading, nor a line of a block of `#` lines
        return not code and not _BANNER.match(previous) and not _BANNER.match(next_line)
    return (
        previous_blank
        and bool(_MAN_HEADING.fullmatch(body.rstrip()))
        and next_line[:1] in (" ", "\t", "")
    )


READ_SAMPLE = 2_000
"""Lines a file read is sampled on (a source file may open with a long licence and doc)."""


def detect(text: str, hint: Hint) -> bool:
    reading = any(word in (hint.tool or "").lower() for word in _READ_TOOLS) or bool(hint.path)
    lines = sample_lines(text, READ_SAMPLE if reading else 400, 0)
    if len(lines) < MIN_LINES:
        return False
    bodies = [_body(line) for line in lines]
    headings = sum(
        1
        for i, body in enumerate(bodies)
        if _is_heading(
            body,
            i == 0 or not bodies[i - 1].strip(),
            bodies[i + 1] if i + 1 < len(bodies) else "",
            previous=bodies[i - 1] if i else "",
        )
    )
    definitions = sum(1 for body in bodies if _CLASS.match(body) or _FUNCTION.match(body))
    if reading:
        definitions += sum(1 for _ in _C_DEFINITION.finditer("\n".join(lines)))
        return headings + definitions >= 2
    return headings >= 3 and not _records(bodies) and not any(map(_DIAGNOSTIC.match, lines))


_DIAGNOSTIC = re.compile(r"\S+:\d+[\d:.-]*:? (?:fatal )?error\b|(?:FAILED|ERROR|FATAL)\b[: ]")
"""A compiler's `path:line:col: error` or a line that starts with a failure: a command's output
reporting errors is no document, whatever headings it prints."""


_BANNER = re.compile(r"#+(?:\s|$)")
"""A `#` comment line: several in a row are a banner or a comment block, not headings."""
_RECORD = re.compile(r"[\w.-]+[:=]\S")
"""A `key:value` or `key=value` record (`used_memory:1024`, `net.core.somaxconn=4096`)."""


def _in_banner(lines: list[str], i: int) -> bool:
    """Whether line `i` is one of a block of `#` lines."""
    return any(0 <= j < len(lines) and _BANNER.match(_body(lines[j])) for j in (i - 1, i + 1))


def _records(bodies: list[str]) -> bool:
    """Whether most of the lines under the headings are records, not a document's text: a
    status or settings dump sectioned by `# Name` lines is no document."""
    body = [b for b in bodies if b.strip() and not _MARKDOWN.match(b)]
    return sum(1 for b in body if _RECORD.match(b)) * 2 > len(body)


_KINDS = {
    "markdown": r"#{1,6} \S",
    "man": r"[A-Z][A-Z0-9 ,/&()_-]{2,}\r?$",
    "klass": r"(?:export[ \t]+)?(?:default[ \t]+)?(?:abstract[ \t]+)?(?:" + _MODIFIERS + ")?"
    r"(?:class|interface|struct|enum|trait|impl|module|object)\b",
    "function": r"(?:export[ \t]+)?(?:default[ \t]+)?(?:pub(?:\([^)\n]*\))?[ \t]+)?"
    r"(?:async[ \t]+)?(?:def|function|fn|func|sub|proc|type)\b",
    "method": r"[ \t]++(?:pub(?:\([^)\n]*\))?[ \t]+)?(?:async[ \t]+)?(?:static[ \t]+)?"
    r"(?:def|function|fn|func|sub|proc)\b",
    "dunder": r"__\w+__[ \t]*(?::[^=\n]*)?=|package[ \t]+[\w.]+;?[ \t]*\r?$",
    "constant": r"[A-Z][A-Z0-9_]+[ \t]*(?::[^=\n]*)?=",
}
_GUARD = r"(?=[#A-Z_acdefimopst\d]|[ \t]++[\dadfps])"
"""What every outline line starts with: a line number, the first letter of a kind that starts
at the margin, or, after indentation, a line number or the first letter of a method's words. A
cheap test that turns most body lines away before the kinds are tried one by one (indentation
is read once)."""
_OUTLINE_LINE = re.compile(
    r"\n"
    + _GUARD
    + r"(?:[ \t]*+\d+(?:\t|→))?(?:"
    + "|".join(f"(?P<{kind}>{pattern})" for kind, pattern in _KINDS.items())
    + ")",
    re.MULTILINE,
)
"""One pass over the text with a newline put in front: each match starts at the newline before
a line (a literal, fast to scan for), so a match at i is the line starting at i in the text.
Indentation is matched possessively: an indented line that is no method fails at once instead
of being retried at every shorter indentation."""


def _find_lines(text: str, starts: list[int]) -> dict[str, list[int]]:
    """Line indices of each kind of outline line."""
    found: dict[str, list[int]] = {kind: [] for kind in _KINDS}
    # the first line has no newline before it: matched on its own, the rest without a copy
    first_end = text.find("\n")
    first = _OUTLINE_LINE.match("\n" + (text[:first_end] if first_end >= 0 else text))
    if first is not None:
        found[first.lastgroup or ""].append(0)
    for match in _OUTLINE_LINE.finditer(text):
        found[match.lastgroup or ""].append(bisect_right(starts, match.start() + 1) - 1)
    return found


MAX_FILE_HEADINGS = 200
_FILE_HEADING = re.compile(r".*?\s(?P<path>/?[\w.@+~-]+(?:/[\w.@+~-]+)+):$")


def _pointed_lines(
    text: str, starts: list[int], lines: list[str], headings: list[int]
) -> list[int]:
    """A dump of files under headings that name them (`# configuration file /etc/x.conf:`):
    the lines a message elsewhere in the output points at (`... in /etc/x.conf:11`), with the
    message itself. The dumped file's line N is the N-th line under its heading."""
    out: list[int] = []
    if not headings:
        return []
    headings = sorted(headings)
    following = [*headings[1:], len(lines)]
    files = 0
    for h, stop in zip(headings, following, strict=True):
        m = _FILE_HEADING.match(lines[h])
        if m is None:
            continue
        files += 1
        if files > MAX_FILE_HEADINGS:
            break  # one search of the text a file: a bounded number of them
        needle = m.group("path") + ":"
        pos = text.find(needle)
        while pos != -1:
            end = pos + len(needle)
            digits = re.match(r"\d+", text[end : end + 9])
            if digits:
                number = int(digits.group())
                i = bisect_right(starts, pos) - 1
                if number > 0 and h + number < stop:
                    out += [i, h + number]
            pos = text.find(needle, end)
    return out


BRACE_LINES = 20
"""C-family definitions are looked for in a text with a `{` in every `BRACE_LINES` lines or more."""


def _c_definitions(text: str, starts: list[int], n: int) -> tuple[list[int], list[int]]:
    """The top-level and the member definitions of C-family code (none in a text with fewer
    than one `{` in `BRACE_LINES` lines: no regex pass over prose)."""
    top: list[int] = []
    members: list[int] = []
    if text.count("{") * BRACE_LINES < n:
        return top, members
    for match in _C_DEFINITION.finditer(text):
        width = len(match.group("indent").expandtabs(C_MEMBER_INDENT))
        if width <= C_MEMBER_INDENT:
            (members if width else top).append(bisect_right(starts, match.start()) - 1)
    return top, members


def reduce(text: str, hint: Hint, budget: Budget) -> Plan | None:
    split_text = split(text)
    lines, starts = split_text.lines, split_text.starts
    n = len(lines)
    found = _find_lines(text, starts)
    c_top, c_members = _c_definitions(text, starts, n)
    code = len(found["klass"]) + len(found["function"]) + len(c_top) + len(c_members) >= 3
    priority: dict[int, int] = {}

    def raise_to(i: int, value: int) -> None:
        if 0 <= i < n and priority.get(i, 0) < value:
            priority[i] = value

    for i in found["method"]:
        raise_to(i, METHOD)
    for i in found["constant"]:
        raise_to(i, CONSTANT)
    # a definition's body runs to the next top-level definition or constant
    statements = sorted(
        set(found["klass"] + found["function"] + found["dunder"] + found["constant"] + c_top)
    )
    # a member's body runs to the next member or top-level definition
    member_ends = sorted({*c_members, *statements})
    members = set(c_members)
    outline = 0
    for i in sorted({*found["klass"], *found["function"], *c_top, *members}):
        ends = member_ends if i in members else statements
        following = bisect_right(ends, i)
        next_top = ends[following] if following < len(ends) else n
        raise_to(i, DEFINITION + _exported(_body(lines[i])) + min(next_top - i, 9_999))
        outline += 1
    for i in found["dunder"]:
        raise_to(i, DUNDER)
    headings = [] if code else [i for i in found["markdown"] if not _in_banner(lines, i)]
    for i in found["man"]:
        previous_blank = i == 0 or not _body(lines[i - 1]).strip()
        following_line = _body(lines[i + 1]) if i + 1 < n else ""
        if previous_blank and following_line[:1] in (" ", "\t", ""):
            headings.append(i)
    for i in headings:
        raise_to(i, HEADING)
        outline += 1
        opened = 0
        for j in range(i + 1, min(n, i + 8)):
            if lines[j].strip() and _body(lines[j]).strip():
                raise_to(j, OPENING if opened == 0 else OPENING_MORE)
                opened += 1
                if opened == 2:
                    break
    if outline < 2:
        return None
    for i in _pointed_lines(text, starts, lines, headings):
        raise_to(i, HEADING)
    for i in range(min(n, FILE_HEAD)):
        raise_to(i, FILE_START)
    return [Keep(i, i + 1, priority[i]) for i in sorted(priority)]
