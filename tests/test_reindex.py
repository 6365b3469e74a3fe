"""The reindexer (research/klip.md §2-3), its report, rule tables and rules files."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import sample_files
from dsh_gen import dsh_sessions, load_dsh
from hypothesis import given, settings
from hypothesis import strategies as st

from klipui.klip import (
    DEFAULT_RULES,
    DSH_REFERENCE_RULES,
    DSH_RULES,
    LOWERED_RULES,
    KInterval,
    KIntervalError,
    RulesError,
    load_rules,
    parse_interval,
    reindex,
    reindex_report,
    rules_for_format,
    validate,
)
from klipui.klip.rules import ArrayRule, Cell, IntervalRule, SkipN, SkipTill, ValueRule
from klipui.session.model import Event

# --- helpers --------------------------------------------------------------------------------


class Log:
    """Builds a dsh event list with dense seqs."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def add(self, kind: str, data: dict[str, Any] | None = None, **envelope: Any) -> int:
        seq = len(self.events)
        self.events.append(
            {"type": kind, "seq": seq, "time": 1000 + seq, "data": data or {}, **envelope}
        )
        return seq

    def turn(self, number: int, *, end: bool = True, tool: bool = False) -> dict[str, int]:
        """A small complete turn; returns the seqs of its parts by name."""
        parts = {"start": self.add("turn/start", {"turn": number})}
        parts["user"] = self.add(
            "user/message",
            {"content": [{"type": "text", "text": f"p{number}"}]},
            surfaceOp="append",
        )
        chunk = self.add(
            "assistant/chunk", {"turn": number, "step": 1, "chunk": {"type": "text-delta"}}
        )
        content: list[dict[str, Any]] = [{"type": "text", "text": "a"}]
        if tool:
            content.append(
                {"type": "tool-call", "id": f"c{number}", "name": "bash", "arguments": "{}"}
            )
        parts["assistant"] = self.add(
            "assistant/message",
            {"turn": number, "step": 1, "message": {"role": "assistant", "content": content}},
            sourceEventSeqs=[chunk],
            surfaceOp="append",
        )
        if tool:
            parts["call"] = self.add(
                "tool/call", {"turn": number, "step": 1, "callId": f"c{number}"}
            )
            parts["result"] = self.add(
                "tool/result",
                {
                    "turn": number,
                    "step": 1,
                    "message": {"content": [{"type": "tool-result", "toolCallId": f"c{number}"}]},
                },
                sourceEventSeqs=[parts["call"]],
                surfaceOp="append",
            )
        if end:
            parts["end"] = self.add("turn/end", {"turn": number, "reason": {"kind": "completed"}})
        return parts


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def seqs(events: list[dict[str, Any]]) -> list[int]:
    return [e["seq"] for e in events]


def origins(events: list[dict[str, Any]], report_seqs: dict[Any, int]) -> dict[int, Any]:
    """New seq → old seq."""
    return {new: old for old, new in report_seqs.items()}


EXAMPLE_LINES = [
    {
        "type": "permission/preset",
        "seq": 0,
        "time": 1790000000001,
        "data": {"preset": "workspace-write"},
    },
    {"type": "turn/start", "seq": 1, "time": 1790000000010, "data": {"turn": 1}},
    {"type": "step/start", "seq": 2, "time": 1790000000011, "data": {"turn": 1, "step": 1}},
    {
        "type": "user/message",
        "seq": 3,
        "time": 1790000000012,
        "data": {
            "id": "m-u1",
            "role": "user",
            "content": [{"type": "text", "text": "list files"}],
            "source": {"kind": "user"},
        },
        "surfaceOp": "append",
    },
    {
        "type": "session/title",
        "seq": 4,
        "time": 1790000000013,
        "data": {"title": "list files", "messageSeqs": [3], "source": {"kind": "fallback"}},
    },
    {
        "type": "assistant/message",
        "seq": 5,
        "time": 1790000000400,
        "data": {
            "turn": 1,
            "step": 1,
            "message": {
                "id": "m-a1",
                "role": "assistant",
                "content": [
                    {
                        "type": "tool-call",
                        "id": "call_1",
                        "name": "bash",
                        "arguments": '{"command":"ls"}',
                    }
                ],
                "source": {"kind": "model", "provider": "p", "model": "m"},
            },
        },
        "sourceEventSeqs": [],
        "surfaceOp": "append",
    },
    {
        "type": "tool/call",
        "seq": 6,
        "time": 1790000000401,
        "data": {
            "turn": 1,
            "step": 1,
            "callId": "call_1",
            "name": "bash",
            "arguments": '{"command":"ls"}',
        },
    },
    {
        "type": "tool/result",
        "seq": 7,
        "time": 1790000000420,
        "data": {
            "turn": 1,
            "step": 1,
            "message": {
                "id": "m-t1",
                "role": "user",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": "call_1",
                        "content": [{"type": "text", "text": "a.txt\n"}],
                    }
                ],
                "source": {"kind": "tool", "callId": "call_1"},
            },
        },
        "sourceEventSeqs": [6],
        "surfaceOp": "append",
    },
    {"type": "step/end", "seq": 8, "time": 1790000000421, "data": {"turn": 1, "step": 1}},
    {
        "type": "turn/end",
        "seq": 9,
        "time": 1790000000500,
        "data": {"turn": 1, "reason": {"kind": "completed"}},
    },
    {
        "type": "command/run",
        "seq": 10,
        "time": 1790000000600,
        "data": {"commandId": "cmd-7", "name": "klip", "args": " 1", "source": {"kind": "user"}},
    },
]
"""The made-up example of research/klip.md §6.6 (without its session header line)."""


# --- §6.6: the made-up example and the empty-array quirk ---------------------------------------


def test_example_6_6_with_the_reference_quirk() -> None:
    seed = EXAMPLE_LINES[:10]  # /klip cuts at its own command/run
    out = reindex(seed, "1", DSH_REFERENCE_RULES)
    assert len(out) == 9
    assert seqs(out) == list(range(9))
    assert "assistant/message" not in types(out)
    result = next(e for e in out if e["type"] == "tool/result")
    assert result["sourceEventSeqs"] == [5]
    assert out[5]["type"] == "tool/call"
    # the quirk leaves a tool result answering no request: the validator says so
    assert [(v.type, v.rule) for v in validate(out)] == [("tool/result", "tool-result-orphan")]


def test_example_6_6_fixed_keeps_the_known_empty_stream() -> None:
    out = reindex(EXAMPLE_LINES[:10], "1")
    assert len(out) == 10
    assert seqs(out) == list(range(10))
    assistant = out[5]
    assert assistant["type"] == "assistant/message"
    assert assistant["sourceEventSeqs"] == []
    assert out[7]["sourceEventSeqs"] == [6]
    assert validate(out) == []
    assert out == EXAMPLE_LINES[:10]  # selecting the only turn changes nothing


def test_trailing_events_stay_with_their_turn() -> None:
    out = reindex(EXAMPLE_LINES, "..")
    assert types(out)[-1] == "command/run"
    assert len(out) == 11
    assert reindex_report(EXAMPLE_LINES, "..").turn_count == 1


# --- §2.1: set-up ------------------------------------------------------------------------------


def test_only_completed_turns() -> None:
    log = Log()
    log.add("permission/preset")
    log.turn(1)
    log.turn(2)
    log.turn(3, end=False)
    report = reindex_report(log.events, "..")
    assert report.turn_count == 2
    assert report.turns == {1: 1, 2: 2}
    assert {e["data"].get("turn") for e in report.events if e["type"] == "turn/start"} == {1, 2}
    assert all(d.reason == "incomplete" and d.turn == 3 for d in report.dropped)
    assert str(report.dropped[0]).endswith("turn 3 never completed")
    assert reindex(log.events, "3") == [log.events[0]]
    last = reindex_report(log.events, "-1")
    assert last.turns == {2: 1}
    assert last.events[-1]["data"] == {"turn": 1, "reason": {"kind": "completed"}}


def test_no_completed_turn_gives_nothing() -> None:
    log = Log()
    log.add("permission/preset")
    log.turn(1, end=False)
    report = reindex_report(log.events, "..")
    assert report.events == []
    assert report.turn_count == 0
    assert {d.reason for d in report.dropped} == {"no-completed-turn"}
    assert len(report.dropped) == len(log.events)
    assert reindex([], "..") == []


def test_turns_are_renumbered_densely_and_steps_and_times_untouched() -> None:
    log = Log()
    for number in range(1, 5):
        log.turn(number)
    report = reindex_report(log.events, "1, 3..4")
    assert report.turns == {1: 1, 3: 2, 4: 3}
    starts = [e["data"]["turn"] for e in report.events if e["type"] == "turn/start"]
    assert starts == [1, 2, 3]
    third = [e for e in report.events if e["data"].get("turn") == 2]
    assert {e["data"].get("step") for e in third} == {None, 1}
    by_new = origins(report.events, report.seqs)
    for event in report.events:
        assert event["time"] == log.events[by_new[event["seq"]]]["time"]


def test_header_events_are_kept_whatever_the_selection() -> None:
    log = Log()
    log.add("permission/preset")
    log.add("command/run", {"commandId": "g"})
    log.add("command/done", {"commandId": "g", "kind": "success"})
    log.turn(1)
    log.turn(2)
    for selection in ("2", "not 1", "5"):
        out = reindex(log.events, selection)
        assert types(out)[:3] == ["permission/preset", "command/run", "command/done"]


def test_a_header_event_with_a_dead_turn_is_dropped() -> None:
    log = Log()
    log.add("plugin/state", {"turn": 2})
    log.add("plugin/state", {"turn": 1})
    log.turn(1)
    log.turn(2)
    report = reindex_report(log.events, "1")
    assert types(report.events)[:1] == ["plugin/state"]
    assert report.events[0]["data"] == {"turn": 1}
    drop = next(d for d in report.dropped if d.seq == 0)
    assert (drop.reason, drop.rule) == ("reference", "value data.turn")
    assert "data.turn 2 was removed" in drop.detail


# --- §2.3: rule kinds --------------------------------------------------------------------------


def custom(**cells: Cell) -> Any:
    return DSH_RULES.with_cells(seq={k.replace("_", "/"): v for k, v in cells.items()})


def test_value_rule_maps_drops_and_skips() -> None:
    log = Log()
    first = log.turn(1)
    log.turn(2)
    third = log.turn(3)
    log.add("my/ref", {"target": first["user"]})
    log.add("my/ref", {"target": third["user"]})
    log.add("my/ref", {"target": "3"})  # not a number: the rule does not apply
    log.add("my/ref", {"target": None})
    log.add("my/ref", {})
    rules = custom(my_ref=Cell((ValueRule("data.target"),)))
    report = reindex_report(log.events, "1, 3", rules)
    refs = [e for e in report.events if e["type"] == "my/ref"]
    expected = [report.seqs[first["user"]], report.seqs[third["user"]], "3", None, "-"]
    assert [e["data"].get("target", "-") for e in refs] == expected
    out_first = reindex(log.events, "2..3", rules)
    assert sum(e["type"] == "my/ref" for e in out_first) == 4


def test_an_event_resolves_its_own_seq() -> None:
    log = Log()
    log.turn(1)
    log.turn(2)
    log.add("my/self", {"me": len(log.events)})
    rules = custom(my_self=Cell((ValueRule("data.me"),)))
    out = reindex(log.events, "2", rules)
    assert out[-1]["type"] == "my/self"
    assert out[-1]["data"]["me"] == out[-1]["seq"] == len(out) - 1


def test_array_rule_filters_dead_members_and_drops_when_none_survive() -> None:
    log = Log()
    one, two = log.turn(1), log.turn(2)
    log.add("session/title", {"title": "both", "messageSeqs": [one["user"], two["user"]]})
    log.add("session/title", {"title": "first", "messageSeqs": [one["user"]]})
    log.add("session/title", {"title": "odd", "messageSeqs": ["x", one["user"], {"a": 1}]})
    log.add("session/title", {"title": "none", "messageSeqs": "3"})
    report = reindex_report(log.events, "2")
    titles = {
        e["data"]["title"]: e["data"]["messageSeqs"]
        for e in report.events
        if e["type"] == "session/title"
    }
    assert titles == {"both": [report.seqs[two["user"]]], "none": "3"}
    dropped = {d.detail for d in report.dropped if d.reason == "reference"}
    assert any("all removed" in d for d in dropped)


def test_array_keep_flag_keeps_the_event_with_an_empty_list() -> None:
    log = Log()
    one = log.turn(1)
    log.turn(2)
    log.add("my/cites", {"seqs": [one["user"], one["assistant"]]})
    log.add("my/cites", {"seqs": []})
    keep = custom(my_cites=Cell((ArrayRule("data.seqs", keep=True),)))
    out = reindex(log.events, "2", keep)
    assert [e["data"]["seqs"] for e in out if e["type"] == "my/cites"] == [[], []]
    plain = custom(my_cites=Cell((ArrayRule("data.seqs"),)))
    assert [
        e["data"]["seqs"] for e in reindex(log.events, "2", plain) if e["type"] == "my/cites"
    ] == [[]]
    reference = DSH_REFERENCE_RULES.with_cells(seq={"my/cites": Cell((ArrayRule("data.seqs"),))})
    assert not [e for e in reindex(log.events, "2", reference) if e["type"] == "my/cites"]
    keep_reference = DSH_REFERENCE_RULES.with_cells(
        seq={"my/cites": Cell((ArrayRule("data.seqs", keep=True),))}
    )
    assert (
        len([e for e in reindex(log.events, "2", keep_reference) if e["type"] == "my/cites"]) == 2
    )


def test_interval_rule_reprojects_onto_survivors() -> None:
    log = Log()
    one, two, three = log.turn(1, tool=True), log.turn(2, tool=True), log.turn(3, tool=True)
    log.add("my/range", {"from": one["user"], "to": three["assistant"]})
    log.add("my/range", {"from": two["user"], "to": two["result"]})
    log.add("my/range", {"from": two["result"], "to": one["user"]})  # reversed: nothing inside
    log.add("my/range", {"from": "append", "to": 3})
    rules = custom(my_range=Cell((IntervalRule("data.from", "data.to"),)))
    report = reindex_report(log.events, "1, 3", rules)
    ranges = [e["data"] for e in report.events if e["type"] == "my/range"]
    assert ranges == [
        {"from": report.seqs[one["user"]], "to": report.seqs[three["assistant"]]},
        {"from": "append", "to": 3},
    ]
    reasons = [d.detail for d in report.dropped if d.type == "my/range"]
    assert len(reasons) == 2
    assert all("survives" in r for r in reasons)


def test_interval_surface_flag_uses_surface_survivors_only() -> None:
    log = Log()
    one = log.turn(1, tool=True)
    log.turn(2)
    # a range whose only kept events outside the surface are the tool call
    log.add("my/range", {"from": one["call"], "to": one["call"]})
    log.add("my/range", {"from": one["assistant"] + 1, "to": one["result"]})
    plain = custom(my_range=Cell((IntervalRule("data.from", "data.to"),)))
    surface = custom(my_range=Cell((IntervalRule("data.from", "data.to", surface=True),)))
    plain_out = [e["data"] for e in reindex(log.events, "1..2", plain) if e["type"] == "my/range"]
    assert plain_out == [
        {"from": one["call"], "to": one["call"]},
        {"from": one["call"], "to": one["result"]},
    ]
    surface_out = [
        e["data"] for e in reindex(log.events, "1..2", surface) if e["type"] == "my/range"
    ]
    assert surface_out == [{"from": one["result"], "to": one["result"]}]


def test_replace_ranges_skip_append_and_land_on_surface_survivors() -> None:
    log = Log()
    one, two = log.turn(1, tool=True), log.turn(2)
    log.add("turn/start", {"turn": 3})
    checkpoint = log.add(
        "user/message",
        {"content": []},
        sourceEventSeqs=[one["user"], one["assistant"], one["result"], two["user"]],
        surfaceOp={"op": "replace", "start": one["user"], "end": two["user"]},
    )
    log.add("turn/end", {"turn": 3, "reason": {"kind": "completed"}})
    out = reindex(log.events, "2..3")
    new = next(e for e in out if e["seq"] == len(out) - 2)
    assert new["type"] == "user/message"
    assert new["surfaceOp"] == {"op": "replace", "start": 1, "end": 1}
    assert new["sourceEventSeqs"] == [1]
    assert log.events[checkpoint]["surfaceOp"] == {
        "op": "replace",
        "start": one["user"],
        "end": two["user"],
    }
    assert validate(out) == []


def test_skip_n_drops_the_prune_and_the_replacement_after_it() -> None:
    log = Log()
    one = log.turn(1, tool=True)
    log.add("turn/start", {"turn": 2})
    log.add("compaction/prune", {"shadowedRange": {"start": one["result"], "end": one["result"]}})
    log.add(
        "tool/result",
        {"turn": 2, "message": {"content": [{"type": "tool-result", "toolCallId": "c1"}]}},
        sourceEventSeqs=[one["result"]],
        surfaceOp={"op": "replace", "start": one["result"], "end": one["result"]},
    )
    log.add("step/start", {"turn": 2, "step": 1})
    log.add("turn/end", {"turn": 2, "reason": {"kind": "completed"}})
    report = reindex_report(log.events, "..")
    assert types(report.events)[-3:] == ["turn/start", "step/start", "turn/end"]
    skipped = [d for d in report.dropped if d.reason == "skip"]
    assert [d.type for d in skipped] == ["compaction/prune", "tool/result"]
    assert all(d.rule == "skip-n 1 (opened by compaction/prune)" for d in skipped)
    assert validate(report.events) == []


def test_skip_n_counts_over_unselected_turns_and_resets_at_turn_start() -> None:
    log = Log()
    log.turn(1)
    log.add("turn/start", {"turn": 2})
    log.add("my/skip3")
    log.add("x/a")
    log.add("turn/end", {"turn": 2, "reason": {"kind": "completed"}})
    log.add("x/b")  # third after the opener, still in turn 2's cursor
    log.add("turn/start", {"turn": 3})
    log.add("x/c")
    log.add("turn/end", {"turn": 3, "reason": {"kind": "completed"}})
    rules = custom(my_skip3=Cell((SkipN(3),)))
    assert types(reindex(log.events, "2..3", rules)) == [
        "turn/start",
        "turn/start",
        "x/c",
        "turn/end",
    ]
    out = reindex(log.events, "..", rules)
    assert "x/a" not in types(out) and "x/b" not in types(out)
    assert types(out)[-3:] == ["turn/start", "x/c", "turn/end"]
    # the turn/end of turn 2 was swallowed: a countdown runs through turn/end, not turn/start
    assert [e["data"]["turn"] for e in out if e["type"] == "turn/end"] == [1, 3]


def test_overlapping_skip_runs_take_the_longer() -> None:
    log = Log()
    log.add("turn/start", {"turn": 1})
    log.add("my/skip3")
    log.add("my/skip1")
    for name in ("x/a", "x/b", "x/c"):
        log.add(name)
    log.add("turn/end", {"turn": 1, "reason": {"kind": "completed"}})
    rules = custom(my_skip3=Cell((SkipN(3),)), my_skip1=Cell((SkipN(1),)))
    # skip3 covers itself..x/b; skip1 (inside) would stop at x/a: the longer run wins
    assert types(reindex(log.events, "..", rules)) == ["turn/start", "x/c", "turn/end"]
    zero = custom(my_skip3=Cell((SkipN(0),)))
    assert "x/a" in types(reindex(log.events, "..", zero))
    assert "my/skip3" not in types(reindex(log.events, "..", zero))


def test_skip_till_drops_a_whole_compaction_block() -> None:
    events = load_dsh(next(p for p in sample_files("dsh") if p.name == "compaction-recovery.jsonl"))
    report = reindex_report(events, "..", DSH_REFERENCE_RULES)
    assert [d.type for d in report.dropped] == [
        "compaction/start",
        "compaction/summary",
        "user/message",
        "compaction/end",
    ]
    assert {d.rule for d in report.dropped} == {
        "skip-till compaction/end (opened by compaction/start)"
    }
    assert len(report.events) == len(events) - 4
    assert validate(report.events) == []


def test_a_compaction_block_whose_shadowed_span_is_kept_stays_by_default() -> None:
    """The child of everything shows the checkpoint, as the parent does (the reference drops
    the block, so its child shows the original prompt again)."""
    events = load_dsh(next(p for p in sample_files("dsh") if p.name == "compaction-recovery.jsonl"))
    report = reindex_report(events, "..")
    assert report.dropped == [] and report.events == events
    assert DSH_RULES.rules_for("seq", "compaction/start")[-1] == SkipTill("compaction/end", True)
    assert DSH_REFERENCE_RULES.rules_for("seq", "compaction/start")[-1] == SkipTill(
        "compaction/end"
    )


def test_a_compaction_block_is_dropped_when_part_of_what_it_shadows_is() -> None:
    log = Log()
    first = log.turn(1)
    log.add("turn/start", {"turn": 2})
    log.add("compaction/start", {"turn": 2})
    log.add(
        "compaction/summary",
        {
            "shadowedSeqs": [first["user"], first["assistant"]],
            "shadowedRange": {"start": first["user"], "end": first["assistant"]},
        },
    )
    checkpoint = log.add(
        "user/message",
        {"role": "user", "content": [{"type": "text", "text": "checkpoint"}]},
        sourceEventSeqs=[first["user"], first["assistant"]],
        surfaceOp={"op": "replace", "start": first["user"], "end": first["assistant"]},
    )
    log.add("compaction/end", {"turn": 2})
    log.add("turn/end", {"turn": 2, "reason": {"kind": "completed"}})
    both = reindex_report(log.events, "..")
    assert both.dropped == [] and checkpoint in both.seqs
    alone = reindex_report(log.events, "2")
    assert [d.type for d in alone.cascade] == [
        "compaction/start",
        "compaction/summary",
        "user/message",
        "compaction/end",
    ]
    assert validate(alone.events) == []


def test_skip_till_blocks_nest_and_only_the_top_closer_pops() -> None:
    log = Log()
    log.add("turn/start", {"turn": 1})
    log.add("blk/open")
    log.add("blk/open")
    log.add("x/in")
    log.add("other/close")  # not the top of the stack: dropped, does not pop
    log.add("blk/close")
    log.add("x/still-in")
    log.add("blk/close")
    log.add("x/after")
    log.add("turn/end", {"turn": 1, "reason": {"kind": "completed"}})
    rules = custom(blk_open=Cell((SkipTill("blk/close"),)))
    assert types(reindex(log.events, "..", rules)) == ["turn/start", "x/after", "turn/end"]


def test_an_unclosed_block_swallows_the_rest_of_its_turn_only() -> None:
    log = Log()
    log.turn(1)
    log.add("turn/start", {"turn": 2})
    log.add("compaction/start", {"turn": 2})
    log.add("x/lost")
    log.add("turn/end", {"turn": 2, "reason": {"kind": "completed"}})
    log.turn(3)
    report = reindex_report(log.events, "..")
    assert types(report.events).count("turn/end") == 2
    assert [e["data"]["turn"] for e in report.events if e["type"] == "turn/start"] == [1, 2, 3]
    assert [d.type for d in report.dropped] == ["compaction/start", "x/lost", "turn/end"]


def test_a_closer_inside_a_skip_n_run_does_not_pop() -> None:
    log = Log()
    log.add("turn/start", {"turn": 1})
    log.add("blk/open")
    log.add("my/skip1")
    log.add("blk/close")  # eaten by skip-n: the block stays open
    log.add("x/in")
    log.add("blk/close")
    log.add("x/after")
    log.add("turn/end", {"turn": 1, "reason": {"kind": "completed"}})
    rules = custom(blk_open=Cell((SkipTill("blk/close"),)), my_skip1=Cell((SkipN(1),)))
    assert types(reindex(log.events, "..", rules)) == ["turn/start", "x/after", "turn/end"]


# --- override versus extend, and the gap quirk ---------------------------------------------------


def test_override_replaces_the_wildcard_rules() -> None:
    log = Log()
    log.turn(1)
    log.turn(2)
    log.add("plugin/note", {"turn": 1})
    extend = DSH_RULES.with_cells(turn={"plugin/note": Cell(())})
    assert "plugin/note" not in types(reindex(log.events, "2", extend))
    override = DSH_RULES.with_cells(turn={"plugin/note": Cell((), override=True)})
    out = reindex(log.events, "2", override)
    assert out[-1]["type"] == "plugin/note"
    assert out[-1]["data"] == {"turn": 1}  # no turn rule any more: left alone
    # in the seq table: a tool/result cell overriding the wildcard without its array rule
    two = Log()
    two.turn(1, tool=True)
    two.events[5]["sourceEventSeqs"] = [999]
    assert "tool/result" not in types(reindex(two.events, ".."))
    bare = DSH_RULES.with_cells(seq={"tool/result": Cell((), override=True)})
    result = next(e for e in reindex(two.events, "..", bare) if e["type"] == "tool/result")
    assert result["sourceEventSeqs"] == [999]
    assert result["seq"] == 5


def test_override_without_a_seq_rule_gap_quirk_and_fix() -> None:
    events = [
        {"type": "permission/preset", "seq": 0, "data": {}},
        {"type": "turn/start", "seq": 1, "data": {"turn": 1}},
        {"type": "custom/x", "seq": 5, "data": {}},
        {"type": "turn/end", "seq": 6, "data": {"turn": 1}},
    ]
    cell = {"custom/x": Cell((), override=True)}
    assert seqs(reindex(events, "..", DSH_REFERENCE_RULES.with_cells(seq=cell))) == [0, 1, 5, 3]
    assert seqs(reindex(events, "..", DSH_RULES.with_cells(seq=cell))) == [0, 1, 2, 3]


# --- cascade and soft references ---------------------------------------------------------------


def test_the_cascade_runs_through_removed_seqs() -> None:
    log = Log()
    one = log.turn(1)
    log.add("turn/start", {"turn": 2})
    a = log.add("my/ref", {"to": one["user"]})
    b = log.add("my/ref", {"to": a})
    log.add("my/ref", {"to": b})
    log.add("my/ref", {"to": 1000})  # a later (here: missing) seq is always dead
    log.add("turn/end", {"turn": 2, "reason": {"kind": "completed"}})
    rules = custom(my_ref=Cell((ValueRule("data.to"),)))
    report = reindex_report(log.events, "2", rules)
    assert types(report.events) == ["turn/start", "turn/end"]
    assert [d.detail for d in report.cascade] == [
        f"data.to {one['user']} was removed",
        f"data.to {a} was removed",
        f"data.to {b} was removed",
        "data.to 1000 was removed",
    ]
    kept_all = reindex(log.events, "..", rules)
    assert types(kept_all).count("my/ref") == 3


def test_a_forward_reference_is_dead() -> None:
    log = Log()
    log.add("turn/start", {"turn": 1})
    log.add("my/ref", {"to": 2})
    log.add("x/target")
    log.add("turn/end", {"turn": 1})
    rules = custom(my_ref=Cell((ValueRule("data.to"),)))
    assert types(reindex(log.events, "..", rules)) == ["turn/start", "x/target", "turn/end"]


def test_command_done_keeps_its_soft_reference_untouched() -> None:
    log = Log()
    log.turn(1)
    log.add("turn/start", {"turn": 2})
    log.add("command/run", {"commandId": "k"})
    start = log.add("compaction/start", {"turn": None})
    log.add("compaction/summary", {})
    log.add("compaction/end", {"turn": None})
    log.add("command/done", {"commandId": "k", "kind": "success", "sourceEventSeq": start + 1})
    log.add("turn/end", {"turn": 2})
    out = reindex(log.events, "..")
    done = next(e for e in out if e["type"] == "command/done")
    assert done["data"]["sourceEventSeq"] == start + 1  # not remapped, though its target is gone
    assert "command/run" in types(out)


def test_skip_state_resets_at_each_turn_start() -> None:
    log = Log()
    log.add("turn/start", {"turn": 1})
    log.add("compaction/start", {"turn": 1})  # never closed
    log.add("turn/end", {"turn": 1})
    log.add("turn/start", {"turn": 2})
    log.add("compaction/end", {"turn": 2})  # a stray closer in a fresh turn is kept
    log.add("turn/end", {"turn": 2})
    out = reindex(log.events, "..")
    assert types(out) == ["turn/start", "turn/start", "compaction/end", "turn/end"]


# --- purity, inputs, report --------------------------------------------------------------------


def test_inputs_are_untouched_and_outputs_fresh() -> None:
    log = Log()
    for number in range(1, 4):
        log.turn(number, tool=True)
    before = copy.deepcopy(log.events)
    out = reindex(log.events, "1, 3")
    assert log.events == before
    assert all(o is not e for o in out for e in log.events)
    renumbered = [e for e in out if e["type"] == "turn/start"][1]
    renumbered["data"]["turn"] = 99
    assert log.events == before


def test_selection_may_be_text_or_kinterval_and_bad_text_raises() -> None:
    log = Log()
    log.turn(1)
    log.turn(2)
    assert reindex(log.events, "2") == reindex(log.events, parse_interval("2"))
    assert reindex(log.events, KInterval.from_turns([2])) == reindex(log.events, "2")
    with pytest.raises(KIntervalError):
        reindex(log.events, "1..x")


def test_session_model_events_are_accepted() -> None:
    log = Log()
    log.turn(1)
    log.turn(2)
    objects = [Event.from_dict(e) for e in log.events]
    assert reindex(objects, "2") == reindex(log.events, "2")


def test_report_maps_and_drops() -> None:
    log = Log()
    log.add("permission/preset")
    one, two, three = log.turn(1), log.turn(2), log.turn(3)
    report = reindex_report(log.events, "1, 3")
    assert report.intervals == [(1, 1), (3, 3)]
    assert report.turns == {1: 1, 3: 2}
    assert report.seqs[one["user"]] == one["user"]
    assert report.seqs[three["user"]] == three["user"] - (two["end"] - two["start"] + 1)
    assert len(report.seqs) == len(report.events)
    assert len(report.events) + len(report.dropped) == len(log.events)
    assert {d.seq for d in report.dropped} == set(range(two["start"], two["end"] + 1))
    assert str(report.dropped[0]) == f"seq {two['start']} turn/start: turn 2 not selected"
    assert report.cascade == []
    assert str(report.selection) == "1, 3"


# --- tables --------------------------------------------------------------------------------


def test_default_tables_are_the_reference_tables() -> None:
    assert DEFAULT_RULES is DSH_RULES
    assert DSH_RULES.surface == {"user/message", "assistant/message", "tool/result"}
    assert DSH_RULES.rules_for("turn", "anything") == (ValueRule("data.turn"),)
    assert DSH_RULES.rules_for("seq", "command/done") == (ValueRule("seq"),)
    assert DSH_RULES.rules_for("seq", "compaction/prune") == (ValueRule("seq"), SkipN(1))
    assert DSH_RULES.rules_for("seq", "tool/result") == (
        ValueRule("seq"),
        ArrayRule("sourceEventSeqs"),
        IntervalRule("surfaceOp.start", "surfaceOp.end", surface=True),
    )
    assert not DSH_RULES.empty_array_drops and not DSH_RULES.override_keeps_seq
    assert DSH_REFERENCE_RULES.empty_array_drops and DSH_REFERENCE_RULES.override_keeps_seq
    assert rules_for_format("dsh") is DSH_RULES
    assert rules_for_format("claude") is LOWERED_RULES
    assert rules_for_format("messages") is LOWERED_RULES


def test_lowered_sessions_drop_results_whose_call_is_gone() -> None:
    events = [
        {"type": "turn/start", "seq": 0, "data": {"turn": 1}},
        {"type": "user/message", "seq": 1, "data": {"content": [{"type": "text", "text": "hi"}]}},
        {
            "type": "assistant/message",
            "seq": 2,
            "data": {"turn": 1, "message": {"content": [{"type": "tool-call", "id": "t"}]}},
        },
        {"type": "tool/call", "seq": 3, "data": {"turn": 1, "callId": "t"}},
        {"type": "turn/end", "seq": 4, "data": {"turn": 1}},
        {"type": "turn/start", "seq": 5, "data": {"turn": 2}},
        {
            "type": "tool/result",
            "seq": 6,
            "data": {
                "turn": 2,
                "message": {"content": [{"type": "tool-result", "toolCallId": "t"}]},
            },
            "sourceEventSeqs": [3],
        },
        {"type": "session/title", "seq": 7, "data": {"title": "x"}, "sourceEventSeqs": [1]},
        {"type": "claude/system", "seq": 8, "data": {}, "ignorable": True},
        {"type": "turn/end", "seq": 9, "data": {"turn": 2}},
    ]
    report = reindex_report(events, "2", LOWERED_RULES)
    assert types(report.events) == ["turn/start", "claude/system", "turn/end"]
    assert [d.rule for d in report.cascade] == ["array sourceEventSeqs", "array sourceEventSeqs"]
    assert validate(report.events, fold=False) == []
    assert reindex(events, "..", LOWERED_RULES) == events
    assert validate(events, fold=False) == []


def test_rules_file_adds_a_third_party_cell(tmp_path: Path) -> None:
    path = tmp_path / "rules.toml"
    path.write_text(
        """
surface = ["my/plugin/message"]

[options]
empty_array_drops = true

[seq."my/plugin/event"]
rules = [{ kind = "value", path = "data.parentSeq" }]

[seq."my/plugin/block"]
override = true
rules = [{ kind = "skip-till", till = "my/plugin/block-end" }]

[turn."my/plugin/event"]
rules = [{ kind = "array", path = "data.turns", keep = true }]
""",
        encoding="utf-8",
    )
    rules = load_rules(path)
    assert "my/plugin/message" in rules.surface
    assert rules.empty_array_drops
    assert rules.seq["my/plugin/block"].override
    assert rules.seq["tool/result"] == DSH_RULES.seq["tool/result"]
    log = Log()
    one, two = log.turn(1), log.turn(2)
    log.add("my/plugin/event", {"parentSeq": one["user"], "turns": [1, 2]})
    log.add("my/plugin/event", {"parentSeq": two["user"], "turns": [1]})
    out = reindex(log.events, "2", rules)
    kept = [e["data"] for e in out if e["type"] == "my/plugin/event"]
    assert kept == [{"parentSeq": 1, "turns": []}]
    out = reindex(log.events, "1..2", rules)
    assert [e["data"]["turns"] for e in out if e["type"] == "my/plugin/event"] == [[1, 2], [1]]
    out = reindex(
        log.events,
        "2",
        load_rules(path, base=LOWERED_RULES).with_cells(seq={"my/plugin/event": Cell(())}),
    )
    assert [e["data"]["turns"] for e in out if e["type"] == "my/plugin/event"] == [[1], []]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[seq."x"]\nrules = [{ kind = "nope" }]', "seq.'x'.rules[0]: unknown kind 'nope'"),
        ('[turn."x"]\nrules = [{ kind = "skip-n", n = 1 }]', "allowed in the seq table only"),
        (
            '[turn."x"]\nrules = [{ kind = "interval", start = "a", end = "b", surface = true }]',
            "seq-table intervals only",
        ),
        (
            '[seq."x"]\nrules = [{ kind = "value", path = "a", keep = true }]',
            "value takes no 'keep'",
        ),
        ('[seq."x"]\nrules = [{ kind = "skip-n", n = -1 }]', "n >= 0"),
        ('[seq."x"]\nrules = [{ kind = "array" }]', "needs a dot path string 'path'"),
        ('[seq."x"]\nrules = "value"', "rules must be a list"),
        ("[options]\nfast = true", "options: unknown key 'fast'"),
        ("colour = 1", "unknown key 'colour'"),
        ("surface = [1]", "surface must be a list"),
        ("[seq\n", "not valid TOML"),
    ],
)
def test_bad_rules_files_name_the_file_and_the_problem(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RulesError) as caught:
        load_rules(path)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_missing_rules_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(RulesError, match="cannot read"):
        load_rules(tmp_path / "absent.toml")


# --- real samples ------------------------------------------------------------------------------


DSH_SAMPLES = sample_files("dsh")


@pytest.mark.parametrize("path", DSH_SAMPLES, ids=lambda p: p.name)
def test_samples_clip_into_valid_idempotent_seeds(path: Path) -> None:
    events = load_dsh(path)
    before = json.dumps(events, sort_keys=True)
    turn_count = reindex_report(events, "..").turn_count
    has_compaction = any(e["type"].startswith("compaction/") for e in events)
    whole = reindex(events, "..")
    if not has_compaction:
        assert whole == events
    for selection in ("..", "1", "-1", "1..-1, not 2..-2", "2..", f"not {turn_count}, .."):
        report = reindex_report(events, selection)
        assert validate(report.events) == [], selection
        assert seqs(report.events) == list(range(len(report.events)))
        # a child is a fixed point of `..`; one without turns (empty selection) has no
        # completed turn, so clipping it again gives nothing, as for any such session
        assert reindex(report.events, "..") == (report.events if report.turns else [])
        starts = [e["data"]["turn"] for e in report.events if e["type"] == "turn/start"]
        assert starts == list(range(1, len(report.turns) + 1))
    assert json.dumps(events, sort_keys=True) == before


# --- properties over random well-formed sessions ---------------------------------------------


@st.composite
def sessions_and_selections(draw: st.DrawFn, **options: Any) -> tuple[list[dict[str, Any]], str]:
    events = draw(dsh_sessions(**options))
    turns = sum(e["type"] == "turn/start" for e in events)
    number = st.integers(-turns - 2, turns + 2)
    clause = st.one_of(
        number.map(str),
        st.tuples(number, number).map(lambda p: f"{p[0]}..{p[1]}"),
        number.map(lambda n: f"{n}.."),
        number.map(lambda n: f"..{n}"),
        st.just(".."),
    )
    clauses = draw(st.lists(st.tuples(st.booleans(), clause), min_size=1, max_size=4))
    return events, ", ".join(("not " if negated else "") + text for negated, text in clauses)


def references(event: dict[str, Any]) -> list[Any]:
    """Every seq an event cites under the default dsh rules."""
    out = list(event.get("sourceEventSeqs") or [])
    op = event.get("surfaceOp")
    if isinstance(op, dict):
        out += [op["start"], op["end"]]
    if event["type"] == "session/title":
        out += event["data"].get("messageSeqs", [])
    return out


@settings(max_examples=150, deadline=None)
@given(sessions_and_selections())
def test_clips_are_dense_valid_and_reference_only_survivors(
    case: tuple[list[dict[str, Any]], str],
) -> None:
    events, selection = case
    before = copy.deepcopy(events)
    report = reindex_report(events, selection)
    out = report.events
    assert events == before
    assert seqs(out) == list(range(len(out)))
    starts = [e["data"]["turn"] for e in out if e["type"] == "turn/start"]
    assert starts == list(range(1, len(starts) + 1))
    assert sorted(report.turns.values()) == list(range(1, len(report.turns) + 1))
    assert all(
        e["data"]["turn"] in report.turns.values()
        for e in out
        if isinstance(e["data"].get("turn"), int)
    )
    old_of = origins(out, report.seqs)
    for event in out:
        original = events[old_of[event["seq"]]]
        # every surviving reference is the image of an original reference to a survivor
        cited = [r for r in references(original) if r in report.seqs]
        assert all(r in old_of for r in references(event))
        if event["type"] != "command/done":
            assert set(references(event)) == {report.seqs[r] for r in cited}
    assert validate(out) == []
    assert len(out) + len(report.dropped) == len(events)
    assert reindex(out, "..") == (out if report.turns else [])


@settings(max_examples=100, deadline=None)
@given(dsh_sessions(min_turns=1, compaction=False, prunes=False, unfinished=False))
def test_selecting_everything_is_the_identity_without_dead_references(
    events: list[dict[str, Any]],
) -> None:
    assert validate(events) == []
    assert reindex(events, "..") == events


@settings(max_examples=100, deadline=None)
@given(sessions_and_selections(unfinished=False))
def test_generated_sessions_are_valid_and_the_reference_mode_differs_only_on_empty_citations(
    case: tuple[list[dict[str, Any]], str],
) -> None:
    events, selection = case
    assert validate(events) == []
    blocks_dropped = DSH_RULES.with_cells(
        seq={"compaction/start": Cell((SkipTill("compaction/end"),))}
    )
    fixed = reindex(events, selection, blocks_dropped)
    reference = reindex(events, selection, DSH_REFERENCE_RULES)
    if not any(e.get("sourceEventSeqs") == [] for e in events):
        assert fixed == reference
    else:
        assert len(reference) <= len(fixed)


def test_skips_in_unselected_turns_are_reported_as_unselected() -> None:
    log = Log()
    log.turn(1)
    log.add("turn/start", {"turn": 2})
    log.add("compaction/start", {"turn": 2})
    log.add("compaction/end", {"turn": 2})
    log.add("turn/end", {"turn": 2})
    report = reindex_report(log.events, "1", DSH_REFERENCE_RULES)
    assert {d.reason for d in report.dropped} == {"turn"}
    assert report.cascade == []
    selected = reindex_report(log.events, "2", DSH_REFERENCE_RULES)
    assert [(d.type, d.reason) for d in selected.cascade] == [
        ("compaction/start", "skip"),
        ("compaction/end", "skip"),
    ]


@settings(max_examples=100, deadline=None)
@given(sessions_and_selections(unfinished=False))
def test_a_compaction_block_stays_exactly_when_all_it_shadows_stays(
    case: tuple[list[dict[str, Any]], str],
) -> None:
    events, selection = case
    report = reindex_report(events, selection)
    kept_turns = set(report.turns)
    turn = 0
    for event in events:
        if event["type"] == "turn/start":
            turn = event["data"]["turn"]
        if event["type"] != "compaction/summary" or turn not in kept_turns:
            continue
        shadowed = event["data"]["shadowedSeqs"]
        span = event["data"]["shadowedRange"]
        # a range the generator wrote backwards (surface order is not seq order after a prune)
        # cannot be checked, so its block goes, as with the reference
        expected = all(s in report.seqs for s in shadowed) and span["start"] <= span["end"]
        assert (event["seq"] in report.seqs) == expected
        if event["seq"] in report.seqs:
            new = report.events[report.seqs[event["seq"]]]
            assert new["data"]["shadowedSeqs"] == [report.seqs[s] for s in shadowed]
            assert new["data"]["shadowedRange"] == {
                "start": report.seqs[shadowed[0]],
                "end": report.seqs[shadowed[-1]],
            }
    assert validate(report.events) == []
