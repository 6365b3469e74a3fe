"""Fuzz `klipui.shrink.shrink` with hostile inputs until it stops breaking.

Each case (tests/shrink_fuzz_support.py) is shrunk with one forced reducer or the default chain,
then checked: no exception, no reducer failure in the note, the four rules
(tests/test_shrink_properties.py `check_rules`, `check_idempotent`). Failures are minimised and
saved as pickles under --out; the slowest calls per character are listed (a finding, not a
failure). Run it alone and niced: `nice -n 10 python bench/shrink_fuzz.py --cases 5000`.

Usage: python bench/shrink_fuzz.py [--cases N] [--seed S] [--only NAME] [--out DIR]
"""

from __future__ import annotations

import argparse
import pickle
import random
import re
import resource
import signal
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import FrameType

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from shrink_fuzz_support import Case, make_case
from test_shrink_properties import check_idempotent, check_rules

from klipui.shrink import Budget, Hint, shrink

HANG_SECONDS = 30
MEMORY_LIMIT = 3 << 30
SLOW_BASE = 0.5
SLOW_PER_CHAR = 1e-6
"""A case slower than `SLOW_BASE + SLOW_PER_CHAR * len(text)` seconds is reported as slow (real
outputs of 20 MB shrink in about 0.5 s: 0.025 µs a character)."""
_FAILED = re.compile(r"reducer (\w+) failed: (\w+)")


class Hang(Exception):
    """A call ran longer than `HANG_SECONDS`."""


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise Hang(f"no answer in {HANG_SECONDS} s")


def failure(case: Case) -> str | None:
    """A signature of what goes wrong with `case` (None when every check passes)."""
    only = list(case.only) if case.only else None
    # re-armed every period: a reducer's failure is caught by the pipeline, which goes on
    signal.setitimer(signal.ITIMER_REAL, HANG_SECONDS, HANG_SECONDS)
    try:
        result = shrink(case.text, case.hint, case.budget, only=only)
        check_rules(case.text, result, case.budget)
        check_idempotent(result, case.hint, case.budget, only=only)
        uncapped = Budget(case.budget.max_chars, case.budget.max_lines, 0)
        check_idempotent(result, case.hint, uncapped, only=only)
    except Exception as error:
        frame = traceback.extract_tb(error.__traceback__)[-1]
        return f"{type(error).__name__} at {Path(frame.filename).name}:{frame.lineno}"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    crashed = _FAILED.search(result.note)
    return f"reducer {crashed[1]} raised {crashed[2]}" if crashed else None


def _ddmin(items: list[str], still: Callable[[list[str]], bool]) -> list[str]:
    """A smaller list for which `still` holds (delta debugging over chunks)."""
    chunk = max(1, len(items) // 2)
    while chunk >= 1 and items:
        start, changed = 0, False
        while start < len(items):
            trial = items[:start] + items[start + chunk :]
            if trial != items and still(trial):
                items, changed = trial, True
            else:
                start += chunk
        if not changed:
            if chunk == 1:
                break
            chunk //= 2
    return items


def minimise(case: Case, signature: str) -> Case:
    """A smaller case failing with the same signature: fewer lines, shorter lines, plain hint."""
    budget = 300

    def same(trial: Case) -> bool:
        nonlocal budget
        if budget <= 0:
            return False
        budget -= 1
        return failure(trial) == signature

    for field in ("tool", "command", "path", "query", "exit_code"):
        trial = replace(case, hint=replace(case.hint, **{field: None}))
        if same(trial):
            case = trial
    lines = case.text.split("\n")
    lines = _ddmin(lines, lambda ls: same(replace(case, text="\n".join(ls))))
    case = replace(case, text="\n".join(lines))
    budget += 200
    for k in range(len(lines)):
        chars = _ddmin(
            list(lines[k]),
            lambda cs, k=k, case=case: same(
                replace(case, text="\n".join([*lines[:k], "".join(cs), *lines[k + 1 :]]))
            ),
        )
        lines[k] = "".join(chars)
        case = replace(case, text="\n".join(lines))
    return case


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--start", type=int, default=0, help="first case number")
    parser.add_argument("--only", help="force this reducer (chain: the default chain)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/shrink-fuzz"))
    parser.add_argument("--no-minimise", action="store_true")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    signal.signal(signal.SIGALRM, _alarm)
    # a blow-up becomes a MemoryError (a finding) instead of swamping a shared machine
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    runs: Counter[str] = Counter()
    found: dict[str, int] = {}
    slow: list[tuple[float, int, str]] = []
    started = time.monotonic()
    for n in range(args.start, args.start + args.cases):
        seed = args.seed * 1_000_003 + n
        rng = random.Random(seed)
        only = args.only if args.only != "chain" else None
        case = make_case(rng, "random" if args.only is None else only)
        name = case.only[0] if case.only else "chain"
        runs[name] += 1
        if n and n % 100 == 0:
            print(f"{n} cases, {time.monotonic() - started:.0f} s", flush=True)
        began = time.perf_counter()
        signature = failure(case)
        took = time.perf_counter() - began
        if took > SLOW_BASE + SLOW_PER_CHAR * len(case.text):
            slow.append((took, seed, case.describe()))
            print(f"slow {took:.2f}s seed={seed} {case.describe()}", flush=True)
        if signature is None:
            continue
        found[signature] = found.get(signature, 0) + 1
        hang = "Hang" in signature
        if found[signature] > 1 and not hang:
            continue
        print(f"FAIL seed={seed} {signature} ({case.describe()})", flush=True)
        small = case if args.no_minimise or hang else minimise(case, signature)
        path = args.out / f"fail-{seed}.pickle"
        path.write_bytes(pickle.dumps((signature, small, Hint, Budget)))
        print(f"  minimised to {len(small.text):,} chars -> {path}", flush=True)
    elapsed = time.monotonic() - started
    print(f"{args.cases} cases in {elapsed:.0f} s; per reducer: {dict(sorted(runs.items()))}")
    print(f"failures: {found or 'none'}")
    print(f"slow calls: {len(slow)}")
    for took, seed, what in sorted(slow, reverse=True)[:10]:
        print(f"  {took:.2f}s seed={seed} {what}")


if __name__ == "__main__":
    main()
