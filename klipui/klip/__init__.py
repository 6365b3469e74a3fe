"""The clip engine: select turns with a KInterval, reindex them into a valid child seed.

`parse_interval("1..3, 7")` reads a selection; `reindex(events, selection)` keeps the selected
turns of a dsh event list among those that ended (any reason; `include_open` adds the ones after
the last end), renumbers seqs and turns densely and drops every event whose references died
(rule tables in `rules`); `validate(events)` checks the result's surface fold and tool pairs.
`plan_child` / `write_child` make and write a child session in the parent's format
(`ChildPlan.child_title` is the title it is written with).
"""

from klipui.klip.child import ChildPlan, ClipError, clip, plan_child, write_child
from klipui.klip.endings import LEFT_OPEN, ending_mark, ending_note, left_open_turns, turn_endings
from klipui.klip.interval import KInterval, KIntervalError, parse_interval
from klipui.klip.reindex import Drop, ReindexReport, reindex, reindex_report
from klipui.klip.rules import (
    DEFAULT_RULES,
    DSH_REFERENCE_RULES,
    DSH_RULES,
    LOWERED_RULES,
    RulesError,
    RuleTable,
    load_rules,
    rules_for_format,
)
from klipui.klip.surface import Violation, validate

__all__ = [
    "DEFAULT_RULES",
    "DSH_REFERENCE_RULES",
    "DSH_RULES",
    "LEFT_OPEN",
    "LOWERED_RULES",
    "ChildPlan",
    "ClipError",
    "Drop",
    "KInterval",
    "KIntervalError",
    "ReindexReport",
    "RuleTable",
    "RulesError",
    "Violation",
    "clip",
    "ending_mark",
    "ending_note",
    "left_open_turns",
    "load_rules",
    "parse_interval",
    "plan_child",
    "reindex",
    "reindex_report",
    "rules_for_format",
    "turn_endings",
    "validate",
    "write_child",
]
