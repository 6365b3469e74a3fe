"""The validator: surface fold rules (research/klip.md §6.4) and tool call/result pairing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from conftest import sample_files
from dsh_gen import dsh_sessions, load_dsh
from hypothesis import given, settings

from klipui.klip import validate
from klipui.klip.surface import RULES, fold_surface


def event(
    kind: str, seq: int, data: dict[str, Any] | None = None, **envelope: Any
) -> dict[str, Any]:
    return {"type": kind, "seq": seq, "data": data or {}, **envelope}


def user(seq: int, **envelope: Any) -> dict[str, Any]:
    envelope.setdefault("surfaceOp", "append")
    return event("user/message", seq, {"content": [{"type": "text", "text": "hi"}]}, **envelope)


def assistant(seq: int, calls: tuple[str, ...] = (), **envelope: Any) -> dict[str, Any]:
    envelope.setdefault("surfaceOp", "append")
    envelope.setdefault("sourceEventSeqs", [])
    content = [{"type": "tool-call", "id": c, "name": "bash", "arguments": "{}"} for c in calls]
    return event("assistant/message", seq, {"turn": 1, "message": {"content": content}}, **envelope)


def result(seq: int, call: str, cites: list[int], **envelope: Any) -> dict[str, Any]:
    envelope.setdefault("surfaceOp", "append")
    content = [{"type": "tool-result", "toolCallId": call, "content": []}]
    return event(
        "tool/result",
        seq,
        {"turn": 1, "message": {"content": content}},
        sourceEventSeqs=cites,
        **envelope,
    )


def valid_log() -> list[dict[str, Any]]:
    return [
        event("permission/preset", 0),
        event("turn/start", 1, {"turn": 1}),
        user(2),
        assistant(3, ("c1",)),
        event("tool/call", 4, {"turn": 1, "callId": "c1"}),
        result(5, "c1", [4]),
        event("turn/end", 6, {"turn": 1}),
    ]


def rules_broken(events: list[dict[str, Any]], **options: Any) -> list[tuple[int, str]]:
    return [(v.seq, v.rule) for v in validate(events, **options)]


def test_a_valid_log_has_no_violations() -> None:
    assert validate(valid_log()) == []
    assert fold_surface(valid_log()) == [2, 3, 5]


@pytest.mark.parametrize("path", sample_files("dsh"), ids=lambda p: p.name)
def test_real_sessions_validate(path: Path) -> None:
    assert validate(load_dsh(path)) == []


def test_the_compaction_sample_folds_its_checkpoint_over_the_prompt() -> None:
    events = load_dsh(next(p for p in sample_files("dsh") if p.name == "compaction-recovery.jsonl"))
    surface = fold_surface(events)
    checkpoint = next(e for e in events if isinstance(e.get("surfaceOp"), dict))
    assert checkpoint["seq"] in surface
    assert checkpoint["surfaceOp"]["start"] not in surface


def test_seq_position() -> None:
    log = valid_log()
    log[3]["seq"] = 9
    assert (9, "seq-position") in rules_broken(log)
    log = valid_log()
    log[0]["seq"] = "0"
    assert ("0", "seq-position") in rules_broken(log)


def test_turn_sequence() -> None:
    log = valid_log()
    log[1]["data"]["turn"] = 2
    assert rules_broken(log) == [(1, "turn-sequence")]


def test_surface_fields_on_other_types() -> None:
    log = valid_log()
    log[4]["sourceEventSeqs"] = [3]
    log[0]["surfaceOp"] = "append"
    assert rules_broken(log) == [(0, "surface-fields"), (4, "surface-fields")]
    assert (4, "surface-fields") not in rules_broken(log, fold=False)


def test_surface_op_missing_and_invalid() -> None:
    log = valid_log()
    del log[2]["surfaceOp"]
    assert rules_broken(log) == [(2, "surface-op-missing")]
    assert rules_broken(log, fold=False) == []
    log[2]["surfaceOp"] = "prepend"
    assert rules_broken(log) == [(2, "surface-op-invalid")]
    log[2]["surfaceOp"] = {"op": "swap", "start": 1, "end": 1}
    assert rules_broken(log) == [(2, "surface-op-invalid")]


@pytest.mark.parametrize(
    ("cites", "rule"),
    [
        ([4, 4], "source-seqs"),
        ([-1], "source-seqs"),
        (["4"], "source-seqs"),
        ([True], "source-seqs"),
        ("4", "source-seqs"),
        ([5], "source-seqs-earlier"),
        ([6], "source-seqs-earlier"),
        ([], "source-seqs-empty"),
    ],
)
def test_source_event_seqs_shape(cites: Any, rule: str) -> None:
    log = valid_log()
    log[5]["sourceEventSeqs"] = cites
    assert (5, rule) in rules_broken(log)


def test_an_assistant_message_may_cite_nothing() -> None:
    log = valid_log()
    assert log[3]["sourceEventSeqs"] == []
    assert validate(log) == []


def compaction_log() -> list[dict[str, Any]]:
    return [
        event("turn/start", 0, {"turn": 1}),
        user(1),
        assistant(2),
        user(3),
        assistant(4),
        user(5, sourceEventSeqs=[1, 2, 3], surfaceOp={"op": "replace", "start": 1, "end": 3}),
        event("turn/end", 6, {"turn": 1}),
    ]


def test_replace_folds_a_range() -> None:
    assert validate(compaction_log()) == []
    assert fold_surface(compaction_log()) == [5, 4]


def test_replace_range_must_be_on_the_surface_in_order() -> None:
    log = compaction_log()
    log[5]["surfaceOp"] = {"op": "replace", "start": 0, "end": 3}
    assert rules_broken(log) == [(5, "replace-range")]
    log[5]["surfaceOp"] = {"op": "replace", "start": 3, "end": 1}
    assert rules_broken(log) == [(5, "replace-range")]
    log[5]["surfaceOp"] = {"op": "replace", "start": 3, "end": 3}
    assert rules_broken(log) == []


def test_replace_must_cite_what_it_removes() -> None:
    log = compaction_log()
    log[5]["sourceEventSeqs"] = [1, 3]
    broken = validate(log)
    assert [(v.seq, v.rule) for v in broken] == [(5, "replace-sources")]
    assert "[2]" in broken[0].message


def test_a_tool_result_replace_swaps_one_result_of_the_same_call() -> None:
    log = valid_log()
    log.insert(6, result(6, "c1", [5], surfaceOp={"op": "replace", "start": 5, "end": 5}))
    log[-1]["seq"] = 7
    assert validate(log) == []
    assert fold_surface(log) == [2, 3, 6]
    log[6] = result(6, "other", [5], surfaceOp={"op": "replace", "start": 5, "end": 5})
    assert (6, "replace-tool-result") in rules_broken(log)
    log[6] = result(6, "c1", [2, 3, 5], surfaceOp={"op": "replace", "start": 2, "end": 5})
    assert (6, "replace-tool-result") in rules_broken(log)


def test_tool_calls_need_results_and_results_need_calls() -> None:
    log = valid_log()
    del log[5]
    log[5]["seq"] = 5
    assert rules_broken(log) == [(3, "tool-call-unanswered")]
    log = valid_log()
    log[3] = assistant(3)
    assert rules_broken(log) == [(5, "tool-result-orphan")]


def test_pairing_is_checked_on_the_folded_surface() -> None:
    log = valid_log()[:6]
    # a replace that removes the assistant's request strands its result
    log.append(user(6, sourceEventSeqs=[2, 3], surfaceOp={"op": "replace", "start": 2, "end": 3}))
    assert rules_broken(log) == [(5, "tool-result-orphan")]


def test_older_shape_tool_results_pair_by_call_id() -> None:
    log = valid_log()
    log[5]["data"] = {"turn": 1, "callId": "c1", "content": [{"type": "text", "text": "ok"}]}
    assert validate(log) == []
    log[5]["data"]["callId"] = "c2"
    assert sorted(rules_broken(log)) == [(3, "tool-call-unanswered"), (5, "tool-result-orphan")]


def test_every_rule_is_documented_and_messages_name_the_event() -> None:
    log = valid_log()
    log[5]["sourceEventSeqs"] = []
    violation = validate(log)[0]
    assert violation.rule in RULES
    assert str(violation).startswith("seq 5 tool/result: source-seqs-empty: ")
    assert violation.index == 5


@settings(max_examples=100, deadline=None)
@given(dsh_sessions(unfinished=False))
def test_generated_sessions_validate(events: list[dict[str, Any]]) -> None:
    assert validate(events) == []


@settings(max_examples=100, deadline=None)
@given(dsh_sessions(min_turns=1, compaction=False, unfinished=False))
def test_a_result_answering_the_wrong_call_is_caught(events: list[dict[str, Any]]) -> None:
    results = [e for e in events if e["type"] == "tool/result" and e["surfaceOp"] == "append"]
    if not results:
        return
    results[0]["data"]["message"]["content"][0]["toolCallId"] = "nobody"
    broken = {v.rule for v in validate(events)}
    assert broken & {"tool-result-orphan", "replace-tool-result"}
