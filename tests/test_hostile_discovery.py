"""Issue 11: listings that never end on one bad file, never hide a folder they could not read,
and never list a folder once per session."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest
from conftest import SAMPLES

from klipui.cli import main
from klipui.session import discover as discover_module
from klipui.session import open_session
from klipui.session.discover import discover, find_session_files, list_sessions
from klipui.session.formats import claude

DSH = SAMPLES / "dsh" / "multi-turn.jsonl"
CLAUDE = SAMPLES / "claude-code" / "cct_sample_session.jsonl"


def test_a_reader_that_raises_gives_a_row_and_the_listing_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("a", "b", "c"):
        (tmp_path / f"{name}.jsonl").write_bytes(DSH.read_bytes())
    real = discover_module.read_info

    def flaky(path: Path) -> object:
        if path.name == "b.jsonl":
            raise RuntimeError("a bug no one foresaw")
        return real(path)

    monkeypatch.setattr(discover_module, "read_info", flaky)
    infos = {info.path.name: info for info in discover([tmp_path], cache=False)}
    assert infos["a.jsonl"].format == infos["c.jsonl"].format == "dsh"
    assert infos["b.jsonl"].format is None
    assert infos["b.jsonl"].problem == "cannot be read (RuntimeError: a bug no one foresaw)"


def test_the_exact_pass_has_the_catch_all_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    big = tmp_path / "big.jsonl"
    line = orjson.dumps({"type": "user", "message": {"content": "x" * 1000}})
    big.write_bytes(CLAUDE.read_bytes() + (line + b"\n") * 400)  # longer than a head read

    def broken(path: Path) -> object:
        raise MemoryError

    monkeypatch.setattr(discover_module, "exact_info", broken)
    infos = list(discover([tmp_path], cache=False))
    assert not infos[0].exact and infos[0].problem is None
    assert infos[-1].problem == "cannot be read (MemoryError: )"


def test_unreadable_folders_under_the_roots_are_listed(
    sealed_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    projects = sealed_home / ".claude" / "projects"
    readable = projects / "-home-ana-open"
    locked = projects / "-home-ana-locked"
    readable.mkdir(parents=True)
    locked.mkdir()
    (readable / "s1.jsonl").write_bytes(CLAUDE.read_bytes())
    (locked / "s2.jsonl").write_bytes(CLAUDE.read_bytes())
    codex_day = sealed_home / ".codex" / "sessions" / "2026" / "01"
    codex_day.mkdir(parents=True)
    scandir, listdir = os.scandir, os.listdir
    denied = {str(locked), str(codex_day)}

    def deny(call):  # type: ignore[no-untyped-def]
        def guarded(path: object = ".") -> object:
            if os.fspath(path) in denied:  # type: ignore[arg-type]
                raise PermissionError(13, "Permission denied", os.fspath(path))  # type: ignore[arg-type]
            return call(path)

        return guarded

    monkeypatch.setattr(os, "scandir", deny(scandir))
    monkeypatch.setattr(os, "listdir", deny(listdir))
    found = find_session_files()
    assert found == [locked, readable / "s1.jsonl", codex_day]
    assert main(["ls", "--json"]) == 0
    rows = {row["path"]: row for row in orjson.loads(capsys.readouterr().out)}
    assert rows[str(readable / "s1.jsonl")]["format"] == "claude"
    for folder in (locked, codex_day):
        problem = rows[str(folder)]["problem"]
        assert problem == "folder not readable (Permission denied): its sessions are not listed"


def test_an_unreadable_folder_under_a_given_folder_is_listed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inner = tmp_path / "inner"
    inner.mkdir()
    (tmp_path / "s.jsonl").write_bytes(DSH.read_bytes())
    scandir = os.scandir

    def guarded(path: object = ".") -> object:
        if os.fspath(path) == str(inner):  # type: ignore[arg-type]
            raise PermissionError(13, "Permission denied", str(inner))
        return scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", guarded)
    assert find_session_files([tmp_path]) == [tmp_path / "s.jsonl", inner]


def test_default_roots_match_their_patterns_only(sealed_home: Path) -> None:
    projects = sealed_home / ".claude" / "projects" / "-p"
    (projects / "sid" / "subagents").mkdir(parents=True)
    (projects / "s.jsonl").write_bytes(CLAUDE.read_bytes())
    (projects / "sid" / "subagents" / "agent-1.jsonl").write_bytes(CLAUDE.read_bytes())
    (sealed_home / ".claude" / "projects" / "top.jsonl").write_bytes(CLAUDE.read_bytes())
    codex = sealed_home / ".codex" / "sessions" / "2026" / "01" / "02"
    codex.mkdir(parents=True)
    (codex / "rollout-x.jsonl").write_text("{}\n")
    (codex / "other.jsonl").write_text("{}\n")
    dsh = sealed_home / ".dsh" / "sessions" / "key" / "sid"
    dsh.mkdir(parents=True)
    (dsh / "session.jsonl.zstd").write_bytes(b"")
    (dsh / ".session.jsonl.abc.tmp").write_bytes(b"")
    # `sid.jsonl` is gone: its sub-agent's transcript is listed on its own (issue 15)
    assert find_session_files() == [
        projects / "s.jsonl",
        projects / "sid" / "subagents" / "agent-1.jsonl",
        codex / "rollout-x.jsonl",
        dsh / "session.jsonl.zstd",
    ]


def test_a_listing_never_looks_for_sub_agents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Looking for sub-agents lists the session's folder: done per session while listing, that
    made a folder of n sessions cost n² (issue 11); open_session still finds them."""
    for index in range(5):
        (tmp_path / f"s{index}.jsonl").write_bytes(CLAUDE.read_bytes())
    calls: list[Path] = []
    real = claude.subagent_files

    def counted(path: Path, session_id: str | None) -> list[Path]:
        calls.append(path)
        return real(path, session_id)

    monkeypatch.setattr(claude, "subagent_files", counted)
    infos = list_sessions([tmp_path], cache=False)
    assert [info.format for info in infos] == ["claude"] * 5
    assert calls == []
    open_session(tmp_path / "s0.jsonl")
    assert calls == [tmp_path / "s0.jsonl"]
