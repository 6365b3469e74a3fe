"""How each turn of a session ended, as the clip engine sees it: which turns did not complete and
which are the unfinished tail a clip leaves out unless asked."""

from __future__ import annotations

from klipui.session.marks import TurnMark
from klipui.session.model import Session

LEFT_OPEN = "left open"
"""The ending of a turn after the session's last ended turn: never ended, out of a clip."""
OPEN = "open"
"""The ending of a turn that never ended while a later one did (a clip keeps it)."""


def turn_endings(session: Session) -> dict[int, str]:
    """How each turn that did not complete ended: its `turn/end` reason ("aborted",
    "interrupted", "error", "max-tokens", …), "open" when it never ended and a later turn did
    (a clip keeps it), "left open" when it and every turn after it never ended (a clip leaves
    them out unless asked)."""
    endings: dict[int, str] = {}
    events = session.events
    last_ended = 0
    for turn in session.turns:
        last = events[turn.end - 1] if turn.end > turn.start else None
        if last is not None and last.type == "turn/end":
            last_ended = turn.number
            if not turn.completed:
                reason = last.data.get("reason") if isinstance(last.data, dict) else None
                kind = reason.get("kind") if isinstance(reason, dict) else None
                endings[turn.number] = str(kind or "unknown")
        elif not turn.completed:
            endings[turn.number] = OPEN
    for number, how in endings.items():
        if how == OPEN and number > last_ended:
            endings[number] = LEFT_OPEN
    return endings


def left_open_turns(session: Session) -> list[int]:
    """The turns a clip leaves out unless asked: every turn after the last one that ended."""
    return [number for number, how in turn_endings(session).items() if how == LEFT_OPEN]


def ending_mark(how: str) -> TurnMark:
    """The mark of a turn that ended as `how` (a value of `turn_endings`)."""
    return TurnMark.UNFINISHED if how == LEFT_OPEN else TurnMark.ENDED


def ending_note(how: str) -> tuple[str, str]:
    """How a turn that did not complete ended (a short header line), and what a clip does with
    it (a sentence under it)."""
    if how == LEFT_OPEN:
        return (
            "… turn never ended",
            "Still running, or stopped mid-turn. A clip leaves it out unless you include it "
            "(u in the clip preview).",
        )
    if how == OPEN:
        return "⊘ turn never ended", "The next prompt came first. A clip keeps it as it is."
    return f"⊘ turn ended: {how}", "It did not complete. A clip keeps it as it is."
