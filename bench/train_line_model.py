"""Fit the weights of `klipui.shrink.linemodel` on the tuned folds of the corpus.

Every line of every tuned case (`bench/corpus_folds.py`) is one example, labelled 1 when it
holds one of the case's must-keep strings. Held-out and fresh cases are never read. A logistic
regression over the line's features (`linemodel.features`) is fitted by stochastic gradient
descent on every positive line and a fixed sample of the negatives (weighted back), with a fixed
seed, so the same corpus gives the same weights. Words count only when they occur in at least
`MIN_CASES` tuned cases (a word of one case is that case, not a trait).

Usage: python bench/train_line_model.py [--corpus DIR] [--out klipui/shrink/line_weights.py]
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from collections import Counter
from pathlib import Path

from corpus_folds import CORPUS, part_of
from shrink_quality import hint_of

from klipui.shrink import linemodel, salience
from klipui.shrink.text import split

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "klipui" / "shrink" / "line_weights.py"
MIN_CASES = 5
NEGATIVES_PER_POSITIVE = 12
EPOCHS = 6
RATE = 0.05
DECAY = 0.7
L2 = 1e-4
SEED = 1
MAX_LINES = 20_000
"""Cases up to this many lines are read (the model weighs at most `linemodel.MAX_LINES`; the
longer cases still teach it what lines are like)."""


Example = tuple[list[str], int]


def examples(corpus: Path) -> list[list[Example]]:
    """`(features, label)` for every line of each tuned case short enough to be weighed."""
    found: list[list[Example]] = []
    for case in sorted(p for p in corpus.iterdir() if (p / "output.txt").is_file()):
        if part_of(case.name) != "tuned":
            continue
        meta = json.loads((case / "meta.json").read_text(encoding="utf-8"))
        text = (case / "output.txt").read_text(encoding="utf-8", errors="surrogateescape")
        lines = split(text)
        if not len(lines) or len(lines) > MAX_LINES:
            continue
        hint = hint_of(meta)
        scan = salience.Scores(lines, hint, meta["budget_chars"])
        if scan.templates is None:
            continue
        rows = linemodel.features(lines, hint, scan.score, scan.templates, salience._novel(lines))
        keep = meta["must_keep"]
        found.append(
            [
                (row, int(any(s in line for s in keep)))
                for row, line in zip(rows, lines.lines, strict=True)
            ]
        )
    return found


def fit(cases: list[list[Example]]) -> tuple[float, dict[str, float]]:
    """Bias and weights of the logistic regression."""
    spread = Counter(n for lines in cases for n in {n for row, _ in lines for n in row})
    found = [example for lines in cases for example in lines]
    rng = random.Random(SEED)
    positives = [(row, y) for row, y in found if y]
    negatives = [(row, y) for row, y in found if not y]
    sample = rng.sample(negatives, min(len(negatives), NEGATIVES_PER_POSITIVE * len(positives)))
    negative_weight = len(negatives) / max(1, len(sample)) / 4
    rows = [([n for n in row if _counts(n, spread)], y) for row, y in positives + sample]
    bias, weights, rate = 0.0, dict[str, float](), RATE
    for _ in range(EPOCHS):
        rng.shuffle(rows)
        for row, y in rows:
            z = max(-30.0, min(30.0, bias + sum(weights.get(n, 0.0) for n in row)))
            gradient = (1 / (1 + math.exp(-z)) - y) * (1.0 if y else negative_weight)
            bias -= rate * gradient
            for n in row:
                w = weights.get(n, 0.0)
                weights[n] = w - rate * (gradient + L2 * w)
        rate *= DECAY
    return bias, weights


def _counts(name: str, spread: Counter[str]) -> bool:
    """A word counts when `MIN_CASES` tuned cases hold it; every other feature always."""
    return not name.startswith("w:") or spread[name] >= MIN_CASES


def rounded(weights: dict[str, float]) -> dict[str, float]:
    """The weights as shipped: four decimals, the negligible ones left out."""
    return {n: round(w, 4) for n, w in sorted(weights.items()) if abs(w) >= 0.005}


def write(bias: float, weights: dict[str, float], out: Path) -> int:
    kept = rounded(weights)
    body = "".join(f"    {json.dumps(n)}: {w!r},\n" for n, w in kept.items())
    out.write_text(
        '"""Weights of `klipui.shrink.linemodel` (written by bench/train_line_model.py; do not'
        ' edit)."""\n\n'
        f"BIAS = {round(bias, 4)!r}\nWEIGHTS: dict[str, float] = {{\n{body}}}\n",
        encoding="utf-8",
    )
    return len(kept)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    cases = examples(args.corpus)
    bias, weights = fit(cases)
    count = write(bias, weights, args.out)
    lines = sum(map(len, cases))
    positives = sum(y for lines in cases for _, y in lines)
    print(f"{len(cases)} tuned cases, {lines:,} lines ({positives:,} must-keep); {count:,} weights")
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
