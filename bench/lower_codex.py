"""Benchmark reading and lowering a ~100 MB Codex rollout, and raising it back.

Generates a rollout with the shape real Codex CLI files have (per step: `turn_context`,
`token_count` and `agent_reasoning` event copies, a reasoning item, a shell `function_call` and
its output of 200 B to 200 KB; a prompt every 40 steps), then times the full read, the
lowering, and raising every event. Prints the figures and writes bench/results/lower_codex.json.

    python bench/lower_codex.py [--mb 100]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import orjson

from klipui.session.formats import codex
from klipui.session.jsonl import read_jsonl

RESULTS = Path(__file__).resolve().parent / "results" / "lower_codex.json"
WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "build",
    "test",
    "error",
    "warning",
    "import",
    "export",
    "const",
    "return",
]


def rollout_lines(rng: random.Random, target: int) -> Iterator[bytes]:
    """Rollout lines until about `target` bytes."""

    def line(second: int, kind: str, payload: dict) -> bytes:
        stamp = f"2026-03-01T10:{second // 60 % 60:02d}:{second % 60:02d}.000Z"
        return orjson.dumps({"timestamp": stamp, "type": kind, "payload": payload})

    meta = {"id": "019c0000-0000-7000-8000-000000000000", "cwd": "/w/app", "cli_version": "0.99"}
    first = line(0, "session_meta", meta)
    yield first
    size, step = len(first), 0
    while size < target:
        step += 1
        out: list[bytes] = []
        if step % 40 == 1:
            text = f"task {step}: " + " ".join(rng.choices(WORDS, k=30))
            content = [{"type": "input_text", "text": text}]
            out.append(
                line(step, "response_item", {"type": "message", "role": "user", "content": content})
            )
            out.append(line(step, "event_msg", {"type": "user_message", "message": text}))
        out.append(
            line(step, "turn_context", {"cwd": "/w/app", "model": "gpt-5", "effort": "high"})
        )
        usage = {"input_tokens": step * 100, "output_tokens": step}
        out.append(line(step, "event_msg", {"type": "token_count", "info": {"last": usage}}))
        thought = " ".join(rng.choices(WORDS, k=60))
        out.append(line(step, "event_msg", {"type": "agent_reasoning", "text": thought}))
        summary = [{"type": "summary_text", "text": thought}]
        reasoning = {"type": "reasoning", "summary": summary, "encrypted_content": "x" * 800}
        out.append(line(step, "response_item", reasoning))
        call_id = f"call_{step}"
        arguments = orjson.dumps({"command": ["bash", "-lc", f"rg -n {rng.choice(WORDS)}"]})
        call = {"type": "function_call", "name": "shell", "arguments": arguments.decode()}
        out.append(line(step, "response_item", {**call, "call_id": call_id}))
        body = "\n".join(
            f"src/{rng.choice(WORDS)}.ts:{n}: {' '.join(rng.choices(WORDS, k=8))}"
            for n in range(int(10 ** rng.uniform(0.5, 3.5)))
        )
        wrapped = orjson.dumps({"output": body, "metadata": {"exit_code": 0}}).decode()
        output = {"type": "function_call_output", "call_id": call_id, "output": wrapped}
        out.append(line(step, "response_item", output))
        if step % 40 == 0:
            content = [{"type": "output_text", "text": "Done: " + thought}]
            message = {"type": "message", "role": "assistant", "content": content}
            out.append(line(step, "response_item", message))
        for item in out:
            size += len(item) + 1
            yield item


def best_of(repeat: int, action) -> tuple[float, object]:
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        value = action()
        best = min(best, time.perf_counter() - start)
    return best, value


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "rollout-2026-03-01T10-00-00-019c0000.jsonl"
        path.write_bytes(b"\n".join(rollout_lines(rng, args.mb * 1_000_000)) + b"\n")
        read_s, loaded = best_of(args.repeat, lambda: read_jsonl(path))
        lower_s, session = best_of(
            args.repeat, lambda: codex.lower(path, loaded.records, loaded.problems)
        )
        session.raw = loaded.data
        raise_s, lines = best_of(
            args.repeat, lambda: list(codex.raise_records(session, session.events))
        )
        identical = b"\n".join(lines) + b"\n" == path.read_bytes()
        result = {
            "python": platform.python_version(),
            "file_bytes": path.stat().st_size,
            "lines": len(loaded.records),
            "events": len(session.events),
            "turns": len(session.turns),
            "read_seconds": round(read_s, 3),
            "lower_seconds": round(lower_s, 3),
            "read_and_lower_seconds": round(read_s + lower_s, 3),
            "raise_seconds": round(raise_s, 3),
            "round_trip_identical": identical,
        }
    print(json.dumps(result, indent=2))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
