"""Helpers for the format adapter tests: writing and reading JSONL files, lowering a file with
one adapter, and the event invariants every EventLog-built session keeps."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import orjson

from klipui.session.jsonl import read_jsonl
from klipui.session.model import Session


def write_lines(path: Path, values: list[Any]) -> Path:
    """Write `values` as JSON lines to `path`; returns `path`."""
    path.write_bytes(b"".join(orjson.dumps(v) + b"\n" for v in values))
    return path


def json_lines(path: Path) -> list[dict[str, Any]]:
    """The JSON-object lines of a file, decoded (what a reader of the raw file sees)."""
    out = []
    for raw in path.read_bytes().split(b"\n"):
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def lower_with(adapter: ModuleType, path: Path) -> Session:
    """`path` read and lowered by `adapter` (no format detection)."""
    loaded = read_jsonl(path)
    return adapter.lower(path, loaded.records, loaded.problems)


def check_invariants(session: Session, *, same_turn_citations: bool = False) -> None:
    """Seqs contiguous; results cite an earlier call with their id; turns well bracketed; with
    `same_turn_citations`, every result cites a call of its own turn (not so in pi trees)."""
    calls: dict[int, str] = {}
    for position, event in enumerate(session.events):
        assert event.seq == position
        if event.type == "tool/call":
            calls[event.seq] = event.data["callId"]
        if event.type == "tool/result" and event.source_event_seqs is not None:
            (cited,) = event.source_event_seqs
            assert cited < event.seq
            assert calls[cited] == event.data["message"]["source"]["callId"]
        if event.type in ("turn/start", "turn/end"):
            assert event.origin is None
    for number, turn in enumerate(session.turns, 1):
        assert turn.number == number
        assert session.events[turn.start].type == "turn/start"
        assert session.events[turn.start].data["turn"] == number
    for turn in session.turns if same_turn_citations else ():
        turn_calls = {e.seq for e in session.events[turn.start : turn.end] if e.type == "tool/call"}
        for e in session.events[turn.start : turn.end]:
            if e.type == "tool/result" and e.source_event_seqs:
                assert e.source_event_seqs[0] in turn_calls
