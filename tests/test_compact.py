"""`klipui compact`: every tool result over the budget becomes its shrunk text with a spill
locator for the original; nothing else changes; tokens before and after are reported."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import SAMPLES

from klipui.cli import main
from klipui.klip.child import write_child
from klipui.klip.compact import plan_compact, session_tokens
from klipui.session import open_session
from klipui.session.blocks import event_text
from klipui.shrink import FileSpillStore

BIG = {
    "pi": SAMPLES / "pi" / "pi_large-session_v1.jsonl",
    "claude": SAMPLES / "claude-code" / "ccv_fe5e1c67_sidechains_summary_errors.jsonl",
    "dsh": SAMPLES / "dsh" / "bash-spill.jsonl",
    "codex": SAMPLES
    / "codex"
    / "ccl_synthetic_rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl",
}
BUDGET = {"pi": 3000, "claude": 2000, "dsh": 600, "codex": 1500}


def copy_of(sample: Path, folder: Path) -> Path:
    target = folder / sample.name
    shutil.copyfile(sample, target)
    if "rollout" in sample.name:
        inflate_codex(target)
    return target


def inflate_codex(path: Path) -> None:
    """Give the synthetic rollout's first function output a real-size build log."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    log = "\n".join(f"[{i:04d}] compiling module_{i}.rs ... ok" for i in range(400))
    for row in rows:
        payload = row.get("payload") or {}
        if payload.get("type") == "function_call_output":
            payload["output"] = log + "\nerror[E0308]: mismatched types\n"
            break
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))


def results(session) -> list:
    return [e for e in session.events if e.type == "tool/result"]


@pytest.mark.parametrize("fmt", sorted(BIG))
def test_big_results_are_shrunk_with_a_locator_and_nothing_else_changes(fmt, tmp_path):
    parent = copy_of(BIG[fmt], tmp_path)
    before = parent.read_bytes()
    store = FileSpillStore(tmp_path / "spill", max_age=float("inf"))
    budget = BUDGET[fmt]
    compacted = plan_compact(parent, max_chars=budget, spill=store)
    write_child(compacted.plan)
    assert parent.read_bytes() == before
    source, child = open_session(parent), open_session(compacted.plan.path)
    assert child.format == source.format
    big = [e for e in results(source) if len(event_text(e)) > budget]
    assert big and len(compacted.replaced) == len(big)
    assert [t.prompt for t in child.turns] == [t.prompt for t in source.turns]
    old, new = results(source), results(child)
    assert len(old) == len(new)
    for was, now in zip(old, new, strict=True):
        text, shrunk = event_text(was), event_text(now)
        if len(text) <= budget:
            assert shrunk == text
            continue
        assert len(shrunk) <= budget
        locator = next(r.locator for r in compacted.replaced if r.seq == was.seq)
        assert locator and locator in shrunk
        assert store.load(locator) == text
    others = [e for e in source.events if e.type in ("user/message", "assistant/message")]
    mine = [e for e in child.events if e.type in ("user/message", "assistant/message")]
    assert [event_text(e) for e in mine] == [event_text(e) for e in others]


def test_tokens_reported_match_the_child_as_read_back(tmp_path):
    parent = copy_of(BIG["pi"], tmp_path)
    store = FileSpillStore(tmp_path / "spill", max_age=float("inf"))
    compacted = plan_compact(parent, max_chars=2000, spill=store)
    write_child(compacted.plan)
    assert compacted.tokens_before == session_tokens(open_session(parent).events)
    assert compacted.tokens_after == session_tokens(open_session(compacted.plan.path).events)
    assert compacted.tokens_after < compacted.tokens_before


def test_compact_cli_reports_and_writes(tmp_path, capsys):
    parent = copy_of(BIG["pi"], tmp_path)
    spill = tmp_path / "spill"
    code = main(
        ["compact", str(parent), "--max-chars", "5000", "--spill-dir", str(spill), "--json"]
    )
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["written"] and Path(report["path"]).exists()
    assert report["tokens_after"] < report["tokens_before"]
    assert report["replaced"] and all(r["chars_after"] <= 5000 for r in report["replaced"])
    assert all((spill / f"{r['locator'][6:]}.txt").exists() for r in report["replaced"])
    assert main(["compact", str(parent), "--max-chars", "5000", "--spill-dir", str(spill)]) == 0
    out = capsys.readouterr().out
    assert "tokens: " in out and "written: " in out


def test_compact_cli_usage_errors(tmp_path, capsys):
    parent = copy_of(BIG["dsh"], tmp_path)
    assert main(["compact", str(parent), "--max-chars", "0"]) == 2
    assert main(["compact", str(tmp_path / "none.jsonl")]) == 1
    assert "none.jsonl" in capsys.readouterr().err


@pytest.mark.parametrize("chars", ["1", "10", "79"])
def test_a_budget_below_the_shrinkers_minimum_is_a_one_line_usage_error(chars, tmp_path, capsys):
    parent = copy_of(BIG["dsh"], tmp_path)
    assert main(["compact", str(parent), "--max-chars", chars]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--max-chars must be at least 80" in err
    assert "Traceback" not in err
    assert files_in(tmp_path) == [parent.name]


def files_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


@pytest.mark.parametrize("as_json", [False, True])
def test_nothing_shrunk_writes_no_child_unless_forced(as_json, tmp_path, capsys):
    parent = copy_of(SAMPLES / "dsh" / "multi-turn.jsonl", tmp_path)
    spill = tmp_path / "spill"
    args = ["compact", str(parent), "--spill-dir", str(spill)] + (["--json"] if as_json else [])
    assert main(args) == 0
    out = capsys.readouterr().out
    assert files_in(tmp_path) == [parent.name]
    if as_json:
        report = json.loads(out)
        assert report["written"] is False and report["replaced"] == []
        assert "no tool result is over 8000 characters" in report["not_written"]
    else:
        assert "no tool result is over 8000 characters" in out
        assert "no child written" in out and "written: " not in out.replace("no child written", "")
        assert "note: " not in out
    assert main([*args, "--force"]) == 0
    capsys.readouterr()
    assert len(files_in(tmp_path)) == 2


def test_compact_output_into_a_folder(tmp_path, capsys):
    parent = copy_of(BIG["pi"], tmp_path)
    out = tmp_path / "children"
    spill = str(tmp_path / "spill")
    args = ["compact", str(parent), "--max-chars", "3000", "--spill-dir", spill, "-o", f"{out}/"]
    assert main(args) == 1  # a missing folder is refused, as cp does
    assert "--parents" in capsys.readouterr().err and not out.exists()
    assert main([*args, "--parents"]) == 0
    capsys.readouterr()
    (child,) = out.iterdir()
    assert child.name.endswith(".jsonl") and child.name != parent.name
    assert open_session(child).format == "pi"


def test_compact_keeps_an_unfinished_last_turn(tmp_path):
    """Compaction changes no turn: a rollout whose only turn never ended is compacted whole."""
    sample = (
        SAMPLES / "codex" / "rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl"
    )
    parent = copy_of(sample, tmp_path)
    store = FileSpillStore(tmp_path / "spill", max_age=float("inf"))
    compacted = plan_compact(parent, max_chars=1000, spill=store)
    assert compacted.plan.turns == {1: 1} and compacted.plan.unfinished == {1: "open"}
    assert compacted.replaced
    write_child(compacted.plan)
    source, child = open_session(parent), open_session(compacted.plan.path)
    assert [e.type for e in child.events] == [e.type for e in source.events]
    assert len(results(child)) == len(results(source))
    (tmp_path / "cc").mkdir()
    partial = copy_of(SAMPLES / "claude-code" / "ccl_edge_cases.jsonl", tmp_path / "cc")
    kept = plan_compact(partial, max_chars=100, spill=store).plan
    assert set(kept.turns) == {t.number for t in open_session(partial).turns}
