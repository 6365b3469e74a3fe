"""What is notable about each turn, as data: a failed tool call, a compaction, sub-agent work,
a rewound branch, an ending short of completion. Viewers pick their own glyphs."""

from __future__ import annotations

from enum import StrEnum

from klipui.session.model import Session


class TurnMark(StrEnum):
    """Something a turn holds or how it ended (declared in the order a viewer shows them)."""

    ERROR = "error"
    """A tool call of the turn failed."""
    COMPACTION = "compaction"
    """The context was summarised in the turn."""
    SIDECHAIN = "sidechain"
    """Sub-agent work lowered into the turn."""
    BRANCH = "branch"
    """A rewound (abandoned) branch kept in the file."""
    ENDED = "ended"
    """The turn ended without completing (aborted, interrupted, an error, max tokens), or never
    ended while a later turn did."""
    UNFINISHED = "unfinished"
    """The turn and every turn after it never ended (still running, or stopped)."""


NAMES: dict[TurnMark, str] = {
    TurnMark.ERROR: "failed tool call",
    TurnMark.COMPACTION: "compaction",
    TurnMark.SIDECHAIN: "sidechain",
    TurnMark.BRANCH: "rewound branch",
    TurnMark.ENDED: "turn ended without completing",
    TurnMark.UNFINISHED: "unfinished turn",
}
"""What each mark is called in a sentence."""


def turn_marks(session: Session) -> dict[int, frozenset[TurnMark]]:
    """The marks a turn's events give it (failed calls, compaction, sidechain, branch), by turn
    number; turns without any are left out. Endings come from the clip engine's
    `turn_endings` (see `klipui.klip.ending_mark`)."""
    marks: dict[int, frozenset[TurnMark]] = {}
    events = session.events
    for turn in session.turns:
        found: set[TurnMark] = {TurnMark.ERROR} if turn.errors else set()
        for index in range(turn.start, turn.end):
            event = events[index]
            if event.type == "compaction/summary":
                found.add(TurnMark.COMPACTION)
            elif event.type.endswith("/branch"):
                found.add(TurnMark.BRANCH)
            elif isinstance(event.data, dict) and "sidechain" in event.data:
                found.add(TurnMark.SIDECHAIN)
        if found:
            marks[turn.number] = frozenset(found)
    return marks
