"""Benchmark KInterval: parse, resolve and warnings for 1k, 8k and 64k clauses.

Two selections a size: `a..b` ranges mixed with exclusions (the issue 11 case) and alternating
single turns and exclusions (every exclusion is checked against the selected turns, the case that
made the warnings quadratic). Times are CPU seconds, best of `--repeat`. Target (issue 11 item 7):
linear, i.e. 8x the clauses cost about 8x the time. Writes bench/results/interval.json.

    python bench/interval.py [--repeat R]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path

from klipui.klip import parse_interval

RESULTS = Path(__file__).resolve().parent / "results" / "interval.json"
SIZES = (1_000, 8_000, 64_000)


def ranges(count: int) -> str:
    return ", ".join(f"{i}..{i + 2}" if i % 3 else f"not {i}" for i in range(1, count + 1))


def alternating(count: int) -> str:
    return ", ".join(str(i) if i % 2 else f"not {i}" for i in range(1, count + 1))


def best(work: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.process_time()
        work()
        times.append(time.process_time() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for shape, make in (("ranges", ranges), ("alternating", alternating)):
        for count in SIZES:
            text = make(count)
            selection = parse_interval(text)
            row = {
                "shape": shape,
                "clauses": count,
                "chars": len(text),
                "parse_s": round(best(lambda t=text: parse_interval(t), args.repeat), 4),
                "resolve_s": round(best(lambda s=selection, n=count: s.resolve(n), args.repeat), 4),
                "warnings_s": round(
                    best(lambda s=selection, n=count: s.warnings(n), args.repeat), 4
                ),
            }
            rows.append(row)
            print(
                f"{shape:11} {count:>6} clauses {len(text):>8} chars: parse {row['parse_s']:.4f} s"
                f"  resolve {row['resolve_s']:.4f} s  warnings {row['warnings_s']:.4f} s"
            )
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps({"kinterval": rows}, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
