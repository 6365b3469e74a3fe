"""Codex CLI: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl` (and
`archived_sessions/`), `session_meta` first, then response items and events."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from klipui.session.adapter import Adapter, ChildBody, ChildSource, Root
from klipui.session.formats.codex import child, lowering
from klipui.session.formats.codex.lowering import (
    KINDS,
    agent,
    info,
    lower,
    name,
    raise_records,
    sniff,
)
from klipui.session.model import Event, Problem, Record, Session, SessionInfo


class CodexAdapter(Adapter):
    """Codex CLI rollouts."""

    name = "codex"
    agent = "Codex"
    titled = child.TITLED
    end_mark = "Codex wrote no task_complete for it"

    def sniff(self, values: Sequence[Any]) -> bool:
        return lowering.sniff(values)

    def lower(self, path: Path, records: list[Record], problems: list[Problem]) -> Session:
        return lowering.lower(path, records, problems)

    def info(self, path: Path, values: Sequence[Any]) -> SessionInfo:
        return lowering.info(path, values)

    def raise_records(self, session: Session, events: Sequence[Event]) -> Iterator[bytes]:
        return lowering.raise_records(session, events)

    def roots(self, home: Path, environ: Mapping[str, str]) -> list[Root]:
        codex = Path(environ.get("CODEX_HOME") or home / ".codex")
        return [
            Root(self.name, codex / "sessions", "**/rollout-*.jsonl"),
            Root(self.name, codex / "archived_sessions", "rollout-*.jsonl"),
        ]

    def new_id(self, now: datetime) -> str:
        return child.new_id(now)

    def child_path(self, session: Session, child_id: str, now: datetime) -> Path:
        return child.child_path(session, child_id, now)

    def build_child(self, source: ChildSource) -> ChildBody:
        return child.build(source)

    def placement(self, session: Session, path: Path) -> str | None:
        return child.placement(session, path)

    def replace_result(self, value: Any, call_id: str, text: str) -> Any | None:
        return child.replace_result(value, call_id, text)


ADAPTER = CodexAdapter()

__all__ = [
    "ADAPTER",
    "KINDS",
    "CodexAdapter",
    "agent",
    "info",
    "lower",
    "name",
    "raise_records",
    "sniff",
]
