"""The bundled demo sessions: present, deterministic, readable in every format, worth looking at."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import orjson
import pytest

from klipui.demo import SESSIONS, demo_paths
from klipui.demo.build import build, demo_files
from klipui.session import open_session
from klipui.session.formats import adapter
from klipui.session.model import Session

FORMATS = {"dsh", "claude", "codex", "pi", "messages"}
PATHS = demo_paths()


def result_texts(session: Session) -> list[str]:
    texts = []
    for event in session.events:
        if event.type != "tool/result":
            continue
        for block in event.data["message"]["content"]:
            texts.append("\n".join(part.get("text", "") for part in block.get("content", [])))
    return texts


def test_one_demo_per_format() -> None:
    assert len(PATHS) == 5
    assert {open_session(p).format for p in PATHS} == FORMATS


def test_committed_files_match_the_generator(tmp_path: Path) -> None:
    build(tmp_path)
    rebuilt = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*.jsonl"))
    assert rebuilt == [p.relative_to(SESSIONS) for p in PATHS]
    for relative in rebuilt:
        assert (tmp_path / relative).read_bytes() == (SESSIONS / relative).read_bytes(), relative


def test_build_never_overwrites(tmp_path: Path) -> None:
    relative, _lines = next(demo_files())
    target = tmp_path / relative
    target.parent.mkdir(parents=True)
    target.write_bytes(b"{}\n")
    with pytest.raises(FileExistsError):
        build(tmp_path)
    assert target.read_bytes() == b"{}\n"


@pytest.mark.parametrize(
    "path", PATHS, ids=lambda p: p.parts[-2] if p.name == "session.jsonl" else p.name
)
def test_demo_session_reads_and_round_trips(path: Path) -> None:
    size = path.stat().st_size
    assert 100_000 <= size <= 600_000
    session = open_session(path)
    assert session.problems == []
    assert len(session.turns) == 4 and all(t.completed for t in session.turns)
    assert all(t.prompt for t in session.turns)
    assert [e.seq for e in session.events] == list(range(len(session.events)))
    raised = b"".join(
        line + b"\n" for line in adapter(session.format).raise_records(session, session.events)
    )
    assert raised == path.read_bytes()
    # the failing test run and build; OpenAI tool messages carry no error flag
    assert sum(t.errors for t in session.turns) == (0 if session.format == "messages" else 2)


@pytest.mark.parametrize(
    "path", PATHS, ids=lambda p: p.parts[-2] if p.name == "session.jsonl" else p.name
)
def test_big_outputs_of_every_shape(path: Path) -> None:
    texts = result_texts(open_session(path))
    big = [t for t in texts if len(t) >= 10_000]

    def one(predicate: object) -> str:
        found = [t for t in big if predicate(t)]  # type: ignore[operator]
        assert len(found) == 1
        return found[0]

    tests = one(lambda t: "short test summary info" in t)
    assert tests.count(" PASSED ") >= 300 and tests.count(" FAILED ") == 5
    assert "error: could not compile" in one(lambda t: "   Compiling " in t)
    assert one(lambda t: t.startswith("diff --git")).count("@@ -") >= 10
    log = one(lambda t: "[http]" in t)
    assert "Traceback (most recent call last):" in log and len(log.splitlines()) >= 500
    status = json.loads(one(lambda t: t.startswith("{")))
    assert len(status["accounts"]) >= 100
    assert one(lambda t: t.startswith("data:")).count("-rw-r--r--") >= 200


def test_claude_demo_can_be_resumed() -> None:
    path = next(p for p in PATHS if p.parent.parent.name == "claude")
    values = [orjson.loads(line) for line in path.read_bytes().splitlines()]
    session_ids = {v["sessionId"] for v in values if "sessionId" in v}
    assert session_ids == {path.stem} and str(uuid.UUID(path.stem)) == path.stem
    last = [v for v in values if v.get("type") == "assistant"][-1]["message"]
    for key in ("id", "type", "model", "stop_reason", "usage"):
        assert last.get(key), key
    uuids = {v["uuid"] for v in values if "uuid" in v}
    assert all(v["parentUuid"] in uuids for v in values if v.get("parentUuid"))
    assert values[0]["type"] == "summary" and values[0]["leafUuid"] == values[-1]["uuid"]


def _demo_of(agent: str) -> Path:
    folder = {"claude": "claude", "codex": "codex", "pi": "pi", "dsh": "dsh"}[agent]
    return next(p for p in PATHS if p.relative_to(SESSIONS).parts[0] == folder)


@pytest.mark.real_agents
@pytest.mark.parametrize("agent", ["claude", "codex", "pi", "dsh"])
def test_real_agent_resumes_demo(agent: str, tmp_path: Path) -> None:
    """The agent that owns the format accepts the demo and sends all four prompts, paired."""
    from tests import fidelity_matrix

    if not fidelity_matrix.installed(agent):
        pytest.skip(f"{agent} is not installed (../shared/tools/install-agents.sh)")
    path = _demo_of(agent)
    if agent == "dsh":
        # resume_check installs a dsh session under its temp project and keeps the header cwd;
        # dsh refuses a file whose header cwd names another folder, so use its placeholder.
        lines = path.read_bytes().split(b"\n", 1)
        header = orjson.loads(lines[0])
        header["cwd"] = "{{cwd}}"
        path = tmp_path / "session.jsonl"
        path.write_bytes(orjson.dumps(header) + b"\n" + lines[1])
    env = {**os.environ, "KLIPUI_AGENTS": str(fidelity_matrix.agents_home())}
    script = fidelity_matrix.tools_dir() / "resume_check.py"
    done = subprocess.run(
        [sys.executable, str(script), agent, str(path), "--json", "--timeout", "90"],
        capture_output=True,
        timeout=150,
        env=env,
        check=False,
    )
    report = json.loads(done.stdout)
    assert report["accepted"], report.get("client")
    conversation = report["conversation"]
    prompts = [p for p in conversation["user_prompts"] if not p.startswith("resume-check")]
    expected = [t.prompt for t in open_session(_demo_of(agent)).turns]
    assert [p for p in prompts if p in expected] == expected
