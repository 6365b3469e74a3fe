"""Claude Code: `<config>/projects/<project>/<session id>.jsonl`, a `parentUuid` chain of
user, assistant, tool-result, summary and bookkeeping lines; sub-agents in `<id>/subagents/`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from klipui.session.adapter import Adapter, ChildBody, ChildSource, Root
from klipui.session.formats.claude import child, lowering
from klipui.session.formats.claude.lowering import (
    KNOWN_TYPES,
    abandoned_branches,
    agent,
    info,
    lower,
    name,
    prompt_line,
    raise_records,
    sidechain_roots,
    sniff,
    subagent_files,
    subagents,
)
from klipui.session.model import Event, Problem, Record, Session, SessionInfo


class ClaudeAdapter(Adapter):
    """Claude Code sessions."""

    name = "claude"
    agent = "Claude Code"
    titled = child.TITLED

    def sniff(self, values: Sequence[Any]) -> bool:
        return lowering.sniff(values)

    def lower(self, path: Path, records: list[Record], problems: list[Problem]) -> Session:
        return lowering.lower(path, records, problems)

    def info(self, path: Path, values: Sequence[Any]) -> SessionInfo:
        return lowering.info(path, values)

    def raise_records(self, session: Session, events: Sequence[Event]) -> Iterator[bytes]:
        return lowering.raise_records(session, events)

    def subagents(self, session: Session) -> list[Path]:
        return lowering.subagents(session)

    def place_listed(self, info: SessionInfo) -> SessionInfo:
        """A sub-agent transcript (`agent-*.jsonl`, beside its session or in its
        `<session>/subagents/` folder) names the session it worked for: its records carry that
        session's id."""
        if info.parent is None and info.session_id and info.path.name.startswith("agent-"):
            info.parent = info.session_id
        return info

    def roots(self, home: Path, environ: Mapping[str, str]) -> list[Root]:
        config = Path(environ.get("CLAUDE_CONFIG_DIR") or home / ".claude")
        projects = config / "projects"
        return [
            Root(self.name, projects, "*/*.jsonl"),
            Root(self.name, projects, "*/*/subagents/agent-*.jsonl", orphans_only=True),
        ]

    def new_id(self, now: datetime) -> str:
        return child.new_id(now)

    def child_path(self, session: Session, child_id: str, now: datetime) -> Path:
        return child.child_path(session, child_id, now)

    def build_child(self, source: ChildSource) -> ChildBody:
        return child.build(source)

    def replace_result(self, value: Any, call_id: str, text: str) -> Any | None:
        return child.replace_result(value, call_id, text)


ADAPTER = ClaudeAdapter()

__all__ = [
    "ADAPTER",
    "KNOWN_TYPES",
    "ClaudeAdapter",
    "abandoned_branches",
    "agent",
    "info",
    "lower",
    "name",
    "prompt_line",
    "raise_records",
    "sidechain_roots",
    "sniff",
    "subagent_files",
    "subagents",
]
