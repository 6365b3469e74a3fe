"""pi: `~/.pi/agent/sessions/<project>/<time>_<id>.jsonl`, a `session` header then entries
linked by `parentId` (v1 files by line order)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from klipui.session.adapter import ModuleAdapter, Root
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
from klipui.session.model import Session
from klipui.session.resume import ResumeCommand, project_folder, prompt_args


class PiAdapter(ModuleAdapter):
    """pi sessions."""

    lowering = lowering
    writer = child
    name = "pi"
    agent = "pi"
    titled = child.TITLED

    def roots(self, home: Path, environ: Mapping[str, str]) -> list[Root]:
        return [Root(self.name, home / ".pi" / "agent" / "sessions", "*/*.jsonl")]

    def replace_result(self, value: Any, call_id: str, text: str) -> Any | None:
        return child.replace_result(value, call_id, text)

    def resume(self, session: Session, prompt: str | None = None) -> ResumeCommand:
        """`pi --session <file>` from the session's folder (`pi -p --session <file> <prompt>`);
        pi refuses a header `cwd` that is gone."""
        cwd = project_folder(session, self.agent)
        head = ("pi", "-p") if prompt is not None else ("pi",)
        argv = (*head, "--session", str(session.path.resolve()), *prompt_args(prompt))
        return ResumeCommand(self.agent, argv, cwd)


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
