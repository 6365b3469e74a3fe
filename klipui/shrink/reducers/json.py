"""json: one JSON value (npm view --json, API responses, package-lock, config files).

Pretty-printed JSON is reduced line by line, following the nesting of its lines (so JSON with
comments or trailing commas is reduced too): the skeleton (every key of the top-level value)
stays, and long collections are sampled: an array keeps its first 3 items and its last, an
object with many keys its first 5 and its last, and the rest is dropped (big collections first,
deeper ones before shallower ones) only as far as the budget needs; then the samples themselves,
then top-level keys.
Compact JSON (one long line) is replaced by a sampled pretty rendering: arrays of more than
5 items keep 3 plus `"... N more items ..."` plus the last, objects of more than 25 keys keep 5 plus
`"...": "N more keys omitted"`, strings over 500 characters are cut, nesting deeper than 12
levels is collapsed.
"""

from __future__ import annotations

import heapq
import json as jsonlib
import re
from bisect import bisect_right
from itertools import pairwise, repeat
from typing import Any

from klipui.shrink.plan import Budget, Hint, Keep, Plan, Summary
from klipui.shrink.text import plural, safe_slice, sample, split, split_lines

name = "json"
describe = "structure kept, long arrays and objects sampled"
overflow = "head"

ARRAY_KEEP = 3
ARRAY_WHOLE = 5
OBJECT_KEEP = 5
OBJECT_WHOLE = 25
STRING_MAX = 500
DEPTH_MAX = 12
LONG_LINE = 1_000
TOP = 10**9


def detect(text: str, hint: Hint) -> bool:
    head = sample(text).lstrip()
    if not head.startswith(("{", "[")):
        return False
    path = (hint.path or "").lower()
    if path.endswith((".json", ".jsonl")):
        return True
    return text[-1000:].rstrip().endswith(("}", "]"))


class _Container:
    __slots__ = ("children", "close", "depth", "open")

    def __init__(self, open_line: int, depth: int) -> None:
        self.open = open_line
        self.close = -1
        self.depth = depth
        self.children: list[int] = []


_CLOSE = re.compile(r"\n[ \t]*[}\]]")
_OPEN = re.compile(r"[{\[][ \t\r]*$", re.M)
"""A closing bracket at a line's start, an opening one at its end: the only lines that change
the nesting of pretty-printed JSON."""


_SAMPLE = 1 << 20


def _bracket_lines(text: str, starts: list[int], opening: bool) -> list[int]:
    """The lines `_OPEN` (or `_CLOSE`) matches, in order. When brackets are about as rare as
    the lines that hold one alone (judged on the first `_SAMPLE` characters), each is found by
    substring search and its line checked; otherwise one regex scan (which tries every
    character) is cheaper. Both ways find the same lines."""
    brackets = "{[" if opening else "}]"
    pattern = _OPEN if opening else _CLOSE
    head = text[:_SAMPLE]
    if head.count(brackets[0]) + head.count(brackets[1]) > (head.count("\n") + 1) // 2:
        shift = -1 if opening else 0
        return [bisect_right(starts, m.start()) + shift for m in pattern.finditer(text)]
    found: list[int] = []
    end = len(text)
    for bracket in brackets:
        position = text.find(bracket)
        while position >= 0:
            if opening:
                stop = text.find("\n", position + 1)
                alone = not text[position + 1 : stop if stop >= 0 else end].strip(" \t\r")
            else:
                newline = text.rfind("\n", 0, position)
                alone = newline >= 0 and not text[newline + 1 : position].strip(" \t")
            if alone:
                found.append(bisect_right(starts, position) - 1)
            position = text.find(bracket, position + 1)
    found.sort()
    return found


_BLANK = re.compile(r"\n[ \t\r]*+\n")


def _containers(lines: list[str], text: str) -> list[_Container] | None:
    """Containers of a pretty-printed value (open line, close line, first line of each child),
    found by one scan for bracket lines: the lines between two of them are children of the
    innermost open container."""
    starts = split(text).starts
    has_blank = _BLANK.search(text) is not None
    stack: list[_Container] = []
    found: list[_Container] = []
    done = -1  # the last line handled
    closes = zip(_bracket_lines(text, starts, False), repeat(0))
    opens = zip(_bracket_lines(text, starts, True), repeat(1))
    for i, opening in heapq.merge(closes, opens):
        if i > done + 1:
            if not stack:
                if found:
                    return None  # text after the top-level value
            else:
                _add_plain(stack[-1].children, lines, done + 1, i, has_blank)
        if not opening:
            if not stack:
                return None
            stack.pop().close = i
            done = i
            continue
        if stack:
            stack[-1].children.append(i)
        elif found:
            return None  # a second top-level value
        container = _Container(i, len(stack))
        stack.append(container)
        found.append(container)
        done = i
    if done + 1 < len(lines) and any(line.strip() for line in lines[done + 1 :]):
        if not stack:
            return None
        _add_plain(stack[-1].children, lines, done + 1, len(lines), has_blank)
    if stack or not found:
        return None
    return found


def _add_plain(children: list[int], lines: list[str], start: int, end: int, blank: bool) -> None:
    """Lines `[start, end)` (no bracket lines) as children, blank lines skipped."""
    if blank:
        children.extend(i for i in range(start, end) if lines[i].strip())
    else:
        children.extend(range(start, end))


def _line_plan(lines: list[str], text: str) -> Plan | None:
    containers = _containers(lines, text)
    if containers is None:
        return None
    n = len(lines)
    lowered: list[tuple[int, int, float]] = []
    cuts: set[int] = set()

    def lower(first: int, last: int, weight: float) -> None:
        cuts.add(first)
        if first < last:
            lowered.append((first, last, weight))

    for container in containers:
        children = container.children
        keep = ARRAY_KEEP if lines[container.open].rstrip().endswith("[") else OBJECT_KEEP
        if len(children) <= keep + 2:
            continue
        bounds = [*children, container.close]
        if container.depth == 0:
            # top-level keys go last, the biggest first
            for first, last in zip(bounds[keep:], bounds[keep + 1 :], strict=False):
                lower(first, last, -1 - (last - first) / (n + 1))
        else:
            # the first items and the last one (often the newest) are the sample
            weight = -len(children) * (2**container.depth)
            sample_weight = min(-2, weight // 4)
            lower(children[0], children[keep], sample_weight)
            lower(children[keep], children[-1], weight)
            lower(children[-1], container.close, sample_weight)
    starts, values = _lowest(lowered, n)
    cuts.update(
        start for start, a, b in zip(starts[1:], values[:-1], values[1:], strict=True) if a != b
    )
    bounds = sorted(cuts | {0, n})
    plan: Plan = [
        # Fractional priorities rank top-level keys by size; Keep only compares them.
        Keep(start, end, values[bisect_right(starts, start) - 1])  # type: ignore[arg-type]
        for start, end in pairwise(bounds)
        if start < end
    ]
    return plan if len(plan) > 1 else None


def _lowest(lowered: list[tuple[int, int, float]], n: int) -> tuple[list[int], list[float]]:
    """The priority of every line as `(starts, values)`: line i has the value of the last start
    at or before it, the lowest weight of the ranges `[first, last)` holding it (`TOP` outside
    every range). One sweep over the range ends, instead of writing each range's weight into
    each of its lines (nested collections would write their lines once a level)."""
    lowered.sort()
    points = sorted({0, n, *(first for first, _, _ in lowered), *(last for _, last, _ in lowered)})
    active: list[tuple[float, int]] = []  # (weight, last), lowest first; ended ones linger
    starts: list[int] = []
    values: list[float] = []
    k = 0
    for point in points[:-1]:
        while k < len(lowered) and lowered[k][0] == point:
            heapq.heappush(active, (lowered[k][2], lowered[k][1]))
            k += 1
        while active and active[0][1] <= point:
            heapq.heappop(active)
        starts.append(point)
        values.append(active[0][0] if active else TOP)
    return starts, values


def _sampled(value: Any, depth: int = 0) -> Any:
    if depth > DEPTH_MAX:
        if isinstance(value, list):
            return f"[array of {len(value):,}]"
        if isinstance(value, dict):
            return f"{{object, {plural(len(value), 'key')}}}"
        return value
    if isinstance(value, list):
        if len(value) <= ARRAY_WHOLE:
            return [_sampled(v, depth + 1) for v in value]
        kept = [_sampled(v, depth + 1) for v in value[:ARRAY_KEEP]]
        last = _sampled(value[-1], depth + 1)
        return [*kept, f"... {len(value) - ARRAY_KEEP - 1:,} more items ...", last]
    if isinstance(value, dict):
        items = list(value.items())
        if len(items) <= OBJECT_WHOLE:
            return {k: _sampled(v, depth + 1) for k, v in items}
        result = {k: _sampled(v, depth + 1) for k, v in items[:OBJECT_KEEP]}
        result["..."] = f"{len(items) - OBJECT_KEEP:,} more keys omitted"
        return result
    if isinstance(value, str) and len(value) > STRING_MAX:
        head = safe_slice(value, STRING_MAX)
        return f"{head}... (+{plural(len(value) - len(head), 'char')})"
    return value


def _summary_plan(value: Any, n: int) -> Plan:
    rendered = jsonlib.dumps(_sampled(value), indent=2, ensure_ascii=False).split("\n")
    plan: Plan = [Summary((line,), 0, 0, priority=0) for line in rendered[:-1]]
    plan.append(Summary((rendered[-1],), 0, n, priority=0))
    return plan


def reduce(text: str, hint: Hint, budget: Budget) -> Plan | None:
    lines = split_lines(text)
    if len(lines) > 2 and max(map(len, lines)) <= LONG_LINE:
        # Pretty-printed: the plan follows the nesting of the lines, which `_containers` checks
        # (one value, every bracket closed); parsing the whole value as well would cost more
        # than the rest of the reduction and add nothing to the plan.
        return _line_plan(lines, text)
    try:
        value = jsonlib.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict | list):
        return None
    plan = _summary_plan(value, len(lines))
    rendered_chars = sum(len(p.lines[0]) + 1 for p in plan if isinstance(p, Summary))
    return plan if rendered_chars < len(text) else None
