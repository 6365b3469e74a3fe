"""How much of the corpus's must-keep a careful reader keeps by hand at the same budget.

The must-keep strings of a case are one expert's picks. A second reader who never saw them,
given the output, the command and the budget, chooses whole lines to keep (as klipui must);
the share of the first expert's strings inside that selection is the agreement between two
experts, an estimate of how far any shrinker can go on recall. Cases are a fixed sample of
tuned cases (never held-out or fresh ones).

    prepare DIR [--count N]   write DIR/cases/cNN/{output.txt,task.json} (no must-keep) and
                              DIR/key.json (case names; the reader never opens it)
    check DIR cNN             render DIR/answers/cNN.txt (line numbers and ranges, 1-based,
                              one per line: `12` or `40-58`) with exact omission markers, print
                              the characters used against the budget, write cNN.rendered.txt
    score DIR                 recall of the readers' selections, klipui and head+tail on the
                              same cases; writes bench/results/expert_ceiling.json
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from corpus_folds import CORPUS, part_of  # noqa: E402
from shrink_quality import head_tail, hint_of, recall  # noqa: E402

from klipui.shrink import Budget, shrink  # noqa: E402
from klipui.shrink.text import marker, split_lines  # noqa: E402

RESULT = ROOT / "bench" / "results" / "expert_ceiling.json"


def sample(count: int) -> list[str]:
    """A fixed sample of tuned cases, ordered by a salted hash of the name."""
    names = [
        p.name
        for p in CORPUS.iterdir()
        if (p / "output.txt").is_file() and part_of(p.name) == "tuned"
    ]
    names.sort(key=lambda name: zlib.crc32(f"ceiling:{name}".encode()))
    return names[:count]


def prepare(directory: Path, count: int) -> None:
    key = {}
    for number, name in enumerate(sample(count), 1):
        case_id = f"c{number:02d}"
        key[case_id] = name
        meta = json.loads((CORPUS / name / "meta.json").read_text())
        target = directory / "cases" / case_id
        target.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(CORPUS / name / "output.txt", target / "output.txt")
        task = {k: meta[k] for k in ("tool", "command", "budget_chars")}
        (target / "task.json").write_text(json.dumps(task, indent=1) + "\n")
    (directory / "answers").mkdir(exist_ok=True)
    (directory / "key.json").write_text(json.dumps(key, indent=1) + "\n")


def _selected(answer: Path, total: int) -> list[bool]:
    keep = [False] * total
    for raw in answer.read_text().split():
        first, _, last = raw.partition("-")
        start, end = int(first), int(last or first)
        for number in range(max(start, 1), min(end, total) + 1):
            keep[number - 1] = True
    return keep


def render(output: str, answer: Path) -> str:
    """The selection as klipui would print it: kept lines, each gap as one exact marker."""
    lines = split_lines(output)
    keep = _selected(answer, len(lines))
    parts: list[str] = []
    gap_start: int | None = None
    for index, line in enumerate(lines):
        if keep[index]:
            if gap_start is not None:
                dropped = lines[gap_start:index]
                parts.append(marker(sum(len(x) + 1 for x in dropped), len(dropped)))
                gap_start = None
            parts.append(line)
        elif gap_start is None:
            gap_start = index
    if gap_start is not None:
        dropped = lines[gap_start:]
        parts.append(marker(sum(len(x) + 1 for x in dropped), len(dropped)))
    return "\n".join(parts)


def check(directory: Path, case_id: str) -> int:
    case = directory / "cases" / case_id
    budget = json.loads((case / "task.json").read_text())["budget_chars"]
    shown = render((case / "output.txt").read_text(), directory / "answers" / f"{case_id}.txt")
    (directory / "answers" / f"{case_id}.rendered.txt").write_text(shown)
    verdict = "within" if len(shown) <= budget else "OVER"
    print(f"{case_id}: {len(shown)} of {budget} chars ({verdict} budget)")
    return 0 if len(shown) <= budget else 1


def score(directory: Path) -> None:
    key = json.loads((directory / "key.json").read_text())
    rows = []
    for case_id, name in sorted(key.items()):
        answer = directory / "answers" / f"{case_id}.txt"
        if not answer.is_file():
            continue
        meta = json.loads((CORPUS / name / "meta.json").read_text())
        text = (CORPUS / name / "output.txt").read_text()
        budget = meta["budget_chars"]
        expert = render(text, answer)
        klipui = shrink(text, hint_of(meta), Budget(max_chars=budget)).content
        rows.append(
            {
                "case": name,
                "budget": budget,
                "expert_chars": len(expert),
                "expert": recall(expert, meta["must_keep"]),
                "klipui": recall(klipui, meta["must_keep"]),
                "head_tail": recall(head_tail(text, budget), meta["must_keep"]),
            }
        )
    for row in rows:
        print(
            f"{row['case'][:44]:44} {row['expert_chars']:5}/{row['budget']:<5}"
            f" expert {row['expert']:.2f}  klipui {row['klipui']:.2f}  h+t {row['head_tail']:.2f}"
        )
    summary = {
        method: round(sum(row[method] for row in rows) / len(rows), 3)
        for method in ("expert", "klipui", "head_tail")
    }
    over = sum(row["expert_chars"] > row["budget"] for row in rows)
    print(f"{len(rows)} cases, macro recall {summary}, expert selections over budget: {over}")
    RESULT.write_text(json.dumps({"cases": len(rows), "macro": summary, "rows": rows}, indent=1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("prepare", "check", "score"))
    parser.add_argument("directory", type=Path)
    parser.add_argument("case", nargs="?")
    parser.add_argument("--count", type=int, default=40)
    args = parser.parse_args()
    if args.action == "prepare":
        prepare(args.directory, args.count)
    elif args.action == "check":
        return check(args.directory, args.case)
    else:
        score(args.directory)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
