"""Small text helpers shared by the `ls` and `show` commands."""

from __future__ import annotations

import dataclasses
import re
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from klipui import labels

PROGRESS_AFTER = 0.5
"""Seconds of work before a progress bar appears on stderr."""


def human_size(size: int | None) -> str:
    """`1.2 MB`-style sizes (decimal units); "" for None."""
    return labels.human_size(size, unknown="")


def human_count(count: int | None) -> str:
    """`12.3k`-style counts; "" for None."""
    return labels.human_count(count, unknown="")


def human_time(epoch: float | None) -> str:
    """Local `YYYY-MM-DD HH:MM`."""
    if epoch is None:
        return ""
    return datetime.fromtimestamp(epoch).strftime("%Y-%m-%d %H:%M")


def jsonable(value: Any) -> Any:
    """Dataclasses and paths made JSON-friendly."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    return value


_C1_OR_DEL = re.compile(rb"\xc2[\x80-\x9f]|\x7f")


def terminal_safe_json(data: bytes) -> bytes:
    """UTF-8 JSON with DEL and the C1 controls written as `\\u` escapes (JSON escapes only C0):
    the same value, which a terminal cannot read as a control sequence."""
    return _C1_OR_DEL.sub(lambda m: b"\\u%04x" % ord(m.group().decode("utf-8")), data)


def write_json(value: Any) -> None:
    """`value` as indented JSON on stdout (terminal-safe, see `terminal_safe_json`)."""
    import orjson

    data = orjson.dumps(jsonable(value), option=orjson.OPT_INDENT_2)
    sys.stdout.flush()
    sys.stdout.buffer.write(terminal_safe_json(data) + b"\n")
    sys.stdout.flush()


def print_json(value: Any) -> None:
    """`value` (plain JSON types) as indented JSON on stdout, terminal-safe."""
    import json

    data = json.dumps(value, indent=2, ensure_ascii=False).encode("utf-8", "replace")
    sys.stdout.flush()
    sys.stdout.buffer.write(terminal_safe_json(data) + b"\n")
    sys.stdout.flush()


class LazyProgress:
    """A transient rich progress bar on stderr that appears only once work passes 0.5 s."""

    def __init__(self, description: str) -> None:
        self.description = description
        self.started = time.monotonic()
        self._progress: Any = None
        self._task: Any = None

    def update(self, done: int, total: int) -> None:
        if self._progress is None:
            if time.monotonic() - self.started < PROGRESS_AFTER:
                return
            from rich.console import Console
            from rich.progress import Progress

            self._progress = Progress(console=Console(stderr=True), transient=True)
            self._progress.start()
            self._task = self._progress.add_task(self.description, total=total)
        self._progress.update(self._task, completed=done, total=total)

    def stop(self) -> None:
        if self._progress is not None:
            self._progress.stop()

    def __enter__(self) -> Callable[[int, int], None]:
        return self.update

    def __exit__(self, *exc: object) -> None:
        self.stop()
