"""tree: file listings (find, glob results, git ls-files, `ls -R`, `ls -laR`).

Within a directory the first 8 entries stay (more when the budget has room) and the rest become
`  ... and N more in dir`.
Crowded sets of directories are summarised too: each top-level directory gets one line
`dir/: N entries in M directories`, and under a tight budget the deepest directories are
dropped first, so the top-level layout survives.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable
from itertools import compress, count, repeat
from operator import ne, sub
from typing import NamedTuple

from klipui.shrink.plan import Budget, Hint, Keep, Piece, Plan, Summary
from klipui.shrink.text import Lines, sample_lines, split

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
_PLUS_ONE = (1).__add__
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


_ENTRY = re.compile(r"total \d+|[-bcdlps][-rwxsStT]{9}[.+@]? .*|\S+(?:(?: {2,}|\t+)\S+)*")
"""A line under an `ls -R` header: `total N`, an `ls -l` row, or names apart by two spaces or
a tab (one name a line, or columns of them); a line of prose is none of these."""


def _entries_share(nonblank: list[str], headers: int) -> float:
    """The share of the lines under the section headers that are directory entries."""
    body = len(nonblank) - headers
    if body <= 0:
        return 1.0
    entries = sum(1 for line in nonblank if _ENTRY.fullmatch(line.strip())) - headers
    return entries / body


def detect(text: str, hint: Hint) -> bool:
    lines = sample_lines(text, 200, 0)
    if len(lines) < MIN_LINES:
        return False
    nonblank = [line for line in lines if line.strip()]
    paths = sum(1 for line in nonblank if _is_path(line))
    if nonblank and paths >= 0.8 * len(nonblank):
        return True
    sections = [i for i in range(len(lines)) if _is_section(lines, i)]
    if len(sections) >= 3 and _entries_share(nonblank, len(sections)) >= 0.5:
        return True
    listing = bool(_LIST_COMMAND.search(hint.command or "")) or any(
        word in (hint.tool or "").lower() for word in ("glob", "ls", "list")
    )
    return listing and bool(nonblank) and paths >= 0.5 * len(nonblank)


class _Groups(NamedTuple):
    """Runs of entries, one of a directory each, as columns (a listing has tens of thousands
    of runs: no object a run). Run k covers lines `[starts[k], ends[k])` under header line
    `headers[k]` (or -1); its entries are `entries[firsts[k]:lasts[k]]`, in order."""

    directories: list[str]
    headers: list[int]
    starts: list[int]
    ends: list[int]
    firsts: list[int]
    lasts: list[int]
    entries: list[int]


def _placement(directory: str, root: str) -> tuple[int, str]:
    """How deep `directory` lies under `root`, and the top-level directory holding it ("" at
    depth 0)."""
    if directory.startswith(root):
        rest = directory[len(root) :].lstrip("/")
        tail = rest.rstrip("/")
    else:
        rest = tail = directory
    if not tail or tail == ".":
        return 0, ""
    first = rest.partition("/")[0]
    return tail.count("/") + 1, f"{root}/{first}" if root and first else (first or root or ".")


def _colon_ends(split_text: Lines) -> list[int]:
    """Indices of the lines ending with a colon, found by substring search."""
    text, lines, starts = split_text.text, split_text.lines, split_text.starts
    found: set[int] = set()
    for needle in (":\n", ":\r") if "\r" in text else (":\n",):
        position = text.find(needle)
        while position >= 0:
            found.add(bisect_right(starts, position) - 1)
            position = text.find(needle, position + 2)
    if text.endswith(":"):
        found.add(len(lines) - 1)
    return sorted(i for i in found if lines[i].endswith(":"))


def _nonblank(lines: list[str]) -> list[int]:
    """Indices of the lines that are not blank (found in C)."""
    return list(compress(range(len(lines)), map(str.strip, lines)))


def _sections(split_text: Lines) -> _Groups:
    """The `ls -R` sections (the lines before the first header are the `.` group); headers are
    looked for among the lines ending with a colon only, entries are cut from one list of the
    lines that are not blank."""
    lines = split_text.lines
    heads = [i for i in _colon_ends(split_text) if _is_section(lines, i)]
    nonblank = _nonblank(lines)
    groups = _Groups([], [], [], [], [], [], nonblank)
    # a header is not blank: where it sits in `nonblank` bounds the entries before and after it
    positions = list(map(bisect_left, repeat(nonblank), heads))
    lead = positions[0] if heads else len(nonblank)
    if lead:
        _append(groups, ".", -1, nonblank[0], nonblank[lead - 1] + 1, 0, lead)
    if not heads:
        return groups
    # the columns of the sections, made in C
    firsts = list(map(_PLUS_ONE, positions))  # a section's entries: nonblank[first:last]
    lasts = [*positions[1:], len(nonblank)]
    groups.directories.extend(
        map(str.rstrip, map(str.rstrip, map(lines.__getitem__, heads), repeat(":")), repeat("/"))
    )
    groups.headers.extend(heads)
    groups.starts.extend(map(_PLUS_ONE, heads))
    groups.ends.extend(
        nonblank[last - 1] + 1 if first < last else head + 1
        for first, last, head in zip(firsts, lasts, heads, strict=True)
    )
    groups.firsts.extend(firsts)
    groups.lasts.extend(lasts)
    return groups


def _append(
    groups: _Groups, directory: str, header: int, start: int, end: int, first: int, last: int
) -> None:
    """Add a run to `groups`."""
    groups.directories.append(directory)
    groups.headers.append(header)
    groups.starts.append(start)
    groups.ends.append(end)
    groups.firsts.append(first)
    groups.lasts.append(last)


def _path_runs(lines: list[str]) -> _Groups:
    groups = _Groups([], [], [], [], [], [], [])
    directories, ends, lasts, entries = (
        groups.directories,
        groups.ends,
        groups.lasts,
        groups.entries,
    )
    for i, line in enumerate(lines):
        path = line.strip().rstrip("/")
        if not path:
            continue
        directory = path.rsplit("/", 1)[0] if "/" in path else "."
        entries.append(i)
        if directories and directories[-1] == directory and ends[-1] == i:
            ends[-1] = i + 1
            lasts[-1] = len(entries)
        else:
            _append(groups, directory, -1, i, i + 1, len(entries) - 1, len(entries))
    return groups


def _common_root(directories: list[str]) -> str:
    """The leading path components every directory shares ("" when none)."""
    named = [d for d in directories if d and d != "."]
    if not named:
        return ""
    # the characters all share are those the smallest and the largest share; they end with
    # whole components when every directory goes on with a slash or stops there
    low, high = min(named), max(named)
    size = next(compress(count(), map(ne, low, high)), len(low))  # low is a prefix of high
    shared = low[:size]
    if all(len(d) == size or d[size] == "/" for d in named):
        return shared
    return shared[: max(0, shared.rfind("/"))]


def _root(groups: _Groups, sections: bool) -> str:
    """The directory the listing is of: the first `ls -R` header when every other lies
    under it, else the components all directories share."""
    directories = groups.directories
    if sections:
        named = list(compress(directories, map((-1).__lt__, groups.headers)))
    else:
        named = directories
    root = _common_root(named)
    if sections and groups.headers[0] >= 0:
        lead = directories[0]
        if all(map(str.startswith, directories, repeat(lead))):
            return lead
    return root


def reduce(text: str, hint: Hint, budget: Budget) -> Plan | None:
    split_text = split(text)
    lines = split_text.lines
    sections = sum(1 for i in range(min(len(lines), 2000)) if _is_section(lines, i)) >= 3
    groups = _sections(split_text) if sections else _path_runs(lines)
    if not groups.directories:
        return None
    root = _root(groups, sections)
    depths: list[int] = []
    group_tops: list[str] = []
    for directory in groups.directories:
        depth, top = _placement(directory, root)
        depths.append(depth)
        group_tops.append(top)
    plan, summarised = _plan(groups, depths, group_tops, ENTRIES)
    if summarised:
        plan, summarised = _widest(split_text, groups, depths, group_tops, budget, plan)
    return plan if summarised else None


FILL = 0.9
"""Share of the budget a listing's plan may reach by keeping more entries a directory."""
MARKER_COST = 30
"""What the marker of a gap between two kept pieces costs, about."""


def _cost(split_text: Lines, plan: Plan) -> tuple[int, int]:
    """About what `plan` shows, in characters and lines: its lines, summaries and markers."""
    chars = rows = 0
    last = 0
    for piece in plan:
        if piece.start > last:
            chars, rows = chars + MARKER_COST, rows + 1
        if isinstance(piece, Summary):
            chars += sum(len(line) + 1 for line in piece.lines)
            rows += len(piece.lines)
        else:
            chars += split_text.span_chars(piece.start, piece.end)
            rows += piece.end - piece.start
        last = max(last, piece.end)
    if last < len(split_text.lines):
        chars, rows = chars + MARKER_COST, rows + 1
    return chars, rows


def _widest(
    split_text: Lines,
    groups: _Groups,
    depths: list[int],
    group_tops: list[str],
    budget: Budget,
    plan: Plan,
) -> tuple[Plan, bool]:
    """The plan keeping the most entries a directory (at least `ENTRIES`) whose cost stays
    within `FILL` of the budget: a listing shrunk to a roomy budget shows more than 8 names a
    directory. The entries past the first `ENTRIES` rank low, so the pipeline drops them first."""
    max_chars = budget.max_chars * FILL if budget.max_chars else float("inf")
    max_rows = budget.max_lines * FILL if budget.max_lines else float("inf")

    def fits(candidate: Plan) -> bool:
        chars, rows = _cost(split_text, candidate)
        return chars <= max_chars and rows <= max_rows

    if not fits(plan):  # no room to widen: a huge listing is not planned again and again
        return plan, True
    best, summarised = plan, True
    low = ENTRIES
    high = max(map(sub, groups.lasts, groups.firsts))
    while low < high:
        middle = (low + high + 1) // 2
        candidate, collapsed = _plan(groups, depths, group_tops, middle)
        if fits(candidate):
            best, summarised, low = candidate, collapsed, middle
        else:
            high = middle - 1
    return best, summarised


def _plan(
    groups: _Groups, depths: list[int], group_tops: list[str], limit: int
) -> tuple[Plan, bool]:
    """The plan of the listing keeping `limit` entries a directory (`ROOT_ENTRIES` at least at
    the root); whether it collapses a directory or counts a top-level one."""
    tops = Counter(top for top in group_tops if top)
    top_entries: dict[str, int] = {}
    for first, last, top in zip(groups.firsts, groups.lasts, group_tops, strict=True):
        if top:
            top_entries[top] = top_entries.get(top, 0) + last - first
    announced: set[str] = set()
    shown: dict[str, int] = {}
    first_of_top = dict.fromkeys(tops, TOP_ENTRIES)
    plan: Plan = []
    append = plan.append
    collapsed = False
    all_entries = groups.entries
    for directory, header, start, end, first_entry, last_entry, depth, top in zip(
        groups.directories,
        groups.headers,
        groups.starts,
        groups.ends,
        groups.firsts,
        groups.lasts,
        depths,
        group_tops,
        strict=True,
    ):
        entry_priority = _ENTRY_PRIORITY[depth] if depth < _DEEP else 0
        if header >= 0:
            append(Keep(header, header + 1, _HEADER_PRIORITY[depth] if depth < _DEEP else 1))
        if top and top not in announced and (tops[top] > 1 or header < 0):
            announced.add(top)
            folders = "1 directory" if tops[top] == 1 else f"{tops[top]:,} directories"
            count = f"{top_entries[top]:,} entries in {folders}"
            position = header + 1 if header >= 0 else start
            append(Summary((f"[{top}/: {count}]",), position, position, 7))
        count = last_entry - first_entry
        most = max(ROOT_ENTRIES, limit) if depth == 0 else limit
        # only the entries kept are copied out of the column (a directory may hold thousands)
        kept = all_entries[first_entry : first_entry + most if count > most + 1 else last_entry]
        # the root's first entries are the layout; its later ones go before top-level counts
        before = shown.get(directory, 0)  # a folder may come in several runs
        first = ENTRIES - before if before < ENTRIES else 0
        shown[directory] = before + len(kept)
        room = first_of_top[top] if top else 0
        lead = _keep_entries(append, kept, first, room, entry_priority, depth)
        if lead:
            first_of_top[top] = room - lead
        if len(kept) < count:
            collapsed = True
            more = f"  ... and {count - len(kept):,} more in {directory}"
            append(
                Summary((more,), all_entries[first_entry + len(kept)], end, min(entry_priority, 7))
            )
    return plan, collapsed or bool(announced)


def _keep_entries(
    append: Callable[[Piece], None],
    kept: list[int],
    first: int,
    room: int,
    priority: int,
    depth: int,
) -> int:
    """Keep a run's entries: the first `first` at `priority` (of them, up to `room` as the
    lead of a top-level directory, above every tier), the rest low. Returns the lead's size."""
    lead = kept[: min(first, room)] if room > 0 else []
    if lead:
        # each top-level directory (each root of a `find` over several) shows real lines
        _keep_runs(append, lead, 6)
    _keep_runs(append, kept[len(lead) : first], priority)
    if first < len(kept):
        _keep_runs(append, kept[first:], 3 if depth == 0 else 0)
    return len(lead)


_DEEP = 8
_ENTRY_PRIORITY = [8, *(max(0, 5 - depth) for depth in range(1, _DEEP))]
_HEADER_PRIORITY = [8, *(max(1, 7 - depth) for depth in range(1, _DEEP))]
"""The priorities of a directory's entries and header by its depth (0 and 1 from `_DEEP`)."""


def _keep_runs(append: Callable[[Piece], None], tier: list[int], priority: int) -> None:
    """One `Keep` a run of consecutive lines of `tier` (ascending line indices)."""
    if not tier:
        return
    if tier[-1] - tier[0] == len(tier) - 1:  # consecutive lines: one run
        append(Keep(tier[0], tier[-1] + 1, priority))
        return
    run_start = -1
    for index, i in enumerate(tier):
        if run_start < 0:
            run_start = i
        if index + 1 == len(tier) or tier[index + 1] != i + 1:
            append(Keep(run_start, i + 1, priority))
            run_start = -1
