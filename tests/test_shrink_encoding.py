"""Issue 11, item 9: `klipui shrink` on UTF-16 text (decoded, not called binary) and on an input
that never ends (a one-line error, not a MemoryError)."""

from __future__ import annotations

import io
import os
import random
from pathlib import Path

import pytest
from conftest import CORPUS
from hypothesis import given
from hypothesis import strategies as st

from klipui.cli import main
from klipui.cli import shrink as shrink_cli
from klipui.shrink.encoding import decode_wide, wide_encoding

PYTEST = CORPUS / "01-pytest-ledger-mixed" / "output.txt"


@pytest.mark.parametrize(
    ("encoding", "expected"),
    [
        ("utf-16", "utf-16"),  # with a byte order mark
        ("utf-16-le", "utf-16-le"),
        ("utf-16-be", "utf-16-be"),
        ("utf-32", "utf-32"),
    ],
)
def test_wide_text_is_recognised_and_decoded(encoding: str, expected: str) -> None:
    text = PYTEST.read_text()
    data = text.encode(encoding)
    assert wide_encoding(data) == expected
    assert decode_wide(data, expected) == text


def test_utf8_and_binary_are_not_wide() -> None:
    assert wide_encoding(PYTEST.read_bytes()) is None
    assert wide_encoding(random.Random(1).randbytes(10_000)) is None
    assert wide_encoding(b"") is None


@given(st.text(alphabet=st.characters(max_codepoint=0x2FF), min_size=8))
def test_latin_text_in_utf16_le_is_recognised(text: str) -> None:
    data = text.encode("utf-16-le")
    found = wide_encoding(data)
    if found is not None:
        assert decode_wide(data, found) == text
    if sum(ord(c) < 256 for c in text) / len(text) > 0.95 and text.count("\0") == 0:
        assert found == "utf-16-le"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_shrink_a_utf16_file(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes], encoding: str
) -> None:
    path = tmp_path / "out.txt"
    path.write_bytes(PYTEST.read_text().encode(encoding))
    code = main(["shrink", str(path), "--max-chars", "3000", "--no-spill"])
    captured = capsysbinary.readouterr()
    assert code == 0, captured.err
    assert b"binary" not in captured.err
    out = captured.out.decode("utf-8")
    assert "passed" in out or "failed" in out
    assert len(out) <= 3000 + 1


def test_shrink_of_an_endless_device_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    monkeypatch.setattr(shrink_cli, "MAX_INPUT", 3 << 20)
    code = main(["shrink", "/dev/zero", "--no-spill"])
    err = capsys.readouterr().err
    assert code == 1  # unreadable input is exit 1, like a missing file
    assert (
        err
        == "klipui: /dev/zero: more than 3,145,728 bytes: too large to read (an endless device?)\n"
    )


def test_shrink_of_endless_stdin_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(shrink_cli, "MAX_INPUT", 1000)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"y\n" * 600)))
    assert main(["shrink", "--no-spill"]) == 2
    assert "stdin: more than 1,000 bytes" in capsys.readouterr().err
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"y\n" * 500)))
    assert main(["shrink", "--no-spill"]) == 0


def test_utf16_le_without_a_byte_order_mark_is_shrunk_as_text(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    data = "UTF-16 text is not UTF-8\n".encode("utf-16-le") * 200
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main(["shrink", "--no-spill", "--max-lines", "20"]) == 0
    out = capsysbinary.readouterr().out.decode("utf-8")
    assert out.startswith("UTF-16 text is not UTF-8\n") and out.count("\n") <= 20
