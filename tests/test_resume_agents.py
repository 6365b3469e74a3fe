"""The resume command klipui builds, run as built, makes the real agent continue the child.

For Claude Code, Codex and pi: a session the agent wrote is put where the agent keeps its
sessions (its project folder existing), klipui clips turns 1..3 into a child beside it, and the
command `resume_command(child, prompt)` gives is run as it is (only its program resolved to the
installed agent), offline against the loopback stand-in API of ../shared/tools. The request the
agent sends must carry the child's three prompts, in order, and then ours. dsh: its CLI
documents `--profile tui --resume <session>`, and the id klipui puts there is the one its web
profile resumes the child under. Skipped when the agents are not installed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import fidelity_matrix as fm
import pytest
from conftest import AGENT_WRITTEN

from klipui.klip import plan_child, write_child
from klipui.session import open_session
from klipui.session.resume import project_key, resume_command

pytestmark = pytest.mark.real_agents

PROMPT = "resume-check: reply with the word ok"
SELECTION = "1..3"
SOURCES = {
    "claude": (AGENT_WRITTEN / "claude_10turns_compact6.jsonl", "/tmp/agents_ws/claude-ten/proj"),
    "codex": (next(AGENT_WRITTEN.glob("rollout-*.jsonl")), None),
    "pi": (AGENT_WRITTEN / "pi_10turns.jsonl", "/tmp/agents_ws/pi-ten/proj"),
}


def _checker():
    checker = fm.resume_check()
    if checker is None:
        pytest.skip("resume_check.py is not there (../shared/tools)")
    return checker


def _install(agent: str, root: Path, project: Path, url: str) -> tuple[Path, dict[str, str]]:
    """The agent's own session, where the agent keeps it, and the environment to run it in."""
    checker = _checker()
    source, cwd = SOURCES[agent]
    text = source.read_text(encoding="utf-8")
    home = root / "home"
    home.mkdir()
    env = checker.base_env(home)
    if agent == "claude":
        assert cwd is not None
        text = text.replace(cwd, str(project))
        session_id = open_session(source).session_id
        folder = home / ".claude" / "projects" / project_key(str(project))
        env.update(
            ANTHROPIC_API_KEY="sk-ant-dummy",
            ANTHROPIC_BASE_URL=url,
            DISABLE_TELEMETRY="1",
            CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
            DISABLE_AUTOUPDATER="1",
        )
        name = f"{session_id}.jsonl"
    elif agent == "codex":
        codex_home = root / "codex_home"
        folder = codex_home / "sessions" / "2026" / "12" / "03"
        codex_home.mkdir()
        config = f'model = "gpt-5"\nopenai_base_url = {json.dumps(url + "/v1")}\n'
        (codex_home / "config.toml").write_text(config)
        env.update(CODEX_HOME=str(codex_home), OPENAI_API_KEY="dummy")
        name = source.name
    else:
        assert cwd is not None
        text = text.replace(cwd, str(project))
        folder = (
            home / ".pi" / "agent" / "sessions" / f"--{str(project).strip('/').replace('/', '-')}--"
        )
        providers = {
            "anthropic": {"baseUrl": url, "apiKey": "sk-ant-dummy"},
            "openai": {"baseUrl": url + "/v1", "apiKey": "dummy"},
        }
        (home / ".pi" / "agent").mkdir(parents=True)
        (home / ".pi" / "agent" / "models.json").write_text(json.dumps({"providers": providers}))
        env.update(PI_OFFLINE="1", PI_SKIP_VERSION_CHECK="1", PI_TELEMETRY="0")
        name = source.name
    folder.mkdir(parents=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path, env


@pytest.mark.parametrize("agent", ["claude", "codex", "pi"])
def test_the_built_command_resumes_the_child_with_its_kept_prompts(agent: str, tmp_path: Path):
    checker = _checker()
    if not fm.installed(agent):
        pytest.skip(f"{agent} is not installed (../shared/tools/install-agents.sh)")
    project = tmp_path / "proj"
    project.mkdir()
    logs = tmp_path / "api_log"
    logs.mkdir()
    api = checker.FakeAPI(logs, lifetime=120)
    try:
        parent_path, env = _install(agent, tmp_path, project, api.url)
        parent = open_session(parent_path)
        plan = plan_child(parent, SELECTION)
        write_child(plan)
        child = open_session(plan.path)
        command = resume_command(child, prompt=PROMPT)
        assert command.note == "", command.note  # the child sits where its agent looks
        program = checker.find_bin(command.program)
        assert program, command.program
        run = checker.run_client(
            [program, *command.argv[1:]], command.cwd or project, env, fm.TIMEOUTS[agent]
        )
        bodies = [body for _, body in api.requests() if PROMPT in json.dumps(body)]
    finally:
        api.stop()
    assert bodies, f"{agent} sent no request with our prompt: {run['stderr'][-600:]}"
    prompts = {t.number: fm.turn_prompt(checker, parent, t)[0] for t in parent.turns}
    rebuilt = fm.request_prompts(checker, bodies[-1])
    turns, _ = fm.matched_turns(rebuilt, prompts, plan.turns)
    assert turns == [1, 2, 3], rebuilt


def test_dsh_documents_the_resume_klipui_builds_and_resumes_the_child_under_its_id(
    tmp_path: Path,
):
    checker = _checker()
    if not fm.installed("dsh"):
        pytest.skip("dsh is not installed (../shared/tools/install-agents.sh --with-dsh)")
    dsh = checker.find_bin("dsh")
    node = checker.find_node22()
    shown = subprocess.run(
        [node, str(Path(dsh).resolve()), "--help"], capture_output=True, text=True, timeout=60
    )
    assert "--profile tui --resume <session>" in shown.stdout
    copy = tmp_path / "dsh_7turns.jsonl"
    shutil.copyfile(AGENT_WRITTEN / "dsh_7turns.jsonl", copy)
    parent = open_session(copy)
    plan = plan_child(parent, SELECTION)
    write_child(plan)
    child = open_session(plan.path)
    child.cwd = str(tmp_path)  # the agent-written header says {{cwd}}; resume_check fills it in
    command = resume_command(child)
    assert command.argv[:4] == ("dsh", "--profile", "tui", "--resume")
    report = checker.check("dsh", plan.path, timeout=fm.TIMEOUTS["dsh"])
    assert report.get("accepted"), report.get("error")
    assert f"session id {command.argv[4]}" in report.get("notes", [])
