"""Codex CLI: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl` (and
`archived_sessions/`), `session_meta` first, then response items and events."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from klipui.session.adapter import ModuleAdapter, Root
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
from klipui.session.model import Session
from klipui.session.resume import ResumeCommand, existing_folder, session_id_for


class CodexAdapter(ModuleAdapter):
    """Codex CLI rollouts."""

    lowering = lowering
    writer = child
    name = "codex"
    agent = "Codex"
    titled = child.TITLED
    end_mark = "Codex wrote no task_complete for it"

    def roots(self, home: Path, environ: Mapping[str, str]) -> list[Root]:
        codex = Path(environ.get("CODEX_HOME") or home / ".codex")
        return [
            Root(self.name, codex / "sessions", "**/rollout-*.jsonl"),
            Root(self.name, codex / "archived_sessions", "rollout-*.jsonl"),
        ]

    def placement(self, session: Session, path: Path) -> str | None:
        return child.placement(session, path)

    def replace_result(self, value: Any, call_id: str, text: str) -> Any | None:
        return child.replace_result(value, call_id, text)

    def resume(self, session: Session, prompt: str | None = None) -> ResumeCommand:
        """`codex resume <id>` (`codex exec --skip-git-repo-check resume <id> <prompt>`): Codex
        finds the rollout by its `session_meta` id under `$CODEX_HOME/sessions/` and works in the
        folder it is run from, so it runs from the project."""
        session_id = session_id_for(session, self.agent)
        cwd = existing_folder(session.cwd)
        note = "" if cwd else "its project folder is gone: Codex will work in the current folder"
        if "sessions" not in session.path.parts:
            note = "Codex looks for sessions under ~/.codex/sessions/; this file is elsewhere"
        if prompt is None:
            return ResumeCommand(self.agent, ("codex", "resume", session_id), cwd, note)
        argv = ("codex", "exec", "--skip-git-repo-check", "resume", session_id, prompt)
        return ResumeCommand(self.agent, argv, cwd, note)


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
