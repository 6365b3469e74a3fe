"""Benchmark the search index on a generated archive of Claude Code sessions.

Targets (issue 13), for 500 sessions, ~1 GB, tool results taken from tests/fixtures/corpus:
- cold index <= 60 s on 2 cores, first results usable (first file committed) <= 2 s;
- 1 MB appended to one session taken in <= 0.5 s (a whole `update` over every file);
- query latency p50/p95 over 50 varied queries, p95 <= 50 ms warm;
- `klipui search WORD DIR` as a process against `grep -rl WORD DIR`;
- index size against the text indexed <= 40 %.

The archive and the index are written to a temporary folder, removed at the end. Prints the
figures and writes bench/results/search.json (search-small.json below 500 sessions).

    python bench/search.py [--sessions N] [--mb-per-session M] [--workers W]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import orjson

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CORPUS = ROOT / "tests" / "fixtures" / "corpus"
WORDS = [
    "fix",
    "the",
    "failing",
    "test",
    "in",
    "the",
    "ledger",
    "module",
    "and",
    "explain",
    "why",
    "rounding",
    "drifts",
    "when",
    "the",
    "currency",
    "converter",
    "caches",
    "rates",
    "across",
    "requests",
    "please",
    "check",
    "the",
    "build",
    "config",
    "the",
    "parser",
    "the",
    "release",
    "notes",
    "and",
    "the",
    "migration",
    "script",
    "before",
    "we",
    "ship",
]
QUERIES = [
    "error",
    "AssertionError",
    "TypeError: 'NoneType'",
    "rounding",
    "KeyError EUR",
    '"DID NOT RAISE"',
    "migrat*",
    "ledger AND currency",
    "failed OR error",
    "warning NOT deprecated",
    "test_convert_is_positive",
    "src/main.rs",
    "Traceback",
    "panicked",
    "cargo",
    "npm ERR",
    "eslint",
    "segmentation fault",
    "timeout",
    "connection refused",
    "deadbeef",
    "the",
    "passed",
    "import",
    "docker",
    "SELECT",
    "null pointer",
    '"test session starts"',
    "pytest*",
    "rate*",
    "unused variable",
    "mypy",
    "Exception",
    "permission denied",
    "No such file or directory",
    "git diff",
    "commit",
    "merge conflict",
    "HTTP 500",
    "json",
    "yaml",
    "config",
    "release",
    "build failed",
    "undefined reference",
    "zebra",
    "ROUND_HALF_EVEN",
    "Decimal",
    "cache",
    "parser",
]


def corpus_outputs() -> list[tuple[str, list[str]]]:
    """(command, lines) of every corpus case."""
    out = []
    for case in sorted(CORPUS.iterdir()):
        text_file = case / "output.txt"
        if not text_file.is_file():
            continue
        meta = json.loads((case / "meta.json").read_text(encoding="utf-8"))
        lines = text_file.read_text(encoding="utf-8", errors="replace").splitlines()
        out.append((str(meta.get("command") or meta.get("tool") or "run"), lines))
    return out


def _record(kind: str, session: str, parent: str | None, ts: float, message: dict) -> dict:
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ts)) + ".000Z"
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "userType": "external",
        "cwd": f"/home/dev/project{hash(session) % 40}",
        "sessionId": session,
        "version": "2.1.12",
        "type": kind,
        "uuid": str(uuid.uuid4()),
        "timestamp": stamp,
        "message": message,
    }


def write_session(
    path: Path, size: int, outputs: list[tuple[str, list[str]]], rng: random.Random
) -> None:
    """A Claude Code session of about `size` bytes: turns of a prompt, thinking, a text, tool
    calls whose results are windows of corpus outputs (with a few unique tokens)."""
    session = str(uuid.UUID(int=rng.getrandbits(128)))
    ts = 1_760_000_000 + rng.random() * 10_000_000
    parent: str | None = None
    written = 0
    with path.open("wb") as out:

        def put(kind: str, message: dict) -> None:
            nonlocal parent, written, ts
            ts += rng.random() * 30
            record = _record(kind, session, parent, ts, message)
            parent = record["uuid"]
            line = orjson.dumps(record) + b"\n"
            out.write(line)
            written += len(line)

        while written < size:
            prompt = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 40)))
            put("user", {"role": "user", "content": prompt})
            thinking = " ".join(rng.choice(WORDS) for _ in range(rng.randint(10, 80)))
            put(
                "assistant",
                {"role": "assistant", "content": [{"type": "thinking", "thinking": thinking}]},
            )
            for _ in range(rng.randint(1, 4)):
                command, lines = rng.choice(outputs)
                call = f"toolu_{rng.getrandbits(64):016x}"
                put(
                    "assistant",
                    {
                        "role": "assistant",
                        "content": [
                            {
                                "type": "tool_use",
                                "id": call,
                                "name": "Bash",
                                "input": {"command": command},
                            }
                        ],
                    },
                )
                start = rng.randrange(max(1, len(lines)))
                window = lines[start : start + rng.randint(20, 800)]
                window.append(f"run {rng.getrandbits(32):08x} done in {rng.random() * 9:.2f}s")
                put(
                    "user",
                    {
                        "role": "user",
                        "content": [
                            {
                                "type": "tool_result",
                                "tool_use_id": call,
                                "content": "\n".join(window),
                            }
                        ],
                    },
                )
            answer = " ".join(rng.choice(WORDS) for _ in range(rng.randint(10, 120)))
            put("assistant", {"role": "assistant", "content": [{"type": "text", "text": answer}]})


def generate(folder: Path, sessions: int, mb: float, seed: int = 13) -> list[Path]:
    rng = random.Random(seed)
    outputs = corpus_outputs()
    files = []
    for number in range(sessions):
        project = folder / f"-home-dev-project{number % 40}"
        project.mkdir(parents=True, exist_ok=True)
        path = project / f"{uuid.UUID(int=rng.getrandbits(128))}.jsonl"
        size = int(mb * 1_000_000 * rng.uniform(0.3, 1.7))
        write_session(path, size, outputs, rng)
        files.append(path)
    return files


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=500)
    parser.add_argument("--mb-per-session", type=float, default=2.0)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()

    from klipui.search import SearchIndex
    from klipui.session.discover import find_session_files

    temp = Path(tempfile.mkdtemp(prefix="klipui-search-bench-"))
    try:
        archive = temp / "projects"
        started = time.perf_counter()
        files = generate(archive, args.sessions, args.mb_per_session)
        archive_bytes = sum(p.stat().st_size for p in files)
        print(
            f"archive: {len(files)} sessions, {archive_bytes / 1e6:.0f} MB "
            f"(generated in {time.perf_counter() - started:.1f} s)"
        )
        cache = temp / "cache"
        os.environ["XDG_CACHE_HOME"] = str(cache)
        files = find_session_files([archive])

        # cold index
        first: list[float] = []
        start = time.perf_counter()

        def progress(done: int, total: int) -> None:
            if done and not first:
                first.append(time.perf_counter() - start)

        with SearchIndex() as index:
            report = index.update(files, on_progress=progress, workers=args.workers)
            cold = time.perf_counter() - start
            index.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            index_bytes = index.size_bytes()
            units = index.counts()[1]
        print(
            f"cold index: {cold:.1f} s ({archive_bytes / 1e6 / cold:.1f} MB/s), first file "
            f"committed after {first[0] if first else 0:.2f} s; {units:,} units, "
            f"{report.text_bytes / 1e6:.0f} MB of text"
        )
        ratio = index_bytes / max(1, report.text_bytes)
        print(
            f"index: {index_bytes / 1e6:.0f} MB = {ratio:.0%} of the text indexed "
            f"({index_bytes / archive_bytes:.0%} of the archive)"
        )

        # queries, warm
        latencies: list[float] = []
        hits: dict[str, int] = {}
        with SearchIndex() as index:
            for query in QUERIES:
                index.search(query, paths=files)
            for query in QUERIES:
                t = time.perf_counter()
                result = index.search(query, paths=files)
                latencies.append((time.perf_counter() - t) * 1000)
                hits[query] = len(result.hits)
        p50, p95 = percentile(latencies, 0.5), percentile(latencies, 0.95)
        slowest = sorted(zip(latencies, QUERIES, strict=True), reverse=True)[:3]
        print(
            f"queries: p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {max(latencies):.1f} ms "
            f"(slowest: {', '.join(f'{q!r} {ms:.0f} ms' for ms, q in slowest)})"
        )

        # 1 MB appended to one session
        target = files[len(files) // 2]
        extra = temp / "extra.jsonl"
        write_session(extra, 1_000_000, corpus_outputs(), random.Random(7))
        with target.open("ab") as out:
            out.write(extra.read_bytes())
        with SearchIndex() as index:
            t = time.perf_counter()
            append_report = index.update(files, workers=args.workers)
            append = time.perf_counter() - t
        print(
            f"1 MB append: {append:.2f} s for the whole update "
            f"({append_report.appended} appended, {append_report.unchanged} unchanged)"
        )

        # the command as a process against grep -rl
        env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
        word = "RecursionError"
        command = [sys.executable, "-m", "klipui", "search", word, str(archive), "--json"]
        t = time.perf_counter()
        done = subprocess.run(command, env=env, capture_output=True, check=True)
        process = time.perf_counter() - t
        t = time.perf_counter()
        grep = subprocess.run(["grep", "-rl", word, str(archive)], capture_output=True)
        grep_time = time.perf_counter() - t
        print(
            f"klipui search {word}: {process:.2f} s ({len(json.loads(done.stdout))} hits); "
            f"grep -rl: {grep_time:.2f} s ({len(grep.stdout.splitlines())} files)"
        )

        results = {
            "sessions": len(files),
            "archive_mb": round(archive_bytes / 1e6, 1),
            "workers": args.workers,
            "cpus": os.cpu_count(),
            "cold_index_s": round(cold, 2),
            "first_commit_s": round(first[0], 3) if first else None,
            "units": units,
            "text_mb": round(report.text_bytes / 1e6, 1),
            "index_mb": round(index_bytes / 1e6, 1),
            "index_over_text": round(ratio, 3),
            "query_p50_ms": round(p50, 2),
            "query_p95_ms": round(p95, 2),
            "query_max_ms": round(max(latencies), 2),
            "append_1mb_s": round(append, 3),
            "search_process_s": round(process, 3),
            "grep_rl_s": round(grep_time, 3),
            "hits_per_query": hits,
        }
        name = "search.json" if args.sessions >= 500 else "search-small.json"
        out_path = HERE / "results" / name
        out_path.parent.mkdir(exist_ok=True)
        out_path.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
        print(f"wrote {out_path.relative_to(ROOT)}")
    finally:
        shutil.rmtree(temp, ignore_errors=True)


if __name__ == "__main__":
    main()
