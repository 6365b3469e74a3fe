"""Spill stores: the full original of a shrunk output, kept so that nothing is lost.

A locator is `spill:<tool>-<first 12 hex digits of the SHA-256 of the original>`; the same
text always gets the same locator. `FileSpillStore` writes one file a locator (mode 0600, in a
0700 folder of this user's that is not a symbolic link), returns it byte for byte, and prunes
files older than `max_age` on every save.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import stat
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

LOCATOR = re.compile(r"spill:([A-Za-z0-9_-]+)")
DEFAULT_MAX_AGE = 24 * 3600.0
"""Seconds a spilled original is kept (24 hours)."""


class SpillError(Exception):
    """A locator that is malformed or names nothing stored."""


class SpillMissing(SpillError):
    """A well-formed locator that names nothing stored (pruned, or saved elsewhere)."""


class SpillStore(Protocol):
    """Where originals go: `save` returns a locator that `load` turns back into the text."""

    def save(self, text: str, tool: str | None) -> str: ...

    def load(self, locator: str) -> str: ...


@dataclass(frozen=True, slots=True)
class SpillEntry:
    """One stored original: its locator, file, size in bytes and modification time."""

    locator: str
    path: Path
    size: int
    mtime: float


def encode(text: str) -> bytes:
    """The bytes of `text` (undecodable input bytes, read with surrogateescape, come back)."""
    return text.encode("utf-8", "surrogateescape")


def locator_for(text: str, tool: str | None) -> str:
    """`spill:<tool>-<12 hex>` for this text and tool."""
    safe_tool = re.sub(r"[^A-Za-z0-9_-]", "_", tool or "")[:40] or "tool"
    digest = hashlib.sha256(encode(text)).hexdigest()[:12]
    return f"spill:{safe_tool}-{digest}"


def parse_locator(locator: str) -> str:
    """The file stem a locator names; SpillError for anything but `spill:[A-Za-z0-9_-]+`."""
    match = LOCATOR.fullmatch(locator.strip())
    if not match:
        raise SpillError(f"bad spill locator: {locator!r}")
    return match.group(1)


class DryRunSpillStore:
    """A store that writes nothing: `save` gives the locator a real save would (for dry runs)."""

    def save(self, text: str, tool: str | None) -> str:
        return locator_for(text, tool)

    def load(self, locator: str) -> str:
        raise SpillMissing(f"nothing is stored in a dry run: {locator}")


def default_spill_dir() -> Path:
    """`<user data dir>/spill` (e.g. ~/.local/share/klipui/spill)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("klipui", appauthor=False)) / "spill"


class FileSpillStore:
    """Originals as files `<dir>/<tool>-<hash>.txt`."""

    def __init__(self, dir: str | Path | None = None, max_age: float = DEFAULT_MAX_AGE) -> None:
        self.dir = Path(dir) if dir is not None else default_spill_dir()
        self.max_age = max_age

    def path_for(self, locator: str) -> Path:
        """The file a locator names (SpillError when the locator is malformed)."""
        return self.dir / f"{parse_locator(locator)}.txt"

    def _ensure_dir(self) -> None:
        """Make the folder (0700) when missing; an existing one must be a real folder of this
        user, and is made 0700. OSError for a symbolic link or someone else's folder."""
        if not os.path.lexists(self.dir):
            self.dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        if self.dir.is_symlink():
            raise OSError(f"{self.dir}: the spill folder is a symbolic link; not used")
        flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
        handle = os.open(self.dir, flags)
        try:
            info = os.fstat(handle)
            if not stat.S_ISDIR(info.st_mode):
                raise NotADirectoryError(f"{self.dir}: not a folder")
            if hasattr(os, "getuid") and info.st_uid != os.getuid():
                raise PermissionError(
                    f"{self.dir}: the spill folder belongs to another user; not used"
                )
            if stat.S_IMODE(info.st_mode) != 0o700:
                os.fchmod(handle, 0o700)
        finally:
            os.close(handle)

    def save(self, text: str, tool: str | None) -> str:
        """Store `text`; return its locator. Raises OSError when it cannot be written."""
        data = encode(text)
        locator = locator_for(text, tool)
        self._ensure_dir()
        target = self.path_for(locator)
        if target.exists():
            if target.read_bytes() != data:
                raise OSError(f"{target}: another text has the same locator")
            os.utime(target)
        else:
            handle, temp = tempfile.mkstemp(dir=self.dir, prefix=".spill-", suffix=".tmp")
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(data)
                os.chmod(temp, 0o600)
                os.replace(temp, target)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
                raise
        self.prune(keep=target)
        return locator

    def load_bytes(self, locator: str) -> bytes:
        """The original's bytes, exactly as saved (SpillMissing when none is stored)."""
        path = self.path_for(locator)
        try:
            return path.read_bytes()
        except FileNotFoundError:
            raise SpillMissing(f"no spill stored for: {locator}") from None

    def load(self, locator: str) -> str:
        """The original text, exactly as saved."""
        return self.load_bytes(locator).decode("utf-8", "surrogateescape")

    def entries(self) -> list[SpillEntry]:
        """Stored originals, newest first."""
        found: list[SpillEntry] = []
        if not self.dir.is_dir():
            return found
        for path in self.dir.glob("*.txt"):
            try:
                info = path.stat()
            except OSError:
                continue
            if LOCATOR.fullmatch(f"spill:{path.stem}"):
                found.append(SpillEntry(f"spill:{path.stem}", path, info.st_size, info.st_mtime))
        return sorted(found, key=lambda e: e.mtime, reverse=True)

    def prune(self, now: float | None = None, keep: Path | None = None) -> int:
        """Delete originals older than `max_age`; return how many went."""
        limit = (time.time() if now is None else now) - self.max_age
        removed = 0
        for entry in self.entries():
            if entry.mtime < limit and entry.path != keep:
                with contextlib.suppress(OSError):
                    entry.path.unlink()
                    removed += 1
        return removed
