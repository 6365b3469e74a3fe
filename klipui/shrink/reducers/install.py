"""Package-manager output: results, errors and warnings kept; download and fetch progress dropped.

Handles pip, npm, yarn, pnpm, cargo install/fetch, bundler, poetry and go get. npm warning blocks
(`ERESOLVE` and the lines explaining it) are kept together.
"""

from __future__ import annotations

import re
from collections import Counter

from klipui.shrink.plan import Budget, Hint, Plan
from klipui.shrink.reducers._patterns import (
    FLOOR,
    HIGH,
    LOW,
    MID,
    SIGNAL,
    TOP,
    Cand,
    Fitter,
    Lines,
    command_matches,
    finish,
    line_regex,
    sample,
)
from klipui.shrink.salience import family

name = "install"
describe = "results, errors and warnings kept, download progress dropped"
overflow = "tail"

_COMMAND = re.compile(
    r"\b(?:npm\s+(?:i|install|ci|add|update)|pnpm\s+(?:i|install|add|update)|yarn(?:\s+(?:add|install))?"
    r"|pip3?\s+install|python\d?(?:\.\d+)?\s+-m\s+pip\s+install|uv\s+(?:pip\s+install|add|sync)"
    r"|poetry\s+(?:add|install|update)|cargo\s+(?:add|install|fetch)|bundle(?:\s+install)?"
    r"|gem\s+install|go\s+(?:get|mod\s+download)|composer\s+(?:install|require)|conda\s+install"
    r"|apt(?:-get)?\s+install|brew\s+install)\b"
)

_NOISE = line_regex(
    r"^(?:\s*(?:Collecting|Downloading|Using cached|Fetching|Resolving|Obtaining|Preparing"
    r"|Building wheel|Getting requirements|Installing build dependencies|Looking in indexes"
    r"|Requirement already satisfied|Downloaded|Compiling \S+ v\d|Updating|Locking|Adding)\b"
    r"|\s*[━─█▌▍▎▏=#>\s-]*\d+(?:\.\d+)?/\d+(?:\.\d+)? [kMG]?B\b"
    r"|\s*━"
    r"|npm (?:http|timing|sill|verb) "
    r"|\[\d+/\d+\] "
    r"|Progress: resolved "
    r"|go: (?:downloading|finding) "
    r"|\s*[⠁-⣿] "
    r"|.*\b\d{1,3}% \|"
    r"|(?:Get|Hit|Ign):\d+ \S"
    r"|(?:Preparing to unpack|Unpacking|Selecting previously unselected package) \S"
    r"|\(Reading database |Reading package lists|Building dependency tree|Reading state information"
    r")",
)

_TOP = line_regex(
    r"^(?:\s*Successfully (?:installed|built|uninstalled) .*"
    r"|(?:added|removed|changed|audited) \d+ packages?.*"
    r"|up to date.*"
    r"|found \d+ vulnerabilit.*|\d+ (?:\w+ severity )?vulnerabilit.*"
    r"|✨?\s*Done in .*"
    r"|\s*Finished .*"
    r"|\s*Installed package .*"
    r"|Packages: [+-].*"
    r"|Bundle complete!.*"
    r"|success .*"
    r"|Installing collected packages: .*"
    r"|\d+ upgraded, \d+ newly installed, .*"
    r")$",
)
_HEADING = re.compile(
    r"^(?:The following (?:additional |NEW )?packages will be \w+|(?:Suggested|Recommended)"
    r" packages):$"
)
"""apt's lists of packages (the indented lines under it name them)."""
_STEP = re.compile(r"^(Setting up|Processing triggers for|Removing|Purging) \S")
"""dpkg's per-package steps: routine, but each names a package and its version."""

_ERROR = re.compile(
    r"^(?:\s*(?:ERROR|error|Error)\b|npm ERR!|npm error|E: |\s*× |\s*╰─> "
    r"|.*(?:\bERR_PNPM_|\bERESOLVE\b|\bCould not (?:find|build|install|resolve)\b"
    r"|\bconflict(?:ing|s)?\b|\bincompatible\b|\bsubprocess-exited-with-error\b|fatal error"
    r"|[Ee]rror: |\bfailed with\b|did not run successfully|\.\.\. error$|Failed to build))",
)
_WARNING = re.compile(
    r"^(?:npm warn|npm WARN|WARN|WARNING|warning|DEPRECATION|W: |\s*Created wheel for"
    r"|note: |hint: |.*\b\w*Warning: |.*\bdeprecated\b)",
)
_NPM_WARN = re.compile(r"^npm (?:warn|WARN|ERR!|error)\b")
REPEATED_KIND = 3
"""Warnings and steps of one kind (names aside) from this many on keep their first and last."""
STEP = LOW + 1
"""A package manager's per-package step (`Setting up x (1.2) ...`)."""
UNIQUE = LOW - 2
"""A line of no known kind whose template is seen once (`After this operation, 12 MB ...`,
`x is already the newest version`): above the middle of a run of alike lines."""
_CONTINUATION = re.compile(r"^\s+\S")


def detect(text: str, hint: Hint) -> bool:
    """Package-manager progress with at least one result or warning line."""
    lines = sample(text)
    if len(lines) < 10:
        return False
    noise = signal = 0
    for line in lines:
        if _NOISE.match(line):
            noise += 1
        elif _TOP.match(line) or _NPM_WARN.match(line):
            signal += 1
    if command_matches(hint.command, _COMMAND) and noise + signal >= 3:
        return True
    return noise >= 15 and noise >= len(lines) * 0.25 and signal >= 1


def _line_priority(line: str, previous: int) -> int:
    """A line's own rank: results, errors, warnings, a continuation of a warning or error."""
    if _TOP.match(line):
        return TOP
    if _ERROR.match(line):
        return HIGH
    if _STEP.match(line):
        return STEP
    if SIGNAL.search(line):
        return HIGH
    if _WARNING.match(line):
        return MID
    if _HEADING.match(line):
        return MID
    if previous >= MID and _CONTINUATION.match(line):
        return LOW
    return FLOOR


def reduce(text: str, hint: Hint, budget: Budget) -> Plan | None:
    """Results first, then errors, then distinct warnings with their explanation lines."""
    lines = Lines(text)
    n = len(lines)
    if n == 0:
        return None
    text_lines = lines.lines
    priority: dict[int, int] = {}
    noise_kinds: Counter[str] = Counter()
    seen: set[str] = set()
    block_priority = 0
    previous = FLOOR
    in_error = False
    kinds: dict[bytes, list[int]] = {}
    noise_ends: dict[str, list[int]] = {}
    noise_match = _NOISE.match
    top_match = _TOP.match
    for i, line in enumerate(text_lines):
        if noise_match(line) and not top_match(line):
            noise_kind = _noise_kind(line)
            noise_kinds[noise_kind] += 1
            noise_ends.setdefault(noise_kind, [i, i])[1] = i
            previous = 0
            block_priority = 0
            in_error = False
            continue
        p = _line_priority(line, previous)
        if _NPM_WARN.match(line):
            if block_priority:
                p = max(p, block_priority - 10)
            else:
                block_priority = p
        else:
            block_priority = 0
        if p == HIGH:
            in_error = True
        elif in_error and p < MID and line.strip():
            p = MID  # the lines that explain an error, up to the next progress line
        key = line.strip()
        if p < TOP and key in seen:
            p = FLOOR
        seen.add(key)
        if p in (MID, FLOOR, STEP) and key:
            kinds.setdefault(_kind_of(line, key, p), []).append(i)
        priority[i] = p
        previous = p if p != STEP else LOW
    _group(kinds, priority)
    fitter = Fitter(lines, budget)
    fitter.add_marks(priority, least=FLOOR + 1)
    if noise_kinds:
        rows = [f"[x{count}] {kind} …" for kind, count in noise_kinds.most_common(6)]
        _add_noise_ends(
            fitter, lines, [noise_ends[kind] for kind, _ in noise_kinds.most_common()], rows
        )
        fitter.add_summary(rows)
    fitter.add_marks(priority, below=FLOOR + 1)
    return finish(fitter.plan(), n)


SUMMARY_MARKER = 35
"""About what the marker before a summary's rows costs."""


def _add_noise_ends(fitter: Fitter, lines: Lines, ends: list[list[int]], rows: list[str]) -> None:
    """The first and the last line of each kind of progress line (the most frequent kinds
    first), while the room left still holds the summary that counts them all: `Requirement
    already satisfied: a` and `...: z` say what the `[x32]` stands for."""
    reserve = sum(len(row) + 1 for row in rows) + SUMMARY_MARKER
    for first, last in ends:
        for i in dict.fromkeys((first, last)):
            if fitter.room() - lines.chars(i, i + 1) >= reserve:
                fitter.try_add(Cand(i, i + 1, LOW))


def _kind_of(line: str, key: str, p: int) -> bytes:
    """What a line is one of: a warning by its template without names, a step by its verb, a
    plain line by its lead (`_lead`)."""
    if p == MID:
        return family(line)
    if p == STEP:
        step = _STEP.match(line)
        return step.group(1).encode() if step else b""
    return _lead(key)


def _group(kinds: dict[bytes, list[int]], priority: dict[int, int]) -> None:
    """A plain line of a kind seen once outranks the middle of a run; a warning or step about
    many packages keeps its first and last, the others give way first."""
    for same in kinds.values():
        if len(same) == 1 and priority[same[0]] == FLOOR:
            priority[same[0]] = UNIQUE
        for i in same[1:-1] if len(same) >= REPEATED_KIND else ():
            if priority[i] > FLOOR:
                priority[i] = FLOOR + 1


def _lead(line: str) -> bytes:
    """The kind of a plain line: its first two words and how many words it has, so that a run
    naming one thing a line (`Enabling module alias.`, `Enabling module dir.`) is one kind."""
    words = line.split()
    return f"{' '.join(words[:2])} {len(words)}".encode("utf-8", "surrogatepass")


def _noise_kind(line: str) -> str:
    """A short name for a progress line: `npm http fetch`, `Downloading`, `progress bar`."""
    words = line.split(None, 3)
    if not words:
        return "progress"
    if words[0] == "npm":
        return " ".join(words[:3])
    if "━" in line or "█" in line or "%" in words[0]:
        return "progress bar"
    return words[0] if words[0][:1].isalpha() else "progress"
