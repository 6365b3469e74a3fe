"""Index-first sessions give exactly what reading and lowering the whole file gives.

Every sample (the shared ones and the fixtures, all six formats) is opened both ways, with the
default blocks and with tiny blocks (so that the typed fast path of the dsh index reads most of
each file); generated dsh logs with hostile lines mixed in are compared the same way.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import klipui.session.jsonl as jsonl
import klipui.session.load as load
from klipui.session import Session, SessionError, open_session
from klipui.session.index import LazyEvents, LazyRecords
from klipui.session.jsonl import write_new
from tests.dsh_gen import dsh_sessions

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "samples"


def _session_files() -> list[Path]:
    found: list[Path] = []
    for root in (FIXTURES, SHARED):
        if root.is_dir():
            found.extend(sorted(p for p in root.rglob("*.jsonl*") if p.is_file()))
    return found


FILES = _session_files()


def _open_both(path: Path) -> tuple[Session | str, Session | str]:
    out: list[Session | str] = []
    for indexed in (True, False):
        try:
            out.append(open_session(path, indexed=indexed))
        except SessionError as error:
            out.append(str(error))
    return out[0], out[1]


def assert_same(indexed: Session, whole: Session) -> None:
    """Every field of the two sessions, every event, turn, problem, record and record's bytes."""
    assert indexed.format == whole.format
    assert indexed.problems == whole.problems
    assert indexed.turns == whole.turns
    assert len(indexed.events) == len(whole.events)
    assert list(indexed.events) == list(whole.events)
    assert list(indexed.records) == list(whole.records)
    for name in ("header", "title", "cwd", "session_id", "parent", "compression", "source_stat"):
        assert getattr(indexed, name) == getattr(whole, name), name
    assert indexed.source_fingerprint == whole.source_fingerprint
    assert indexed.subagents == whole.subagents
    for number in range(1, len(whole.turns) + 1):
        assert indexed.turn_events(number) == whole.turn_events(number)
    for position in range(len(whole.events) - 1, -1, -7):  # random access, backwards
        assert indexed.events[position] == whole.events[position]
    raw = [whole.record_bytes(i) for i in range(len(whole.records))]
    assert [indexed.record_bytes(i) for i in range(len(whole.records))] == raw


@pytest.fixture(params=["default", "tiny"])
def blocks(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "tiny":
        monkeypatch.setattr(jsonl, "_BLOCK", 2048)
        monkeypatch.setattr(load, "SNIFF_RECORDS", 4)
    return str(request.param)


def test_the_samples_cover_every_format() -> None:
    formats = set()
    for path in FILES:
        try:
            formats.add(open_session(path, subagents=False).format)
        except SessionError:
            continue
    assert formats >= {"dsh", "claude", "codex", "pi", "qwen"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_index_first_equals_the_whole_read(path: Path, blocks: str) -> None:
    indexed, whole = _open_both(path)
    if isinstance(whole, str) or isinstance(indexed, str):
        assert indexed == whole
        return
    assert_same(indexed, whole)


def test_a_dsh_session_opens_index_first(blocks: str) -> None:
    path = FIXTURES / "agent-written" / "dsh_7turns.jsonl"
    session = open_session(path)
    assert isinstance(session.records, LazyRecords)
    assert isinstance(session.events, LazyEvents)
    assert session.raw_source is not None


# ------------------------------------------------------------------- generated, hostile dsh logs

HOSTILE_LINES = [
    b"",
    b"   ",
    b"not json",
    b"[1, 2]",
    b'{"type": 7, "seq": 3}',
    b'{"type": ["x"], "seq": 3}',
    b'{"type": "tool/call"}',
    b'{"seq": 4}',
    b'{"type": "text-chunks", "seq0": "a", "data": {"texts": ["x"]}}',
    b'{"type": "text-chunks", "seq0": 5, "data": {"texts": "x"}}',
    b'{"type": "text-chunks", "seq0": 5, "time0": 1, "data": {"texts": ["a", "b"], "dt": ["z"]}}',
    b'{"type": "text-chunks", "seq0": 5, "data": []}',
    b'{"type": "reasoning-chunks", "seq0": 0, "time0": 9, "data": {"texts": ["a", "b", "c"]}}',
    b'{"type": "tool-call-chunks", "seq0": 2, "data": {"args": ["{", "}"], "id": "c"}}',
    b'{"type": "user/message", "seq": true, "data": {"content": "hi"}}',
    b'{"type": "turn/end", "seq": 1, "data": {"turn": 1, "reason": {"kind": "completed"}}}',
    b'{"type": "x", "seq": 1, "data": 1e999}',
    b'{"type": "x", "seq": 1, "data": "\\ud83d"}',
    b'{"type": "x", "seq": 1, "data": "\xff"}',
    b'{"type": "x", "seq": 1.5}',
    b'{"type": "session/title", "seq": 2, "data": {"title": "late"}}',
    b'{"type": "tool/result", "seq": 9, "data": {"message": "odd"}}',
    b'{"type": "x", "seq": 1}\r',
]


def _packed(events: list[dict[str, Any]]) -> list[bytes]:
    """The lines of a log, runs of text-delta chunks packed into `text-chunks` rows."""
    lines: list[bytes] = []
    run: list[dict[str, Any]] = []

    def flush() -> None:
        if len(run) > 1:
            data = run[0]["data"]
            row = {
                "type": "text-chunks",
                "seq0": run[0]["seq"],
                "time0": run[0]["time"],
                "data": {
                    "turn": data.get("turn"),
                    "step": data.get("step"),
                    "index": data["chunk"].get("index"),
                    "dt": [b["time"] - a["time"] for a, b in itertools.pairwise(run)],
                    "texts": [e["data"]["chunk"]["text"] for e in run],
                },
            }
            lines.append(orjson.dumps(row))
        else:
            lines.extend(orjson.dumps(e) for e in run)
        run.clear()

    for event in events:
        chunk = event.get("data", {}).get("chunk") if event["type"] == "assistant/chunk" else None
        if isinstance(chunk, dict) and chunk.get("type") == "text-delta" and "time" in event:
            run.append(event)
            continue
        flush()
        lines.append(orjson.dumps(event))
    flush()
    return lines


HEADER = orjson.dumps({"type": "session", "version": 0, "id": "gen", "cwd": "/w"})


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    log=dsh_sessions(),
    hostile=st.lists(
        st.tuples(st.integers(min_value=1), st.sampled_from(HOSTILE_LINES)), max_size=6
    ),
    zstd=st.booleans(),
    block=st.sampled_from([1024, 4096, 1 << 20]),
)
def test_generated_dsh_logs_with_hostile_lines(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    log: list[dict[str, Any]],
    hostile: list[tuple[int, bytes]],
    zstd: bool,
    block: int,
) -> None:
    monkeypatch.setattr(jsonl, "_BLOCK", block)
    monkeypatch.setattr(load, "SNIFF_RECORDS", 4)
    lines = [HEADER, *_packed(log)]
    for where, line in hostile:
        lines.insert(1 + where % len(lines), line)
    folder = tmp_path_factory.mktemp("gen")
    path = folder / ("session.jsonl.zstd" if zstd else "session.jsonl")
    write_new(path, lines, compression="zstd" if zstd else None)
    indexed, whole = _open_both(path)
    if isinstance(whole, str) or isinstance(indexed, str):
        assert indexed == whole
        return
    assert isinstance(indexed.events, LazyEvents)
    assert_same(indexed, whole)


def test_an_appended_file_still_reads_its_records(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    path.write_bytes((FIXTURES / "agent-written" / "dsh_7turns.jsonl").read_bytes())
    session = open_session(path)
    first = session.record_bytes(len(session.records) - 1)
    with path.open("ab") as handle:
        handle.write(b'{"type":"x","seq":99999}\n')
    assert session.record_bytes(len(session.records) - 1) == first
    whole = open_session(path, indexed=False)
    assert list(session.events) == list(whole.events)[: len(session.events)]


def test_a_rewritten_file_is_refused_not_misread(tmp_path: Path) -> None:
    from klipui.session.model import SourceChanged

    path = tmp_path / "session.jsonl"
    data = (FIXTURES / "agent-written" / "dsh_7turns.jsonl").read_bytes()
    path.write_bytes(data)
    session = open_session(path)
    path.write_bytes(data.replace(b'"seq":', b'"seq" :', 1) + b"\n")
    with pytest.raises(SourceChanged):
        session.record_bytes(len(session.records) - 1)


def test_progress_is_told_block_by_block_up_to_the_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonl, "_BLOCK", 4096)
    path = FIXTURES / "samples" / "dsh" / "goal-multi-turn-actions.jsonl"
    calls: list[tuple[int, int]] = []
    open_session(path, progress=lambda done, total: calls.append((done, total)))
    size = path.stat().st_size
    assert len(calls) > 2
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)
    assert calls[-1] == (size, size)


def test_lazy_sequences_index_like_lists(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jsonl, "_BLOCK", 4096)
    monkeypatch.setattr(load, "SNIFF_RECORDS", 4)
    path = FIXTURES / "samples" / "dsh" / "goal-multi-turn-actions.jsonl"
    lazy, whole = open_session(path), open_session(path, indexed=False)
    events, reference = lazy.events, list(whole.events)
    assert events[-1] == reference[-1] and events[-len(reference)] == reference[0]
    assert events[5:40:3] == reference[5:40:3]
    assert events[30:10] == [] and events[-3:] == reference[-3:]
    with pytest.raises(IndexError):
        events[len(reference)]
    assert lazy.records[-2:] == list(whole.records)[-2:]
    assert lazy.header_events == whole.header_events


def test_decoded_events_are_cached_within_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    import klipui.session.index as index

    monkeypatch.setattr(index, "CACHE_RECORDS", 8)
    path = FIXTURES / "samples" / "dsh" / "goal-multi-turn-actions.jsonl"
    session = open_session(path)
    assert isinstance(session.events, LazyEvents)
    first = session.events[len(session.events) // 2]
    assert session.events[len(session.events) // 2] is first  # served from the cache
    for position in range(len(session.events)):
        session.events[position]
    assert len(session.events._cache) <= 8
    assert len(session.records._cache) <= 8  # type: ignore[attr-defined]


def _dsh_lines(turns: int = 30) -> list[bytes]:
    lines = [HEADER]
    seq = 0
    for turn in range(1, turns + 1):
        for kind, data in (
            ("turn/start", {"turn": turn}),
            ("user/message", {"content": [{"type": "text", "text": f"prompt {turn} " * 20}]}),
            ("tool/call", {"turn": turn, "callId": f"c{turn}", "arguments": '{"a": 1}'}),
            ("turn/end", {"turn": turn, "reason": {"kind": "completed"}}),
        ):
            lines.append(orjson.dumps({"type": kind, "seq": seq, "time": seq, "data": data}))
            seq += 1
    return lines


@pytest.mark.parametrize("shape", ["bom", "crlf", "no-final-newline", "cut-zstd-frame"])
def test_file_shapes_read_alike_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str
) -> None:
    monkeypatch.setattr(jsonl, "_BLOCK", 1024)
    monkeypatch.setattr(load, "SNIFF_RECORDS", 4)
    lines = _dsh_lines()
    path = tmp_path / "session.jsonl"
    if shape == "bom":
        path.write_bytes(jsonl.BOM + b"\n".join(lines) + b"\n")
    elif shape == "crlf":
        path.write_bytes(b"\r\n".join(lines) + b"\r\n")
    elif shape == "no-final-newline":
        path.write_bytes(b"\n".join(lines))
    else:
        whole = tmp_path / "whole.jsonl.zstd"
        monkeypatch.setattr(jsonl, "_ZSTD_BATCH", 512)  # many frames, as a long session has
        write_new(whole, lines, compression="zstd")
        path = tmp_path / "session.jsonl.zstd"
        data = whole.read_bytes()
        path.write_bytes(data[: len(data) - 40])  # the last frame cut: still being written
    indexed, whole_read = _open_both(path)
    assert isinstance(indexed, Session) and isinstance(whole_read, Session)
    assert isinstance(indexed.events, LazyEvents)
    assert_same(indexed, whole_read)
    assert len(indexed.turns) >= 20
    if shape == "cut-zstd-frame":
        assert indexed.problems and "truncated zstd frame" in indexed.problems[-1].reason
