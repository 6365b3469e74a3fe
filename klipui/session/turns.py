"""Turns from lowered events: the `turn/start` ... `turn/end` brackets and their figures."""

from __future__ import annotations

from collections.abc import Sequence

from klipui.session.blocks import event_texts, first_line, iter_block_texts, tool_result_errors
from klipui.session.model import Event, Turn
from klipui.session.tokens import estimate_tokens

_TEXT_EVENTS = frozenset({"user/message", "assistant/message", "tool/call", "tool/result"})


def build_turns(events: Sequence[Event]) -> list[Turn]:
    """The turns of `events`, numbered from 1 in log order.

    A turn runs from a `turn/start` to its `turn/end` (inclusive), or up to the next `turn/start`
    or the end of the log when it never ended. Events between turns belong to none. Figures:
    `prompt` is the first line of the turn's first `user/message`; `tool_calls` counts `tool/call`
    events; `tokens` estimates message texts, tool arguments and tool results (tool-call blocks
    inside assistant messages are not counted twice); `errors` counts tool-result blocks marked
    `isError`; `completed` is True when a `turn/end` with reason kind "completed" closes it.
    """
    turns: list[Turn] = []
    current: Turn | None = None
    prompt_found = False
    for index, event in enumerate(events):
        kind = event.type
        if kind == "turn/start":
            if current is not None:
                current.end = index
                turns.append(current)
            current = Turn(number=len(turns) + 1, start=index, end=index + 1, completed=False)
            prompt_found = False
            continue
        if current is None:
            continue
        if kind == "turn/end":
            reason = event.data.get("reason")
            current.completed = isinstance(reason, dict) and reason.get("kind") == "completed"
            current.end = index + 1
            turns.append(current)
            current = None
            continue
        if kind not in _TEXT_EVENTS:
            continue
        if kind == "tool/call":
            current.tool_calls += 1
        elif kind == "tool/result":
            current.errors += tool_result_errors(event)
        elif kind == "user/message" and not prompt_found:
            prompt_found = True
            current.prompt = first_line("\n".join(iter_block_texts(event.data.get("content"))))
        current.tokens += sum(estimate_tokens(text) for text in event_texts(event))
    if current is not None:
        current.end = len(events)
        turns.append(current)
    return turns
