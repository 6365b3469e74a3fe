"""`klipui klip`: the report (turns old → new, cascade drops with their rule, validation, path),
dry runs, JSON, and one-line failures with exit 1."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import SAMPLES

from klipui.cli import main
from klipui.session import open_session


def copy_of(sample: Path, folder: Path) -> Path:
    target = folder / sample.name
    shutil.copyfile(sample, target)
    return target


def files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_klip_prints_turns_kept_validation_and_the_path_written(tmp_path, capsys):
    parent = copy_of(SAMPLES / "pi" / "pi_large-session_v1.jsonl", tmp_path)
    assert main(["klip", str(parent), "1..3, 7"]) == 0
    out = capsys.readouterr().out
    assert "keeps 4 of 88 turns" in out
    assert "2 completed; 2 did not complete and are kept as they ended: 1 aborted, 7 aborted" in out
    assert "turns kept (old → new): 1..3→1..3, 7→4" in out
    assert "validation: ok" in out
    written = [p for p in tmp_path.iterdir() if p != parent]
    assert len(written) == 1
    assert f"written: {written[0]}" in out
    child = open_session(written[0])
    assert [t.prompt for t in child.turns] == [
        open_session(parent).turns[i].prompt for i in (0, 1, 2, 6)
    ]


def test_klip_lists_what_the_cascade_dropped_and_why(tmp_path, capsys):
    parent = copy_of(SAMPLES / "dsh" / "compaction-recovery.jsonl", tmp_path)
    assert main(["klip", str(parent), "..", "--dry-run"]) == 0
    assert "dropped by the rules: nothing" in capsys.readouterr().out
    rules = tmp_path / "rules.toml"
    rules.write_text(
        '[seq."compaction/start"]\n'
        'rules = [{ kind = "skip-till", till = "compaction/end", intact = false }]\n'
    )
    assert main(["klip", str(parent), "..", "--rules", str(rules)]) == 0
    out = capsys.readouterr().out
    assert "dropped by the rules (4):" in out
    assert "compaction/start: skip-till compaction/end" in out
    assert "compaction/summary" in out


def test_dry_run_writes_nothing_and_json_is_the_full_report(tmp_path, capsys):
    parent = copy_of(SAMPLES / "dsh" / "multi-turn.jsonl", tmp_path)
    assert main(["klip", str(parent), "2", "--dry-run", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert files(tmp_path) == ["multi-turn.jsonl"]
    assert report["written"] is False and report["error"] is None
    assert report["turns"] == [{"old": 2, "new": 1}]
    assert report["format"] == "dsh" and report["violations"] == []
    assert Path(report["path"]).parent == tmp_path


def test_output_path_and_refusal_to_overwrite(tmp_path, capsys):
    parent = copy_of(SAMPLES / "dsh" / "multi-turn.jsonl", tmp_path)
    target = tmp_path / "mine.jsonl"
    assert main(["klip", str(parent), "1", "-o", str(target)]) == 0
    assert target.exists()
    before = target.read_bytes()
    capsys.readouterr()
    assert main(["klip", str(parent), "2", "-o", str(target)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "already exists" in err[0]
    assert target.read_bytes() == before


@pytest.mark.parametrize(
    ("selection", "message"),
    [("5", "keeps none of the 2 turns"), ("not 1", "keeps none")],
)
def test_a_selection_that_keeps_nothing_fails_in_one_line(tmp_path, capsys, selection, message):
    """One error line, after the selection's own warnings."""
    parent = copy_of(SAMPLES / "dsh" / "multi-turn.jsonl", tmp_path)
    assert main(["klip", str(parent), selection]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert message in err[-1] and not err[-1].startswith("klipui: warning:")
    assert all(line.startswith("klipui: warning: ") for line in err[:-1])
    assert files(tmp_path) == ["multi-turn.jsonl"]


def test_an_unreadable_selection_fails_with_a_caret(tmp_path, capsys):
    parent = copy_of(SAMPLES / "dsh" / "multi-turn.jsonl", tmp_path)
    assert main(["klip", str(parent), "1..x"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("klipui: invalid selection (column 4)")
    assert err[1:] == ["1..x", "   ^"]


def test_missing_or_unreadable_session_fails_in_one_line(tmp_path, capsys):
    assert main(["klip", str(tmp_path / "nope.jsonl"), "1"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nope.jsonl" in err[0]
    usage = copy_of(SAMPLES / "claude-code" / "ccusage_usage_alpha.jsonl", tmp_path)
    assert main(["klip", str(usage), ".."]) == 1
    assert "no turn to clip (the session holds no prompt)" in capsys.readouterr().err


def test_a_refused_child_needs_force(tmp_path, capsys):
    parent = copy_of(SAMPLES / "claude-code" / "ccl_subagents_agent-showcol1.jsonl", tmp_path)
    assert main(["klip", str(parent), ".."]) == 1
    captured = capsys.readouterr()
    assert "agent: Claude Code finds no conversation" in captured.out
    assert "not written" in captured.out and "--force" in captured.err
    assert files(tmp_path) == [parent.name]
    assert main(["klip", str(parent), "..", "--force"]) == 0
    assert len(files(tmp_path)) == 2


def test_rules_file_adds_cells_and_an_invalid_child_is_explained(tmp_path, capsys):
    parent = copy_of(SAMPLES / "dsh" / "advanced-toolchain.jsonl", tmp_path)
    rules = tmp_path / "rules.toml"
    rules.write_text('[seq."tool/call"]\nrules = [{kind = "skip-n", n = 0}]\n')
    code = main(["klip", str(parent), "..", "--rules", str(rules)])
    captured = capsys.readouterr()
    assert code == 1
    assert "tool-call-unanswered" in captured.out and "tool-call-unanswered" in captured.err
    assert files(tmp_path) == ["advanced-toolchain.jsonl", "rules.toml"]
    bad = tmp_path / "bad.toml"
    bad.write_text("this is = = not toml")
    assert main(["klip", str(parent), "..", "--rules", str(bad)]) == 1
    assert "bad.toml" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("selection", "kept"), [("-1", "2→1"), ("-2..", "1..2→1..2"), ("-2..-2", "1→1")]
)
def test_selections_starting_with_a_minus_are_not_options(tmp_path, capsys, selection, kept):
    parent = copy_of(SAMPLES / "dsh" / "multi-turn.jsonl", tmp_path)
    assert main(["klip", str(parent), selection, "--dry-run"]) == 0
    assert f"turns kept (old → new): {kept}\n" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("selection", "warning"),
    [("5..2", "did you mean 2..5?"), ("99", "99"), ("not 1", "only exclusions")],
)
def test_an_empty_selection_still_prints_its_warnings(selection, warning, tmp_path, capsys):
    parent = copy_of(SAMPLES / "pi" / "pi_large-session_v1.jsonl", tmp_path)
    assert main(["klip", str(parent), selection, "--dry-run"]) == 1
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert any(line.startswith("klipui: warning: ") and warning in line for line in lines), err
    assert "keeps none of the" in lines[-1]


@pytest.mark.parametrize("exists", [True, False])
def test_output_to_a_folder_writes_the_child_inside_it(exists, tmp_path, capsys):
    parent = copy_of(SAMPLES / "pi" / "pi_large-session_v1.jsonl", tmp_path)
    out = tmp_path / "out"
    if exists:
        out.mkdir()
    args = ["klip", str(parent), "1", "-o", str(out) + ("" if exists else "/")]
    if not exists:
        assert main(args) == 1  # a missing folder is refused, as cp does
        assert "--parents" in capsys.readouterr().err and not out.exists()
    assert main([*args, "--parents"] if not exists else args) == 0
    (child,) = out.iterdir()
    assert f"written: {child}" in capsys.readouterr().out
    assert child.suffix == ".jsonl" and [t.prompt for t in open_session(child).turns] == [
        open_session(parent).turns[0].prompt
    ]
