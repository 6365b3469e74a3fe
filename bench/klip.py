"""Benchmark the clip engine: reindex 1,000,000 dsh events (~50,000 turns).

Timings are the best of `--repeat` runs, wall clock and CPU (CPU time is the steadier figure on
a shared machine).

Targets (issue 4): each selection in <= 3 s; extra memory <= 2x the events' own size; ten times
the events cost <= 11x the time. Prints the figures and writes them under the "reindex" key of
bench/results/klip.json (other keys of that file, e.g. child-session writing, are kept).

    python bench/klip.py [--events N] [--repeat R]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from klipui.klip import parse_interval, reindex

RESULTS = Path(__file__).resolve().parent / "results" / "klip.json"
SELECTIONS = ("..", "1..-1, not 2..-2")


def make_events(turns: int) -> list[dict[str, Any]]:
    """A dsh log of `turns` turns of 20 events each (two steps, a tool pair, streamed chunks)."""
    events: list[dict[str, Any]] = []

    def add(kind: str, data: dict[str, Any], **envelope: Any) -> int:
        seq = len(events)
        events.append(
            {"type": kind, "seq": seq, "time": 1_790_000_000_000 + seq, "data": data, **envelope}
        )
        return seq

    add("permission/preset", {"preset": "workspace-write"})
    prompts: list[int] = []
    for turn in range(1, turns + 1):
        add("turn/start", {"turn": turn})
        add("step/start", {"turn": turn, "step": 1})
        prompt = add(
            "user/message",
            {
                "id": f"u{turn}",
                "role": "user",
                "content": [{"type": "text", "text": f"do task {turn}"}],
                "source": {"kind": "user"},
            },
            surfaceOp="append",
        )
        prompts.append(prompt)
        if turn % 10 == 1:
            add(
                "session/title",
                {"title": f"task {turn}", "messageSeqs": [prompt], "source": {"kind": "fallback"}},
            )
        else:
            add("request/header", {"header": {"config": {"provider": "p", "model": "m"}}})
        chunks = [
            add(
                "assistant/chunk",
                {"turn": turn, "step": 1, "chunk": {"type": "text-delta", "index": 0, "text": "x"}},
            )
            for _ in range(4)
        ]
        call = f"call_{turn}"
        add(
            "assistant/message",
            {
                "turn": turn,
                "step": 1,
                "message": {
                    "id": f"a{turn}",
                    "role": "assistant",
                    "content": [
                        {"type": "tool-call", "id": call, "name": "bash", "arguments": "{}"}
                    ],
                    "source": {"kind": "model", "provider": "p", "model": "m"},
                },
            },
            sourceEventSeqs=chunks,
            surfaceOp="append",
        )
        call_seq = add(
            "tool/call",
            {"turn": turn, "step": 1, "callId": call, "name": "bash", "arguments": "{}"},
        )
        add(
            "tool/result",
            {
                "turn": turn,
                "step": 1,
                "message": {
                    "id": f"t{turn}",
                    "role": "user",
                    "content": [
                        {
                            "type": "tool-result",
                            "toolCallId": call,
                            "content": [{"type": "text", "text": "ok"}],
                            "isError": False,
                        }
                    ],
                    "source": {"kind": "tool", "callId": call},
                },
            },
            sourceEventSeqs=[call_seq],
            surfaceOp="append",
        )
        add("step/end", {"turn": turn, "step": 1})
        add("step/start", {"turn": turn, "step": 2})
        chunks = [
            add(
                "assistant/chunk",
                {"turn": turn, "step": 2, "chunk": {"type": "text-delta", "index": 0, "text": "y"}},
            )
            for _ in range(4)
        ]
        add(
            "assistant/message",
            {
                "turn": turn,
                "step": 2,
                "message": {
                    "id": f"b{turn}",
                    "role": "assistant",
                    "content": [{"type": "text", "text": "done"}],
                    "source": {"kind": "model", "provider": "p", "model": "m"},
                },
            },
            sourceEventSeqs=chunks,
            surfaceOp="append",
        )
        add("step/end", {"turn": turn, "step": 2})
        add("turn/end", {"turn": turn, "reason": {"kind": "completed"}})
    return events


def _best_time(
    events: list[dict[str, Any]], selection: str, repeat: int
) -> tuple[float, float, int]:
    """Best wall-clock and best CPU seconds over `repeat` runs, and how many events were kept."""
    parsed = parse_interval(selection)
    best_wall, best_cpu, kept = float("inf"), float("inf"), 0
    for _ in range(repeat):
        gc.collect()
        wall, cpu = time.perf_counter(), time.process_time()
        out = reindex(events, parsed)
        best_cpu = min(best_cpu, time.process_time() - cpu)
        best_wall = min(best_wall, time.perf_counter() - wall)
        kept = len(out)
        del out
    return best_wall, best_cpu, kept


def _memory(turns: int, selection: str) -> tuple[int, int]:
    """(bytes the events take, peak extra bytes while reindexing), measured with tracemalloc."""
    gc.collect()
    tracemalloc.start()
    events = make_events(turns)
    own = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    out = reindex(events, selection)
    extra = tracemalloc.get_traced_memory()[1] - own
    tracemalloc.stop()
    del out, events
    return own, extra


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    turns = max(1, args.events // 20)
    small_turns = max(1, turns // 10)
    print(f"building {turns * 20 + 1:,} events ({turns:,} turns) ...", file=sys.stderr)
    events = make_events(turns)
    small = make_events(small_turns)
    figures: dict[str, Any] = {"events": len(events), "turns": turns, "selections": {}}
    for selection in SELECTIONS:
        seconds, cpu, kept = _best_time(events, selection, args.repeat)
        small_seconds, small_cpu, _ = _best_time(small, selection, args.repeat)
        figures["selections"][selection] = {
            "seconds": round(seconds, 3),
            "cpu_seconds": round(cpu, 3),
            "kept": kept,
            "events_per_second": round(len(events) / seconds),
            "seconds_at_tenth": round(small_seconds, 4),
            "cpu_seconds_at_tenth": round(small_cpu, 4),
            "scaling_10x": round(seconds / small_seconds, 2),
            "cpu_scaling_10x": round(cpu / small_cpu, 2),
        }
        print(
            f"reindex {selection!r:>20}: {seconds:.3f} s ({cpu:.3f} s CPU) for {len(events):,} "
            f"events ({kept:,} kept); {small_seconds:.3f} s ({small_cpu:.3f} s CPU) for "
            f"{len(small):,}: 10x events cost {seconds / small_seconds:.2f}x "
            f"({cpu / small_cpu:.2f}x CPU)"
        )
    del events, small
    for selection in SELECTIONS:
        own, extra = _memory(turns, selection)
        figures["selections"][selection]["memory_events_bytes"] = own
        figures["selections"][selection]["memory_peak_extra_bytes"] = extra
        figures["selections"][selection]["memory_ratio"] = round(extra / own, 3)
        print(
            f"memory  {selection!r:>20}: events {own / 1e6:.0f} MB, reindex peak extra "
            f"{extra / 1e6:.0f} MB ({extra / own:.2f}x)"
        )
    figures["python"] = sys.version.split()[0]
    _write(figures)
    print(f"wrote {RESULTS}")


def _write(figures: dict[str, Any]) -> None:
    """Merge `figures` under "reindex" into the results file, atomically."""
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    try:
        document = json.loads(RESULTS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        document = {}
    document["reindex"] = figures
    fd, temp = tempfile.mkstemp(dir=RESULTS.parent, prefix=".klip-", suffix=".json")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=2)
        handle.write("\n")
    os.replace(temp, RESULTS)


if __name__ == "__main__":
    main()
