"""Benchmark `klipui ls` as a user sees it: time to the first row on a terminal, and to the end.

Runs `klipui ls <folder>` in a pseudo-terminal (a fresh klipui cache each cold run; the files'
pages are first dropped from the OS page cache with posix_fadvise, so the reads are cold), and
notes when the first session row appears and when the command ends; then the same warm (cache
kept, pages cached), and piped (no terminal: the table at the end). Uses the 1,000-file listing
that `bench/open.py` generates (bench/data/listing). Prints the figures and writes
bench/results/ls_cli.json.

    python bench/ls_cli.py [FOLDER]
"""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "ls_cli.json"
ROW_MARK = b"DeepSeek Harness"
"""Text of a session row (the listing's sessions are dsh and Claude Code ones)."""


def drop_pages(folder: Path) -> None:
    """Ask the OS to forget the cached pages of every file under `folder`."""
    for directory, _, names in os.walk(folder):
        for name in names:
            fd = os.open(os.path.join(directory, name), os.O_RDONLY)
            try:
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)


def run_in_terminal(folder: Path, home: Path, marks: tuple[bytes, ...]) -> dict[str, float]:
    """Seconds until the output first holds a session row, and until the command ends."""
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
    env.update(COLUMNS="160", LINES="48", TERM="xterm-256color")
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        os.execvpe(sys.executable, [sys.executable, "-m", "klipui", "ls", str(folder)], env)
    first = None
    seen = b""
    while True:
        ready, _, _ = select.select([fd], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            break
        if not chunk:
            break
        seen = (seen + chunk)[-4096:]
        if first is None and any(mark in seen for mark in marks):
            first = time.perf_counter() - start
    os.waitpid(pid, 0)
    return {
        "first_row_seconds": round(first or -1, 3),
        "total_seconds": round(time.perf_counter() - start, 3),
    }


def run_piped(folder: Path, home: Path) -> float:
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(home / ".cache")}
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "klipui", "ls", str(folder)],
        env=env,
        capture_output=True,
        check=True,
    )
    return round(time.perf_counter() - start, 3)


def main() -> int:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "data" / "listing"
    if not folder.is_dir():
        print(
            f"{folder}: missing; run `python bench/open.py` first to generate it", file=sys.stderr
        )
        return 1
    files = [p for p in folder.rglob("*.jsonl*")]
    results: dict[str, Any] = {"files": len(files), "bytes": sum(p.stat().st_size for p in files)}
    marks = (ROW_MARK, b"Claude Code")
    home = Path(tempfile.mkdtemp(prefix="klipui-bench-ls-"))
    drop_pages(folder)
    results["terminal_cold"] = run_in_terminal(folder, home, marks)
    results["terminal_warm"] = run_in_terminal(folder, home, marks)
    cold_home = Path(tempfile.mkdtemp(prefix="klipui-bench-ls-"))
    drop_pages(folder)
    results["piped_cold_seconds"] = run_piped(folder, cold_home)
    results["piped_warm_seconds"] = run_piped(folder, cold_home)
    print(json.dumps(results, indent=2))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
