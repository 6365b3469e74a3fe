"""The contract between reducers and the pipeline.

A reducer never renders output itself. It returns a `Plan`: the pieces of the input worth showing,
in input order. The pipeline renders the plan, writes an exact omission marker for every gap
between pieces, drops the least important pieces first while the result is over budget, and
records which input lines each output line came from (`Shrunk.kept`).

Line indices are those of `klipui.shrink.text.split_lines(text)` (CRLF-aware; a trailing newline
adds no line). Optional module attributes a reducer may set (see `klipui.shrink.pipeline`):
`overflow` ("head" default, "tail", "both", "hint": which end survives when the plan is still over
budget), `gap_label` (a word appended to its markers), `describe` (a few words for the note) and
`blend` (True: a plan that fits still joins salience's ranking, its priorities kept, so strong
signals and summaries outside it can take the place of its weakest pieces; for a reducer whose
shape is often one part of a longer output).
Detection should look at a bounded sample (`klipui.shrink.text.sample_lines`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, Protocol


@dataclass(frozen=True, slots=True)
class Hint:
    """What is known about where a text came from; every field optional."""

    tool: str | None = None
    """The tool that produced it: "bash", "read", "grep", ..."""
    command: str | None = None
    """The shell command, for bash-like tools."""
    path: str | None = None
    """The file read, for read-like tools."""
    query: str | None = None
    """The agent's current goal, for the semantic reducer."""
    exit_code: int | None = None


@dataclass(frozen=True, slots=True)
class Budget:
    """Limits the shrunk text must fit, spill footer included. 0 means no limit."""

    max_chars: int = 50_000
    max_lines: int = 2_000
    max_line_chars: int = 0
    """Cap on a single line (0: lines are never cut)."""


class Keep(NamedTuple):
    """Input lines `[start, end)` (0-based) kept verbatim (a named tuple: a plan holds one a
    run of lines, often hundreds of thousands, so each is as light as Python makes it)."""

    start: int
    end: int
    priority: int = 0
    """Higher survives longer when the pipeline must drop pieces to fit the budget."""


class Summary(NamedTuple):
    """Lines written by the reducer that stand for input lines `[start, end)`, which are dropped.

    For example `[x340] GET /health 200` for 340 identical lines, or `src/: 412 files` for a
    directory listing. The pipeline counts the covered lines as omitted.
    """

    lines: tuple[str, ...]
    start: int
    end: int
    priority: int = 0


Piece = Keep | Summary
Plan = list[Piece]
"""Pieces in input order, not overlapping; input lines in no piece are omitted."""


class Reducer(Protocol):
    """What a reducer module provides (the built-in ones are checked against it by mypy, a
    folder's reducers by `pipeline.load_reducers` when they load)."""

    name: str

    def detect(self, text: str, hint: Hint) -> bool: ...

    def reduce(self, text: str, hint: Hint, budget: Budget) -> Plan | None: ...
