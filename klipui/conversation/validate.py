"""Checks that a list of API messages is what the model APIs accept: alternation and tool pairs.

Both checks work on either shape and return `MessageProblem`s naming the message index; an
empty list means valid.

- Anthropic shape (no `tool` role, no `tool_calls`): roles alternate user / assistant starting
  with user; every `tool_use` of message i is answered by a `tool_result` in message i + 1, and
  every `tool_result` of message i answers a `tool_use` of message i - 1; ids are unique.
- OpenAI shape: a run of `tool` messages follows an assistant message with `tool_calls` and
  answers exactly its calls; apart from those runs (each counting as the user's side), user and
  assistant alternate; `system` messages only lead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from klipui.conversation.walk import Message, tool_result_ids, tool_use_ids


@dataclass(frozen=True, slots=True)
class MessageProblem:
    """Something an API would refuse, at message `index`."""

    index: int
    reason: str

    def __str__(self) -> str:
        return f"message {self.index}: {self.reason}"


def is_openai(messages: Sequence[Message]) -> bool:
    """True when the messages use the OpenAI shape (a `tool` role or `tool_calls`)."""
    return any(m.get("role") == "tool" or m.get("tool_calls") for m in messages)


def check_alternation(messages: Sequence[Message]) -> list[MessageProblem]:
    """Problems with the order of roles."""
    problems: list[MessageProblem] = []
    openai = is_openai(messages)
    side: str | None = None
    in_tool_run = False
    leading = True
    for index, message in enumerate(messages):
        role = message.get("role")
        if role in ("system", "developer"):
            if not (openai and leading):
                problems.append(MessageProblem(index, f"{role} message inside the conversation"))
            continue
        leading = False
        if role == "tool" and openai:
            if side != "assistant" and not in_tool_run:
                problems.append(
                    MessageProblem(index, "tool message not after an assistant message")
                )
            in_tool_run, side = True, "user"
            continue
        if role not in ("user", "assistant"):
            problems.append(MessageProblem(index, f"unknown role {role!r}"))
            continue
        if role == "user" and in_tool_run:
            in_tool_run = False
            continue
        in_tool_run = False
        if side is None and role != "user":
            problems.append(MessageProblem(index, "the first message is not from the user"))
        elif side == role:
            problems.append(MessageProblem(index, f"two {role} messages in a row"))
        side = role
    if not messages or all(m.get("role") in ("system", "developer") for m in messages):
        problems.append(MessageProblem(0, "no messages"))
    return problems


def check_tool_pairs(messages: Sequence[Message]) -> list[MessageProblem]:
    """Problems with tool calls and their results: unanswered calls, orphan or misplaced results,
    duplicate ids."""
    if is_openai(messages):
        return _openai_pairs(messages)
    problems: list[MessageProblem] = []
    seen: set[str] = set()
    for index, message in enumerate(messages):
        uses = tool_use_ids(message)
        for call_id in uses:
            if call_id in seen:
                problems.append(MessageProblem(index, f"duplicate tool_use id {call_id}"))
            seen.add(call_id)
        if uses and message.get("role") != "assistant":
            problems.append(MessageProblem(index, "tool_use outside an assistant message"))
        answered = tool_result_ids(messages[index + 1]) if index + 1 < len(messages) else []
        for call_id in uses:
            if call_id not in answered:
                problems.append(
                    MessageProblem(
                        index, f"tool_use {call_id} has no tool_result in the next message"
                    )
                )
        results = tool_result_ids(message)
        asked = tool_use_ids(messages[index - 1]) if index > 0 else []
        for call_id in results:
            if call_id not in asked:
                problems.append(
                    MessageProblem(
                        index, f"tool_result {call_id} answers no tool_use of the previous message"
                    )
                )
        if len(set(results)) != len(results):
            problems.append(MessageProblem(index, "a tool_use answered twice"))
    return problems


def _openai_pairs(messages: Sequence[Message]) -> list[MessageProblem]:
    problems: list[MessageProblem] = []
    seen: set[str] = set()
    pending: list[str] = []
    pending_at = -1
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            call_id = str(message.get("tool_call_id"))
            if call_id in pending:
                pending.remove(call_id)
            else:
                problems.append(
                    MessageProblem(index, f"tool message {call_id} answers no pending tool call")
                )
            continue
        for call_id in pending:
            problems.append(
                MessageProblem(pending_at, f"tool call {call_id} has no tool message after it")
            )
        pending = []
        if role == "assistant":
            pending = tool_use_ids(message)
            pending_at = index
            for call_id in pending:
                if call_id in seen:
                    problems.append(MessageProblem(index, f"duplicate tool call id {call_id}"))
                seen.add(call_id)
    for call_id in pending:
        problems.append(
            MessageProblem(pending_at, f"tool call {call_id} has no tool message after it")
        )
    return problems


def check_messages(messages: Sequence[Message]) -> list[MessageProblem]:
    """Every problem: alternation, then tool pairs."""
    return check_alternation(messages) + check_tool_pairs(messages)
