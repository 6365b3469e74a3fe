"""The `parentUuid` chain of a Claude Code file, shared by raising records and writing
children: who each line's parent is, and the nearest kept ancestor of a dropped one."""

from __future__ import annotations

from collections.abc import Container, Iterable
from typing import Any


def chain_parent(value: dict[str, Any]) -> Any:
    """A line's parent: `parentUuid`, or `logicalParentUuid` for a root that has one."""
    parent = value.get("parentUuid")
    return parent if parent is not None else value.get("logicalParentUuid")


def parents(values: Iterable[Any]) -> dict[str, Any]:
    """uuid → chain parent, over every line (the first line of a uuid wins)."""
    out: dict[str, Any] = {}
    for value in values:
        if not isinstance(value, dict):
            continue
        own = value.get("uuid")
        if isinstance(own, str) and own not in out:
            out[own] = chain_parent(value)
    return out


def nearest_kept(start: Any, kept: Container[str], links: dict[str, Any]) -> str | None:
    """`start` or its nearest ancestor in `kept` (None when the chain ends or loops first)."""
    node = start
    seen: set[str] = set()
    while isinstance(node, str) and node not in seen:
        if node in kept:
            return node
        seen.add(node)
        node = links.get(node)
    return None
