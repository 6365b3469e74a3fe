"""Segments: regions of one output that have different shapes, each read by the reducer that
fits it.

An output is often several things in a row: HTTP headers then a JSON body, a build step then a
test run, a log then a traceback, a verbose trace then a final error. When no reducer recognises
the whole text, it is cut into regions at blank lines and at lines that start a new part (a
shell command echoed with `$ ` or `+ `, `==> `, a `{` or `[` alone opening a JSON value, an HTTP
status line, a `Step`/`#N` marker of a build); small neighbours are merged until each region has
`MIN_LINES` lines. Each region is offered to the shape reducers (not `repeat`, `semantic` or
`size`), with the hint's command left out since it names the whole output; neighbouring regions
taken by the same reducer are offered again as one. A reducer that recognises a region returns
its plan for that region alone; what no reducer takes is left to salience.

The work is bounded: at most `MAX_REGIONS` regions, and outputs longer than `MAX_CHARS` are not
segmented (detection reads a bounded sample of each region).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from klipui.shrink.plan import Budget, Hint, Keep, Plan, Reducer, Summary
from klipui.shrink.text import Lines

MIN_LINES = 12
MAX_REGIONS = 24
MAX_CHARS = 2_000_000
GENERIC = frozenset({"repeat", "semantic", "size"})
"""Reducers that fit any text: not a shape of a region."""

_START = re.compile(
    r"^(?:\$ \S|\+ \S|==> |>>> |#\d+ \[|Step \d+/\d+|[{\[][ \t]*$|HTTP/\d(?:\.\d)? \d{3}"
    r"|-{3,}[ \t]*$|={3,}[ \t]*$)"
)


@dataclass(frozen=True, slots=True)
class Region:
    """Input lines `[start, end)` and the plan of the reducer that recognised them (line
    indices of the whole text), or no reducer."""

    start: int
    end: int
    reducer: str = ""
    plan: tuple[Keep | Summary, ...] = ()


def cut(lines: Lines) -> list[tuple[int, int]]:
    """`lines` cut into regions of at least `MIN_LINES` lines (but the last), at most
    `MAX_REGIONS` of them."""
    n = len(lines)
    texts = lines.lines
    points = [0]
    for i in range(1, n):
        starts_part = (not texts[i - 1].strip() and texts[i].strip()) or _START.match(texts[i])
        if starts_part and i - points[-1] >= MIN_LINES:
            points.append(i)
    if n - points[-1] < MIN_LINES and len(points) > 1:
        points.pop()
    if len(points) > MAX_REGIONS:
        step = len(points) / MAX_REGIONS
        points = [points[int(k * step)] for k in range(MAX_REGIONS)]
    return [(a, b) for a, b in zip(points, [*points[1:], n], strict=True)]


def _shifted(plan: Plan, offset: int) -> tuple[Keep | Summary, ...]:
    return tuple(item._replace(start=item.start + offset, end=item.end + offset) for item in plan)


def _recognise(
    text: str, hint: Hint, budget: Budget, chain: Sequence[Reducer]
) -> tuple[str, Plan] | None:
    for module in chain:
        name = module.name
        if name in GENERIC:
            continue
        try:
            if not module.detect(text, hint):
                continue
            plan = module.reduce(text, hint, budget)
        except Exception:  # a reducer failing on a region just does not take it
            continue
        if plan:
            return name, plan
    return None


def _valid(plan: Plan, n: int) -> bool:
    last = 0
    for item in plan:
        if type(item) not in (Keep, Summary) or not (last <= item.start <= item.end <= n):
            return False
        last = item.end
    return True


def regions(lines: Lines, hint: Hint, budget: Budget, chain: Sequence[Reducer]) -> list[Region]:
    """The regions of `lines`, each with the plan of the reducer that fits it (if any); empty
    when the output is not segmented or no region is recognised."""
    if len(lines.text) > MAX_CHARS or len(lines) < 2 * MIN_LINES:
        return []
    parts = cut(lines)
    if len(parts) < 2:
        return []
    local = Hint(tool=hint.tool, path=hint.path, exit_code=hint.exit_code)
    starts = lines.starts
    found: list[Region] = []
    for a, b in parts:
        piece = lines.text[starts[a] : starts[b]]
        taken = _recognise(piece, local, budget, chain)
        if taken is None or not _valid(taken[1], b - a):
            found.append(Region(a, b))
            continue
        name, plan = taken
        previous = found[-1] if found else None
        if previous is not None and previous.reducer == name:
            joined = lines.text[starts[previous.start] : starts[b]]
            again = _recognise(joined, local, budget, chain)
            if again is not None and again[0] == name and _valid(again[1], b - previous.start):
                found[-1] = Region(previous.start, b, name, _shifted(again[1], previous.start))
                continue
        found.append(Region(a, b, name, _shifted(plan, a)))
    return found if any(region.reducer for region in found) else []
