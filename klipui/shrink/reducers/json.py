"""json: one JSON value (npm view --json, API responses, package-lock, config files).

Pretty-printed JSON is reduced line by line, following the nesting of its lines (so JSON with
comments or trailing commas is reduced too): the skeleton (every key of the top-level value)
stays, and long collections are sampled: an array keeps its first 3 items, an object with many
keys its first 5, and the rest is dropped (big collections first, deeper ones before shallower
ones) only as far as the budget needs; then the samples themselves, then top-level keys.
Compact JSON (one long line) is replaced by a sampled pretty rendering: arrays of more than
5 items keep 3 plus `"... N more items ..."`, objects of more than 25 keys keep 5 plus
`"...": "N more keys omitted"`, strings over 500 characters are cut, nesting deeper than 12
levels is collapsed.
"""

from __future__ import annotations

import json as jsonlib
from typing import Any

from klipui.shrink.plan import Budget, Hint, Keep, Plan, Summary
from klipui.shrink.text import plural, safe_slice, sample, split_lines

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


def _containers(lines: list[str]) -> list[_Container] | None:
    """Containers of a pretty-printed value (open line, close line, first line of each child)."""
    stack: list[_Container] = []
    found: list[_Container] = []
    for i, line in enumerate(lines):
        core = line.strip()
        if core[-1:] == ",":
            core = core[:-1].rstrip()
        if not core:
            continue
        if core[0] in "}]":
            if not stack:
                return None
            stack.pop().close = i
            core = core[1:].lstrip(",").strip()
            if not core:
                continue
        if stack:
            stack[-1].children.append(i)
        elif found:
            return None  # a second top-level value
        if core[-1] in "{[":
            container = _Container(i, len(stack))
            stack.append(container)
            found.append(container)
    if stack or not found:
        return None
    return found


def _line_plan(lines: list[str]) -> Plan | None:
    containers = _containers(lines)
    if containers is None:
        return None
    n = len(lines)
    priority: list[float] = [TOP] * n
    cuts: set[int] = set()

    def lower(first: int, last: int, weight: float) -> None:
        cuts.add(first)
        for i in range(first, last):
            if priority[i] > weight:
                priority[i] = weight

    for container in containers:
        children = container.children
        keep = ARRAY_KEEP if lines[container.open].rstrip().endswith("[") else OBJECT_KEEP
        if len(children) <= keep + 1:
            continue
        bounds = [*children, container.close]
        if container.depth == 0:
            # top-level keys go last, the biggest first
            for first, last in zip(bounds[keep:], bounds[keep + 1 :], strict=False):
                lower(first, last, -1 - (last - first) / (n + 1))
        else:
            weight = -len(children) * (2**container.depth)
            lower(children[0], children[keep], min(-2, weight // 4))
            lower(children[keep], container.close, weight)
    plan: Plan = []
    i = 0
    while i < n:
        start = i
        i += 1
        while i < n and priority[i] == priority[start] and i not in cuts:
            i += 1
        plan.append(Keep(start, i, priority[start]))  # type: ignore[arg-type]
    return plan if len(plan) > 1 else None


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
        return [*kept, f"... {len(value) - ARRAY_KEEP:,} more items ..."]
    if isinstance(value, dict):
        items = list(value.items())
        if len(items) <= OBJECT_WHOLE:
            return {k: _sampled(v, depth + 1) for k, v in items}
        result = {k: _sampled(v, depth + 1) for k, v in items[:OBJECT_KEEP]}
        result["..."] = f"{len(items) - OBJECT_KEEP:,} more keys omitted"
        return result
    if isinstance(value, str) and len(value) > STRING_MAX:
        kept = safe_slice(value, STRING_MAX)
        return f"{kept}... (+{plural(len(value) - len(kept), 'char')})"
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
        return _line_plan(lines)
    try:
        value = jsonlib.loads(text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict | list):
        return None
    plan = _summary_plan(value, len(lines))
    rendered_chars = sum(len(p.lines[0]) + 1 for p in plan if isinstance(p, Summary))
    return plan if rendered_chars < len(text) else None
