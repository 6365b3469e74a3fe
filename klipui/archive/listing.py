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

from klipui.archive.layout import MANIFEST, default_archive_dir, source_of
from klipui.archive.sources import SESSION
from klipui.archive.store import Manifest


def merge_archived(
    originals: Sequence[Path], copies: Sequence[Path], archive: Path | None = None
) -> list[Path]:
    """`originals` with the archive's session files `copies` merged in: a copy of a listed
    original only when it is the newer (the original then left out); a copy whose original is
    gone, and a session written in the archive itself (a clip of an archived session), always.
    An original its agent moved (Codex moves archived threads to `archived_sessions/`) is still
    its copy's original, found by its name."""
    archive = archive if archive is not None else default_archive_dir()
    manifest = Manifest(archive) if (archive / MANIFEST).is_file() else None
    listed = {str(path) for path in originals}
    moved = {_identity(path): str(path) for path in originals}
    dropped: set[str] = set()
    added: list[Path] = []
    for copy in copies:
        try:
            key = copy.relative_to(archive).as_posix()
        except ValueError:
            continue
        entry = manifest.entries.get(key) if manifest is not None else None
        if entry is not None and entry.kind != SESSION:
            continue
        if entry is None:
            source = source_of(key)
            if source is not None and os.path.lexists(source):
                continue  # a copy the manifest does not know: the original wins
            added.append(copy)
            continue
        source = entry.source
        if not os.path.lexists(source):
            source = moved.get(_identity(Path(source)), source)  # moved by its agent
        if os.path.lexists(source):
            if not _copy_newer(source, entry.mtime):
                continue
            if source not in listed:
                continue  # its original is not in this listing (another filter): nor is it
            dropped.add(source)
        added.append(copy)
    kept = [path for path in originals if str(path) not in dropped]
    return [*kept, *added]


def _identity(path: Path) -> tuple[str, ...]:
    """What names a session whatever folder its agent moves it to: its file name (which holds
    the session id for Claude Code, Codex and pi), with its folder for dsh (`<id>/session…`)."""
    if path.name.startswith("session.jsonl"):
        return (path.parent.name, path.name)
    return (path.name,)


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
