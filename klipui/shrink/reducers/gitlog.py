"""`git log` output: the newest commit, notable ones, the initial one; routine runs summarised.

Notable: releases and tags, `BREAKING CHANGE`, security fixes, reverts, hotfixes, and commits that
change hundreds of lines. Each kept commit shows its header and subject (plus the lines that make
it notable); each run of routine commits between them becomes a marker and one summary line
(how many, the date range, the main authors). Full (`git log`, `--stat`) and one-line formats.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from dataclasses import dataclass, field

from klipui.shrink.plan import Budget, Hint, Plan
from klipui.shrink.reducers._patterns import (
    FLOOR,
    HIGH,
    LOW,
    MID,
    TOP,
    Cand,
    Fitter,
    Lines,
    command_matches,
    finish,
    line_regex,
    lines_containing,
    sample,
)
from klipui.shrink.salience import family

name = "gitlog"
describe = "newest, notable and initial commits kept, routine commits summarised"

_COMMAND = re.compile(r"\bgit\s+(?:log|shortlog|rev-list|reflog|whatchanged)\b")
_FULL = line_regex(r"^(?:[*|/\\ ]*)commit [0-9a-f]{7,40}\b.*$")
_ONELINE = line_regex(r"^(?:[*|/\\ ]*)[0-9a-f]{7,40} \S.*$")
_NOTABLE = re.compile(
    r"\b(?:release[ds]?|v\d+\.\d+(?:\.\d+)?\b|BREAKING[ -]CHANGE|breaking|security|CVE-\d+"
    r"|vulnerab\w*|revert(?:s|ed)?|hotfix|rollback|initial (?:commit|import)|tag: )",
    re.I,
)
_DECORATED = re.compile(r"^[*|/\\ ]*(?:commit )?[0-9a-f]{7,40} \((?:HEAD|[^)]*[\w./-]+[^)]*)\)")
"""A commit header with ref names after the hash: a branch, remote or HEAD points at it."""
_STAT_FILE = re.compile(r"^ \S.* \| +(\d+) ")
_STAT_TOTAL = re.compile(r"^ \d+ files? changed")
_BIG_STAT = line_regex(r"^ \S[^|\n]*\| +[1-9]\d{2,} ")
_DATE = re.compile(r"^Date:\s+\w{3} (\w{3}) (\d+) [\d:]+ (\d{4})")
_AUTHORS = line_regex(r"^Author:\s+([^<\n]*?)\s*<")
BIG_CHANGE = 300
"""A file line of `--stat` with at least this many changed lines makes its commit notable."""
REPETITIVE = 0.3
"""Share of commits whose kind (subject without numbers, ids and names) is seen at least
`RUN` times above which a log is repetitive: there, a commit of a kind seen once is notable."""
RUN = 3
PATCH_HEAD = LOW + 10
"""`git log -p`: the priority of every commit's header and subject, above its changed lines."""
SUMMARY_ROOM = 200
"""Characters `git log -p` keeps free for the summary of the commits whose headers do not fit."""


@dataclass(slots=True)
class _Commit:
    start: int
    end: int
    subject: int | None = None
    date: str = ""
    author: str = ""
    notable: list[int] = field(default_factory=list)
    """Lines that make the commit notable (subject, body lines, big stat lines)."""
    total: int | None = None


def detect(text: str, hint: Hint) -> bool:
    """Several full commit headers with authors, or a screenful of one-line commits."""
    lines = sample(text)
    if len(lines) < 10:
        return False
    full = sum(1 for line in lines if _FULL.match(line))
    authors = sum(1 for line in lines if line.startswith("Author: "))
    oneline = sum(1 for line in lines if _ONELINE.match(line))
    if full >= 2 and authors >= 2:
        return True
    if command_matches(hint.command, _COMMAND) and full + oneline >= 3:
        return True
    return oneline >= 20 and oneline >= len(lines) * 0.8


def reduce(text: str, hint: Hint, budget: Budget) -> Plan | None:
    """Keep the commits that matter; a summary line for each run of routine ones."""
    lines = Lines(text)
    n = len(lines)
    starts = lines.hits(_FULL)
    full = len(starts) >= 2
    if not full:
        starts = lines.hits(_ONELINE)
    text_lines = lines.lines
    diffs = lines_containing(lines, ("diff --git ",)) if full else []
    diffs = [i for i in diffs if text_lines[i].startswith("diff --git ")]
    patch = bool(diffs)
    if len(starts) < (2 if patch else 5):
        return None
    commits = _commits(lines, starts, diffs, full)
    cands: list[Cand] = []
    extras: list[Cand] = []
    if starts[0] > 0:
        cands.append(Cand(0, starts[0], LOW))
    last = len(commits) - 1
    kinds = _kinds(text_lines, commits, full)
    for k, commit in enumerate(commits):
        p = _rank(k, last, commit, text_lines[commit.start])
        if p is None:
            p = kinds.get(k)
        if p is None:
            continue
        if patch:
            p = max(p, PATCH_HEAD)
        _parse(text_lines, commit, full)
        if full:
            commit.total = _stat_total(text_lines, commit)
        cands.extend(_commit_cands(commit, p))
        if full and commit.subject is not None:
            extras.append(Cand(commit.start + 1, commit.subject, p - 5))
    heads: list[list[Cand]] = []
    patches: list[Cand] = []
    if patch:
        for commit in commits:
            head, changes = _patch_cands(text_lines, commit)
            heads.append(head)
            patches.extend(changes)
    fitter = Fitter(lines, budget)
    fitter.add_all(cands)
    _add_heads(fitter, heads)
    # in a patch, the summary ranks below the headers kept: the pipeline shows the strong lines
    # a summary stands for at its priority, and a changed line that names an error is no error
    _summarise(fitter, text_lines, starts, commits, full, LOW if patch else MID)
    if patches:
        # the changes fill what the headers and the summaries of the commits left out leave
        fitter.add_all(patches)
    fitter.add_all(extras)
    return finish(fitter.plan(), n)


def _commits(lines: Lines, starts: list[int], diffs: list[int], full: bool) -> list[_Commit]:
    """The commits starting at `starts`, with their notable lines (none from a patch) and
    authors."""
    ends = [*starts[1:], len(lines)]
    commits = [_Commit(s, e) for s, e in zip(starts, ends, strict=True)]
    for i in _notable_lines(lines, full):
        k = bisect_right(starts, i) - 1
        if k >= 0 and not _in_patch(diffs, commits[k].start, i):
            commits[k].notable.append(i)
    if full:
        for i, m in lines.scan(_AUTHORS):
            k = bisect_right(starts, i) - 1
            if k >= 0 and not commits[k].author:
                commits[k].author = m.group(1)
    return commits


def _add_heads(fitter: Fitter, heads: list[list[Cand]]) -> None:
    """`git log -p`: the headers of the commits, newest first, each whole, while room is left
    for a summary of the older ones."""
    for head in heads:
        if fitter.room() < SUMMARY_ROOM:
            break
        for cand in head:
            fitter.try_add(cand)


def _summarise(
    fitter: Fitter,
    lines: list[str],
    starts: list[int],
    commits: list[_Commit],
    full: bool,
    priority: int,
) -> None:
    """One summary line in each gap that holds whole commits: how many, when, by whom."""
    for gap in fitter.gaps():
        first = bisect_left(starts, gap[0])
        stop = bisect_left(starts, gap[1])
        inside = [c for c in commits[first:stop] if c.end <= gap[1]]
        if inside:
            _parse(lines, inside[0], full)
            _parse(lines, inside[-1], full)
            fitter.add_summary([_describe(inside)], where=gap, priority=priority)


def _in_patch(diffs: list[int], start: int, i: int) -> bool:
    """Whether line `i` of the commit starting at `start` lies in its patch (after a `diff --git`
    of that commit), where an indented line is a context line of a changed file, not the
    message."""
    k = bisect_right(diffs, i) - 1
    return k >= 0 and diffs[k] > start


def _kinds(lines: list[str], commits: list[_Commit], full: bool) -> dict[int, int]:
    """Priorities for commits a summary must not hide, by their kind (the subject's template
    without numbers, ids and names: `reset: moving to HEAD~#`, `Bump x to #`). In a repetitive
    log, a commit of a kind seen once is rare and kept; a run of one kind shows its newest and
    oldest commit, the summaries between them count the rest."""
    if len(commits) < 2 * RUN:
        return {}
    keys: list[bytes] = []
    for commit in commits:
        if full:
            _parse(lines, commit, full)
        subject = commit.subject if commit.subject is not None else commit.start
        line = lines[subject]
        keys.append(family(line.split(" ", 1)[1] if not full and " " in line else line))
    counts = Counter(keys)
    repeated = sum(count for count in counts.values() if count >= RUN)
    if repeated < REPETITIVE * len(commits):
        return {}
    found: dict[int, int] = {}
    seen: set[bytes] = set()
    for k, key in enumerate(keys):
        if counts[key] == 1:
            found[k] = HIGH - 15
        elif counts[key] >= RUN and key not in seen:
            found[k] = LOW - 2
        seen.add(key)
    seen.clear()
    for k in range(len(keys) - 1, -1, -1):
        if counts[keys[k]] >= RUN and keys[k] not in seen:
            found.setdefault(k, LOW - 4)
        seen.add(keys[k])
    return found


def _parse(lines: list[str], commit: _Commit, full: bool) -> None:
    """Date and subject from the first lines of a commit (looked up only when needed)."""
    if not full:
        commit.subject = commit.start
        return
    for i in range(commit.start + 1, min(commit.end, commit.start + 10)):
        line = lines[i]
        if line.startswith("Date:"):
            m = _DATE.match(line)
            commit.date = f"{m.group(3)}-{m.group(1)}-{m.group(2)}" if m else line[5:].strip()
        elif line.startswith("    ") and line.strip():
            commit.subject = i
            break


_NEEDLES = (
    "elease",
    "BREAKING",
    "reaking",
    "ecurity",
    "SECURITY",
    "CVE-",
    "ulnerab",
    "evert",
    "otfix",
    "ollback",
    "nitial",
    "tag: ",
)


def _rank(k: int, last: int, commit: _Commit, header: str) -> int | None:
    """The priority of the k-th commit (newest first), None for a routine one."""
    if k == 0:
        return TOP
    if k == last:
        return TOP - 5
    if commit.notable:
        return HIGH
    if _DECORATED.match(header):
        return HIGH - 10  # a branch tip (`--decorate`): where a line of work stands
    if k <= 3:
        return LOW + 3 - k
    return None


def _notable_lines(lines: Lines, full: bool) -> list[int]:
    """Commit message lines (or headers with tags) that mark a commit as notable, and `--stat`
    lines of files with hundreds of changed lines."""
    text_lines = lines.lines
    found: list[int] = []
    for i in lines_containing(lines, _NEEDLES):
        line = text_lines[i]
        if full and not (line.startswith("    ") or "tag: " in line):
            continue
        if _NOTABLE.search(line):
            found.append(i)
    if full:
        for i in lines.hits(_BIG_STAT):
            m = _STAT_FILE.match(text_lines[i])
            digits = m.group(1).lstrip("0") if m else ""
            # a count of more than 4,300 digits cannot be an int: its length says it is big
            if digits and (len(digits) > 9 or int(digits) >= BIG_CHANGE):
                found.append(i)
    return found


def _stat_total(lines: list[str], commit: _Commit) -> int | None:
    """The `N files changed` line of a commit's `--stat`, if any."""
    for i in range(commit.end - 1, max(commit.start, commit.end - 60), -1):
        if _STAT_TOTAL.match(lines[i]):
            return i
    return None


def _commit_cands(commit: _Commit, p: int) -> list[Cand]:
    """Header, subject and the notable lines of one commit (the stat total when notable)."""
    out = [Cand(commit.start, commit.start + 1, p)]
    keep = set(commit.notable)
    if commit.subject is not None:
        keep.add(commit.subject)
    if commit.total is not None and (commit.notable or p >= TOP - 5):
        keep.add(commit.total)
    keep.discard(commit.start)
    out.extend(Cand(i, i + 1, p if i == commit.subject else p - 2) for i in sorted(keep))
    return out


_PATCH_PRIORITY = {"diff --git ": LOW - 2, "@@ ": FLOOR + 3, "+": FLOOR + 1, "-": FLOOR + 1}


def _patch_cands(lines: list[str], commit: _Commit) -> tuple[list[Cand], list[Cand]]:
    """`git log -p`: every commit's header, author, date and subject, then its diff (file
    headers, hunk headers, changed lines) in that order as the budget allows: the header lines
    and the changed lines apart."""
    if commit.subject is None and not commit.date:
        _parse(lines, commit, True)
    head = [Cand(commit.start, commit.start + 1, PATCH_HEAD)]
    head_end = commit.subject + 1 if commit.subject is not None else commit.start + 1
    for i in range(commit.start + 1, min(head_end, commit.end)):
        line = lines[i]
        if line.startswith(("Author:", "Date:", "Merge:")) or i == commit.subject:
            head.append(Cand(i, i + 1, PATCH_HEAD))
    out: list[Cand] = []
    for i in range(head_end, commit.end):
        line = lines[i]
        if line.startswith(("+++ ", "--- ")):
            continue
        for prefix, p in _PATCH_PRIORITY.items():
            if line.startswith(prefix):
                out.append(Cand(i, i + 1, p))
                break
    return head, out


def _describe(commits: list[_Commit]) -> str:
    """`    [37 routine commits, 2024-Jun-02 .. 2024-Jul-11; Aiko Sato 12, Priya Raman 9]`."""
    count = len(commits)
    text = f"    [{count} routine commit{'s' if count != 1 else ''}"
    newest, oldest = commits[0].date, commits[-1].date
    if newest and oldest and newest != oldest:
        text += f", {oldest} .. {newest}"
    elif newest:
        text += f", {newest}"
    authors = Counter(c.author for c in commits if c.author)
    if authors:
        text += "; " + ", ".join(f"{a} {k}" for a, k in authors.most_common(3))
        if len(authors) > 3:
            text += f", +{len(authors) - 3} more"
    return text + "]"
