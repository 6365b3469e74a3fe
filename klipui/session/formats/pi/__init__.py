"""pi: `~/.pi/agent/sessions/<project>/<time>_<id>.jsonl`, a `session` header then entries
linked by `parentId` (v1 files by line order)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from klipui.session.adapter import Adapter, ChildBody, ChildSource, Root
from klipui.session.formats.pi import child, lowering
from klipui.session.formats.pi.lowering import (
    agent,
    current_branch,
    info,
    lower,
    name,
    raise_records,
    sniff,
)
from klipui.session.model import Event, Problem, Record, Session, SessionInfo


class PiAdapter(Adapter):
    """pi sessions."""

    name = "pi"
    agent = "pi"
    titled = child.TITLED

    def sniff(self, values: Sequence[Any]) -> bool:
        return lowering.sniff(values)

    def lower(self, path: Path, records: list[Record], problems: list[Problem]) -> Session:
        return lowering.lower(path, records, problems)

    def info(self, path: Path, values: Sequence[Any]) -> SessionInfo:
        return lowering.info(path, values)

    def raise_records(self, session: Session, events: Sequence[Event]) -> Iterator[bytes]:
        return lowering.raise_records(session, events)

    def roots(self, home: Path, environ: Mapping[str, str]) -> list[Root]:
        return [Root(self.name, home / ".pi" / "agent" / "sessions", "*/*.jsonl")]

    def new_id(self, now: datetime) -> str:
        return child.new_id(now)

    def child_path(self, session: Session, child_id: str, now: datetime) -> Path:
        return child.child_path(session, child_id, now)

    def build_child(self, source: ChildSource) -> ChildBody:
        return child.build(source)

    def replace_result(self, value: Any, call_id: str, text: str) -> Any | None:
        return child.replace_result(value, call_id, text)


ADAPTER = PiAdapter()

__all__ = [
    "ADAPTER",
    "PiAdapter",
    "agent",
    "current_branch",
    "info",
    "lower",
    "name",
    "raise_records",
    "sniff",
]
