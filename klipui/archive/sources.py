"""What an archive run copies: every session file of every agent, and its companions.

Sessions come from klipui's discovery (`find_session_files`, the same list the app shows).
Companions are the files in the folder named after a session beside it, inside the agent's
folder: Claude Code keeps a session's sub-agent transcripts (`<id>/subagents/agent-*.jsonl`,
`agent-*.meta.json`) and the full originals of big tool outputs its preview refers to
(`<id>/tool-results/<tool_use_id>.txt`) there. Folders are walked without following symbolic
links, and a file is taken only when it is a regular file whose real path stays inside the
agent's folder: nothing outside the agents' folders is ever opened.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from klipui.archive.layout import ArchiveRoot, archive_roots, key_of
from klipui.session.discover import find_session_files

SESSION = "session"
COMPANION = "companion"


@dataclass(frozen=True, slots=True)
class Source:
    """One file to keep: where it is, and its key in the archive."""

    path: Path
    key: str
    agent: str
    kind: str
    """`SESSION` (a file discovery lists) or `COMPANION` (a file kept beside one: sub-agent
    transcripts are companions, listed under their session rather than on their own)."""


def find_sources(agents: Sequence[str] | None = None) -> Iterator[Source]:
    """Every session file of the agents (all known agents when None) and its companions,
    each once, in discovery order (a session's companions right after it)."""
    roots = archive_roots(agents)
    seen: set[str] = set()
    sessions = find_session_files(None, archive=False) if roots else []
    for path in sessions:
        root = _root_of(roots, path)
        if root is None or not _inside(root.path, path):
            continue
        key = key_of(root, path)
        if key is None or key in seen:
            continue
        seen.add(key)
        yield Source(path, key, root.agent, SESSION)
        for companion in _companions(root, path):
            ckey = key_of(root, companion)
            if ckey is not None and ckey not in seen:
                seen.add(ckey)
                yield Source(companion, ckey, root.agent, COMPANION)


def _root_of(roots: Sequence[ArchiveRoot], path: Path) -> ArchiveRoot | None:
    for root in roots:
        if path.is_relative_to(root.path):
            return root
    return None


def _inside(folder: Path, path: Path) -> bool:
    """True when `path` (symlinks resolved) is a regular file inside `folder` (resolved)."""
    try:
        real = Path(os.path.realpath(path))
        info = os.stat(real)
    except (OSError, ValueError):
        return False
    return stat.S_ISREG(info.st_mode) and real.is_relative_to(os.path.realpath(folder))


def _companions(root: ArchiveRoot, session: Path) -> Iterator[Path]:
    """Regular files under the folder named after `session` beside it (`<id>.jsonl` → `<id>/`),
    symlinks neither followed nor taken."""
    name = session.name
    stem = name.split(".", 1)[0] if not name.startswith(".") else ""
    if not stem:
        return
    folder = session.parent / stem
    try:
        if not stat.S_ISDIR(os.lstat(folder).st_mode):
            return
    except OSError:
        return
    for directory, subdirs, files in os.walk(folder, followlinks=False):
        subdirs.sort()
        for entry in sorted(files):
            path = Path(directory, entry)
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                continue
            if stat.S_ISREG(mode) and _inside(root.path, path) and not _temporary(entry):
                yield path


def _temporary(name: str) -> bool:
    """A temp file an agent (or klipui) is writing: `.<name>.tmp…` and the like."""
    return name.startswith(".") and ".tmp" in name
