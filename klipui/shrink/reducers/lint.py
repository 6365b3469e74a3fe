"""Linter output: rare rules whole, one example of each frequent rule, counts per rule.

Handles ruff (full and concise), flake8, pylint, mypy, eslint (stylish and compact), golangci-lint,
cargo clippy (its rustc errors come first) and any `path:line[:col]: message [Rule]` diagnostic
(an optional `[SEVERITY] ` before it, as Checkstyle's plain format prints).
The linter's own summary lines are always kept.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from klipui.shrink.plan import Budget, Hint, Plan
from klipui.shrink.reducers._patterns import (
    FLOOR,
    HIGH,
    LOW,
    MID,
    TOP,
    Fitter,
    Lines,
    Mark,
    Marks,
    command_matches,
    finish,
    line_regex,
    sample,
)

name = "lint"
describe = "every rare rule, one example of each frequent rule, counts per rule and the summary"

RARE = 3
"""A rule with at most this many hits is shown at every hit."""

_COMMAND = re.compile(
    r"\b(?:eslint|ruff|clippy|flake8|pylint|mypy|pyright|golangci-lint|biome|oxlint|stylelint"
    r"|rubocop|shellcheck|hadolint|tslint|pycodestyle|pydocstyle|bandit|standard|xo|lint)\b"
)

_FORMATS = {
    "ruff": r"(?P<ruff>(?P<ruff_code>[A-Z]{1,5}\d{2,4})(?: \[\*\])? \S.*)",
    "pylint": r"(?P<pylint>[^\s:][^:\n]*:\d+:\d+: (?P<pylint_code>[CRWEFI]\d{4}): .*)",
    "flake": r"(?P<flake>[^\s:][^:\n]*:\d+:\d+: (?P<flake_code>[A-Z]{1,5}\d{1,4}) .*)",
    "mypy": r"(?P<mypy>[^\s:][^:\n]*\.pyi?:\d+(?::\d+)?: (?P<mypy_sev>error|warning): .*?"
    r"(?:  \[(?P<mypy_code>[\w-]+)\])?)",
    "eslint": r"(?P<eslint>\s+\d+:\d+\s+(?P<eslint_sev>error|warning)\s+.+?\s{2,}"
    r"(?P<eslint_code>[\w@/-]+))",
    "compact": r"(?P<compact>.+?: line \d+, col \d+, (?P<compact_sev>Error|Warning) - .* "
    r"\((?P<compact_code>[\w@/-]+)\))",
    "golangci": r"(?P<golangci>[\w./-]+\.go:\d+:\d+: .* \((?P<golangci_code>[\w-]+)\))",
    "tagged": r"(?P<tagged>(?:\[(?P<tagged_sev>ERROR|WARN|WARNING|INFO)\] )?[^\s:\[][^:\n]*:\d+"
    r"(?::\d+)?: .*? \[(?P<tagged_code>[A-Za-z][\w.-]*)\])",
    "rust": r"(?P<rust>(?P<rust_sev>warning|error)(?:\[(?P<rust_code>E\d{4})\])?: "
    r"(?!could not compile|aborting|build failed|`[^`]+` \(.*\) generated).*)",
}
"""One pattern a diagnostic shape, each with a named group for the line and one for its code."""


@lru_cache(maxsize=32)
def _diag_regex(kinds: frozenset[str]) -> re.Pattern[str]:
    """The diagnostic pattern for some shapes (a narrower scan is a faster one)."""
    body = "|".join(_FORMATS[k] for k in _FORMATS if k in kinds)
    return line_regex(f"^(?:{body})$")


_DIAG = _diag_regex(frozenset(_FORMATS))

_SUMMARY = line_regex(
    r"^(?:"
    r"Found \d+ errors?\b.*"
    r"|\[\*\] \d+ fixable.*"
    r"|All checks passed!"
    r"|\s*✖ \d+ problems?.*"
    r"|\s*\d+ errors? and \d+ warnings? potentially fixable.*"
    r"|Your code has been rated at .*"
    r"|(?:warning|error): .* generated \d+ (?:warnings?|errors?).*"
    r"|error: could not compile .*"
    r"|error: aborting due to .*"
    r"|Some errors have detailed explanations.*"
    r"|Success: no issues found.*"
    r"|\d+ (?:problems?|issues?|offenses?)\b.*"
    r"|\d+ files? inspected.*"
    r")$",
)

_PY_SEVERITY = {"F": 3, "E": 3, "W": 2, "B": 2, "S": 2, "R": 1, "C": 1, "I": 1, "D": 1}
"""Severity by the first letter of a Python lint code (pylint E/F, pyflakes F, bugbear B...)."""

_NUMBERS = re.compile(r"\d+")
_QUOTED = re.compile(r"'[^']*'|`[^`]*`|\"[^\"]*\"|‘[^’]*’")

_SUMMARY_WORDS = (
    "Found ",
    "[*] ",
    "All checks",
    "✖",
    "fixable",
    "rated at",
    "generated",
    "could not compile",
    "aborting",
    "Some errors",
    "Success:",
    "problem",
    "issue",
    "offense",
    "inspected",
)
"""Words every summary line holds: a substring search finds the few lines worth matching."""

_LABEL = re.compile(r"[\^-] [^|]*[A-Za-z]")
"""A caret or dash underline with its label (`^^^^ expected `u32`, found `f64``)."""
_CODE_LINE = re.compile(r"\d+ +\|")

_RUST_RULE = re.compile(r"#(\w+)$|clippy::(\w+)")
_ESLINT_FILE = re.compile(r"^(?:/|[A-Za-z]:\\|\.{0,2}/?[\w@.-]+/)\S*$")


@dataclass(slots=True)
class _Diag:
    line: int
    end: int
    """End of the diagnostic's block (exclusive): the header alone for one-line formats, -1
    while not yet looked up."""
    code: str
    severity: int
    """1 convention/refactor/info, 2 warning, 3 error."""
    kind: str

    @property
    def error(self) -> bool:
        return self.severity == 3


def detect(text: str, hint: Hint) -> bool:
    """Linter diagnostics in bulk, or a lint command with a few, or clippy's markers."""
    lines = sample(text)
    if len(lines) < 5:
        return False
    diags = summaries = 0
    clippy = False
    for i, line in enumerate(lines):
        m = _DIAG.match(line)
        if m:
            kind = m.lastgroup and _kind(m)
            if kind == "ruff" and not (i + 1 < len(lines) and "-->" in lines[i + 1]):
                continue
            if kind == "rust":
                continue
            diags += 1
        elif _SUMMARY.match(line):
            summaries += 1
        if "clippy::" in line:
            clippy = True
    if clippy or (hint.command and "clippy" in hint.command and "error" in text[:200_000]):
        return True
    if command_matches(hint.command, _COMMAND) and diags >= 2:
        return True
    if summaries and diags >= 3:
        return True
    return diags >= 10 and diags >= len(lines) * 0.05


def _kind(m: re.Match[str]) -> str:
    """The shape of a diagnostic match: its outermost named group closes last."""
    return m.lastgroup or ""


def reduce(text: str, hint: Hint, budget: Budget) -> Plan | None:
    """Summary lines, then rare rules and errors, then one example per frequent rule."""
    lines = Lines(text)
    n = len(lines)
    if n == 0:
        return None
    diags = _diagnostics(lines)
    if len(diags) < 3:
        return None
    counts: Counter[str] = Counter(d.code for d in diags)
    priority = Marks()
    summary_lines = lines.grep(_SUMMARY_WORDS, _SUMMARY)
    for i in summary_lines:
        priority.mark(i, TOP)
    _mark_diagnostics(lines.lines, diags, counts, priority.mark)
    fitter = Fitter(lines, budget)
    fitter.add_marks(priority, least=FLOOR + 1)
    _add_rule_counts(fitter, counts, summary_lines)
    fitter.add_marks(priority, below=FLOOR + 1)
    return finish(fitter.plan(), n)


def _mark_diagnostics(
    lines: list[str], diags: list[_Diag], counts: Counter[str], mark: Mark
) -> None:
    """Rust errors first, then rare rules, then the first of each frequent rule, then new
    shapes of a rule's message; exact repeats of frequent rules not at all."""
    seen: set[str] = set()
    seen_shapes: set[tuple[str, str]] = set()
    seen_exact: set[tuple[str, str]] = set()
    for d in diags:
        exact = _NUMBERS.sub("#", lines[d.line]).strip()
        shape = _QUOTED.sub("_", exact)
        new_shape = (d.code, shape) not in seen_shapes
        new_exact = (d.code, exact) not in seen_exact
        seen_shapes.add((d.code, shape))
        seen_exact.add((d.code, exact))
        count = counts[d.code]
        first = d.code not in seen
        seen.add(d.code)
        if d.kind == "rust" and d.error:
            p = HIGH + 10
        elif count <= RARE:
            p = (60 if first else 55) + 10 * d.severity
        elif first:
            p = 45 + 10 * d.severity
        elif new_shape:
            p = 30 + max(0, 20 - count)
        elif new_exact and count <= 20:
            p = FLOOR + 1 + (20 - count) // 2
        else:
            continue
        mark(d.line, p)
        _mark_block(lines, d, p, mark)
        if d.kind == "eslint":
            header = _eslint_file(lines, d.line)
            if header is not None:
                mark(header, p - 2)


def _add_rule_counts(fitter: Fitter, counts: Counter[str], summary_lines: list[int]) -> None:
    """`hits per rule:` for the frequent rules, after the tool's own summary when it has one."""
    common = sorted(
        ((count, code) for code, count in counts.items() if count > RARE), key=lambda x: -x[0]
    )
    if not common:
        return
    rows = _count_rows([f"{code} x{count}" for count, code in common])
    where = None
    if summary_lines:
        last = summary_lines[0]
        where = (last, last)
    if not (where and fitter.add_summary(["hits per rule:", *rows], where=where)):
        fitter.add_summary(["hits per rule:", *rows])


def _diagnostics(lines: Lines) -> list[_Diag]:
    text_lines = lines.lines
    n = len(text_lines)
    out: list[_Diag] = []
    present = frozenset(_kind(m) for line in sample(lines.text) if (m := _DIAG.match(line)))
    pattern = _diag_regex(present) if present else _DIAG
    for i, m in lines.scan(pattern):
        kind = _kind(m)
        if kind == "ruff":
            if not (i + 1 < n and text_lines[i + 1].lstrip().startswith("-->")):
                continue
            end = -1
            code = m.group("ruff_code")
            out.append(_Diag(i, end, code, _PY_SEVERITY.get(code[0], 2), kind))
        elif kind == "rust":
            end = _block_end(text_lines, i)
            severity = 3 if m.group("rust_sev") == "error" else 2
            code = m.group("rust_code") or _rust_rule(text_lines, i, end) or m.group("rust")
            out.append(_Diag(i, end, code, severity, kind))
        elif kind == "pylint":
            code = m.group("pylint_code")
            out.append(_Diag(i, i + 1, code, _PY_SEVERITY.get(code[0], 1), kind))
        elif kind == "flake":
            code = m.group("flake_code")
            out.append(_Diag(i, i + 1, code, _PY_SEVERITY.get(code[0], 2), kind))
        elif kind == "mypy":
            code = m.group("mypy_code") or "mypy"
            out.append(_Diag(i, i + 1, code, 3 if m.group("mypy_sev") == "error" else 2, kind))
        elif kind in ("eslint", "compact", "golangci", "tagged"):
            code = m.group(f"{kind}_code")
            sev = m.group(f"{kind}_sev") if kind != "golangci" else "error"
            sev = sev or "warning"
            out.append(_Diag(i, i + 1, code, 2 if sev.lower() == "error" else 1, kind))
    return out


def _block_end(lines: list[str], i: int) -> int:
    """A multi-line diagnostic (ruff full, rustc) runs to the next blank line."""
    n = len(lines)
    j = i + 1
    while j < n and j < i + 60 and lines[j].strip():
        j += 1
    return j


def _rust_rule(lines: list[str], start: int, end: int) -> str | None:
    for j in range(start + 1, end):
        if "= help: for further information" in lines[j] or "clippy::" in lines[j]:
            m = _RUST_RULE.search(lines[j])
            if m:
                return m.group(1) or m.group(2)
    return None


def _mark_block(lines: list[str], d: _Diag, p: int, mark: Mark) -> None:
    """Under a multi-line diagnostic: its first location; for errors, the code frame (labelled
    carets first), then secondary locations and notes."""
    if d.end < 0:
        d.end = _block_end(lines, d.line)
    located = False
    for j in range(d.line + 1, d.end):
        line = lines[j].lstrip()
        if line.startswith("-->"):
            mark(j, p - 1 if not located else LOW)
            located = True
        elif not (d.kind == "rust" and d.error):
            mark(j, FLOOR)
        elif _LABEL.search(line):
            mark(j, MID + 5)
        elif _CODE_LINE.match(line):
            mark(j, MID)
        else:
            mark(j, LOW if line.strip("| ") else FLOOR)


def _eslint_file(lines: list[str], i: int) -> int | None:
    """The unindented file header above an eslint stylish diagnostic."""
    for j in range(i - 1, max(-1, i - 2_000), -1):
        line = lines[j]
        if line and not line[0].isspace():
            return j if _ESLINT_FILE.match(line) else None
    return None


def _count_rows(items: list[str], width: int = 96) -> list[str]:
    rows: list[str] = []
    current = ""
    for item in items:
        if current and len(current) + 2 + len(item) > width:
            rows.append(current)
            current = item
        else:
            current = f"{current}, {item}" if current else item
    if current:
        rows.append(current)
    return rows
