"""json: one JSON value (npm view --json, API responses, package-lock, config files), or JSON
lines (one compact object a line: `go test -json`, `cargo --message-format=json`, event streams).

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
JSON lines that are not log records (those are the log reducer's) keep the records that say
something: those with a signal word (error, fail, panic, ...) and the two before each, those
whose value of a categorical field (few distinct values, like `"Action"`) is rare, the first
and the last record, then the first and last of each kind of routine record.
"""

from __future__ import annotations

import heapq
import json as jsonlib
import re
import sys
from bisect import bisect_right
from collections import Counter
from itertools import pairwise
from typing import Any

import orjson

from klipui.shrink.plan import Budget, Hint, Keep, Plan, Summary
from klipui.shrink.reducers._patterns import (
    HIGH,
    MID,
    Fitter,
    Lines,
    Marks,
    finish,
    is_log_line,
    template,
)
from klipui.shrink.reducers._patterns import TOP as LAST_RECORD
from klipui.shrink.text import long_lines, plural, safe_slice, sample, split, split_lines

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
    if head.startswith("HTTP/"):
        return _http_body(split_lines(head)) is not None and text.rstrip().endswith(("}", "]"))
    if not head.startswith(("{", "[")):
        return False
    path = (hint.path or "").lower()
    if path.endswith((".json", ".jsonl")):
        return True
    if text[-TRAILER_CHARS:].rstrip().endswith(("}", "]")):
        return True
    return text.count("\n", 0, len(text) - 1) <= TRAILER_LINES and (
        _value_end(split_lines(text[-TRAILER_CHARS:])) is not None
    )


TRAILER_LINES = 3
"""Short lines a compact value (one line) may be followed by (an exit status, a last word)."""
TRAILER_CHARS = 1_000


def _value_end(lines: list[str]) -> int | None:
    """How many of `lines` (the end of a text) a JSON value ends within: all of them, or all but
    up to `TRAILER_LINES` short lines after it; None when the text ends otherwise."""
    for trailing in range(min(TRAILER_LINES, len(lines) - 1) + 1):
        end = len(lines) - trailing
        if lines[end - 1].rstrip().endswith(("}", "]")):
            return end
        if len(lines[end - 1]) > TRAILER_CHARS // 4:
            return None
    return None


_SAMPLE_CHILDREN = max(ARRAY_KEEP, OBJECT_KEEP) + 1
"""The children of a nested container the plan reads: its first ones (and the last)."""


class _Container:
    """A container's open and close lines and its children (the first line of each): all of
    them at the top level, the first `_SAMPLE_CHILDREN` deeper (all the plan reads there, so a
    big document keeps no list of every line), with their count and the last one."""

    __slots__ = ("children", "close", "count", "depth", "last", "limit", "open")

    def __init__(self, open_line: int, depth: int) -> None:
        self.open = open_line
        self.close = -1
        self.depth = depth
        self.children: list[int] = []
        self.count = 0
        self.last = -1
        self.limit = sys.maxsize if depth == 0 else _SAMPLE_CHILDREN

    def add(self, indices: range | list[int]) -> None:
        """Children at these lines (ascending), after those added before."""
        if not indices:
            return
        room = self.limit - self.count
        if room > 0:
            self.children.extend(indices[:room])
        self.count += len(indices)
        self.last = indices[-1]


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
    # each bracket line as `2 * line + opening` (a close before an open on one line): one sort
    # of plain ints, no tuple a line for the collector to count
    closes = map((2).__mul__, _bracket_lines(text, starts, False))
    opens = map((1).__add__, map((2).__mul__, _bracket_lines(text, starts, True)))
    for code in sorted([*closes, *opens]):
        i, opening = code >> 1, code & 1
        if i > done + 1:
            if not stack:
                if found:
                    return None  # text after the top-level value
            else:
                _add_plain(stack[-1], lines, done + 1, i, has_blank)
        if not opening:
            if not stack:
                return None
            stack.pop().close = i
            done = i
            continue
        if stack:
            stack[-1].add([i])
        elif found:
            return None  # a second top-level value
        container = _Container(i, len(stack))
        stack.append(container)
        found.append(container)
        done = i
    if done + 1 < len(lines) and any(line.strip() for line in lines[done + 1 :]):
        if not stack:
            return None
        _add_plain(stack[-1], lines, done + 1, len(lines), has_blank)
    if stack or not found:
        return None
    return found


def _add_plain(container: _Container, lines: list[str], start: int, end: int, blank: bool) -> None:
    """Lines `[start, end)` (no bracket lines) as children, blank lines skipped."""
    if blank:
        container.add([i for i in range(start, end) if lines[i].strip()])
    else:
        container.add(range(start, end))


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
        if container.count <= keep + 2:
            continue
        if container.depth == 0:
            bounds = [*children, container.close]
            # top-level keys go last, the biggest first
            for first, last in zip(bounds[keep:], bounds[keep + 1 :], strict=False):
                lower(first, last, -1 - (last - first) / (n + 1))
        else:
            # the first items and the last one (often the newest) are the sample
            weight = -container.count * (2**container.depth)
            sample_weight = min(-2, weight // 4)
            lower(children[0], children[keep], sample_weight)
            lower(children[keep], container.last, weight)
            # the last item outlives the first ones: ties go to the later, newer item; an
            # object's first keys (its name, id, version) outlive its last
            is_object = keep == OBJECT_KEEP
            last_weight = sample_weight * 2 if is_object else -((-sample_weight) // 2)
            lower(container.last, container.close, last_weight)
    # a long value (a package's whole README) goes before the short keys around it; the long
    # lines are found a window of the text at a time (few lines are long)
    for i in long_lines(split(text), LONG_LINE):
        lower(i, i + 1, -1 - len(lines[i]) // 10)
        cuts.add(i + 1)
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
        return [item for item, _ in _sampled_items(value, depth)]
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


def _sampled_items(value: list[Any], depth: int = 0) -> list[tuple[Any, int]]:
    """The sampled items of a long array, with how much each stands out (`_oddity`); a gap
    between them as a `"... N more items ..."` string (standing out 0)."""
    odd = _oddity(value)
    out: list[tuple[Any, int]] = []
    previous = -1
    for i in _picked(value, odd):
        if i > previous + 1:
            out.append((f"... {i - previous - 1:,} more items ...", 0))
        out.append((_sampled(value[i], depth + 1), odd[i]))
        previous = i
    return out


def _picked(items: list[Any], odd: list[int]) -> list[int]:
    """The items of a long array to show: its first `ARRAY_KEEP` and its last; for an array of
    objects where some stand out (a value unlike the one most of them hold for a key: the file
    with errors among clean ones), its first, the `ARRAY_KEEP` that stand out most, and its last."""
    standing_out = sorted((i for i, score in enumerate(odd) if score), key=lambda i: -odd[i])
    if not standing_out:
        return [*range(ARRAY_KEEP), len(items) - 1]
    return sorted({0, *standing_out[:ARRAY_KEEP], len(items) - 1})


def _oddity(items: list[Any]) -> list[int]:
    """For each item, how many of its keys hold a value unlike the one most items hold (values
    compared by shape: a scalar itself, a container by whether it is empty); 0 for all when the
    items are not all objects."""
    if not all(isinstance(item, dict) for item in items):
        return [0] * len(items)
    shapes = [{key: _shape(value) for key, value in item.items()} for item in items]
    usual: dict[str, object] = {}
    for key in set().union(*shapes):
        common, count = Counter(shape.get(key) for shape in shapes).most_common(1)[0]
        if count * 2 > len(items):
            usual[key] = common
    return [sum(1 for key, common in usual.items() if shape.get(key) != common) for shape in shapes]


def _shape(value: Any) -> object:
    if isinstance(value, dict | list):
        return bool(value)
    return value if isinstance(value, int | float | bool) or value is None else str(value)[:200]


_HTTP_STATUS = re.compile(r"^HTTP/\d(?:\.\d)? \d{3}\b")
_HTTP_HEADER = re.compile(r"^[\w-]+: ")


def _http_body(lines: list[str]) -> int | None:
    """The line where a compact JSON body starts after HTTP responses (`curl -i`, redirects
    followed): every line before it is a status line, a header or blank, and the body is one
    line; None when not so (a pretty-printed body is a region of its own for the pipeline's
    segments)."""
    for i, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith(("{", "[")) and i and not lines[i - 1].strip():
            return i if not any(rest.strip() for rest in lines[i + 1 :]) else None
        if stripped and not (_HTTP_STATUS.match(line) or _HTTP_HEADER.match(line)):
            return None
    return None


def _compact(value: Any, spaced: bool) -> list[tuple[str, int]]:
    """A sampled value rendered as it came, on one line but for one top-level key or item a
    line (and one item a line of a long array a top-level key holds), each with a priority: how
    much an item stands out among its array's (`_oddity`), else 0; `spaced` for `", "` and
    `": "` separators (Python's default), else none."""
    separators = (", ", ": ") if spaced else (",", ":")

    def dump(v: Any) -> str:
        return jsonlib.dumps(v, ensure_ascii=False, separators=separators)

    def items_of(array: list[Any]) -> list[tuple[str, int]]:
        if len(array) <= ARRAY_WHOLE:
            odd = _oddity(array)
            return [(dump(_sampled(v, 1)), score) for v, score in zip(array, odd, strict=True)]
        return [(dump(item), odd) for item, odd in _sampled_items(array)]

    if isinstance(value, list) and value:
        return _rows("[", items_of(value), "]")
    if not isinstance(value, dict) or not value:
        return [(dump(_sampled(value)), 0)]
    rows: list[tuple[str, int]] = []
    for key, v in _sampled(value).items():
        lead = f"{dump(key)}{separators[1]}"
        array = value.get(key)
        if isinstance(array, list) and len(array) > 1 and len(dump(v)) > SPLIT_ROW:
            rows.extend(_rows(lead + "[", items_of(array), "],"))
        else:
            rows.append((lead + dump(v) + ",", 0))
    rows[0] = ("{" + rows[0][0], rows[0][1])
    rows[-1] = (rows[-1][0].removesuffix(",") + "}", rows[-1][1])
    return rows


SPLIT_ROW = 400
"""A top-level key's array rendered longer than this gets one line an item."""


def _rows(opening: str, items: list[tuple[str, int]], closing: str) -> list[tuple[str, int]]:
    """`items` one a line between `opening` and `closing`, commas between them."""
    rows = [(row + ",", p) for row, p in items[:-1]] + [(items[-1][0] + closing, items[-1][1])]
    return [(opening + rows[0][0], rows[0][1]), *rows[1:]]


def _summary_plan(value: Any, n: int, compact: bool = False, spaced: bool = True) -> Plan:
    if compact:
        rendered = _compact(value, spaced)
    else:
        lines = jsonlib.dumps(_sampled(value), indent=2, ensure_ascii=False).split("\n")
        rendered = [(line, 0) for line in lines]
    plan: Plan = [Summary((line,), 0, 0, priority) for line, priority in rendered[:-1]]
    plan.append(Summary((rendered[-1][0],), 0, n, rendered[-1][1]))
    return plan


def reduce(text: str, hint: Hint, budget: Budget) -> Plan | None:
    lines = split_lines(text)
    if lines and _HTTP_STATUS.match(lines[0]):
        start = _http_body(lines)
        if start is None:
            return None
        body = reduce("\n".join(lines[start:]), hint, budget)
        if body is None:
            return None
        head: Plan = [Keep(0, start, TOP)]
        return head + [p._replace(start=p.start + start, end=p.end + start) for p in body]
    if len(lines) > 2 and _json_lines(lines):
        return _records_plan(text, budget)
    pretty = lines[0].strip() in ("{", "[")
    if len(lines) > 2 and (pretty or max(map(len, lines)) <= LONG_LINE):
        # Pretty-printed: the plan follows the nesting of the lines, which `_containers` checks
        # (one value, every bracket closed); parsing the whole value as well would cost more
        # than the rest of the reduction and add nothing to the plan.
        return _line_plan(lines, text)
    end = _value_end(lines)
    if end is None:
        return None
    value_text = "\n".join(lines[:end]) if end < len(lines) else text
    try:
        value = jsonlib.loads(value_text)
    except (ValueError, RecursionError):
        return None
    if not isinstance(value, dict | list):
        return None
    compact = "\n" not in value_text.strip()
    plan = _summary_plan(value, end, compact, spaced='": ' in text[:2000])
    rendered_chars = sum(len(p.lines[0]) + 1 for p in plan if isinstance(p, Summary))
    if rendered_chars >= len(value_text):
        return None
    return plan + ([Keep(end, len(lines), TOP)] if end < len(lines) else [])


# ---------------------------------------------------------------------------------------------
# JSON lines

RECORDS_SAMPLE = 200
"""Lines looked at to tell JSON lines from a pretty-printed value."""
CATEGORY_VALUES = 20
"""A field with at most this many distinct short values is categorical (`"Action"`, `"level"`)."""
SHORT_VALUE = 40
_SIGNAL = re.compile(
    r"(?i)\b(?:errors?|fail|failed|failure|fatal|panic(?:ked)?|exception|warn(?:ing)?|denied"
    r"|refused|timeout|timed out|critical|abort(?:ed)?)\b"
)
_SIGNAL_WORDS = (
    "error",
    "fail",
    "fatal",
    "panic",
    "exception",
    "warn",
    "denied",
    "refused",
    "timeout",
    "timed out",
    "critical",
    "abort",
)
"""Plain substrings found by `str.find` in the lowered text before the word pattern checks
the line."""


def _json_lines(lines: list[str]) -> bool:
    """Whether the first lines are each one compact JSON object, and not log records."""
    head = [line.strip() for line in lines[:RECORDS_SAMPLE] if line.strip()]
    if len(head) < 3 or not all(line[0] == "{" and line[-1] == "}" for line in head):
        return False
    if sum(1 for line in head if is_log_line(line)) * 2 >= len(head):
        return False
    try:
        return all(isinstance(orjson.loads(line), dict) for line in head[:20])
    except orjson.JSONDecodeError:
        return False


def _records_plan(text: str, budget: Budget) -> Plan | None:
    lines = Lines(text)
    n = len(lines)
    priority = Marks()
    seen: dict[str, int] = {}
    last_of: dict[str, int] = {}
    for i in _signal_lines(lines):
        key = template(lines.lines[i])
        priority.mark(i, HIGH if key not in seen else MID)
        seen.setdefault(key, i)
        last_of[key] = i
        for j in range(max(0, i - 2), i):
            priority.mark(j, MID - 10)
    for i in last_of.values():
        priority.mark(i, HIGH)
    for i in _rare_records(lines):
        priority.mark(i, MID)
    if not priority:
        return None  # nothing stands out: no reason to prefer these records over salience
    priority.mark(0, MID)
    priority.mark(n - 1, LAST_RECORD)
    fitter = Fitter(lines, budget)
    fitter.add_marks(priority)
    return finish(fitter.plan(), n)


def _signal_lines(lines: Lines) -> list[int]:
    """The lines holding a signal word: substring search in the lowered text, then the word
    pattern on each line found."""
    low, starts, text_lines = lines.text.lower(), lines.starts, lines.lines
    found: set[int] = set()
    for word in _SIGNAL_WORDS:
        position = low.find(word)
        while position >= 0:
            i = bisect_right(starts, position) - 1
            found.add(i)
            position = low.find(word, starts[i + 1])
    return [i for i in sorted(found) if _SIGNAL.search(text_lines[i])]


def _rare_records(lines: Lines) -> list[int]:
    """The records whose value of a categorical field (few distinct short values among the
    first `RECORDS_SAMPLE` records, like `"Action"`) occurs in at most one record in 50 (and
    at most 3 times) in the whole text. Values are counted by one scan of the text a field."""
    keys: dict[str, set[object]] = {}
    for line in lines.lines[:RECORDS_SAMPLE]:
        try:
            record = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(record, dict):
            continue
        for key, value in record.items():
            if isinstance(value, str | bool) and len(str(value)) <= SHORT_VALUE:
                keys.setdefault(key, set()).add(value)
    text, starts = lines.text, lines.starts
    rare_at = max(1, min(3, len(lines) // 50))
    found: list[int] = []
    for key, values in keys.items():
        if not 1 < len(values) <= CATEGORY_VALUES:
            continue
        field = re.compile('"' + re.escape(key) + r'"\s*:\s*("(?:[^"\\\n]|\\.)*"|true|false)')
        counts = Counter(field.findall(text))
        if len(counts) > CATEGORY_VALUES or counts.total() < 2 * len(counts):
            continue
        rare = {value for value, count in counts.items() if count <= rare_at}
        if rare:
            found.extend(
                bisect_right(starts, m.start()) - 1 for m in field.finditer(text) if m[1] in rare
            )
    return found
