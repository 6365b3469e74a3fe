"""Write the bundled demo sessions: the same demo script in each agent's native format.

`python -m klipui.demo.build [--out DIR]` writes (default: the package's `sessions/` folder):

- `dsh/--home-dev-ledgerline--/<id>/session.jsonl` (DeepSeek Harness layout);
- `claude/-home-dev-ledgerline/<uuid>.jsonl` (Claude Code);
- `codex/rollout-<time>-<uuid>.jsonl` (Codex CLI);
- `pi/--home-dev-ledgerline--/<time>_<uuid>.jsonl` (pi, version 3);
- `messages/ledgerline-chat.jsonl` (OpenAI chat messages, one a line).

Everything is deterministic (fixed seeds and start times), so a rebuild gives the same bytes.
Files are written atomically and never over an existing file: a file already there with the
same content is left alone; one with different content is an error (delete the folder first).
"""

from __future__ import annotations

import argparse
import base64
import json
import random
import sys
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from klipui.demo.outputs import CWD, PROJECT
from klipui.demo.script import Call, Turn, demo_script

START = datetime(2026, 3, 2, 9, 14, 0, tzinfo=UTC)
TITLE = "Rounding failures, a broken release build and a midnight crash"
SYSTEM = (
    "You are a coding agent working in the user's repository. Use the tools to inspect and "
    "change files; keep answers short."
)

Line = dict[str, Any]


def dumps(value: Any) -> bytes:
    """Compact JSON, as the agents write it (non-ASCII kept)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode()


class Clock:
    """Deterministic timestamps moving forward by a few seconds at a time."""

    def __init__(self, start: datetime, rng: random.Random) -> None:
        self.now = start
        self.rng = rng

    def tick(self, low: float = 0.2, high: float = 6.0) -> datetime:
        self.now += timedelta(milliseconds=int(self.rng.uniform(low, high) * 1000))
        return self.now

    def iso(self) -> str:
        return self.now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.now.microsecond // 1000:03d}Z"

    def ms(self) -> int:
        return int(self.now.timestamp() * 1000)


def make_uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def signature(rng: random.Random) -> str:
    """A stand-in for an opaque reasoning signature (random bytes, base64)."""
    return base64.b64encode(rng.randbytes(96)).decode()


def shell_text(call: Call) -> str:
    """A command's output as a shell tool reports it (exit code noted when it failed)."""
    if call.failed:
        return f"{call.output}\nCommand exited with code {call.exit_code}"
    return call.output


def usage(rng: random.Random) -> dict[str, int]:
    return {
        "input": rng.randrange(3, 40),
        "output": rng.randrange(40, 900),
        "cacheRead": rng.randrange(5000, 90000),
    }


# --- Claude Code --------------------------------------------------------------------------


def claude_lines(turns: list[Turn], rng: random.Random, session_id: str) -> list[Line]:
    clock = Clock(START, rng)
    lines: list[Line] = []
    parent: str | None = None
    model = "claude-sonnet-4-5-20250929"

    def base(kind: str) -> Line:
        nonlocal parent
        uid = make_uuid(rng)
        line = {
            "parentUuid": parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": CWD,
            "sessionId": session_id,
            "version": "2.1.12",
            "gitBranch": "main",
            "type": kind,
            "uuid": uid,
            "timestamp": clock.iso(),
        }
        parent = uid
        return line

    for turn in turns:
        clock.tick(20, 90)
        lines.append({**base("user"), "message": {"role": "user", "content": turn.prompt}})
        for step in turn.steps:
            clock.tick(2, 9)
            message_id = f"msg_01{rng.getrandbits(100):025x}"[:30]
            request_id = f"req_011C{rng.getrandbits(90):022x}"
            blocks: list[dict[str, Any]] = []
            if step.thinking:
                blocks.append(
                    {"type": "thinking", "thinking": step.thinking, "signature": signature(rng)}
                )
            if step.text:
                blocks.append({"type": "text", "text": step.text})
            for call in step.calls:
                if call.read_path:
                    tool_input = {"file_path": f"{CWD}/{call.read_path}"}
                    blocks.append(
                        {"type": "tool_use", "id": call.id, "name": "Read", "input": tool_input}
                    )
                else:
                    tool_input = {
                        "command": call.command,
                        "description": f"Run {call.command.split()[0]}",
                    }
                    blocks.append(
                        {"type": "tool_use", "id": call.id, "name": "Bash", "input": tool_input}
                    )
            tokens = {
                "input_tokens": rng.randrange(3, 12),
                "cache_creation_input_tokens": rng.randrange(200, 9000),
                "cache_read_input_tokens": rng.randrange(9000, 90000),
                "output_tokens": rng.randrange(40, 900),
                "service_tier": "standard",
            }
            for position, block in enumerate(blocks):
                last = position == len(blocks) - 1
                stop = ("tool_use" if step.calls else "end_turn") if last else None
                message = {
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [block],
                    "stop_reason": stop,
                    "stop_sequence": None,
                    "usage": tokens,
                }
                clock.tick(0.1, 0.8)
                lines.append({**base("assistant"), "message": message, "requestId": request_id})
            for call in step.calls:
                clock.tick(0.5, 12)
                if call.read_path:
                    text = call.output
                    result: Any = {
                        "type": "text",
                        "file": {
                            "filePath": f"{CWD}/{call.read_path}",
                            "content": call.output,
                            "numLines": call.output.count("\n"),
                            "startLine": 1,
                            "totalLines": call.output.count("\n"),
                        },
                    }
                elif call.failed:
                    text = f"Error: Exit code {call.exit_code}\n{call.output}"
                    result = text
                else:
                    text = call.output
                    result = {
                        "stdout": call.output,
                        "stderr": "",
                        "interrupted": False,
                        "isImage": False,
                    }
                block = {
                    "tool_use_id": call.id,
                    "type": "tool_result",
                    "content": text,
                    "is_error": call.failed,
                }
                line = {
                    **base("user"),
                    "message": {"role": "user", "content": [block]},
                    "toolUseResult": result,
                }
                lines.append(line)
    summary = {"type": "summary", "summary": TITLE, "leafUuid": parent}
    return [summary, *lines]


# --- Codex --------------------------------------------------------------------------------


def codex_lines(turns: list[Turn], rng: random.Random, session_id: str) -> list[Line]:
    clock = Clock(START + timedelta(hours=2), rng)
    model = "gpt-5.1-codex"

    def item(kind: str, payload: dict[str, Any]) -> Line:
        return {"timestamp": clock.iso(), "type": kind, "payload": payload}

    total = 0
    lines = [
        item(
            "session_meta",
            {
                "id": session_id,
                "timestamp": clock.iso(),
                "cwd": CWD,
                "originator": "codex_cli_rs",
                "cli_version": "0.58.0",
                "instructions": None,
                "source": "cli",
                "model_provider": "openai",
                "git": {"commit_hash": f"{rng.getrandbits(160):040x}", "branch": "main"},
            },
        ),
    ]
    environment = (
        f"<environment_context>\n  <cwd>{CWD}</cwd>\n"
        "  <approval_policy>on-request</approval_policy>\n"
        "  <sandbox_mode>workspace-write</sandbox_mode>\n"
        "  <network_access>restricted</network_access>\n"
        "  <shell>bash</shell>\n</environment_context>"
    )
    lines.append(
        item(
            "response_item",
            {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": environment}],
            },
        )
    )
    for turn in turns:
        clock.tick(20, 90)
        lines.append(
            item(
                "response_item",
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": turn.prompt}],
                },
            )
        )
        lines.append(
            item("event_msg", {"type": "user_message", "message": turn.prompt, "images": []})
        )
        context = {
            "cwd": CWD,
            "approval_policy": "on-request",
            "sandbox_policy": {"mode": "workspace-write"},
            "model": model,
            "effort": "medium",
            "summary": "auto",
        }
        lines.append(item("turn_context", context))
        for step in turn.steps:
            clock.tick(2, 9)
            if step.thinking:
                summary = [
                    {
                        "type": "summary_text",
                        "text": f"**{step.thinking.split(':')[0].rstrip('.')}**",
                    }
                ]
                encrypted = base64.urlsafe_b64encode(rng.randbytes(180)).decode()
                lines.append(
                    item("event_msg", {"type": "agent_reasoning", "text": summary[0]["text"]})
                )
                lines.append(
                    item(
                        "response_item",
                        {
                            "type": "reasoning",
                            "summary": summary,
                            "content": None,
                            "encrypted_content": encrypted,
                        },
                    )
                )
            if step.text:
                lines.append(
                    item(
                        "response_item",
                        {
                            "type": "message",
                            "role": "assistant",
                            "content": [{"type": "output_text", "text": step.text}],
                        },
                    )
                )
                lines.append(item("event_msg", {"type": "agent_message", "message": step.text}))
            for call in step.calls:
                arguments = {"command": ["bash", "-lc", call.command], "workdir": CWD}
                lines.append(
                    item(
                        "response_item",
                        {
                            "type": "function_call",
                            "name": "shell",
                            "arguments": json.dumps(arguments),
                            "call_id": call.id,
                        },
                    )
                )
                clock.tick(0.5, 12)
                output = {
                    "output": call.output,
                    "metadata": {
                        "exit_code": call.exit_code,
                        "duration_seconds": round(rng.uniform(0.1, 40), 1),
                    },
                }
                lines.append(
                    item(
                        "response_item",
                        {
                            "type": "function_call_output",
                            "call_id": call.id,
                            "output": json.dumps(output),
                        },
                    )
                )
            used = rng.randrange(9000, 40000)
            total += used
            info = {
                "total_token_usage": {
                    "input_tokens": total,
                    "cached_input_tokens": total // 2,
                    "output_tokens": total // 40,
                    "reasoning_output_tokens": 0,
                    "total_tokens": total + total // 40,
                },
                "last_token_usage": {
                    "input_tokens": used,
                    "cached_input_tokens": used // 2,
                    "output_tokens": used // 40,
                    "reasoning_output_tokens": 0,
                    "total_tokens": used + used // 40,
                },
                "model_context_window": 258400,
            }
            lines.append(
                item("event_msg", {"type": "token_count", "info": info, "rate_limits": None})
            )
    return lines


# --- pi -----------------------------------------------------------------------------------


def pi_lines(turns: list[Turn], rng: random.Random, session_id: str) -> list[Line]:
    clock = Clock(START + timedelta(hours=4), rng)
    lines: list[Line] = [
        {"type": "session", "version": 3, "id": session_id, "timestamp": clock.iso(), "cwd": CWD}
    ]
    parent: str | None = None

    def entry(kind: str, **fields: Any) -> None:
        nonlocal parent
        entry_id = f"{rng.getrandbits(32):08x}"
        lines.append(
            {"type": kind, "id": entry_id, "parentId": parent, "timestamp": clock.iso(), **fields}
        )
        parent = entry_id

    entry("model_change", provider="anthropic", modelId="claude-sonnet-4-5")
    entry("thinking_level_change", thinkingLevel="low")
    for turn in turns:
        clock.tick(20, 90)
        entry(
            "message",
            message={
                "role": "user",
                "content": [{"type": "text", "text": turn.prompt}],
                "timestamp": clock.ms(),
            },
        )
        for step in turn.steps:
            clock.tick(2, 9)
            content: list[dict[str, Any]] = []
            if step.thinking:
                content.append(
                    {
                        "type": "thinking",
                        "thinking": step.thinking,
                        "thinkingSignature": signature(rng),
                    }
                )
            if step.text:
                content.append({"type": "text", "text": step.text})
            for call in step.calls:
                arguments = (
                    {"path": call.read_path} if call.read_path else {"command": call.command}
                )
                name = "read" if call.read_path else "bash"
                content.append(
                    {"type": "toolCall", "id": call.id, "name": name, "arguments": arguments}
                )
            spent = usage(rng)
            cost = {k: round(v * 3e-6, 6) for k, v in spent.items()}
            message = {
                "role": "assistant",
                "content": content,
                "api": "anthropic-messages",
                "provider": "anthropic",
                "model": "claude-sonnet-4-5",
                "usage": {
                    **spent,
                    "cacheWrite": 0,
                    "totalTokens": sum(spent.values()),
                    "cost": {**cost, "cacheWrite": 0, "total": round(sum(cost.values()), 6)},
                },
                "stopReason": "toolUse" if step.calls else "stop",
                "timestamp": clock.ms(),
            }
            entry("message", message=message)
            for call in step.calls:
                clock.tick(0.5, 12)
                text = call.output if call.read_path else shell_text(call)
                result = {
                    "role": "toolResult",
                    "toolCallId": call.id,
                    "toolName": "read" if call.read_path else "bash",
                    "content": [{"type": "text", "text": text}],
                    "isError": call.failed,
                    "timestamp": clock.ms(),
                }
                entry("message", message=result)
    entry("session_info", name=TITLE)
    return lines


# --- DeepSeek Harness ---------------------------------------------------------------------


def dsh_lines(turns: list[Turn], rng: random.Random, session_id: str) -> list[Line]:
    clock = Clock(START + timedelta(hours=6), rng)
    lines: list[Line] = [
        {
            "type": "session",
            "version": 0,
            "id": session_id,
            "createdAt": clock.ms(),
            "cwd": CWD,
            "delegationDepth": 0,
        }
    ]
    source = {"kind": "model", "provider": "deepseek-official", "model": "deepseek-v4-flash"}

    def event(kind: str, data: dict[str, Any], **extra: Any) -> int:
        seq = len(lines) - 1
        lines.append({"type": kind, "seq": seq, "time": clock.ms(), "data": data, **extra})
        return seq

    event("permission/preset", {"preset": "workspace-write"})
    for number, turn in enumerate(turns, 1):
        clock.tick(20, 90)
        event("turn/start", {"turn": number})
        for step_number, step in enumerate(turn.steps, 1):
            event("step/start", {"turn": number, "step": step_number})
            if step_number == 1:
                message = {
                    "id": make_uuid(rng),
                    "role": "user",
                    "content": [{"type": "text", "text": turn.prompt}],
                    "source": {"kind": "user"},
                }
                prompt_seq = event("user/message", message, surfaceOp="append")
                if number == 1:
                    event(
                        "session/title",
                        {"title": TITLE, "messageSeqs": [prompt_seq], "source": {"kind": "user"}},
                    )
            clock.tick(2, 9)
            blocks: list[dict[str, Any]] = []
            if step.thinking:
                blocks.append({"type": "reasoning", "text": step.thinking})
            if step.text:
                blocks.append({"type": "text", "text": step.text})
            for call in step.calls:
                arguments = (
                    {"path": call.read_path}
                    if call.read_path
                    else {"command": call.command, "description": f"Run {call.command.split()[0]}"}
                )
                blocks.append(
                    {
                        "type": "tool-call",
                        "id": call.id,
                        "name": "read" if call.read_path else "bash",
                        "arguments": json.dumps(arguments),
                    }
                )
            chunk_seqs = []
            for index, block in enumerate(blocks):
                kind = block["type"]
                chunk_seqs.append(
                    event(
                        "assistant/chunk",
                        {
                            "turn": number,
                            "step": step_number,
                            "chunk": {"type": "block-start", "index": index, "blockType": kind},
                        },
                    )
                )
                if kind == "tool-call":
                    delta = {
                        "type": "tool-call-delta",
                        "index": index,
                        "id": block["id"],
                        "name": block["name"],
                        "argumentsDelta": block["arguments"],
                    }
                else:
                    delta = {
                        "type": f"{'reasoning' if kind == 'reasoning' else 'text'}-delta",
                        "index": index,
                        "text": block["text"],
                    }
                chunk_seqs.append(
                    event("assistant/chunk", {"turn": number, "step": step_number, "chunk": delta})
                )
                chunk_seqs.append(
                    event(
                        "assistant/chunk",
                        {
                            "turn": number,
                            "step": step_number,
                            "chunk": {"type": "block-end", "index": index, "block": block},
                        },
                    )
                )
            spent = {
                "inputTokens": rng.randrange(2000, 60000),
                "outputTokens": rng.randrange(40, 900),
            }
            chunk_seqs.append(
                event(
                    "assistant/chunk",
                    {
                        "turn": number,
                        "step": step_number,
                        "chunk": {"type": "usage", "usage": spent},
                    },
                )
            )
            finish = {"kind": "tool-calls" if step.calls else "stop"}
            chunk_seqs.append(
                event(
                    "assistant/chunk",
                    {
                        "turn": number,
                        "step": step_number,
                        "chunk": {"type": "finish", "reason": finish},
                    },
                )
            )
            message = {
                "role": "assistant",
                "content": blocks,
                "source": source,
                "id": make_uuid(rng),
            }
            event(
                "assistant/message",
                {"turn": number, "step": step_number, "message": message, "usage": spent},
                sourceEventSeqs=chunk_seqs,
                surfaceOp="append",
            )
            calls = [
                (
                    call,
                    event(
                        "tool/call",
                        {
                            "turn": number,
                            "step": step_number,
                            "callId": call.id,
                            "name": b["name"],
                            "arguments": b["arguments"],
                        },
                    ),
                )
                for call, b in zip(
                    step.calls, blocks[-len(step.calls) :] if step.calls else [], strict=True
                )
            ]
            for call, call_seq in calls:
                clock.tick(0.5, 12)
                text = call.output if call.read_path else shell_text(call)
                result = {
                    "type": "tool-result",
                    "toolCallId": call.id,
                    "content": [{"type": "text", "text": text}],
                    "isError": call.failed,
                }
                message = {
                    "id": make_uuid(rng),
                    "role": "user",
                    "content": [result],
                    "source": {"kind": "tool", "callId": call.id},
                }
                event(
                    "tool/result",
                    {"turn": number, "step": step_number, "message": message},
                    sourceEventSeqs=[call_seq],
                    surfaceOp="append",
                )
            event("step/end", {"turn": number, "step": step_number})
        event("turn/end", {"turn": number, "reason": {"kind": "completed"}})
    return lines


# --- generic messages (OpenAI chat) -------------------------------------------------------


def messages_lines(turns: list[Turn], rng: random.Random, session_id: str) -> list[Line]:
    lines: list[Line] = [{"role": "system", "content": SYSTEM}]
    for turn in turns:
        lines.append({"role": "user", "content": turn.prompt})
        for step in turn.steps:
            message: Line = {"role": "assistant", "content": step.text or None}
            if step.calls:
                message["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {
                            "name": "shell",
                            "arguments": json.dumps({"command": call.command}),
                        },
                    }
                    for call in step.calls
                ]
            lines.append(message)
            lines.extend(
                {"role": "tool", "tool_call_id": call.id, "content": shell_text(call)}
                for call in step.calls
            )
    return lines


Writer = Callable[[list[Turn], random.Random, str], list[Line]]


def demo_files() -> Iterator[tuple[str, list[bytes]]]:
    """(relative path, lines) of every demo session."""
    specs: list[tuple[str, int, str, Writer]] = [
        ("dsh", 101, "call_00_", dsh_lines),
        ("claude", 202, "toolu_01", claude_lines),
        ("codex", 303, "call_", codex_lines),
        ("pi", 404, "toolu_01", pi_lines),
        ("messages", 505, "call_", messages_lines),
    ]
    for folder, seed, prefix, writer in specs:
        rng = random.Random(seed)
        session_id = make_uuid(rng)
        lines = writer(demo_script(seed, prefix), rng, session_id)
        yield _relative_path(folder, session_id), [dumps(line) for line in lines]


def _relative_path(folder: str, session_id: str) -> str:
    key = CWD.replace("/", "-").lstrip("-")
    if folder == "dsh":
        return f"dsh/--{key}--/{session_id}/session.jsonl"
    if folder == "claude":
        return f"claude/-{key}/{session_id}.jsonl"
    if folder == "codex":
        stamp = (START + timedelta(hours=2)).strftime("%Y-%m-%dT%H-%M-%S")
        return f"codex/rollout-{stamp}-{session_id}.jsonl"
    if folder == "pi":
        stamp = (START + timedelta(hours=4)).strftime("%Y-%m-%dT%H-%M-%S-000Z")
        return f"pi/--{key}--/{stamp}_{session_id}.jsonl"
    return f"messages/{PROJECT}-chat.jsonl"


def build(out: Path) -> list[tuple[Path, str]]:
    """Write every demo session under `out`; returns (path, "written" or "unchanged")."""
    from klipui.session.jsonl import write_new

    report = []
    for relative, lines in demo_files():
        path = out / relative
        content = b"".join(line + b"\n" for line in lines)
        if path.exists():
            if path.read_bytes() != content:
                raise FileExistsError(
                    f"{path}: exists with different content; delete it to rebuild"
                )
            report.append((path, "unchanged"))
            continue
        write_new(path, lines)
        path.chmod(0o644)
        report.append((path, "written"))
    return report


def main(argv: list[str] | None = None) -> int:
    from klipui.demo import SESSIONS

    parser = argparse.ArgumentParser(
        prog="python -m klipui.demo.build", description=__doc__.split("\n")[0]
    )
    parser.add_argument(
        "--out", type=Path, default=SESSIONS, help="folder to write into (default: %(default)s)"
    )
    args = parser.parse_args(argv)
    try:
        report = build(args.out)
    except FileExistsError as error:
        print(f"klipui.demo.build: {error}", file=sys.stderr)
        return 1
    for path, state in report:
        print(f"{state:9} {path.stat().st_size:>9,} bytes  {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
