"""Mutations of real sample sessions for the reader fuzz tests (hypothesis strategies).

Each mutation replaces one line in place (a line never gains a newline), so that the lines it
did not touch keep their numbers: byte flips, cuts, a value swapped for one of another type,
deep nesting, huge numbers and lone surrogate escapes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from conftest import AGENT_WRITTEN, sample_files
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from klipui.session.jsonl import read_jsonl

PREFIX_LINES = 30
"""Lines of each sample a mutated file starts from (the samples' own first lines)."""
PREFIX_BYTES = 48_000
"""Bytes at most of that prefix (whole lines), to keep one example fast."""
DEMO_MESSAGES = Path(__file__).resolve().parents[1] / "klipui" / "demo" / "sessions" / "messages"
MARK = "@@klipui-fuzz@@"
SWAPS: list[Any] = [[], {}, "", "x", 0, -1, None, True, 1.5, [1, "a"], {"type": 1}, {"a": []}]
RAW: list[bytes] = [
    b"1" * 5000,  # more digits than Python's int parser takes
    b"18446744073709551616",  # beyond 64 bits
    b"1e400",
    b"-1e400",
    b'"\\ud800"',  # a lone high surrogate, as JavaScript writes a cut emoji
    b'"a\\udfffb"',  # a lone low surrogate
    b'"\\ud83d\\ude00\\ud83d"',
    b"[" * 1100 + b"]" * 1100,  # deeper than orjson decodes
    b'{"a":' * 300 + b"1" + b"}" * 300,  # decodes, but too deep to encode again
    b"[" * 5000 + b"]" * 5000,
    b'{"type":' * 40 + b'"x"' + b"}" * 40,
]


class Sample:
    """The first lines of a real sample, and the numbers of the lines that are records."""

    def __init__(self, name: str, lines: tuple[bytes, ...], good: frozenset[int]) -> None:
        self.name, self.lines, self.good = name, lines, good

    def __repr__(self) -> str:
        return f"Sample({self.name})"


class Mutated:
    """A sample with some lines replaced: the new content and the (1-based) lines touched."""

    def __init__(self, sample: Sample, content: bytes, touched: frozenset[int]) -> None:
        self.sample, self.content, self.touched = sample, content, touched

    def __repr__(self) -> str:
        lines = self.content.split(b"\n")
        shown = {n: lines[n - 1][:300] for n in sorted(self.touched)}
        return f"Mutated({self.sample.name}, {shown})"


def _prefix(path: Path) -> tuple[bytes, ...]:
    lines: list[bytes] = []
    size = 0
    for line in path.read_bytes().split(b"\n")[:PREFIX_LINES]:
        if lines and size + len(line) > PREFIX_BYTES:
            break
        lines.append(line)
        size += len(line) + 1
    return tuple(lines)


def load_samples(folder: Path) -> list[Sample]:
    """Every sample's, agent-written session's and demo messages session's prefix (all six
    formats), written once to `folder` to find its records."""
    out: list[Sample] = []
    extra = [*sorted(AGENT_WRITTEN.glob("*.jsonl")), *sorted(DEMO_MESSAGES.glob("*.jsonl"))]
    for path in [*sample_files(), *extra]:
        if not path.name.endswith(".jsonl"):
            continue
        lines = _prefix(path)
        copy = folder / f"{path.parent.name}-{path.name}"
        copy.write_bytes(b"\n".join(lines) + b"\n")
        good = frozenset(record.line for record in read_jsonl(copy).records)
        out.append(Sample(f"{path.parent.name}/{path.name}", lines, good))
    return out


def _replace_at(value: Any, path: list[int], replacement: Any) -> Any:
    """`value` with the node that `path` leads to replaced (indexes taken modulo the sizes)."""
    if not path or not isinstance(value, dict | list) or not value:
        return replacement
    if isinstance(value, dict):
        key = list(value)[path[0] % len(value)]
        return {**value, key: _replace_at(value[key], path[1:], replacement)}
    index = path[0] % len(value)
    return [*value[:index], _replace_at(value[index], path[1:], replacement), *value[index + 1 :]]


def _swapped(line: bytes, path: list[int], replacement: Any, raw: bytes | None) -> bytes:
    """`line` with one node replaced by `replacement` (or by the raw JSON text `raw`)."""
    try:
        value = json.loads(line)
        changed = _replace_at(value, path, MARK if raw is not None else replacement)
        text = json.dumps(changed, ensure_ascii=False).encode()
    except (ValueError, RecursionError):  # not JSON (an earlier mutation): cut it instead
        return line[: len(line) // 2]
    if raw is not None:
        text = text.replace(json.dumps(MARK).encode(), raw, 1)
    return text


@st.composite
def mutation(draw: st.DrawFn, line: bytes) -> bytes:
    """One in-place mutation of `line` (never containing a newline)."""
    kind = draw(st.sampled_from(["flip", "cut", "swap", "raw", "type"]))
    if kind == "flip" and line:
        at = draw(st.integers(0, len(line) - 1))
        byte = line[at] ^ draw(st.integers(1, 255))
        byte = 0x20 if byte in (0x0A, 0x0D) else byte
        return line[:at] + bytes([byte]) + line[at + 1 :]
    if kind == "cut":
        return line[: draw(st.integers(0, max(len(line) - 1, 0)))]
    path = draw(st.lists(st.integers(0, 50), max_size=5))
    if kind == "type":
        path = []
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            value = None
        if isinstance(value, dict) and "type" in value:
            path = [list(value).index("type")]
    if kind in ("swap", "type"):
        return _swapped(line, path, draw(st.sampled_from(SWAPS)), None)
    return _swapped(line, path, None, draw(st.sampled_from(RAW)))


@st.composite
def mutated(draw: st.DrawFn, samples: list[Sample]) -> Mutated:
    """A sample with one to three of its lines mutated."""
    sample = draw(st.sampled_from(samples))
    lines = list(sample.lines)
    touched: set[int] = set()
    for _ in range(draw(st.integers(1, 3))):
        index = draw(st.integers(0, len(lines) - 1))
        lines[index] = draw(mutation(lines[index]))
        touched.add(index + 1)
    return Mutated(sample, b"\n".join(lines) + b"\n", frozenset(touched))


def fuzz_settings(examples: int) -> settings:
    """Hypothesis settings of a fuzz test: `examples` mutated files, no deadline, the same
    mutations every run (a red CI names a real regression) unless FUZZ_RANDOM=1 explores."""
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.function_scoped_fixture,
            HealthCheck.data_too_large,
        ],
        derandomize=not os.environ.get("FUZZ_RANDOM"),
    )
