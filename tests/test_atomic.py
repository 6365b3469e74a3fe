"""`replace_atomic`: the whole new content or the old file, never half, and nothing left over."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from klipui.session.atomic import replace_atomic


def test_replaces_keeping_the_permission_bits(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    target.write_bytes(b"old")
    target.chmod(0o640)
    assert replace_atomic(target, [b"new ", b"content"]) == 11
    assert target.read_bytes() == b"new content"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert os.listdir(tmp_path) == ["settings.json"]


def test_a_new_file_is_private_and_its_folder_made(tmp_path: Path) -> None:
    target = tmp_path / "cache" / "info.json"
    replace_atomic(target, [b"{}"], durable=True)
    assert target.read_bytes() == b"{}"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_a_failure_midway_leaves_the_old_file_and_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "archive.zst"
    target.write_bytes(b"old")

    def pieces() -> Iterator[bytes]:
        yield b"half"
        raise RuntimeError("disk went away")

    with pytest.raises(RuntimeError):
        replace_atomic(target, pieces())
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["archive.zst"]
