"""Qwen Code for `resume_check.py` (../shared/tools): how to install a session where `qwen
--resume` finds it, offline against the checker's stand-in API.

`register(checker)` adds the agent "qwen" to a loaded resume_check module (its `SETUP` and
`BINARY` tables); the checker then runs it like the others and reads the OpenAI chat request it
sends. What Qwen Code 0.24.4 needs (read in its shipped JS, `chunk-DPEB6S2R.js`):

- the file at `$HOME/.qwen/projects/<cwd, non-alphanumerics as ->/chats/<sessionId>.jsonl`, the
  id 32 to 36 hex digits and dashes;
- the first record's `cwd` equal to the folder `qwen` runs in (else "belongs to another
  project"): the installed copy has every record's `cwd` set to the check's own temp folder;
- one `sessionId` in every record (mixed ids are refused);
- an OpenAI-compatible endpoint: `--auth-type openai`, `OPENAI_BASE_URL`, `OPENAI_API_KEY`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

SESSION_NAME = re.compile(r"^[0-9a-fA-F-]{32,36}$")


def qwen_binary() -> Path | None:
    """The installed `qwen`: `$KLIPUI_QWEN`, the agents' cache (install-agents.sh's
    `$KLIPUI_AGENTS`), else PATH; None when there is none."""
    given = os.environ.get("KLIPUI_QWEN")
    if given:
        return Path(given) if Path(given).exists() else None
    home = os.environ.get("KLIPUI_AGENTS")
    if home and (Path(home) / "node_modules/.bin/qwen").exists():
        return Path(home) / "node_modules/.bin/qwen"
    found = shutil.which("qwen")
    return Path(found) if found else None


def project_folder(cwd: str) -> str:
    """The folder name Qwen Code gives a working directory under `~/.qwen/projects`."""
    return re.sub(r"[^a-zA-Z0-9]", "-", cwd)


def install(src: Path, home: Path, cwd: str) -> tuple[str, list[str]]:
    """Copy the session `src` where `qwen --resume` looks for it; its id, and notes."""
    notes: list[str] = []
    rows: list[Any] = []
    for line in src.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            rows.append(json.loads(line))
        except ValueError:
            notes.append("an unreadable line left out")
    ids = {r.get("sessionId") for r in rows if isinstance(r, dict)}
    sid = next((i for i in ids if isinstance(i, str)), "")
    if len(ids) != 1:
        notes.append(f"{len(ids)} session ids in the file (Qwen Code refuses mixed ids)")
    if not SESSION_NAME.match(sid):
        notes.append(f"session id {sid!r} is not a UUID: Qwen Code will not find the file")
    old = {r.get("cwd") for r in rows if isinstance(r, dict)}
    notes.append(f"record cwd {sorted(map(str, old))} set to the temp cwd (Qwen checks it)")
    out = [json.dumps({**r, "cwd": cwd}) if isinstance(r, dict) else json.dumps(r) for r in rows]
    chats = home / ".qwen" / "projects" / project_folder(cwd) / "chats"
    chats.mkdir(parents=True)
    (chats / f"{sid}.jsonl").write_text("\n".join(out) + "\n", encoding="utf-8")
    return sid, notes


def setup(
    src: Path, tmp: Path, api: Any, prompt: str
) -> tuple[list[str], Path, dict[str, str], list[str]]:
    """(cmd, cwd, env, notes) for resume_check: install `src` and resume it with `prompt`."""
    binary = qwen_binary()
    if binary is None:
        raise NotImplementedError("qwen is not installed (set KLIPUI_QWEN)")
    home, proj = tmp / "home", tmp / "proj"
    proj.mkdir(parents=True)
    cwd = os.path.realpath(proj)
    sid, notes = install(src, home, cwd)
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "USER", "SHELL")}
    env.update(
        HOME=str(home),
        TERM="dumb",
        NO_COLOR="1",
        CI="1",
        OPENAI_API_KEY="dummy",
        OPENAI_BASE_URL=f"{api.url}/v1",
        OPENAI_MODEL="qwen3-coder-plus",
        QWEN_CODE_SUPPRESS_YOLO_WARNING="1",
    )
    cmd = [str(binary), "--auth-type", "openai", "--resume", sid, prompt]
    return cmd, Path(cwd), env, notes


def register(checker: ModuleType) -> bool:
    """Add "qwen" to a loaded resume_check module; False when qwen is not installed."""
    binary = qwen_binary()
    if binary is None:
        return False
    checker.SETUP["qwen"] = setup
    checker.BINARY["qwen"] = str(binary)  # an absolute path: find_bin joins it unchanged
    return True
