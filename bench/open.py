"""Benchmark opening sessions: head-read info, full load, peak memory, listing, growth.

Generates (into bench/data/, gitignored, reused when present):
- a ~100 MB Claude Code session of ~20,000 lines, tool results from 1 KB to 2 MB, one 12 MB line,
  and its 10 / 25 / 50 MB prefixes;
- a DeepSeek Harness session of 1,000,000 events (packed chunk rows included);
- 1,000 session files of ~2 MB each (2 GB) for the listing figures.

`--index-only` measures issue 12's index-first figures (first turn, index, exact info, peak
RSS of the 1M-event dsh session, plain and zstd, and of the 100 MB Claude Code session).

Measures (targets from issue 2): SessionInfo from the head read (<= 50 ms); load and lower the
100 MB file (<= 1.5 s); peak RSS of that load in a fresh process (<= 2.5x the file); listing the
1,000 files, first results cold (<= 0.5 s) and warm from the cache (<= 0.2 s); load time at
10/25/50/100 MB (linear); a cold listing of one folder of 500 / 1k / 2k / 4k / 10k small
sessions (issue 11: linear, 10k <= 10 s). Prints the figures and writes bench/results/open.json.

    python bench/open.py [--skip-listing] [--repeat R] [--one-folder-only]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
RESULTS = HERE / "results" / "open.json"
MB = 1_000_000
CLAUDE_BYTES = 100 * MB
CLAUDE_LINES = 20_000
HUGE_LINE = 12 * MB
DSH_EVENTS = 1_000_000
LIST_FILES = 1_000
LIST_FILE_BYTES = 2 * MB
PREFIXES_MB = (10, 25, 50)

WORDS = [
    "build",
    "test",
    "error",
    "warning",
    "module",
    "import",
    "return",
    "value",
    "result",
    "config",
    "path",
    "file",
    "line",
    "function",
    "class",
    "request",
    "response",
    "handler",
    "cache",
    "index",
    "session",
    "token",
    "output",
    "input",
]


def text_pool(rng: random.Random, lines: int = 20_000) -> list[str]:
    """Lines that look like tool output: logs, code, paths, test results."""
    shapes = (
        lambda: (
            f"2026-01-0{rng.randint(1, 9)}T10:{rng.randint(10, 59)}:00Z INFO "
            f"{rng.choice(WORDS)}: {' '.join(rng.choices(WORDS, k=rng.randint(3, 12)))}"
        ),
        lambda: f"    def {rng.choice(WORDS)}_{rng.randint(0, 999)}(self, {rng.choice(WORDS)}):",
        lambda: (
            f"src/{rng.choice(WORDS)}/{rng.choice(WORDS)}_{rng.randint(0, 99)}.py:"
            f'{rng.randint(1, 900)}: {rng.choice(WORDS)} "{rng.choice(WORDS)}"'
        ),
        lambda: (
            f"tests/test_{rng.choice(WORDS)}.py::test_{rng.choice(WORDS)} "
            + rng.choice(("PASSED", "FAILED", "PASSED", "SKIPPED"))
        ),
        lambda: "\t".join(str(rng.randint(0, 10**6)) for _ in range(6)),
    )
    return [rng.choice(shapes)() for _ in range(lines)]


def output_text(rng: random.Random, pool: list[str], size: int) -> str:
    """About `size` characters of tool output made of pool lines."""
    out: list[str] = []
    total = 0
    while total < size:
        start = rng.randrange(len(pool))
        chunk = pool[start : start + 200]
        out.extend(chunk)
        total += sum(len(line) + 1 for line in chunk)
    return "\n".join(out)[:size]


class ClaudeWriter:
    """Claude Code JSONL lines with the usual envelope (uuid chain, session id, cwd, times)."""

    def __init__(self, rng: random.Random, session_id: str, cwd: str) -> None:
        self.rng = rng
        self.session_id = session_id
        self.cwd = cwd
        self.parent: str | None = None
        self.count = 0
        self.clock = 1_767_225_600.0

    def _envelope(self, kind: str, message: dict[str, Any], **extra: Any) -> bytes:
        self.count += 1
        uuid = f"{self.count:08x}-0000-4000-8000-{self.rng.getrandbits(48):012x}"
        self.clock += self.rng.uniform(0.5, 20)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(self.clock)) + ".000Z"
        line = {
            "parentUuid": self.parent,
            "isSidechain": False,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session_id,
            "version": "2.0.14",
            "gitBranch": "main",
            "type": kind,
            "message": message,
            "uuid": uuid,
            "timestamp": stamp,
            **extra,
        }
        self.parent = uuid
        return orjson.dumps(line)

    def prompt(self, text: str) -> bytes:
        return self._envelope("user", {"role": "user", "content": text})

    def assistant(self, text: str, tool: tuple[str, str, dict[str, Any]] | None) -> bytes:
        content: list[dict[str, Any]] = [{"type": "text", "text": text}]
        if tool:
            content.append({"type": "tool_use", "id": tool[0], "name": tool[1], "input": tool[2]})
        message = {
            "id": f"msg_{self.rng.getrandbits(64):016x}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": content,
            "stop_reason": "tool_use" if tool else "end_turn",
            "usage": {"input_tokens": 1200, "output_tokens": 300},
        }
        return self._envelope("assistant", message, requestId=f"req_{self.count}")

    def result(self, tool_id: str, output: str, error: bool = False) -> bytes:
        block = {"tool_use_id": tool_id, "type": "tool_result", "content": output}
        if error:
            block["is_error"] = True
        extra = {"toolUseResult": {"stdout": output[:2000], "stderr": "", "interrupted": False}}
        return self._envelope("user", {"role": "user", "content": [block]}, **extra)


def claude_lines(rng: random.Random, target: int, lines: int, huge: int) -> Iterator[bytes]:
    """A Claude Code session of about `target` bytes and `lines` lines, one `huge`-byte line.

    Turns of a prompt, ten tool exchanges (assistant tool_use, user tool_result) and a closing
    answer. Tool results are mostly 1-3 KB; one in `every` is log-uniform in 1 KB..2 MB, with
    `every` tuned so that the file reaches `target` at about `lines` lines.
    """
    pool = text_pool(rng)
    writer = ClaudeWriter(rng, "5c0375b4-0000-4000-8000-000000000001", "/home/ana/work/app")
    mean_big = (2 * MB - 1000) / math.log(2000)
    exchanges = lines * 10 // 22
    small_exchange = 6000  # assistant line + a 1-3 KB result with its toolUseResult copy
    budget = target - huge - exchanges * small_exchange
    every = max(1, round(exchanges * mean_big / max(budget, 1)))
    written = count = tool = 0
    huge_at = exchanges // 2

    def emit(line: bytes) -> bytes:
        nonlocal written, count
        written += len(line) + 1
        count += 1
        return line

    while written < target:
        yield emit(writer.prompt(f"Please {' '.join(rng.choices(WORDS, k=12))}"))
        for _ in range(10):
            tool += 1
            tool_id = f"toolu_{tool:08d}"
            command = f"pytest tests/test_{rng.choice(WORDS)}.py -q"
            yield emit(
                writer.assistant(
                    f"Let me check {' '.join(rng.choices(WORDS, k=20))}.",
                    (tool_id, "Bash", {"command": command, "description": "run tests"}),
                )
            )
            if tool == huge_at:
                size = huge
            elif tool % every == 0:
                size = int(math.exp(rng.uniform(math.log(1000), math.log(2 * MB))))
            else:
                size = rng.randint(1000, 3000)
            output = output_text(rng, pool, size)
            yield emit(writer.result(tool_id, output, error=tool % 17 == 0))
        yield emit(writer.assistant(f"Done: {' '.join(rng.choices(WORDS, k=40))}.", None))


def dsh_lines(rng: random.Random, events: int) -> Iterator[bytes]:
    """A DeepSeek Harness session of `events` events (after expansion of packed rows)."""
    pool = text_pool(rng, 5000)
    yield orjson.dumps(
        {
            "type": "session",
            "version": 0,
            "id": "bench-dsh-1",
            "createdAt": 1_790_000_000_000,
            "cwd": "/home/ana/work/app",
            "delegationDepth": 0,
        }
    )
    seq = 0
    clock = 1_790_000_000_000

    def event(kind: str, data: dict[str, Any], **envelope: Any) -> bytes:
        nonlocal seq, clock
        clock += rng.randint(0, 40)
        line = orjson.dumps({"type": kind, "seq": seq, "time": clock, "data": data, **envelope})
        seq += 1
        return line

    def packed(kind: str, turn: int, step: int, texts: list[str]) -> bytes:
        nonlocal seq, clock
        dt = [rng.randint(0, 30) for _ in texts[1:]]
        data: dict[str, Any] = {"turn": turn, "step": step, "index": 0, "dt": dt, "texts": texts}
        line = orjson.dumps({"type": kind, "seq0": seq, "time0": clock, "data": data})
        seq += len(texts)
        clock += sum(dt)
        return line

    yield event("permission/preset", {"preset": "workspace-write"})
    turn = 0
    while seq < events - 40:
        turn += 1
        yield event("turn/start", {"turn": turn})
        prompt_seq = seq + 1
        yield event("step/start", {"turn": turn, "step": 1})
        user = {
            "id": f"u{turn}",
            "role": "user",
            "content": [{"type": "text", "text": f"task {turn}: {rng.choice(pool)}"}],
            "source": {"kind": "user"},
        }
        yield event("user/message", user, surfaceOp="append")
        if turn % 20 == 1:
            title = {
                "title": f"task {turn}",
                "messageSeqs": [prompt_seq],
                "source": {"kind": "user"},
            }
            yield event("session/title", title)
        for step in (1, 2):
            if step == 2:
                yield event("step/start", {"turn": turn, "step": 2})
            first_chunk = seq
            words = rng.choices(WORDS, k=rng.randint(3, 6))
            texts = [f" {w}" for w in words]
            yield event(
                "assistant/chunk",
                {"turn": turn, "step": step, "chunk": {"type": "block-start", "index": 0}},
            )
            yield packed("text-chunks", turn, step, texts)
            call_id = f"call_{turn}_{step}"
            arguments = orjson.dumps({"command": f"pytest -q tests/test_{rng.choice(WORDS)}.py"})
            content = [
                {"type": "text", "text": "".join(texts) + " " + " ".join(rng.choices(WORDS, k=60))},
                {
                    "type": "tool-call",
                    "id": call_id,
                    "name": "bash",
                    "arguments": arguments.decode(),
                },
            ]
            message = {
                "id": f"a{turn}.{step}",
                "role": "assistant",
                "content": content,
                "source": {"kind": "model", "provider": "p", "model": "m"},
            }
            yield event(
                "assistant/message",
                {"turn": turn, "step": step, "message": message},
                sourceEventSeqs=list(range(first_chunk, seq)),
                surfaceOp="append",
            )
            call_seq = seq
            yield event(
                "tool/call",
                {
                    "turn": turn,
                    "step": step,
                    "callId": call_id,
                    "name": "bash",
                    "arguments": arguments.decode(),
                },
            )
            output = "\n".join(rng.choices(pool, k=rng.randint(20, 120)))
            result = {
                "id": f"t{turn}.{step}",
                "role": "user",
                "content": [
                    {
                        "type": "tool-result",
                        "toolCallId": call_id,
                        "content": [{"type": "text", "text": output}],
                    }
                ],
                "source": {"kind": "tool", "callId": call_id},
            }
            yield event(
                "tool/result",
                {"turn": turn, "step": step, "message": result},
                sourceEventSeqs=[call_seq],
                surfaceOp="append",
            )
            yield event("step/end", {"turn": turn, "step": step})
        yield event("turn/end", {"turn": turn, "reason": {"kind": "completed"}})
    while seq < events:
        yield event("todo/write", {"todos": []})


def write_lines(path: Path, lines: Iterator[bytes]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_suffix(".part")
    with open(temp, "wb") as out:
        for line in lines:
            out.write(line + b"\n")
    os.replace(temp, path)


def prefix_file(source: Path, target: Path, size: int) -> None:
    """The whole lines of `source` that fit in its first `size` bytes."""
    with open(source, "rb") as handle:
        data = handle.read(size)
    write_lines(target, iter(data[: data.rfind(b"\n")].split(b"\n")))


def prepare() -> dict[str, Path]:
    """Generate the data files once (kept in bench/data/)."""
    files = {"claude": DATA / "claude-100mb.jsonl", "dsh": DATA / "dsh-1m-events.jsonl"}
    if not files["claude"].exists():
        print("generating the 100 MB Claude Code session…", file=sys.stderr)
        rng = random.Random(1)
        write_lines(files["claude"], claude_lines(rng, CLAUDE_BYTES, CLAUDE_LINES, HUGE_LINE))
    for size in PREFIXES_MB:
        files[f"claude-{size}"] = DATA / f"claude-{size}mb.jsonl"
        if not files[f"claude-{size}"].exists():
            prefix_file(files["claude"], files[f"claude-{size}"], size * MB)
    if not files["dsh"].exists():
        print("generating the 1,000,000-event dsh session…", file=sys.stderr)
        write_lines(files["dsh"], dsh_lines(random.Random(2), DSH_EVENTS))
    files["dsh-zstd"] = DATA / "dsh-1m-events" / "session.jsonl.zstd"
    if not files["dsh-zstd"].exists():
        from klipui.session.jsonl import write_new

        print("compressing it as the harness does (header frame, then ~1 MB frames)…")
        with open(files["dsh"], "rb") as source:
            write_new(
                files["dsh-zstd"], (line.rstrip(b"\n") for line in source), compression="zstd"
            )
    return files


def prepare_listing() -> Path:
    """1,000 Claude Code sessions of ~2 MB each, in project folders (~2 GB)."""
    root = DATA / "listing"
    done = root / ".complete"
    if done.exists():
        return root
    print("generating 1,000 session files (2 GB)…", file=sys.stderr)
    rng = random.Random(3)
    body = list(claude_lines(rng, LIST_FILE_BYTES, 4000, 0))
    for index in range(LIST_FILES):
        session = f"{index:08d}-0000-4000-8000-000000000000"
        path = root / f"-home-ana-project-{index % 40}" / f"{session}.jsonl"
        head = ClaudeWriter(rng, session, f"/home/ana/project-{index % 40}")
        first = head.prompt(f"session {index}: {' '.join(rng.choices(WORDS, k=10))}")
        write_lines(path, iter([first, *body]))
    done.write_text("ok\n")
    return root


FOLDER_COUNTS = (500, 1_000, 2_000, 4_000, 10_000)
FOLDER_AGENTS = 50
"""Legacy `agent-*.jsonl` sub-agent files beside the sessions of the one-folder case."""


def prepare_one_folder() -> dict[int, Path]:
    """For each count in `FOLDER_COUNTS`, a folder holding that many small Claude Code sessions
    (~12 lines each) and `FOLDER_AGENTS` legacy sub-agent files, as one busy project has; the
    smaller folders hard-link the first files of the largest."""
    base = DATA / "one-folder"
    folders = {count: base / f"{count}" / "-home-ana-busy" for count in FOLDER_COUNTS}
    if (base / ".complete").exists():
        return folders
    print("generating one folder of 10,000 sessions…", file=sys.stderr)
    rng = random.Random(5)
    largest = folders[max(FOLDER_COUNTS)]
    names: list[str] = []
    for index in range(max(FOLDER_COUNTS)):
        session = f"{index:08d}-1111-4000-8000-000000000000"
        writer = ClaudeWriter(rng, session, "/home/ana/busy")
        lines = [writer.prompt(f"task {index}: {' '.join(rng.choices(WORDS, k=8))}")]
        for _ in range(5):
            tool_id = f"toolu_{rng.randrange(10**12)}"
            lines.append(writer.assistant("looking", (tool_id, "Bash", {"command": "ls"})))
            lines.append(writer.result(tool_id, "\n".join(rng.choices(WORDS, k=20))))
        lines.append(writer.assistant("done", None))
        names.append(f"{session}.jsonl")
        write_lines(largest / names[-1], iter(lines))
    for index in range(FOLDER_AGENTS):
        session = f"{index * 97:08d}-1111-4000-8000-000000000000"
        writer = ClaudeWriter(rng, session, "/home/ana/busy")
        write_lines(largest / f"agent-{index:06x}.jsonl", iter([writer.prompt("sub-task")]))
        names.append(f"agent-{index:06x}.jsonl")
    for count, folder in folders.items():
        if folder == largest:
            continue
        folder.mkdir(parents=True, exist_ok=True)
        for name in [*names[:count], *names[-FOLDER_AGENTS:]]:
            os.link(largest / name, folder / name)
    (base / ".complete").write_text("ok\n")
    return folders


ONE_FOLDER_CHILD = """
import json, sys, tempfile, time
from pathlib import Path
from klipui.session.discover import InfoCache, discover, find_session_files
cache = InfoCache(Path(tempfile.mkdtemp(prefix="klipui-bench-")) / "info.json")
start = time.perf_counter()
files = find_session_files([sys.argv[1]])
latest = {}
for info in discover(files=files, cache=cache):
    latest[info.path] = info
seconds = time.perf_counter() - start
print(json.dumps({"files": len(files), "seconds": round(seconds, 3),
                  "problems": sum(1 for i in latest.values() if i.problem)}))
"""


def bench_one_folder() -> dict[str, Any]:
    """A cold listing (empty info cache, fresh process) of one folder of N sessions, for each N
    in `FOLDER_COUNTS`: the time must grow linearly with N."""
    out: dict[str, Any] = {}
    for count, folder in prepare_one_folder().items():
        done = subprocess.run(
            [sys.executable, "-c", ONE_FOLDER_CHILD, str(folder)],
            capture_output=True,
            text=True,
            check=True,
        )
        figures = json.loads(done.stdout)
        figures["ms_per_session"] = round(figures["seconds"] * 1000 / count, 3)
        out[str(count)] = figures
        print(f"one folder, {count} sessions, cold: {json.dumps(figures)}")
    return out


LOAD_CHILD = """
import json, resource, sys, time
def peak():
    # VmHWM: this process's own peak RSS (ru_maxrss keeps the parent's peak across exec).
    status = open("/proc/self/status").read()
    return int(status.split("VmHWM:")[1].split()[0]) * 1024
from pathlib import Path
from klipui.session import exact_info, open_session
if sys.argv[2] == "head":
    from klipui.screens.session import open_head
start = time.perf_counter()
cpu = time.process_time()
if sys.argv[2] in ("open", "whole"):
    session = open_session(sys.argv[1], indexed=sys.argv[2] == "open")
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu
    first = session.turn_events(1) if session.turns else []
    figures = {"events": len(session.events), "turns": len(session.turns),
               "format": session.format, "problems": len(session.problems),
               "index_first": type(session.events).__name__ == "LazyEvents",
               "first_turn_events": len(first),
               "first_turn_seconds": round(time.perf_counter() - start, 3)}
    import gc
    pause = time.perf_counter()
    gc.collect()
    figures["full_gc_after_load_seconds"] = round(time.perf_counter() - pause, 4)
elif sys.argv[2] == "head":
    session = open_head(Path(sys.argv[1]))
    first = session.turn_events(1) if session is not None and session.turns else []
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu
    figures = {"first_turn_events": len(first), "format": session.format if session else None}
else:
    info = exact_info(sys.argv[1])
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu
    figures = {"events": info.events, "turns": info.turns, "format": info.format,
               "tokens": info.tokens}
print(json.dumps({
    "seconds": seconds,
    "cpu_seconds": cpu_seconds,
    **figures,
    "max_rss_bytes": peak(),
    "ru_maxrss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
}))
"""


def load_in_child(path: Path, repeat: int = 1, mode: str = "open") -> dict[str, Any]:
    """`open_session` on `path` in fresh interpreters (mode "open": index-first where the format
    has an index; "whole": read and lowered whole; "exact": `exact_info`; "head": the session
    screen's head read and its first turn): best time of `repeat`, and peak RSS."""
    baseline = subprocess.run(
        [
            sys.executable,
            "-c",
            "import resource, klipui.session, klipui.session.formats as f; "
            "[f.adapter(n) for n in f.FORMATS]; "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    runs = []
    for _ in range(repeat):
        done = subprocess.run(
            [sys.executable, "-c", LOAD_CHILD, str(path), mode],
            capture_output=True,
            text=True,
            check=True,
        )
        runs.append(json.loads(done.stdout))
    result = min(runs, key=lambda run: run["seconds"])
    result["all_seconds"] = [round(run["seconds"], 3) for run in runs]
    result["cpu_seconds"] = round(result["cpu_seconds"], 3)
    size = path.stat().st_size
    result["file_bytes"] = size
    result["baseline_rss_bytes"] = int(baseline.stdout)
    result["rss_ratio"] = round(result["max_rss_bytes"] / size, 2)
    result["rss_ratio_above_baseline"] = round(
        (result["max_rss_bytes"] - int(baseline.stdout)) / size, 2
    )
    result["seconds"] = round(result["seconds"], 3)
    return result


def best_of(repeat: int, action: Any) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return min(times)


def bench_head(files: dict[str, Path], repeat: int) -> dict[str, Any]:
    from klipui.session import read_info

    out = {}
    for key in ("claude", "dsh", "dsh-zstd"):
        info = read_info(files[key])
        seconds = best_of(repeat, lambda key=key: read_info(files[key]))
        out[key] = {
            "seconds": round(seconds, 4),
            "format": info.format,
            "title": info.title,
            "turns_in_head": info.turns,
        }
    return out


def bench_listing(root: Path) -> dict[str, Any]:
    from klipui.session.discover import InfoCache, discover, find_session_files

    cache_file = Path(tempfile.mkdtemp(prefix="klipui-bench-")) / "info.json"
    results: dict[str, Any] = {}
    for phase in ("cold", "warm"):
        start = time.perf_counter()
        files = find_session_files([root])
        found = time.perf_counter() - start
        first = None
        quick_done = None
        exact = 0
        for count, info in enumerate(discover(files=files, cache=InfoCache(cache_file)), 1):
            now = time.perf_counter() - start
            if first is None:
                first = now
            if count == len(files):
                quick_done = now
            exact += info.exact
        total = time.perf_counter() - start
        results[phase] = {
            "files": len(files),
            "bytes": sum(f.stat().st_size for f in files),
            "find_files_seconds": round(found, 3),
            "first_result_seconds": round(first or 0, 3),
            "all_quick_seconds": round(quick_done or 0, 3),
            "all_exact_seconds": round(total, 3),
            "exact_infos": exact,
        }
    return results


INDEX_TARGETS = {
    "dsh": {"first_turn_seconds": 0.5, "exact_info_seconds": 1.0, "rss_ratio": 1.0},
    "claude": {"first_turn_seconds": 0.15, "index_seconds": 0.5, "rss_ratio": 1.0},
}


def bench_index(files: dict[str, Path], repeat: int) -> dict[str, Any]:
    """Issue 12's figures, one heavy child at a time: the first turn as the app shows it (its
    head read), the index-first open (and its first turn), exact info, and peak RSS."""
    out: dict[str, Any] = {
        "load_average_at_start": os.getloadavg(),
        "targets": INDEX_TARGETS,
    }
    for key in ("dsh", "dsh-zstd", "claude"):
        figures: dict[str, Any] = {}
        for mode in ("head", "open", "exact"):
            run = load_in_child(files[key], 1 if key.startswith("dsh") else repeat, mode)
            figures[mode] = {
                k: run[k]
                for k in (
                    "seconds",
                    "cpu_seconds",
                    "events",
                    "turns",
                    "index_first",
                    "first_turn_seconds",
                    "first_turn_events",
                    "max_rss_bytes",
                    "file_bytes",
                    "rss_ratio",
                    "all_seconds",
                )
                if k in run
            }
            print(f"index {key} {mode}: {json.dumps(figures[mode])}")
        out[key] = figures
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-listing", action="store_true", help="skip the 2 GB listing")
    parser.add_argument("--repeat", type=int, default=3, help="repeats of each measurement")
    parser.add_argument(
        "--one-folder-only",
        action="store_true",
        help="only the cold listing of one folder of 500 to 10,000 sessions",
    )
    parser.add_argument(
        "--index-only",
        action="store_true",
        help="only the index-first figures (issue 12): first turn, index, exact info, peak RSS",
    )
    parser.add_argument("--generate", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.index_only:
        subprocess.run([sys.executable, __file__, "--generate", "--skip-listing"], check=True)
        _merge_results({"index": bench_index(prepare(), args.repeat)})
        return 0
    if args.one_folder_only:
        figures = bench_one_folder()
        _merge_results({"one_folder_cold": figures})
        return 0
    if args.generate:
        prepare()
        if not args.skip_listing:
            prepare_listing()
        return 0
    # Generate in a child: a parent grown big by generation would inflate its children's peak RSS.
    command = [sys.executable, __file__, "--generate"]
    subprocess.run([*command, "--skip-listing"] if args.skip_listing else command, check=True)
    files = prepare()
    results: dict[str, Any] = {
        "python": sys.version.split()[0],
        "load_average_at_start": os.getloadavg(),
        "cpus": os.cpu_count(),
        "targets": {
            "head_seconds": 0.05,
            "load_100mb_seconds": 1.5,
            "rss_ratio": 2.5,
            "listing_first_cold_seconds": 0.5,
            "listing_first_warm_seconds": 0.2,
        },
    }
    results["head_read"] = bench_head(files, args.repeat)
    print("head read:", json.dumps(results["head_read"]))
    results["load_claude_100mb"] = load_in_child(files["claude"], args.repeat)
    print("load 100 MB claude:", json.dumps(results["load_claude_100mb"]))
    growth = {}
    for size in PREFIXES_MB:
        growth[f"{size}MB"] = load_in_child(files[f"claude-{size}"], args.repeat)
    growth["100MB"] = results["load_claude_100mb"]
    results["load_growth"] = {
        key: {
            "seconds": value["seconds"],
            "cpu_seconds": value["cpu_seconds"],
            "file_bytes": value["file_bytes"],
            "seconds_per_100mb": round(value["seconds"] * 100 * MB / value["file_bytes"], 3),
            "cpu_seconds_per_100mb": round(
                value["cpu_seconds"] * 100 * MB / value["file_bytes"], 3
            ),
        }
        for key, value in growth.items()
    }
    print("growth:", json.dumps(results["load_growth"]))
    results["load_dsh_1m_events"] = load_in_child(files["dsh"], 1)
    print("load dsh 1M events:", json.dumps(results["load_dsh_1m_events"]))
    results["exact_info_dsh_1m_events"] = load_in_child(files["dsh"], args.repeat, "exact")
    print("exact info (typed scan) dsh 1M events:", json.dumps(results["exact_info_dsh_1m_events"]))
    results["load_dsh_1m_events_zstd"] = load_in_child(files["dsh-zstd"], 1)
    print("load dsh 1M events, zstd:", json.dumps(results["load_dsh_1m_events_zstd"]))
    results["exact_info_dsh_1m_events_zstd"] = load_in_child(files["dsh-zstd"], 1, "exact")
    print("exact info dsh zstd:", json.dumps(results["exact_info_dsh_1m_events_zstd"]))
    results["exact_info_claude_100mb"] = load_in_child(files["claude"], args.repeat, "exact")
    print("exact info claude 100 MB:", json.dumps(results["exact_info_claude_100mb"]))
    if not args.skip_listing:
        results["listing"] = bench_listing(prepare_listing())
        print("listing:", json.dumps(results["listing"]))
    results["one_folder_cold"] = bench_one_folder()
    _merge_results(results)
    return 0


def _merge_results(results: dict[str, Any]) -> None:
    """Write `results` into bench/results/open.json, keeping the figures of other cases."""
    previous: dict[str, Any] = {}
    if RESULTS.exists():
        previous = json.loads(RESULTS.read_text())
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({**previous, **results}, indent=2) + "\n")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    raise SystemExit(main())
