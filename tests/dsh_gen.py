"""Well-formed random DeepSeek Harness event logs for property tests, and sample loading.

`dsh_sessions()` is a hypothesis strategy of dsh SessionEvent dict lists shaped like real logs
(research/klip.md §6): header events (settings, a slash command), turns of steps with a user
prompt, streamed chunks, an assistant message citing them, tool call/result pairs, session
titles citing prompts, compaction blocks replacing a surface prefix, prunes replacing one tool
result, commands between turns, and optionally an unfinished last turn. Every generated log
folds into a valid surface with paired tools (when the last turn is finished).

`load_dsh(path)` reads a sample file into event dicts through `klipui.session`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from klipui.session import open_session


def load_dsh(path: Path) -> list[dict[str, Any]]:
    """The events of a dsh sample as dicts (packed chunk rows expanded by the dsh reader)."""
    return [event.to_dict() for event in open_session(path).events]


@dataclass
class _Log:
    events: list[dict[str, Any]] = field(default_factory=list)
    surface: list[tuple[int, str, str | None]] = field(default_factory=list)
    """(seq, type, call id of a tool result) of each entry of the current surface."""
    unit_ends: set[int] = field(default_factory=set)
    """Surface seqs after which no tool call is waiting for its result."""
    prompts: list[int] = field(default_factory=list)
    time: int = 1_790_000_000_000

    def add(self, kind: str, data: dict[str, Any], **envelope: Any) -> int:
        seq = len(self.events)
        self.time += 7
        self.events.append({"type": kind, "seq": seq, "time": self.time, "data": data, **envelope})
        return seq

    def append_surface(self, seq: int, kind: str, call: str | None = None) -> None:
        self.surface.append((seq, kind, call))


def _message(role: str, text: str, ident: str) -> dict[str, Any]:
    return {"id": ident, "role": role, "content": [{"type": "text", "text": text}]}


def _result_message(call: str, text: str, ident: str) -> dict[str, Any]:
    return {
        "id": ident,
        "role": "user",
        "content": [
            {
                "type": "tool-result",
                "toolCallId": call,
                "content": [{"type": "text", "text": text}],
                "isError": False,
            }
        ],
        "source": {"kind": "tool", "callId": call},
    }


@st.composite
def dsh_sessions(
    draw: st.DrawFn,
    *,
    min_turns: int = 0,
    max_turns: int = 6,
    compaction: bool = True,
    prunes: bool = True,
    unfinished: bool = True,
    empty_citations: bool = True,
    commands: bool = True,
) -> list[dict[str, Any]]:
    """A random well-formed dsh event log (see the module docstring)."""
    log = _Log()
    for kind, data in (
        ("permission/preset", {"preset": "workspace-write"}),
        ("sandbox/mode", {"mode": "workspace-write"}),
        ("approval/policy", {"policy": "on-request"}),
    ):
        if draw(st.booleans()):
            log.add(kind, data)
    if commands and draw(st.booleans()):
        _command(draw, log, "goal")
    turns = draw(st.integers(min_turns, max_turns))
    last_unfinished = unfinished and turns > 0 and draw(st.booleans())
    ids = iter(range(10**6))
    for turn in range(1, turns + 1):
        log.add("turn/start", {"turn": turn})
        if draw(st.booleans()):
            log.add("agent/inbox/spliced", {"target": "next-turn", "start": 0, "inserted": []})
        steps = draw(st.integers(1, 3))
        for step in range(1, steps + 1):
            log.add("step/start", {"turn": turn, "step": step})
            if step == 1:
                seq = log.add(
                    "user/message",
                    {
                        **_message("user", f"prompt {turn}", f"u{next(ids)}"),
                        "source": {"kind": "user"},
                    },
                    surfaceOp="append",
                )
                log.append_surface(seq, "user/message")
                log.unit_ends.add(seq)
                log.prompts.append(seq)
                if draw(st.integers(0, 3)) == 0:
                    cited = sorted(
                        set(draw(st.lists(st.sampled_from(log.prompts), min_size=1, max_size=2)))
                    )
                    log.add(
                        "session/title",
                        {
                            "title": f"title {turn}",
                            "messageSeqs": cited,
                            "source": {"kind": "fallback"},
                        },
                    )
            if prunes and draw(st.integers(0, 4)) == 0:
                _prune(draw, log, ids)
            if compaction and draw(st.integers(0, 5)) == 0:
                _compact(draw, log, turn, ids)
            if draw(st.booleans()):
                log.add("request/header", {"header": {"config": {"model": "m"}}})
            _assistant(draw, log, turn, step, ids, empty_citations)
            log.add("step/end", {"turn": turn, "step": step})
        if turn == turns and last_unfinished:
            break
        log.add(
            "turn/end",
            {
                "turn": turn,
                "reason": {"kind": draw(st.sampled_from(["completed", "completed", "aborted"]))},
            },
        )
        if commands and draw(st.integers(0, 3)) == 0:
            _command(draw, log, "permission")
    return log.events


def _command(draw: st.DrawFn, log: _Log, name: str) -> None:
    command_id = f"cmd-{len(log.events)}"
    log.add(
        "command/run",
        {"commandId": command_id, "name": name, "args": " x", "source": {"kind": "user"}},
    )
    domain = log.add("goal/change", {"goal": "x"}) if name == "goal" else None
    done: dict[str, Any] = {"commandId": command_id, "kind": "success", "text": "ok"}
    if domain is not None and draw(st.booleans()):
        done["sourceEventSeq"] = domain
    log.add("command/done", done)


def _assistant(
    draw: st.DrawFn, log: _Log, turn: int, step: int, ids: Any, empty_citations: bool
) -> None:
    chunks = [
        log.add(
            "assistant/chunk",
            {"turn": turn, "step": step, "chunk": {"type": "text-delta", "index": 0, "text": "x"}},
        )
        for _ in range(draw(st.integers(0 if empty_citations else 1, 3)))
    ]
    calls = [f"call_{next(ids)}" for _ in range(draw(st.integers(0, 2)))]
    content: list[dict[str, Any]] = [{"type": "text", "text": f"answer {turn}.{step}"}]
    content += [{"type": "tool-call", "id": c, "name": "bash", "arguments": "{}"} for c in calls]
    message = {
        "id": f"a{next(ids)}",
        "role": "assistant",
        "content": content,
        "source": {"kind": "model", "provider": "p", "model": "m"},
    }
    seq = log.add(
        "assistant/message",
        {"turn": turn, "step": step, "message": message},
        sourceEventSeqs=chunks,
        surfaceOp="append",
    )
    log.append_surface(seq, "assistant/message")
    if not calls:
        log.unit_ends.add(seq)
    for call in calls:
        call_seq = log.add(
            "tool/call",
            {"turn": turn, "step": step, "callId": call, "name": "bash", "arguments": "{}"},
        )
        result = log.add(
            "tool/result",
            {"turn": turn, "step": step, "message": _result_message(call, "out", f"t{next(ids)}")},
            sourceEventSeqs=[call_seq],
            surfaceOp="append",
        )
        log.append_surface(result, "tool/result", call)
    if calls:
        log.unit_ends.add(log.surface[-1][0])


def _prune(draw: st.DrawFn, log: _Log, ids: Any) -> None:
    results = [entry for entry in log.surface if entry[1] == "tool/result"]
    if not results:
        return
    old, _, call = draw(st.sampled_from(results))
    log.add(
        "compaction/prune",
        {
            "shadowedRange": {"start": old, "end": old},
            "shadowedSeqs": [old],
            "shadowedTokenCount": 3,
        },
    )
    event = log.events[old]
    seq = log.add(
        "tool/result",
        {**event["data"], "message": _result_message(call or "", "[pruned]", f"t{next(ids)}")},
        sourceEventSeqs=[old],
        surfaceOp={"op": "replace", "start": old, "end": old},
    )
    position = [entry[0] for entry in log.surface].index(old)
    log.surface[position] = (seq, "tool/result", call)
    if old in log.unit_ends:
        log.unit_ends.add(seq)


def _compact(draw: st.DrawFn, log: _Log, turn: int, ids: Any) -> None:
    ends = [i for i, entry in enumerate(log.surface) if entry[0] in log.unit_ends]
    if not ends:
        return
    last = draw(st.sampled_from(ends))
    replaced = [entry[0] for entry in log.surface[: last + 1]]
    compaction_id = f"c{next(ids)}"
    log.add("compaction/start", {"compactionId": compaction_id, "turn": turn})
    log.add(
        "compaction/summary",
        {
            "compactionId": compaction_id,
            "summary": [{"type": "text", "text": "s"}],
            "shadowedRange": {"start": replaced[0], "end": replaced[-1]},
            "shadowedSeqs": replaced,
        },
    )
    seq = log.add(
        "user/message",
        {**_message("user", "checkpoint", f"u{next(ids)}"), "source": {"kind": "compaction"}},
        sourceEventSeqs=replaced,
        surfaceOp={"op": "replace", "start": replaced[0], "end": replaced[-1]},
    )
    log.add("compaction/end", {"compactionId": compaction_id, "turn": turn})
    log.surface[: last + 1] = [(seq, "user/message", None)]
    log.unit_ends.add(seq)
