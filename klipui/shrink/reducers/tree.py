"""tree: file listings (find, glob results, git ls-files, `ls -R`, `ls -laR`).

Within a directory the first 8 entries stay and the rest become `  ... and N more in dir`.
Crowded sets of directories are summarised too: each top-level directory gets one line
`dir/: N entries in M directories`, and under a tight budget the deepest directories are
dropped first, so the top-level layout survives.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass, field
from itertools import compress
from operator import methodcaller

from klipui.shrink.plan import Budget, Hint, Keep, Plan, Summary
from klipui.shrink.text import sample_lines, split_lines

name = "tree"
describe = "top-level layout and 8 entries per directory kept, with counts"
overflow = "head"

ENTRIES = 8
ROOT_ENTRIES = 40
TOP_ENTRIES = 3
"""Entries of each top-level directory kept before the deeper entries of any."""
MIN_LINES = 30
_PATH = re.compile(r"(?:\./|\.\./|/)?[\w.@+~-]+(?:/[\w.@+~-]+)+/?")
_SECTION = re.compile(r"\S.*:")
_LIST_COMMAND = re.compile(r"\b(ls|find|tree|fd|glob|dir|git ls-files)\b")


def _is_path(line: str) -> bool:
    return bool(_PATH.fullmatch(line.strip())) and not line.startswith((" ", "\t"))


def _is_section(lines: list[str], i: int) -> bool:
    """An `ls -R` header: `dir:` at the start of the output or after a blank line."""
    line = lines[i]
    return (
        line.endswith(":")
        and (i == 0 or not lines[i - 1].strip())
        and bool(_SECTION.fullmatch(line))
        and " " not in line.rstrip(":")
    )


def detect(text: str, hint: Hint) -> bool:
    lines = sample_lines(text, 200, 0)
    if len(lines) < MIN_LINES:
        return False
    nonblank = [line for line in lines if line.strip()]
    paths = sum(1 for line in nonblank if _is_path(line))
    if nonblank and paths >= 0.8 * len(nonblank):
        return True
    if sum(1 for i in range(len(lines)) if _is_section(lines, i)) >= 3:
        return True
    listing = bool(_LIST_COMMAND.search(hint.command or "")) or any(
        word in (hint.tool or "").lower() for word in ("glob", "ls", "list")
    )
    return listing and bool(nonblank) and paths >= 0.5 * len(nonblank)


@dataclass(slots=True)
class _Group:
    """A run of entries of one directory: lines `[start, end)`, header line or -1."""

    directory: str
    header: int
    start: int
    end: int
    depth: int
    entries: list[int] = field(default_factory=list)


def _top(directory: str, root: str) -> str:
    rest = directory[len(root) :].lstrip("/") if directory.startswith(root) else directory
    first = rest.split("/", 1)[0]
    return f"{root}/{first}" if root and first else (first or root or ".")


def _depth(directory: str, root: str) -> int:
    rest = directory[len(root) :].strip("/") if directory.startswith(root) else directory
    return 0 if not rest or rest == "." else rest.count("/") + 1


_ENDS_WITH_COLON = methodcaller("endswith", ":")


def _nonblank(lines: list[str]) -> list[int]:
    """Indices of the lines that are not blank (found in C)."""
    return list(compress(range(len(lines)), map(str.strip, lines)))


def _sections(lines: list[str]) -> list[_Group]:
    """The `ls -R` sections (the lines before the first header are the `.` group); headers are
    looked for among the lines ending with a colon only, entries are cut from one list of the
    lines that are not blank."""
    n = len(lines)
    heads = [i for i in compress(range(n), map(_ENDS_WITH_COLON, lines)) if _is_section(lines, i)]
    nonblank = _nonblank(lines)
    groups: list[_Group] = []
    # a header is not blank: where it sits in `nonblank` bounds the entries before and after it
    positions = [bisect_left(nonblank, head) for head in heads]
    lead = nonblank[: positions[0]] if heads else nonblank
    if lead:
        groups.append(_Group(".", -1, lead[0], lead[-1] + 1, 0, lead))
    for head, at, stop in zip(heads, positions, [*positions[1:], len(nonblank)], strict=True):
        entries = nonblank[at + 1 : stop]
        end = entries[-1] + 1 if entries else head + 1
        groups.append(_Group(lines[head].rstrip(":").rstrip("/"), head, head + 1, end, 0, entries))
    return groups


def _path_runs(lines: list[str]) -> list[_Group]:
    groups: list[_Group] = []
    for i, line in enumerate(lines):
        path = line.strip().rstrip("/")
        if not path:
            continue
        directory = path.rsplit("/", 1)[0] if "/" in path else "."
        if groups and groups[-1].directory == directory and groups[-1].end == i:
            groups[-1].entries.append(i)
            groups[-1].end = i + 1
        else:
            groups.append(_Group(directory, -1, i, i + 1, 0, [i]))
    return groups


def _common_root(directories: list[str]) -> str:
    parts = [d.split("/") for d in directories if d and d != "."]
    if not parts:
        return ""
    # every list of parts lies between the smallest and the largest, so the parts all share
    # are those these two share
    low, high = min(parts), max(parts)
    k = 0
    while k < min(len(low), len(high)) and low[k] == high[k]:
        k += 1
    return "/".join(low[:k])


def reduce(text: str, hint: Hint, budget: Budget) -> Plan | None:
    lines = split_lines(text)
    sections = sum(1 for i in range(min(len(lines), 2000)) if _is_section(lines, i)) >= 3
    groups = _sections(lines) if sections else _path_runs(lines)
    if not groups:
        return None
    root = _common_root([g.directory for g in groups if g.header >= 0 or not sections])
    if sections and groups[0].header >= 0:
        root = (
            groups[0].directory
            if all(g.directory.startswith(groups[0].directory) for g in groups)
            else root
        )
    for group in groups:
        group.depth = _depth(group.directory, root)

    group_tops = [_top(g.directory, root) if g.depth >= 1 else "" for g in groups]
    tops = Counter(top for top in group_tops if top)
    top_entries: Counter[str] = Counter()
    for group, top in zip(groups, group_tops, strict=True):
        if top:
            top_entries[top] += len(group.entries)
    announced: set[str] = set()
    shown: Counter[str] = Counter()
    first_of_top: Counter[str] = Counter({top: TOP_ENTRIES for top in tops})

    plan: Plan = []
    collapsed = False
    for group, top in zip(groups, group_tops, strict=True):
        depth = group.depth
        limit = ROOT_ENTRIES if depth == 0 else ENTRIES
        header_priority = 8 if depth == 0 else max(1, 7 - depth)
        entry_priority = 8 if depth == 0 else max(0, 5 - depth)
        if group.header >= 0:
            plan.append(Keep(group.header, group.header + 1, header_priority))
            position = group.header + 1
        else:
            position = group.start
        if top and top not in announced and (tops[top] > 1 or group.header < 0):
            announced.add(top)
            folders = "1 directory" if tops[top] == 1 else f"{tops[top]:,} directories"
            count = f"{top_entries[top]:,} entries in {folders}"
            plan.append(Summary((f"[{top}/: {count}]",), position, position, 7))
        entries = group.entries
        kept = entries[:limit] if len(entries) > limit + 1 else entries
        # the root's first entries are the layout; its later ones go before top-level counts
        first = max(0, ENTRIES - shown[group.directory])  # a folder may come in several runs
        shown[group.directory] += len(kept)
        tiers = [(kept[:first], entry_priority), (kept[first:], 3 if depth == 0 else 0)]
        if top and first_of_top[top] > 0:
            # each top-level directory (each root of a `find` over several) shows real lines
            lead = kept[: min(first, first_of_top[top])]
            first_of_top[top] -= len(lead)
            tiers = [(lead, 6), (kept[len(lead) : first], entry_priority), tiers[1]]
        for tier, priority in tiers:
            if tier and tier[-1] - tier[0] == len(tier) - 1:  # consecutive lines: one run
                plan.append(Keep(tier[0], tier[-1] + 1, priority))
                continue
            run_start = -1
            for index, i in enumerate(tier):
                if run_start < 0:
                    run_start = i
                if index + 1 == len(tier) or tier[index + 1] != i + 1:
                    plan.append(Keep(run_start, i + 1, priority))
                    run_start = -1
        if len(kept) < len(entries):
            collapsed = True
            hidden = len(entries) - len(kept)
            start, end = entries[len(kept)], group.end
            more = f"  ... and {hidden:,} more in {group.directory}"
            plan.append(Summary((more,), start, end, min(entry_priority, 7)))
    if not collapsed and len(announced) == 0:
        return None
    return plan
