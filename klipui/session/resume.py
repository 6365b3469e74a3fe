"""The command that continues a session in the agent that owns it.

Commands are argument lists, never shell strings; `ResumeCommand.display()` is the one place a
command becomes text, each argument quoted with `shlex.quote`. Each agent's adapter builds its
own (`Adapter.resume`, checked with Claude Code 2.1.197, Codex CLI 0.171.0, pi 0.73.1, DeepSeek
Harness 0.1.0-rc.8 and Qwen Code); with a `prompt`, it gives the agent's non-interactive form
(the agent answers that prompt in the resumed session and exits), which is also how the tests
prove the command against the real agents offline. The helpers below are what they share.
"""

from __future__ import annotations

import re
import shlex
import shutil
from dataclasses import dataclass
from pathlib import Path

from klipui.session.model import Session

UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


class ResumeError(ValueError):
    """A session its agent cannot resume as it is; the message is one line naming the file."""


@dataclass(frozen=True, slots=True)
class ResumeCommand:
    """How to continue one session: the program, its arguments and the folder to run it in."""

    agent: str
    """The agent's human name ("Claude Code")."""
    argv: tuple[str, ...]
    cwd: Path | None
    """The folder to run it from (None: anywhere)."""
    note: str = ""
    """What the user should know before running it (one sentence, may be empty)."""

    @property
    def program(self) -> str:
        return self.argv[0]

    def display(self) -> str:
        """The command as one shell line (`cd <folder> && <command>`), every argument quoted."""
        command = shlex.join(self.argv)
        return f"cd {shlex.quote(str(self.cwd))} && {command}" if self.cwd else command

    def missing(self) -> str | None:
        """The program's name when it is not on PATH, else None."""
        return None if shutil.which(self.program) else self.program


def resume_command(session: Session, prompt: str | None = None) -> ResumeCommand:
    """The command that resumes `session` in its agent (ResumeError when it cannot)."""
    from klipui.session.formats import adapter

    try:
        owner = adapter(session.format)
    except KeyError:
        raise ResumeError(f"{session.path}: format {session.format!r} is unknown") from None
    return owner.resume(session, prompt)


def project_key(cwd: str) -> str:
    """Claude Code's folder name for a project: every character but a letter or digit → '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def prompt_args(prompt: str | None) -> tuple[str, ...]:
    """The prompt as the last arguments of a command (none without one)."""
    return () if prompt is None else (prompt,)


def session_id_for(session: Session, agent: str) -> str:
    """The session's id as an argument (ResumeError when missing or read as an option)."""
    session_id = session.session_id
    if not isinstance(session_id, str) or not session_id or session_id.startswith("-"):
        raise ResumeError(f"{session.path}: no session id in the file; {agent} needs one to resume")
    return session_id


def existing_folder(cwd: object) -> Path | None:
    """`cwd` as a folder when it is an absolute path to one that exists, else None."""
    if not isinstance(cwd, str) or not cwd:
        return None
    path = Path(cwd)
    return path if path.is_absolute() and path.is_dir() else None


def project_folder(session: Session, agent: str) -> Path:
    """The session's project folder, which `agent` must be run from (ResumeError when gone)."""
    cwd = existing_folder(session.cwd)
    if cwd is None:
        where = session.cwd if isinstance(session.cwd, str) and session.cwd else "not recorded"
        raise ResumeError(
            f"{session.path}: its project folder ({where}) is gone; "
            f"{agent} resumes a session only from its project folder"
        )
    return cwd
