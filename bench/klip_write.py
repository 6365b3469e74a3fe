"""Benchmark writing a clipped 100 MB Claude Code session (target: <= 2 s).

Uses the 100 MB session bench/open.py generates (about 20,000 lines, tool results from 1 KB to
2 MB, one 12 MB line; made once under bench/data/). For each selection, times separately: the
load (`open_session`, not part of the target), making the child (`plan_child`: reindex, record
selection, id and link rewriting), and writing it (`write_child`). Untouched content is copied
as raw bytes: only the `"key":value` pairs that change are replaced inside each line. Best of
`--repeat` runs; writes bench/results/klip_write.json.

    python bench/klip_write.py [--repeat R]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "klip_write.json"
SELECTIONS = ("2..-2", "..-2, not 3..20", "-10..")
TARGET_SECONDS = 2.0


def data_file() -> Path:
    """The 100 MB Claude Code session of bench/open.py (generated when missing)."""
    spec = importlib.util.spec_from_file_location("bench_open", ROOT / "bench" / "open.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    path = module.DATA / "claude-100mb.jsonl"
    if not path.exists():
        import random

        print("generating the 100 MB Claude Code session…", file=sys.stderr)
        lines = module.claude_lines(
            random.Random(1), module.CLAUDE_BYTES, module.CLAUDE_LINES, module.HUGE_LINE
        )
        module.write_lines(path, lines)
    return path


def main() -> int:
    from klipui.klip.child import plan_child, write_child
    from klipui.session import open_session

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    path = data_file()
    started = time.perf_counter()
    session = open_session(path)
    load = time.perf_counter() - started
    size = path.stat().st_size
    print(
        f"{path.name}: {size / 1e6:.0f} MB, {len(session.records)} lines, "
        f"{len(session.turns)} turns; load {load:.2f} s (not timed below)"
    )
    figures = {}
    folder = Path(tempfile.mkdtemp(prefix="klip-write-"))
    try:
        for selection in SELECTIONS:
            best_plan = best_write = float("inf")
            for attempt in range(args.repeat):
                target = folder / f"child-{attempt}.jsonl"
                t0 = time.perf_counter()
                plan = plan_child(session, selection, out=target)
                t1 = time.perf_counter()
                write_child(plan)
                t2 = time.perf_counter()
                best_plan, best_write = min(best_plan, t1 - t0), min(best_write, t2 - t1)
                written = target.stat().st_size
                target.unlink()
            total = best_plan + best_write
            figures[selection] = {
                "turns_kept": len(plan.turns),
                "lines": len(plan.lines),
                "child_bytes": written,
                "plan_seconds": round(best_plan, 3),
                "write_seconds": round(best_write, 3),
                "seconds": round(total, 3),
                "mb_per_second": round(written / 1e6 / total, 1),
                "within_target": total <= TARGET_SECONDS,
            }
            print(
                f"  {selection!r:<20} {len(plan.turns):>5} turns  {written / 1e6:6.1f} MB  "
                f"make {best_plan:.2f} s + write {best_write:.2f} s = {total:.2f} s "
                f"({'ok' if total <= TARGET_SECONDS else 'OVER'} ≤ {TARGET_SECONDS} s)"
            )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    print(f"peak RSS {peak / 1e6:.0f} MB ({peak / size:.1f}× the file)")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "about": "bench/klip_write.py: clip and write a 100 MB Claude Code session",
                "machine": platform.platform(),
                "python": platform.python_version(),
                "file_bytes": size,
                "file_lines": len(session.records),
                "turns": len(session.turns),
                "load_seconds": round(load, 3),
                "target_seconds": TARGET_SECONDS,
                "selections": figures,
                "peak_rss_bytes": peak,
            },
            indent=1,
        )
        + "\n"
    )
    print(f"wrote {RESULTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
