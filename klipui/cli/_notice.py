"""Messages on stderr shared by the subcommands: a failure line, and a notice for slow work."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

PROGRESS_AFTER = 0.5
"""Seconds of work before `progress` says what is going on."""


def fail(message: str) -> int:
    """Print `klipui: message` on stderr; the exit status of a failed command (1)."""
    print(f"klipui: {message}", file=sys.stderr)
    return 1


@contextmanager
def progress(
    message: str, *, after: float = PROGRESS_AFTER, terminal_only: bool = False
) -> Iterator[None]:
    """Print `klipui: message` on stderr when the block takes longer than `after` seconds
    (with `terminal_only`, only when stderr is a terminal)."""
    if terminal_only and not sys.stderr.isatty():
        yield
        return
    timer = threading.Timer(after, lambda: print(f"klipui: {message}", file=sys.stderr, flush=True))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
