"""The command that continues a session in the agent that owns it (one function per agent).

Commands are argument lists, never shell strings; `ResumeCommand.display()` is the one place a
command becomes text, each argument quoted with `shlex.quote`. With a `prompt`, each function
gives its agent's non-interactive form (the agent answers that prompt in the resumed session
and exits), which is also how the tests prove the command against the real agents offline.

How each agent resumes (checked with Claude Code 2.1.197, Codex CLI 0.171.0, pi 0.73.1 and
DeepSeek Harness 0.1.0-rc.8):

- Claude Code: `claude --resume <id>` run from the session's project folder; it finds the file
  as `~/.claude/projects/<project folder, every other character than a letter or digit
  turned into '-'>/<id>.jsonl`, so the id is the file's name, a UUID.
- Codex: `codex resume <id>` (the `session_meta` id); Codex finds the rollout under
  `$CODEX_HOME/sessions/` and works in the folder it is run from, so it runs from the project.
- pi: `pi --session <file>` from the session's folder (pi refuses a header `cwd` that is gone).
- DeepSeek Harness: `dsh --profile tui --resume <id>` from the session's folder, as its help
  shows; 0.1.0-rc.8 ships no `tui` profile (its `web` profile resumes a session from the browser).
"""

from __future__ import annotations

import re
import shlex
import shutil
from collections.abc import Callable
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
    build = BUILDERS.get(session.format)
    if build is None:
        raise ResumeError(
            f"{session.path}: a generic messages file belongs to no agent; nothing to resume"
        )
    return build(session, prompt)


def claude_command(session: Session, prompt: str | None = None) -> ResumeCommand:
    """`claude --resume <id>` from the project folder (`claude -p --resume <id> <prompt>`)."""
    stem = session.path.stem
    if not UUID.match(stem) or session.path.suffix != ".jsonl":
        raise ResumeError(
            f"{session.path}: Claude Code resumes a session by its file name, `<uuid>.jsonl`; "
            "this file is not named so"
        )
    cwd = _project(session, "Claude Code")
    expected = project_key(str(cwd))
    note = ""
    if session.path.parent.name != expected:
        note = (
            f"Claude Code looks for it in ~/.claude/projects/{expected}/; "
            "this file is elsewhere, so it may say no conversation was found"
        )
    head = ("claude", "-p") if prompt is not None else ("claude",)
    return ResumeCommand("Claude Code", (*head, "--resume", stem, *_prompt(prompt)), cwd, note)


def codex_command(session: Session, prompt: str | None = None) -> ResumeCommand:
    """`codex resume <id>` (`codex exec --skip-git-repo-check resume <id> <prompt>`)."""
    session_id = _id(session, "Codex")
    cwd = _existing(session.cwd)
    note = "" if cwd else "its project folder is gone: Codex will work in the current folder"
    if "sessions" not in session.path.parts:
        note = "Codex looks for sessions under ~/.codex/sessions/; this file is elsewhere"
    if prompt is None:
        return ResumeCommand("Codex", ("codex", "resume", session_id), cwd, note)
    argv = ("codex", "exec", "--skip-git-repo-check", "resume", session_id, prompt)
    return ResumeCommand("Codex", argv, cwd, note)


def pi_command(session: Session, prompt: str | None = None) -> ResumeCommand:
    """`pi --session <file>` from the session's folder (`pi -p --session <file> <prompt>`)."""
    cwd = _project(session, "pi")
    head = ("pi", "-p") if prompt is not None else ("pi",)
    argv = (*head, "--session", str(session.path.resolve()), *_prompt(prompt))
    return ResumeCommand("pi", argv, cwd)


def dsh_command(session: Session, prompt: str | None = None) -> ResumeCommand:
    """`dsh --profile tui --resume <id>` from the session's folder."""
    session_id = _id(session, "DeepSeek Harness")
    cwd = _project(session, "DeepSeek Harness")
    note = "dsh 0.1.0 ships no tui profile; `dsh web` resumes it from the browser"
    argv = ("dsh", "--profile", "tui", "--resume", session_id, *_prompt(prompt))
    return ResumeCommand("DeepSeek Harness", argv, cwd, note)


BUILDERS: dict[str, Callable[[Session, str | None], ResumeCommand]] = {
    "claude": claude_command,
    "codex": codex_command,
    "pi": pi_command,
    "dsh": dsh_command,
}


def project_key(cwd: str) -> str:
    """Claude Code's folder name for a project: every character but a letter or digit → '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", cwd)


def _prompt(prompt: str | None) -> tuple[str, ...]:
    return () if prompt is None else (prompt,)


def _id(session: Session, agent: str) -> str:
    session_id = session.session_id
    if not isinstance(session_id, str) or not session_id or session_id.startswith("-"):
        raise ResumeError(f"{session.path}: no session id in the file; {agent} needs one to resume")
    return session_id


def _existing(cwd: object) -> Path | None:
    if not isinstance(cwd, str) or not cwd:
        return None
    path = Path(cwd)
    return path if path.is_absolute() and path.is_dir() else None


def _project(session: Session, agent: str) -> Path:
    """The session's project folder, which `agent` must be run from (ResumeError when gone)."""
    cwd = _existing(session.cwd)
    if cwd is None:
        where = session.cwd if isinstance(session.cwd, str) and session.cwd else "not recorded"
        raise ResumeError(
            f"{session.path}: its project folder ({where}) is gone; "
            f"{agent} resumes a session only from its project folder"
        )
    return cwd
