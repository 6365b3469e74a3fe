"""outline: documents and source files read whole (a read tool, `cat -n`, man pages, Markdown).

Keeps the outline: headings and top-level definitions (classes first, then functions and
module constants), the first lines of the file and the first line or two of each section;
method definitions come next; the body text goes first. `cat -n` style line numbers
(`   12<TAB>` or `   12→`) are looked through.
"""

from __future__ import annotations

import re

from klipui.shrink.plan import Budget, Hint, Keep, Plan
from klipui.shrink.text import sample_lines, split_lines

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
_FUNCTION = re.compile(
    r"(?:export\s+)?(?:default\s+)?(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?"
    r"(?:def|function|fn|func|sub|proc|type)\b"
)
_CONSTANT = re.compile(r"(?:__\w+__|[A-Z][A-Z0-9_]+)\s*(?::[^=]*)?=")
_READ_TOOLS = ("read", "cat", "view", "open")


def _body(line: str) -> str:
    match = _NUMBERED.match(line)
    return line[match.end() :] if match else line


def _is_heading(body: str, previous_blank: bool, next_line: str, code: bool = False) -> bool:
    if _MARKDOWN.match(body):
        return not code  # a `# comment` in code is no heading
    return (
        previous_blank
        and bool(_MAN_HEADING.fullmatch(body.rstrip()))
        and next_line[:1] in (" ", "\t", "")
    )


def detect(text: str, hint: Hint) -> bool:
    lines = sample_lines(text, 400, 0)
    if len(lines) < MIN_LINES:
        return False
    reading = any(word in (hint.tool or "").lower() for word in _READ_TOOLS) or bool(hint.path)
    bodies = [_body(line) for line in lines]
    headings = sum(
        1
        for i, body in enumerate(bodies)
        if _is_heading(
            body, i == 0 or not bodies[i - 1].strip(), bodies[i + 1] if i + 1 < len(bodies) else ""
        )
    )
    definitions = sum(1 for body in bodies if _CLASS.match(body) or _FUNCTION.match(body))
    if reading:
        return headings + definitions >= 2
    return headings >= 3


def _body_sizes(bodies: list[str]) -> list[int]:
    """For each line, how many lines until the next unindented statement (its body size)."""
    n = len(bodies)
    sizes = [1] * n
    next_top = n
    for i in range(n - 1, -1, -1):
        sizes[i] = next_top - i
        body = bodies[i]
        if body.strip() and body[:1] not in (" ", "\t", ")", "]", "}", "#", "@"):
            next_top = i
    return sizes


def reduce(text: str, hint: Hint, budget: Budget) -> Plan | None:
    lines = split_lines(text)
    bodies = [_body(line) for line in lines]
    n = len(lines)
    code = sum(1 for body in bodies[:2000] if _CLASS.match(body) or _FUNCTION.match(body)) >= 3
    sizes = _body_sizes(bodies)
    priority = [0] * n
    outline = 0
    for i, body in enumerate(bodies):
        previous_blank = i == 0 or not bodies[i - 1].strip()
        following = bodies[i + 1] if i + 1 < n else ""
        if _is_heading(body, previous_blank, following, code):
            priority[i] = HEADING
            outline += 1
            opened = 0
            for j in range(i + 1, min(n, i + 8)):
                if bodies[j].strip():
                    priority[j] = max(priority[j], OPENING if opened == 0 else OPENING_MORE)
                    opened += 1
                    if opened == 2:
                        break
        elif body.startswith("__") and _CONSTANT.match(body):
            priority[i] = DUNDER
        elif _CLASS.match(body) or _FUNCTION.match(body):
            # bigger definitions say more about the file: smaller ones go first
            priority[i] = DEFINITION + min(sizes[i], 9_999)
            outline += 1
        elif _CONSTANT.match(body):
            priority[i] = CONSTANT
        elif body[:1] in (" ", "\t") and _FUNCTION.match(body.lstrip()):
            priority[i] = METHOD
    if outline < 2:
        return None
    for i in range(min(n, FILE_HEAD)):
        priority[i] = max(priority[i], FILE_START)
    return [Keep(i, i + 1, priority[i]) for i in range(n) if priority[i]]
