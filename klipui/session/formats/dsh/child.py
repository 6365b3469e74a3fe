"""DeepSeek Harness children: the reindexed seed under a new header (research/klip.md §4, §6).

- id `session-klip-<base36 epoch ms>-<6 random base36>`;
- header `{type: session, version: 0, id, createdAt, cwd?, parentSession, seedLength,
  delegationDepth, agentPreset?}` — a parent header without `delegationDepth` (older logs; the
  harness refuses them) gets `delegationDepth: 0`, which is what a top-level session has;
- the seed, then `session/end-seed` (unless the seed already ends with one), then a
  user-sourced `session/title` "KLIP <title>" (`klipui.klip.children.title_for`);
- same compression as the parent (zstd: the header alone in the first frame) and the same folder
  layout: `<key>/<id>/session.jsonl[.zstd]` when the parent lives in the harness's store, else a
  `<child id>.jsonl[.zstd]` file beside the parent.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from klipui.session.adapter import ChildBody, ChildSource
from klipui.session.childkit import base36, child_title_text, epoch_ms, random_base36
from klipui.session.formats._values import dumps_json
from klipui.session.model import Session

TITLED = True
"""The child ends with a user-sourced `session/title`."""

SESSION_FILE = "session.jsonl"
_HEADER_KEYS = ("cwd",)
"""Parent header keys carried to the child unchanged."""


def new_id(now: datetime) -> str:
    """`session-klip-<base36 ms>-<6 base36>`."""
    return f"session-klip-{base36(epoch_ms(now))}-{random_base36(6)}"


def child_path(session: Session, child_id: str, now: datetime) -> Path:
    """Beside the parent, in its layout: `<id>/session.jsonl[.zstd]` or `<id>.jsonl[.zstd]`."""
    parent = Path(session.path)
    suffix = ".zstd" if session.compression == "zstd" else ""
    if parent.name.startswith(SESSION_FILE):
        return parent.parent.parent / child_id / (SESSION_FILE + suffix)
    return parent.parent / f"{child_id}.jsonl{suffix}"


def header(source: ChildSource, seed_length: int, notes: list[str]) -> dict[str, Any]:
    """The child's header line."""
    parent = source.session.header or {}
    out: dict[str, Any] = {
        "type": "session",
        "version": 0,
        "id": source.child_id,
        "createdAt": epoch_ms(source.now),
    }
    for key in _HEADER_KEYS:
        if key in parent:
            out[key] = parent[key]
    if source.session.session_id:
        out["parentSession"] = source.session.session_id
    out["seedLength"] = seed_length
    depth = parent.get("delegationDepth")
    if isinstance(depth, int) and not isinstance(depth, bool) and depth >= 0:
        out["delegationDepth"] = depth
    else:
        out["delegationDepth"] = 0
        notes.append(
            "repaired: the parent header has no delegationDepth (the harness refuses such a "
            "log); the child header says delegationDepth: 0"
        )
    if "agentPreset" in parent:
        out["agentPreset"] = parent["agentPreset"]
    return out


def build(source: ChildSource) -> ChildBody:
    """Header, seed, `session/end-seed`, and the KLIP title."""
    notes: list[str] = []
    blockers: list[str] = []
    parent = source.session.header or {}
    if parent.get("version", 0) != 0:
        blockers.append(
            f"the parent header has version {parent.get('version')!r}; the harness reads 0 only"
        )
    seed = source.seed
    events: list[dict[str, Any]] = list(seed)
    time = epoch_ms(source.now)
    if not events or events[-1].get("type") != "session/end-seed":
        events.append({"type": "session/end-seed", "seq": len(events), "time": time, "data": {}})
    events.append(
        {
            "type": "session/title",
            "seq": len(events),
            "time": time,
            "data": {
                "title": child_title_text(source.title),
                "messageSeqs": [],
                "source": {"kind": "user"},
            },
        }
    )
    dumps = dumps_json
    lines = [dumps(header(source, len(seed), notes))]
    lines.extend(dumps(event) for event in events)
    records = len({e.origin for e in source.kept if e.origin is not None})
    return ChildBody(lines, source.session.compression, blockers, notes, records)
