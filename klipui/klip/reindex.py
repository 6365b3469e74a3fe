"""The pure reindexer: keep the selected completed turns of a dsh event list as a valid seed.

One forward scan over the log (research/klip.md §2): the turn cursor moves at `turn/start`,
where the skip state resets; skip-n/skip-till run on every event before turn membership; an
event of a selected turn (or a header event, before the first `turn/start`) claims the next seq
*before* its rules run, so it can resolve its own seq; the first failing rule drops it and
releases its seq. References only point backwards, so every drop is already reflected when a
later event checks its references: the cascade reaches its fixpoint in the one pass.

Inputs are never modified. Output events are fresh dicts; only the containers on a rewritten
path (e.g. `data` for `data.turn`, `surfaceOp`) are copied, other nested values are shared with
the input, so treat both as read-only (as the session model does).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from klipui.klip.interval import KInterval, parse_interval
from klipui.klip.rules import (
    DEFAULT_RULES,
    ArrayRule,
    IntervalRule,
    Rule,
    RuleTable,
    SkipN,
    SkipTill,
    ValueRule,
)

_MISSING = object()

REASON_NO_TURNS = "no-completed-turn"
"""The log has no `turn/end`: nothing is kept, header events included (as the reference)."""
REASON_TURN = "turn"
"""The event's turn is not selected."""
REASON_INCOMPLETE = "incomplete"
"""The event's turn never completed (it comes after the last `turn/end`), so it cannot be kept."""
REASON_SKIP = "skip"
"""A skip-n or skip-till rule removed the event (compaction blocks, prunes)."""
REASON_REFERENCE = "reference"
"""A rule found the event's reference dead: the cascade."""


@dataclass(slots=True, frozen=True)
class Drop:
    """One event left out of the result, and why."""

    seq: Any
    """The event's seq in the input."""
    type: str
    turn: Any
    """The turn cursor when the event was met (0: header event)."""
    reason: str
    """One of "no-completed-turn", "turn", "incomplete", "skip", "reference"."""
    rule: str = ""
    """The rule that dropped it, e.g. "array sourceEventSeqs" or "skip-till compaction/end"."""
    detail: str = ""

    def __str__(self) -> str:
        head = f"seq {self.seq} {self.type}"
        if self.reason == REASON_TURN:
            return f"{head}: turn {self.turn} not selected"
        if self.reason == REASON_INCOMPLETE:
            return f"{head}: turn {self.turn} never completed"
        if self.reason == REASON_NO_TURNS:
            return f"{head}: the session has no completed turn"
        return f"{head}: {self.rule}" + (f" — {self.detail}" if self.detail else "")


@dataclass(slots=True)
class ReindexReport:
    """What `reindex` kept and why the rest went."""

    events: list[dict[str, Any]]
    selection: KInterval
    turn_count: int
    """Turns the selection is resolved against: the closed turns (`data.turn` of the last
    `turn/end`), and with `include_open` the turns started after it too."""
    intervals: list[tuple[int, int]]
    """The selection resolved against `turn_count`."""
    turns: dict[int, int]
    """Old turn number → new turn number, for every selected turn."""
    seqs: dict[Any, int]
    """Old seq → new seq, for every kept event."""
    dropped: list[Drop] = field(default_factory=list)
    closed: int = 0
    """`data.turn` of the last `turn/end`: turns up to it are closed (they ended)."""
    ends: dict[int, str] = field(default_factory=dict)
    """Turn number → `reason.kind` of its `turn/end` ("completed", "aborted", …); filled by
    `reindex_report` only."""

    @property
    def completed(self) -> set[int]:
        """The turns that ended with reason "completed" (what `Turn.completed` says)."""
        return {turn for turn, kind in self.ends.items() if kind == "completed"}

    def outcome(self, turn: int) -> str:
        """How a turn ended: its `turn/end` reason kind, or "open" when it has none."""
        return self.ends.get(turn, "open")

    @property
    def cascade(self) -> list[Drop]:
        """Events of selected turns removed by a rule (skip or dead reference)."""
        return [d for d in self.dropped if d.reason in (REASON_SKIP, REASON_REFERENCE)]


def reindex(
    events: Iterable[Mapping[str, Any]],
    selection: KInterval | str,
    rules: RuleTable = DEFAULT_RULES,
    *,
    include_open: bool = False,
) -> list[dict[str, Any]]:
    """The seed for a child session holding the selected closed turns of `events`.

    `events` are dsh SessionEvent dicts in log order (packed chunk rows expanded) or objects with
    `to_dict()`; `selection` is a `KInterval` or its text (a `KIntervalError` when unreadable).
    A closed turn is one up to the last `turn/end` (the reference's "completed turns", whatever
    the end's reason); `include_open` makes the turns started after it selectable too.
    """
    return _scan(events, selection, rules, None, include_open).events


def reindex_report(
    events: Iterable[Mapping[str, Any]],
    selection: KInterval | str,
    rules: RuleTable = DEFAULT_RULES,
    *,
    include_open: bool = False,
) -> ReindexReport:
    """Like `reindex`, with the turn and seq maps and every dropped event with its reason."""
    return _scan(events, selection, rules, [], include_open)


class _Plan:
    """The compiled rules of one event type: seq rules then turn rules, skip rules apart."""

    __slots__ = ("intact", "rules", "skip_n", "skip_till", "surface")

    def __init__(self, table: RuleTable, event_type: str) -> None:
        seq_rules = table.rules_for("seq", event_type)
        self.skip_n = next((r.n for r in seq_rules if isinstance(r, SkipN)), None)
        till = next((r for r in seq_rules if isinstance(r, SkipTill)), None)
        self.skip_till = till.till if till is not None else None
        self.intact = till is not None and till.intact
        compiled = [
            _compile(r, _SURFACE_MAP if getattr(r, "surface", False) else _SEQ_MAP)
            for r in seq_rules
            if not isinstance(r, SkipN | SkipTill)
            # The envelope seq is always rewritten unless the reference's quirk is asked for,
            # and an event's own seq is claimed before its rules run, so this rule cannot fail.
            and not (r == ValueRule("seq") and not table.override_keeps_seq)
        ]
        compiled += [_compile(r, _TURN_MAP) for r in table.rules_for("turn", event_type)]
        self.rules = tuple(compiled)
        self.surface = event_type in table.surface


_VALUE, _ARRAY, _INTERVAL = 0, 1, 2
_SEQ_MAP, _SURFACE_MAP, _TURN_MAP = 0, 1, 2


def _compile(rule: Rule, which: int) -> tuple[Any, ...]:
    """(kind, keys, end keys, rule, keep-or-surface flag, map index)."""
    if isinstance(rule, ValueRule):
        return (_VALUE, tuple(rule.path.split(".")), (), rule, False, which)
    if isinstance(rule, ArrayRule):
        return (_ARRAY, tuple(rule.path.split(".")), (), rule, rule.keep, which)
    assert isinstance(rule, IntervalRule)
    start, end = tuple(rule.start_path.split(".")), tuple(rule.end_path.split("."))
    return (_INTERVAL, start, end, rule, rule.surface, which)


def _get(obj: Any, keys: tuple[str, ...]) -> Any:
    for key in keys:
        if type(obj) is not dict:
            return _MISSING
        obj = obj.get(key, _MISSING)
    return obj


def _put(
    event: dict[str, Any], keys: tuple[str, ...], value: Any, fresh: set[int] | None
) -> set[int] | None:
    """Write `value` at `keys`, copying each container on the way once per event.

    `fresh` holds the ids of the containers already copied for this event (None: none yet);
    the updated set is returned.
    """
    node = event
    for key in keys[:-1]:
        child = node[key]
        if fresh is None:
            fresh = set()
        if id(child) not in fresh:
            child = dict(child)
            node[key] = child
            fresh.add(id(child))
        node = child
    node[keys[-1]] = value
    return fresh


def _is_number(value: Any) -> bool:
    kind = type(value)
    return kind is int or kind is float


def _apply(
    rules: tuple[tuple[Any, ...], ...],
    event: dict[str, Any],
    maps: tuple[dict[Any, int], dict[Any, int], dict[Any, int]],
    empty_array_drops: bool,
) -> tuple[Rule, str] | None:
    """Run `rules` on `event` in order; the first failing rule and why, or None when all pass."""
    fresh: set[int] | None = None
    for kind, keys, end_keys, rule, flag, which in rules:
        mapping = maps[which]
        if kind == _VALUE:
            if len(keys) == 1:
                value = event.get(keys[0], _MISSING)
            elif len(keys) == 2:
                parent = event.get(keys[0])
                value = parent.get(keys[1], _MISSING) if type(parent) is dict else _MISSING
            else:
                value = _get(event, keys)
            kind_of = type(value)
            if kind_of is not int and kind_of is not float:
                continue
            target = mapping.get(value)
            if target is None:
                return rule, f"{'.'.join(keys)} {value} was removed"
            if target != value or kind_of is not int:
                fresh = _put(event, keys, target, fresh)
        elif kind == _ARRAY:
            value = _get(event, keys)
            if type(value) is not list:
                continue
            mapped = [
                mapping[m] for m in value if (type(m) is int or type(m) is float) and m in mapping
            ]
            if not mapped and not flag and (value or empty_array_drops):
                detail = "is empty" if not value else f"cites {_short(value)}, all removed"
                return rule, f"{'.'.join(keys)} {detail}"
            if mapped != value:
                fresh = _put(event, keys, mapped, fresh)
        else:
            start, end = _get(event, keys), _get(event, end_keys)
            if not (_is_number(start) and _is_number(end)):
                continue
            first, last = _project(mapping, start, end)
            if first is None or last is None:
                kept = "surface event" if flag else "event"
                return rule, f"no {kept} of {start}..{end} survives"
            if first != start:
                fresh = _put(event, keys, first, fresh)
            if last != end:
                fresh = _put(event, end_keys, last, fresh)
    return None


def _project(table: dict[Any, int], start: Any, end: Any) -> tuple[int | None, int | None]:
    """The mapped first and last survivors of the closed range `start..end` (None: none)."""
    if end - start > len(table):
        inside = [
            k for k in table if _is_number(k) and start <= k <= end and k - start == int(k - start)
        ]
        if not inside:
            return None, None
        return table[min(inside)], table[max(inside)]
    first = last = None
    probe = start
    while probe <= end:
        if probe in table:
            first = table[probe]
            break
        probe += 1
    probe = end
    while first is not None and probe >= start:
        if probe in table:
            last = table[probe]
            break
        probe -= 1
    return first, last


def _short(values: list[Any]) -> str:
    shown = ", ".join(str(v) for v in values[:6])
    return f"[{shown}{', …' if len(values) > 6 else ''}]"


def _last_turn(events: list[Any], kind: str = "turn/end") -> int:
    """`data.turn` of the last event of type `kind` (0: none)."""
    for src in reversed(events):
        if src["type"] == kind:
            data = src.get("data")
            turn = data.get("turn") if type(data) is dict else None
            return int(turn) if isinstance(turn, int | float) and _is_number(turn) else 0
    return 0


def _scan(
    events: Iterable[Mapping[str, Any]],
    selection: KInterval | str,
    table: RuleTable,
    drops: list[Drop] | None,
    include_open: bool = False,
) -> ReindexReport:
    return _scan_log(events, selection, table, drops, include_open)


def _scan_log(
    events: Iterable[Mapping[str, Any]],
    selection: KInterval | str,
    table: RuleTable,
    drops: list[Drop] | None,
    include_open: bool,
) -> ReindexReport:
    interval = parse_interval(selection) if isinstance(selection, str) else selection
    log = _log_of(events)
    closed = _last_turn(log)
    turn_count = max(closed, _last_turn(log, "turn/start")) if include_open else closed
    ends = _ends(log) if drops is not None else {}
    if turn_count <= 0:
        if drops is not None:
            drops.extend(Drop(e.get("seq"), e.get("type", ""), 0, REASON_NO_TURNS) for e in log)
        return ReindexReport(
            [], interval, 0, [], {}, {}, drops if drops is not None else [], closed, ends
        )
    intervals = interval.resolve(turn_count)
    turn_map = _turn_map(intervals)
    out, seq_map = _walk(log, table, turn_map, turn_count, drops)
    if drops is not None:
        _name_skips(drops, table)
    return ReindexReport(
        out,
        interval,
        turn_count,
        intervals,
        turn_map,
        seq_map,
        drops if drops is not None else [],
        closed,
        ends,
    )


def _walk(
    log: list[Any],
    table: RuleTable,
    turn_map: dict[Any, int],
    turn_count: int,
    drops: list[Drop] | None,
) -> tuple[list[dict[str, Any]], dict[Any, int]]:
    """The kept events, reindexed, and old seq → new seq: one pass over the log applying the
    table's cells (skips, references, turn selection); each dropped event added to `drops`."""
    seq_map: dict[Any, int] = {}
    surface_map: dict[Any, int] = {}
    maps = (seq_map, surface_map, turn_map)
    plans: dict[str, _Plan] = {}
    empty_drops = table.empty_array_drops
    keep_old_seq = table.override_keeps_seq
    out: list[dict[str, Any]] = []
    append = out.append
    skips = _Skips(_Blocks(log, plans, table, maps), turn_map)
    for position, src in enumerate(log):
        etype = src["type"]
        plan = plans.get(etype)
        if plan is None:
            plan = plans[etype] = _Plan(table, etype)
        skipped = skips.reason(position, src, etype, plan)
        turn = skips.turn
        if skipped is not None:
            if drops is not None:
                drops.append(_skip_drop(src, etype, turn, turn_map, turn_count, skipped))
            continue
        if turn != 0 and turn not in turn_map:
            if drops is not None:
                drops.append(_unselected(src, etype, turn, turn_count))
            continue
        old = src.get("seq")
        new_seq = len(out)
        seq_map[old] = new_seq
        if plan.surface:
            surface_map[old] = new_seq
        event = dict(src)
        failed = _apply(plan.rules, event, maps, empty_drops) if plan.rules else None
        if failed is None:
            if not keep_old_seq:
                event["seq"] = new_seq
            append(event)
            continue
        del seq_map[old]
        surface_map.pop(old, None)
        if drops is not None:
            rule, detail = failed
            drops.append(Drop(old, etype, turn, REASON_REFERENCE, str(rule), detail))
    return out, seq_map


def _log_of(events: Iterable[Mapping[str, Any]]) -> list[Any]:
    """The events as a list of dicts (the list itself when it already is one)."""
    if type(events) is list and (not events or type(events[0]) is dict):
        return events
    return [e if type(e) is dict else _as_dict(e) for e in events]


def _turn_map(intervals: list[tuple[int, int]]) -> dict[Any, int]:
    """Old turn number → new one, for the turns the resolved intervals keep, in order."""
    turn_map: dict[Any, int] = {}
    for start, end in intervals:
        for old in range(start, end + 1):
            turn_map[old] = len(turn_map) + 1
    return turn_map


class _Skips:
    """The skip state of a scan: the open turn, the events a skip-n cell still skips, and the
    end types skip-till cells wait for."""

    __slots__ = ("blocks", "count", "stack", "turn", "turn_map")

    def __init__(self, blocks: _Blocks, turn_map: dict[Any, int]) -> None:
        self.blocks = blocks
        self.turn_map = turn_map
        self.turn: Any = 0
        self.count = 0
        self.stack: list[str] = []

    def reason(self, position: int, src: dict[str, Any], etype: str, plan: _Plan) -> str | None:
        """ "skip-n" or "skip-till" when a rule cell skips the event at `position`, else None."""
        if etype == "turn/start":
            data = src.get("data")
            turn = data.get("turn") if type(data) is dict else None
            if isinstance(turn, list | dict):  # a turn number of another type (a broken file)
                turn = None
            self.turn = turn
            self.count = 0
            self.stack.clear()
        if self.count > 0:
            self.count -= 1
        if plan.skip_n is not None and plan.skip_n + 1 > self.count:
            self.count = plan.skip_n + 1
        if plan.skip_till is not None and not (
            plan.intact
            and self.count == 0
            and not self.stack
            and (self.turn == 0 or self.turn in self.turn_map)
            and self.blocks.intact(position, plan.skip_till)
        ):
            self.stack.append(plan.skip_till)
        if self.count > 0:
            return "skip-n"
        if self.stack:
            if etype == self.stack[-1]:
                self.stack.pop()
            return "skip-till"
        return None


def _ends(log: list[Any]) -> dict[int, str]:
    """Turn number → reason kind of its `turn/end` (the last one, should a turn have two)."""
    out: dict[int, str] = {}
    for src in log:
        if src["type"] != "turn/end":
            continue
        data = src.get("data")
        if type(data) is not dict or not _is_number(data.get("turn")):
            continue
        reason = data.get("reason")
        kind = reason.get("kind") if type(reason) is dict else None
        out[int(data["turn"])] = kind if isinstance(kind, str) else "unknown"
    return out


class _Blocks:
    """Decides whether a skip-till block with `intact` can be kept: everything its events cite
    before the block (through their seq rules) survived. Citations only point backwards, so
    when the scan reaches the block's opener every cited event has been decided."""

    def __init__(
        self,
        log: list[Any],
        plans: dict[str, _Plan],
        table: RuleTable,
        maps: tuple[dict[Any, int], dict[Any, int], dict[Any, int]],
    ) -> None:
        self.log = log
        self.plans = plans
        self.table = table
        self.maps = maps
        self._seqs: dict[Any, str] | None = None

    def _plan(self, etype: str) -> _Plan:
        plan = self.plans.get(etype)
        if plan is None:
            plan = self.plans[etype] = _Plan(self.table, etype)
        return plan

    def _close(self, start: int, till: str) -> int | None:
        """Index of the event closing the block opened at `start` (nesting as the scan does)."""
        stack = [till]
        for index in range(start + 1, len(self.log)):
            etype = self.log[index]["type"]
            if etype == "turn/start":
                return None
            plan = self._plan(etype)
            if plan.skip_n is not None:
                return None
            if plan.skip_till is not None:
                stack.append(plan.skip_till)
            elif etype == stack[-1]:
                stack.pop()
                if not stack:
                    return index
        return None

    def intact(self, start: int, till: str) -> bool:
        """True when the block opened at `start` closes, and all it cites before it survived."""
        end = self._close(start, till)
        if end is None:
            return False
        own = {src.get("seq") for src in self.log[start : end + 1]}
        for src in self.log[start : end + 1]:
            for kind, keys, end_keys, _rule, _flag, which in self._plan(src["type"]).rules:
                if which == _TURN_MAP:
                    continue
                mapping = self.maps[which]
                cited = self._cited(src, kind, keys, end_keys, which)
                if cited is None:
                    return False
                if any(seq not in own and seq not in mapping for seq in cited):
                    return False
        return True

    def _cited(
        self, src: Any, kind: int, keys: tuple[str, ...], end_keys: tuple[str, ...], which: int
    ) -> list[Any] | None:
        """The seqs one rule of `src` cites; None when an interval's members cannot be told
        (reversed, or holding no event the rule would project onto), so the rule could fail."""
        if kind == _VALUE:
            value = _get(src, keys)
            return [value] if _is_number(value) and keys != ("seq",) else []
        if kind == _ARRAY:
            value = _get(src, keys)
            return [m for m in value if _is_number(m)] if type(value) is list else []
        first, last = _get(src, keys), _get(src, end_keys)
        if not (_is_number(first) and _is_number(last)):
            return []
        surface = which == _SURFACE_MAP
        members = self._types()
        if last - first > len(members):
            inside = [seq for seq in members if _is_number(seq) and first <= seq <= last]
        else:
            inside = [seq for seq in range(int(first), int(last) + 1) if seq in members]
        cited = [seq for seq in inside if not surface or self._plan(members[seq]).surface]
        return cited or None

    def _types(self) -> dict[Any, str]:
        """Seq → type of every event of the log."""
        if self._seqs is None:
            self._seqs = {src.get("seq"): src["type"] for src in self.log}
        return self._seqs


def _unselected(src: Mapping[str, Any], etype: str, turn: Any, turn_count: int) -> Drop:
    late = _is_number(turn) and turn > turn_count
    return Drop(src.get("seq"), etype, turn, REASON_INCOMPLETE if late else REASON_TURN)


def _skip_drop(
    src: Mapping[str, Any],
    etype: str,
    turn: Any,
    turn_map: dict[Any, int],
    turn_count: int,
    rule: str,
) -> Drop:
    """A skipped event's drop; in an unselected turn, the selection is the reason that matters."""
    if turn != 0 and turn not in turn_map:
        return _unselected(src, etype, turn, turn_count)
    return Drop(src.get("seq"), etype, turn, REASON_SKIP, rule)


def _name_skips(drops: list[Drop], table: RuleTable) -> None:
    """Replace the bare "skip-n"/"skip-till" of skip drops with the rule that opened the run."""
    opener = ""
    for index, drop in enumerate(drops):
        if drop.reason != REASON_SKIP:
            continue
        own = next(
            (r for r in table.rules_for("seq", drop.type) if isinstance(r, SkipN | SkipTill)), None
        )
        if own is not None:
            opener = f"{own} (opened by {drop.type})"
        drops[index] = Drop(drop.seq, drop.type, drop.turn, drop.reason, opener or drop.rule)


def _as_dict(event: Any) -> dict[str, Any]:
    to_dict = getattr(event, "to_dict", None)
    if to_dict is None:
        raise TypeError(f"expected a SessionEvent dict or Event, got {type(event).__name__}")
    converted: dict[str, Any] = to_dict()
    return converted
