"""Archived sessions in the session list, once each: the newer of the original and the copy.

The archive's session files join the agents' own in discovery. A copy whose original still
exists is left out unless it is newer than the original (the original's mtime is older than the
one the copy was taken at: the agent's file was put back from an older state); then the
original is left out instead. A copy whose original is gone is always listed.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from klipui.archive.layout import MANIFEST, default_archive_dir, place_of
from klipui.archive.sources import SESSION
from klipui.archive.store import Manifest


def merge_archived(originals: Sequence[Path], archive: Path | None = None) -> list[Path]:
    """`originals` with the archive's sessions merged in (newer wins, no path twice)."""
    archive = archive if archive is not None else default_archive_dir()
    if not (archive / MANIFEST).is_file():
        return list(originals)
    manifest = Manifest(archive)
    listed = {str(path): path for path in originals}
    dropped: set[str] = set()
    added: list[Path] = []
    for key, entry in manifest.entries.items():
        if entry.kind != SESSION:
            continue
        copy = place_of(archive, key)
        if not copy.is_file():
            continue
        if entry.source in listed and not _copy_newer(entry.source, entry.mtime):
            continue
        if entry.source in listed:
            dropped.add(entry.source)
        elif os.path.lexists(entry.source) and not _copy_newer(entry.source, entry.mtime):
            continue  # an original not listed here (another agent's filter): not the copy either
        added.append(copy)
    kept = [path for path in originals if str(path) not in dropped]
    return [*kept, *sorted(added)]


def _copy_newer(source: str, archived_mtime: int) -> bool:
    """True when the original's mtime is older than the one its copy was taken at."""
    try:
        return os.stat(source).st_mtime_ns < archived_mtime
    except OSError:
        return True


def is_archived(path: Path, archive: Path | None = None) -> bool:
    """True for a file inside the archive folder."""
    archive = archive if archive is not None else default_archive_dir()
    try:
        return Path(os.path.abspath(path)).is_relative_to(os.path.abspath(archive))
    except (OSError, ValueError):
        return False
