"""Rule tables that drive the reindexer: data, not code.

A table has two maps from event type to a `Cell` (`turn`: references to turn numbers, `seq`:
references to seqs plus the structural skip rules), the `surface` set (types whose survivors
make up the surface-only seq map used by `IntervalRule(surface=True)`), and two switches for the
reference implementation's quirks. A cell's rules run after the wildcard cell `"*"`'s, unless
the cell sets `override`, in which case they replace them.

Rule kinds (dot paths into the event dict, e.g. `seq`, `data.turn`, `surfaceOp.start`):

- `ValueRule(path)`: a number; mapped, or the event is dropped when its target is gone.
- `ArrayRule(path, keep)`: a list of numbers; dead members are removed; when none is left the
  event is dropped, or kept with `[]` when `keep` is set.
- `IntervalRule(start_path, end_path, surface)`: a closed range re-projected onto the first and
  last survivors inside it (surface survivors only with `surface`); dropped when none survives.
- `SkipN(n)` (seq table): drop this event and the next `n` events of the log.
- `SkipTill(till, intact)` (seq table): drop this event through the event of type `till` that
  closes it (blocks nest); with `intact`, keep a closed block when everything it cites before
  itself survived.

A rule whose field is missing or not of the expected type does not apply.

The two quirks of the reference (dsh-klip), both fixed by default:

- `empty_array_drops`: the reference drops an event whose array field was *already* empty
  (`assistant/message` citing `[]`, the harness's mark for a known-empty stream), though no
  reference died. Our default keeps it with `[]`; set True to reproduce the reference.
- `override_keeps_seq`: with the reference, an `override` cell without a `seq` value rule leaves
  the event's old `seq` in place although the event takes a slot in the new numbering, so the
  result is no longer contiguous. Our default always writes the new seq; set True to reproduce.

`load_rules(path, base)` merges a TOML file into a table (see its docstring for the format).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from klipui.session.formats import adapter


@dataclass(frozen=True, slots=True)
class ValueRule:
    """A single numeric reference at `path`."""

    path: str

    def __str__(self) -> str:
        return f"value {self.path}"


@dataclass(frozen=True, slots=True)
class ArrayRule:
    """A list of numeric references at `path`; `keep` keeps the event when all are dead."""

    path: str
    keep: bool = False

    def __str__(self) -> str:
        return f"array {self.path}" + (" (keep)" if self.keep else "")


@dataclass(frozen=True, slots=True)
class IntervalRule:
    """A closed range `[start_path, end_path]`; `surface` projects onto surface survivors only."""

    start_path: str
    end_path: str
    surface: bool = False

    def __str__(self) -> str:
        flag = " (surface)" if self.surface else ""
        return f"interval {self.start_path}..{self.end_path}{flag}"


@dataclass(frozen=True, slots=True)
class SkipN:
    """Drop this event and the next `n` events in log order."""

    n: int

    def __str__(self) -> str:
        return f"skip-n {self.n}"


@dataclass(frozen=True, slots=True)
class SkipTill:
    """Drop this event and every later one up to and including the `till` event closing it.

    With `intact`, a block whose every citation of an event before it (a value, array member or
    interval member its events' seq rules read) points at a survivor is kept instead, its events
    renumbered by their own rules: what it stands for is all in the child, so keeping it shows
    the child's model the same history as the parent's."""

    till: str
    intact: bool = False

    def __str__(self) -> str:
        return f"skip-till {self.till}" + (" (unless intact)" if self.intact else "")


Rule = ValueRule | ArrayRule | IntervalRule | SkipN | SkipTill
"""Any rule kind."""


@dataclass(frozen=True, slots=True)
class Cell:
    """The rules of one event type; `override` replaces the wildcard rules instead of extending."""

    rules: tuple[Rule, ...] = ()
    override: bool = False


def _frozen(cells: Mapping[str, Cell]) -> Mapping[str, Cell]:
    return MappingProxyType(dict(cells))


@dataclass(frozen=True)
class RuleTable:
    """Turn and seq rule cells per event type, the surface types, and the quirk switches."""

    turn: Mapping[str, Cell]
    seq: Mapping[str, Cell]
    surface: frozenset[str] = field(default_factory=frozenset)
    empty_array_drops: bool = False
    override_keeps_seq: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "turn", _frozen(self.turn))
        object.__setattr__(self, "seq", _frozen(self.seq))
        object.__setattr__(self, "surface", frozenset(self.surface))
        _check_table(self)

    def rules_for(self, table: str, event_type: str) -> tuple[Rule, ...]:
        """The rule set of `event_type` in the `"turn"` or `"seq"` table (override or extend)."""
        cells = self.turn if table == "turn" else self.seq
        wildcard = cells.get("*", Cell()).rules
        cell = cells.get(event_type)
        if cell is None:
            return wildcard
        return cell.rules if cell.override else wildcard + cell.rules

    def with_cells(
        self,
        *,
        turn: Mapping[str, Cell] | None = None,
        seq: Mapping[str, Cell] | None = None,
        surface: frozenset[str] | set[str] | None = None,
        **options: bool,
    ) -> RuleTable:
        """A copy with these cells replacing or adding to this table's, plus surface types."""
        return replace(
            self,
            turn={**self.turn, **(turn or {})},
            seq={**self.seq, **(seq or {})},
            surface=self.surface | frozenset(surface or ()),
            **options,
        )


class RulesError(ValueError):
    """A rule table (or rules file) that cannot be used; the message names where."""


def _check_table(table: RuleTable) -> None:
    for name, cells in (("turn", table.turn), ("seq", table.seq)):
        for event_type, cell in cells.items():
            for index, rule in enumerate(cell.rules):
                where = f"{name}.{event_type!r}.rules[{index}]"
                if name == "turn" and isinstance(rule, SkipN | SkipTill):
                    raise RulesError(f"{where}: {rule} is allowed in the seq table only")
                if name == "turn" and isinstance(rule, IntervalRule) and rule.surface:
                    raise RulesError(f"{where}: surface is allowed on seq-table intervals only")
                if isinstance(rule, SkipN) and (isinstance(rule.n, bool) or rule.n < 0):
                    raise RulesError(f"{where}: skip-n needs a whole number n >= 0")


SURFACE_TYPES = frozenset({"user/message", "assistant/message", "tool/result"})
"""The types the model sees as message history (dsh `seqSurface`)."""

_SURFACE_CELL = Cell(
    (
        ArrayRule("sourceEventSeqs"),
        IntervalRule("surfaceOp.start", "surfaceOp.end", surface=True),
    )
)

_DSH_REFERENCE_TABLE = RuleTable(
    turn={"*": Cell((ValueRule("data.turn"),))},
    seq={
        "*": Cell((ValueRule("seq"),)),
        "user/message": _SURFACE_CELL,
        "assistant/message": _SURFACE_CELL,
        "tool/result": _SURFACE_CELL,
        # A soft reference: `data.sourceEventSeq` only enriches the card, and dropping the done
        # event would leave its command/run looking as if it were still running.
        "command/done": Cell(),
        "session/title": Cell((ArrayRule("data.messageSeqs"),)),
        "compaction/start": Cell((SkipTill("compaction/end"),)),
        "compaction/prune": Cell((SkipN(1),)),
    },
    surface=SURFACE_TYPES,
)

DSH_RULES = _DSH_REFERENCE_TABLE.with_cells(
    seq={
        "compaction/start": Cell((SkipTill("compaction/end", intact=True),)),
        "compaction/summary": Cell(
            (
                ArrayRule("data.shadowedSeqs", keep=True),
                IntervalRule("data.shadowedRange.start", "data.shadowedRange.end"),
            )
        ),
    }
)
"""The default dsh tables: the reference's `src/rules.ts` with both quirks fixed, and one
improvement: a compaction block (`compaction/start` … `compaction/end`) is kept when every
event it shadows survives, so that a child holding the whole compacted span shows its model the
checkpoint, as the parent does, rather than the original messages; its summary's
`shadowedSeqs` and `shadowedRange` are renumbered. A block shadowing anything that did not
survive is dropped whole, as by the reference (its summary would describe dropped turns)."""

DSH_REFERENCE_RULES = _DSH_REFERENCE_TABLE.with_cells(
    empty_array_drops=True, override_keeps_seq=True
)
"""The dsh tables of the reference exactly: its two quirks reproduced, every compaction block
dropped whole."""

LOWERED_RULES = RuleTable(
    turn={"*": Cell((ValueRule("data.turn"),))},
    seq={
        # Lowered formats cite with sourceEventSeqs only (a tool result its call, a title the
        # message it names): a citation whose targets all died takes the citing event with it.
        "*": Cell((ValueRule("seq"), ArrayRule("sourceEventSeqs"))),
        "user/message": Cell((IntervalRule("surfaceOp.start", "surfaceOp.end", surface=True),)),
        "assistant/message": Cell(
            (IntervalRule("surfaceOp.start", "surfaceOp.end", surface=True),)
        ),
        "tool/result": Cell((IntervalRule("surfaceOp.start", "surfaceOp.end", surface=True),)),
        "session/title": Cell((ArrayRule("data.messageSeqs"),)),
        "compaction/start": Cell((SkipTill("compaction/end"),)),
        "compaction/prune": Cell((SkipN(1),)),
    },
    surface=SURFACE_TYPES,
)
"""Tables for sessions lowered from Claude Code, Codex, pi and generic messages."""

DEFAULT_RULES = DSH_RULES
"""The table `reindex` uses unless told otherwise."""


def rules_for_format(name: str) -> RuleTable:
    """The default table for a session format: the dsh table for formats whose records already
    are session events (`Adapter.native_events`), the lowered table for the others and for
    unknown names."""
    try:
        native = adapter(name).native_events
    except KeyError:
        native = False
    return DSH_RULES if native else LOWERED_RULES


def load_rules(path: str | Path, base: RuleTable = DEFAULT_RULES) -> RuleTable:
    """Merge a TOML rules file into `base`; raise `RulesError` naming the file on bad content.

    Format (every key optional; a cell given here replaces `base`'s cell of that type)::

        surface = ["my/plugin/message"]          # added to the surface types

        [options]
        empty_array_drops = false                # reproduce the reference's quirks
        override_keeps_seq = false

        [seq."my/plugin/event"]
        override = false                         # true: replace the wildcard rules
        rules = [
          { kind = "value", path = "data.parentSeq" },
          { kind = "array", path = "data.citedSeqs", keep = true },
          { kind = "interval", start = "data.range.start", end = "data.range.end", surface = true },
          { kind = "skip-n", n = 1 },
          { kind = "skip-till", till = "my/plugin/block-end", intact = false },
        ]

        [turn."my/plugin/event"]
        rules = [{ kind = "value", path = "data.forTurn" }]
    """
    path = Path(path)
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise RulesError(f"{path}: cannot read: {error.strerror or error}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise RulesError(f"{path}: not valid TOML: {error}") from None
    try:
        return _merge_document(document, base)
    except RulesError as error:
        raise RulesError(f"{path}: {error}") from None


_TOP_KEYS = {"surface", "options", "seq", "turn"}
_OPTION_KEYS = {"empty_array_drops", "override_keeps_seq"}


def _merge_document(document: dict[str, Any], base: RuleTable) -> RuleTable:
    unknown = set(document) - _TOP_KEYS
    if unknown:
        raise RulesError(f"unknown key {sorted(unknown)[0]!r} (expected {sorted(_TOP_KEYS)})")
    surface = document.get("surface", [])
    if not isinstance(surface, list) or not all(isinstance(t, str) for t in surface):
        raise RulesError("surface must be a list of event type strings")
    options = document.get("options", {})
    if not isinstance(options, dict):
        raise RulesError("[options] must be a table")
    for key, value in options.items():
        if key not in _OPTION_KEYS:
            raise RulesError(f"options: unknown key {key!r} (expected {sorted(_OPTION_KEYS)})")
        if not isinstance(value, bool):
            raise RulesError(f"options.{key} must be true or false")
    cells = {name: _cells(name, document.get(name, {})) for name in ("turn", "seq")}
    return base.with_cells(turn=cells["turn"], seq=cells["seq"], surface=set(surface), **options)


def _cells(table: str, raw: Any) -> dict[str, Cell]:
    if not isinstance(raw, dict):
        raise RulesError(f"[{table}] must be a table of event types")
    cells: dict[str, Cell] = {}
    for event_type, body in raw.items():
        where = f"{table}.{event_type!r}"
        if not isinstance(body, dict):
            raise RulesError(f"{where} must be a table with `rules` (and maybe `override`)")
        extra = set(body) - {"rules", "override"}
        if extra:
            raise RulesError(f"{where}: unknown key {sorted(extra)[0]!r}")
        override = body.get("override", False)
        if not isinstance(override, bool):
            raise RulesError(f"{where}.override must be true or false")
        rules = body.get("rules", [])
        if not isinstance(rules, list):
            raise RulesError(f"{where}.rules must be a list")
        cells[event_type] = Cell(
            tuple(_rule(f"{where}.rules[{i}]", r) for i, r in enumerate(rules)), override
        )
    return cells


_RULE_KEYS = {
    "value": {"path"},
    "array": {"path", "keep"},
    "interval": {"start", "end", "surface"},
    "skip-n": {"n"},
    "skip-till": {"till", "intact"},
}
_REQUIRED = {"value": ("path",), "array": ("path",), "interval": ("start", "end")}


def _rule(where: str, raw: Any) -> Rule:
    if not isinstance(raw, dict):
        raise RulesError(f'{where} must be an inline table like {{ kind = "value", path = ... }}')
    kind = raw.get("kind")
    if kind not in _RULE_KEYS:
        raise RulesError(f"{where}: unknown kind {kind!r} (expected one of {sorted(_RULE_KEYS)})")
    extra = set(raw) - _RULE_KEYS[kind] - {"kind"}
    if extra:
        raise RulesError(f"{where}: {kind} takes no {sorted(extra)[0]!r}")
    for key in _REQUIRED.get(kind, ()):
        if not isinstance(raw.get(key), str) or not raw[key]:
            raise RulesError(f"{where}: {kind} needs a dot path string {key!r}")
    for flag in ("keep", "surface"):
        if flag in raw and not isinstance(raw[flag], bool):
            raise RulesError(f"{where}.{flag} must be true or false")
    if kind == "value":
        return ValueRule(raw["path"])
    if kind == "array":
        return ArrayRule(raw["path"], raw.get("keep", False))
    if kind == "interval":
        return IntervalRule(raw["start"], raw["end"], raw.get("surface", False))
    if kind == "skip-n":
        n = raw.get("n")
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise RulesError(f"{where}: skip-n needs a whole number n >= 0")
        return SkipN(n)
    till = raw.get("till")
    if not isinstance(till, str) or not till:
        raise RulesError(f"{where}: skip-till needs an event type string 'till'")
    intact = raw.get("intact", False)
    if not isinstance(intact, bool):
        raise RulesError(f"{where}.intact must be true or false")
    return SkipTill(till, intact)
