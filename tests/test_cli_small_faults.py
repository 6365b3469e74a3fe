"""The small CLI faults of issue 11 item 9: dry runs write nothing, `-o` names and folders, globs,
the spill folder's permissions, mistyped subcommands and the exit status of a missing file."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest
from conftest import SAMPLES

from klipui.app import resolve_sources
from klipui.cli import InputError, command_names, main, unknown_command
from klipui.shrink.hook import HookConfig, ToolResult, on_tool_result
from klipui.shrink.spill import FileSpillStore

SPILLY = SAMPLES / "dsh" / "bash-spill.jsonl"  # one 800-character bash result
PI = SAMPLES / "pi" / "pi_before-compaction_v1.jsonl"
LONG_NAME = "a" * 260


def copy_of(sample: Path, folder: Path) -> Path:
    target = folder / sample.name
    shutil.copyfile(sample, target)
    return target


def listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_compact_dry_run_writes_no_spill_and_no_child(tmp_path, capsys):
    parent = copy_of(SPILLY, tmp_path)
    spill = tmp_path / "spill"
    before = listing(tmp_path)
    args = ["compact", str(parent), "--max-chars", "100", "--spill-dir", str(spill)]
    assert main([*args, "--dry-run"]) == 0
    dry = capsys.readouterr().out
    assert "would write" in dry and "spill:bash-" in dry
    assert listing(tmp_path) == before  # nothing written, not even the spill folder
    locator = dry.split("spill:bash-")[1].split()[0]
    assert main(args) == 0  # the real run stores the original under the locator shown
    assert (spill / f"bash-{locator}.txt").is_file()


@pytest.mark.parametrize(
    "command",
    [
        ["klip", "{parent}", "..", "-o", "{out}.jsonl"],
        ["compact", "{parent}", "--max-chars", "100", "-o", "{out}.jsonl"],
        ["export", "{parent}", "--as", "openai", "-o", "{out}.json"],
    ],
)
def test_an_output_name_too_long_is_a_one_line_error(tmp_path, capsys, command):
    parent = copy_of(SPILLY, tmp_path)
    out = str(tmp_path / LONG_NAME)
    spill = ["--spill-dir", str(tmp_path / "spill")] if command[0] == "compact" else []
    assert main([a.format(parent=parent, out=out) for a in command] + spill) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "File name too long" in err and "Traceback" not in err
    assert listing(tmp_path) == [parent.name]


@pytest.mark.parametrize(
    ("command", "suffix"),
    [
        (["klip", "{parent}", ".."], ""),
        (["compact", "{parent}", "--max-chars", "100"], ""),
        (["export", "{parent}", "--as", "openai"], "out.json"),
    ],
)
@pytest.mark.parametrize("shape", ["folder/", "file"])
def test_a_missing_output_folder_is_refused_unless_parents(
    tmp_path, capsys, command, suffix, shape
):
    parent = copy_of(SPILLY, tmp_path)
    target = tmp_path / "new" / "dir"
    out = f"{target}/{suffix}" if shape == "folder/" else str(target / (suffix or "child.jsonl"))
    args = [a.format(parent=parent) for a in command] + ["-o", out]
    if command[0] == "compact":
        args += ["--spill-dir", str(tmp_path / "new" / "spill")]
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "no such folder" in err and "--parents" in err and err.count("\n") == 1
    assert not (tmp_path / "new").exists()
    assert main([*args, "--parents"]) == 0
    written = [p for p in target.iterdir()]
    assert len(written) == 1 and written[0].stat().st_size > 0


def test_absolute_and_home_globs_open_in_the_app(tmp_path, monkeypatch):
    for sample in (PI, SPILLY):
        copy_of(sample, tmp_path)
    monkeypatch.chdir("/")
    found = resolve_sources([f"{tmp_path}/*.jsonl"], demo=False).paths
    assert sorted(p.name for p in found) == sorted([PI.name, SPILLY.name])
    monkeypatch.setenv("HOME", str(tmp_path))
    assert [p.name for p in resolve_sources(["~/pi_*.jsonl"], demo=False).paths] == [PI.name]
    with pytest.raises(InputError, match="no such file or folder"):
        resolve_sources([f"{tmp_path}/*.nothing"], demo=False)


def test_an_existing_open_spill_folder_is_made_private(tmp_path):
    folder = tmp_path / "spill"
    folder.mkdir()
    folder.chmod(0o755)
    FileSpillStore(folder).save("original", "bash")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_a_symlinked_or_foreign_spill_folder_is_refused(tmp_path, monkeypatch):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    elsewhere.chmod(0o755)
    link = tmp_path / "spill"
    link.symlink_to(elsewhere)
    with pytest.raises(OSError, match="symbolic link"):
        FileSpillStore(link).save("original", "bash")
    assert list(elsewhere.iterdir()) == []
    assert stat.S_IMODE(elsewhere.stat().st_mode) == 0o755
    # The hook still answers: shrunk, without an original, nothing written through the link.
    out = on_tool_result(
        ToolResult("line\n" * 5000, tool="bash"), HookConfig(max_lines=100, spill_dir=str(link))
    )
    assert out.truncated is True and out.output_path is None
    assert list(elsewhere.iterdir()) == []
    own = tmp_path / "own"
    own.mkdir()
    real_uid = own.stat().st_uid
    monkeypatch.setattr(os, "getuid", lambda: real_uid + 1)
    with pytest.raises(PermissionError, match="another user"):
        FileSpillStore(own).save("original", "bash")
    assert list(own.iterdir()) == []


@pytest.mark.parametrize(
    ("argument", "says"),
    [
        ("bogus-cmd", "unknown command 'bogus-cmd' (commands: app, "),
        ("sho", "unknown command 'sho'; did you mean show?"),
        ("klp", "did you mean klip?"),
        ("shrnk", "did you mean shrink?"),
    ],
)
def test_a_mistyped_subcommand_is_named_with_exit_2(tmp_path, monkeypatch, capsys, argument, says):
    monkeypatch.chdir(tmp_path)
    assert main([argument, "x"]) == 2
    err = capsys.readouterr().err
    assert says in err and err.count("\n") == 1


def test_a_word_that_names_a_file_is_a_path_not_a_command(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sho").write_text("")
    assert unknown_command("sho", command_names()) is None
    for path_like in ("./sho2", "x.jsonl", "*.jsonl", "/abs/y", "~/z"):
        assert unknown_command(path_like, command_names()) is None


@pytest.mark.parametrize(
    "command",
    [
        ["shrink", "{missing}"],
        ["show", "{missing}"],
        ["ls", "{missing}"],
        ["klip", "{missing}", ".."],
        ["compact", "{missing}"],
        ["export", "{missing}", "--as", "openai"],
        ["{missing}"],
        ["app", "{missing}"],
    ],
)
def test_a_missing_file_is_exit_1_everywhere(tmp_path, capsys, command):
    missing = str(tmp_path / "nofile.txt")
    assert main([a.format(missing=missing) for a in command]) == 1
    err = capsys.readouterr().err
    assert "nofile.txt" in err and "Traceback" not in err
