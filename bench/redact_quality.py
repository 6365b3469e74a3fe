"""Quality of `klipui.redact`: recall per kind on labelled secrets, false positives on text.

Two labelled sets (tests/fixtures/redact/labelled.jsonl, seed 1, the one tuned on; and
heldout.jsonl, another seed, looked at only through this report) of real-shaped secrets in
context lines plus look-alikes (hashes, UUIDs, commit ids, base64 blobs, integrity strings,
variable references). Ordinary text: every text of the real session samples (tuned) and the
real tool outputs of the corpus (held-out). A secret counts as found when one finding covers
its whole span; any finding on a look-alike or in ordinary text is a false positive.
Prints the tables and writes bench/results/redact_quality.json.

Usage: python bench/redact_quality.py [--show]   (--show prints every miss and false positive)
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from klipui.redact import KNOWN_SHAPES, Redactor  # noqa: E402
from klipui.session import SessionError, open_session  # noqa: E402
from klipui.session.blocks import event_text  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures"
TARGET_RECALL = 0.99
TARGET_FP_PER_100KB = 1.0


def labelled(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def score_set(items: list[dict], show: bool) -> dict:
    found: dict[str, int] = defaultdict(int)
    total: dict[str, int] = defaultdict(int)
    lookalike_fp = 0
    lookalikes = 0
    for item in items:
        findings = Redactor().find(item["text"])
        if not item["spans"]:
            lookalikes += 1
            if findings:
                lookalike_fp += 1
                if show:
                    print("  FP look-alike:", [(f.kind, f.secret[:60]) for f in findings])
            continue
        for start, end, kind in item["spans"]:
            total[kind] += 1
            if any(f.start <= start and f.end >= end for f in findings):
                found[kind] += 1
            elif show:
                print(f"  missed {kind}: {item['text'][:120]!r}")
    kinds = {kind: {"found": found[kind], "total": total[kind]} for kind in sorted(total)}
    shape_total = sum(total[k] for k in KNOWN_SHAPES)
    shape_found = sum(found[k] for k in KNOWN_SHAPES)
    return {
        "kinds": kinds,
        "recall_known_shapes": shape_found / shape_total if shape_total else 1.0,
        "recall_all": sum(found.values()) / max(1, sum(total.values())),
        "lookalikes": lookalikes,
        "lookalike_false_positives": lookalike_fp,
    }


def session_texts() -> list[str]:
    texts = []
    for path in sorted((FIXTURES / "samples").rglob("*.jsonl")):
        try:
            session = open_session(path)
        except SessionError:
            continue
        texts += [event_text(e) for e in session.events if not e.ignorable]
    return [t for t in texts if t]


def corpus_texts() -> list[str]:
    return [
        path.read_text(errors="replace")
        for path in sorted((FIXTURES / "corpus").glob("*/output.txt"))
    ]


def score_text(texts: list[str], show: bool) -> dict:
    size = sum(len(t.encode()) for t in texts)
    redactor = Redactor()
    start = time.perf_counter()
    findings = [f for text in texts for f in redactor.find(text)]
    seconds = time.perf_counter() - start
    if show:
        for f in findings:
            print(f"  FP text {f.kind}: {f.secret[:80]!r}")
    by_kind: dict[str, int] = defaultdict(int)
    for f in findings:
        by_kind[f.kind] += 1
    return {
        "bytes": size,
        "false_positives": len(findings),
        "per_100kb": len(findings) / (size / 100_000) if size else 0.0,
        "by_kind": dict(by_kind),
        "mb_per_s": size / 1e6 / seconds if seconds else 0.0,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="print misses and false positives")
    args = parser.parse_args()
    results = {}
    for part, name, text in (
        ("tuned", "labelled.jsonl", session_texts),
        ("held-out", "heldout.jsonl", corpus_texts),
    ):
        print(f"== {part}")
        labels = score_set(labelled(FIXTURES / "redact" / name), args.show)
        ordinary = score_text(text(), args.show)
        results[part] = {"labelled": labels, "ordinary": ordinary}
        for kind, row in labels["kinds"].items():
            print(
                f"  {kind:16} {row['found']:4}/{row['total']:<4} {row['found'] / row['total']:.1%}"
            )
        print(
            f"  recall (known shapes) {labels['recall_known_shapes']:.2%}, "
            f"all kinds {labels['recall_all']:.2%}; "
            f"look-alikes flagged {labels['lookalike_false_positives']}/{labels['lookalikes']}"
        )
        print(
            f"  ordinary text {ordinary['bytes'] / 1000:.0f} KB: {ordinary['false_positives']} "
            f"false positives = {ordinary['per_100kb']:.2f} per 100 KB {ordinary['by_kind']} "
            f"({ordinary['mb_per_s']:.1f} MB/s)"
        )
    out = ROOT / "bench" / "results" / "redact_quality.json"
    out.write_text(json.dumps(results, indent=2) + "\n")
    ok = all(
        r["labelled"]["recall_known_shapes"] >= TARGET_RECALL
        and r["ordinary"]["per_100kb"] <= TARGET_FP_PER_100KB
        for r in results.values()
    )
    print("targets met" if ok else "targets NOT met")


if __name__ == "__main__":
    main()
