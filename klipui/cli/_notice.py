"""Messages shared by the subcommands: a failure line, a notice for slow work, and `say`, which
prints text that quotes a session or a file name (cleaned of terminal control sequences)."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

PROGRESS_AFTER = 0.5
"""Seconds of work before `progress` says what is going on."""


def say(text: str, file: TextIO | None = None) -> None:
    """Print `text` (which may quote file names, tool names or session text) without its
    escape and control sequences, so that it cannot act on the terminal."""
    from klipui.session.display import clean_text

    print(clean_text(text), file=file or sys.stdout)


def fail(message: str) -> int:
    """Print `klipui: message` on stderr; the exit status of a failed command (1)."""
    say(f"klipui: {message}", sys.stderr)
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
    from klipui.session.display import clean_text

    line = clean_text(f"klipui: {message}")
    timer = threading.Timer(after, lambda: print(line, file=sys.stderr, flush=True))
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
