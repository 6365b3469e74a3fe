"""Hashes of what `klipui.shrink.shrink` returns, to prove a speed change leaves outputs alone.

For every corpus case (tests/fixtures/corpus/*/output.txt) at its budget, half of it and three
times it, with no hint and with the case's tool and command as hint, and for the speed inputs
of bench/shrink_speed.py grown to 1 MB, records a sha256 of the shrunk text and of every field a
caller sees (strategy, note, stats, the source of each output line, the spill locator and error).
The budget-sized run with the hint is repeated with a spill store (the footer), with a query
(the semantic ranking), with a line cap, and on the text with CRLF line ends. Only hashes are
written: no output of any case (held-out ones included) is printed.

Usage: python bench/shrink_dump.py OUT.json [--compare BASELINE.json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from dataclasses import astuple
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import shrink_speed  # noqa: E402

import klipui.shrink.text as text_module  # noqa: E402
from klipui.shrink import Budget, Hint, Shrunk, shrink  # noqa: E402

CORPUS = ROOT / "tests" / "fixtures" / "corpus"
QUERY = "why did it fail: error timeout"
"""The agent's goal for the runs with a query (the semantic ranking of pieces)."""
LINE_CAP = 120
"""The line cap of the capped runs."""


class _Store:
    """A spill store that saves nothing and always answers the same locator."""

    def save(self, text: str, tool: str | None) -> str:
        return "/spill/fixed-locator.txt"


def _digest(result: Shrunk) -> str:
    """One sha256 over the content and every other field a caller sees."""
    seen = {
        "content": result.content,
        "reduced": result.reduced,
        "strategy": result.strategy,
        "note": result.note,
        "stats": list(astuple(result.stats)),
        "locator": result.locator,
        "kept": [list(span) for span in result.kept],
        "spill_error": result.spill_error,
    }
    blob = json.dumps(seen, sort_keys=True, default=repr).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()


def _run(text: str, hint: Hint | None, budget: Budget, spill: _Store | None = None) -> str:
    text_module._last = None
    return _digest(shrink(text, hint, budget, spill))


def dump() -> dict[str, str]:
    """Name of each run → its hash."""
    hashes: dict[str, str] = {}
    for folder in sorted(CORPUS.iterdir()):
        source = folder / "output.txt"
        if not source.is_file():
            continue
        text = source.read_text(encoding="utf-8")
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        tool_hint = Hint(tool=meta.get("tool"), command=meta.get("command"))
        base = int(meta["budget_chars"])
        for factor, chars in (("1", base), ("half", max(80, base // 2)), ("3", base * 3)):
            for hint_name, hint in (("nohint", None), ("hint", tool_hint)):
                key = f"{folder.name}|{factor}|{hint_name}"
                hashes[key] = _run(text, hint, Budget(max_chars=chars))
        hashes[f"{folder.name}|1|hint|spill"] = _run(
            text, tool_hint, Budget(max_chars=base), _Store()
        )
        asked = Hint(tool=meta.get("tool"), command=meta.get("command"), query=QUERY)
        hashes[f"{folder.name}|1|query"] = _run(text, asked, Budget(max_chars=base))
        capped = Budget(max_chars=base, max_line_chars=LINE_CAP)
        hashes[f"{folder.name}|1|hint|cap"] = _run(text, tool_hint, capped)
        crlf = text.replace("\n", "\r\n")
        hashes[f"{folder.name}|1|hint|crlf"] = _run(crlf, tool_hint, Budget(max_chars=base))
    for kind, case in shrink_speed.KINDS.items():
        source_text, meta = shrink_speed._case(case)
        grown = shrink_speed.grow(source_text, shrink_speed.MB, kind)
        hint = Hint(tool=meta["tool"], command=meta["command"])
        budget = Budget(max_chars=meta["budget_chars"])
        hashes[f"speed:{kind}|1mb|hint"] = _run(grown, hint, budget)
        hashes[f"speed:{kind}|1mb|nohint"] = _run(grown, None, budget)
    return hashes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--compare", type=Path, help="a previous dump that must match")
    args = parser.parse_args()
    hashes = dump()
    args.out.write_text(json.dumps(hashes, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{len(hashes)} hashes written to {args.out}")
    if args.compare:
        before = json.loads(args.compare.read_text(encoding="utf-8"))
        changed = sorted(k for k in before.keys() | hashes.keys() if before.get(k) != hashes.get(k))
        print(f"{len(changed)} differ from {args.compare}")
        for key in changed:
            print(f"  {key}")
        return 1 if changed else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
