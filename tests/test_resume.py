"""The commands that continue a session in its agent: argv lists, folders, refusals, quoting."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from conftest import AGENT_WRITTEN
from hypothesis import given
from hypothesis import strategies as st

from klipui.session import open_session
from klipui.session.resume import ResumeCommand, ResumeError, project_key, resume_command

DEMO = Path(__file__).resolve().parents[1] / "klipui" / "demo" / "sessions"
CLAUDE = DEMO / "claude" / "-home-dev-ledgerline" / "780c4b16-a510-49fa-a2b2-bbd1c38dbe31.jsonl"
CODEX = next((DEMO / "codex").glob("rollout-*.jsonl"))
PI = next((DEMO / "pi").rglob("*.jsonl"))
DSH = next((DEMO / "dsh").rglob("session.jsonl"))
MESSAGES = DEMO / "messages" / "ledgerline-chat.jsonl"


def _in(project: Path, path: Path):
    session = open_session(path)
    session.cwd = str(project)
    return session


def test_claude_resumes_by_file_name_from_its_project_folder(tmp_path: Path):
    command = resume_command(_in(tmp_path, CLAUDE))
    assert command.argv == ("claude", "--resume", CLAUDE.stem)
    assert command.cwd == tmp_path
    assert command.agent == "Claude Code"
    assert "elsewhere" in command.note  # the demo file is not under ~/.claude/projects/<key>/


def test_claude_in_its_own_projects_folder_has_no_note(tmp_path: Path):
    project = tmp_path / "my proj"
    project.mkdir()
    folder = tmp_path / "projects" / project_key(str(project))
    folder.mkdir(parents=True)
    target = folder / CLAUDE.name
    target.write_bytes(CLAUDE.read_bytes())
    command = resume_command(_in(project, target))
    assert command.note == ""
    assert command.display() == f"cd '{project}' && claude --resume {CLAUDE.stem}"


def test_claude_refuses_a_file_not_named_by_a_uuid(tmp_path: Path):
    target = tmp_path / "notes.jsonl"
    target.write_bytes(CLAUDE.read_bytes())
    with pytest.raises(ResumeError, match="file name"):
        resume_command(_in(tmp_path, target))


@pytest.mark.parametrize("path", [CLAUDE, PI, DSH], ids=["claude", "pi", "dsh"])
def test_a_gone_project_folder_is_refused_with_a_clear_message(path: Path, tmp_path: Path):
    session = _in(tmp_path / "deleted", path)
    with pytest.raises(ResumeError) as error:
        resume_command(session)
    message = str(error.value)
    assert str(path) in message and "deleted" in message and "is gone" in message
    assert "\n" not in message


def test_codex_resumes_by_its_session_id_and_tolerates_a_gone_folder(tmp_path: Path):
    command = resume_command(_in(tmp_path, CODEX))
    assert command.argv == ("codex", "resume", "bd8ec9a1-f803-45ed-bd7c-9ec7081ab44d")
    assert command.cwd == tmp_path
    gone = resume_command(_in(tmp_path / "nope", CODEX))
    assert gone.cwd is None and gone.argv == command.argv


def test_pi_resumes_its_session_file(tmp_path: Path):
    command = resume_command(_in(tmp_path, PI))
    assert command.argv == ("pi", "--session", str(PI.resolve()))
    assert command.cwd == tmp_path


def test_dsh_resumes_by_its_session_id(tmp_path: Path):
    command = resume_command(_in(tmp_path, DSH))
    assert command.argv == ("dsh", "--profile", "tui", "--resume", open_session(DSH).session_id)
    assert "web" in command.note


def test_with_a_prompt_each_agent_answers_it_without_a_terminal(tmp_path: Path):
    prompt = "say ok"
    assert resume_command(_in(tmp_path, CLAUDE), prompt).argv == (
        "claude",
        "-p",
        "--resume",
        CLAUDE.stem,
        prompt,
    )
    codex = resume_command(_in(tmp_path, CODEX), prompt).argv
    assert codex[:4] == ("codex", "exec", "--skip-git-repo-check", "resume") and codex[-1] == prompt
    assert resume_command(_in(tmp_path, PI), prompt).argv[:2] == ("pi", "-p")


def test_a_messages_file_has_no_agent_to_resume_it():
    with pytest.raises(ResumeError, match="no agent"):
        resume_command(open_session(MESSAGES))


def test_an_id_that_reads_as_an_option_is_refused(tmp_path: Path):
    session = _in(tmp_path, CODEX)
    session.session_id = "--dangerously-bypass-approvals-and-sandbox"
    with pytest.raises(ResumeError, match="no session id"):
        resume_command(session)


def test_a_missing_program_is_named(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    command = resume_command(_in(tmp_path, CODEX))
    assert command.missing() == "codex"
    (tmp_path / "codex").write_text("#!/bin/sh\n")
    (tmp_path / "codex").chmod(0o755)
    assert command.missing() is None


@given(
    folder=st.text(min_size=1, max_size=30).filter(lambda t: "\0" not in t),
    arg=st.text(max_size=30).filter(lambda t: "\0" not in t),
)
def test_the_shown_command_splits_back_into_the_exact_arguments(folder: str, arg: str):
    command = ResumeCommand("X", ("prog", arg, "--flag"), Path("/") / folder)
    words = shlex.split(command.display())
    assert words[:2] == ["cd", str(Path("/") / folder)]
    assert words[2] == "&&" and words[3:] == ["prog", arg, "--flag"]


def test_the_agent_written_sessions_give_commands_once_named_as_their_agent_names_them(
    tmp_path: Path,
):
    for path in sorted(AGENT_WRITTEN.glob("*.jsonl")):
        session = _in(tmp_path, path)
        if session.format == "claude":  # copied into the fixtures under a readable name
            with pytest.raises(ResumeError, match="file name"):
                resume_command(session)
            session.path = tmp_path / f"{session.session_id}.jsonl"
        command = resume_command(session)
        assert command.argv[0] == {"claude": "claude", "codex": "codex", "pi": "pi"}.get(
            session.format, "dsh"
        )
