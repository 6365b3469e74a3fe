"""Session formats: one adapter per agent (a package here), registered in `REGISTRY` below.

Each agent's package holds its lowering (`lowering.py`), its child writer (`child.py`) and, in
its `__init__`, an `Adapter` (`klipui.session.adapter`) that is the only way the rest of klipui
reaches it. The adapter offers what the modules used to expose:

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

`REGISTRY` lists the adapters in sniffing order: the most specific first, generic messages last.
Adding an agent is one package and one line there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from klipui.session.adapter import Adapter, check_adapter
from klipui.session.formats import claude, codex, dsh, messages, pi, qwen
from klipui.session.formats._values import base64_size, dumps_json, json_text, without_non_finite


def register(*candidates: object) -> tuple[Adapter, ...]:
    """The adapters, each checked against `Adapter`, in the order given (names unique)."""
    adapters = tuple(check_adapter(candidate) for candidate in candidates)
    names = [one.name for one in adapters]
    if len(set(names)) != len(names):
        raise TypeError(f"adapter names registered twice: {names}")
    return adapters


REGISTRY: tuple[Adapter, ...] = register(
    dsh.ADAPTER,
    pi.ADAPTER,
    codex.ADAPTER,
    qwen.ADAPTER,
    claude.ADAPTER,
    messages.ADAPTER,
)
"""Every agent's adapter, in sniffing order (most specific first, generic messages last)."""

FORMATS: list[str] = [one.name for one in REGISTRY]
"""Format names in sniffing order."""

SNIFF_VALUES = 64
"""How many leading records sniffing looks at."""

_BY_NAME = {one.name: one for one in REGISTRY}


def adapter(name: str) -> Adapter:
    """The adapter of format `name` (KeyError for an unknown name)."""
    return _BY_NAME[name]


def adapters() -> list[Adapter]:
    """Every adapter, in sniffing order."""
    return list(REGISTRY)


def detect_format(values: Sequence[Any]) -> Adapter | None:
    """The first adapter whose `sniff` accepts the leading decoded records, or None."""
    head = list(values[:SNIFF_VALUES])
    if not head:
        return None
    for one in REGISTRY:
        try:
            if one.sniff(head):
                return one
        except (TypeError, AttributeError, KeyError, ValueError, IndexError, RecursionError):
            continue  # fields of unexpected types: not this format
    return None


__all__ = [
    "FORMATS",
    "REGISTRY",
    "SNIFF_VALUES",
    "Adapter",
    "adapter",
    "adapters",
    "base64_size",
    "detect_format",
    "dumps_json",
    "json_text",
    "register",
    "without_non_finite",
]
