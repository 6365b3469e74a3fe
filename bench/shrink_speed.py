"""Speed of `klipui.shrink`: throughput per reducer on 1 MB and 20 MB, detection on 100 MB.

Inputs are built from the real corpus (tests/fixtures/corpus): each reducer gets copies of the
outputs of its own kind joined until the size is reached (JSON as one array of copies, CSV with
one header), and runs alone through the pipeline (`only=[name]`) at the case's budget.
Detection of every reducer is timed on 1 MB and 100 MB inputs: it samples, so the times should
match. Prints a table and writes bench/results/shrink_speed.json.

Targets: >= 20 MB/s for every reducer on 20 MB; detection independent of input size;
20 MB costs <= 25x what 1 MB costs.

Each figure is the best of several runs (7 at 1 MB, 3 at 20 MB). Throughput is from wall-clock
time; the cost ratio ("scaling") is from the CPU time of this process, which other programs
running on the same cores disturb far less than wall-clock time (both are recorded).

Usage: python bench/shrink_speed.py [--sizes 1,20] [--detect-mb 100] [--only a,b]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import klipui.shrink.text as text_module  # noqa: E402
from klipui.shrink import Budget, Hint, builtin_reducers, shrink  # noqa: E402

CORPUS = ROOT / "tests" / "fixtures" / "corpus"
MB = 1_000_000
KIND_OF = {
    "diff": "diff",
    "json": "json",
    "csv": "csv",
    "tests": "tests",
    "build": "build",
    "lint": "lint",
    "stacktrace": "stacktrace",
    "gitlog": "gitlog",
    "install": "install",
    "log": "log",
    "tree": "tree",
    "repeat": "repeat",
}
CASE_OF = {"grep": "21-grep-jinja-undefined", "outline": "22-read-bottle-py"}
QUERY = "error failed timeout"


def _cases() -> list[tuple[str, dict]]:
    found = []
    for folder in sorted(CORPUS.iterdir()):
        if (folder / "output.txt").is_file():
            meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
            meta["case"] = folder.name
            found.append(((folder / "output.txt").read_text(encoding="utf-8"), meta))
    return found


def _grow(parts: list[str], size: int, name: str) -> str:
    """Copies of `parts` joined to about `size` characters, keeping the shape valid."""
    if name == "json":
        values = [json.loads(p) for p in parts]
        one = len(json.dumps(values[0], indent=2))
        copies = max(1, size // one)
        return json.dumps([values[i % len(values)] for i in range(copies)], indent=2)
    if name == "csv":
        header, *rows = parts[0].split("\n")
        body = "\n".join(rows)
        copies = max(1, size // max(1, len(body)))
        return header + "\n" + "\n".join([body] * copies)
    chunks: list[str] = []
    total = 0
    i = 0
    while total < size:
        piece = parts[i % len(parts)]
        piece = piece if piece.endswith("\n") else piece + "\n"
        chunks.append(piece)
        total += len(piece)
        i += 1
    return "".join(chunks)


def _input_for(name: str, cases: list[tuple[str, dict]]) -> tuple[list[str], dict]:
    if name in KIND_OF:
        chosen = [(t, m) for t, m in cases if m["kind"] == KIND_OF[name]]
    elif name in CASE_OF:
        chosen = [(t, m) for t, m in cases if m["case"] == CASE_OF[name]]
    else:  # semantic, size: every case
        chosen = cases
    return [t for t, _ in chosen], chosen[0][1]


def _time(call, repeat: int = 1) -> float:  # type: ignore[no-untyped-def]
    return _times(call, repeat)[0]


def _times(call, repeat: int = 1) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """(best wall-clock seconds, best CPU seconds of this process) over `repeat` calls."""
    best_wall = best_cpu = float("inf")
    for _ in range(repeat):
        started, started_cpu = time.perf_counter(), time.process_time()
        call()
        best_cpu = min(best_cpu, time.process_time() - started_cpu)
        best_wall = min(best_wall, time.perf_counter() - started)
    return best_wall, best_cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,20", help="input sizes in MB (default 1,20)")
    parser.add_argument("--detect-mb", type=int, default=100)
    parser.add_argument("--only", help="reducers to measure (default all)")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "bench" / "results" / "shrink_speed.json"
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    cases = _cases()
    reducers = builtin_reducers()
    if args.only:
        wanted = set(args.only.split(","))
        reducers = [r for r in reducers if r.name in wanted]

    rows = []
    print(f"{'reducer':12} {'MB':>4} {'seconds':>8} {'cpu s':>8} {'MB/s':>7} {'strategy':20}")
    for module in reducers:
        parts, meta = _input_for(module.name, cases)
        hint = Hint(tool=meta["tool"], command=meta["command"])
        if module.name == "semantic":
            hint = Hint(tool=meta["tool"], query=QUERY)
        if module.name == "outline":
            hint = Hint(tool="read", path=meta["command"])
        row: dict = {"reducer": module.name, "case": meta["case"]}
        for size in sizes:
            text = _grow(parts, size * MB, module.name)
            budget = Budget(max_chars=meta["budget_chars"])
            print(f"  {module.name} {size} MB ...", file=sys.stderr, end="\r")
            result = None

            def run(
                text: str = text,
                budget: Budget = budget,
                hint: Hint = hint,
                name: str = module.name,
            ) -> None:
                nonlocal result
                text_module._last = None  # no reuse of the previous run's line split
                result = shrink(text, hint, budget, only=[name])

            seconds, cpu = _times(run, repeat=7 if size <= 1 else 3)
            assert result is not None
            rate = len(text) / MB / seconds
            row[f"{size}mb"] = {
                "chars": len(text),
                "seconds": round(seconds, 4),
                "cpu_seconds": round(cpu, 4),
                "mb_per_s": round(rate, 1),
                "strategy": result.strategy,
                "output_chars": len(result.content),
            }
            print(
                f"{module.name:12} {size:4} {seconds:8.3f} {cpu:8.3f} {rate:7.1f}"
                f" {result.strategy:20}"
            )
        if len(sizes) >= 2:
            small, big = row[f"{sizes[0]}mb"], row[f"{sizes[-1]}mb"]
            row["scaling"] = round(big["cpu_seconds"] / small["cpu_seconds"], 1)
            row["scaling_wall"] = round(big["seconds"] / small["seconds"], 1)
        rows.append(row)

    print()
    print(f"detection: 1 MB vs {args.detect_mb} MB (seconds per call)")
    base_parts = [t for t, _ in cases]
    small = _grow(base_parts, MB, "any")
    big = _grow(base_parts, args.detect_mb * MB, "any")
    detection = []
    for module in builtin_reducers():
        hint = Hint(tool="bash", command="make test", query=QUERY)
        t_small = _time(lambda m=module, h=hint: m.detect(small, h), repeat=3)
        t_big = _time(lambda m=module, h=hint: m.detect(big, h), repeat=3)
        detection.append(
            {"reducer": module.name, "1mb_s": round(t_small, 5), "big_s": round(t_big, 5)}
        )
        print(f"{module.name:12} {t_small * 1000:8.2f} ms {t_big * 1000:8.2f} ms")

    slowest = min(r[f"{sizes[-1]}mb"]["mb_per_s"] for r in rows) if rows else 0.0
    worst_scaling = max((r.get("scaling", 0.0) for r in rows), default=0.0)
    report = {
        "sizes_mb": sizes,
        "detect_mb": args.detect_mb,
        "reducers": rows,
        "detection": detection,
        "summary": {
            "slowest_mb_per_s_at_largest": slowest,
            "worst_scaling": worst_scaling,
            "meets_throughput_target": slowest >= 20,
            "meets_scaling_target": worst_scaling <= 25,
        },
    }
    print()
    print(
        f"slowest reducer at {sizes[-1]} MB: {slowest:.1f} MB/s (target 20);"
        f" worst {sizes[-1]}/{sizes[0]} MB cost ratio: {worst_scaling:.1f}x (target <= 25)"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
