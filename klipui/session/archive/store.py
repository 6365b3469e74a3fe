"""The archive's files and manifest: incremental zstd copies that never touch the source.

Each source file is kept as one archive file of zstd frames whose decompressed content is the
source's bytes (a source that is zstd already is kept as it is). The manifest remembers, per
key, how many source bytes are in the archive, their SHA-256, the source's mtime and the
archive file's length. A run then does the least work:

- unchanged (same size and mtime): nothing read;
- grown, and the archived bytes are still its start (same SHA-256): the new bytes alone are
  compressed into one more frame, appended to the archive file;
- rewritten (shorter, or its start changed) or new: the whole file is compressed to a temp file
  beside the archive file, which is then atomically replaced.

An append that died half way leaves the archive file longer than the manifest says: the next run
cuts it back to the manifest's length before appending again. Sources are opened read-only,
without following a symbolic link and without blocking; nothing is ever written to them.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, BinaryIO

import orjson
import zstandard

from klipui.session.archive.layout import MANIFEST, place_of
from klipui.session.atomic import replace_atomic

MANIFEST_VERSION = 1
LEVEL = 3
"""zstd level: fast (hundreds of MB/s) and about 8× smaller on session JSON."""
_CHUNK = 1 << 20
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"

NEW = "new"
GROWN = "grown"
REWRITTEN = "rewritten"
UNCHANGED = "unchanged"
FAILED = "failed"


@dataclass(slots=True)
class Entry:
    """What the archive holds of one source file."""

    source: str
    agent: str
    kind: str
    size: int
    """Source bytes archived."""
    mtime: int
    """The source's mtime (ns) when last archived."""
    sha256: str
    """SHA-256 of the archived source bytes."""
    stored: int
    """Length of the archive file."""
    raw: bool
    """True when the source was zstd already and is kept as it is."""
    archived: float
    """Epoch seconds of the last copy."""


class Manifest:
    """The archive's `MANIFEST` file: entries by key, saved atomically."""

    def __init__(self, archive: Path) -> None:
        self.archive = archive
        self.path = archive / MANIFEST
        self.entries: dict[str, Entry] = {}
        self.problem: str | None = None
        try:
            data = orjson.loads(self.path.read_bytes())
        except FileNotFoundError:
            return
        except (OSError, orjson.JSONDecodeError) as error:
            self.problem = f"{self.path}: unreadable manifest ({error}); files are copied anew"
            return
        if not isinstance(data, dict) or data.get("version") != MANIFEST_VERSION:
            self.problem = f"{self.path}: unknown manifest version; files are copied anew"
            return
        for key, value in (data.get("entries") or {}).items():
            with contextlib.suppress(TypeError):
                if isinstance(key, str) and isinstance(value, dict):
                    self.entries[key] = Entry(**value)

    def save(self) -> None:
        """Write the manifest: a temp file beside it, then an atomic replace."""
        entries = {key: asdict(entry) for key, entry in sorted(self.entries.items())}
        data = orjson.dumps({"version": MANIFEST_VERSION, "entries": entries})
        replace_atomic(self.path, [data], durable=True)


def open_source(path: Path) -> BinaryIO:
    """`path` opened read-only: no symlink followed, never blocking, never updating its access
    time where the system allows; OSError when it is not a regular file."""
    flags = (
        os.O_RDONLY
        | getattr(os, "O_NOFOLLOW", 0)
        | getattr(os, "O_NONBLOCK", 0)
        | getattr(os, "O_NOCTTY", 0)
        | getattr(os, "O_CLOEXEC", 0)
    )
    try:
        fd = os.open(path, flags | getattr(os, "O_NOATIME", 0))
    except PermissionError:
        fd = os.open(path, flags)  # O_NOATIME is refused on files of other owners
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(0, "not a regular file", str(path))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _read_span(handle: BinaryIO, count: int) -> Iterator[bytes]:
    """Up to `count` bytes of `handle`, in chunks."""
    left = count
    while left > 0:
        chunk = handle.read(min(_CHUNK, left))
        if not chunk:
            return
        left -= len(chunk)
        yield chunk


@dataclass(slots=True)
class Outcome:
    """What happened to one source: its state, bytes taken and written, or the problem."""

    state: str
    new_bytes: int = 0
    """Source bytes copied this time."""
    written: int = 0
    """Archive bytes written this time."""
    problem: str | None = None


def plan_state(entry: Entry | None, size: int, mtime: int, archive_file: Path) -> str:
    """The state a source is in from its stat alone: UNCHANGED, NEW, or GROWN (meaning "may
    have grown": the archived start is checked when it is copied) or REWRITTEN (shorter)."""
    if entry is None:
        return NEW
    try:
        stored = archive_file.stat().st_size
    except OSError:
        return NEW
    if stored < entry.stored:
        return NEW
    if size == entry.size and mtime == entry.mtime:
        return UNCHANGED
    return GROWN if size >= entry.size else REWRITTEN


def copy_source(
    archive: Path,
    key: str,
    path: Path,
    agent: str,
    kind: str,
    manifest: Manifest,
    *,
    dry_run: bool = False,
) -> Outcome:
    """Bring the archive copy of `path` up to date (with `dry_run`, only say what would be
    done: the source may be read, nothing is written)."""
    target = place_of(archive, key)
    try:
        with open_source(path) as handle:
            info = os.fstat(handle.fileno())
            size, mtime = info.st_size, info.st_mtime_ns
            entry = manifest.entries.get(key)
            state = plan_state(entry, size, mtime, target)
            if state == UNCHANGED:
                return Outcome(UNCHANGED)
            if state == GROWN and entry is not None:
                digest = hashlib.sha256()
                for chunk in _read_span(handle, entry.size):
                    digest.update(chunk)
                if digest.hexdigest() != entry.sha256:
                    state = REWRITTEN
                elif size == entry.size:
                    if not dry_run:
                        entry.mtime = mtime
                    return Outcome(UNCHANGED)
                else:
                    if dry_run:
                        return Outcome(GROWN, new_bytes=size - entry.size)
                    return _append(target, handle, entry, digest, size, mtime)
            if dry_run:
                return Outcome(state, new_bytes=size)
            handle.seek(0)
            return _replace(target, handle, manifest, key, path, agent, kind, size, mtime, state)
    except OSError as error:
        return Outcome(FAILED, problem=f"{path}: {error.strerror or error}")


def _replace(
    target: Path,
    handle: BinaryIO,
    manifest: Manifest,
    key: str,
    path: Path,
    agent: str,
    kind: str,
    size: int,
    mtime: int,
    state: str,
) -> Outcome:
    """Compress the first `size` bytes of `handle` into a new archive file for `key`."""
    digest = hashlib.sha256()
    head = handle.read(min(4, size))
    raw = head == ZSTD_MAGIC
    handle.seek(0)
    got = 0

    def pieces() -> Iterator[bytes]:
        nonlocal got
        chunks = _read_span(handle, size)
        if raw:
            for chunk in chunks:
                digest.update(chunk)
                got += len(chunk)
                yield chunk
            return
        compressor = zstandard.ZstdCompressor(level=LEVEL).compressobj()
        for chunk in chunks:
            digest.update(chunk)
            got += len(chunk)
            out = compressor.compress(chunk)
            if out:
                yield out
        yield compressor.flush()

    written = replace_atomic(target, pieces(), durable=True)
    manifest.entries[key] = Entry(
        source=str(path),
        agent=agent,
        kind=kind,
        size=got,
        mtime=mtime,
        sha256=digest.hexdigest(),
        stored=written,
        raw=raw,
        archived=time.time(),
    )
    return Outcome(state, new_bytes=got, written=written)


def _append(
    target: Path, handle: BinaryIO, entry: Entry, digest: Any, size: int, mtime: int
) -> Outcome:
    """Append the source bytes past `entry.size` to the archive file as one more frame (as they
    are, for a source kept raw); the archive file is first cut back to `entry.stored`."""
    compressor = None if entry.raw else zstandard.ZstdCompressor(level=LEVEL).compressobj()
    got = 0
    written = 0
    with open(target, "r+b") as out:
        out.truncate(entry.stored)
        out.seek(entry.stored)
        for chunk in _read_span(handle, size - entry.size):
            digest.update(chunk)
            got += len(chunk)
            piece = compressor.compress(chunk) if compressor else chunk
            out.write(piece)
            written += len(piece)
        if compressor is not None:
            tail = compressor.flush()
            out.write(tail)
            written += len(tail)
        out.flush()
        os.fsync(out.fileno())
    entry.size += got
    entry.mtime = mtime
    entry.sha256 = digest.hexdigest()
    entry.stored += written
    entry.archived = time.time()
    return Outcome(GROWN, new_bytes=got, written=written)
