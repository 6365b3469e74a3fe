"""Bundled demo sessions: one per supported format, written by `klipui.demo.build`.

They show what klipui does with a first run on a machine without sessions of its own: big tool
outputs of several shapes (a pytest run with failures, a cargo build with errors, a git diff, an
application log, a JSON document, a recursive listing) in four turns of plausible work.
"""

from __future__ import annotations

from pathlib import Path

SESSIONS = Path(__file__).resolve().parent / "sessions"
"""The folder the demo sessions live in (package data)."""


def demo_paths() -> list[Path]:
    """The demo session files, sorted by path (empty when the package data is missing)."""
    if not SESSIONS.is_dir():
        return []
    return sorted(p for p in SESSIONS.rglob("*.jsonl") if p.is_file())


def is_demo(path: Path) -> bool:
    """True for a bundled demo session: package data, whose file time is when it was
    installed, not when an agent wrote it (so it is never live)."""
    return path.resolve().is_relative_to(SESSIONS)
