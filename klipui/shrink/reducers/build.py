"""Compiler and bundler output: each distinct error with its location, repeats counted.

Handles tsc, cargo/rustc, gcc/clang (template spew: the error line, the `required from here`
point in user code, the key message after it), go build, javac, webpack, esbuild, vite and make.
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
    TABLE_PRIORITY,
    TOP,
    Fitter,
    Lines,
    Mark,
    Marks,
    command_matches,
    finish,
    line_regex,
    named_union,
    sample,
    table_roles,
)

name = "build"
describe = "errors with their locations and summary kept, repeats counted, progress dropped"

_COMMAND = re.compile(
    r"\b(?:tsc|make|cmake|ninja|gcc|g\+\+|clang\+?\+?|cc|c\+\+|rustc|cargo\s+(?:build|check|b|run)"
    r"|go\s+(?:build|vet|install|run)|javac|mvn|gradlew?|webpack|vite\s+build|esbuild|rollup"
    r"|npm\s+run\s+build|yarn\s+build|pnpm\s+build|next\s+build|swiftc|dotnet\s+build|zig)\b"
)

_PROBLEM = line_regex(
    r"^(?:"
    r"(?P<tsc>\S.*?(?:\(\d+(?:,\d+)?\):|:\d+:\d+ -) (?:fatal )?(?:error|warning) [A-Z]{1,4}\d+: .*)"
    r"|(?P<rust>(?:error|warning)(?:\[E\d{4}\])?: "
    r"(?!could not compile|aborting|build failed|test failed|\d+ targets? failed).*)"
    r"|(?P<gcc>(?![^:\n]*\.py:)[^\s:][^:\n]*:\d+(?::\d+)?: (?:fatal error|error|warning): .*)"
    r"|(?P<go>(?:\./)?[\w./-]+\.go:\d+(?::\d+)?: (?!.*\(\w+\)$).*)"
    r"|(?P<webpack>(?:ERROR|WARNING) in .*)"
    r"|(?P<esbuild>\s*(?:✘ \[ERROR\]|▲ \[WARNING\]|X \[ERROR\]) .*)"
    r"|(?P<vite>.*\[(?:vite(?::[\w:-]+)?|plugin:[\w:-]+)\]:? .*(?:[Ee]rror|failed|[Cc]ould not).*)"
    r"|(?P<maven>\[(?:ERROR|WARNING)\] \S+\.(?:java|kt|scala|groovy):\[\d+(?:,\d+)?\] .*)"
    r"|(?P<link>(?:\S*ld(?:\.\w+)?: )?(?:\S+:\(\.[\w.]+(?:\+0x[0-9a-f]+)?\): )?"
    r"(?:undefined reference to|multiple definition of) .*"
    r"|\S*ld(?:\.\w+)?: (?:error: |cannot find |cannot open ).*"
    r"|collect2: error: .*|Undefined symbols for architecture .*)"
    r")$",
)

_SUMMARY = line_regex(
    r"^(?:"
    r"Found \d+ errors?\b.*"
    r"|error: could not compile .*"
    r"|error: aborting due to .*"
    r"|(?:warning|error): .* generated \d+ (?:warnings?|errors?).*"
    r"|warning: build failed.*"
    r"|\d+ errors?(?: and \d+ warnings?)? generated\.?"
    r"|\d+ (?:errors?|warnings?)$"
    r"|\d+ (?:errors?|warnings?)(?:,| and) \d+ (?:errors?|warnings?)\b.*"
    r"|Errors +Files$"
    r"|\[INFO\] (?:BUILD (?:FAILURE|SUCCESS)|Compiling \d+ source files?\b).*"
    r"|make(?:\[\d+\])?: \*\*\* .*"
    r"|make(?:\[\d+\])?: Target .* not remade .*"
    r"|ninja: build stopped.*"
    r"|FAILED: .*"
    r"|webpack .*compiled.*"
    r"|(?:Build|Compilation|BUILD) (?:failed|succeeded|complete|FAILED|SUCCESSFUL|FAILURE).*"
    r"|error during build:.*"
    r"|✓ built in .*|x Build failed.*"
    r"|\[ERROR\] (?:COMPILATION ERROR|Failed to execute goal).*"
    r"|\s*Finished .* target\(s\) in .*"
    r"|Some errors have detailed explanations.*"
    r"|# \S+$"
    r")",
)

MAX_SUMMARIES = 3
"""Lines of one summary shape (digits aside) that all rank as summaries; more are headers."""
_DIGITS = str.maketrans("", "", "0123456789")
_SYSTEM = re.compile(r"^(?:/usr/|/opt/|/Library/|C:\\Program Files|/nix/store/)|/include/c\+\+/")
_REQUIRED_HERE = line_regex(r"^[^\s:][^:\n]*:\d+:\d+:\s+required from here")
_CONTEXT = line_regex(
    r"^[^\s:][^:\n]*: (?:In (?:function|member function|instantiation|static)|At )"
)
_LOCATION_SPLIT = re.compile(r"^(\S.*?)(?:\(\d+(?:,\d+)?\)|:\d+(?::\d+)?|:\[\d+(?:,\d+)?\]):? ")
_SCAN = named_union(summary=_SUMMARY, problem=_PROBLEM, required=_REQUIRED_HERE, context=_CONTEXT)
"""Summaries, diagnostics, instantiation points and context lines in one pass (named groups)."""
_RUST_ARROW = re.compile(r"^\s*--> ")
_MAVEN_MORE = re.compile(r"^\[(?:ERROR|WARNING)\] {2,}\S")
"""The lines maven prints under a compiler error (`[ERROR]   symbol:   class Map`)."""
_NOTE = line_regex(r"^[^\s:][^:\n]*:\d+(?::\d+)?: note: .*")
NOTE_REACH = 40
"""Lines above a note searched for the error it belongs to."""
_LINK_ERROR = re.compile(r"undefined reference to|multiple definition of|Undefined symbols")
_QUOTED = re.compile(r"(?<=[‘'`\"])[^‘’'`\"]+(?=[’'\"])")
"""A name a gcc/clang warning quotes."""
_INDENTED_LOCATION = re.compile(r"^\s+\S+:\d+:\d+:?$")


def detect(text: str, hint: Hint) -> bool:
    """Compiler diagnostics with a build summary, a build command, or many diagnostics."""
    lines = sample(text)
    problems = summaries = 0
    for line in lines:
        if _PROBLEM.match(line):
            problems += 1
        elif _SUMMARY.match(line):
            summaries += 1
        if "clippy::" in line:
            return False
    if hint.command and "clippy" in hint.command:
        return False
    if problems and summaries:
        return True
    if problems and command_matches(hint.command, _COMMAND):
        return True
    return problems >= 5 and problems >= len(lines) * 0.1


def _mark_diagnostic(text_lines: list[str], i: int, mark: Mark) -> None:
    """Mark the first line of a distinct diagnostic and its message or code frame: an error
    high unless it comes from the system's own files (then low, unless required there)."""
    line = text_lines[i]
    error = "error" in line.lower() or "✘" in line or _LINK_ERROR.search(line) is not None
    system = bool(_SYSTEM.search(line))
    after_required = i > 0 and bool(_REQUIRED_HERE.match(text_lines[i - 1]))
    if error and (not system or after_required):
        mark(i, HIGH)
    elif error:
        mark(i, LOW)
    else:
        mark(i, MID if not system else FLOOR)
    if line.startswith(("ERROR in ", "WARNING in ")):
        _mark_message(text_lines, i, mark, MID if error else LOW)
    else:
        _mark_frame(text_lines, i, mark, HIGH if error and not system else LOW)


def reduce(text: str, hint: Hint, budget: Budget) -> Plan | None:
    """Each distinct diagnostic first, then locations and code frames, then repeats."""
    lines = Lines(text)
    n = len(lines)
    if n == 0:
        return None
    priority = Marks()
    mark = priority.mark

    text_lines = lines.lines
    messages: Counter[str] = Counter()
    first_of: dict[str, int] = {}
    repeats: list[int] = []
    contexts: list[int] = []
    summaries: dict[str, list[int]] = {}
    for i, m in lines.scan(_SCAN):
        kind = m.lastgroup
        line = text_lines[i]
        if kind == "summary":
            summaries.setdefault(line.translate(_DIGITS), []).append(i)
            continue
        if kind == "required" or kind == "context":
            if not _SYSTEM.search(line):
                if kind == "required":
                    mark(i, MID)
                else:
                    contexts.append(i)
            continue
        key = _message_key(line)
        messages[key] += 1
        if key in first_of:
            repeats.append(i)
            continue
        first_of[key] = i
        _mark_diagnostic(text_lines, i, mark)

    _mark_context(lines, set(first_of.values()), contexts, summaries, mark)
    for i in repeats:
        if messages[_message_key(text_lines[i])] < 3:
            mark(i, LOW)
    if not priority:
        return None
    for i, role in table_roles(lines).items():
        mark(i, TABLE_PRIORITY[role])  # a table (sizes, timings, syscalls) keeps its header
    fitter = Fitter(lines, budget)
    fitter.add_marks(priority, least=FLOOR + 1)
    repeated = [(count, key) for key, count in messages.items() if count >= 3]
    if repeated:
        repeated.sort(key=lambda item: (-item[0], first_of[item[1]]))
        first = first_of[repeated[0][1]]
        rows = [f"[x{count}] {key}" for count, key in repeated]
        if not fitter.add_summary(rows, where=(first + 1, first + 1)):
            fitter.add_summary(rows)
    fitter.add_marks(priority, below=FLOOR + 1)
    return finish(fitter.plan(), n)


def _mark_context(
    lines: Lines,
    heads: set[int],
    contexts: list[int],
    summaries: dict[str, list[int]],
    mark: Mark,
) -> None:
    """Notes under distinct errors, the `In function` line above one, and summaries."""
    _mark_notes(lines, heads, mark)
    _mark_steps(lines.lines, heads, mark)
    for i in contexts:
        # `In function 'f':` introduces the diagnostic under it: kept with a distinct one only
        if i + 1 in heads:
            mark(i, LOW)
    for found in summaries.values():
        # a "summary" printed for every package (`# pkg`) heads its part: the first and the
        # last rank as summaries, the others with the diagnostics
        for k, i in enumerate(found):
            mark(i, TOP if k in (0, len(found) - 1) or len(found) <= MAX_SUMMARIES else FLOOR)


STEP_REACH = 3
"""Lines above a distinct diagnostic searched for the step that printed it."""


def _mark_steps(text_lines: list[str], heads: set[int], mark: Mark) -> None:
    """The line that opens the block a distinct diagnostic starts (blank lines aside): which
    step, project or target was being built when it was reported."""
    for i in heads:
        j = i - 1
        while j >= 0 and i - j <= STEP_REACH and not text_lines[j].strip():
            j -= 1
        if j < 0 or j == i - 1 or i - j > STEP_REACH or j in heads:
            continue  # the diagnostic does not open a block of its own
        line = text_lines[j]
        if line[:1].strip() and not _PROBLEM.match(line):
            mark(j, LOW)


def _mark_notes(lines: Lines, heads: set[int], mark: Mark) -> None:
    """gcc/clang `note:` lines under a distinct error (up to the next diagnostic): where the
    declaration is, which instantiation asked for it; those in the user's files rank higher."""
    text_lines = lines.lines
    for i in lines.grep((": note: ",), _NOTE):
        j = i - 1
        while j >= 0 and i - j < NOTE_REACH and j not in heads:
            if _PROBLEM.match(text_lines[j]):
                j = -1
                break
            j -= 1
        if j >= 0 and j in heads and "error" in text_lines[j]:
            mark(i, MID if not _SYSTEM.search(text_lines[i]) else FLOOR + 1)


def _message_key(line: str) -> str:
    """The diagnostic without its location, so the same message in many files groups; for a
    warning, the names it quotes are masked too (`unused variable ‘…’` in every file)."""
    m = _LOCATION_SPLIT.match(line)
    key = line[m.end() :].strip().removeprefix("- ") if m else line.strip()
    if key.startswith("warning:") and "[-W" in key:
        key = _QUOTED.sub("…", key)
    return key


def _mark_message(lines: list[str], i: int, mark: Mark, p: int) -> None:
    """The message lines webpack prints under `ERROR in <module>`, up to a blank line."""
    for j in range(i + 1, min(len(lines), i + 12)):
        if not lines[j].strip():
            break
        mark(j, p if j <= i + 2 else FLOOR)


def _mark_frame(lines: list[str], i: int, mark: Mark, headline: int) -> None:
    """The lines right after a diagnostic: `-->` or `file:line:col:` location, code frame, caret."""
    n = len(lines)
    for j in range(i + 1, min(n, i + 10)):
        line = lines[j]
        if not line.strip():
            if j + 1 < n and lines[j + 1][:1].isspace() and lines[j + 1].strip():
                continue
            break
        if not (line[0].isspace() or line.startswith("|") or _MAVEN_MORE.match(line)):
            break
        if _RUST_ARROW.match(line) or _INDENTED_LOCATION.match(line):
            mark(j, MID if headline == HIGH else FLOOR)
        elif headline == HIGH:
            mark(j, LOW)
        else:
            mark(j, FLOOR)
