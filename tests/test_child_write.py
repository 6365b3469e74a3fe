"""`klip.child.write_file` writes each child through one temp file that already has its mode."""

from __future__ import annotations

from pathlib import Path

import pytest

from klipui.klip.child import write_file
from klipui.session import jsonl


@pytest.mark.parametrize("mode", [None, 0o640])
@pytest.mark.parametrize("compression", [None, "zstd"])
def test_one_temp_file_linked_once_with_the_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: int | None, compression: str | None
) -> None:
    created: list[Path] = []
    linked: list[tuple[Path, Path]] = []
    real_create, real_link = jsonl._create_temp, jsonl._link_into_place

    def create(folder: Path, name: str) -> tuple[int, Path]:
        handle, temp = real_create(folder, name)
        created.append(temp)
        return handle, temp

    def link(temp: Path, path: Path) -> None:
        if mode is not None:
            assert temp.stat().st_mode & 0o7777 == mode
        linked.append((temp, path))
        real_link(temp, path)

    monkeypatch.setattr(jsonl, "_create_temp", create)
    monkeypatch.setattr(jsonl, "_link_into_place", link)
    target = tmp_path / "child.jsonl"
    write_file(target, [b'{"a": 1}', b'{"b": 2}'], compression=compression, mode=mode)
    assert len(created) == 1 and linked == [(created[0], target)]
    assert [p.name for p in tmp_path.iterdir()] == ["child.jsonl"]
    assert [r.value for r in jsonl.read_jsonl(target).records] == [{"a": 1}, {"b": 2}]
    if mode is not None:
        assert target.stat().st_mode & 0o7777 == mode
    with pytest.raises(FileExistsError):
        write_file(target, [b"{}"], compression=compression, mode=mode)
