"""Quality of `klipui.shrink` on the real-output corpus, next to plain size cuts.

For every case in tests/fixtures/corpus (output.txt + meta.json): the shrunk size, whether it is
within the case's budget, and the share of its `must_keep` strings kept verbatim; the same for
head-only, tail-only and head+tail (50/50 by lines) cuts at the same budget. Prints a table per
case and per kind and writes bench/results/shrink_quality.json.

Usage: python bench/shrink_quality.py [--corpus DIR] [--spill]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from klipui.shrink import Budget, FileSpillStore, Hint, shrink  # noqa: E402
from klipui.shrink.text import marker, split_lines  # noqa: E402

TARGET_OVERALL = 0.97
TARGET_KIND = 0.9


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


def run(corpus: Path, spill: bool) -> dict:
    store = FileSpillStore(tempfile.mkdtemp(prefix="klipui-bench-spill-")) if spill else None
    cases = []
    for case in sorted(p for p in corpus.iterdir() if (p / "output.txt").is_file()):
        meta = json.loads((case / "meta.json").read_text(encoding="utf-8"))
        text = (case / "output.txt").read_text(encoding="utf-8")
        budget = meta["budget_chars"]
        hint = Hint(tool=meta.get("tool"), command=meta.get("command"))
        if meta.get("tool") == "read":
            hint = Hint(tool="read", path=meta.get("command"))
        started = time.perf_counter()
        result = shrink(text, hint, Budget(max_chars=budget), spill=store)
        seconds = time.perf_counter() - started
        row = {
            "case": case.name,
            "kind": meta["kind"],
            "input_chars": len(text),
            "budget": budget,
            "strategy": result.strategy,
            "chars": len(result.content),
            "within": len(result.content) <= budget,
            "recall": recall(result.content, meta["must_keep"]),
            "missing": [s for s in meta["must_keep"] if s not in result.content],
            "ms": round(seconds * 1000, 1),
        }
        for label, cut in (("head", head_only), ("tail", tail_only), ("head_tail", head_tail)):
            content = cut(text, budget)
            row[f"{label}_chars"] = len(content)
            row[f"{label}_within"] = len(content) <= budget
            row[f"{label}_recall"] = recall(content, meta["must_keep"])
        cases.append(row)

    kinds: dict[str, list[dict]] = defaultdict(list)
    for row in cases:
        kinds[row["kind"]].append(row)

    def mean(rows: list[dict], key: str) -> float:
        return round(sum(r[key] for r in rows) / len(rows), 4)

    per_kind = {
        kind: {
            "cases": len(rows),
            "recall": mean(rows, "recall"),
            "within": all(r["within"] for r in rows),
            "head_recall": mean(rows, "head_recall"),
            "tail_recall": mean(rows, "tail_recall"),
            "head_tail_recall": mean(rows, "head_tail_recall"),
        }
        for kind, rows in sorted(kinds.items())
    }
    overall = {
        "cases": len(cases),
        "recall": mean(cases, "recall"),
        "within_budget": sum(r["within"] for r in cases) / len(cases),
        "complete_cases": sum(1 for r in cases if r["recall"] == 1.0),
        "head_recall": mean(cases, "head_recall"),
        "tail_recall": mean(cases, "tail_recall"),
        "head_tail_recall": mean(cases, "head_tail_recall"),
    }
    overall["meets_targets"] = (
        overall["within_budget"] == 1.0
        and overall["recall"] >= TARGET_OVERALL
        and all(k["recall"] >= TARGET_KIND for k in per_kind.values())
    )
    return {"spill": spill, "cases": cases, "kinds": per_kind, "overall": overall}


def print_report(report: dict) -> None:
    print(
        f"{'case':32} {'strategy':22} {'chars':>6} {'budget':>6} {'in':>3}"
        f" {'recall':>6} {'head':>5} {'tail':>5} {'h+t':>5}"
    )
    for r in report["cases"]:
        print(
            f"{r['case']:32} {r['strategy']:22} {r['chars']:6} {r['budget']:6}"
            f" {'yes' if r['within'] else 'NO':>3} {r['recall']:6.2f} {r['head_recall']:5.2f}"
            f" {r['tail_recall']:5.2f} {r['head_tail_recall']:5.2f}"
        )
        for missing in r["missing"]:
            print(f"    missing: {missing[:90]}")
    print()
    print(f"{'kind':12} {'cases':>5} {'recall':>6} {'head':>5} {'tail':>5} {'h+t':>5}")
    for kind, k in report["kinds"].items():
        print(
            f"{kind:12} {k['cases']:5} {k['recall']:6.2f} {k['head_recall']:5.2f}"
            f" {k['tail_recall']:5.2f} {k['head_tail_recall']:5.2f}"
        )
    o = report["overall"]
    print(
        f"{'overall':12} {o['cases']:5} {o['recall']:6.3f} {o['head_recall']:5.2f}"
        f" {o['tail_recall']:5.2f} {o['head_tail_recall']:5.2f}"
        f"   within budget {o['within_budget']:.0%}, complete {o['complete_cases']}/{o['cases']},"
        f" targets {'met' if o['meets_targets'] else 'NOT met'}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT / "tests" / "fixtures" / "corpus")
    parser.add_argument("--spill", action="store_true", help="shrink with a spill store (footer)")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "bench" / "results" / "shrink_quality.json"
    )
    args = parser.parse_args()
    report = run(args.corpus, args.spill)
    print_report(report)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
