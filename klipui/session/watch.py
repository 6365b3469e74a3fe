"""Watching a listing of sessions: which files changed since they were listed, which are new.

`ListingWatch.poll()` stats every listed file (cheap) and, when asked, walks the folders again
for new session files; it gives fresh `SessionInfo`s for the changed and the new ones. Exact
figures for files up to `EXACT_UP_TO` bytes, quick head estimates for bigger ones (a live
100 MB session is not read whole every few seconds).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from klipui.session.load import exact_info, read_info
from klipui.session.model import SessionInfo

EXACT_UP_TO = 16_000_000
"""Bytes up to which a changed file's figures are read exactly."""


@dataclass(slots=True)
class ListingChange:
    """Fresh infos for the listed files that changed, and for files new to the listing."""

    changed: list[SessionInfo] = field(default_factory=list)
    added: list[SessionInfo] = field(default_factory=list)


def _stat(path: Path) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_size, stat.st_mtime_ns


def fresh_info(path: Path) -> SessionInfo:
    """The figures of a file that changed: exact when it is small enough, else estimated."""
    try:
        size = os.stat(path).st_size
    except OSError:
        return read_info(path)
    return exact_info(path) if size <= EXACT_UP_TO else read_info(path)


class ListingWatch:
    """Remembers (size, mtime) of the listed files; `poll` says what moved."""

    def __init__(self, paths: Sequence[Path] | None, listed: Iterable[SessionInfo]) -> None:
        self.paths = list(paths) if paths else None
        self.known: dict[Path, tuple[int, int] | None] = {}
        for info in listed:
            stat = _stat(info.path)
            # a file that changed since its info was read counts as changed at the first poll
            moved = stat is not None and stat[0] != info.bytes
            self.known[info.path] = (-1, -1) if moved else stat

    def poll(self, find_new: bool = False) -> ListingChange:
        """Stat the listed files (and walk the folders for new ones when `find_new`)."""
        from klipui.session.discover import find_session_files

        change = ListingChange()
        for path, before in list(self.known.items()):
            now = _stat(path)
            if now is None or now == before:
                continue
            self.known[path] = now
            change.changed.append(fresh_info(path))
        if find_new:
            try:
                found = find_session_files(self.paths)
            except OSError:
                found = []
            for path in found:
                if path in self.known:
                    continue
                self.known[path] = _stat(path)
                change.added.append(fresh_info(path))
        return change
