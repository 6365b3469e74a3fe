"""Make the real Qwen Code CLI write a multi-turn session with tool calls it really ran.

    python tests/tools/write_qwen_session.py [--name N] [--out DIR]

The CLI (`qwen`, from npm `@qwen-code/qwen-code`; `KLIPUI_QWEN` names its binary) talks to
`scripted_api.py` beside this file on 127.0.0.1 (OpenAI chat completions), never to the network.
Each prompt is one `qwen --yolo` run, the first with `--session-id`, the others `--resume` it;
`/compress` compacts the chat in the middle. The chat file lands under the throw-away home
(`~/.qwen/projects/<cwd>/chats/<id>.jsonl`) and is copied to `--out`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROMPTS = [
    "Turn one: look around the tmp dir [tools:2]",
    "Turn two: run two things at once [par]",
    "Turn three: just answer, no tools [none]",
    "Turn four: print a big listing [big]",
    "Turn five: try a missing dir [fail]",
    "/compress",
    "Turn seven: one step after the compression [tools:1]",
    "Turn eight: three steps in a row [tools:3]",
    "Turn nine: wrap up [none]",
]


def qwen_binary() -> Path | None:
    """The installed `qwen` CLI: `$KLIPUI_QWEN`, else on PATH, else None."""
    given = os.environ.get("KLIPUI_QWEN")
    if given:
        return Path(given)
    found = shutil.which("qwen")
    return Path(found) if found else None


def free_port() -> int:
    """A free loopback TCP port."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def qwen_env(home: Path, port: int) -> dict[str, str]:
    """A minimal environment that points Qwen Code at the stand-in API in a throw-away home."""
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "USER", "SHELL")}
    env.update(
        HOME=str(home),
        TERM="dumb",
        NO_COLOR="1",
        CI="1",
        OPENAI_API_KEY="dummy",
        OPENAI_BASE_URL=f"http://127.0.0.1:{port}/v1",
        OPENAI_MODEL="qwen3-coder-plus",
        QWEN_CODE_SUPPRESS_YOLO_WARNING="1",
    )
    return env


def run(cmd: list[str], cwd: Path, env: dict[str, str], timeout: float = 120.0) -> tuple[int, str]:
    """Run `cmd`; its exit code (-9 when killed at the timeout) and the tail of its output."""
    proc = subprocess.Popen(
        cmd,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
    return proc.returncode, out.decode(errors="replace").strip()[-200:]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--name", default="qwen")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "klipui-qwen")
    args = parser.parse_args()
    binary = qwen_binary()
    if binary is None:
        print("qwen is not installed (set KLIPUI_QWEN)", file=sys.stderr)
        return 1
    work = Path(tempfile.mkdtemp(prefix="klipui-qwen-write-"))
    home, proj, log = work / "home", work / "proj", work / "log"
    for folder in (home, proj, log):
        folder.mkdir(parents=True)
    port = free_port()
    api = subprocess.Popen(
        [sys.executable, str(HERE / "scripted_api.py"), str(port), str(log), "900"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    time.sleep(1)
    env = qwen_env(home, port)
    sid = str(uuid.uuid4())
    try:
        for number, prompt in enumerate(PROMPTS):
            which = ["--session-id", sid] if number == 0 else ["--resume", sid]
            cmd = [str(binary), "--auth-type", "openai", "--yolo", *which, prompt]
            start = time.monotonic()
            code, tail = run(cmd, proj, env)
            print(f"{prompt[:40]!r}: rc={code} {time.monotonic() - start:.1f}s {tail[-80:]!r}")
    finally:
        os.killpg(api.pid, signal.SIGTERM)
    args.out.mkdir(parents=True, exist_ok=True)
    for chat in home.glob(".qwen/projects/*/chats/*.jsonl"):
        dest = args.out / f"{args.name}-{chat.name}"
        shutil.copyfile(chat, dest)
        print("wrote", dest, sum(1 for _ in dest.open("rb")), "lines")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
