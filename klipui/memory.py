"""Giving freed memory back to the operating system after a big session is closed.

CPython frees a closed session's objects at once, but glibc keeps the freed pages in the heap
arena of the thread that allocated them (sessions are read in worker threads, each with its own
arena), so the process's RSS grows by a session's worth on each open however much is freed.
`malloc_trim(0)` hands those pages back, and `fewer_arenas()` caps glibc at `ARENAS` arenas so
that the freed pages of one open are reused by the next instead of piling up in a new arena.
Measured with bench/app.py (`--only churn`, a 30 MB session opened and closed ten times): RSS
after the tenth close +53 % over the first before (two closed screens kept their sessions),
+24 % with the sessions let go, +27 % with the trim alone, +14 % with both the trim and the cap
(-8 % with one arena). Elsewhere (macOS, musl, Windows) both are no-ops.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from collections.abc import Callable
from functools import cache

ARENAS = 2
"""glibc malloc arenas at most (its default is 8 a core): the app's threads are few and short."""
_M_ARENA_MAX = -8
"""`mallopt` parameter number of M_ARENA_MAX (glibc's malloc.h)."""


@cache
def _glibc() -> ctypes.CDLL | None:
    """The C library when it is glibc (it has `malloc_trim`), else None."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim  # noqa: B018  (AttributeError when this is not glibc)
    except (OSError, AttributeError):
        return None
    return libc


def _trim() -> Callable[[int], int] | None:
    libc = _glibc()
    if libc is None:
        return None
    trim: Callable[[int], int] = libc.malloc_trim
    return trim


def fewer_arenas() -> bool:
    """Cap glibc's malloc arenas at `ARENAS` (new threads share them); True when set."""
    libc = _glibc()
    return bool(libc is not None and libc.mallopt(_M_ARENA_MAX, ARENAS) == 1)


def return_freed_memory() -> bool:
    """Ask the C allocator to give its free pages back to the OS; True when it could ask."""
    trim = _trim()
    if trim is None:
        return False
    trim(0)
    return True
