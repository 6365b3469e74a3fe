"""Finding session files, quick then exact figures, and the info cache."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import orjson
import pytest
from conftest import SAMPLES, sample_files

from klipui.session import discover as discover_module
from klipui.session import open_session, read_info
from klipui.session.discover import (
    InfoCache,
    cache_path,
    default_roots,
    discover,
    find_session_files,
    list_sessions,
)

AGENT_FOLDERS = {"claude-code": "claude", "codex": "codex", "dsh": "dsh", "pi": "pi"}


def copy(source: Path, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, target)
    return target


def test_default_roots_follow_the_environment(sealed_home: Path) -> None:
    roots = {str(root.path) for root in default_roots()}
    assert str(sealed_home / ".claude" / "projects") in roots
    assert str(sealed_home / ".codex" / "sessions") in roots
    assert str(sealed_home / ".codex" / "archived_sessions") in roots
    assert str(sealed_home / ".pi" / "agent" / "sessions") in roots
    assert str(sealed_home / ".dsh" / "sessions") in roots


def test_default_roots_find_each_agent_layout(sealed_home: Path) -> None:
    claude = sample_files("claude-code")[0]
    expected = [
        copy(claude, sealed_home / ".claude/projects/-home-ana-app/1111.jsonl"),
        copy(
            sample_files("codex")[0],
            sealed_home / ".codex/sessions/2026/01/02/rollout-2026-01-02T03-04-05-x.jsonl",
        ),
        copy(sample_files("codex")[1], sealed_home / ".codex/archived_sessions/rollout-old.jsonl"),
        copy(sample_files("pi")[0], sealed_home / ".pi/agent/sessions/--home-ana--/2026_x.jsonl"),
        copy(sample_files("dsh")[0], sealed_home / ".dsh/sessions/--home-ana--/s-1/session.jsonl"),
    ]
    # Not sessions of their own: sub-agent files, indexes, temp files.
    copy(claude, sealed_home / ".claude/projects/-home-ana-app/1111/subagents/agent-a.jsonl")
    copy(claude, sealed_home / ".codex/session_index.jsonl")
    copy(claude, sealed_home / ".claude/projects/-home-ana-app/.1111.jsonl.abc.tmp")
    assert sorted(find_session_files()) == sorted(expected)
    infos = list_sessions()
    assert sorted(i.format or "" for i in infos) == ["claude", "codex", "codex", "dsh", "pi"]


def test_samples_folder_lists_every_file_with_its_agent() -> None:
    infos = list_sessions([SAMPLES], cache=False)
    assert len(infos) == len(sample_files()) == 28
    for info in infos:
        assert info.problem is None, info
        assert info.exact
        assert info.format == AGENT_FOLDERS[info.path.parent.name], info.path
        assert info.turns is not None and info.events is not None and info.events > 0


def test_globs_files_and_missing_paths(tmp_path: Path) -> None:
    files = find_session_files([str(SAMPLES / "dsh" / "multi-*.jsonl"), SAMPLES / "pi"])
    assert [f.name for f in files] == [
        "multi-turn.jsonl",
        "pi_before-compaction_v1.jsonl",
        "pi_large-session_v1.jsonl",
    ]
    odd = copy(sample_files("dsh")[0], tmp_path / "named-oddly.txt")
    assert find_session_files([odd]) == [odd]
    assert find_session_files([str(tmp_path / "*.nothing")]) == []
    with pytest.raises(FileNotFoundError, match=r"missing\.jsonl"):
        find_session_files([tmp_path / "missing.jsonl"])


def test_unreadable_and_foreign_files_are_listed_with_a_problem(tmp_path: Path) -> None:
    (tmp_path / "broken.jsonl").symlink_to(tmp_path / "gone")
    (tmp_path / "notes.jsonl").write_text('{"hello": "world"}\n')
    (tmp_path / "garbage.jsonl").write_bytes(b"\x00\x01 not json\n")
    infos = {i.path.name: i for i in list_sessions([tmp_path], cache=False)}
    assert set(infos) == {"broken.jsonl", "notes.jsonl", "garbage.jsonl"}
    assert infos["broken.jsonl"].problem
    assert infos["notes.jsonl"].format is None and infos["notes.jsonl"].problem
    assert infos["garbage.jsonl"].format is None and infos["garbage.jsonl"].problem


def big_dsh_session(target: Path) -> Path:
    """A dsh sample grown past the head-read bound by repeating its turns' user messages."""
    lines = sample_files("dsh")[0].read_bytes().splitlines()
    filler = b'{"type":"todo/write","seq":%d,"time":1,"data":{"pad":"' + b"x" * 2000 + b'"}}'
    lines += [filler % (len(lines) - 1 + i) for i in range(300)]
    target.write_bytes(b"\n".join(lines) + b"\n")
    return target


def test_quick_first_then_exact_then_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = big_dsh_session(tmp_path / "big.jsonl")
    cache = InfoCache(tmp_path / "cache" / "info.json")
    seen = list(discover([path], cache=cache))
    assert [i.exact for i in seen] == [False, True]
    assert seen[1].events == len(open_session(sample_files("dsh")[0]).events) + 300
    assert seen[0].events is not None and seen[0].events < seen[1].events
    assert seen[1].turns == 1
    assert (tmp_path / "cache" / "info.json").exists()
    assert [p.name for p in (tmp_path / "cache").iterdir()] == ["info.json"]

    def no_reading(path: Path) -> None:
        raise AssertionError("read despite the cache")

    monkeypatch.setattr(discover_module, "read_info", no_reading)
    monkeypatch.setattr(discover_module, "exact_info", no_reading)
    warm = list(discover([path], cache=InfoCache(tmp_path / "cache" / "info.json")))
    assert warm == [seen[1]]

    monkeypatch.undo()
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    again = list(discover([path], cache=InfoCache(tmp_path / "cache" / "info.json")))
    assert [i.exact for i in again] == [False, True]


def test_default_cache_lives_in_the_user_cache_dir(sealed_home: Path) -> None:
    list(discover([SAMPLES / "dsh"]))
    assert cache_path().is_relative_to(sealed_home)
    assert cache_path().exists()


def test_progress_is_reported(tmp_path: Path) -> None:
    calls: list[tuple[int, int]] = []
    infos = list(
        discover([SAMPLES / "dsh"], cache=False, on_progress=lambda d, t: calls.append((d, t)))
    )
    assert len(calls) == len(infos)
    assert calls[-1][0] == calls[-1][1]


def test_first_line_longer_than_the_head_still_gives_an_info(tmp_path: Path) -> None:
    lines = sample_files("dsh")[0].read_bytes().splitlines()
    header = orjson.loads(lines[0])
    header["agentPreset"] = {"notes": "n" * 5_000_000}
    path = tmp_path / "long-header.jsonl"
    path.write_bytes(b"\n".join([orjson.dumps(header), *lines[1:]]) + b"\n")
    info = read_info(path)
    assert info.format == "dsh" and info.exact and info.problem is None
    assert info.turns == len(open_session(path).turns)


def test_cache_forgets_deleted_files(tmp_path: Path) -> None:
    first = copy(sample_files("dsh")[0], tmp_path / "a.jsonl")
    second = copy(sample_files("dsh")[1], tmp_path / "b.jsonl")
    cache_file = tmp_path / "cache.json"
    list(discover([first, second], cache=InfoCache(cache_file)))
    assert len(orjson.loads(cache_file.read_bytes())["entries"]) == 2
    second.unlink()
    copy(sample_files("dsh")[2], tmp_path / "c.jsonl")
    list(discover([tmp_path / "c.jsonl"], cache=InfoCache(cache_file)))
    entries = orjson.loads(cache_file.read_bytes())["entries"]
    assert sorted(Path(k).name for k in entries) == ["a.jsonl", "c.jsonl"]
