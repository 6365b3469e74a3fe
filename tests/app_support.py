"""Helpers for the app's Pilot and snapshot tests: a fixed clock, waiting for workers, samples."""

from __future__ import annotations

import contextlib
import json
import shutil
from pathlib import Path

from textual.pilot import Pilot

from klipui.app import KlipuiApp, Sources

FIXED_NOW = 1_800_000_000.0
"""2027-01-15: every relative time in the app is measured from here in tests."""
SAMPLES = Path(__file__).resolve().parent / "fixtures" / "samples"


def make_app(*paths: Path, open_first: Path | None = None) -> KlipuiApp:
    """The app on `paths`, with a frozen clock."""
    return KlipuiApp(Sources(paths=list(paths)), now=FIXED_NOW, open_first=open_first)


async def settle(pilot: Pilot, app: KlipuiApp, rounds: int = 3) -> None:
    """Wait for every worker and the messages they posted."""
    from textual.worker import WorkerCancelled

    for _ in range(rounds):
        with contextlib.suppress(WorkerCancelled):  # a run superseded by a newer one
            await app.workers.wait_for_complete()
        await pilot.pause()
    await pilot.wait_for_scheduled_animations()


async def wait_for(pilot: Pilot, predicate, timeout: float = 10.0) -> None:
    """Pause until `predicate()` holds (workers post their results asynchronously)."""
    import time

    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError("condition not reached in time")
        await pilot.pause(0.02)


def copy_samples(target: Path, names: list[str], mtime: float = FIXED_NOW - 3600) -> list[Path]:
    """Copy sample files (agent/name) into `target` with a fixed mtime."""
    out = []
    for name in names:
        source = SAMPLES / name
        dest = target / source.name
        shutil.copyfile(source, dest)
        import os

        os.utime(dest, (mtime, mtime))
        out.append(dest)
    return out


def big_result_session(path: Path, lines: int = 150_000) -> Path:
    """A generic-messages session whose one tool result is ~10 MB (a line in 5,000 has ERROR)."""
    big = "\n".join(
        f"line {i}: " + "x" * 60 + (" ERROR boom" if i % 5000 == 0 else "") for i in range(lines)
    )
    rows = [
        {"role": "user", "content": "run the big thing"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "bash", "arguments": '{"command": "cat big.log"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": big},
        {"role": "assistant", "content": "Done. **Bold** and `code`."},
        {"role": "user", "content": "second prompt"},
        {"role": "assistant", "content": "ok"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def tool_result_session(path: Path, result: str, command: str = "pytest -v") -> Path:
    """A generic-messages session of one turn: a bash call and its result `result`."""
    rows = [
        {"role": "user", "content": "run the tests"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "bash", "arguments": json.dumps({"command": command})},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": result},
        {"role": "assistant", "content": "Here is what failed."},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path
