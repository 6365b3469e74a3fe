"""Finding and loading the spilled original of a previewed tool result (klipui.session.spilled)."""

from __future__ import annotations

import json
from pathlib import Path

from app_support import SAMPLES

from klipui.session.spilled import (
    DryRunSpill,
    SpillFolders,
    find_reference,
    load_original,
)
from klipui.shrink import FileSpillStore
from klipui.shrink.spill import locator_for


def _dsh_result_texts(name: str) -> list[str]:
    texts = []
    for line in (SAMPLES / "dsh" / name).read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        if event.get("type") == "tool/result":
            for block in event["data"]["message"]["content"]:
                for part in block.get("content", []):
                    texts.append(part.get("text", ""))
    return texts


def test_dsh_reference_in_real_samples_is_found_and_reported_missing() -> None:
    for name in ("bash-spill.jsonl", "session-query-spill.jsonl"):
        texts = [t for t in _dsh_result_texts(name) if "Full formatted result stored at" in t]
        assert texts, name
        ref = find_reference(texts[0])
        assert ref is not None and ref.kind == "dsh"
        assert ref.reference.endswith(".txt")  # the sentence's full stop is not in the path
        loaded = load_original(ref)
        assert loaded.missing and "no longer exists" in (loaded.problem or "")


def test_pi_and_neovate_references(tmp_path: Path) -> None:
    full = tmp_path / "pi-bash-00ff00ff00ff00ff.log"
    full.write_text("all of it\n", encoding="utf-8")
    pi = f"tail\n\n[Showing lines 9-10 of 10. Full output: {full}]"
    ref = find_reference(pi)
    assert ref is not None and ref.kind == "pi" and ref.path == full
    folders = SpillFolders((tmp_path,), tmp_path / "home", tmp_path / "spill")
    assert load_original(ref, folders=folders).text == "all of it\n"
    neovate = f"head\n\n...5 lines truncated...\n\nFull output saved to: {full}\nUse Grep"
    ref = find_reference(neovate)
    assert ref is not None and ref.path == full


def test_claude_persisted_output_named_or_derived(tmp_path: Path) -> None:
    session = tmp_path / "proj" / "abc.jsonl"
    results = session.parent / "abc" / "tool-results"
    results.mkdir(parents=True)
    (results / "toolu_1.txt").write_text("FULL", encoding="utf-8")
    named = f"<persisted-output>\nOutput saved to: {results / 'toolu_1.txt'}\nPreview...\n"
    ref = find_reference(named + "</persisted-output>")
    assert ref is not None and ref.kind == "claude" and ref.path == results / "toolu_1.txt"
    bare = "<persisted-output>\nPreview (first 2KB): ...\n</persisted-output>"
    ref = find_reference(bare, session_path=session, tool_call_id="toolu_1")
    assert ref is not None and load_original(ref, session_path=session).text == "FULL"
    gone = find_reference(bare, session_path=session, tool_call_id="toolu_2")
    assert gone is not None and load_original(gone, session_path=session).missing


def test_spill_locator_through_the_store(tmp_path: Path) -> None:
    store = FileSpillStore(tmp_path / "spill")
    locator = store.save("the original\n", "bash")
    ref = find_reference(f"cut...\n[full output saved as {locator}: note]")
    assert ref is not None and ref.kind == "spill" and ref.reference == locator
    folders = SpillFolders((tmp_path / "tmp",), tmp_path, store.dir)
    assert load_original(ref, folders=folders).text == "the original\n"
    assert load_original(ref).missing  # the default store (an empty sealed home): reported
    other = find_reference("x [full output saved as spill:bash-000000000000]")
    assert other is not None and load_original(other, folders=folders).missing


def test_no_reference_and_dry_run_names_without_writing(tmp_path: Path) -> None:
    assert find_reference("plain output\nwith no pointer") is None
    assert DryRunSpill().save("text", "bash") == locator_for("text", "bash")
