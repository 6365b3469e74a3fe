"""The tolerant JSONL reader and the atomic writer."""

from __future__ import annotations

import json
import os
from pathlib import Path

import orjson
import pytest
import zstandard
from conftest import SAMPLES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from klipui.session.jsonl import (
    TRUNCATED_FRAME,
    read_head,
    read_jsonl,
    write_new,
    zstd_frames_end,
)


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_every_kind_of_bad_line(tmp_path: Path) -> None:
    big = {"type": "tool", "text": "x" * (10 * 1024 * 1024)}
    lines = [
        b'\xef\xbb\xbf{"n": 1}\r',  # BOM + CRLF
        b"",  # blank
        b"   ",  # blank
        b"[1, 2]",  # not an object
        b'"text"',
        b"null",
        b'{"n": 2',  # invalid JSON
        b'{"n": "\xff\xfe"}',  # invalid UTF-8
        orjson.dumps(big),  # 10 MB line
        b'{"n": "half \\ud83d emoji"}',  # lone surrogate escape, as JavaScript writes it
        b'{"n": 3, "big": 123456789012345678901234567890}\r',
        b'{"n": 4, "cut',  # truncated last line, no newline
    ]
    path = write(tmp_path / "s.jsonl", b"\n".join(lines))
    loaded = read_jsonl(path)
    assert [r.line for r in loaded.records] == [1, 9, 10, 11]
    assert loaded.records[0].value == {"n": 1}
    assert loaded.records[1].value == big
    assert loaded.records[2].value == {"n": "half \ufffd emoji"}
    assert loaded.data is None  # a plain file: the offsets index the file itself
    data = path.read_bytes()
    for record in loaded.records:
        raw = data[record.offset : record.offset + record.length]
        assert json.loads(raw) is not None
        assert not raw.endswith(b"\r")
    assert [(p.line, p.path) for p in loaded.problems] == [
        (n, str(path)) for n in (4, 5, 6, 7, 8, 12)
    ]
    reasons = [p.reason for p in loaded.problems]
    assert "array" in reasons[0] and "string" in reasons[1] and "null" in reasons[2]
    assert reasons[3].startswith("invalid JSON")
    assert "UTF-8" in reasons[4]
    assert reasons[5].startswith("truncated last line")
    assert str(loaded.problems[0]).startswith(f"{path}:4: ")


def test_complete_last_line_without_newline_loads(tmp_path: Path) -> None:
    loaded = read_jsonl(write(tmp_path / "s.jsonl", b'{"a": 1}\n{"b": 2}'))
    assert [r.value for r in loaded.records] == [{"a": 1}, {"b": 2}]
    assert loaded.problems == []


def test_zstd_frames_are_read_by_content(tmp_path: Path) -> None:
    compressor = zstandard.ZstdCompressor()
    frames = compressor.compress(b'{"h": 1}\n') + compressor.compress(b'{"e": 1}\n{"e": 2}\n')
    path = write(tmp_path / "named-plain.jsonl", frames)
    loaded = read_jsonl(path)
    assert loaded.compression == "zstd"
    assert [r.value for r in loaded.records] == [{"h": 1}, {"e": 1}, {"e": 2}]
    head = read_head(path)
    assert head.values == [{"h": 1}, {"e": 1}, {"e": 2}] and head.complete


def test_truncated_zstd_keeps_what_it_can(tmp_path: Path) -> None:
    compressor = zstandard.ZstdCompressor()
    body = b"".join(b'{"e": %d}\n' % i for i in range(50))
    frames = compressor.compress(b'{"h": 1}\n') + compressor.compress(body)
    loaded = read_jsonl(write(tmp_path / "s.jsonl.zstd", frames[:-4]))
    assert loaded.records[0].value == {"h": 1}
    assert all(r.value == {"e": r.line - 2} for r in loaded.records[1:])


def test_head_read_is_bounded(tmp_path: Path) -> None:
    lines = [orjson.dumps({"i": i, "pad": "p" * 100}) for i in range(20_000)]
    path = write(tmp_path / "s.jsonl", b"\n".join(lines) + b"\n")
    head = read_head(path, max_bytes=64 * 1024, max_lines=50)
    assert not head.complete
    assert [v["i"] for v in head.values] == list(range(50))
    head = read_head(path, max_bytes=64 * 1024, max_lines=10_000)
    assert 0 < len(head.values) < 1000
    assert head.values[-1]["i"] == len(head.values) - 1


def test_head_read_reaches_past_a_long_first_line(tmp_path: Path) -> None:
    first = orjson.dumps({"first": "f" * 300_000})
    path = write(tmp_path / "s.jsonl", first + b'\n{"second": 1}\n' + b'{"x": 1}\n' * 100_000)
    head = read_head(path, max_bytes=64 * 1024)
    assert head.values[0] == {"first": "f" * 300_000}


def test_write_new_is_atomic_and_never_overwrites(tmp_path: Path) -> None:
    path = tmp_path / "out" / "child.jsonl"
    write_new(path, [b'{"a": 1}', b'{"b": 2}'])
    assert path.read_bytes() == b'{"a": 1}\n{"b": 2}\n'
    with pytest.raises(FileExistsError):
        write_new(path, [b'{"c": 3}'])
    assert path.read_bytes() == b'{"a": 1}\n{"b": 2}\n'
    assert sorted(p.name for p in path.parent.iterdir()) == ["child.jsonl"]


def test_write_new_zstd_header_frame(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl.zstd"
    lines = [b'{"type": "session"}'] + [b'{"seq": %d}' % i for i in range(1000)]
    write_new(path, lines, compression="zstd")
    data = path.read_bytes()
    first_frame = zstandard.ZstdDecompressor().decompressobj()
    assert first_frame.decompress(data) == b'{"type": "session"}\n'
    loaded = read_jsonl(path)
    assert loaded.compression == "zstd"
    assert loaded.data == b"\n".join(lines) + b"\n"


good_values = st.dictionaries(
    st.text(max_size=5),
    st.one_of(st.integers(-(2**63), 2**63 - 1), st.text(max_size=20), st.none()),
    max_size=4,
)


def _is_object_line(raw: bytes) -> bool:
    raw = raw.removeprefix(b"\xef\xbb\xbf")  # a BOM is skipped when the line is the first
    try:
        return isinstance(orjson.loads(raw.rstrip(b"\r")), dict)
    except orjson.JSONDecodeError:
        try:
            return isinstance(json.loads(raw.decode("utf-8")), dict)
        except ValueError:
            return False


garbage = (
    st.binary(min_size=1, max_size=40)
    .map(lambda b: b.replace(b"\n", b"#"))
    .filter(lambda b: b.removeprefix(b"\xef\xbb\xbf").strip() and not _is_object_line(b))
)


line_items = st.one_of(
    good_values.map(lambda v: ("good", v)),
    garbage.map(lambda g: ("bad", g)),
    st.sampled_from([b"", b"  ", b"\t", b"\r"]).map(lambda b: ("blank", b)),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(line_items), st.booleans(), st.booleans(), st.booleans())
def test_garbage_never_costs_a_good_line(
    tmp_path_factory: pytest.TempPathFactory,
    items: list[tuple[str, object]],
    newline_end: bool,
    crlf: bool,
    zstd: bool,
) -> None:
    ending = b"\r\n" if crlf else b"\n"
    lines = [orjson.dumps(x) if kind == "good" else x for kind, x in items]
    data = ending.join(lines) + (ending if newline_end else b"")
    if zstd and data:
        data = zstandard.ZstdCompressor().compress(data)
    path = tmp_path_factory.mktemp("g") / "s.jsonl"
    path.write_bytes(data)
    loaded = read_jsonl(path)
    expected_good = [(n, x) for n, (kind, x) in enumerate(items, start=1) if kind == "good"]
    expected_bad = [n for n, (kind, _) in enumerate(items, start=1) if kind == "bad"]
    assert [(r.line, r.value) for r in loaded.records] == expected_good
    assert [p.line for p in loaded.problems] == expected_bad
    content = loaded.data if loaded.data is not None else path.read_bytes()
    for record in loaded.records:
        raw = content[record.offset : record.offset + record.length]
        assert orjson.loads(raw) == record.value


def test_write_new_without_hard_links(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def no_links(source: object, target: object) -> None:
        raise PermissionError("hard links not supported here")

    monkeypatch.setattr("os.link", no_links)
    path = tmp_path / "child.jsonl"
    write_new(path, [b'{"a": 1}'])
    assert path.read_bytes() == b'{"a": 1}\n'
    with pytest.raises(FileExistsError):
        write_new(path, [b'{"b": 2}'])
    assert path.read_bytes() == b'{"a": 1}\n'
    assert [p.name for p in tmp_path.iterdir()] == ["child.jsonl"]


def test_write_new_gives_the_usual_permissions(tmp_path: Path) -> None:
    import os

    old = os.umask(0o022)
    try:
        write_new(tmp_path / "a.jsonl", [b"{}"])
    finally:
        os.umask(old)
    assert (tmp_path / "a.jsonl").stat().st_mode & 0o777 == 0o644


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o604])
def test_write_new_sets_the_mode_before_the_file_appears(
    tmp_path: Path, mode: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    from klipui.session import jsonl

    links: list[tuple[int, Path]] = []
    real_link = jsonl._link_into_place

    def spy(temp: Path, path: Path) -> None:
        links.append((temp.stat().st_mode & 0o7777, path))
        real_link(temp, path)

    monkeypatch.setattr(jsonl, "_link_into_place", spy)
    target = tmp_path / "child.jsonl"
    write_new(target, [b'{"a": 1}'], mode=mode)
    assert links == [(mode, target)]
    assert target.stat().st_mode & 0o7777 == mode
    assert [p.name for p in tmp_path.iterdir()] == ["child.jsonl"]


def _frames(lines: list[bytes], per_frame: int) -> list[bytes]:
    """`lines` as zstd frames as the harness writes them: the header alone, then `per_frame`
    lines a frame."""
    compressor = zstandard.ZstdCompressor(write_content_size=True)
    frames = [compressor.compress(lines[0] + b"\n")]
    for start in range(1, len(lines), per_frame):
        frames.append(compressor.compress(b"".join(x + b"\n" for x in lines[start:][:per_frame])))
    return frames


def _varied_lines(count: int) -> list[bytes]:
    """JSON lines that compress poorly, so that a frame holds many blocks."""
    return [orjson.dumps({"n": n, "text": os.urandom(150).hex()}) for n in range(count)]


def test_zstd_cut_inside_the_last_frame_keeps_its_whole_lines_and_says_so(tmp_path: Path) -> None:
    lines = (SAMPLES / "dsh" / "multi-turn.jsonl").read_bytes().splitlines()
    frames = _frames(lines, 10)
    whole = b"".join(frames[:-1])
    complete = 1 + 10 * (len(frames) - 2)
    for cut in range(1, len(frames[-1])):
        path = tmp_path / f"live-{cut}.jsonl.zstd"
        path.write_bytes(whole + frames[-1][:cut])
        loaded = read_jsonl(path)
        kept = [orjson.dumps(r.value) for r in loaded.records]
        assert len(kept) >= complete
        assert kept == [orjson.dumps(orjson.loads(x)) for x in lines[: len(kept)]]
        assert [(p.line, p.reason) for p in loaded.problems] == [(len(kept) + 1, TRUNCATED_FRAME)]


def test_zstd_whole_frames_have_no_problem(tmp_path: Path) -> None:
    lines = (SAMPLES / "dsh" / "multi-turn.jsonl").read_bytes().splitlines()
    path = tmp_path / "whole.jsonl.zstd"
    path.write_bytes(b"".join(_frames(lines, 10)))
    loaded = read_jsonl(path)
    assert loaded.problems == [] and len(loaded.records) == len(lines)


def test_one_zstd_frame_cut_in_half_gives_the_lines_that_stream_out(tmp_path: Path) -> None:
    lines = _varied_lines(4000)
    frame = zstandard.ZstdCompressor().compress(b"".join(x + b"\n" for x in lines))
    path = tmp_path / "cut.jsonl.zstd"
    path.write_bytes(frame[: len(frame) // 2])
    loaded = read_jsonl(path)
    assert 0 < len(loaded.records) < len(lines)
    expected = [orjson.loads(x) for x in lines][: len(loaded.records)]
    assert [r.value for r in loaded.records] == expected
    [problem] = loaded.problems
    assert problem.line == len(loaded.records) + 1 and problem.reason == TRUNCATED_FRAME


def test_zstd_name_without_zstd_content(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl.zstd"
    bad.write_bytes(os.urandom(64).replace(b"\n", b"") + b"\n" + b"\xff\xfe more\n")
    loaded = read_jsonl(bad)
    assert loaded.records == []
    assert [str(p) for p in loaded.problems] == [f"{bad}: not a zstd stream"]
    plain = tmp_path / "plain.jsonl.zstd"
    plain.write_bytes((SAMPLES / "dsh" / "multi-turn.jsonl").read_bytes())
    assert read_jsonl(plain).problems == [] and read_jsonl(plain).records


def test_zstd_frames_end_walks_every_cut(tmp_path: Path) -> None:
    frames = _frames(_varied_lines(300), 100)
    data = b"".join(frames)
    ends = {sum(len(f) for f in frames[:k]) for k in range(len(frames) + 1)}
    skippable = b"\x50\x2a\x4d\x18" + (5).to_bytes(4, "little") + b"12345"
    assert zstd_frames_end(skippable + data) == len(skippable) + len(data)
    for cut in range(0, len(data) + 1, 7):
        end = zstd_frames_end(data[:cut])
        assert end == max(e for e in ends if e <= cut)
