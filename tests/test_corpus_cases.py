"""Every corpus case is well formed: the fields bench and tests read, and must_keep taken verbatim.

These checks read the fixtures only; they never run the shrinker on a case.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from conftest import corpus_cases

KINDS = frozenset(
    {"tests", "build", "diff", "json", "stacktrace", "log", "tree", "repeat", "lint", "install"}
    | {"csv", "gitlog", "sql", "docker", "other"}
)
FIELDS = {"tool", "command", "kind", "budget_chars", "must_keep", "notes"}
CASES = corpus_cases()


def _load(case: Path) -> tuple[dict[str, object], str]:
    meta = json.loads((case / "meta.json").read_text(encoding="utf-8"))
    with (case / "output.txt").open(encoding="utf-8", newline="") as f:
        return meta, f.read()


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_meta_has_the_documented_fields(case: Path) -> None:
    meta, text = _load(case)
    assert set(meta) == FIELDS
    assert meta["tool"] in {"bash", "read", "grep"}
    assert isinstance(meta["command"], str) and meta["command"].strip()
    assert meta["kind"] in KINDS
    budget = meta["budget_chars"]
    assert isinstance(budget, int) and 1000 <= budget <= 8000
    assert len(text) > budget, "an output within its budget measures nothing"
    assert isinstance(meta["notes"], str) and meta["notes"].strip()


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_every_must_keep_entry_occurs_verbatim(case: Path) -> None:
    meta, text = _load(case)
    keep = meta["must_keep"]
    assert isinstance(keep, list) and 3 <= len(keep) <= 10
    assert all(isinstance(k, str) and k.strip() for k in keep)
    assert len(set(keep)) == len(keep), "a duplicated entry would count twice in recall"
    assert not [k for k in keep if "\r" in k], (
        "the benches read line ends as \\n: a CR never matches"
    )
    missing = [k for k in keep if k not in text]
    assert not missing, f"not in output.txt: {missing}"


def test_case_numbers_are_unique() -> None:
    numbers = Counter(int(case.name.split("-", 1)[0]) for case in CASES)
    assert [n for n, count in numbers.items() if count > 1] == []
