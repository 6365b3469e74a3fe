"""Session formats: one adapter module per agent, each able to sniff, lower and raise.

An adapter module exposes:

- `name: str` and `agent: str` (the format name and the agent's human name);
- `sniff(values: Sequence[Any]) -> bool`: True when the first decoded records look like this
  format (content, never file names);
- `lower(path: Path, records: list[Record], problems: list[Problem]) -> Session`: records to events
  and turns;
- `info(path: Path, values: Sequence[Any]) -> SessionInfo`: quick figures from a head read;
- `raise_records(session: Session, events: Sequence[Event]) -> Iterator[bytes]`: the native lines
  (without newline) for the kept events, untouched records copied byte for byte;
- optionally `scan_info(path: Path) -> SessionInfo`: exact figures from a typed scan, without
  lowering (`load.exact_info` prefers it; dsh has one);
- optionally `subagents(session: Session) -> list[Path]`: files of sub-agent sessions beside it
  (looked up by `open_session`, never while listing: that would list a folder per session).

The lowering contract, shared by every format so that the clip engine and the app see one shape:

- Each turn is wrapped in `turn/start {turn}` ... `turn/end {turn, reason: {kind: "completed"}}`
  (synthetic for formats that lack them: `origin=None`, never raised). Events before the first
  `turn/start` are header events.
- `user/message`: `data = {id, role: "user", content: [blocks], source: {kind: "user"}}`.
- `assistant/message`: `data = {turn, step, message: {id, role: "assistant", content: [blocks],
  source: {kind: "model", model?}}, usage?}`.
- `tool/call`: `data = {turn, step, callId, name, arguments}` (`arguments` a JSON string).
- `tool/result`: `data = {turn, step, message: {id, role: "user", content: [{type: "tool-result",
  toolCallId, content: [blocks], isError}], source: {kind: "tool", callId}}}` with
  `sourceEventSeqs = [seq of its tool/call]`.
- Blocks: `{type: "text", text}`, `{type: "reasoning", text}`, `{type: "tool-call", id, name,
  arguments}`, `{type: "tool-result", ...}`, `{type: "image", mediaType, size}` (size in bytes of
  the decoded data; the data itself stays in the raw record).
- `session/title {title}`; compaction as `compaction/summary {summary}`; anything else becomes
  `<format>/<record type>` with `ignorable=True` and the native record as `data`.
- Native references (`tool_use_id`, `call_id`, `toolCallId`, `parentUuid`) become seq references in
  `sourceEventSeqs` where the clip rules need them.

`FORMATS` lists the adapters in sniffing order: the most specific first, generic messages last.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from types import ModuleType
from typing import Any

FORMATS: list[str] = ["dsh", "pi", "codex", "claude", "messages"]
"""Adapter module names in sniffing order (most specific first, generic messages last)."""

SNIFF_VALUES = 64
"""How many leading records sniffing looks at."""


def adapter(name: str) -> ModuleType:
    """The adapter module of format `name` (KeyError for an unknown name)."""
    if name not in FORMATS:
        raise KeyError(name)
    return importlib.import_module(f"{__name__}.{name}")


def adapters() -> list[ModuleType]:
    """Every adapter module, in sniffing order."""
    return [adapter(name) for name in FORMATS]


def detect_format(values: Sequence[Any]) -> ModuleType | None:
    """The first adapter whose `sniff` accepts the leading decoded records, or None."""
    head = list(values[:SNIFF_VALUES])
    if not head:
        return None
    for module in adapters():
        try:
            if module.sniff(head):
                return module
        except (TypeError, AttributeError, KeyError, ValueError, IndexError, RecursionError):
            continue  # fields of unexpected types: not this format
    return None
