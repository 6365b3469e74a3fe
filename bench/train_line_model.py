"""Fit the weights of `klipui.shrink.linemodel` on the tuned folds of the corpus.

Every line of every tuned case (`bench/corpus_folds.py`) is one example, labelled 1 when it
holds one of the case's must-keep strings. Held-out and fresh cases are never read. The model
ranks the lines of one output, so it is fitted on pairs from one case: a must-keep line and
another line, half of them a line the rules rank at its level or above (the lines it must
pass), the pairwise logistic loss minimised by stochastic gradient descent. A one-feature
logistic regression over every must-keep line and a sample of the others (weighted back, at a
quarter: the odds lean toward keeping) then scales the ranking to log-odds, which the nudge and
its "likelier kept than not" need. A fixed seed makes the same corpus give the same weights.
Words count only when they occur in at least `MIN_CASES` tuned cases (a word of one case is that
case, not a trait).

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
PAIRS_PER_POSITIVE = 12
HARD_SHARE = 0.5
"""The share of a must-keep line's pairs whose other line the rules rank at its level or above."""
CASE_POSITIVES = 6
"""A case's must-keep lines weigh together at most as much as this many (one string found on
fifty lines is still one string)."""
EPOCHS = 6
RATE = 0.05
DECAY = 0.7
L2 = 1e-4
SEED = 1
CALIBRATION_NEGATIVES = 20
"""Other lines sampled per must-keep line to scale the ranking to log-odds."""
NEGATIVE_WEIGHT = 0.25
"""What a sampled other line weighs in the scaling, beside its sampling weight."""
NEWTON_STEPS = 200
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
    """Bias and weights of the model: a pairwise ranking, scaled to log-odds."""
    spread = Counter(n for lines in cases for n in {n for row, _ in lines for n in row})
    kept = [[([n for n in row if _counts(n, spread)], y) for row, y in lines] for lines in cases]
    rng = random.Random(SEED)
    weights = _rank(_pairs(kept, rng), rng)
    scale, bias = _calibrate(kept, weights, rng)
    return bias, {n: scale * w for n, w in weights.items()}


Pair = tuple[list[str], list[str], float]
"""The features only the must-keep line has, those only the other has, and the pair's weight."""


def _level(row: list[str]) -> int:
    """The salience level a row's first feature names (`s3` → 3)."""
    return int(row[0][1:])


def _pairs(cases: list[list[Example]], rng: random.Random) -> list[Pair]:
    """`PAIRS_PER_POSITIVE` pairs for each must-keep line of each case."""
    pairs: list[Pair] = []
    for lines in cases:
        positives = [row for row, y in lines if y]
        negatives = [row for row, y in lines if not y]
        if not positives or not negatives:
            continue
        weight = min(1.0, CASE_POSITIVES / len(positives))
        by_level: dict[int, list[list[str]]] = {}
        for row in negatives:
            by_level.setdefault(_level(row), []).append(row)
        for positive in positives:
            level = _level(positive)
            rivals = [row for at, rows in by_level.items() if at >= level for row in rows]
            own = set(positive)
            for _ in range(PAIRS_PER_POSITIVE):
                hard = rivals and rng.random() < HARD_SHARE
                other = set(rng.choice(rivals if hard else negatives))
                pairs.append((sorted(own - other), sorted(other - own), weight))
    return pairs


def _rank(pairs: list[Pair], rng: random.Random) -> dict[str, float]:
    """Weights that score each pair's must-keep line above its other line (pairwise logistic
    loss, stochastic gradient descent)."""
    weights: dict[str, float] = {}
    rate = RATE
    for _ in range(EPOCHS):
        rng.shuffle(pairs)
        for mine, theirs, weight in pairs:
            margin = sum(weights.get(n, 0.0) for n in mine) - sum(
                weights.get(n, 0.0) for n in theirs
            )
            gradient = weight / (1 + math.exp(max(-30.0, min(30.0, margin))))
            for n in mine:
                w = weights.get(n, 0.0)
                weights[n] = w + rate * (gradient - L2 * w)
            for n in theirs:
                w = weights.get(n, 0.0)
                weights[n] = w - rate * (gradient + L2 * w)
        rate *= DECAY
    return weights


def _calibrate(
    cases: list[list[Example]], weights: dict[str, float], rng: random.Random
) -> tuple[float, float]:
    """`(scale, bias)` turning ranking scores into log-odds: a logistic regression on the one
    feature, by Newton's method."""
    positives = [row for lines in cases for row, y in lines if y]
    negatives = [row for lines in cases for row, y in lines if not y]
    sample = rng.sample(negatives, min(len(negatives), CALIBRATION_NEGATIVES * len(positives)))
    negative_weight = len(negatives) / max(1, len(sample)) * NEGATIVE_WEIGHT
    data = [(sum(weights.get(n, 0.0) for n in row), 1, 1.0) for row in positives]
    data += [(sum(weights.get(n, 0.0) for n in row), 0, negative_weight) for row in sample]
    scale, bias = 1.0, -3.0
    for _ in range(NEWTON_STEPS):
        g_scale = g_bias = h_ss = h_sb = h_bb = 0.0
        for score, y, weight in data:
            p = 1 / (1 + math.exp(-max(-30.0, min(30.0, scale * score + bias))))
            error, curve = (p - y) * weight, p * (1 - p) * weight
            g_scale += error * score
            g_bias += error
            h_ss += curve * score * score
            h_sb += curve * score
            h_bb += curve
        det = h_ss * h_bb - h_sb * h_sb
        if det <= 0:
            break
        d_scale = (h_bb * g_scale - h_sb * g_bias) / det
        d_bias = (h_ss * g_bias - h_sb * g_scale) / det
        scale, bias = scale - d_scale, bias - d_bias
        if abs(d_scale) + abs(d_bias) < 1e-6:
            break
    return scale, bias


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
