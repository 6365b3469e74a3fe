"""DeepSeek Harness: `$DSH_HOME/sessions/<project key>/<id>/session.jsonl[.zstd]`, whose records
already are session events (a `session` header, then `SessionEvent`s)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from klipui.session.adapter import Adapter, ChildBody, ChildSource, Root
from klipui.session.formats.dsh import child, lowering
from klipui.session.formats.dsh.lowering import (
    CHUNK_ROWS,
    NO_CWD,
    SESSION_FILE,
    ZSTD_SUFFIX,
    agent,
    encode_id,
    expand_row,
    info,
    latest_title,
    lower,
    name,
    project_key,
    project_name,
    raise_records,
    scan_info,
    session_path,
    sniff,
)
from klipui.session.index import Indexer, RecordIndex
from klipui.session.model import Event, Problem, Record, Session, SessionInfo


class DshAdapter(Adapter):
    """DeepSeek Harness session logs."""

    name = "dsh"
    agent = "DeepSeek Harness"
    titled = child.TITLED
    native_events = True
    end_mark = "the log has no turn/end for it"

    def sniff(self, values: Sequence[Any]) -> bool:
        return lowering.sniff(values)

    def lower(self, path: Path, records: list[Record], problems: list[Problem]) -> Session:
        return lowering.lower(path, records, problems)

    def info(self, path: Path, values: Sequence[Any]) -> SessionInfo:
        return lowering.info(path, values)

    def raise_records(self, session: Session, events: Sequence[Event]) -> Iterator[bytes]:
        return lowering.raise_records(session, events)

    def scan_info(self, path: Path) -> SessionInfo | None:
        return lowering.scan_info(path)

    def indexer(self, path: Path, index: RecordIndex) -> Indexer | None:
        from klipui.session.formats.dsh.indexed import DshIndexer

        return DshIndexer(path, index)

    def roots(self, home: Path, environ: Mapping[str, str]) -> list[Root]:
        dsh = Path(environ.get("DSH_HOME") or home / ".dsh")
        return [Root(self.name, dsh / "sessions", "*/*/session.jsonl*")]

    def new_id(self, now: datetime) -> str:
        return child.new_id(now)

    def child_path(self, session: Session, child_id: str, now: datetime) -> Path:
        return child.child_path(session, child_id, now)

    def build_child(self, source: ChildSource) -> ChildBody:
        return child.build(source)

    def child_compression(self, path: Path, body: ChildBody) -> str | None:
        return "zstd" if path.name.endswith(ZSTD_SUFFIX) else None


ADAPTER = DshAdapter()

__all__ = [
    "ADAPTER",
    "CHUNK_ROWS",
    "NO_CWD",
    "SESSION_FILE",
    "ZSTD_SUFFIX",
    "DshAdapter",
    "agent",
    "encode_id",
    "expand_row",
    "info",
    "latest_title",
    "lower",
    "name",
    "project_key",
    "project_name",
    "raise_records",
    "scan_info",
    "session_path",
    "sniff",
]
