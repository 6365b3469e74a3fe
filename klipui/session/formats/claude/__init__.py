"""Claude Code: `<config>/projects/<project>/<session id>.jsonl`, a `parentUuid` chain of
user, assistant, tool-result, summary and bookkeeping lines; sub-agents in `<id>/subagents/`."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from klipui.session.adapter import ModuleAdapter, Root
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
from klipui.session.model import Session, SessionInfo
from klipui.session.resume import (
    ResumeCommand,
    ResumeError,
    project_folder,
    project_key,
    prompt_args,
)

UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
"""A Claude Code session id (its file name)."""


class ClaudeAdapter(ModuleAdapter):
    """Claude Code sessions."""

    lowering = lowering
    writer = child
    name = "claude"
    agent = "Claude Code"
    titled = child.TITLED

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

    def replace_result(self, value: Any, call_id: str, text: str) -> Any | None:
        return child.replace_result(value, call_id, text)

    def resume(self, session: Session, prompt: str | None = None) -> ResumeCommand:
        """`claude --resume <id>` from the project folder (`claude -p --resume <id> <prompt>`).

        Claude Code finds the file as `~/.claude/projects/<project folder, every character but
        a letter or digit turned into '-'>/<id>.jsonl`, so the id is the file's name, a UUID."""
        stem = session.path.stem
        if not UUID.match(stem) or session.path.suffix != ".jsonl":
            raise ResumeError(
                f"{session.path}: Claude Code resumes a session by its file name, `<uuid>.jsonl`; "
                "this file is not named so"
            )
        cwd = project_folder(session, self.agent)
        expected = project_key(str(cwd))
        note = ""
        if session.path.parent.name != expected:
            note = (
                f"Claude Code looks for it in ~/.claude/projects/{expected}/; "
                "this file is elsewhere, so it may say no conversation was found"
            )
        head = ("claude", "-p") if prompt is not None else ("claude",)
        argv = (*head, "--resume", stem, *prompt_args(prompt))
        return ResumeCommand(self.agent, argv, cwd, note)


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
