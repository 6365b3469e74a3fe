"""Which corpus cases may be tuned on and which are held out.

The first 23 cases (`01-` … `23-`) were tuned on when 0.1 was written: always "tuned".
Every later case falls in one of ten folds by a hash of its folder name; folds 0, 1 and 2 are
held out: no rule, pattern or threshold may be written while looking at them, and
`bench/shrink_quality.py` reports their recall separately. The assignment is fixed by the
name alone, so nobody chooses which case lands where.

The newest batch (`FRESH`) is "fresh" as a whole: captured by people who never ran the shrinker
on it, while the engine was tuned elsewhere, merged only after that tuning ended, and measured
once. After that measurement it returns to the folds and the next captured batch becomes fresh.
Cases 113-199 were such a batch (fresh 0.776), then cases 300-379 (fresh 0.752, measured on
2026-12-03 at commit ec527bb), then cases 400-479 (fresh 0.698, measured on 2026-12-06 at commit
566d105; bench/results/shrink_quality_fresh_400-479.json), then cases 500-579 (fresh 0.683,
measured on 2026-12-06 at commit c1a5392; bench/results/shrink_quality_fresh_500-579.json),
then cases 600-679 (fresh 0.703, measured on 2026-12-06 at commit 82bc996;
bench/results/shrink_quality_fresh_600-679.json), then cases 700-779 (fresh 0.811, measured on
2026-12-06 at commit 4658012; bench/results/shrink_quality_fresh_700-779.json), then cases
800-879 (fresh 0.817, measured on 2026-12-06 at commit ae7775e;
bench/results/shrink_quality_fresh_800-879.json), then cases 900-979 (fresh 0.771, measured
on 2026-12-06 at commit cef6419; bench/results/shrink_quality_fresh_900-979.json), then cases
1000-1079 (fresh 0.773, measured on 2026-12-06 at commit 3d878b6, beside two variants of a
learned line model: bench/results/shrink_quality_fresh_1000-1079.json and
linemodel_fresh_1000-1079.json), then cases 1100-1179 (fresh 0.709 with the line model, 0.705
without it, measured on 2026-12-06 at commit 4ca82c8: shrink_quality_fresh_1100-1179.json and
linemodel_fresh_1100-1179.json), then cases 1200-1279 (fresh 0.849 with the final line model,
0.838 without it, measured on 2026-12-06 at commit b535605: shrink_quality_fresh_1200-1279.json and
linemodel_fresh_1200-1279.json), then cases 1300-1379 (fresh 0.750, measured on 2026-12-06 at
commit b26fb61: shrink_quality_fresh_1300-1379.json), then cases 1400-1479 (fresh 0.587, measured
on 2026-12-07 at commit f08fae2: shrink_quality_fresh_1400-1479.json), then cases 1500-1579
(fresh 0.790, measured on 2026-12-07 at commit 670e7e0: shrink_quality_fresh_1500-1579.json),
then cases 1600-1679 (fresh 0.703 on 79 cases, measured on 2026-12-07 at commit 512f1b3:
shrink_quality_fresh_1600-1679.json), then cases 1700-1779 (fresh 0.790, measured on 2026-12-07
at commit 34b718b, the engine of 3fe2833: shrink_quality_fresh_1700-1779.json), then cases
1800-1879 (fresh 0.788, measured on 2026-12-07 at commit 201406d, the engine of eef728d:
shrink_quality_fresh_1800-1879.json), then cases 1900-1979 (fresh 0.614, measured on
2026-12-07 at commit 1d7c225, the engine of 1f2bbca: shrink_quality_fresh_1900-1979.json), then
cases 2000-2059 (fresh 0.775 on 52 cases, measured on 2026-12-07 at commit 387a980, the engine
of cfa4117: shrink_quality_fresh_2000-2059.json), then cases 2100-2179 (fresh 0.721, measured on
2026-12-07 at commit a058798, the engine of 0ec40d7: shrink_quality_fresh_2100-2179.json), then
cases 2200-2279 (fresh 0.776, measured on 2026-12-07 at commit b9a0c9d, the engine of cf5bb87:
shrink_quality_fresh_2200-2279.json), then cases 2300-2379 (fresh 0.704, measured on 2026-12-07
at commit 45cc692, the engine of be4e7fa: shrink_quality_fresh_2300-2379.json), then cases
2400-2479 (fresh 0.735, measured on 2026-12-07 at commit 1157642, the engine of ab2322f:
shrink_quality_fresh_2400-2479.json), then cases 2500-2579 (fresh 0.763, measured on 2026-12-07
at commit c2c3e4b, the engine of 5d8945f: shrink_quality_fresh_2500-2579.json), then cases
2600-2679 (fresh 0.703, measured on 2026-12-07 at commit 3f6042e, the engine of 4e59ff2:
shrink_quality_fresh_2600-2679.json); all are now in the folds. `FRESH` names the range of the
next batch (2700-2799).

Usage: python bench/corpus_folds.py [--corpus DIR]   (lists the cases of each part)
"""

from __future__ import annotations

import argparse
import zlib
from pathlib import Path

FOLDS = 10
HELD_OUT_FOLDS = frozenset({0, 1, 2})
FIRST_NEW_CASE = 24
FRESH = range(2700, 2800)
CORPUS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "corpus"


def fold_of(case: str) -> int:
    """The fold of a case folder name (stable across machines and Python versions)."""
    return zlib.crc32(case.encode("utf-8")) % FOLDS


def part_of(case: str) -> str:
    """ "tuned" for the 0.1 cases and the tuning folds, "held-out" for the held-out folds,
    "fresh" for the newest batch."""
    number = case.split("-", 1)[0]
    if number.isdigit() and int(number) < FIRST_NEW_CASE:
        return "tuned"
    if number.isdigit() and int(number) in FRESH:
        return "fresh"
    return "held-out" if fold_of(case) in HELD_OUT_FOLDS else "tuned"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    args = parser.parse_args()
    cases = sorted(p.name for p in args.corpus.iterdir() if (p / "output.txt").is_file())
    for part in ("tuned", "held-out", "fresh"):
        names = [c for c in cases if part_of(c) == part]
        print(f"{part} ({len(names)}):")
        for name in names:
            print(f"  {name}")


if __name__ == "__main__":
    main()
