"""The archive: incremental zstd copies (new, append, rewrite, delete, dry run), sources never
touched, companions kept, archived sessions listed once (the newer wins)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from klipui.archive import ArchiveBusy, find_sources, run_archive
from klipui.archive.layout import MANIFEST
from klipui.archive.run import LOCK
from klipui.session import open_session
from klipui.session.discover import discover, find_session_files
from klipui.session.spilled import SpillRef, load_original

SAMPLES = Path(__file__).resolve().parent / "fixtures" / "samples"
CLAUDE_SAMPLE = SAMPLES / "claude-code" / "ccv_5c0375b4_task_sidechain.jsonl"
SUBAGENT_SAMPLE = SAMPLES / "claude-code" / "ccl_subagents_agent-showcol1.jsonl"
CODEX_SAMPLE = SAMPLES / "codex" / "ccusage_codex_tokens_alpha.jsonl"
PI_SAMPLE = SAMPLES / "pi" / "pi_large-session_v1.jsonl"
DSH_SAMPLE = SAMPLES / "dsh" / "multi-turn.jsonl"
SESSION_ID = "5c0375b4-57a5-4f26-b12d-d022ee4e51b7"


def _agents(home: Path) -> dict[str, Path]:
    """Agent folders with one real session each (and Claude companions); the paths by name."""
    project = home / ".claude" / "projects" / "-home-me-app"
    (project / SESSION_ID / "subagents").mkdir(parents=True)
    (project / SESSION_ID / "tool-results").mkdir()
    claude = project / f"{SESSION_ID}.jsonl"
    shutil.copyfile(CLAUDE_SAMPLE, claude)
    shutil.copyfile(SUBAGENT_SAMPLE, project / SESSION_ID / "subagents" / "agent-showcol1.jsonl")
    (project / SESSION_ID / "tool-results" / "toolu_01.txt").write_text("line 1\nline 2\n")
    codex = (
        home / ".codex" / "sessions" / "2026" / "05" / "13" / "rollout-2026-05-13T09-00-00-a.jsonl"
    )
    codex.parent.mkdir(parents=True)
    shutil.copyfile(CODEX_SAMPLE, codex)
    pi = home / ".pi" / "agent" / "sessions" / "--home-me-app--" / "2025-11-20_x.jsonl"
    pi.parent.mkdir(parents=True)
    shutil.copyfile(PI_SAMPLE, pi)
    dsh = home / ".dsh" / "sessions" / "--home-me-app--" / "abc" / "session.jsonl"
    dsh.parent.mkdir(parents=True)
    shutil.copyfile(DSH_SAMPLE, dsh)
    return {"claude": claude, "codex": codex, "pi": pi, "dsh": dsh, "project": project}


def _snapshot(*folders: Path) -> dict[str, tuple[str, int, int]]:
    """(sha256, size, mtime_ns) of every file under `folders`, and each folder's mtime."""
    out: dict[str, tuple[str, int, int]] = {}
    for folder in folders:
        for directory, _, files in os.walk(folder):
            out[directory] = ("dir", 0, os.stat(directory).st_mtime_ns)
            for name in files:
                path = os.path.join(directory, name)
                info = os.lstat(path)
                digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
                out[path] = (digest, info.st_size, info.st_mtime_ns)
    return out


def _unpacked(path: Path) -> bytes:
    """The decompressed content of an archive file (every frame)."""
    reader = zstandard.ZstdDecompressor().stream_reader(path.read_bytes(), read_across_frames=True)
    return reader.read()


def _frames(path: Path) -> int:
    data = path.read_bytes()
    return data.count(b"\x28\xb5\x2f\xfd")


def _copy(archive: Path, source: Path, home: Path) -> Path:
    """The archive file of a source under the sealed home's agent folders."""
    manifest = json.loads((archive / MANIFEST).read_bytes())
    for key, entry in manifest["entries"].items():
        if entry["source"] == str(source):
            return archive / key
    raise AssertionError(f"{source} not in the archive")


@pytest.fixture()
def agents(sealed_home: Path) -> dict[str, Path]:
    return _agents(sealed_home)


def test_first_run_copies_everything_compressed_and_second_run_nothing(
    agents: dict[str, Path], sealed_home: Path, tmp_path: Path
) -> None:
    archive = tmp_path / "archive"
    report = run_archive(archive)
    assert report.states["new"] == 6  # 4 sessions, a sub-agent file, a tool result
    assert report.sessions["new"] == 4  # the sub-agent file is kept as a companion
    for name in ("claude", "codex", "pi", "dsh"):
        copy = _copy(archive, agents[name], sealed_home)
        assert copy.read_bytes()[:4] == b"\x28\xb5\x2f\xfd"
        assert _unpacked(copy) == agents[name].read_bytes()
    assert report.written < report.new_bytes
    assert not report.at_risk
    again = run_archive(archive)
    assert again.states == {"unchanged": 6}
    assert again.written == 0


def test_append_stores_only_the_new_bytes_as_one_more_frame(
    agents: dict[str, Path], sealed_home: Path, tmp_path: Path
) -> None:
    archive = tmp_path / "archive"
    run_archive(archive)
    copy = _copy(archive, agents["pi"], sealed_home)
    before = copy.stat().st_size
    extra = b'{"type":"message","message":{"role":"user","content":"more"}}\n'
    with agents["pi"].open("ab") as out:
        out.write(extra)
    report = run_archive(archive)
    assert report.states["grown"] == 1
    assert report.new_bytes == len(extra)
    assert copy.stat().st_size - before == report.written < 200
    assert _frames(copy) == 2
    assert _unpacked(copy) == agents["pi"].read_bytes()


def test_rewrite_replaces_the_copy_whole(
    agents: dict[str, Path], sealed_home: Path, tmp_path: Path
) -> None:
    archive = tmp_path / "archive"
    run_archive(archive)
    copy = _copy(archive, agents["dsh"], sealed_home)
    lines = agents["dsh"].read_bytes().splitlines(keepends=True)
    agents["dsh"].write_bytes(b"".join(lines[:10]) + b'{"type":"changed"}\n' + b"".join(lines[10:]))
    report = run_archive(archive)
    assert report.states["rewritten"] == 1
    assert _frames(copy) == 1
    assert _unpacked(copy) == agents["dsh"].read_bytes()
    agents["dsh"].write_bytes(b"".join(lines[:5]))  # shorter: a rewrite too
    assert run_archive(archive).states["rewritten"] == 1
    assert _unpacked(copy) == b"".join(lines[:5])


def test_deleted_session_stays_in_the_archive_and_is_listed_from_it(
    agents: dict[str, Path], sealed_home: Path
) -> None:
    report = run_archive()
    archive = report.archive
    assert archive == sealed_home / ".local" / "share" / "klipui" / "archive"
    copy = _copy(archive, agents["claude"], sealed_home)
    listed = find_session_files()
    assert agents["claude"] in listed and copy not in listed
    agents["claude"].unlink()
    listed = find_session_files()
    assert copy in listed and agents["claude"] not in listed
    infos = {info.path: info for info in discover(cache=False)}
    assert infos[copy].archived and infos[copy].format == "claude"
    assert not infos[agents["pi"]].archived
    after = run_archive()
    assert str(agents["claude"]) in after.gone
    assert after.states["failed"] == 0
    assert copy.is_file()


def test_newer_wins_and_no_row_twice(agents: dict[str, Path], sealed_home: Path) -> None:
    archive = run_archive().archive
    copy = _copy(archive, agents["codex"], sealed_home)
    assert find_session_files().count(agents["codex"]) == 1
    assert copy not in find_session_files()
    # the original put back from an older state: the copy is the newer
    old = agents["codex"].stat().st_mtime - 86400
    os.utime(agents["codex"], (old, old))
    listed = find_session_files()
    assert copy in listed and agents["codex"] not in listed
    # the agent writes again: the original is the newer
    with agents["codex"].open("ab") as out:
        out.write(b'{"timestamp":"2026-05-15T00:00:00Z","type":"event_msg","payload":{}}\n')
    listed = find_session_files()
    assert agents["codex"] in listed and copy not in listed
    assert find_session_files(archive=False).count(copy) == 0


def test_dry_run_writes_nothing_and_says_what_is_at_risk(
    agents: dict[str, Path], tmp_path: Path
) -> None:
    archive = tmp_path / "archive"
    report = run_archive(archive, dry_run=True)
    assert not archive.exists()
    assert report.states["new"] == 6 and report.written == 0
    assert len(report.at_risk) == 6
    assert report.at_risk_bytes == sum(s.path.stat().st_size for s in find_sources())
    run_archive(archive)
    with agents["pi"].open("ab") as out:
        out.write(b"{}\n")
    before = _snapshot(archive)
    dry = run_archive(archive, dry_run=True)
    assert dry.states["grown"] == 1 and dry.at_risk == [agents["pi"]]
    assert _snapshot(archive) == before


def test_sources_are_never_changed(
    agents: dict[str, Path], sealed_home: Path, tmp_path: Path
) -> None:
    roots = [
        sealed_home / ".claude",
        sealed_home / ".codex",
        sealed_home / ".pi",
        sealed_home / ".dsh",
    ]
    archive = tmp_path / "archive"
    before = _snapshot(*roots)
    run_archive(archive)
    run_archive(archive)
    assert _snapshot(*roots) == before
    with agents["pi"].open("ab") as out:
        out.write(b"{}\n")
    agents["dsh"].write_bytes(b'{"type":"x"}\n')
    before = _snapshot(*roots)
    report = run_archive(archive)
    assert report.states["grown"] == 1 and report.states["rewritten"] == 1
    assert _snapshot(*roots) == before


def test_companions_are_kept_and_read_back_from_the_archive(
    agents: dict[str, Path], sealed_home: Path, tmp_path: Path
) -> None:
    archive = run_archive().archive
    agents["claude"].unlink()
    shutil.rmtree(agents["project"] / SESSION_ID)
    copy = archive / "claude" / "projects" / "-home-me-app" / f"{SESSION_ID}.jsonl"
    session = open_session(copy)
    assert session.format == "claude" and session.compression == "zstd"
    assert [p.name for p in session.subagents] == ["agent-showcol1.jsonl"]
    result = copy.parent / SESSION_ID / "tool-results" / "toolu_01.txt"
    original = load_original(SpillRef("claude", str(result), result), session_path=copy)
    assert original.text == "line 1\nline 2\n"


def test_links_out_of_the_agents_folders_are_not_followed(
    agents: dict[str, Path], sealed_home: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("not an agent's file\n")
    results = agents["project"] / SESSION_ID / "tool-results"
    (results / "toolu_link.txt").symlink_to(secret)
    (agents["project"] / SESSION_ID / "elsewhere").symlink_to(tmp_path, target_is_directory=True)
    (agents["project"] / "linked.jsonl").symlink_to(secret)
    archive = tmp_path / "archive"
    run_archive(archive)
    kept = [p.name for p in archive.rglob("*") if p.is_file()]
    assert "toolu_01.txt" in kept
    assert "toolu_link.txt" not in kept and "linked.jsonl" not in kept
    assert "secret.txt" not in kept


def test_an_append_cut_short_is_redone(
    agents: dict[str, Path], sealed_home: Path, tmp_path: Path
) -> None:
    archive = tmp_path / "archive"
    run_archive(archive)
    copy = _copy(archive, agents["dsh"], sealed_home)
    with copy.open("ab") as out:  # half a frame left by a run that died
        out.write(b"\x28\xb5\x2f\xfd\x00garbage")
    with agents["dsh"].open("ab") as out:
        out.write(b'{"type":"late"}\n')
    assert run_archive(archive).states["grown"] == 1
    assert _unpacked(copy) == agents["dsh"].read_bytes()


def test_a_zstd_source_is_kept_as_it_is(sealed_home: Path, tmp_path: Path) -> None:
    folder = sealed_home / ".dsh" / "sessions" / "--p--" / "s1"
    folder.mkdir(parents=True)
    source = folder / "session.jsonl.zstd"
    first = zstandard.ZstdCompressor().compress(DSH_SAMPLE.read_bytes())
    source.write_bytes(first)
    archive = tmp_path / "archive"
    run_archive(archive)
    copy = archive / "dsh" / "sessions" / "--p--" / "s1" / "session.jsonl.zstd"
    assert copy.read_bytes() == first
    more = zstandard.ZstdCompressor().compress(b'{"type":"turn/start"}\n')
    with source.open("ab") as out:
        out.write(more)
    assert run_archive(archive).states["grown"] == 1
    assert copy.read_bytes() == first + more


def test_agents_filter_and_lock(agents: dict[str, Path], tmp_path: Path) -> None:
    archive = tmp_path / "archive"
    report = run_archive(archive, agents=["pi"])
    assert report.states == {"new": 1}
    import fcntl

    fd = os.open(archive / LOCK, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(ArchiveBusy):
            run_archive(archive)
    finally:
        os.close(fd)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    steps=st.lists(
        st.tuples(st.sampled_from(["append", "rewrite", "same", "touch"]), st.binary(max_size=300)),
        min_size=1,
        max_size=6,
    )
)
def test_the_copy_always_holds_the_source(
    sealed_home: Path, tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, bytes]]
) -> None:
    base = tmp_path_factory.mktemp("prop")
    folder = sealed_home / ".pi" / "agent" / "sessions" / f"--{base.name}--"
    folder.mkdir(parents=True)
    source = folder / "s.jsonl"
    source.write_bytes(b'{"type":"session"}\n')
    archive = base / "archive"
    for action, data in steps:
        if action == "append":
            with source.open("ab") as out:
                out.write(data)
        elif action == "rewrite":
            source.write_bytes(data[::-1] + b"\n")
        elif action == "touch":
            os.utime(source, None)
        run_archive(archive, agents=["pi"])
        copy = archive / "pi" / "sessions" / folder.name / "s.jsonl"
        assert _unpacked(copy) == source.read_bytes()


def test_companions_are_not_rows_but_a_session_written_in_the_archive_is(
    agents: dict[str, Path], sealed_home: Path
) -> None:
    archive = run_archive().archive
    agents["claude"].unlink()
    shutil.rmtree(agents["project"] / SESSION_ID)
    listed = find_session_files()
    names = [path.name for path in listed]
    assert f"{SESSION_ID}.jsonl" in names
    assert "agent-showcol1.jsonl" not in names  # listed under its session, not on its own
    # a clip of an archived session is written beside it, in the archive: listed too
    copy = archive / "claude" / "projects" / "-home-me-app" / f"{SESSION_ID}.jsonl"
    child = copy.with_name("child.jsonl")
    child.write_bytes(CLAUDE_SAMPLE.read_bytes())
    listed = find_session_files()
    assert child in listed and copy in listed
    assert len(listed) == len(set(listed))


def test_a_damaged_manifest_never_ends_a_listing(agents: dict[str, Path]) -> None:
    archive = run_archive().archive
    (archive / MANIFEST).write_bytes(b"{not json")
    listed = find_session_files()
    assert agents["pi"] in listed and len(listed) == 4  # no copy beside its original
    agents["pi"].unlink()
    assert any(
        path.name == agents["pi"].name and path != agents["pi"] for path in find_session_files()
    )
    report = run_archive()
    assert report.problems and "manifest" in report.problems[0]
    assert report.states["new"] == 5  # copied anew, the manifest rewritten
    assert json.loads((archive / MANIFEST).read_bytes())["version"] == 1


def test_a_session_its_agent_moved_is_not_listed_twice(
    agents: dict[str, Path], sealed_home: Path
) -> None:
    run_archive()
    moved = sealed_home / ".codex" / "archived_sessions" / agents["codex"].name
    moved.parent.mkdir(parents=True)
    os.rename(agents["codex"], moved)  # what Codex does when a thread is archived
    listed = find_session_files()
    assert [path.name for path in listed].count(moved.name) == 1
    assert moved in listed
    run_archive()  # kept again under its new place: still one row
    listed = find_session_files()
    assert [path.name for path in listed].count(moved.name) == 1
