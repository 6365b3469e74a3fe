"""The spill store: locators, byte-for-byte originals, permissions, pruning, failures."""

from __future__ import annotations

import hashlib
import os
import stat
import time
from pathlib import Path

import pytest
from conftest import CORPUS

from klipui.shrink import Budget, FileSpillStore, Hint, SpillError, shrink
from klipui.shrink.spill import default_spill_dir, locator_for, parse_locator


def test_locator_is_tool_and_sha256_prefix() -> None:
    text = (CORPUS / "01-pytest-ledger-mixed" / "output.txt").read_text(encoding="utf-8")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]
    assert locator_for(text, "bash") == f"spill:bash-{digest}"
    assert locator_for(text, None) == f"spill:tool-{digest}"
    assert locator_for(text, "my tool/../x") == f"spill:my_tool____x-{digest}"


def test_save_and_load_byte_for_byte(tmp_path: Path) -> None:
    store = FileSpillStore(tmp_path / "spill")
    raw = b"caf\xc3\xa9\r\nbad \xff\xfe bytes\r\nlast"
    text = raw.decode("utf-8", "surrogateescape")
    locator = store.save(text, "bash")
    assert store.load_bytes(locator) == raw
    assert store.load(locator) == text
    assert store.path_for(locator).read_bytes() == raw


def test_same_text_same_file(tmp_path: Path) -> None:
    store = FileSpillStore(tmp_path)
    assert store.save("x\n" * 10, "bash") == store.save("x\n" * 10, "bash")
    assert len(list(tmp_path.glob("*.txt"))) == 1


def test_permissions(tmp_path: Path) -> None:
    folder = tmp_path / "deep" / "spill"
    store = FileSpillStore(folder)
    locator = store.save("secret\n", "bash")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(store.path_for(locator).stat().st_mode) == 0o600


@pytest.mark.parametrize(
    "locator", ["spill:../etc/passwd", "spill:a/b", "spill:", "bash-123", "spill:a b", "spill:.."]
)
def test_bad_locators_are_rejected(tmp_path: Path, locator: str) -> None:
    store = FileSpillStore(tmp_path)
    with pytest.raises(SpillError, match="bad spill locator"):
        store.load(locator)
    with pytest.raises(SpillError):
        parse_locator(locator)


def test_missing_locator(tmp_path: Path) -> None:
    with pytest.raises(SpillError, match="no spill stored"):
        FileSpillStore(tmp_path).load("spill:bash-000000000000")


def test_old_files_are_pruned_on_save(tmp_path: Path) -> None:
    store = FileSpillStore(tmp_path, max_age=3600)
    old = store.save("old\n", "bash")
    two_hours_ago = time.time() - 7200
    os.utime(store.path_for(old), (two_hours_ago, two_hours_ago))
    recent = store.save("recent\n", "bash")
    assert not store.path_for(old).exists()
    assert store.load(recent) == "recent\n"
    assert [e.locator for e in store.entries()] == [recent]


def test_default_dir_is_under_user_data(sealed_home: Path) -> None:
    assert default_spill_dir() == sealed_home / ".local" / "share" / "klipui" / "spill"


def _big() -> str:
    return "".join(f"line {i} of a long run\n" for i in range(5000))


def test_shrink_spills_before_cutting_and_footer_fits(tmp_path: Path) -> None:
    store = FileSpillStore(tmp_path)
    text = _big()
    out = shrink(text, Hint(tool="bash"), Budget(max_chars=2000), spill=store)
    assert out.reduced and out.locator
    assert len(out.content) <= 2000
    assert out.content.splitlines()[-1].startswith(f"[full output saved as {out.locator}: ")
    assert store.load(out.locator) == text
    assert f"full original at {out.locator}" in out.note


def test_unwritable_spill_keeps_the_shrunk_result(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    store = FileSpillStore(blocker / "spill")
    text = _big()
    out = shrink(text, Hint(tool="bash"), Budget(max_chars=2000), spill=store)
    assert out.reduced and out.locator is None
    assert "could not be saved" in out.note
    assert "[full output saved" not in out.content
    assert len(out.content) <= 2000


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores folder permissions")
def test_read_only_folder(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir(mode=0o500)
    try:
        out = shrink(
            _big(), Hint(tool="bash"), Budget(max_chars=2000), spill=FileSpillStore(folder)
        )
        assert out.reduced and out.locator is None and "could not be saved" in out.note
    finally:
        folder.chmod(0o700)


def test_read_only_file_system_simulated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write error (disk full, read-only mount) while saving degrades the same way."""
    import klipui.shrink.spill as spill_module

    def fail(*args: object, **kwargs: object) -> None:
        raise OSError(30, "Read-only file system")

    monkeypatch.setattr(spill_module.tempfile, "mkstemp", fail)
    out = shrink(_big(), Hint(tool="bash"), Budget(max_chars=2000), spill=FileSpillStore(tmp_path))
    assert out.reduced and out.locator is None
    assert "Read-only file system" in out.note
    assert not list(tmp_path.glob("*.txt"))
