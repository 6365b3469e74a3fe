"""Quality of `klipui.shrink` on the real-output corpus, tuned and held-out cases apart.

For every case in tests/fixtures/corpus (output.txt + meta.json): the shrunk size, whether it is
within the case's budget, and the share of its `must_keep` strings kept verbatim; the same for
the salience fallback alone (no shape reducer), head-only, tail-only and head+tail (50/50 by
lines) cuts at the same budget, and for the reference toolshrink (skipped with a note when node
or its build is missing). Cases are split by `bench/corpus_folds.py`: "tuned" cases may be
looked at; "held-out" and "fresh" (the newest batch, unseen as a whole) cases are reported in
aggregate only (per case with --show-held-out).
Prints per-case rows (tuned), per-kind and per-part tables, and writes
bench/results/shrink_quality.json.

Usage: python bench/shrink_quality.py [--corpus DIR] [--spill] [--no-toolshrink]
       [--show-held-out] [--tuned-only]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from corpus_folds import part_of  # noqa: E402

from klipui.shrink import Budget, FileSpillStore, Hint, shrink  # noqa: E402
from klipui.shrink.text import marker, split_lines  # noqa: E402

TARGET_OVERALL = 0.95
TOOLSHRINK = ROOT.parent / "shared" / "tools" / "anchors" / "toolshrink" / "shrink.mjs"
PARTS = ("tuned", "held-out", "fresh")
METHODS = ("klipui", "salience", "head", "tail", "head_tail", "toolshrink")


def _marker_for(lines: list[str], start: int, end: int) -> str:
    dropped = lines[start:end]
    return marker(sum(len(line) + 1 for line in dropped), len(dropped))


def head_only(text: str, budget: int) -> str:
    lines = split_lines(text)
    kept: list[str] = []
    used = 0
    for i, line in enumerate(lines):
        mark = _marker_for(lines, i + 1, len(lines)) if i + 1 < len(lines) else ""
        if used + len(line) + 1 + len(mark) > budget:
            break
        kept.append(line)
        used += len(line) + 1
    return "\n".join([*kept, _marker_for(lines, len(kept), len(lines))])


def tail_only(text: str, budget: int) -> str:
    lines = split_lines(text)
    kept: list[str] = []
    used = 0
    for i in range(len(lines) - 1, -1, -1):
        mark = _marker_for(lines, 0, i)
        if used + len(lines[i]) + 1 + len(mark) + 1 > budget:
            break
        kept.append(lines[i])
        used += len(lines[i]) + 1
    kept.reverse()
    return "\n".join([_marker_for(lines, 0, len(lines) - len(kept)), *kept])


def head_tail(text: str, budget: int) -> str:
    """The same number of whole lines from each end, as many as fit with one marker."""
    lines = split_lines(text)
    best = _marker_for(lines, 0, len(lines))
    for k in range(1, len(lines) // 2 + 1):
        head, tail = lines[:k], lines[len(lines) - k :]
        candidate = "\n".join([*head, _marker_for(lines, k, len(lines) - k), *tail])
        if len(candidate) > budget:
            break
        best = candidate
    return best


def recall(content: str, must_keep: list[str]) -> float:
    return sum(1 for s in must_keep if s in content) / len(must_keep)


def toolshrink_available() -> str:
    """Why toolshrink cannot run here ("" when it can)."""
    if shutil.which("node") is None:
        return "node is not installed"
    if not TOOLSHRINK.is_file():
        return f"{TOOLSHRINK} is missing"
    return ""


def toolshrink(text: str, budget: int, meta: dict) -> str:
    env = dict(os.environ, BUDGET_CHARS=str(budget), HINT_TOOL=meta.get("tool") or "")
    env["HINT_COMMAND"] = meta.get("command") or ""
    done = subprocess.run(
        ["node", str(TOOLSHRINK)],
        input=text.encode("utf-8", "surrogatepass"),
        capture_output=True,
        env=env,
        check=True,
        timeout=120,
    )
    return done.stdout.decode("utf-8", "replace")


def hint_of(meta: dict) -> Hint:
    if meta.get("tool") == "read":
        return Hint(tool="read", path=meta.get("command"))
    return Hint(tool=meta.get("tool"), command=meta.get("command"))


def _others(text: str, hint: Hint, budget: int, meta: dict, with_toolshrink: bool) -> dict:
    """What the salience fallback alone, the blind cuts and toolshrink keep of `text`."""
    out = {
        "salience": shrink(text, hint, Budget(max_chars=budget), only=[]).content,
        "head": head_only(text, budget),
        "tail": tail_only(text, budget),
        "head_tail": head_tail(text, budget),
    }
    if with_toolshrink:
        out["toolshrink"] = toolshrink(text, budget, meta)
    return out


def run(corpus: Path, spill: bool, use_toolshrink: bool, tuned_only: bool = False) -> dict:
    store = FileSpillStore(tempfile.mkdtemp(prefix="klipui-bench-spill-")) if spill else None
    missing_tool = toolshrink_available() if use_toolshrink else "not asked for"
    cases = []
    for case in sorted(p for p in corpus.iterdir() if (p / "output.txt").is_file()):
        if tuned_only and part_of(case.name) != "tuned":
            continue
        meta = json.loads((case / "meta.json").read_text(encoding="utf-8"))
        text = (case / "output.txt").read_text(encoding="utf-8")
        budget = meta["budget_chars"]
        must = meta["must_keep"]
        hint = hint_of(meta)
        started = time.perf_counter()
        result = shrink(text, hint, Budget(max_chars=budget), spill=store)
        seconds = time.perf_counter() - started
        row = {
            "case": case.name,
            "part": part_of(case.name),
            "kind": meta["kind"],
            "input_chars": len(text),
            "budget": budget,
            "strategy": result.strategy,
            "klipui_chars": len(result.content),
            "klipui_within": len(result.content) <= budget,
            "klipui_recall": recall(result.content, must),
            "missing": [s for s in must if s not in result.content],
            "ms": round(seconds * 1000, 1),
        }
        for label, content in _others(text, hint, budget, meta, not missing_tool).items():
            row[f"{label}_chars"] = len(content)
            row[f"{label}_within"] = len(content) <= budget
            row[f"{label}_recall"] = recall(content, must)
        cases.append(row)
    methods = [m for m in METHODS if m != "toolshrink" or not missing_tool]
    return {
        "spill": spill,
        "toolshrink": missing_tool or "ran",
        "methods": methods,
        "parts": {
            part: _aggregate([r for r in cases if r["part"] == part], methods) for part in PARTS
        },
        "cases": cases,
    }


def _aggregate(rows: list[dict], methods: list[str]) -> dict:
    def summary(group: list[dict]) -> dict:
        out: dict = {"cases": len(group)}
        for method in methods:
            out[f"{method}_recall"] = round(
                sum(r[f"{method}_recall"] for r in group) / len(group), 4
            )
            out[f"{method}_within"] = sum(r[f"{method}_within"] for r in group) / len(group)
        out["klipui_complete"] = sum(1 for r in group if r["klipui_recall"] == 1.0)
        out["klipui_below_head_tail"] = sum(
            1 for r in group if r["klipui_recall"] < r["head_tail_recall"]
        )
        return out

    if not rows:
        return {"cases": 0}
    kinds: dict[str, list[dict]] = defaultdict(list)
    for row in rows:
        kinds[row["kind"]].append(row)
    overall = summary(rows)
    overall["meets_target"] = (
        overall["klipui_within"] == 1.0 and overall["klipui_recall"] >= TARGET_OVERALL
    )
    return {
        "cases": len(rows),
        "overall": overall,
        "kinds": {k: summary(v) for k, v in sorted(kinds.items())},
    }


def _figures(label: str, width: int, k: dict, methods: list[str]) -> str:
    recalls = " ".join(f"{k[f'{m}_recall']:6.3f}" for m in methods)
    within = f"{k['klipui_within']:.0%}"
    return f"{label:{width}} {k['cases']:5} {recalls} {within:>6} {k['klipui_below_head_tail']:5}"


def print_report(report: dict, show_held_out: bool) -> None:
    methods = report["methods"]
    names = {"klipui": "klipui", "salience": "salnce", "head": "head", "tail": "tail"}
    names |= {"head_tail": "h+t", "toolshrink": "tshrnk"}
    print(
        f"{'case':34} {'strategy':22} {'chars':>6} {'budget':>6} {'in':>3} "
        + " ".join(f"{names[m]:>6}" for m in methods)
    )
    for r in report["cases"]:
        if r["part"] != "tuned" and not show_held_out:
            continue
        recalls = " ".join(f"{r[f'{m}_recall']:6.2f}" for m in methods)
        print(
            f"{r['case']:34} {r['strategy']:22} {r['klipui_chars']:6} {r['budget']:6}"
            f" {'yes' if r['klipui_within'] else 'NO':>3} {recalls}"
        )
        for missing in r["missing"]:
            print(f"    missing: {missing[:90]}")
    if report["toolshrink"] != "ran":
        print(f"\ntoolshrink skipped: {report['toolshrink']}")
    header = " ".join(f"{names[m]:>6}" for m in methods)
    for part in PARTS:
        figures = report["parts"][part]
        print(f"\n== {part}: {figures.get('cases', 0)} cases")
        if not figures.get("cases"):
            continue
        print(f"{'kind':14} {'cases':>5} {header} {'within':>6} {'<h+t':>5}")
        for kind, k in figures["kinds"].items():
            print(_figures(kind, 14, k, methods))
        o = figures["overall"]
        print(_figures("overall", 14, o, methods))
        print(
            f"   complete {o['klipui_complete']}/{o['cases']},"
            f" target ({TARGET_OVERALL:.0%} recall, all within budget)"
            f" {'met' if o['meets_target'] else 'NOT met'}"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT / "tests" / "fixtures" / "corpus")
    parser.add_argument("--spill", action="store_true", help="shrink with a spill store (footer)")
    parser.add_argument("--no-toolshrink", action="store_true", help="skip the reference")
    parser.add_argument(
        "--show-held-out", action="store_true", help="also print held-out cases one by one"
    )
    parser.add_argument(
        "--tuned-only",
        action="store_true",
        help="measure tuned cases alone (while tuning: no held-out figure is computed)",
    )
    parser.add_argument(
        "--out", type=Path, default=ROOT / "bench" / "results" / "shrink_quality.json"
    )
    args = parser.parse_args()
    report = run(args.corpus, args.spill, not args.no_toolshrink, args.tuned_only)
    print_report(report, args.show_held_out)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
