"""The listed sessions as a reader sees them: filtered by words, sorted, children (clipped
sessions, sub-agent transcripts) placed under their parents, optionally grouped by project."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from klipui.session.model import SessionInfo

MAX_DEPTH = 8
"""The deepest indentation a row gets (deeper children are shown at this depth)."""
NO_PROJECT = "(no project)"


@dataclass(frozen=True, slots=True)
class Row:
    """One row of the listing: a session (or, when grouped, a project's title) and its depth
    under its parent (its project when grouped)."""

    info: SessionInfo | None
    depth: int
    group: str | None = None
    """The project a group row stands for (`info` is then None)."""
    members: int = 0
    """How many sessions a group row stands over."""

    @property
    def key(self) -> str:
        """A key that names the row across rebuilds (its path, or its group)."""
        return f"group:{self.group}" if self.info is None else str(self.info.path)


def matches(info: SessionInfo, needle: str) -> bool:
    """True when every word of `needle` occurs (case aside) in the title, project, first
    prompt, file name, folder, agent or format."""
    if not needle:
        return True
    fields = (info.title, info.project, info.first_prompt, info.path.name, info.cwd, info.agent)
    haystack = " ".join(x or "" for x in (*fields, info.format)).lower()
    return all(word in haystack for word in needle.lower().split())


def short_problem(info: SessionInfo) -> str:
    """The problem of an unreadable file, without its own path (the row names the file)."""
    problem = info.problem or "not a session file"
    prefix = f"{info.path}:"
    if problem.startswith(prefix):
        rest = problem[len(prefix) :]
        line, sep, reason = rest.partition(":")
        return f"line {line}:{reason}" if sep and line.isdigit() else rest.strip()
    return problem


def _parents(shown: list[SessionInfo]) -> tuple[list[SessionInfo], dict[str, list[SessionInfo]]]:
    """The roots among `shown`, and the children of each parent by the parent's path. A session
    whose parents run in a loop becomes a root, so that every session has a place."""
    by_key: dict[str, SessionInfo] = {}
    for info in shown:
        by_key[str(info.path)] = info
        if info.session_id and info.parent != info.session_id:  # not a sub-agent of that id
            by_key.setdefault(info.session_id, info)
    children: dict[str, list[SessionInfo]] = {}
    parent_of: dict[str, SessionInfo] = {}
    roots: list[SessionInfo] = []
    for info in shown:
        parent = by_key.get(info.parent or "") or by_key.get(
            str((info.path.parent / (info.parent or "")).resolve()) if info.parent else ""
        )
        if parent is not None and parent is not info:
            children.setdefault(str(parent.path), []).append(info)
            parent_of[str(info.path)] = parent
        else:
            roots.append(info)
    reached: set[str] = set()

    def reach(info: SessionInfo) -> None:
        pending = [info]
        while pending:
            key = str(pending.pop().path)
            if key not in reached:
                reached.add(key)
                pending.extend(children.get(key, ()))

    for info in roots:
        reach(info)
    for info in shown:
        if str(info.path) in reached:
            continue
        seen: set[str] = set()
        while str(info.path) not in seen:  # up the parents until they loop
            seen.add(str(info.path))
            info = parent_of[str(info.path)]
        roots.append(info)  # in the loop: no root above it
        reach(info)
    return roots, children


def session_rows(
    infos: Iterable[SessionInfo],
    needle: str,
    sort_key: Callable[[SessionInfo], Any],
    reverse: bool = False,
    group: bool = False,
) -> list[Row]:
    """The rows to show: every session that matches `needle` once, readable ones sorted by
    `sort_key` (comparable values) before unreadable ones (by name), each followed by its
    children (indented up to `MAX_DEPTH`); under a title row per project (sorted by name) when
    `group`."""
    roots, children = _parents([i for i in infos if matches(i, needle)])

    def arrange(items: Iterable[SessionInfo]) -> list[SessionInfo]:
        items = list(items)
        readable = sorted((i for i in items if i.format), key=sort_key, reverse=reverse)
        broken = sorted((i for i in items if not i.format), key=lambda i: i.path.name)
        return readable + broken

    placed: set[str] = set()

    def place(info: SessionInfo, depth: int, out: list[Row]) -> None:
        stack = [(info, depth)]
        while stack:
            item, level = stack.pop()
            key = str(item.path)
            if key in placed:
                continue
            placed.add(key)
            out.append(Row(item, min(level, MAX_DEPTH)))
            stack.extend((child, level + 1) for child in reversed(arrange(children.get(key, ()))))

    rows: list[Row] = []
    if not group:
        for info in arrange(roots):
            place(info, 0, rows)
        return rows
    projects: dict[str, list[SessionInfo]] = {}
    for info in roots:
        projects.setdefault(info.project or NO_PROJECT, []).append(info)
    for project in sorted(projects, key=str.lower):
        members = arrange(projects[project])
        rows.append(Row(None, 0, project, len(members)))
        for info in members:
            place(info, 1, rows)
    return rows
