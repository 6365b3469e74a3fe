"""Where the archive lives and how an agent's file maps to its place in it.

The archive mirrors each agent's session folder under `<archive>/<agent>/<folder name>/`
(`claude/projects/-home-me-app/<id>.jsonl`, `codex/sessions/2026/03/02/rollout-….jsonl`, …):
every file keeps its own name and relative place, so an adapter that looks for companions
beside a session (Claude Code's `<id>/subagents/`, `<id>/tool-results/`) finds them in the
archive as it does in the agent's folder. The content is zstd; klipui's reader knows zstd by
its magic bytes, not by the name.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from klipui.session.discover import Root, default_roots

ENV_ARCHIVE = "KLIPUI_ARCHIVE"
"""An environment variable naming the archive folder (overrides the default)."""
MANIFEST = ".klipui-archive.json"
"""The archive's record of what it holds, in its top folder."""


def default_archive_dir() -> Path:
    """`$KLIPUI_ARCHIVE`, else `<user data folder>/klipui/archive` (XDG_DATA_HOME on Linux)."""
    given = os.environ.get(ENV_ARCHIVE)
    if given:
        return Path(os.path.expanduser(given))
    from platformdirs import user_data_dir

    return Path(user_data_dir("klipui", appauthor=False)) / "archive"


@dataclass(frozen=True, slots=True)
class ArchiveRoot:
    """One agent folder and the place that mirrors it in the archive."""

    agent: str
    path: Path
    """The agent's folder (a discovery root)."""
    key: str
    """Its place in the archive, `<agent>/<folder name>` (posix)."""


def archive_roots(agents: Sequence[str] | None = None) -> list[ArchiveRoot]:
    """The discovery roots (those of `agents` when given) with their archive places."""
    roots: list[ArchiveRoot] = []
    for root in default_roots():
        if agents and root.agent not in agents:
            continue
        roots.append(ArchiveRoot(root.agent, root.path, root_key(root)))
    return roots


def known_agents() -> list[str]:
    """The agent names `--agents` accepts."""
    return list(dict.fromkeys(root.agent for root in default_roots()))


def root_key(root: Root) -> str:
    """The place of an agent folder in the archive: `<agent>/<folder name>`."""
    return f"{root.agent}/{root.path.name}"


def key_of(root: ArchiveRoot, path: Path) -> str | None:
    """The archive key of `path` under `root` (None when it is not under it or climbs out)."""
    try:
        relative = path.relative_to(root.path)
    except ValueError:
        return None
    parts = relative.parts
    if not parts or any(part in ("", ".", "..") for part in parts):
        return None
    return str(PurePosixPath(root.key, *parts))


def source_of(key: str, roots: Sequence[ArchiveRoot] | None = None) -> Path | None:
    """The agent's file that archive `key` mirrors, or None when no root owns the key."""
    for root in roots if roots is not None else archive_roots():
        prefix = root.key + "/"
        if key.startswith(prefix):
            return root.path.joinpath(*PurePosixPath(key[len(prefix) :]).parts)
    return None


def place_of(archive: Path, key: str) -> Path:
    """The archive file of `key`."""
    return archive.joinpath(*PurePosixPath(key).parts)
