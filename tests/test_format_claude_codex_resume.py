"""Raised Claude Code and Codex files are resumed by the real agents (offline, fake API).

Runs `../shared/tools/resume_check.py` when it and the agent CLIs (`install-agents.sh`) are
present; skipped otherwise. Each case raises a *subset* of a sample's events, so it checks what
byte-identical round trips cannot: re-linked parent chains and the re-added `session_meta`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SAMPLES

from klipui.session.formats import claude, codex
from klipui.session.load import open_session

CHECKER = Path(__file__).resolve().parents[2] / "shared" / "tools" / "resume_check.py"
AGENTS = Path(os.environ.get("KLIPUI_AGENTS", Path.home() / ".cache" / "klipui-agents"))
"""Resolved at import, before the sealed test home replaces HOME."""


def _installed(binary: str) -> bool:
    return CHECKER.is_file() and (AGENTS / "node_modules" / ".bin" / binary).exists()


def _resume(agent: str, path: Path) -> dict:
    env = {**os.environ, "KLIPUI_AGENTS": str(AGENTS)}
    done = subprocess.run(
        [sys.executable, str(CHECKER), agent, str(path), "--json", "--timeout", "60"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    return json.loads(done.stdout)


@pytest.mark.skipif(not _installed("claude"), reason="Claude Code or resume_check.py not installed")
def test_claude_resumes_a_session_cut_to_its_last_turn(tmp_path: Path) -> None:
    session = open_session(SAMPLES / "claude-code" / "ccv_fe5e1c67_sidechains_summary_errors.jsonl")
    last = session.turns[-1]
    kept = session.header_events + session.events[last.start : last.end]
    path = tmp_path / "cut.jsonl"
    path.write_bytes(b"\n".join(claude.raise_records(session, kept)) + b"\n")
    report = _resume("claude", path)
    assert report["accepted"]
    conversation = report["conversation"]
    assert conversation["user_prompts"][0] == last.prompt
    assert conversation["all_calls_answered"] and not conversation["results_without_call"]
    assert conversation["tool_calls"] == last.tool_calls - sum(
        1 for e in session.events[last.start : last.end] if e.type == "tool/call" and e.ignorable
    )


@pytest.mark.skipif(not _installed("codex"), reason="Codex CLI or resume_check.py not installed")
def test_codex_resumes_a_rollout_raised_without_its_meta_event(tmp_path: Path) -> None:
    source = next((SAMPLES / "codex").glob("ccl_synthetic_rollout-*.jsonl"))
    session = open_session(source)
    kept = [e for e in session.events if e.type != "codex/session_meta"]
    path = tmp_path / source.name
    path.write_bytes(b"\n".join(codex.raise_records(session, kept)) + b"\n")
    report = _resume("codex", path)
    assert report["accepted"]
    conversation = report["conversation"]
    assert conversation["user_prompts"][0] == session.turns[0].prompt
    assert conversation["tool_calls"] == conversation["tool_results"] == 3
