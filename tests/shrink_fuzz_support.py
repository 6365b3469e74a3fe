"""Hostile inputs for the shrink engine, made from real tool outputs and hostile bytes.

Used by the long fuzz harness (`bench/shrink_fuzz.py`) and by the property test in
`test_shrink_fuzz_found.py`. Everything is drawn from a `random.Random`, so one seed is one
case. Only the tuned part of the corpus is read (`bench/corpus_folds.py`).
"""

from __future__ import annotations

import json
import random
import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from klipui.shrink import BUILTIN_ORDER, Budget, Hint
from klipui.shrink.pipeline import MIN_CHARS
from klipui.shrink.text import count_lines

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "fixtures" / "corpus"
sys.path.insert(0, str(ROOT / "bench"))
from corpus_folds import part_of  # noqa: E402

_DIGITS = re.compile(r"\d+")
FORCED = [name for name in BUILTIN_ORDER if name != "size"]
"""Reducers that can be forced with `only=[name]` (`size` ends every chain anyway)."""

HOSTILE = [
    "\x1b[31mERROR\x1b[0m",
    "\x1b[1;32m",
    "\x1b[0m",
    "\x1b[2K\r",
    "\x1b]0;title\x07",
    "\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07",
    "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\",
    "\x1bP+q\x1b\\",
    "\x9b31m",
    "\r",
    "\r\r",
    "\r\n",
    "\n\r",
    "\x00",
    "\x00\x00\x00",
    "\ud800",
    "\udfff",
    "\udcff\udcfe",
    "\u200b",
    "\u200d",
    "\u200e\u200f",
    "\u202e",
    "\u2066\u2069",
    "\ufeff",
    "e\u0301",
    "\u0301",
    "a" + "\u0301" * 40,
    "👩\u200d💻",
    "🇫🇷",
    "\t",
    "\t\t\t",
    "\f",
    "\v",
    "\x85",
    "\u2028",
    "\u2029",
    "\x1c\x1d\x1e",
    "[bold]",
    "[/]",
    "[@click=app.quit]x[/]",
    "[red]error[/red]",
    "\\[escaped]",
    "9" * 400,
    "1" * 5000,
    "-0." + "0" * 400 + "1",
    "1e999999",
    "NaN",
    "  ",
    "",
    "日本語",
    "%s%n%x",
    "{{}}",
    "$(rm -rf /)",
    "../../../../etc/passwd",
]
"""Fragments spliced into lines or standing alone as lines."""

WORDS = [
    "error",
    "ERROR",
    "FAILED",
    "failed",
    "passed",
    "warning:",
    "Traceback (most recent call last):",
    "panic:",
    "fatal:",
    "E   ",
    "diff --git a/x b/x",
    "@@ -1,3 +1,4 @@",
    "+++ b/x",
    "--- a/x",
    "commit 0123456789abcdef0123456789abcdef01234567",
    "Author: A <a@b>",
    '  File "x.py", line 9, in f',
    "    at foo (bar.js:1:2)",
    "src/x.rs:10:5: error[E0308]: mismatched types",
    "x.c:1:1: warning: unused",
    "test result: FAILED. 1 passed; 2 failed",
    "=== 3 failed, 4 passed in 0.1s ===",
    "Step 3/9 : RUN make",
    "#5 ERROR: process did not complete",
    "QUERY PLAN",
    "->  Seq Scan on t  (cost=0.00..1.00 rows=1 width=4) (actual time=0.1..0.2 rows=1 loops=1)",
    "(3 rows)",
    "a,b,c",
    "|---|---|",
    "├── src",
    "└── x.py",
    "2024-01-01T00:00:00Z INFO started",
    "[2024-01-01 00:00:00] WARN slow",
    "Collecting foo==1.0",
    "Successfully installed foo-1.0",
    "def f(x):",
    "class A:",
    "x.py:12:def f():",
    "exit status 1",
    "Exit code: 137",
]
"""Words and line shapes that wake up detectors, to graft onto hostile lines."""

TOOLS = [None, "bash", "Bash", "read", "Read", "grep", "glob", "shell", "exec_command", "other"]
COMMANDS = [
    None,
    "",
    "pytest -x",
    "cargo test",
    "go test ./...",
    "npm install",
    "pip install -r r.txt",
    "git diff",
    "git log -p",
    "git status",
    "ls -R",
    "find . -name '*.py'",
    "tree",
    "rg -n TODO",
    "grep -rn error .",
    "cat big.json",
    "jq . x.json",
    "docker build .",
    "psql -c 'explain analyze select 1'",
    "sqlite3 db .dump",
    "make",
    "tsc --noEmit",
    "ruff check .",
    "eslint .",
    "journalctl -b",
    "tail -f log",
    "\x1b[31mrm -rf /\x1b[0m",
    "x" * 3000,
]
PATHS = [None, "", "x.json", "a.py", "Cargo.toml", "data.csv", "big.log", "../etc/passwd", "é/ü.md"]
QUERIES = [None, "", "error", "why did the test fail", "(((", "[a-", "*+?", "\\", "\x00", "💥 boom"]
EXIT_CODES = [None, 0, 1, 2, 127, 137, 255, -9, -1, 2**70]


MAX_TEXT = 3_000_000
"""Texts are cut to this many characters (a few long lines repeated would make gigabytes)."""


@dataclass(frozen=True)
class Case:
    """One fuzz call: `shrink(text, hint, budget, only=only)`."""

    text: str
    hint: Hint
    budget: Budget
    only: tuple[str, ...] | None

    def describe(self) -> str:
        """A short label (never the text: it may come from the corpus)."""
        only = ",".join(self.only) if self.only else "chain"
        return f"{only} {len(self.text):,} chars {self.budget}"


@cache
def tuned_outputs() -> tuple[str, ...]:
    """The tuned corpus outputs (never held-out or fresh ones)."""
    cases = sorted(p for p in CORPUS.iterdir() if (p / "output.txt").is_file())
    return tuple(
        (case / "output.txt").read_text(encoding="utf-8")
        for case in cases
        if part_of(case.name) == "tuned"
    )


@cache
def tuned_commands() -> tuple[str, ...]:
    """The commands of the tuned corpus cases."""
    found: list[str] = []
    for case in sorted(CORPUS.iterdir()):
        meta = case / "meta.json"
        if meta.is_file() and part_of(case.name) == "tuned":
            command = json.loads(meta.read_text(encoding="utf-8")).get("command")
            if isinstance(command, str):
                found.append(command)
    return tuple(found)


def _lines_of(rng: random.Random) -> list[str]:
    """A run of consecutive lines of one tuned output (maybe all of it)."""
    lines = rng.choice(tuned_outputs()).split("\n")
    if rng.random() < 0.3:
        return lines
    start = rng.randrange(len(lines))
    return lines[start : start + rng.choice([1, 3, 10, 50, 300, 5000])]


def _hostile_line(rng: random.Random) -> str:
    parts = [rng.choice(HOSTILE + WORDS) for _ in range(rng.randint(1, 6))]
    return "".join(parts)


def _mutate_line(rng: random.Random, line: str) -> str:
    roll = rng.random()
    if roll < 0.4:
        at = rng.randint(0, len(line))
        return line[:at] + rng.choice(HOSTILE) + line[at:]
    if roll < 0.55:
        return line[: rng.randint(0, len(line))]
    if roll < 0.7:
        return rng.choice(WORDS) + line
    if roll < 0.8:
        return line + "\r"
    if roll < 0.9:
        return f"\x1b[3{rng.randint(0, 7)}m{line}\x1b[0m"
    return line * min(rng.randint(2, 20), max(1, MAX_TEXT // (len(line) + 1)))


def _special(rng: random.Random) -> list[str]:
    """Whole inputs of one hostile kind."""
    kind = rng.randrange(9)
    size = rng.choice([1, 10, 100, 1000, 20_000])
    if kind == 0:
        return [""] * size
    if kind == 1:
        depth = rng.choice([10, 500, 3000, 20_000])
        return ['{"a": ' * depth + "1" + "}" * depth]
    if kind == 2:
        depth = rng.choice([10, 500, 3000, 20_000])
        return ["[" * depth + "]" * depth] + ["[" * depth] * rng.randint(0, 3)
    if kind == 3:
        return ["x" * rng.choice([10_000, 200_000, 1_000_000])]
    if kind == 4:
        return [json.dumps({"n": 10**400, "v": [1] * 50, "s": "é" * 100}, indent=2)]
    if kind == 5:
        return ["\r" * size]
    if kind == 6:
        return [rng.choice(HOSTILE) * rng.randint(1, 50) for _ in range(size)]
    if kind == 7:
        line = rng.choice(WORDS)
        return [line] * size
    return [f"{rng.choice(WORDS)} {i}" for i in range(size)]


def _within(lines: list[str]) -> list[str]:
    """The leading lines that hold `MAX_TEXT` characters (the last one cut)."""
    total = 0
    for k, line in enumerate(lines):
        total += len(line) + 2
        if total > MAX_TEXT:
            return [*lines[:k], line[: max(0, len(line) - (total - MAX_TEXT))]]
    return lines


def make_text(rng: random.Random) -> str:
    """A hostile text: real lines spliced, repeated, shuffled, cut, with hostile bytes."""
    blocks: list[list[str]] = []
    for _ in range(rng.choice([1, 1, 2, 3, 5])):
        roll = rng.random()
        if roll < 0.6:
            blocks.append(_lines_of(rng))
        elif roll < 0.8:
            blocks.append([_hostile_line(rng) for _ in range(rng.randint(1, 200))])
        else:
            blocks.append(_special(rng))
    lines = [line for block in blocks for line in block]
    if rng.random() < 0.2:
        rng.shuffle(lines)
    if lines and rng.random() < 0.5:
        for _ in range(rng.randint(1, 30)):
            k = rng.randrange(len(lines))
            lines[k] = _mutate_line(rng, lines[k])
    if lines and rng.random() < 0.1:
        for k in rng.sample(range(len(lines)), max(1, len(lines) // 10)):
            lines[k] = _mutate_line(rng, lines[k])
    if lines and rng.random() < 0.1:
        huge = rng.choice(["9" * 400, "1" * 5000, "0" * 300 + "7"])
        lines = [_DIGITS.sub(huge, line) if rng.random() < 0.5 else line for line in lines[:500]]
    if lines and rng.random() < 0.15:
        k = rng.randrange(len(lines))
        lines[k:k] = [lines[k]] * rng.choice([2, 50, 2000])
    if lines and rng.random() < 0.05:
        k = rng.randrange(len(lines))
        lines[k] = lines[k] + "y" * 1_000_000
    lines = _within(lines)
    newline = rng.choice(["\n", "\n", "\n", "\r\n", "\r\n", "\r", "\n\r", "\u2028", "\x85"])
    text = newline.join(lines)
    if rng.random() < 0.2:
        head = text[:50_000]
        text = "".join(c + "\r" if c == "\n" and rng.random() < 0.3 else c for c in head)
    roll = rng.random()
    if roll < 0.3:
        text += newline
    elif roll < 0.45 and text:
        text = text[: rng.randint(0, len(text))]  # cut mid-line
    return text[:MAX_TEXT]


def make_budget(rng: random.Random, text: str = "") -> Budget:
    """A budget across the whole allowed range, or (sometimes) just under the size of `text`."""
    if text and rng.random() < 0.2:
        chars = max(MIN_CHARS, len(text) - rng.randint(0, 60))
        lines = max(0, count_lines(text) - rng.randint(0, 3))
        return Budget(chars, lines, rng.choice([0, 0, 1, 40]))
    chars = 0 if rng.random() < 0.1 else int(80 * (50_000 / 80) ** rng.random())
    lines = 0 if rng.random() < 0.3 else int(2_000 ** rng.random())
    cap = 0 if rng.random() < 0.5 else int(500 ** rng.random())
    return Budget(max_chars=chars, max_lines=lines, max_line_chars=cap)


def make_hint(rng: random.Random) -> Hint:
    """A hint with random tool, command, path, query and exit code."""
    command = rng.choice(COMMANDS) if rng.random() < 0.6 else rng.choice(tuned_commands())
    return Hint(
        tool=rng.choice(TOOLS),
        command=command,
        path=rng.choice(PATHS),
        query=rng.choice(QUERIES),
        exit_code=rng.choice(EXIT_CODES),
    )


def make_case(rng: random.Random, only: str | None = "random", limit: int = 0) -> Case:
    """One case; `only` is a reducer name, None for the default chain, "random" to draw; a
    `limit` above 0 cuts the text to that many characters."""
    if only == "random":
        only = None if rng.random() < 0.3 else rng.choice(FORCED)
    text = make_text(rng)
    if limit:
        text = text[:limit]
    budget = make_budget(rng, text)
    return Case(text, make_hint(rng), budget, (only,) if only is not None else None)
