"""Generic message JSONL: one chat message (OpenAI or Anthropic shaped) or message list a line,
as other tools export them; no folder of its own, no ids to rewrite."""

from __future__ import annotations

from typing import Any

from klipui.session.adapter import ModuleAdapter
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
from klipui.session.model import Session
from klipui.session.resume import ResumeCommand, ResumeError


class MessagesAdapter(ModuleAdapter):
    """Generic message files (sniffed last)."""

    lowering = lowering
    writer = child
    name = "messages"
    typed_records = False
    agent = "messages"
    titled = child.TITLED

    def replace_result(self, value: Any, call_id: str, text: str) -> Any | None:
        return child.replace_result(value, call_id, text)

    def resume(self, session: Session, prompt: str | None = None) -> ResumeCommand:
        raise ResumeError(
            f"{session.path}: a generic messages file belongs to no agent; nothing to resume"
        )


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
