"""`shrink`: pick the first reducer that recognises the text, fit its plan to the budget.

The four rules hold by construction:

1. The result fits the budget (code points and lines), the spill footer included.
2. Input lines are kept whole or dropped; only an explicit `max_line_chars` cuts one, at a safe
   place, and says how much it cut.
3. Every gap between kept pieces becomes one marker counting exactly the characters and lines
   of the original that are missing there.
4. A text that fits is returned unchanged (strategy "none"), so shrinking a result again is a
   no-op.

A reducer module may also define, besides `name`, `detect` and `reduce`:

- `overflow`: which end survives when its plan is still over budget: "head" (default), "tail",
  "both", or "hint" (the direction `size` would take for the hint);
- `gap_label`: a word appended to its markers, e.g. "unchanged" for diff context;
- `describe`: a few words for the note, e.g. "failures and summary kept, passing tests dropped".
"""

from __future__ import annotations

import heapq
import importlib
import importlib.util
import re
import sys
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate, compress, groupby, repeat
from operator import gt
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, Protocol, cast

from klipui.shrink import salience, segments
from klipui.shrink.plan import Budget, Hint, Keep, Plan, Reducer, Summary
from klipui.shrink.text import (
    Lines,
    cap_line,
    count_lines,
    fits,
    line_starts,
    long_lines,
    marker,
    marker_length,
    plural,
    split,
)

BUILTIN_ORDER = (
    "diff",
    "json",
    "sql",
    "csv",
    "docker",
    "tests",
    "build",
    "lint",
    "stacktrace",
    "gitlog",
    "install",
    "log",
    "tree",
    "grep",
    "outline",
    "repeat",
    "semantic",
    "size",
)
"""Built-in reducers, most certain detector first; `size` always last."""

CHALLENGE_MARGIN = 1.1
"""A reducer's plan gives way to salience's ranking when salience keeps this many times the
lines the line model expects an expert to insist on (`salience.likelihoods`): a recogniser
fitted to the shapes it has seen is checked, on each output, against the ranking of any line.
The plan's top pieces and its summaries (exact counts of repeats) stay, when they take at most
half the room."""
CHALLENGED = frozenset({"build", "tests", "stacktrace", "install", "csv", "repeat"})
"""The reducers whose plans are challenged. The others keep an order that is their point even
where a line-by-line ranking would keep more: commits and their messages (`gitlog`, `diff` of
`git show`), each root of a listing (`tree`), each file of a search (`grep`), the definitions of
a file (`outline`), a value's keys (`json`), tables and plans (`sql`), records (`log`),
findings by rule (`lint`)."""
SET_ASIDE = "salience keeps more of the lines likely to matter"

MIN_CHARS = 80
"""The smallest non-zero `max_chars`: room for a marker standing for everything."""
FOOTER_NOTE_FROM = 1_000
FOOTER_NOTE_ROOM = 120
"""From this budget on, the spill footer has room reserved for the note."""


class SpillSaver(Protocol):
    """The part of a spill store the pipeline uses."""

    def save(self, text: str, tool: str | None) -> str: ...


class Span(NamedTuple):
    """Where one output line comes from.

    kind: "line" (input line `start`, verbatim), "capped" (input line `start`, cut by the line
    cap), "summary" (reducer text standing for input lines `[start, end)`), "omitted" (a marker
    for input lines `[start, end)`), "footer" (the spill footer; start = end = 0).
    """

    kind: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class Stats:
    """Sizes of a shrink: input and output in characters and lines, input lines kept and not."""

    input_chars: int
    input_lines: int
    output_chars: int
    output_lines: int
    kept_lines: int
    """Input lines shown (verbatim or capped)."""
    dropped_lines: int
    """Input lines not shown (omitted or summarised)."""


@dataclass(frozen=True, slots=True)
class Shrunk:
    """The result of `shrink`: the text to show, how it was made, and where the original is."""

    content: str
    reduced: bool
    strategy: str
    note: str
    stats: Stats
    locator: str | None
    kept: tuple[Span, ...]
    """One entry per output line (`split_lines(content)`)."""
    spill_error: str = ""
    """Why the original could not be saved (empty when it was, or when no store was given)."""


# ---------------------------------------------------------------------------------------------
# Reducer discovery


_BUILTIN_PACKAGE = "klipui.shrink.reducers."


def builtin_reducers() -> list[Reducer]:
    """The built-in reducer modules present, in pipeline order."""
    found: list[Reducer] = []
    for name in BUILTIN_ORDER:
        qualified = f"{_BUILTIN_PACKAGE}{name}"
        try:
            # Each is checked against `Reducer` statically (`_BUILTIN_TYPED` below).
            found.append(cast(Reducer, importlib.import_module(qualified)))
        except ModuleNotFoundError as error:
            if error.name != qualified:
                raise
    return found


if TYPE_CHECKING:  # mypy checks every built-in reducer module against `Reducer`
    from klipui.shrink.reducers import build as _build
    from klipui.shrink.reducers import csv as _csv
    from klipui.shrink.reducers import diff as _diff
    from klipui.shrink.reducers import docker as _docker
    from klipui.shrink.reducers import gitlog as _gitlog
    from klipui.shrink.reducers import grep as _grep
    from klipui.shrink.reducers import install as _install
    from klipui.shrink.reducers import json as _json
    from klipui.shrink.reducers import lint as _lint
    from klipui.shrink.reducers import log as _log
    from klipui.shrink.reducers import outline as _outline
    from klipui.shrink.reducers import repeat as _repeat
    from klipui.shrink.reducers import semantic as _semantic
    from klipui.shrink.reducers import size as _size
    from klipui.shrink.reducers import sql as _sql
    from klipui.shrink.reducers import stacktrace as _stacktrace
    from klipui.shrink.reducers import tests as _tests
    from klipui.shrink.reducers import tree as _tree

    _BUILTIN_TYPED: tuple[Reducer, ...] = (
        _diff,
        _json,
        _sql,
        _csv,
        _docker,
        _tests,
        _build,
        _lint,
        _stacktrace,
        _gitlog,
        _install,
        _log,
        _tree,
        _grep,
        _outline,
        _repeat,
        _semantic,
        _size,
    )


def _check_reducer(module: object, expected: str | None, origin: str) -> Reducer:
    """`module` as a reducer (ValueError naming `origin` when it lacks what one needs)."""
    name = getattr(module, "name", None)
    if not isinstance(name, str) or not name:
        raise ValueError(f"{origin}: a reducer needs a `name` string")
    for attr in ("detect", "reduce"):
        if not callable(getattr(module, attr, None)):
            raise ValueError(f"{origin}: reducer {name!r} has no callable `{attr}`")
    if expected is not None and name != expected:
        raise ValueError(f"{origin}: reducer name {name!r} differs from the file name {expected!r}")
    return cast(Reducer, module)


def load_reducers(folder: str | Path) -> list[Reducer]:
    """Import every `*.py` in `folder` (sorted by name) as a reducer; fail loudly on a bad one."""
    directory = Path(folder)
    if not directory.is_dir():
        raise ValueError(f"{directory}: not a folder")
    modules: list[Reducer] = []
    for path in sorted(directory.glob("*.py")):
        if path.name.startswith("_"):
            continue
        unique = f"klipui_user_reducer_{abs(hash(str(path.resolve())))}_{path.stem}"
        spec = importlib.util.spec_from_file_location(unique, path)
        if spec is None or spec.loader is None:
            raise ValueError(f"{path}: cannot be imported")
        module = importlib.util.module_from_spec(spec)
        sys.modules[unique] = module
        try:
            spec.loader.exec_module(module)
        except Exception as error:
            sys.modules.pop(unique, None)
            raise ValueError(f"{path}: {type(error).__name__}: {error}") from error
        modules.append(_check_reducer(module, path.stem, str(path)))
    return modules


def reducer_chain(
    only: Sequence[str] | None = None,
    disable: Sequence[str] | None = None,
    extra: Iterable[object] = (),
) -> list[Reducer]:
    """The reducers `shrink` tries, in order; `size` is always last and cannot be disabled."""
    extras = [_check_reducer(module, None, repr(module)) for module in extra]
    builtins = builtin_reducers()
    size = next(m for m in builtins if m.name == "size")
    others = [m for m in builtins if m.name != "size"]
    if only is not None:
        by_name: dict[str, Reducer] = {m.name: m for m in others}
        by_name.update({m.name: m for m in extras})
        chain = [by_name[n] for n in dict.fromkeys(only) if n in by_name]
    else:
        skip = set(disable or ()) - {"size"}
        chain = [m for m in [*extras, *others] if m.name not in skip]
    return [*chain, size]


# ---------------------------------------------------------------------------------------------
# Fitting a plan to a budget


class _Piece(NamedTuple):
    """Input lines `[start, end)` kept (or stood for by `summary`) and what they cost shown (a
    named tuple: a plan may hold hundreds of thousands)."""

    start: int
    end: int
    priority: float
    summary: tuple[str, ...] | None
    chars: int = 0
    rows: int = 0


class _Atom(NamedTuple):
    start: int
    end: int
    chars: int
    rows: int
    summary: tuple[str, ...] | None


class _Layout:
    """Costs of rendered pieces and markers (each row costs its length + 1 for its newline)."""

    def __init__(self, lines: Lines, cap: int) -> None:
        self.lines = lines
        self.n = len(lines)
        self.cap = cap
        self.label = ""
        self._prefix: list[int] | None = None
        self._plain: bool | None = None
        self._long: list[int] = []
        self._long_delta: list[int] = [0]
        if cap > 0:
            longs = list(compress(range(self.n), map(cap.__lt__, map(len, lines.lines))))
            self._long = longs
            deltas = (len(cap_line(lines.lines[i], cap)) - len(lines.lines[i]) for i in longs)
            self._long_delta = [0, *accumulate(deltas)]

    def line_cost(self, index: int) -> int:
        line = self.lines.lines[index]
        if self.cap > 0 and len(line) > self.cap:
            return len(cap_line(line, self.cap)) + 1
        return len(line) + 1

    def plain_starts(self) -> tuple[list[int], int] | None:
        """`(starts, extra)` when the cost of lines `[start, end)` is `starts[end] -
        starts[start]` (plus `extra` when `end` is the last line): no carriage return, no
        line cap at work; else None."""
        if self._plain is None:
            self._plain = "\r" not in self.lines.text
        if not self._plain or self._long:
            return None
        return self.lines.starts, 0 if self.lines.text.endswith("\n") else 1

    def keep_cost(self, start: int, end: int) -> int:
        if self._plain is None:
            self._plain = "\r" not in self.lines.text
        if self._plain:
            # without carriage returns a line occupies its length + 1 in the text, except a
            # last line with no newline
            cost = self.lines.span_chars(start, end)
            if end == self.n and not self.lines.text.endswith("\n"):
                cost += 1
        else:
            if self._prefix is None:
                self._prefix = line_starts(self.lines.lines)
            cost = self._prefix[end] - self._prefix[start]
        if self._long:
            lo, hi = bisect_left(self._long, start), bisect_left(self._long, end)
            cost += self._long_delta[hi] - self._long_delta[lo]
        return cost

    def gap(self, start: int, end: int) -> tuple[int, int]:
        """(chars, rows) of the marker for input lines `[start, end)`; nothing when empty."""
        if end <= start:
            return 0, 0
        return marker_length(self.lines.span_chars(start, end), end - start, self.label) + 1, 1


def _within(chars: int, rows: int, max_chars: int, max_rows: int) -> bool:
    return (not max_chars or chars <= max_chars) and (not max_rows or rows <= max_rows)


def _pieces(plan: Plan, lines: Lines, layout: _Layout) -> list[_Piece]:
    """The plan checked (in order, no overlap, in range) and costed. The plan is emptied as it
    is read, each item freed once costed: a plan of hundreds of thousands of items is never
    held twice over for the cyclic collector to walk (callers pass a list of their own)."""
    n = len(lines)
    pieces: list[_Piece] = []
    append = pieces.append
    plain = layout.plain_starts()
    starts, extra = plain if plain is not None else ([], 0)
    keep_cost = layout.keep_cost
    last = 0
    plan.reverse()
    take = plan.pop
    while plan:
        item = take()
        kind = type(item)
        if kind is not Keep and kind is not Summary:
            raise ValueError(f"plan item {item!r} is neither Keep nor Summary")
        start, end = item.start, item.end
        if not (last <= start <= end <= n):
            raise ValueError(f"plan item {item!r} is out of order or out of range (n={n})")
        if kind is Keep:
            if start < end:
                if plain is not None:
                    cost = starts[end] - starts[start] + (extra if end == n else 0)
                else:
                    cost = keep_cost(start, end)
                append(_Piece(start, end, item.priority, None, cost, end - start))
        else:
            said = item.lines if isinstance(item, Summary) else ()
            rows: tuple[str, ...]
            one = said[0] if len(said) == 1 else None
            if type(one) is str and "\n" not in one and "\r" not in one:
                rows = (one,)  # one plain row (most summaries): nothing to split or strip
                if layout.cap > 0:
                    rows = (cap_line(one, layout.cap),)
                cost = len(rows[0]) + 1
            else:
                rows = tuple(part.rstrip("\r") for line in said for part in str(line).split("\n"))
                if layout.cap > 0:
                    rows = tuple(cap_line(row, layout.cap) for row in rows)
                cost = sum(len(row) + 1 for row in rows)
            pieces.append(_Piece(start, end, item.priority, rows, cost, len(rows)))
        last = end
    return pieces


def _fits(pieces: Iterable[_Piece], layout: _Layout, max_chars: int, max_rows: int) -> bool:
    """`_within(*_total(pieces, layout), max_chars, max_rows)`, stopping at the first piece
    that goes over (every cost is positive, so the rest cannot bring it back)."""
    if not max_chars and not max_rows:
        return True
    limit_chars = max_chars or sys.maxsize
    limit_rows = max_rows or sys.maxsize
    gap = layout.gap
    chars = rows = 0
    last = 0
    for piece in pieces:
        gap_chars, gap_rows = gap(last, piece.start)
        chars += gap_chars + piece.chars
        rows += gap_rows + piece.rows
        if chars > limit_chars or rows > limit_rows:
            return False
        if piece.end > last:
            last = piece.end
    gap_chars, gap_rows = gap(last, layout.n)
    return chars + gap_chars <= limit_chars and rows + gap_rows <= limit_rows


def _total(pieces: Sequence[_Piece], layout: _Layout) -> tuple[int, int]:
    chars = rows = 0
    last = 0
    for piece in pieces:
        gap_chars, gap_rows = layout.gap(last, piece.start)
        chars += gap_chars + piece.chars
        rows += gap_rows + piece.rows
        last = max(last, piece.end)
    gap_chars, gap_rows = layout.gap(last, layout.n)
    return chars + gap_chars, rows + gap_rows


def _drop_order(direction: str, index: int, count: int) -> float:
    """Among equal priorities, which piece goes first (smaller goes first)."""
    if direction == "tail":
        return index
    if direction == "both":
        return -min(index, count - 1 - index)
    return -index


def _middle_out(indices: Sequence[int], count: int) -> Iterator[int]:
    """`indices` (ascending) in "both" drop order: the middle of the input first, the ends last
    (by `min(i, count - 1 - i)` descending; the earlier first among equals), without sorting."""
    split_at = bisect_left(indices, count // 2 + (count % 2))
    first, second = indices[:split_at], indices[split_at:]
    return heapq.merge(reversed(first), second, key=lambda i: -min(i, count - 1 - i))


def _drop_sequence(
    pieces: Sequence[_Piece], top: float, direction: str, relevance: Sequence[float] | None
) -> list[int]:
    """Indices of the pieces below `top` in the order they go: lowest priority first, then
    least relevant, then by `direction` (head: the last first; tail: the first first; both:
    the middle first)."""
    count = len(pieces)
    if relevance is not None:
        droppable = [i for i, p in enumerate(pieces) if p.priority < top]
        droppable.sort(
            key=lambda i: (pieces[i].priority, relevance[i], _drop_order(direction, i, count))
        )
        return droppable
    priorities = [piece.priority for piece in pieces]
    # below the top, by priority then position (a stable sort in C)
    below = sorted(
        compress(range(count), map(gt, repeat(top), priorities)), key=priorities.__getitem__
    )
    order: list[int] = []
    for _, bucket in groupby(below, key=priorities.__getitem__):
        indices = list(bucket)
        if direction == "head":
            order.extend(reversed(indices))
        elif direction == "tail":
            order.extend(indices)
        else:
            order.extend(_middle_out(indices, count))
    return order


def _drop_by_priority(
    pieces: list[_Piece],
    layout: _Layout,
    max_chars: int,
    max_rows: int,
    direction: str,
    relevance: Sequence[float] | None = None,
) -> list[_Piece]:
    """Drop the least important pieces (never those of the top priority) until the plan fits.

    Among equal priorities the least relevant to the query go first, then by `direction`.
    """
    if not pieces:
        return pieces
    if _fits(pieces, layout, max_chars, max_rows):
        return pieces
    top = max(p.priority for p in pieces)
    droppable = _drop_sequence(pieces, top, direction, relevance)
    if not droppable:
        return pieces
    # rank[i]: when piece i goes (protected pieces never go); no sorting per trial below
    rank = [len(droppable)] * len(pieces)
    for position, i in enumerate(droppable):
        rank[i] = position
    protected = list(compress(range(len(rank)), map(len(droppable).__eq__, rank)))
    few = len(pieces) // 16

    def survivors(kept: int) -> Iterator[_Piece]:
        """The protected pieces and the `kept` last pieces of the drop order, in input order:
        few of them are sorted (a budget far smaller than the plan), else picked by rank."""
        threshold = len(droppable) - kept
        if kept + len(protected) <= few:
            chosen = sorted([*protected, *droppable[threshold:]])
            return map(pieces.__getitem__, chosen)
        return compress(pieces, map(threshold.__le__, rank))

    def fits_with(kept: int) -> bool:
        return _fits(survivors(kept), layout, max_chars, max_rows)

    # Dropping in order until the plan fits keeps the largest tail of the drop order that fits:
    # find it by galloping then bisecting, measuring only what is kept.
    if not fits_with(0):
        return list(survivors(0))
    low, step = 0, 1
    while low + step < len(droppable) and fits_with(low + step):
        low += step
        step *= 2
    high = min(low + step, len(droppable))  # does not fit (the whole plan does not)
    while high - low > 1:
        middle = (low + high) // 2
        if fits_with(middle):
            low = middle
        else:
            high = middle
    return list(survivors(low))


def _atoms_forward(pieces: Sequence[_Piece], layout: _Layout) -> Iterator[_Atom]:
    for piece in pieces:
        if piece.summary is not None:
            yield _Atom(piece.start, piece.end, piece.chars, piece.rows, piece.summary)
        else:
            for i in range(piece.start, piece.end):
                yield _Atom(i, i + 1, layout.line_cost(i), 1, None)


def _atoms_backward(pieces: Sequence[_Piece], layout: _Layout) -> Iterator[_Atom]:
    for piece in reversed(pieces):
        if piece.summary is not None:
            yield _Atom(piece.start, piece.end, piece.chars, piece.rows, piece.summary)
        else:
            for i in range(piece.end - 1, piece.start - 1, -1):
                yield _Atom(i, i + 1, layout.line_cost(i), 1, None)


def _take_head(
    atoms: Iterable[_Atom], layout: _Layout, max_chars: int, max_rows: int, limit_end: int
) -> tuple[list[_Atom], int, int]:
    """Leading atoms while they and a marker for the rest (to `limit_end`) fit."""
    chosen: list[_Atom] = []
    chars = rows = 0
    last = 0
    for atom in atoms:
        gap_chars, gap_rows = layout.gap(last, atom.start)
        new_chars, new_rows = chars + gap_chars + atom.chars, rows + gap_rows + atom.rows
        rest_chars, rest_rows = layout.gap(atom.end, limit_end)
        if not _within(new_chars + rest_chars, new_rows + rest_rows, max_chars, max_rows):
            break
        chosen.append(atom)
        chars, rows, last = new_chars, new_rows, atom.end
    return chosen, chars, rows


def _take_tail(
    atoms: Iterable[_Atom],
    layout: _Layout,
    max_chars: int,
    max_rows: int,
    head_end: int,
    used: tuple[int, int],
) -> list[_Atom]:
    """Trailing atoms (not before `head_end`) while everything with the middle marker fits."""
    chosen: list[_Atom] = []
    chars = rows = 0
    first = layout.n
    for atom in atoms:
        if atom.start < head_end:
            break
        gap_chars, gap_rows = layout.gap(atom.end, first)
        new_chars, new_rows = chars + gap_chars + atom.chars, rows + gap_rows + atom.rows
        mid_chars, mid_rows = layout.gap(head_end, atom.start)
        total_chars = used[0] + mid_chars + new_chars
        total_rows = used[1] + mid_rows + new_rows
        if not _within(total_chars, total_rows, max_chars, max_rows):
            break
        chosen.append(atom)
        chars, rows, first = new_chars, new_rows, atom.start
    chosen.reverse()
    return chosen


def _cut_by_size(
    pieces: list[_Piece], layout: _Layout, max_chars: int, max_rows: int, direction: str
) -> list[_Piece]:
    """Keep whole lines (and whole summaries) from one or both ends of the plan."""
    n = layout.n
    if direction == "head":
        chosen, _, _ = _take_head(_atoms_forward(pieces, layout), layout, max_chars, max_rows, n)
    elif direction == "tail":
        chosen = _take_tail(_atoms_backward(pieces, layout), layout, max_chars, max_rows, 0, (0, 0))
    else:
        head: list[_Atom] = []
        chars = rows = 0
        if not max_rows or max_rows >= 2:
            head, chars, rows = _take_head(
                _atoms_forward(pieces, layout), layout, max_chars // 2, max_rows // 2, n
            )
        head_end = head[-1].end if head else 0
        tail = _take_tail(
            _atoms_backward(pieces, layout), layout, max_chars, max_rows, head_end, (chars, rows)
        )
        chosen = head + tail
    result: list[_Piece] = []
    for atom in chosen:
        if (
            atom.summary is None
            and result
            and result[-1].summary is None
            and result[-1].end == atom.start
        ):
            last = result[-1]
            result[-1] = last._replace(
                end=atom.end, chars=last.chars + atom.chars, rows=last.rows + 1
            )
        else:
            result.append(_Piece(atom.start, atom.end, 0, atom.summary, atom.chars, atom.rows))
    return result


def _fill_cheap_gaps(pieces: list[_Piece], layout: _Layout, max_rows: int) -> list[_Piece]:
    """Show the omitted lines themselves wherever they cost no more characters than their marker."""
    _, rows = _total(pieces, layout)
    result: list[_Piece] = []
    last = 0
    bounds = [*pieces, _Piece(layout.n, layout.n, 0, None)]
    for piece in bounds:
        start, end = last, piece.start
        if end > start and end - start <= 64:
            marker_chars, _ = layout.gap(start, end)
            extra_rows = end - start - 1
            if layout.keep_cost(start, end) <= marker_chars and (
                not max_rows or rows + extra_rows <= max_rows
            ):
                rows += extra_rows
                cost = layout.keep_cost(start, end)
                result.append(_Piece(start, end, 0, None, cost, end - start))
        if piece.end > piece.start or piece.summary is not None:
            result.append(piece)
        last = max(last, piece.end)
    return [p for p in result if not (p.summary is None and p.start == p.end == layout.n)]


FILL_FROM = 40
FILL_SHARE = 20
"""The fill is tried when the room left is at least `FILL_FROM` characters and a
`1 / FILL_SHARE` of the budget: less is not worth a salience scan of a big input."""
MAX_MISSES = 2_000
"""The fill stops after this many lines in a row that did not fit."""


def _room(pieces: list[_Piece], layout: _Layout, max_chars: int, max_rows: int) -> bool:
    """True when the pieces leave room worth filling."""
    chars, rows = _total(pieces, layout)
    if max_rows and rows >= max_rows:
        return False
    return not max_chars or max_chars - chars >= max(FILL_FROM, max_chars // FILL_SHARE)


def _gaps(pieces: list[_Piece], n: int) -> tuple[list[int], dict[int, int]]:
    """The omitted stretches between sorted `pieces` of `n` lines: their first lines in order,
    and where each ends."""
    gap_starts: list[int] = []
    gap_end: dict[int, int] = {}
    last = 0
    for piece in [*pieces, _Piece(n, n, 0, None)]:
        if piece.start > last:
            gap_starts.append(last)
            gap_end[last] = piece.start
        last = max(last, piece.end)
    return gap_starts, gap_end


def _split_gap(gap_starts: list[int], gap_end: dict[int, int], k: int, i: int) -> None:
    """Line `i`, in the `k`-th gap, is kept: the gap loses it, and splits in two, shrinks or
    ends."""
    a = gap_starts[k]
    b = gap_end.pop(a)
    if i > a:
        gap_end[a] = i
        if i + 1 < b:
            gap_starts.insert(k + 1, i + 1)
            gap_end[i + 1] = b
    elif i + 1 < b:
        gap_starts[k] = i + 1
        gap_end[i + 1] = b
    else:
        del gap_starts[k]


def _fill(
    pieces: list[_Piece], layout: _Layout, order: Iterable[int], max_chars: int, max_rows: int
) -> tuple[list[_Piece], int]:
    """Add the omitted lines of `order`, in that order, while the result still fits; each added
    line splits its gap's marker in two (or ends it), which the cost counts exactly.

    Returns the pieces in input order and how many lines were added.
    """
    gap_starts, gap_end = _gaps(pieces, layout.n)
    chars, rows = _total(pieces, layout)
    added: list[_Piece] = []
    wholes: dict[int, tuple[int, int]] = {}  # the marker of each gap (by its first line)
    misses = 0
    kept = order.kept if isinstance(order, salience.Ranking) else None
    for i in order:
        if not gap_starts or misses >= MAX_MISSES:
            break
        k = bisect_right(gap_starts, i) - 1
        if k < 0:
            continue
        a = gap_starts[k]
        b = gap_end[a]
        if i >= b:
            continue
        cost = layout.line_cost(i)
        whole = wholes.get(a)
        if whole is None:
            whole = wholes[a] = layout.gap(a, b)
        whole_chars, whole_rows = whole
        # the markers left of and right of `i` cost nothing or more: a line that does not fit
        # even without them is turned away before they are measured
        if not _within(chars + cost - whole_chars, rows + 1 - whole_rows, max_chars, max_rows):
            misses += 1
            continue
        left_chars, left_rows = layout.gap(a, i)
        right_chars, right_rows = layout.gap(i + 1, b)
        new_chars = chars + cost + left_chars + right_chars - whole_chars
        new_rows = rows + 1 + left_rows + right_rows - whole_rows
        if not _within(new_chars, new_rows, max_chars, max_rows):
            misses += 1
            continue
        misses = 0
        chars, rows = new_chars, new_rows
        added.append(_Piece(i, i + 1, 0, None, cost, 1))
        if kept is not None:
            kept(i)
        del wholes[a]
        _split_gap(gap_starts, gap_end, k, i)
    if not added:
        return pieces, 0
    merged = sorted([*pieces, *added], key=lambda piece: (piece.start, piece.end))
    return merged, len(added)


def _by_regions(
    lines: Lines,
    hint: Hint,
    budget: Budget,
    chain: Sequence[Reducer],
    layout: _Layout,
    max_chars: int,
    max_rows: int,
) -> tuple[list[_Piece], list[str]]:
    """The salience fallback, with the regions some reducer recognises read by that reducer
    (see `klipui.shrink.segments`): its summaries are placed first when they take at most half
    the room, then lines are added in salience order. Returns the pieces and the reducers used."""
    found = segments.regions(lines, hint, budget, chain)
    summaries: Plan = [item for region in found for item in region.plan if type(item) is Summary]
    pieces: list[_Piece] = []
    if summaries:
        pieces = _pieces(summaries, lines, layout)
        half_chars, half_rows = max_chars // 2, max_rows // 2
        # half of one row is none (0 would mean no limit)
        if (max_rows and not half_rows) or not _fits(pieces, layout, half_chars, half_rows):
            pieces = []
    order = salience.order(lines, hint, max_chars, found)
    pieces = _fill(pieces, layout, order, max_chars, max_rows)[0]
    used = list(dict.fromkeys(region.reducer for region in found if region.reducer))
    return pieces, used


def _render(pieces: Sequence[_Piece], layout: _Layout) -> tuple[list[str], list[Span]]:
    rows: list[str] = []
    spans: list[Span] = []
    lines = layout.lines
    last = 0

    def omit(start: int, end: int) -> None:
        if end > start:
            rows.append(marker(lines.span_chars(start, end), end - start, layout.label))
            spans.append(Span("omitted", start, end))

    for piece in pieces:
        omit(last, piece.start)
        if piece.summary is not None:
            rows.extend(piece.summary)
            spans.extend(Span("summary", piece.start, piece.end) for _ in piece.summary)
        else:
            for i in range(piece.start, piece.end):
                line = lines.lines[i]
                if layout.cap > 0 and len(line) > layout.cap:
                    rows.append(cap_line(line, layout.cap))
                    spans.append(Span("capped", i, i + 1))
                else:
                    rows.append(line)
                    spans.append(Span("line", i, i + 1))
        last = max(last, piece.end)
    omit(last, layout.n)
    return rows, spans


# ---------------------------------------------------------------------------------------------
# shrink


def size_direction(hint: Hint) -> str:
    """ "head", "tail" or "both" for a hint (see `klipui.shrink.reducers.size`)."""
    from klipui.shrink.reducers import size

    return size.direction(hint)


def _blends(module: Reducer, pieces: list[_Piece], hint: Hint) -> bool:
    """Whether the plan joins salience's ranking with its own priorities, even when it fits (the
    reducer's `blend`; never with a query, which ranks by relevance, nor with summaries, which
    salience cannot place)."""
    return (
        getattr(module, "blend", False) is True
        and not hint.query
        and all(piece.summary is None for piece in pieces)
    )


def _overflow(module: Reducer, hint: Hint) -> str:
    direction = getattr(module, "overflow", "head")
    if direction == "hint":
        return size_direction(hint)
    return direction if direction in ("head", "tail", "both") else "head"


def _semantic_pieces(
    pieces: list[_Piece], lines: Lines, layout: _Layout, hint: Hint
) -> tuple[list[_Piece], bool] | None:
    """Pieces re-split into blocks ranked by relevance to `hint.query` (None: nothing matches)."""
    from klipui.shrink.reducers import semantic

    query = hint.query or ""
    blocks: list[_Piece] = []
    for piece in pieces:
        if piece.summary is not None:
            blocks.append(piece)
            continue
        for start, end in semantic.blocks(lines.lines, piece.start, piece.end):
            blocks.append(_Piece(start, end, 0.0, None, layout.keep_cost(start, end), end - start))
    spans = [(lines.starts[b.start], lines.starts[b.end]) for b in blocks if b.summary is None]
    scores = iter(semantic.bm25(lines.text, spans, query))
    blocks = [b if b.summary is not None else b._replace(priority=next(scores)) for b in blocks]
    if not any(b.priority > 0 for b in blocks if b.summary is None):
        return None
    top = max((b.priority for b in blocks if b.summary is None), default=0.0)
    terms = semantic.query_terms(query)
    written = [" ".join(b.summary).lower() if b.summary is not None else "" for b in blocks]
    blocks = [
        b
        if b.summary is None
        else b._replace(priority=top / 2 if any(term in said for term in terms) else 0.0)
        for b, said in zip(blocks, written, strict=True)
    ]
    return blocks, True


def _relevance(pieces: Sequence[_Piece], lines: Lines, hint: Hint) -> list[float]:
    """BM25 score of each piece against `hint.query` (summaries by the lines they stand for)."""
    from klipui.shrink.reducers import semantic

    spans = [(lines.starts[p.start], lines.starts[p.end]) for p in pieces]
    return semantic.bm25(lines.text, spans, hint.query or "")


TIES_CHARS = 2_000_000
"""Up to this size, a plan over budget drops its least salient pieces first among those it ranks
alike (a scan of the lines; bigger outputs go by the reducer's direction alone)."""


def _ties_by_salience(name: str, relevance: object, lines: Lines) -> bool:
    return relevance is None and name not in ("semantic", "size") and len(lines.text) <= TIES_CHARS


def _endings(lines: Lines, score: dict[int, int] | None, level: int) -> list[int]:
    """The lines no plan drops first: the last non-blank line, and the last lines of the second
    half that salience scores at `level` or more in `score` (`MAX_PROTECTED` of them): exit
    statuses (`salience.END`), or summaries too (`salience.SUMMARY`)."""
    found: set[int] = set()
    n = len(lines)
    last = n - 1
    while last > 0 and not lines.lines[last].strip():
        last -= 1
    found.add(last)
    if score is not None:
        ends = sorted(i for i, value in score.items() if value >= level and i >= n // 2)
        found.update(ends[-MAX_PROTECTED:])
    return sorted(found)


def _protect(
    pieces: list[_Piece],
    layout: _Layout,
    protected: Iterable[int],
    max_chars: int,
    raise_kept: bool = True,
) -> list[_Piece]:
    """The plan with the `protected` lines (each shorter than a tenth of the budget) added at the
    plan's top priority where no piece covers them, and (with `raise_kept`) raised to it where a
    piece keeps them lower: how a run began and ended is never the first thing a reducer's plan
    drops."""
    top = max(piece.priority for piece in pieces)
    starts = [piece.start for piece in pieces]
    for i in protected:
        cost = layout.line_cost(i)
        if max_chars and cost > max_chars // 10:
            continue
        k = bisect_right(starts, i) - 1
        if k < 0 or i >= max(pieces[k].end, pieces[k].start + 1):
            pieces.insert(k + 1, _Piece(i, i + 1, top, None, cost, 1))
            starts.insert(k + 1, i)
            continue
        piece = pieces[k]
        if piece.summary is not None or piece.priority >= top or not raise_kept:
            continue
        # the line leaves the piece that holds it, at the top priority
        parts = [
            (piece.start, i, piece.priority),
            (i, i + 1, top),
            (i + 1, piece.end, piece.priority),
        ]
        split_up = [
            _Piece(a, b, p, None, layout.keep_cost(a, b), b - a) for a, b, p in parts if a < b
        ]
        pieces[k : k + 1] = split_up
        starts[k : k + 1] = [part.start for part in split_up]
    return pieces


MAX_PROTECTED = 4


def _salience_of(pieces: Sequence[_Piece], score: dict[int, int]) -> list[float]:
    """The highest salience of a line of each piece (a summary by the lines it stands for):
    among pieces a reducer ranks alike, the least salient go first."""
    starts = [piece.start for piece in pieces]
    best = [0.0] * len(pieces)
    for i, value in score.items():
        k = bisect_right(starts, i) - 1
        if k >= 0 and i < max(pieces[k].end, pieces[k].start + 1) and value > best[k]:
            best[k] = value
    return best


def _adds_nothing(pieces: Sequence[_Piece], n: int) -> bool:
    """True for a plan that keeps every line and ranks none above another."""
    covered = 0
    for piece in pieces:
        if piece.summary is not None or piece.start != covered:
            return False
        covered = piece.end
    return covered == n and len({p.priority for p in pieces}) <= 1


_WORD = re.compile(r"(?:\x1b\[[0-9;]*m)|([^\W\d_]{3,})")


def _words(text: str) -> set[str]:
    """The words of three letters or more in `text`, lower-cased (colour codes skipped)."""
    return {word.lower() for word in _WORD.findall(text) if word}


def _names(said: set[str], line: str) -> bool:
    """True when a summary whose words are `said` names `line`: it has at least half its words."""
    words = _words(line)
    return len(words & said) * 2 >= len(words)


def _unhide(pieces: list[_Piece], layout: _Layout, score: dict[int, int]) -> list[_Piece]:
    """The plan with each summary that stands for a strong signal line (salience `STRONG` or
    more) it does not show replaced by those lines, kept at the summary's priority: a summary
    names routine lines; it must not hide the error among them."""
    strong = sorted(i for i, value in score.items() if value >= salience.STRONG)
    if not strong:
        return pieces
    result: list[_Piece] = []
    for piece in pieces:
        if piece.summary is None or piece.end - piece.start < 2:
            result.append(piece)
            continue
        inside = strong[bisect_left(strong, piece.start) : bisect_left(strong, piece.end)]
        said = _words("\n".join(piece.summary))
        hidden = [i for i in inside if not _names(said, layout.lines.lines[i])]
        if not hidden:
            result.append(piece)
            continue
        for i in hidden:
            result.append(_Piece(i, i + 1, piece.priority, None, layout.line_cost(i), 1))
    return result


class _Fit(NamedTuple):
    pieces: list[_Piece]
    suffix: str
    label: str


def _fit(
    plan: Plan,
    module: Reducer,
    lines: Lines,
    layout: _Layout,
    hint: Hint,
    max_chars: int,
    max_rows: int,
) -> _Fit | None:
    name = module.name
    label = str(getattr(module, "gap_label", "") or "")
    layout.label = label
    pieces = _pieces(plan, lines, layout)
    if not pieces:
        return None
    if name != "size" and _adds_nothing(pieces, len(lines)):
        return None
    if name == "size" and not _fits(pieces, layout, max_chars, max_rows):
        layout.label = ""
        return _Fit([], "salience", "")
    direction = _overflow(module, hint) if name != "size" else size_direction(hint)
    planned = len(pieces)
    relevance = _relevance(pieces, lines, hint) if hint.query and name != "semantic" else None
    if name != "size" and relevance is None:
        ties = _ties_by_salience(name, relevance, lines)
        scores = salience.Scores(lines, hint, max_chars).score if ties else None
        # the last line and exit statuses join every plan; summaries too, and inside the plan,
        # when it must drop pieces
        if scores is not None:
            pieces = _unhide(pieces, layout, scores)
        pieces = _protect(pieces, layout, _endings(lines, scores, salience.END), max_chars, False)
        if scores is not None and not _fits(pieces, layout, max_chars, max_rows):
            endings = _endings(lines, scores, salience.SUMMARY)
            pieces = _protect(pieces, layout, endings, max_chars)
            relevance = _salience_of(pieces, scores)
        planned = len(pieces)
    pieces = _drop_by_priority(pieces, layout, max_chars, max_rows, direction, relevance)
    if len(pieces) < planned:
        label = layout.label = ""  # the gaps now hold more than what the label names
    blended = _blends(module, pieces, hint)
    if _fits(pieces, layout, max_chars, max_rows) and not blended:
        return _Fit(pieces, "", label)
    suffix = ""
    if hint.query and name not in ("semantic", "size"):
        ranked = _semantic_pieces(pieces, lines, layout, hint)
        if ranked is not None:
            layout.label = ""
            pieces = _drop_by_priority(ranked[0], layout, max_chars, max_rows, direction)
            suffix = "+semantic"
            if _fits(pieces, layout, max_chars, max_rows):
                return _Fit(pieces, suffix, "")
    layout.label = ""
    if all(piece.summary is None for piece in pieces):
        kept = _ranked_by_salience(pieces, module.name, blended, layout, hint, max_chars, max_rows)
        return _Fit(kept, f"{suffix}+salience", "")
    pieces = _cut_by_size(pieces, layout, max_chars, max_rows, direction)
    return _Fit(pieces, f"{suffix}+size", "")


def _ranked_by_salience(
    pieces: list[_Piece],
    name: str,
    blended: bool,
    layout: _Layout,
    hint: Hint,
    max_chars: int,
    max_rows: int,
) -> list[_Piece]:
    """The lines salience ranks first, the plan's pieces (of reducer `name`) a region it follows:
    all alike when the plan overflowed, by their own priorities and without the blind ends first
    when it is `blended`."""
    levels = sorted({piece.priority for piece in pieces}) if blended else []
    rank = {priority: k for k, priority in enumerate(levels, 1)}
    keeps = tuple(Keep(piece.start, piece.end, rank.get(piece.priority, 1)) for piece in pieces)
    lines = layout.lines
    region = segments.Region(0, len(lines), name, keeps)
    regions = [region] if name not in segments.GENERIC else []
    order = salience.order(lines, hint, max_chars, regions, not blended)
    return _fill([], layout, order, max_chars, max_rows)[0]


def _identity(text: str) -> Shrunk:
    lines = split(text)
    n = len(lines)
    stats = Stats(len(text), n, len(text), n, n, 0)
    spans = tuple(Span("line", i, i + 1) for i in range(n))
    return Shrunk(text, False, "none", "", stats, None, spans)


def _check_arguments(hint: object, budget: object) -> None:
    """A hint or budget of the wrong type fails here, named, not deep inside a reducer."""
    for name, value, expected in (("hint", hint, Hint), ("budget", budget, Budget)):
        if not isinstance(value, expected):
            raise TypeError(
                f"shrink(): {name} must be a {expected.__name__}, not {type(value).__name__}"
                f" (shrink(text, hint, budget): pass budget=Budget(...) by name)"
            )


def _check_budget(budget: Budget) -> None:
    if budget.max_chars < 0 or budget.max_lines < 0 or budget.max_line_chars < 0:
        raise ValueError("budget limits must be 0 (no limit) or positive")
    if 0 < budget.max_chars < MIN_CHARS:
        raise ValueError(f"max_chars must be 0 or at least {MIN_CHARS}")


def shrink(
    text: str,
    hint: Hint | None = None,
    budget: Budget | None = None,
    spill: SpillSaver | None = None,
    only: Sequence[str] | None = None,
    disable: Sequence[str] | None = None,
    extra: Iterable[object] = (),
) -> Shrunk:
    """Shrink `text` to fit `budget`, keeping what its shape says matters (see module docs)."""
    return _shrink(text, hint, budget, spill, only, disable, extra)


class _Room(NamedTuple):
    """Where the original was saved and the budget left for the body once the footer is counted."""

    locator: str | None
    spill_problem: str
    use_footer: bool
    footer_min: str
    chars: int
    rows: int


def _room_for_body(text: str, hint: Hint, budget: Budget, spill: SpillSaver | None) -> _Room:
    """Save the original (when a store is given) and reserve the footer's room."""
    locator: str | None = None
    spill_problem = ""
    if spill is not None:
        try:
            locator = spill.save(text, hint.tool)
        except (OSError, ValueError) as error:
            spill_problem = str(error) or type(error).__name__
    max_chars, max_rows = budget.max_chars, budget.max_lines
    footer_min = f"[full output saved as {locator}]" if locator else ""
    footer_cost = len(footer_min) + 1
    if max_chars >= FOOTER_NOTE_FROM:
        footer_cost += FOOTER_NOTE_ROOM
    use_footer = bool(locator) and (
        (not max_chars or max_chars >= footer_cost + MIN_CHARS) and (not max_rows or max_rows >= 2)
    )
    body_chars = max_chars - footer_cost if use_footer and max_chars else max_chars
    body_rows = max_rows - 1 if use_footer and max_rows else max_rows
    return _Room(locator, spill_problem, use_footer, footer_min, body_chars, body_rows)


def _first_fit(
    chain: Sequence[Reducer], text: str, hint: Hint, budget: Budget, layout: _Layout, room: _Room
) -> tuple[_Fit, Reducer, list[str]]:
    """The fitted plan of the first reducer of `chain` that recognises `text`, that reducer, and
    the failures of those before it (`size` always answers)."""
    problems: list[str] = []
    for module in chain:
        name = module.name
        try:
            if not module.detect(text, hint):
                continue
            plan = module.reduce(text, hint, budget)
            if plan is None:
                continue
            if not getattr(module, "__name__", "").startswith(_BUILTIN_PACKAGE):
                plan = list(plan)  # a reducer from elsewhere may keep the list it returns
            fit = _fit(plan, module, layout.lines, layout, hint, room.chars, room.rows)
        except Exception as error:
            if name == "size":
                raise
            problems.append(f"reducer {name} failed: {type(error).__name__}: {error}")
            continue
        if fit is not None:
            return fit, module, problems
    raise AssertionError("the size reducer always answers")


def _describe(chosen: Reducer, strategy: str, budget: Budget, regions: Sequence[str]) -> str:
    """A few words on what the strategy kept, for the note."""
    if strategy == "size:line-cap":
        return f"long lines capped at {budget.max_line_chars:,} characters"
    if strategy.startswith("salience"):
        read_by = f"; regions read by {', '.join(regions)}" if regions else ""
        return salience.DESCRIBE + read_by
    return str(getattr(chosen, "describe", "") or "")


def _footer(room: _Room, rows: list[str], max_chars: int, short_note: str, note: str) -> str:
    """The longest spill footer that fits after `rows`."""
    body_cost = sum(len(row) + 1 for row in rows)
    for footer in (
        f"[full output saved as {room.locator}: {short_note}]",
        f"[full output saved as {room.locator}: {note}]",
    ):
        if not max_chars or body_cost + len(footer) + 1 <= max_chars:
            return footer
    return room.footer_min


def _complete(
    fit: _Fit,
    chosen: Reducer,
    chain: Sequence[Reducer],
    hint: Hint,
    budget: Budget,
    layout: _Layout,
    room: _Room,
) -> tuple[list[_Piece], str, int, list[str]]:
    """The final pieces, the strategy's name, how many lines the fill added and the reducers
    that read regions: the salience fallback reads regions; a reducer's plan that leaves room
    is filled by salience."""
    lines = layout.lines
    if chosen.name == "size" and fit.suffix == "salience":
        pieces, regions = _by_regions(lines, hint, budget, chain, layout, room.chars, room.rows)
        return pieces, "+".join(["salience", *regions]), 0, regions
    if chosen.name == "size":
        return fit.pieces, fit.suffix or "size:line-cap", 0, []
    pieces, filled = fit.pieces, 0
    if _room(pieces, layout, room.chars, room.rows):
        order = salience.order(lines, hint, room.chars)
        pieces, filled = _fill(pieces, layout, order, room.chars, room.rows)
    return pieces, chosen.name + fit.suffix, filled, []


def _more_notes(filled: int, room: _Room) -> list[str]:
    """What the note says besides the strategy: the fill, where the original is or why not."""
    parts: list[str] = []
    if filled:
        parts.append(f"{plural(filled, 'more line')} kept by salience in the room left")
    if room.locator:
        parts.append(f"full original at {room.locator}")
    if room.spill_problem:
        parts.append(f"the original could not be saved ({room.spill_problem})")
    return parts


def _shrink(
    text: str,
    hint: Hint | None,
    budget: Budget | None,
    spill: SpillSaver | None,
    only: Sequence[str] | None,
    disable: Sequence[str] | None,
    extra: Iterable[object],
) -> Shrunk:
    hint = Hint() if hint is None else hint
    budget = Budget() if budget is None else budget
    _check_arguments(hint, budget)
    _check_budget(budget)
    if fits(text, budget.max_chars, budget.max_lines):
        return _identity(text)
    chain = reducer_chain(only, disable, extra)
    lines = split(text)
    n = len(lines)
    room = _room_for_body(text, hint, budget, spill)
    layout = _Layout(lines, budget.max_line_chars)
    fit, chosen, problems = _first_fit(chain, text, hint, budget, layout, room)
    layout.label = fit.label
    pieces, strategy, filled, regions = _complete(fit, chosen, chain, hint, budget, layout, room)
    if only is None and _challengeable(chosen, hint):
        challenger = _challenge(chosen.name, fit.pieces, pieces, chain, lines, hint, budget, room)
        if challenger is not None:
            problems.insert(0, f"{chosen.name}'s plan set aside: {SET_ASIDE}")
            layout, pieces, strategy, filled, regions = challenger
            chosen = chain[-1]
    rows, spans = _render(_fill_cheap_gaps(pieces, layout, room.rows), layout)
    kept_lines = sum(1 for span in spans if span.kind in ("line", "capped"))
    describe = _describe(chosen, strategy, budget, regions)
    note = f"kept {kept_lines:,} of {n:,} lines ({strategy})"
    short_note = f"{note}: {describe}" if describe else note
    if room.use_footer:
        rows.append(_footer(room, rows, budget.max_chars, short_note, note))
        spans.append(Span("footer", 0, 0))
    parts = [short_note, *_more_notes(filled, room)]
    if not budget.max_line_chars and room.chars:
        parts.extend(_uncut_lines_note(lines, spans, room.chars))
    parts.extend(problems)
    # the newline that ends the last line stays when that line is kept (it costs no more than
    # the budget counted for the row)
    ends_kept = bool(spans) and spans[-1] == Span("line", n - 1, n) and text.endswith("\n")
    content = "\n".join(rows) + ("\n" if rows and (rows[-1] == "" or ends_kept) else "")
    stats = Stats(len(text), n, len(content), count_lines(content), kept_lines, n - kept_lines)
    return Shrunk(
        content,
        True,
        strategy,
        "; ".join(parts),
        stats,
        room.locator,
        tuple(spans),
        room.spill_problem,
    )


def _challengeable(chosen: Reducer, hint: Hint) -> bool:
    """A built-in reducer of `CHALLENGED`, unless a query ranks the lines (by relevance, not by
    what experts keep)."""
    return (
        chosen.name in CHALLENGED
        and not hint.query
        and getattr(chosen, "__name__", "").startswith(_BUILTIN_PACKAGE)
    )


def _challenge(
    name: str,
    planned: list[_Piece],
    pieces: list[_Piece],
    chain: Sequence[Reducer],
    lines: Lines,
    hint: Hint,
    budget: Budget,
    room: _Room,
) -> tuple[_Layout, list[_Piece], str, int, list[str]] | None:
    """Salience's result (its layout, pieces, strategy, fill and regions) when its ranking alone
    (no region read by a reducer, which would often be the one challenged) keeps more of the
    lines the line model expects an expert to insist on than the reducer's `pieces`, by
    `CHALLENGE_MARGIN`; else None, and None for outputs too long to weigh line by line. The
    reducer's top pieces and summaries (`planned`) are kept first when they fit in half the
    room: the strategy is then `<reducer>+salience`."""
    likely = salience.likelihoods(lines, hint, room.chars)
    if likely is None:
        return None
    layout = _Layout(lines, budget.max_line_chars)
    fit = _first_fit(chain[-1:], lines.text, hint, budget, layout, room)[0]
    layout.label = fit.label
    challenger = _complete(fit, chain[-1], chain[-1:], hint, budget, layout, room)
    if _expected(challenger[0], likely) <= CHALLENGE_MARGIN * _expected(pieces, likely):
        return None
    top = max((p.priority for p in planned), default=0.0)
    headline = [p for p in planned if p.priority >= top or p.summary is not None]
    if not headline or not _fits(headline, layout, room.chars // 2, room.rows // 2):
        return (layout, *challenger)
    order = salience.order(lines, hint, room.chars)
    kept, filled = _fill(headline, layout, order, room.chars, room.rows)
    return layout, kept, f"{name}+salience", filled, challenger[3]


def _expected(pieces: Sequence[_Piece], likely: Sequence[float]) -> float:
    """How many of the lines an expert insists on `pieces` show, by the line model's odds (a
    summary shows none of its lines as they were)."""
    return sum(sum(likely[p.start : p.end]) for p in pieces if p.summary is None)


def _uncut_lines_note(lines: Lines, spans: Sequence[Span], room: int) -> list[str]:
    """A note for omitted lines each longer than the whole budget: rule 2 keeps lines whole, so
    without a line cap they can only ever be a marker; say so and how to see part of them."""
    longs = long_lines(lines, room)
    if not longs:
        return []
    omitted = [span for span in spans if span.kind == "omitted"]
    firsts = [span.start for span in omitted]
    too_long = 0
    longest, where = 0, 0
    for i in longs:
        k = bisect_right(firsts, i) - 1
        if k < 0 or i >= omitted[k].end:
            continue
        too_long += 1
        if len(lines.lines[i]) > longest:
            longest, where = len(lines.lines[i]), i
    if not too_long:
        return []
    if too_long == 1:
        what = f"line {where + 1:,} ({longest:,} characters) is longer than the whole budget"
    else:
        what = (
            f"{too_long:,} omitted lines are each longer than the whole budget (the longest,"
            f" line {where + 1:,}, has {longest:,} characters)"
        )
    return [
        f"{what}; lines are kept whole unless a line cap is set: set max_line_chars"
        " (--max-line-chars) to see the start of long lines"
    ]
