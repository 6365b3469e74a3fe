"""Following a growing session file: appends read from the last offset and merged, partial lines
waited for, truncated and rewritten files read again, zstd frames appended live."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
import zstandard
from conftest import AGENT_WRITTEN, sample_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from klipui.session import SessionError, open_session
from klipui.session.follow import Follower, read_tail, start_state

DEMO = Path(__file__).resolve().parents[1] / "klipui" / "demo" / "sessions"
GROWN = sorted(
    [*AGENT_WRITTEN.glob("*.jsonl"), *sample_files(), *DEMO.rglob("*.jsonl")],
    key=lambda p: p.name,
)


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def _events(session) -> list[dict]:
    return [event.to_dict() for event in session.events]


def _bump(path: Path) -> None:
    """Move the file's mtime on, so a rewrite of the same size is seen on a coarse clock."""
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))


def _grow(target: Path, data: bytes) -> None:
    with target.open("ab") as out:
        out.write(data)
    _bump(target)


@pytest.mark.parametrize("source", GROWN, ids=lambda p: p.name[:30])
def test_following_a_growing_file_ends_where_reading_it_whole_does(tmp_path: Path, source: Path):
    lines = _lines(source)
    target = tmp_path / source.name
    first = max(1, len(lines) // 3)
    target.write_bytes(b"".join(lines[:first]))
    try:
        follower = Follower(open_session(target))
    except SessionError:
        pytest.skip("its first third is not a session on its own (no recognisable record yet)")
    before = len(follower.session.events)
    _grow(target, b"".join(lines[first:]))
    change = follower.poll()
    assert change.kind == "appended"
    follower.poll(now=time.monotonic() + 10)  # settled: a last line without newline is read too
    session = follower.session
    whole = open_session(target)
    assert len(session.records) == len(whole.records)
    assert _events(session) == _events(whole)
    assert [t.prompt for t in session.turns] == [t.prompt for t in whole.turns]
    assert [(p.line, p.reason) for p in session.problems] == [
        (p.line, p.reason) for p in whole.problems
    ]
    assert len(session.events) - before > 0
    last = len(session.records) - 1
    assert session.record_bytes(last) == lines[-1].rstrip(b"\r\n")
    assert follower.poll(now=time.monotonic() + 20).kind == "same"


GROWING = [
    AGENT_WRITTEN / "claude_10turns_compact6.jsonl",
    AGENT_WRITTEN / "pi_10turns.jsonl",
    AGENT_WRITTEN / "dsh_7turns.jsonl",
    next(AGENT_WRITTEN.glob("rollout-*.jsonl")),
]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    source=st.sampled_from(GROWING),
    cuts=st.lists(st.floats(0, 1), min_size=1, max_size=6),
    settle_at=st.sets(st.integers(0, 6)),
)
def test_growing_at_any_byte_gives_the_whole_file_once_it_is_complete(
    tmp_path: Path, source: Path, cuts: list[float], settle_at: set[int]
):
    """Appended in pieces cut anywhere (inside lines too), with pauses long enough for a half
    line to be read as it is, the followed session ends as the file read whole."""
    data = source.read_bytes()
    first_line = data.index(b"\n") + 1
    target = tmp_path / f"grow-{len(list(tmp_path.iterdir()))}.jsonl"
    target.write_bytes(data[:first_line])
    follower = Follower(open_session(target))
    points = sorted({first_line + int(c * (len(data) - first_line)) for c in cuts})
    done = first_line
    for step, point in enumerate([*points, len(data)]):
        if point > done:
            _grow(target, data[done:point])
            done = point
            change = follower.poll()
            assert change.kind in ("appended", "waiting", "same")
        if step in settle_at:  # the writer pauses: a half line is read as it is, then finished
            follower.poll(now=time.monotonic() + 10 * (step + 1))
    whole = open_session(target)
    assert _events(follower.session) == _events(whole)
    assert follower.session.problems == whole.problems


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    frames=st.lists(st.integers(1, 8), min_size=1, max_size=8),
    cuts=st.lists(st.floats(0, 1), max_size=5),
)
def test_zstd_frames_of_any_size_arriving_in_any_pieces(
    tmp_path: Path, frames: list[int], cuts: list[float]
):
    """A dsh `.jsonl.zstd` log written frame by frame, its bytes arriving in arbitrary pieces
    (frames cut in the middle), ends as the file read whole."""
    lines = _lines(AGENT_WRITTEN / "dsh_7turns.jsonl")
    groups = [[lines[0]]]
    at = 1
    for size in frames:
        if at < len(lines):
            groups.append(lines[at : at + size])
            at += size
    if at < len(lines):
        groups.append(lines[at:])
    data = b"".join(_zstd_frames([b"".join(group) for group in groups]))
    first = len(_zstd_frames([lines[0]])[0])
    target = tmp_path / f"grow-{len(list(tmp_path.iterdir()))}.jsonl.zstd"
    target.write_bytes(data[:first])
    follower = Follower(open_session(target))
    done = first
    for point in [*sorted({first + int(c * (len(data) - first)) for c in cuts}), len(data)]:
        if point > done:
            _grow(target, data[done:point])
            done = point
            assert follower.poll().kind in ("appended", "waiting", "same")
    whole = open_session(target)
    assert _events(follower.session) == _events(whole)
    assert follower.session.problems == whole.problems == []


def test_a_partial_last_line_is_waited_for_then_reported_once(tmp_path: Path):
    lines = _lines(AGENT_WRITTEN / "pi_10turns.jsonl")
    target = tmp_path / "s.jsonl"
    target.write_bytes(b"".join(lines[:5]) + lines[5][:20])
    session = open_session(target)
    follower = Follower(session, settle=2.0)
    assert follower.session.problems == []  # the half line is not a problem yet
    assert follower.poll(now=follower._grew_at + 0.5).kind == "same"
    _grow(target, lines[5][20:40])
    assert follower.poll(now=follower._grew_at + 0.1).kind == "waiting"
    change = follower.poll(now=follower._grew_at + 5)
    assert change.kind == "partial"
    assert change.problems[0].line == 6
    assert "truncated last line" in change.message
    assert change.session.problems == change.problems  # as reading the file whole says
    assert follower.poll(now=follower._grew_at + 10).kind == "same"  # reported once
    _grow(target, lines[5][40:] + lines[6])
    change = follower.poll()
    assert change.kind == "appended" and change.records == 2
    assert _events(change.session) == _events(open_session(target))


def test_a_truncated_file_is_read_again(tmp_path: Path):
    lines = _lines(AGENT_WRITTEN / "pi_10turns.jsonl")
    target = tmp_path / "s.jsonl"
    target.write_bytes(b"".join(lines))
    follower = Follower(open_session(target))
    target.write_bytes(b"".join(lines[: len(lines) // 2]))
    change = follower.poll()
    assert change.kind == "truncated"
    assert "shorter" in change.message
    assert _events(change.session) == _events(open_session(target))
    _grow(target, lines[len(lines) // 2])
    assert follower.poll().kind == "appended"  # followed on from the new read


def test_a_file_rewritten_longer_is_read_again_not_appended(tmp_path: Path):
    lines = _lines(AGENT_WRITTEN / "pi_10turns.jsonl")
    target = tmp_path / "s.jsonl"
    target.write_bytes(b"".join(lines[:8]))
    follower = Follower(open_session(target))
    # same first line, a changed record in the middle of what was read, then more
    changed = lines[4].replace(b'"', b'"', 1)
    altered = [*lines[:3], lines[3].replace(b"a", b"b", 1), *lines[4:]]
    assert altered != lines and changed
    target.write_bytes(b"".join(altered))
    change = follower.poll()
    assert change.kind == "rewritten"
    assert _events(change.session) == _events(open_session(target))


def test_a_file_that_vanishes_is_said_to_be_gone(tmp_path: Path):
    target = tmp_path / "s.jsonl"
    shutil.copy(AGENT_WRITTEN / "pi_10turns.jsonl", target)
    follower = Follower(open_session(target))
    target.unlink()
    change = follower.poll()
    assert change.kind == "gone" and "gone" in change.message
    assert change.session is follower.session


def test_a_file_that_comes_back_is_read_again(tmp_path: Path):
    lines = _lines(AGENT_WRITTEN / "pi_10turns.jsonl")
    target = tmp_path / "s.jsonl"
    target.write_bytes(b"".join(lines[:10]))
    follower = Follower(open_session(target))
    target.unlink()
    assert follower.poll().kind == "gone"
    assert follower.due() is False  # said once; nothing to look at until it is back
    target.write_bytes(b"".join(lines))
    assert follower.due() is True
    change = follower.poll()
    assert change.kind == "rewritten"
    assert _events(change.session) == _events(open_session(target))


def test_a_file_emptied_is_said_and_followed_when_it_fills_again(tmp_path: Path):
    lines = _lines(AGENT_WRITTEN / "pi_10turns.jsonl")
    target = tmp_path / "s.jsonl"
    target.write_bytes(b"".join(lines[:10]))
    follower = Follower(open_session(target))
    target.write_bytes(b"")
    change = follower.poll()
    assert change.kind == "gone" and "empty" in change.message
    target.write_bytes(b"".join(lines[:12]))
    change = follower.poll()
    assert change.kind == "rewritten" and len(change.session.records) == 12


def test_bad_new_lines_are_problems_with_their_line_numbers(tmp_path: Path):
    lines = _lines(AGENT_WRITTEN / "pi_10turns.jsonl")
    target = tmp_path / "s.jsonl"
    target.write_bytes(b"".join(lines[:4]))
    follower = Follower(open_session(target))
    _grow(target, b"{not json\n" + lines[4])
    change = follower.poll()
    assert change.kind == "appended" and change.records == 1
    assert [p.line for p in change.problems] == [5]


def _zstd_frames(lines: list[bytes]) -> list[bytes]:
    compressor = zstandard.ZstdCompressor(write_content_size=True)
    return [compressor.compress(line) for line in lines]


def test_zstd_frames_appended_live_are_followed(tmp_path: Path):
    lines = _lines(AGENT_WRITTEN / "dsh_7turns.jsonl")
    frames = _zstd_frames([lines[0], b"".join(lines[1:10]), *lines[10:]])
    target = tmp_path / "session.jsonl.zstd"
    target.write_bytes(b"".join(frames[:2]))
    follower = Follower(open_session(target))
    assert follower.session.compression == "zstd"
    assert follower.state.content is follower.session.raw  # the log is held once, not twice
    half = frames[2][: len(frames[2]) // 2]
    _grow(target, half)
    assert follower.poll().kind == "waiting"  # a frame being written is waited for
    settled = follower.poll(now=time.monotonic() + 10)
    assert settled.kind == "partial" and "truncated zstd frame" in settled.message
    _grow(target, frames[2][len(half) :] + b"".join(frames[3:]))
    change = follower.poll()
    assert change.kind == "appended"
    whole = open_session(target)
    assert _events(change.session) == _events(whole)
    assert change.session.problems == whole.problems == []  # the frame came whole in the end
    last = len(change.session.records) - 1
    assert change.session.record_bytes(last) == lines[-1].rstrip(b"\n")


def test_a_zstd_file_opened_mid_frame_does_not_read_its_lines_twice(tmp_path: Path):
    lines = _lines(AGENT_WRITTEN / "dsh_7turns.jsonl")
    compressor = zstandard.ZstdCompressor(write_content_size=True)
    body = compressor.compress(b"".join(lines[1:]))
    target = tmp_path / "session.jsonl.zstd"
    # a cut last frame: the whole lines that stream out of it are read at open
    target.write_bytes(compressor.compress(lines[0]) + body[: len(body) * 3 // 4])
    follower = Follower(open_session(target))
    _grow(target, body[len(body) * 3 // 4 :])
    follower.poll()
    assert _events(follower.session) == _events(open_session(target))


def test_read_tail_reads_from_the_last_offset_only(tmp_path: Path):
    lines = _lines(AGENT_WRITTEN / "pi_10turns.jsonl")
    target = tmp_path / "s.jsonl"
    target.write_bytes(b"".join(lines[:6]))
    state = start_state(open_session(target))
    assert state.consumed == sum(map(len, lines[:6])) and state.lines == 6
    _grow(target, lines[6])
    tail = read_tail(target, state)
    assert [r.line for r in tail.records] == [7]
    assert tail.records[0].offset == state.consumed
    assert tail.state.consumed == sum(map(len, lines[:7]))
