"""What share of the shrunk output long kept lines take, and what cutting them could win.

Tuned cases only (`bench/corpus_folds.py`; held-out and fresh cases are never read). For each,
with klipui at the case's budget:

- the share of output characters in kept lines longer than 200 and 400 characters, and in kept
  lines longer than budget/8;
- for N in 160, 240, 320 and budget/8: the room freed if every kept line longer than N were cut
  to N characters (head plus the window around its first signal word, from the engine's own word
  lists, never the must-keep strings); the missed must-keep strings whose whole line would fit
  in that room (cheapest lines first: an upper bound); the kept must-keep strings the cut loses.

Usage: python bench/long_lines.py [--corpus DIR] [--cases]
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from corpus_folds import CORPUS, part_of  # noqa: E402
from shrink_quality import hint_of  # noqa: E402

from klipui.shrink import Budget, shrink  # noqa: E402
from klipui.shrink.salience import STRONG_WORDS, WEAK_WORDS  # noqa: E402
from klipui.shrink.text import plural, split  # noqa: E402

WIDTHS = (160, 240, 320, 0)
"""Cut widths; 0 stands for budget/8 (lines longer than budget/8 cut to budget/8)."""
LONG = (200, 400)
MARKER_SPLIT = 40
"""What adding a line inside a gap costs besides the line: about one more marker."""


def cut(line: str, width: int) -> str:
    """`line` cut to about `width` characters: its head, and the window around its first signal
    word past the head, each omission said as ` ... +N characters`."""
    if len(line) <= width:
        return line
    lowered = line.lower()
    head = width // 3
    hits = [lowered.find(w, head) for w in (*STRONG_WORDS, *WEAK_WORDS)]
    found = [h for h in hits if h >= 0]
    if not found:
        kept = line[:width]
        return f"{kept} ... +{plural(len(line) - width, 'character')}"
    at = min(found)
    start = max(head, at - (width - head) // 3)
    end = min(len(line), start + width - head)
    out = line[:head]
    if start > head:
        out += f" ... +{plural(start - head, 'character')} ... "
    out += line[start:end]
    if end < len(line):
        out += f" ... +{plural(len(line) - end, 'character')}"
    return out


@dataclass
class Case:
    """Figures of one tuned case."""

    name: str
    budget: int
    chars: int
    in_long: dict[int, int] = field(default_factory=dict)
    in_eighth: int = 0
    missed: int = 0
    missed_long: int = 0
    freed: dict[int, int] = field(default_factory=dict)
    won: dict[int, int] = field(default_factory=dict)
    lost: dict[int, int] = field(default_factory=dict)


def measure(case: Path) -> tuple[Case, int]:
    """The figures of one case and its number of must-keep strings."""
    meta = json.loads((case / "meta.json").read_text(encoding="utf-8"))
    text = (case / "output.txt").read_text(encoding="utf-8")
    budget, must = meta["budget_chars"], meta["must_keep"]
    result = shrink(text, hint_of(meta), Budget(max_chars=budget))
    lines = split(text).lines
    kept = [s.start for s in result.kept if s.kind == "line"]
    row = Case(case.name, budget, len(result.content))
    for limit in LONG:
        row.in_long[limit] = sum(len(lines[i]) + 1 for i in kept if len(lines[i]) > limit)
    row.in_eighth = sum(len(lines[i]) + 1 for i in kept if len(lines[i]) > budget // 8)
    missing = [s for s in must if s not in result.content]
    row.missed = len(missing)
    shortest = [min((len(line) for line in lines if s in line), default=budget) for s in missing]
    row.missed_long = sum(1 for length in shortest if length > LONG[0])
    costs = sorted(length + 1 + MARKER_SPLIT for length in shortest)
    for key in WIDTHS:
        width = key or budget // 8
        longs = [i for i in kept if len(lines[i]) > width]
        freed = sum(len(lines[i]) - len(cut(lines[i], width)) for i in longs)
        row.freed[key] = freed
        won = used = 0
        for cost in costs:
            if used + cost <= freed:
                used += cost
                won += 1
        row.won[key] = won
        cut_text = "\n".join(cut(lines[i], width) for i in longs)
        whole = "\n".join(lines[i] for i in longs)
        row.lost[key] = sum(1 for s in must if s in whole and s not in cut_text)
    return row, len(must)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--cases", action="store_true", help="print the cases with long lines")
    args = parser.parse_args()
    cases = sorted(
        p
        for p in args.corpus.iterdir()
        if (p / "output.txt").is_file() and part_of(p.name) == "tuned"
    )
    rows: list[Case] = []
    musts: list[int] = []
    for case in cases:
        row, count = measure(case)
        rows.append(row)
        musts.append(count)
    total = sum(r.chars for r in rows)
    print(f"tuned cases: {len(rows)}, output characters: {total:,}")
    for limit in LONG:
        share = sum(r.in_long[limit] for r in rows) / total
        with_long = sum(1 for r in rows if r.in_long[limit])
        print(f"  in kept lines > {limit}: {share:.1%} of output ({with_long} cases)")
    eighth = sum(r.in_eighth for r in rows) / total
    print(f"  in kept lines > budget/8: {eighth:.1%} of output")
    print(f"missed must-keep strings: {sum(r.missed for r in rows)}")
    print(
        f"  whose shortest line holding them is longer than 200: {sum(r.missed_long for r in rows)}"
    )
    for width in WIDTHS:
        freed = sum(r.freed[width] for r in rows)
        won = sum(r.won[width] for r in rows)
        lost = sum(r.lost[width] for r in rows)
        pairs = list(zip(rows, musts, strict=True))
        gain = sum((r.won[width] - r.lost[width]) / m for r, m in pairs) / len(rows)
        bound = sum(r.won[width] / m for r, m in pairs) / len(rows)
        touched = sum(1 for r in rows if r.freed[width])
        print(
            f"  cut to {width or 'budget/8'}: frees {freed:,} chars in {touched}"
            f" cases; missed that would fit {won}; kept that the cut loses {lost};"
            f" recall change at most {gain:+.4f} ({bound:+.4f} if the cut lost nothing)"
        )
    if args.cases:
        for r in rows:
            if r.in_long[LONG[0]]:
                print(
                    f"{r.name:44} budget {r.budget:6} >200 {r.in_long[200]:6}"
                    f" missed {r.missed} won {r.won} lost {r.lost}"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
