"""Shrinking large inputs: a rare record of trouble deep inside a big log is found, whatever
the size (the scans that find it read the whole text; no timing here, see
bench/shrink_speed.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from klipui.shrink import Budget, Hint, shrink

CASE = Path(__file__).parent / "fixtures" / "corpus" / "17-python-http-app-log"


def _case() -> tuple[list[str], dict]:
    meta = json.loads((CASE / "meta.json").read_text(encoding="utf-8"))
    return (CASE / "output.txt").read_text(encoding="utf-8").splitlines(), meta


def _error_record(lines: list[str]) -> list[str]:
    """The case's first ERROR record with its traceback and the 500 access line after it."""
    start = next(i for i, line in enumerate(lines) if " ERROR " in line)
    end = next(i for i in range(start + 1, len(lines)) if '" 500 ' in lines[i])
    return lines[start : end + 1]


@pytest.mark.parametrize("megabytes", [3, 24])
def test_one_error_deep_inside_a_large_log_is_kept(megabytes: int) -> None:
    """Routine INFO records of the case, copied to a few MB, with the case's one ERROR record
    (its traceback and its 500 response) placed two thirds in: all of it is kept."""
    lines, meta = _case()
    routine = [line for line in lines if " INFO " in line and '" 500 ' not in line]
    block = "\n".join(routine) + "\n"
    copies = megabytes * 1_000_000 // len(block) + 1
    error = _error_record(lines)
    cut = copies * 2 // 3
    text = block * cut + "\n".join(error) + "\n" + block * (copies - cut)
    hint = Hint(tool=meta["tool"], command=meta["command"])
    out = shrink(text, hint, Budget(max_chars=meta["budget_chars"]))
    assert out.reduced and len(out.content) <= meta["budget_chars"]
    assert out.strategy.startswith("log")
    kept = out.content.splitlines()
    assert error[0] in kept  # the ERROR record
    assert any(line.startswith("ValueError: invalid literal") for line in kept)
    assert error[-1] in kept  # its 500 response
    assert any(line.startswith('  File "/tmp/ordersvc/serve_orders.py"') for line in kept)
