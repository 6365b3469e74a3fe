"""grep: search results (`grep -rn`, `rg -n`, `git grep -n`): `path:line:text` a match.

Keeps every match that looks like a definition (class, def, function, type...) when such
matches are rare, the first two matches of each file, and adds `[path: N matches]` for each file
with more; the other matches go first when the budget is tight. Matches that say the same thing
(numbers, ids and quoted names aside) three times or more are not each a file's first matches:
the ones between the first and the last of them go with the other matches; when such repeats
make up most of the output (a linter's findings across files), the matches that say something
else stand out. The per-file counts rank with each file's first matches.
"""

from __future__ import annotations

import re

from klipui.shrink.plan import Budget, Hint, Keep, Plan, Summary
from klipui.shrink.reducers._patterns import kind
from klipui.shrink.text import sample_lines, split_lines

name = "grep"
describe = "definitions and the first matches of each file kept, with counts per file"
overflow = "head"

MIN_LINES = 20
FIRST_MATCHES = 2
RARE_DEFINITIONS = 0.25
REPEATS = 3
"""Matches of one kind from this many on are repeats."""
REPETITIVE = 0.5
"""Share of the matches that are repeats from which the other matches stand out."""
SUMMARY, STANDOUT, REPEATED = 2, 4, 1
_MATCH = re.compile(r"(?=[^\[(<\d]|[^\s:]*[/.])([^:\s](?:[^:\s]| (?! ))*?)([:-])(\d+)\2(.*)")
"""`path:line:text` (or `path-line-text` for context lines: group 2 is the separator). A path
starts with neither a bracket nor a digit unless it holds a `/` or a `.`, so that a timestamp
(`[12:00:01]`, `2024-05-01 12:00:01`) is not read as a path and a line number; nor does a path
hold a run of white space (the columns of `ls -l` or `git blame` before a date)."""
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
    parsed = [_MATCH.match(line) for line in lines]
    # a file's part runs over its context lines (`path-N-`) and the `--` between its groups
    files: list[tuple[str, int, int]] = []
    for i, m in enumerate(parsed):
        if m is None:
            if files and lines[i] == "--" and files[-1][2] == i:
                files[-1] = (files[-1][0], files[-1][1], i + 1)
            continue
        if files and files[-1][0] == m[1] and files[-1][2] == i:
            files[-1] = (m[1], files[-1][1], i + 1)
        else:
            files.append((m[1], i, i + 1))
    if not files:
        return None
    is_match = [m is not None and m[2] == ":" for m in parsed]
    matches = sum(is_match)
    definitions = sum(1 for m, hit in zip(parsed, is_match, strict=True) if hit and _is_def(m))
    # definitions stand out only when they are rare (a search for "def " finds nothing else)
    rare = definitions <= RARE_DEFINITIONS * matches
    top, nested = (6, 5) if rare else (3, 3)
    priority = [OTHER] * len(lines)
    _rank_others(lines, parsed, priority)
    by_kind = _match_kinds(parsed, is_match)
    plan: Plan = []
    for path, start, end in files:
        count = sum(is_match[start:end])
        if count > FIRST_MATCHES:
            label = "match" if count == 1 else "matches"
            plan.append(Summary((f"[{path}: {count:,} {label}]",), start, start, SUMMARY))
        seen = 0
        for i in range(start, end):
            m = parsed[i]
            if m is None:
                priority[i] = -1  # a `--` between groups
            elif not is_match[i]:
                priority[i] = 0  # context
            elif _is_def(m):
                defined = top if not m[4][:1].isspace() else nested
                priority[i] = REPEATED if by_kind.get(i) == REPEATED else defined
            else:
                priority[i] = by_kind.get(i, 2 if seen < FIRST_MATCHES else 1)
                seen += 1
    last = max((i for i, hit in enumerate(is_match) if hit), default=-1)
    if last >= 0:
        priority[last] = max(priority[last], 2)  # the last match, as much as each file's first
    plan.extend(_keeps(priority, {start for _, start, _ in files}))
    plan.sort(key=lambda piece: (piece.start, isinstance(piece, Keep)))
    return plan if len(plan) > 1 else None


OTHER = 3
"""Lines that are neither matches nor context (messages such as `grep: x: binary file
matches`): the first and last of each kind, the others at the bottom."""


def _is_def(m: re.Match[str] | None) -> bool:
    return m is not None and _DEFINITION.match(m[4]) is not None


_QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"")


def _match_kinds(parsed: list[re.Match[str] | None], is_match: list[bool]) -> dict[int, int]:
    """Priorities the kind of a match's text decides: the middle repeats of a kind at
    `REPEATED`; when repeats are most of the matches, the matches of a rarer kind at `STANDOUT`
    (a definition keeps its own, higher priority unless it is such a middle repeat)."""
    kinds: dict[str, list[int]] = {}
    for i, m in enumerate(parsed):
        if m is not None and is_match[i]:
            kinds.setdefault(kind(_QUOTED.sub("''", m[4])), []).append(i)
    repeats = sum(len(same) for same in kinds.values() if len(same) >= REPEATS)
    standout = repeats >= REPETITIVE * sum(is_match)
    out: dict[int, int] = {}
    for same in kinds.values():
        if len(same) >= REPEATS:
            out.update((i, REPEATED) for i in same[1:-1])
        elif standout:
            out.update((i, STANDOUT) for i in same)
    return out


def _rank_others(lines: list[str], parsed: list[re.Match[str] | None], priority: list[int]) -> None:
    """Other lines of one kind (digits and the path aside) from the third on keep their first
    and last at `OTHER`, the ones between at -1."""
    kinds: dict[str, list[int]] = {}
    for i, m in enumerate(parsed):
        if m is None and lines[i] == "--":
            priority[i] = -1
        elif m is None and lines[i].strip():
            kinds.setdefault(_KIND.sub("#", lines[i]), []).append(i)
    for same in kinds.values():
        for i in same[1:-1] if len(same) > 2 else ():
            priority[i] = -1


_KIND = re.compile(r"(?<![^\s/\\])[^\s/\\]*+[/\\]\S*|\d+")
"""A word holding a path separator, or a number. A path is looked for from a word's start only
(the same matches; a scan from each character of a long word cost its square)."""


def _keeps(priority: list[int], breaks: set[int]) -> Plan:
    """Runs of lines of one priority as pieces, cut at each of `breaks` (where a file's part
    starts, for its count to go before it); definitions alone."""
    plan: Plan = []
    run_start, run_priority = 0, None
    for i, p in enumerate([*priority, None]):
        if p != run_priority or i in breaks or (p is not None and p >= 5):
            if run_priority is not None and i > run_start:
                plan.append(Keep(run_start, i, run_priority))
            run_start, run_priority = i, p
    return plan
