"""Turn marks as data (`klipui.session.marks`) and turn endings (`klipui.klip.ending_mark`,
`ending_note`), on the real sample sessions and the sessions the agents wrote."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import AGENT_WRITTEN, SAMPLES, sample_files

from klipui.conversation import ItemKind, turn_items
from klipui.klip import LEFT_OPEN, ending_mark, ending_note, turn_endings
from klipui.session import open_session
from klipui.session.marks import TurnMark, turn_marks

SESSIONS = [*sample_files(), *sorted(AGENT_WRITTEN.glob("*.jsonl"))]


def _marked(path: Path, mark: TurnMark) -> set[int]:
    return {n for n, marks in turn_marks(open_session(path)).items() if mark in marks}


@pytest.mark.parametrize("path", SESSIONS, ids=lambda p: p.name)
def test_marks_agree_with_what_the_turn_shows(path: Path) -> None:
    session = open_session(path)
    marks = turn_marks(session)
    for turn in session.turns:
        items = turn_items(session, turn.start, turn.end)
        kinds = {item.kind for item in items}
        own = marks.get(turn.number, frozenset())
        assert (TurnMark.ERROR in own) == (ItemKind.ERROR in kinds) == (turn.errors > 0)
        assert (TurnMark.COMPACTION in own) == (ItemKind.COMPACTION in kinds)
        assert (TurnMark.BRANCH in own) == (ItemKind.BRANCH in kinds)
        if any(item.sidechain for item in items):
            assert TurnMark.SIDECHAIN in own
        assert TurnMark.ENDED not in own and TurnMark.UNFINISHED not in own
    assert all(marks.values())  # a turn without marks is left out


def test_the_compaction_the_agent_made_marks_its_turn_only() -> None:
    assert _marked(AGENT_WRITTEN / "claude_10turns_compact6.jsonl", TurnMark.COMPACTION) == {6}


def test_rewound_branch_sidechain_and_compaction_in_the_samples() -> None:
    claude = SAMPLES / "claude-code"
    assert _marked(claude / "ccl_dag_compact_after_rewind.jsonl", TurnMark.BRANCH) == {1}
    assert _marked(claude / "ccl_dag_compact_after_rewind.jsonl", TurnMark.COMPACTION) == {4}
    assert _marked(claude / "ccv_5c0375b4_task_sidechain.jsonl", TurnMark.SIDECHAIN) == {1}
    assert _marked(SAMPLES / "dsh" / "compaction-recovery.jsonl", TurnMark.COMPACTION) == {1}


def test_endings_become_marks_and_notes() -> None:
    interrupted = turn_endings(open_session(AGENT_WRITTEN / "claude_interrupted_turn3.jsonl"))
    assert interrupted == {3: "interrupted"}
    assert ending_mark(interrupted[3]) is TurnMark.ENDED
    edges = turn_endings(open_session(SAMPLES / "claude-code" / "ccl_edge_cases.jsonl"))
    assert edges[4] == LEFT_OPEN and ending_mark(edges[4]) is TurnMark.UNFINISHED
    header, sentence = ending_note(LEFT_OPEN)
    assert header.startswith("…") and "leaves it out" in sentence
    header, sentence = ending_note("open")
    assert "never ended" in header and "keeps it" in sentence
    assert ending_note("max-tokens")[0] == "⊘ turn ended: max-tokens"
