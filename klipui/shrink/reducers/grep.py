"""grep: search results (`grep -rn`, `rg -n`, `git grep -n`): `path:line:text` a match.

Keeps every match that looks like a definition (class, def, function, type...) when such
matches are rare, the first two matches of each file, and adds `[path: N matches]` for each file
with more; the other matches go first when the budget is tight.
"""

from __future__ import annotations

import re

from klipui.shrink.plan import Budget, Hint, Keep, Plan, Summary
from klipui.shrink.text import sample_lines, split_lines

name = "grep"
describe = "definitions and the first matches of each file kept, with counts per file"
overflow = "head"

MIN_LINES = 20
FIRST_MATCHES = 2
RARE_DEFINITIONS = 0.25
_MATCH = re.compile(r"(?=[^\[(<\d]|[^\s:]*[/.])([^:\s](?:[^:\s]| (?! ))*?)[:-](\d+)[:-](.*)")
"""`path:line:text` (or `path-line-text` for context lines). A path starts with neither a
bracket nor a digit unless it holds a `/` or a `.`, so that a timestamp (`[12:00:01]`,
`2024-05-01 12:00:01`) is not read as a path and a line number; nor does a path hold a run of
white space (the columns of `ls -l` or `git blame` before a date)."""
_DEFINITION = re.compile(
    r"(?:export\s+|pub(?:\([^)]*\))?\s+|async\s+|static\s+|public\s+|private\s+|abstract\s+)*"
    r"(?:class|def|function|interface|type|struct|enum|trait|impl|fn|func|module|object|"
    r"macro|const|val|var|let)\s+[\w$]"
)


def detect(text: str, hint: Hint) -> bool:
    lines = [line for line in sample_lines(text, 300, 0) if line.strip()]
    if len(lines) < MIN_LINES:
        return False
    hits = sum(1 for line in lines if _MATCH.match(line))
    return hits >= 0.8 * len(lines)


def reduce(text: str, hint: Hint, budget: Budget) -> Plan | None:
    lines = split_lines(text)
    files: list[tuple[str, int, int]] = []
    parsed: list[tuple[str, str] | None] = []
    for i, line in enumerate(lines):
        match = _MATCH.match(line)
        parsed.append((match[1], match[3]) if match else None)
        if match:
            if files and files[-1][0] == match[1] and files[-1][2] == i:
                files[-1] = (match[1], files[-1][1], i + 1)
            else:
                files.append((match[1], i, i + 1))
    matches = sum(end - start for _, start, end in files)
    definitions = sum(1 for found in parsed if found and _DEFINITION.match(found[1]))
    # definitions stand out only when they are rare (a search for "def " finds nothing else)
    rare = definitions <= RARE_DEFINITIONS * matches
    top, nested = (6, 5) if rare else (3, 3)
    plan: Plan = []
    last = 0
    for path, start, end in files:
        for i in range(last, start):
            if lines[i].strip():
                plan.append(Keep(i, i + 1, 3))
        count = end - start
        if count > FIRST_MATCHES:
            label = "match" if count == 1 else "matches"
            plan.append(Summary((f"[{path}: {count:,} {label}]",), start, start, 4))
        run_start, run_priority = start, -1
        for i in range(start, end + 1):
            if i < end:
                found = parsed[i]
                assert found is not None
                body = found[1]
                if _DEFINITION.match(body):
                    priority = top if not body[:1].isspace() else nested
                else:
                    priority = 2 if i - start < FIRST_MATCHES else 1
            else:
                priority = -2
            if priority != run_priority or priority >= 5:
                if i > run_start and run_priority >= 0:
                    plan.append(Keep(run_start, i, run_priority))
                run_start, run_priority = i, priority
        last = end
    for i in range(last, len(lines)):
        if lines[i].strip():
            plan.append(Keep(i, i + 1, 3))
    return plan if len(files) > 0 and len(plan) > 1 else None
