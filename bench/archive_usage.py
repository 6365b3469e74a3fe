"""Benchmark the archive and usage on the real samples, spread over the agents' folders.

A temporary home gets every sample session (tests/fixtures/samples) in its agent's folder,
`--copies` times over (distinct file names, about 5 MB a copy). Measured: the first archive run
(bytes in → out, seconds), a second run with nothing changed, a run after appending to one
session, the listing with the archive merged in, and `usage` over every session.
Prints the figures and writes bench/results/archive_usage.json.

    python bench/archive_usage.py [--copies N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

HERE = Path(__file__).resolve().parent
SAMPLES = HERE.parent / "tests" / "fixtures" / "samples"
RESULTS = HERE / "results" / "archive_usage.json"


def _populate(home: Path, copies: int) -> list[Path]:
    placed = []
    for copy in range(copies):
        for sample in sorted(SAMPLES.rglob("*.jsonl")):
            agent = sample.parent.name
            if agent == "claude-code":
                target = home / ".claude" / "projects" / f"-p{copy}" / sample.name
            elif agent == "codex":
                target = home / ".codex" / "sessions" / "2026" / "01" / f"{copy:02d}"
                target = target / f"rollout-{copy}-{sample.name}"
            elif agent == "pi":
                target = home / ".pi" / "agent" / "sessions" / f"--p{copy}--" / sample.name
            else:
                target = home / ".dsh" / "sessions" / f"--p{copy}--" / sample.stem / "session.jsonl"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(sample, target)
            placed.append(target)
    return placed


def _timed(call: Callable[[], T]) -> tuple[T, float]:
    started = time.perf_counter()
    value = call()
    return value, time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--copies", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        home = Path(temp)
        for name, sub in (
            ("HOME", ""),
            ("XDG_DATA_HOME", ".local/share"),
            ("XDG_CACHE_HOME", ".cache"),
            ("CLAUDE_CONFIG_DIR", ".claude"),
            ("CODEX_HOME", ".codex"),
            ("DSH_HOME", ".dsh"),
        ):
            os.environ[name] = str(home / sub) if sub else str(home)
        os.environ.pop("KLIPUI_ARCHIVE", None)
        from klipui.archive import run_archive
        from klipui.session.discover import find_session_files
        from klipui.usage import collect, summarize

        placed = _populate(home, args.copies)
        first, first_s = _timed(run_archive)
        again, again_s = _timed(run_archive)
        grown = max(placed, key=lambda p: p.stat().st_size)
        with grown.open("ab") as out:
            out.write(grown.read_bytes()[:100_000].rsplit(b"\n", 1)[0] + b"\n")
        append, append_s = _timed(run_archive)
        listed, list_s = _timed(find_session_files)
        usages, usage_s = _timed(lambda: list(collect()))
        report = summarize(usages, by="day")
    figures = {
        "sessions": len(placed),
        "first_run": {
            "bytes_in": first.new_bytes,
            "bytes_out": first.written,
            "ratio": round(first.new_bytes / max(1, first.written), 2),
            "seconds": round(first_s, 3),
            "mb_per_s": round(first.new_bytes / 1e6 / first_s, 1),
        },
        "unchanged_run_seconds": round(again_s, 4),
        "unchanged_files": again.states["unchanged"],
        "append_run": {
            "bytes_in": append.new_bytes,
            "bytes_out": append.written,
            "seconds": round(append_s, 4),
        },
        "listing_with_archive_seconds": round(list_s, 4),
        "listed": len(listed),
        "usage_seconds": round(usage_s, 3),
        "usage_total_tokens": report.total.tokens.total,
        "usage_days": len(report.rows),
    }
    print(json.dumps(figures, indent=2))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
