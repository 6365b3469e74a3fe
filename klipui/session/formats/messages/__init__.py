"""Generic message JSONL: one chat message (OpenAI or Anthropic shaped) or message list a line,
as other tools export them; no folder of its own, no ids to rewrite."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from klipui.session.adapter import Adapter, ChildBody, ChildSource
from klipui.session.formats.messages import child, lowering
from klipui.session.formats.messages.lowering import (
    PART,
    SNIFF_DEPTH,
    WHOLE,
    agent,
    content_blocks,
    info,
    lower,
    name,
    raise_records,
    sniff,
)
from klipui.session.model import Event, Problem, Record, Session, SessionInfo


class MessagesAdapter(Adapter):
    """Generic message files (sniffed last)."""

    name = "messages"
    typed_records = False
    agent = "messages"
    titled = child.TITLED

    def sniff(self, values: Sequence[Any]) -> bool:
        return lowering.sniff(values)

    def lower(self, path: Path, records: list[Record], problems: list[Problem]) -> Session:
        return lowering.lower(path, records, problems)

    def info(self, path: Path, values: Sequence[Any]) -> SessionInfo:
        return lowering.info(path, values)

    def raise_records(self, session: Session, events: Sequence[Event]) -> Iterator[bytes]:
        return lowering.raise_records(session, events)

    def new_id(self, now: datetime) -> str:
        return child.new_id(now)

    def child_path(self, session: Session, child_id: str, now: datetime) -> Path:
        return child.child_path(session, child_id, now)

    def build_child(self, source: ChildSource) -> ChildBody:
        return child.build(source)

    def replace_result(self, value: Any, call_id: str, text: str) -> Any | None:
        return child.replace_result(value, call_id, text)


ADAPTER = MessagesAdapter()

__all__ = [
    "ADAPTER",
    "PART",
    "SNIFF_DEPTH",
    "WHOLE",
    "MessagesAdapter",
    "agent",
    "content_blocks",
    "info",
    "lower",
    "name",
    "raise_records",
    "sniff",
]
