"""Salience, round 8: names quoted in an error link the lines that name them again, `key=value`
fields with a value of their own, and exceptions among repeated errors."""

from __future__ import annotations

from klipui.shrink import Budget, Hint, shrink
from klipui.shrink.salience import ECHO, Scores
from klipui.shrink.text import split

BASH = Hint(tool="bash")
MODULES = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
]


def _submodules(broken: str) -> str:
    """A submodule update where one module's fetch fails, then the status of every module."""
    out = [f"Submodule path 'libs/{m}': checked out 'abc{k}'" for k, m in enumerate(MODULES)]
    out.append(f"fatal: Fetched in submodule path 'libs/{broken}', but it did not contain 123abc.")
    out += [
        f"{'+' if m == broken else ' '}deadbeef{k} libs/{m} (heads/main)"
        for k, m in enumerate(MODULES)
    ]
    return "\n".join(out)


def test_a_name_quoted_in_an_error_lifts_the_lines_that_name_it_again() -> None:
    text = _submodules("delta")
    lines = split(text)
    score = Scores(lines, BASH).score
    status = len(MODULES) + 1 + MODULES.index("delta")
    assert lines.lines[status].startswith("+")
    assert score.get(status, 0) >= ECHO
    assert score.get(status - 2, 0) < ECHO and score.get(status + 2, 0) < ECHO


def test_the_status_line_of_the_failed_module_survives_a_tight_budget() -> None:
    text = _submodules("delta")
    out = shrink(text, BASH, Budget(max_chars=len(text) * 2 // 3)).content
    assert "+deadbeef3 libs/delta (heads/main)" in out
