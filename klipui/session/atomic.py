"""Replacing a file klipui owns (settings, caches, archive copies, an export asked to be
overwritten) as a whole: written to a temp file beside it, then renamed over it, so a reader
sees the old file or the new one and never half of either.

New files that must never replace anything (children, exports) use `jsonl.write_new`.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path


def replace_atomic(path: Path, pieces: Iterable[bytes], *, durable: bool = False) -> int:
    """Write the bytes of `pieces` as the new content of `path` (its folder made when missing);
    the number of bytes written. The temp file is private (0600) unless `path` exists, whose
    permission bits the new file keeps; `durable`: flushed to disk before the rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    written = 0
    try:
        with os.fdopen(handle, "wb") as out:
            for piece in pieces:
                out.write(piece)
                written += len(piece)
            with contextlib.suppress(FileNotFoundError):
                os.fchmod(out.fileno(), stat.S_IMODE(os.stat(path).st_mode))
            if durable:
                out.flush()
                os.fsync(out.fileno())
        os.replace(temp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
    return written
