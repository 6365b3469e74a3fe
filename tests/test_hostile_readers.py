"""Issue 11, items 3, 4, 5, 8: crafted files that once crashed, hung or lost lines.

Every bad line is a Problem naming its file and line, every good line still loads; a FIFO or a
device is refused at once; a file that shrinks while it is read is reported, never a SIGBUS;
broken or oversized zstd keeps every line before the break.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import orjson
import pytest
import zstandard
from conftest import SAMPLES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from klipui.cli import main
from klipui.klip.child import ClipError, plan_child
from klipui.session import SessionError, open_session
from klipui.session import jsonl as jsonl_module
from klipui.session.jsonl import read_head, read_jsonl, scan_chunks
from klipui.session.load import exact_info, lower_tolerant, read_info
from klipui.session.model import Event, Record, Session

FAMILY = {
    "claude": SAMPLES / "claude-code" / "ccv_1af7fc5e_tools_error.jsonl",
    "codex": SAMPLES
    / "codex"
    / "ccl_synthetic_rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl",
    "dsh": SAMPLES / "dsh" / "multi-turn.jsonl",
    "pi": SAMPLES / "pi" / "pi_large-session_v1.jsonl",
}
DEEP_OBJECT = b'{"a":' * 2000 + b"1" + b"}" * 2000
DEEP_LIST = b'{"type":"user","x":' + b"[" * 600 + b"]" * 600 + b"}"


def lines_of(path: Path) -> list[bytes]:
    return path.read_bytes().rstrip(b"\n").split(b"\n")


def with_line(tmp_path: Path, family: str, at: int, line: bytes) -> tuple[Path, list[bytes]]:
    """The family's sample with `line` inserted as line `at` (1-based); its original lines."""
    original = lines_of(FAMILY[family])
    lines = [*original[: at - 1], line, *original[at - 1 :]]
    path = tmp_path / f"{family}.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path, original


def assert_only_line_lost(path: Path, original: list[bytes], at: int, words: str) -> Session:
    """The session at `path` loads every line but `at`, which is a Problem saying `words` (and
    gives no event)."""
    session = open_session(path)
    expected = {n if n < at else n + 1 for n in range(1, len(original) + 1)}
    assert {record.line for record in session.records} - {at} == expected
    lowered = {session.records[e.origin].line for e in session.events if e.origin is not None}
    assert at not in lowered
    problems = [p for p in session.problems if p.line == at]
    assert problems and words in problems[0].reason, [str(p) for p in session.problems]
    assert str(problems[0]).startswith(f"{path}:{at}: ")
    return session


@pytest.mark.parametrize("family", sorted(FAMILY))
@pytest.mark.parametrize(
    ("line", "words"),
    [
        (DEEP_OBJECT, "nested too deeply"),
        (b"[" * 5000 + b"]" * 5000, "nested too deeply"),
        (DEEP_LIST, "nested more than 254 levels"),
        (b'{"type":["user"],"message":{}}', "`type` is not a string (an array)"),
        (b'{"type":{"user":1},"seq":3,"data":{}}', "`type` is not a string (an object)"),
        (b'{"type":7}', "`type` is not a string (a number)"),
    ],
    ids=["deep-object", "deep-array", "deep-but-decodable", "type-list", "type-object", "type-num"],
)
def test_a_bad_line_is_a_problem_and_every_other_line_loads(
    tmp_path: Path, family: str, line: bytes, words: str
) -> None:
    for at in (1, 3):  # first (what sniffing sees first) and inside the session
        path, original = with_line(tmp_path, family, at, line)
        session = assert_only_line_lost(path, original, at, words)
        assert session.format == open_session(FAMILY[family]).format
        for info in (read_info(path), exact_info(path)):
            assert info.format == session.format and info.problem is None


@pytest.mark.parametrize(
    "row",
    [
        {"type": "text-chunks", "seq0": 9, "data": [1, 2]},
        {"type": "text-chunks", "seq0": 9, "data": "texts"},
        {"type": "reasoning-chunks", "seq0": 9, "data": 5},
        {"type": "tool-call-chunks", "seq0": "9", "data": {"args": ["{"]}},
        {"type": "text-chunks", "seq0": 9, "data": {"texts": "not a list"}},
    ],
)
def test_a_packed_dsh_row_of_another_shape_is_a_problem(
    tmp_path: Path, row: dict[str, Any]
) -> None:
    path, original = with_line(tmp_path, "dsh", 4, orjson.dumps(row))
    assert_only_line_lost(path, original, 4, f"bad {row['type']} row")
    assert exact_info(path).turns == open_session(FAMILY["dsh"]).turns.__len__()


def test_lowering_skips_the_record_it_cannot_read(tmp_path: Path) -> None:
    """A lowering that fails on one record: that record is a Problem, the others are lowered."""
    calls: list[int] = []

    def lower(path: Path, records: list[Record], problems: list[Any]) -> Session:
        calls.append(len(records))
        events = []
        for record in records:
            if "boom" in record.value:
                raise TypeError("unhashable type: 'list'")
            events.append(Event("user/message", len(events), None, {"n": record.value["n"]}))
        return Session(path=path, format="fake", records=records, events=events, problems=problems)

    module = SimpleNamespace(lower=lower)
    records = [Record(n, 0, 0, {"n": n}) for n in range(1, 41)]
    records[16] = Record(17, 0, 0, {"n": 17, "boom": []})
    records[30] = Record(31, 0, 0, {"n": 31, "boom": []})
    session = lower_tolerant(module, tmp_path / "s.jsonl", records, [])  # type: ignore[arg-type]
    assert [e.data["n"] for e in session.events] == [n for n in range(1, 41) if n not in (17, 31)]
    assert [(p.line, "TypeError" in p.reason) for p in session.problems] == [(17, True), (31, True)]
    assert len(calls) < 40  # found by bisecting, not by lowering every prefix


def test_the_cli_survives_a_deep_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, _ = with_line(tmp_path, "claude", 2, DEEP_OBJECT)
    assert main(["show", str(path)]) == 0
    err = capsys.readouterr().err
    assert f"{path}:2: nested too deeply" in err and "Traceback" not in err
    assert main(["ls", str(tmp_path), "--json"]) == 0
    rows = orjson.loads(capsys.readouterr().out)
    assert [row["format"] for row in rows] == ["claude"]
    code = main(["klip", str(path), "..", "--dry-run", "--include-unfinished"])
    err = capsys.readouterr().err
    assert code in (0, 1) and "Traceback" not in err


# ------------------------------------------------------------------------ item 4: shrinking files

TRUNCATING_READER = """
import os, sys
import klipui.session.jsonl as jsonl
jsonl._BLOCK = 4096
path = sys.argv[1]
original = jsonl.parse_lines
state = {"done": False}
def parse_then_truncate(data, name, **options):
    # During the full read (not the head read), truncate the file being read.
    if not state["done"] and ("first" in options or "release" in options):
        state["done"] = True
        os.truncate(path, 10_000)
    return original(data, name, **options)
jsonl.parse_lines = parse_then_truncate
from klipui.cli import main
sys.exit(main(sys.argv[2:]))
"""


@pytest.mark.parametrize("command", ["show", "ls", "klip"])
def test_a_file_truncated_while_it_is_read_is_reported_not_a_sigbus(
    tmp_path: Path, command: str
) -> None:
    path = tmp_path / "session.jsonl"
    path.write_bytes((SAMPLES / "claude-code" / "ccv_5c0375b4_task_sidechain.jsonl").read_bytes())
    argv = {"show": ["show", str(path)], "ls": ["ls", str(path)]}.get(
        command, ["klip", str(path), "..", "--dry-run", "--include-unfinished"]
    )
    done = subprocess.run(
        [sys.executable, "-c", TRUNCATING_READER, str(path), *argv],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert done.returncode not in (-7, 135), done.stderr  # SIGBUS
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr
    assert path.stat().st_size == 10_000  # the truncation did happen during the read
    if command == "show":
        assert "shrank while it was read" in done.stderr


def test_a_shrunk_file_keeps_its_whole_lines(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(orjson.dumps({"n": n, "pad": "x" * 50}) + b"\n" for n in range(200)))

    class Shrinking:
        """A handle whose file loses its second half after the first read."""

        def __init__(self) -> None:
            self.handle = open(path, "rb")  # noqa: SIM115 - closed by __exit__

        def __enter__(self) -> Shrinking:
            return self

        def __exit__(self, *args: object) -> None:
            self.handle.close()

        def fileno(self) -> int:
            return self.handle.fileno()

        def read(self, size: int = -1) -> bytes:
            data = self.handle.read(size)
            if self.handle.tell() >= 4096 and path.stat().st_size > 8000:
                os.truncate(path, 8000)
            return data

        def seek(self, offset: int) -> int:
            return self.handle.seek(offset)

    original = jsonl_module.open_regular
    try:
        jsonl_module._BLOCK = 4096
        jsonl_module.open_regular = lambda p: Shrinking()  # type: ignore[assignment]
        loaded = read_jsonl(path)
    finally:
        jsonl_module._BLOCK = 8 << 20
        jsonl_module.open_regular = original
    data = path.read_bytes()
    whole = data[: data.rfind(b"\n") + 1].count(b"\n")
    assert [r.value["n"] for r in loaded.records] == list(range(whole))
    assert any("shrank while it was read" in p.reason and p.line == 0 for p in loaded.problems)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.one_of(
            st.dictionaries(st.text(max_size=5), st.integers(-9, 9), max_size=3).map(orjson.dumps),
            st.binary(max_size=30).map(lambda b: b.replace(b"\n", b" ")),
        ),
        max_size=30,
    ),
    st.integers(1, 64),
)
def test_reading_in_blocks_reads_what_one_block_reads(lines: list[bytes], block: int) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "s.jsonl"
        path.write_bytes(b"\n".join(lines))
        whole = read_jsonl(path)
        try:
            jsonl_module._BLOCK = block
            blocks = read_jsonl(path)
        finally:
            jsonl_module._BLOCK = 8 << 20
    assert [(r.line, r.offset, r.length, r.value) for r in blocks.records] == [
        (r.line, r.offset, r.length, r.value) for r in whole.records
    ]
    assert [(p.line, p.reason) for p in blocks.problems] == [
        (p.line, p.reason) for p in whole.problems
    ]


# ------------------------------------------------------------------------------- item 5: zstd


def zstd_of(*parts: bytes) -> bytes:
    compressor = zstandard.ZstdCompressor()
    return b"".join(compressor.compress(part) for part in parts)


def dsh_lines() -> list[bytes]:
    return lines_of(FAMILY["dsh"])


def test_zstd_frames_then_garbage_keep_every_line_before_it(tmp_path: Path) -> None:
    lines = dsh_lines()
    first, second = lines[:20], lines[20:]
    data = zstd_of(b"\n".join(first) + b"\n", b"\n".join(second) + b"\n")
    path = tmp_path / "session.jsonl.zstd"
    path.write_bytes(data + b"garbage that is not a zstd frame\n" * 3)
    loaded = read_jsonl(path)
    assert len(loaded.records) == len(lines)
    assert [(p.line, "not zstd data" in p.reason) for p in loaded.problems] == [
        (len(lines) + 1, True)
    ]
    session = open_session(path)
    assert session.format == "dsh" and len(session.records) == len(lines)
    info = exact_info(path)
    assert info.problem is None and info.turns == len(open_session(FAMILY["dsh"]).turns)
    assert read_info(path).format == "dsh"


def test_a_broken_zstd_frame_keeps_the_frames_before_it(tmp_path: Path) -> None:
    lines = dsh_lines()
    head = zstd_of(b"\n".join(lines[:20]) + b"\n")
    tail = bytearray(zstd_of(b"\n".join(lines[20:]) + b"\n"))
    tail[len(tail) // 2 :] = bytes(len(tail) - len(tail) // 2)  # its blocks zeroed
    path = tmp_path / "session.jsonl.zstd"
    path.write_bytes(head + bytes(tail))
    loaded = read_jsonl(path)
    assert [r.line for r in loaded.records] == list(range(1, 21))
    assert len(loaded.problems) == 1 and loaded.problems[0].line == 21
    assert "zstd" in loaded.problems[0].reason
    assert exact_info(path).format == "dsh"


def test_a_zstd_file_expanding_past_the_cap_is_cut_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    line = orjson.dumps({"type": "note", "text": "a" * 90}) + b"\n"
    path = tmp_path / "bomb.jsonl.zstd"
    path.write_bytes(zstd_of(line * 20_000))  # 2 MB from a few hundred bytes
    assert path.stat().st_size < 2_000
    monkeypatch.setattr(jsonl_module, "MAX_DECOMPRESSED", 100_000)
    loaded = read_jsonl(path)
    whole = 100_000 // len(line)
    assert len(loaded.records) == whole
    assert [p.line for p in loaded.problems] == [whole + 1]
    assert "cut at 100,000 bytes" in loaded.problems[0].reason
    scanned: list[int] = []
    scan_chunks(path, lambda chunk: scanned.append(len(chunk)))
    assert sum(scanned) <= 100_000
    assert len(read_head(path, max_bytes=1000).values) > 0


# --------------------------------------------------------------------- item 8: FIFOs and devices


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    path = tmp_path / "pipe.jsonl"
    os.mkfifo(path)
    return path


def run_cli(*argv: str) -> subprocess.CompletedProcess[str]:
    """The CLI in a child process with a timeout: a hang fails the test, not the suite."""
    return subprocess.run(
        [sys.executable, "-m", "klipui", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "COLUMNS": "200"},
    )


def test_a_fifo_is_refused_at_once(fifo: Path) -> None:
    with pytest.raises(SessionError, match="not a regular file"):
        open_session(fifo)
    assert "FIFO" in str(read_info(fifo).problem)
    assert "FIFO" in str(exact_info(fifo).problem)
    shown = run_cli("show", str(fifo))
    assert shown.returncode == 1 and "not a regular file (a FIFO" in shown.stderr


def test_ls_of_a_folder_with_a_fifo_and_a_dev_zero_link(fifo: Path, tmp_path: Path) -> None:
    zero = tmp_path / "zero.jsonl"
    zero.symlink_to("/dev/zero")
    good = tmp_path / "good.jsonl"
    good.write_bytes(FAMILY["dsh"].read_bytes())
    for quick in ([], ["--quick"]):
        listed = run_cli("ls", str(tmp_path), "--json", *quick)
        assert listed.returncode == 0, listed.stderr
        rows = {Path(row["path"]).name: row for row in orjson.loads(listed.stdout)}
        assert rows["good.jsonl"]["format"] == "dsh"
        assert "not a regular file (a FIFO" in rows["pipe.jsonl"]["problem"]
        assert "character device" in rows["zero.jsonl"]["problem"]
    table = run_cli("ls", str(tmp_path))
    assert table.returncode == 0 and table.stdout.count("⚠") == 2


# ------------------------------------------------------- item 9: a file rewritten after opening


@pytest.mark.parametrize("family", ["pi", "claude", "codex"])
def test_a_file_rewritten_longer_since_read_says_so(tmp_path: Path, family: str) -> None:
    path = tmp_path / FAMILY[family].name
    data = FAMILY[family].read_bytes()
    path.write_bytes(data)
    session = open_session(path)
    path.write_bytes(orjson.dumps({"type": "note", "pad": "y" * 40}) + b"\n" + data)
    with pytest.raises(ClipError, match="changed since it was read") as raised:
        plan_child(session, "..", include_unfinished=True)
    assert "cannot read the records back" not in str(raised.value)


@pytest.mark.parametrize("family", ["pi", "claude", "codex"])
def test_a_file_appended_to_since_read_still_clips(tmp_path: Path, family: str) -> None:
    path = tmp_path / FAMILY[family].name
    data = FAMILY[family].read_bytes()
    path.write_bytes(data)
    session = open_session(path)
    with path.open("ab") as out:  # a live session: new lines after the ones read
        out.write(orjson.dumps({"type": "note", "pad": "y" * 40}) + b"\n")
    plan = plan_child(session, "..", include_unfinished=True)
    assert (
        plan.kept_records == plan_child(FAMILY[family], "..", include_unfinished=True).kept_records
    )


@pytest.mark.parametrize("value", [-1, 7.5, ["a"], {"a": 1}, True])
def test_a_pi_header_whose_cwd_is_not_text_still_gives_figures(tmp_path: Path, value: Any) -> None:
    from klipui.session.load import exact_info, open_session

    lines = (SAMPLES / "pi" / "pi_before-compaction_v1.jsonl").read_bytes().split(b"\n")
    header = orjson.loads(lines[0])
    header["cwd"] = value
    lines[0] = orjson.dumps(header)
    path = tmp_path / "odd-cwd.jsonl"
    path.write_bytes(b"\n".join(lines))
    info = exact_info(path)
    assert info.cwd is None and info.project is None
    assert info.events == len(open_session(path).events) > 0


def test_a_dsh_result_whose_call_id_is_a_list_is_clipped_without_a_crash(tmp_path: Path) -> None:
    from klipui.klip.child import plan_child
    from klipui.session.load import open_session

    lines = (SAMPLES / "dsh" / "navigation-panes.jsonl").read_bytes().split(b"\n")
    changed = 0
    for number, line in enumerate(lines):
        if b'"tool/result"' in line and b'"callId"' in line:
            record = orjson.loads(line)
            record["data"]["callId"] = []
            lines[number] = orjson.dumps(record)
            changed += 1
    assert changed
    path = tmp_path / "list-call-id.jsonl"
    path.write_bytes(b"\n".join(lines))
    session = open_session(path)
    plan = plan_child(session, "..")
    assert plan is not None
