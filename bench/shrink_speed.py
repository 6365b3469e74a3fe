"""Speed of `klipui.shrink` against the reference toolshrink, per kind, on the same inputs.

For each kind (tests, diff, log, find/tree, lint, JSON and a fallback text no reducer recognises)
an input is grown from a real output of the corpus (tests/fixtures/corpus) to the size asked
(default 20 MB), written to a temporary file, and shrunk at the case's budget by both:

- `klipui.shrink.shrink` in this process (the whole chain, as `klipui shrink` runs it);
- toolshrink in one `node` process: `shrink.mjs --bench FILE RUNS` times an in-process shrink.

Each figure is the best of several alternating rounds; the ratio klipui/toolshrink is printed
per kind
(target: <= 1.0 on every kind). Then klipui alone on each size of `--scale` (default 1, 10 and
100 MB) of each kind of `--scale-only`, with its CPU time per MB (CPU time, which neighbours
disturb less than wall-clock time): linear cost keeps the per-MB figure flat, and the growth
factor (the largest rise of the per-MB cost from any size to a bigger one; a small input's
fixed costs would hide a rise if only the ends were compared) stays <= 1.25. Last, every
detector on the smallest and biggest size (detection samples: the times should match). Writes
bench/results/shrink_speed.json.

The comparison is repeated at `--small-mb` (default 1 MB; 0 skips it): inputs up to about 2 MB
get more analysis (segments, ties ranked by salience, the full diff ranking), so their ratio is
reported per kind too.

Usage: python bench/shrink_speed.py [--mb 20] [--small-mb 1] [--runs 5] [--scale 1,10,100]
       [--only tests,diff] [--scale-only tests,diff]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import klipui.shrink.text as text_module  # noqa: E402
from klipui.shrink import Budget, Hint, builtin_reducers, shrink  # noqa: E402

CORPUS = ROOT / "tests" / "fixtures" / "corpus"
TOOLSHRINK = ROOT.parent / "shared" / "tools" / "anchors" / "toolshrink" / "shrink.mjs"
MB = 1_000_000
KINDS: dict[str, str] = {
    "tests": "01-pytest-ledger-mixed",
    "diff": "14-git-diff-jinja-rename",
    "log": "17-python-http-app-log",
    "tree": "19-ls-laR-node-modules",
    "lint": "08-ruff-webob",
    "json": "15-npm-view-rollup-json",
    "fallback": "23-man-git-rebase-prose",
    "log-bracketed": "shapes:python-worker-log-traceback.txt",
}
"""Kind → the corpus case its input is grown from (the fallback: a man page, prose). toolshrink
reads the corpus log (`12:00:00,123` timestamps) as CSV, which costs it nearly nothing, so a
second log, captured here with `[12:00:00]` timestamps, compares the two log reducers."""
SHAPES = ROOT / "tests" / "fixtures" / "shrink_shapes"
SHAPE_META = {"tool": "bash", "command": "python3 worker.py", "budget_chars": 4000}


def _case(name: str) -> tuple[str, dict]:
    if name.startswith("shapes:"):
        text = (SHAPES / name.removeprefix("shapes:")).read_text(encoding="utf-8")
        return text, dict(SHAPE_META)
    folder = CORPUS / name
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    return (folder / "output.txt").read_text(encoding="utf-8"), meta


def grow(text: str, size: int, kind: str) -> str:
    """Copies of `text` joined to about `size` characters, keeping the shape valid (JSON as one
    array of copies)."""
    if kind == "json":
        one = json.loads(text)
        copies = max(1, size // len(json.dumps(one, indent=2)))
        return json.dumps([one] * copies, indent=2)
    piece = text if text.endswith("\n") else text + "\n"
    return piece * max(1, -(-size // len(piece)))


def _best(call: Callable[[], object], runs: int) -> tuple[float, float, object]:
    """(best wall-clock seconds, best CPU seconds, last result) over `runs` calls."""
    best_wall = best_cpu = float("inf")
    result: object = None
    for _ in range(runs):
        text_module._last = None  # no reuse of the previous run's line split
        started, started_cpu = time.perf_counter(), time.process_time()
        result = call()
        best_cpu = min(best_cpu, time.process_time() - started_cpu)
        best_wall = min(best_wall, time.perf_counter() - started)
    return best_wall, best_cpu, result


def _klipui(text: str, meta: dict, runs: int) -> dict:
    hint = Hint(tool=meta["tool"], command=meta["command"])
    budget = Budget(max_chars=meta["budget_chars"])
    wall, cpu, result = _best(lambda: shrink(text, hint, budget), runs)
    return {
        "seconds": round(wall, 4),
        "cpu_seconds": round(cpu, 4),
        "strategy": result.strategy,  # type: ignore[attr-defined]
        "output_chars": len(result.content),  # type: ignore[attr-defined]
    }


def _toolshrink(path: Path, meta: dict, runs: int) -> dict:
    env = {
        "BUDGET_CHARS": str(meta["budget_chars"]),
        "HINT_TOOL": meta["tool"],
        "HINT_COMMAND": meta["command"],
        "PATH": "/usr/local/bin:/usr/bin:/bin",
    }
    done = subprocess.run(
        ["node", "--max-old-space-size=8192", str(TOOLSHRINK), "--bench", str(path), str(runs)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    return {
        "seconds": round(report["seconds"], 4),
        "strategy": report["strategy"],
        "output_chars": report["chars_out"],
    }


def _compare(text: str, path: Path, meta: dict, rounds: int) -> tuple[dict, dict]:
    """Both shrinkers timed in alternating rounds (klipui once, then toolshrink twice in one
    process, its second run warmed up), so that a busy moment of the machine slows both; the best
    round of each is kept."""
    ours: dict | None = None
    theirs: dict | None = None
    for _ in range(rounds):
        mine = _klipui(text, meta, 1)
        other = _toolshrink(path, meta, 2)
        if ours is None or mine["seconds"] < ours["seconds"]:
            ours = mine
        if theirs is None or other["seconds"] < theirs["seconds"]:
            theirs = other
    assert ours is not None and theirs is not None
    return ours, theirs


def _compare_kinds(kinds: list[str], mb: int, runs: int) -> list[dict]:
    """Both shrinkers on each kind's input grown to `mb` MB: one row a kind, printed."""
    rows = []
    print(f"{mb} MB, best of {runs}")
    print(f"{'kind':9} {'klipui s':>9} {'toolshrink s':>13} {'ratio':>6}  strategies")
    with tempfile.TemporaryDirectory() as scratch:
        for kind in kinds:
            source, meta = _case(KINDS[kind])
            text = grow(source, mb * MB, kind)
            path = Path(scratch) / f"{kind}.txt"
            path.write_text(text, encoding="utf-8")
            ours, theirs = _compare(text, path, meta, runs)
            path.unlink()
            ratio = ours["seconds"] / theirs["seconds"]
            row = {
                "kind": kind,
                "case": KINDS[kind],
                "chars": len(text),
                "klipui": ours,
                "toolshrink": theirs,
                "ratio": round(ratio, 2),
            }
            rows.append(row)
            print(
                f"{kind:9} {ours['seconds']:9.3f} {theirs['seconds']:13.3f} {ratio:6.2f}"
                f"  {ours['strategy']} / {theirs['strategy']}"
            )
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=20, help="size of the compared inputs")
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (best is kept)")
    parser.add_argument(
        "--small-mb",
        type=int,
        default=1,
        help="a second comparison at this size (0: none): small inputs get more analysis",
    )
    parser.add_argument("--scale", default="1,10,100", help="sizes in MB for klipui's cost growth")
    parser.add_argument("--only", help="kinds to measure (default all)")
    parser.add_argument("--scale-only", help="kinds whose cost growth is measured (default --only)")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "bench" / "results" / "shrink_speed.json"
    )
    args = parser.parse_args()
    kinds = args.only.split(",") if args.only else list(KINDS)
    scale = sorted({int(s) for s in args.scale.split(",")}) if args.scale else []
    scale_kinds = args.scale_only.split(",") if args.scale_only else kinds

    rows = _compare_kinds(kinds, args.mb, args.runs)
    small_rows = _compare_kinds(kinds, args.small_mb, args.runs) if args.small_mb else []

    scaling = []
    if len(scale) >= 2:
        small, big = scale[0], scale[-1]
        sizes = "  ".join(f"{size:>6} MB" for size in scale)
        print(f"\nklipui CPU ms per MB (best of runs)\n{'kind':9} {sizes}  growth")
        for kind in scale_kinds:
            source, meta = _case(KINDS[kind])
            per_mb: dict[int, float] = {}
            seconds: dict[int, float] = {}
            for size in scale:
                text = grow(source, size * MB, kind)
                runs = args.runs if size <= 20 else 2
                seconds[size] = _klipui(text, meta, runs)["cpu_seconds"]
                per_mb[size] = seconds[size] * MB / len(text)
                del text
            factor = seconds[big] / max(seconds[small], 1e-9)
            growth = max(
                per_mb[larger] / max(per_mb[smaller], 1e-9)
                for i, smaller in enumerate(scale)
                for larger in scale[i + 1 :]
            )
            scaling.append(
                {
                    "kind": kind,
                    **{f"{size}mb_cpu_s": seconds[size] for size in scale},
                    "cpu_ms_per_mb": {str(size): round(per_mb[size] * 1000, 2) for size in scale},
                    "factor": round(factor, 1),
                    "size_factor": big // small,
                    "growth": round(growth, 2),
                }
            )
            figures = "  ".join(f"{per_mb[size] * 1000:9.2f}" for size in scale)
            print(f"{kind:9} {figures}  x{growth:.2f}")

    detection = []
    if len(scale) >= 2:
        small, big = scale[0], scale[-1]
        mixed = "".join(_case(name)[0] for name in KINDS.values())
        small_text, big_text = grow(mixed, small * MB, "any"), grow(mixed, big * MB, "any")
        hint = Hint(tool="bash", command="make test")
        print(f"\ndetection, {small} MB vs {big} MB (ms a call)")
        for module in builtin_reducers():
            t_small = _best(lambda m=module: m.detect(small_text, hint), 3)[0]
            t_big = _best(lambda m=module: m.detect(big_text, hint), 3)[0]
            detection.append(
                {"reducer": module.name, "small_s": round(t_small, 5), "big_s": round(t_big, 5)}
            )
            print(f"{module.name:12} {t_small * 1000:8.2f} {t_big * 1000:8.2f}")

    worst = max((r["ratio"] for r in rows), default=0.0)
    worst_growth = max((s["growth"] for s in scaling), default=0.0)
    report = {
        "mb": args.mb,
        "runs": args.runs,
        "kinds": rows,
        "small_mb": args.small_mb,
        "kinds_small": small_rows,
        "scaling": scaling,
        "detection": detection,
        "summary": {
            "worst_ratio": worst,
            "meets_ratio_target": worst <= 1.0,
            "worst_growth_per_size": round(worst_growth, 2),
            "linear": worst_growth <= 1.25,
        },
    }
    print(f"\nworst ratio klipui/toolshrink: {worst:.2f} (target <= 1.0)")
    if small_rows:
        small = ", ".join(f"{r['kind']} {r['ratio']:.2f}" for r in small_rows)
        print(f"ratios at {args.small_mb} MB: {small}")
    if scaling:
        print(f"worst per-MB cost growth: {worst_growth:.2f} (linear: <= 1.25)")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
