"""Recall of klipui and of salience alone on two fixed halves of the tuned corpus cases.

The tuned cases (`bench/corpus_folds.py` part "tuned"; held-out and fresh cases are never read)
fall in half A or half B by a hash of the case name (`crc32 % 2`), so nobody chooses which case
lands where. A rule is written while looking at one half case by case (`--show A`) and accepted
only when the other half, read in aggregate only, does not go down.

Printed per half: cases, macro must-keep recall of klipui and of the salience fallback alone
(`only=[]`, as `bench/shrink_quality.py` measures it), head+tail, complete cases and cases where
klipui keeps less than head+tail.

Usage: python bench/salience_halves.py [--corpus DIR] [--show A|B] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import sys
import zlib
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from corpus_folds import CORPUS, part_of  # noqa: E402
from shrink_quality import head_tail, hint_of, recall  # noqa: E402

from klipui.shrink import Budget, shrink  # noqa: E402

HALVES = ("A", "B")


def half_of(case: str) -> str:
    """The half of a tuned case: fixed by its folder name alone."""
    return HALVES[zlib.crc32(case.encode("utf-8")) % 2]


@dataclass
class Row:
    """One case: its half, klipui's strategy, the recalls and what each method missed."""

    case: str
    half: str
    strategy: str
    klipui: float
    salience: float
    head_tail: float
    klipui_missing: list[str]
    salience_missing: list[str]


def measure(case: Path) -> Row:
    """Recall of klipui, salience alone and head+tail on one case, and what they missed."""
    meta = json.loads((case / "meta.json").read_text(encoding="utf-8"))
    text = (case / "output.txt").read_text(encoding="utf-8")
    budget, must, hint = meta["budget_chars"], meta["must_keep"], hint_of(meta)
    ours = shrink(text, hint, Budget(max_chars=budget))
    alone = shrink(text, hint, Budget(max_chars=budget), only=[])
    return Row(
        case=case.name,
        half=half_of(case.name),
        strategy=ours.strategy,
        klipui=recall(ours.content, must),
        salience=recall(alone.content, must),
        head_tail=recall(head_tail(text, budget), must),
        klipui_missing=[s for s in must if s not in ours.content],
        salience_missing=[s for s in must if s not in alone.content],
    )


def summary(rows: list[Row]) -> str:
    """Macro recall of each method over `rows`, complete cases, cases below head+tail."""
    count = len(rows)
    klipui = sum(r.klipui for r in rows) / count
    salience = sum(r.salience for r in rows) / count
    blind = sum(r.head_tail for r in rows) / count
    complete = sum(1 for r in rows if r.klipui == 1.0)
    below = sum(1 for r in rows if r.klipui < r.head_tail)
    return (
        f"{count:5} klipui {klipui:.4f}  salience {salience:.4f}  h+t {blind:.4f}"
        f"  complete {complete}/{count}  <h+t {below}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--show", choices=HALVES, help="print this half's cases one by one")
    parser.add_argument("--out", type=Path, help="write the shown half's rows as JSON")
    args = parser.parse_args()
    cases = sorted(
        p
        for p in args.corpus.iterdir()
        if (p / "output.txt").is_file() and part_of(p.name) == "tuned"
    )
    rows = [measure(case) for case in cases]
    if args.show:
        shown = [r for r in rows if r.half == args.show]
        for r in shown:
            print(
                f"{r.case:44} {r.strategy:22} klipui {r.klipui:.2f}"
                f" salience {r.salience:.2f} h+t {r.head_tail:.2f}"
            )
            for missing in r.salience_missing:
                print(f"    salience missing: {missing[:100]}")
        if args.out:
            rows_out = [asdict(r) for r in shown]
            args.out.write_text(json.dumps(rows_out, indent=1, ensure_ascii=False) + "\n")
    for half in HALVES:
        print(f"half {half}: {summary([r for r in rows if r.half == half])}")
    print(f"tuned : {summary(rows)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
