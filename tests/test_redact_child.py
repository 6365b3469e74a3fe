"""Redacted children: only string contents change, ids and structure stay, and the real agents
still resume them (skipped when the agents are not installed: ../shared/tools/install-agents.sh).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import fidelity_matrix as fm
import pytest

from klipui.cli import main
from klipui.klip import plan_child, write_child
from klipui.redact import Redactor, redact_lines
from klipui.redact.redactor import SKIP_KEYS
from tests.conftest import FIXTURES

SECRET = "ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"
PASSWORD_LINE = "DB_PASSWORD=Xy7-Wq2-Lp9-Zt4"
WRITTEN = FIXTURES / "agent-written"
AGENT_FILES = {
    "claude": WRITTEN / "claude_10turns_compact6.jsonl",
    "pi": WRITTEN / "pi_10turns.jsonl",
    "codex": next(WRITTEN.glob("rollout-*.jsonl")),
    "dsh": WRITTEN / "dsh_7turns.jsonl",
}


def with_secret(source: Path, target: Path) -> Path:
    """A copy of `source` whose "wrap up" prompt carries a token and a password line."""
    text = source.read_text(encoding="utf-8")
    assert "wrap up" in text
    target.write_text(text.replace("wrap up", f"wrap up {SECRET} {PASSWORD_LINE}"))
    return target


def shape(value: Any, key: str | None = None) -> Any:
    """`value` with every redactable string blanked: what redaction must leave as it is."""
    if isinstance(value, str):
        return value if key in SKIP_KEYS else ""
    if isinstance(value, dict):
        return {k: shape(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [shape(v, key) for v in value]
    return value


@pytest.mark.parametrize("agent", sorted(AGENT_FILES))
def test_redacted_child_keeps_ids_and_structure(agent: str, tmp_path: Path) -> None:
    parent = with_secret(AGENT_FILES[agent], tmp_path / AGENT_FILES[agent].name)
    plan = plan_child(parent, "..", include_unfinished=True)
    plain = list(plan.lines)
    redacted, changed = redact_lines(plain, Redactor())
    assert changed >= 1 and len(redacted) == len(plain)
    assert any(SECRET.encode() in line for line in plain)
    for before, after in zip(plain, redacted, strict=True):
        assert SECRET.encode() not in after
        if before != after:
            assert shape(json.loads(before)) == shape(json.loads(after))
    assert any(b"[REDACTED github-token #1]" in line for line in redacted)


def test_cli_klip_redact(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parent = with_secret(AGENT_FILES["pi"], tmp_path / AGENT_FILES["pi"].name)
    out = tmp_path / "child.jsonl"
    assert main(["klip", str(parent), "..", "--redact", "-o", str(out)]) == 0
    text = out.read_text()
    assert SECRET not in text and "Xy7-Wq2-Lp9-Zt4" not in text
    assert "redacted 2 secrets" in capsys.readouterr().out


AGENTS = [a for a in ("claude", "codex", "pi", "dsh") if fm.installed(a)]


@pytest.mark.real_agents
@pytest.mark.skipif(not AGENTS, reason="the real agents are not installed")
@pytest.mark.parametrize("agent", AGENTS)
def test_the_agent_resumes_a_redacted_child(agent: str, tmp_path: Path) -> None:
    checker = fm.resume_check()
    assert checker is not None
    parent = with_secret(AGENT_FILES[agent], tmp_path / AGENT_FILES[agent].name)
    plan = plan_child(parent, "..", include_unfinished=True)
    plan.lines, _ = redact_lines(plan.lines, Redactor())
    write_child(plan)
    report = checker.check(agent, plan.path, timeout=fm.TIMEOUTS[agent], keep=True)
    try:
        body = fm._sent_body(report)
    finally:
        shutil.rmtree(report.get("kept_dir") or tmp_path / "none", ignore_errors=True)
    assert report.get("accepted"), report.get("error")
    assert body is not None
    sent = json.dumps(body)
    assert SECRET not in sent and "[REDACTED github-token #1]" in sent
    conversation = report["conversation"]
    assert conversation["all_calls_answered"] and conversation["problems"] == []


def _hook(tmp_path: Path, lines: list[str], *args: str) -> list[dict[str, Any]]:
    import os
    import subprocess
    import sys

    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    command = [sys.executable, "-m", "klipui", "hook", "--spill-dir", str(tmp_path / "s"), *args]
    done = subprocess.run(
        command, input="\n".join(lines) + "\n", capture_output=True, text=True, cwd=tmp_path,
        env=env, timeout=120, check=True,
    )  # fmt: skip
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_hook_redacts_with_the_flag_or_the_project_setting(tmp_path: Path) -> None:
    small = {"llm_content": f"token {SECRET}\n{PASSWORD_LINE}", "tool": "bash"}
    big = {"llmContent": [{"type": "text", "text": f"{SECRET}\n" + "x\n" * 5000}]}
    lines = [json.dumps(small), json.dumps(big)]
    plain = _hook(tmp_path, lines)
    assert plain[0]["llm_content"] == small["llm_content"]  # redaction is off by default
    for args in (("--redact",), ()):
        if not args:
            (tmp_path / ".klipui.toml").write_text("[shrink]\nredact = true\n")
        out = _hook(tmp_path, lines, *args)
        assert out[0]["llm_content"] == (
            "token [REDACTED github-token #1]\nDB_PASSWORD=[REDACTED env-secret #1]"
        )
        assert out[0]["tool"] == "bash"
        assert SECRET not in json.dumps(out[1]) and out[1]["truncated"] is True


def test_compact_redacts_its_child(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    parent = with_secret(AGENT_FILES["claude"], tmp_path / AGENT_FILES["claude"].name)
    out = tmp_path / "child.jsonl"
    code = main(
        ["compact", str(parent), "--redact", "--spill-dir", str(tmp_path / "s"), "-o", str(out)]
    )
    assert code == 0, capsys.readouterr()
    assert SECRET not in out.read_text() and "[REDACTED github-token #1]" in out.read_text()
