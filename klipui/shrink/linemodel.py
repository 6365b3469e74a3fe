"""A learned nudge to salience: how likely an expert is to insist on a line, from what any line
shows (its salience level, how often its template repeats, where it sits, its length, its
punctuation, its words).

The weights (`klipui.shrink.line_weights`) are fitted by `bench/train_line_model.py` on the
tuned folds of the corpus alone: every line of a tuned case is labelled by whether it holds one
of the case's must-keep strings, the weights rank a case's must-keep lines above its other lines,
and a one-feature logistic regression scales that ranking to log-odds. `nudged` adds
`SCALE * log-odds` to each line's salience, so within a level the likelier line goes first, a
line the rules scored nothing can still rise, and a routine one sinks. Outputs longer than
`MAX_LINES` lines are ranked by salience alone.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Collection
from typing import TYPE_CHECKING

from klipui.shrink.line_weights import BIAS, WEIGHTS
from klipui.shrink.plan import Hint
from klipui.shrink.text import Lines

if TYPE_CHECKING:
    from klipui.shrink.salience import _Templates

MAX_LINES = 4_000
"""Longer outputs are ranked by the rules alone: the features cost a pass of Python per line
(about 17 µs a line: 70 ms at this size)."""
SCALE = 80
"""Salience points per unit of log-odds."""
MAX_NUDGE = 200
"""The most a line moves: past the lines of its level and the next, never over the rules'
coarse order (a strong signal stays above a routine line, a plan's line above a dropped one)."""
FIRM = 880
"""Lines the rules rank this high (strong signals, summaries, exit statuses, the last line, a
reducer's top pieces in its region: salience's `PLANNED`) keep their order, and no nudged line
rises to them: among them the later goes first, which is what an expert wants of retries, and a
reducer that read the whole shape keeps what it chose (`git show`'s commit message)."""
LEVELS = (1, 300, 450, 540, 600, 700, 880, 950)
"""Upper bounds of the salience levels a line is put in (`s0` … `s8`)."""
INTERACTING = frozenset(
    {"novel", "upper", "indent", "prevblank", "tfirst", "tlast", "echo", "loc", "colon", "digit"}
    | {"digits", "pct", "paren", "pipe"}
)
"""Traits also weighed per salience level, as are the position, count, length and distance
buckets: the same trait means more on a line the rules rank low than on one they rank high."""
_PUNCTUATION = (
    (":", "colon"),
    ("=", "eq"),
    ("'", "q1"),
    ('"', "q2"),
    ("/", "slash"),
    ("!", "bang"),
    ("?", "ques"),
    ("(", "paren"),
    ("%", "pct"),
    ("#", "hash"),
    ("|", "pipe"),
)
_UPPER = re.compile(r"\b[A-Z]{3,}\b")
_LOCATION = re.compile(r"[\w.-]\.\w{1,8}[:(]\d+|\bline \d+")
_COMMAND_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{2,}")
_WORD = re.compile(r"[a-z]{3,}")


def _level(value: int) -> int:
    return next((k for k, bound in enumerate(LEVELS) if value < bound), len(LEVELS))


def _position(i: int, n: int) -> str:
    ratio = i / max(1, n - 1)
    if i < 3:
        return "p0"
    if ratio < 0.1:
        return "p1"
    if ratio < 0.5:
        return "p2"
    if ratio < 0.9:
        return "p3"
    return "p4" if i < n - 3 else "p5"


def _length(size: int) -> str:
    return next((f"l{k}" for k, bound in enumerate((15, 40, 100, 200)) if size < bound), "l4")


def _count(seen: int) -> str:
    return "c1" if seen == 1 else "c2" if seen == 2 else "c3" if seen < 10 else "c10"


def _distance(i: int, strong: list[int]) -> str:
    if not strong:
        return "nostrong"
    k = bisect_left(strong, i)
    near = min(abs(i - strong[j]) for j in (k - 1, k) if 0 <= j < len(strong))
    return "d0" if near == 0 else "d1" if near == 1 else "d3" if near <= 3 else "dfar"


def features(
    lines: Lines, hint: Hint, score: dict[int, int], templates: _Templates, novel: Collection[int]
) -> list[list[str]]:
    """The features of each line (`score` and `templates` as salience's scan left them): its
    salience level first, then its traits, then the traits that interact with the level (named
    `s<level>*<trait>`)."""
    texts = lines.lines
    n = len(texts)
    seen, first, last = templates.counts, templates.first, templates.last
    command = set(_COMMAND_WORD.findall(hint.command or hint.path or ""))
    strong = sorted(i for i, value in score.items() if value >= FIRM)
    rows: list[list[str]] = []
    for i, line in enumerate(texts):
        shape = templates.shapes[i]
        level = f"s{_level(score.get(i, 0))}"
        buckets = [_count(seen[shape]), _position(i, n), _length(len(line)), _distance(i, strong)]
        stripped = line.lstrip()
        digits = sum(map(str.isdigit, line))
        flags = (
            ("tfirst", seen[shape] > 1 and first[shape] == i),
            ("tlast", seen[shape] > 1 and last[shape] == i),
            ("novel", i in novel),
            ("indent", bool(stripped) and len(stripped) < len(line)),
            ("blank", not stripped),
            ("prevblank", i > 0 and not texts[i - 1].strip()),
            ("nextblank", i + 1 < n and not texts[i + 1].strip()),
            ("upper", _UPPER.search(line) is not None),
            ("digit", digits > 0),
            ("digits", bool(line) and digits / len(line) > 0.3),
            ("bracketstart", stripped[:1] in ("[", "<") and bool(stripped)),
            ("loc", _LOCATION.search(line) is not None),
            ("echo", bool(command) and not command.isdisjoint(_COMMAND_WORD.findall(line))),
            ("sentence", stripped[:1].isupper() and line.rstrip().endswith(".")),
        )
        traits = [name for name, present in flags if present]
        traits += [name for mark, name in _PUNCTUATION if mark in line]
        crossed = [f"{level}*{t}" for t in (*buckets, *(t for t in traits if t in INTERACTING))]
        words = [f"w:{word}" for word in set(_WORD.findall(line.lower()))]
        rows.append([level, *buckets, *traits, *crossed, *words])
    return rows


def log_odds(
    lines: Lines,
    hint: Hint,
    score: dict[int, int],
    templates: _Templates | None,
    novel: Collection[int],
) -> list[float] | None:
    """Each line's log-odds of being one an expert keeps, or None when the output is too long
    to weigh line by line (or was not scanned: no templates)."""
    if templates is None or len(lines) > MAX_LINES or not len(lines):
        return None
    get = WEIGHTS.get
    return [
        BIAS + sum(get(name, 0.0) for name in row)
        for row in features(lines, hint, score, templates, novel)
    ]


def nudged(score: dict[int, int], odds: list[float], related: Collection[int]) -> dict[int, int]:
    """`score` plus `SCALE` points per unit of log-odds, at most `MAX_NUDGE` either way and
    never up to `FIRM`, for the lines below `FIRM`; a line salience left out joins only when it
    is likelier kept than not (the rest stay for the blind cut from both ends). A line ranked for
    what it shares with a strong one (`related`: an id it names again, the record a kept line
    belongs to) is never pushed down: the model reads each line alone."""
    moved: dict[int, int] = {}
    for i, z in enumerate(odds):
        value = score.get(i)
        if value is None and z <= 0:
            continue
        value = value or 0
        if value >= FIRM:
            moved[i] = value
            continue
        step = max(-MAX_NUDGE, min(MAX_NUDGE, int(SCALE * z)))
        moved[i] = min(FIRM - 1, value + (max(step, 0) if i in related else step))
    return moved
