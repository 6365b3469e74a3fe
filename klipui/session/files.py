"""Opening a file for reading only when it is a regular file, without ever blocking.

A FIFO opened for reading blocks until a writer comes, and a device such as `/dev/zero` never
ends: neither is a session. `open_regular` opens with `O_NONBLOCK` (so opening a FIFO returns at
once), checks the opened descriptor (so a symlink swapped in between cannot fool it), and
refuses anything that is not a regular file with `NotRegularFile`, an `OSError` whose
`strerror` says what the path is.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class NotRegularFile(OSError):
    """The path names something other than a regular file (a FIFO, a device, a folder...)."""


def kind_of(mode: int) -> str:
    """What a file of `mode` is, in words ("a regular file", "a FIFO (named pipe)", ...)."""
    if stat.S_ISREG(mode):
        return "a regular file"
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def not_regular(path: Path | str, mode: int) -> NotRegularFile:
    """The error for `path`, whose mode says it is not a regular file."""
    reason = f"not a regular file ({kind_of(mode)}): skipped"
    return NotRegularFile(0, reason, str(path))


def open_regular(path: Path | str) -> BinaryIO:
    """`path` opened for binary reading; `NotRegularFile` when it is not a regular file.

    Never blocks: the open is non-blocking and the type is checked on the open descriptor.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise not_regular(path, mode)
        if flags & getattr(os, "O_NONBLOCK", 0):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


class TooLarge(OSError):
    """An input longer than a reader's cap (a device such as `/dev/zero` never ends)."""


def read_capped(handle: BinaryIO, cap: int, name: str) -> bytes:
    """All of `handle`, or `TooLarge` (its `strerror` one line) once more than `cap` bytes came."""
    parts: list[bytes] = []
    size = 0
    while chunk := handle.read(min(1 << 20, cap + 1 - size)):
        parts.append(chunk)
        size += len(chunk)
        if size > cap:
            reason = f"more than {cap:,} bytes: too large to read (an endless device?)"
            raise TooLarge(0, reason, name)
    return b"".join(parts)
