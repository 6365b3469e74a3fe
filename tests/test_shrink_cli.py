"""`klipui shrink` and `klipui spill` as a user meets them: QA regressions (NUL bytes, a failed
spill, independent default limits, a line too long for the budget, exit codes)."""

from __future__ import annotations

import io
import random
import zlib
from pathlib import Path

import pytest
from conftest import CORPUS

from klipui.cli import main
from klipui.cli.shrink import DEFAULT_CHARS, DEFAULT_LINES

PYTEST = CORPUS / "01-pytest-ledger-mixed" / "output.txt"


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))


def _run(
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    data: bytes,
    *args: str,
) -> tuple[int, bytes, str]:
    _stdin(monkeypatch, data)
    code = main(["shrink", *args])
    captured = capsysbinary.readouterr()
    return code, captured.out, captured.err.decode()


def _numbers(count: int) -> bytes:
    return "".join(f"{i}\n" for i in range(1, count + 1)).encode()


# NUL bytes and binary input -----------------------------------------------------------------


def test_a_stray_nul_is_a_character_and_the_text_is_still_shrunk(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    data = b"abc\x00def\n" + _numbers(20_000)
    code, out, err = _run(monkeypatch, capsysbinary, data, "--max-chars", "300", "--no-spill")
    assert code == 0
    assert out.startswith(b"abc\x00def\n1\n2\n")
    assert out.rstrip(b"\n").endswith(b"20000")
    assert b" lines, " in out and len(out.rstrip(b"\n").decode()) <= 300
    assert "1 NUL byte" in err


def test_a_few_nuls_in_a_real_log_are_kept(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    lines = PYTEST.read_bytes().split(b"\n")
    for index in (3, 200, 500):
        lines[index] += b"\x00\x00"
    code, out, err = _run(
        monkeypatch, capsysbinary, b"\n".join(lines), "--max-chars", "4000", "--no-spill"
    )
    assert code == 0 and b"10 failed, 684 passed" in out
    assert "6 NUL bytes" in err


@pytest.mark.parametrize(
    "data",
    [
        random.Random(7).randbytes(5000),
        zlib.compress(PYTEST.read_bytes(), 9),
    ],
    ids=["random", "zlib"],  # UTF-16 text is text: see test_shrink_encoding.py
)
def test_binary_input_exits_1_with_one_line_and_no_output(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes], data: bytes
) -> None:
    code, out, err = _run(monkeypatch, capsysbinary, data, "--no-spill")
    assert code == 1 and out == b""
    assert err.count("\n") == 1 and "binary" in err and err.startswith("klipui: stdin:")


def test_binary_share_probes_start_middle_and_end() -> None:
    from klipui.cli.shrink import binary_share

    text = PYTEST.read_bytes() * 20
    assert binary_share(text) == 0.0
    assert binary_share(b"") == 0.0
    middle = len(text) // 2
    spoiled = text[:middle] + bytes(9000) + text[middle:]
    assert binary_share(spoiled) > 0.05


# a failed spill -----------------------------------------------------------------------------


def test_a_failed_spill_is_reported_on_stderr(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    spill_dir = blocker / "spill"
    args = ["shrink", str(PYTEST), "--spill-dir", str(spill_dir), "--max-chars", "300"]
    assert main(args) == 0
    captured = capsysbinary.readouterr()
    err = captured.err.decode()
    assert "could not be saved" in err and str(spill_dir) in err
    assert "Not a directory" in err or "Errno" in err
    assert b"[full output saved" not in captured.out
    assert "[… ".encode() in captured.out


def test_a_failed_spill_is_in_the_json_record(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    import json

    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    args = ["shrink", str(PYTEST), "--spill-dir", str(blocker / "s"), "--max-chars", "300"]
    assert main([*args, "--json"]) == 0
    record = json.loads(capsysbinary.readouterr().out)
    assert record["locator"] is None and record["spill_error"]


def test_a_working_spill_says_nothing_on_stderr(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    args = ["shrink", str(PYTEST), "--spill-dir", str(tmp_path), "--max-chars", "600"]
    assert main(args) == 0
    captured = capsysbinary.readouterr()
    assert captured.err == b"" and b"[full output saved as spill:" in captured.out


# default limits -----------------------------------------------------------------------------


def test_max_chars_alone_keeps_the_default_line_limit(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    code, out, _ = _run(
        monkeypatch, capsysbinary, _numbers(5_000), "--max-chars", "100000", "--no-spill"
    )
    assert code == 0
    assert out.count(b"\n") == DEFAULT_LINES
    assert "[… ".encode() in out


def test_max_lines_alone_keeps_the_default_char_limit(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    data = b"".join(f"{i:06d} {'x' * 93}\n".encode() for i in range(1_000))  # 100,000 chars
    code, out, _ = _run(monkeypatch, capsysbinary, data, "--max-lines", "0", "--no-spill")
    assert code == 0
    assert len(out.rstrip(b"\n")) <= DEFAULT_CHARS < len(data)


def test_zero_lifts_one_limit_only(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    data = _numbers(5_000)
    code, out, _ = _run(monkeypatch, capsysbinary, data, "--max-lines", "0", "--no-spill")
    assert code == 0 and out == data
    code, out, _ = _run(
        monkeypatch, capsysbinary, data, "--max-chars", "0", "--max-lines", "0", "--no-spill"
    )
    assert code == 0 and out == data


def test_help_names_both_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["shrink", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "default 50,000" in text and "default 2,000" in text


# a line longer than the budget -------------------------------------------------------------


def test_a_line_longer_than_the_budget_explains_itself(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    code, out, err = _run(
        monkeypatch, capsysbinary, b"z" * 10_000 + b"\n", "--max-chars", "500", "--no-spill"
    )
    assert code == 0 and out == "[… 1 line, 10,001 chars]\n".encode()
    assert "longer than the whole budget" in err and "--max-line-chars" in err
    code, out, err = _run(
        monkeypatch,
        capsysbinary,
        b"z" * 10_000 + b"\n",
        "--max-chars",
        "500",
        "--max-line-chars",
        "100",
        "--no-spill",
    )
    assert code == 0 and out.startswith(b"z" * 100 + b" ... +9,900 characters")
    assert err == ""


# spill show exit codes ----------------------------------------------------------------------


def test_spill_show_missing_is_an_error_malformed_is_usage(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    spill = ["spill", "--spill-dir", str(tmp_path), "show"]
    assert main([*spill, "spill:tool-000000000000"]) == 1
    err = capsysbinary.readouterr().err.decode()
    assert "no spill stored" in err and str(tmp_path) in err
    assert main([*spill, "spill:../etc"]) == 2
    assert main([*spill, "not-a-locator"]) == 2
