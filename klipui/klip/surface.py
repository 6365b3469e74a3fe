"""Validity checks of an event list: the dsh surface fold (research/klip.md §6.4) and tool pairs.

The surface is the ordered list of seqs the model sees as history. Only the surface types carry
`surfaceOp` (`"append"`, or `{op: "replace", start, end}`) and `sourceEventSeqs`. `validate`
replays the fold and reports every event that breaks a rule, then checks on the folded surface
that every tool call an assistant message makes is answered by a later tool result and that
every tool result answers an earlier call.

Rule names (`Violation.rule`):

- `seq-position`: seq equals the event's position in the list.
- `turn-sequence`: `turn/start` numbers run 1, 2, 3, ...
- `surface-fields`: a non-surface type carries `surfaceOp` or `sourceEventSeqs`.
- `surface-op-missing`: a surface type carries no `surfaceOp` (fold mode only).
- `surface-op-invalid`: `surfaceOp` is neither "append" nor a replace object.
- `source-seqs`: `sourceEventSeqs` is not a list of unique non-negative integers.
- `source-seqs-earlier`: a `sourceEventSeqs` entry is not earlier than the event.
- `source-seqs-empty`: `sourceEventSeqs` is empty on a type other than `assistant/message`.
- `replace-range`: replace ends are not both on the surface, in order.
- `replace-sources`: `sourceEventSeqs` misses an entry the replace removes.
- `replace-tool-result`: a `tool/result` replace does not swap exactly one `tool/result` of
  the same call.
- `tool-call-unanswered`: an assistant tool call with no later tool result on the surface.
- `tool-result-orphan`: a tool result with no earlier tool call on the surface.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from klipui.klip.rules import SURFACE_TYPES

RULES: dict[str, str] = {
    "seq-position": "seq must equal the event's position",
    "turn-sequence": "turn/start numbers must run 1, 2, 3, ...",
    "surface-fields": "only surface types may carry surfaceOp or sourceEventSeqs",
    "surface-op-missing": "a surface event must carry a surfaceOp",
    "surface-op-invalid": 'surfaceOp must be "append" or {op: "replace", start, end}',
    "source-seqs": "sourceEventSeqs must be a list of unique non-negative integers",
    "source-seqs-earlier": "sourceEventSeqs must cite earlier events only",
    "source-seqs-empty": "sourceEventSeqs may be empty on assistant/message only",
    "replace-range": "a replace's start and end must be on the surface, start first",
    "replace-sources": "a replace must cite every surface entry it removes",
    "replace-tool-result": "a tool/result replace must swap one tool/result of the same call",
    "tool-call-unanswered": "every tool call needs a later tool result",
    "tool-result-orphan": "every tool result needs an earlier tool call",
}
"""Every rule `validate` checks, by name, with a one-line statement."""


@dataclass(frozen=True, slots=True)
class Violation:
    """One event breaking one rule."""

    index: int
    """Position of the event in the validated list."""
    seq: Any
    type: str
    rule: str
    """A key of `RULES`."""
    message: str

    def __str__(self) -> str:
        return f"seq {self.seq} {self.type}: {self.rule}: {self.message}"


def validate(
    events: Iterable[Mapping[str, Any]],
    *,
    fold: bool = True,
    surface_types: frozenset[str] = SURFACE_TYPES,
) -> list[Violation]:
    """Every violation of the fold and tool-pairing rules, in log order of the offending event.

    With `fold=False` (formats lowered from other agents, which carry no `surfaceOp`) a surface
    event without `surfaceOp` counts as an append and non-surface events may cite others.
    """
    log = [e if isinstance(e, Mapping) else e.to_dict() for e in events]
    out: list[Violation] = []
    surface: list[Any] = []
    owner: dict[Any, int] = {}
    """Surface seq → index of its event in `log`."""
    last_turn = 0
    for index, event in enumerate(log):
        seq, etype = event.get("seq"), str(event.get("type", ""))

        def report(rule: str, message: str, index: int = index, seq: Any = seq) -> None:
            out.append(Violation(index, seq, log[index].get("type", ""), rule, message))

        if seq != index or type(seq) is not int:
            report("seq-position", f"seq {seq!r} at position {index}")
        if etype == "turn/start":
            data = event.get("data")
            number = data.get("turn") if isinstance(data, Mapping) else None
            if number != last_turn + 1:
                report("turn-sequence", f"turn {number!r} follows turn {last_turn}")
            if isinstance(number, int):
                last_turn = number
        on_surface = etype in surface_types
        op = event.get("surfaceOp")
        sources = event.get("sourceEventSeqs")
        if not on_surface:
            if fold and (op is not None or sources is not None):
                report("surface-fields", f"{etype} is not a surface type")
            if fold or sources is None:
                continue
        if sources is not None:
            _check_sources(sources, seq, etype, report)
        if not on_surface:
            continue
        if op is None:
            if fold:
                report("surface-op-missing", "no surfaceOp")
                continue
            op = "append"
        if op == "append":
            surface.append(seq)
            owner[seq] = index
        elif isinstance(op, Mapping) and op.get("op") == "replace":
            _replace(log, index, op, sources, surface, owner, report)
        else:
            report("surface-op-invalid", f"surfaceOp {op!r}")
    out.extend(_tool_pairs(log, surface, owner))
    out.sort(key=lambda v: v.index)
    return out


def fold_surface(events: Iterable[Mapping[str, Any]]) -> list[Any]:
    """The seqs on the folded surface, ignoring violations (an invalid replace is skipped)."""
    surface: list[Any] = []
    for event in events:
        op = event.get("surfaceOp")
        if op == "append":
            surface.append(event.get("seq"))
        elif isinstance(op, Mapping) and op.get("op") == "replace":
            start, end = op.get("start"), op.get("end")
            if start in surface and end in surface:
                first, last = surface.index(start), surface.index(end)
                if first <= last:
                    surface[first : last + 1] = [event.get("seq")]
    return surface


def _check_sources(sources: Any, seq: Any, etype: str, report: Any) -> None:
    if not isinstance(sources, list) or not all(type(s) is int and s >= 0 for s in sources):
        report("source-seqs", f"sourceEventSeqs {sources!r}")
        return
    if len(set(sources)) != len(sources):
        report("source-seqs", f"sourceEventSeqs {sources!r} repeats an entry")
    later = [s for s in sources if not (type(seq) is int and s < seq)]
    if later:
        report("source-seqs-earlier", f"cites {later} (not before seq {seq})")
    if not sources and etype != "assistant/message":
        report("source-seqs-empty", f"{etype} cites nothing")


def _replace(
    log: list[Mapping[str, Any]],
    index: int,
    op: Mapping[str, Any],
    sources: Any,
    surface: list[Any],
    owner: dict[Any, int],
    report: Any,
) -> None:
    event = log[index]
    start, end = op.get("start"), op.get("end")
    if type(start) is not int or type(end) is not int or start not in owner or end not in owner:
        missing = [x for x in (start, end) if type(x) is not int or x not in owner]
        report("replace-range", f"replace {start}..{end}: {missing} not on the surface")
        return
    first, last = surface.index(start), surface.index(end)
    if first > last:
        report("replace-range", f"replace {start}..{end}: end comes before start")
        return
    removed = surface[first : last + 1]
    cited = {s for s in sources if type(s) is int} if isinstance(sources, list) else set()
    missing = [s for s in removed if s not in cited]
    if missing:
        report("replace-sources", f"replace {start}..{end} removes {missing} without citing")
    if event.get("type") == "tool/result":
        old = [log[owner[s]] for s in removed]
        if len(old) != 1 or old[0].get("type") != "tool/result":
            report("replace-tool-result", f"replaces {removed}, not one tool/result")
        elif _result_ids(old[0]) != _result_ids(event):
            report("replace-tool-result", "the replacement answers a different tool call")
    for seq in removed:
        owner.pop(seq, None)
    surface[first : last + 1] = [event.get("seq")]
    owner[event.get("seq")] = index


def _content(event: Mapping[str, Any]) -> list[Any]:
    data = event.get("data")
    if not isinstance(data, Mapping):
        return []
    message = data.get("message", data)
    content = message.get("content") if isinstance(message, Mapping) else None
    return content if isinstance(content, list) else []


def _call_ids(event: Mapping[str, Any]) -> list[Any]:
    return [
        _id_key(b.get("id"))
        for b in _content(event)
        if isinstance(b, Mapping) and b.get("type") == "tool-call"
    ]


def _id_key(value: Any) -> Any:
    """A call id usable as a key: a string or number as it is, anything else (a list or object
    from a damaged file) by its text, so that it pairs with nothing but never breaks a check."""
    return value if isinstance(value, str | int | float | None) else repr(value)


def _result_ids(event: Mapping[str, Any]) -> list[Any]:
    """Calls answered by `event`: its tool-result blocks, or the `callId` of an older-shape
    `tool/result` whose data is the result itself (`{callId, content, isError}`)."""
    ids = [
        _id_key(b.get("toolCallId"))
        for b in _content(event)
        if isinstance(b, Mapping) and b.get("type") == "tool-result"
    ]
    if not ids and event.get("type") == "tool/result":
        data = event.get("data")
        if isinstance(data, Mapping) and "callId" in data:
            ids.append(_id_key(data["callId"]))
    return ids


def _tool_pairs(
    log: list[Mapping[str, Any]], surface: list[Any], owner: dict[Any, int]
) -> list[Violation]:
    out: list[Violation] = []
    pending: dict[Any, int] = {}
    for seq in surface:
        index = owner[seq]
        event = log[index]
        etype = str(event.get("type", ""))
        for call in _result_ids(event):
            if call in pending:
                del pending[call]
            else:
                out.append(Violation(index, seq, etype, "tool-result-orphan", f"answers {call!r}"))
        if etype == "assistant/message":
            for call in _call_ids(event):
                pending[call] = index
    for call, index in pending.items():
        event = log[index]
        out.append(
            Violation(
                index,
                event.get("seq"),
                str(event.get("type", "")),
                "tool-call-unanswered",
                f"tool call {call!r} has no result",
            )
        )
    return out
