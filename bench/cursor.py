"""Benchmark the turn-list cursor and the turn it draws, on the UI thread (issue 12).

A cursor move costs what runs between the key and the frame that shows it. This script moves
the cursor N times (down, then back up) in a headless app and times, per move, on the UI thread:
`cursor`: the key's action and the repaint of every visible row of the turn list and the event
view; `key`: that plus asking for the new turn's events and painting the view (a turn of up to
40 events is built right there, a bigger one only handed to a worker); `install`: when a
worker's build lands, putting it on screen and painting it. `build_wall` is how long a worker's
build took to land (wall clock, off the UI thread). `key_cpu` and `install_cpu` are the UI
thread's own CPU time (`time.thread_time`), which other processes on a busy machine do not
inflate. The key-repeat debounce is set aside, so every move draws its turn (the worst case).
Target: one frame (16 ms) of CPU per key.

The session is made on the first run (kept in bench/data/): 5,000 Claude Code turns, every
tenth of the first 300 a turn of 514 events (170 tool calls), the others a prompt, one call and
an answer (21 MB, 49,703 events).

    python bench/cursor.py [--moves N] [--profile]

Prints the figures and writes bench/results/cursor.json.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import os
import platform
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
BIG = HERE / "data" / "cursor-5000-turns.jsonl"
TURNS = 5_000
BIG_EVERY = 10
BIG_UNTIL = 300
BIG_CALLS = 170
RESULTS = HERE / "results" / "cursor.json"
TARGET_MS = 16.0


def _sealed_home() -> None:
    home = Path(tempfile.mkdtemp(prefix="klipui-bench-home-"))
    for name, sub in (("HOME", ""), ("XDG_CACHE_HOME", ".cache"), ("XDG_CONFIG_HOME", ".config")):
        os.environ[name] = str(home / sub) if sub else str(home)


def generate(path: Path) -> None:
    """Write the benchmark session (see the module docstring)."""
    import random

    sys.path.insert(0, str(HERE))
    from open import WORDS, ClaudeWriter  # bench/open.py's Claude Code line writer

    rng = random.Random(12)
    writer = ClaudeWriter(rng, "5c0375b4-0000-4000-8000-000000000005", "/home/ana/work/app")
    path.parent.mkdir(parents=True, exist_ok=True)
    tool = 0
    with path.open("wb") as out:
        for number in range(1, TURNS + 1):
            calls = BIG_CALLS if number < BIG_UNTIL and number % BIG_EVERY == 0 else 1
            out.write(writer.prompt(f"Please {' '.join(rng.choices(WORDS, k=12))}") + b"\n")
            for _ in range(calls):
                tool += 1
                tool_id = f"toolu_{tool:08d}"
                command = f"pytest tests/test_{rng.choice(WORDS)}.py -q"
                call = (tool_id, "Bash", {"command": command, "description": "run tests"})
                out.write(writer.assistant(f"Checking {rng.choice(WORDS)}.", call) + b"\n")
                lines = "\n".join(" ".join(rng.choices(WORDS, k=8)) for _ in range(3))
                out.write(writer.result(tool_id, lines, error=tool % 17 == 0) + b"\n")
            answer = f"Done: **{rng.choice(WORDS)}** {' '.join(rng.choices(WORDS, k=20))}."
            out.write(writer.assistant(answer, None) + b"\n")


async def measure(moves: int, profile: cProfile.Profile | None) -> dict[str, Any]:
    sys.path.insert(0, str(HERE.parent))
    from klipui.app import KlipuiApp, Sources
    from klipui.widgets.event_view import EventView
    from klipui.widgets.turn_list import TurnList

    app = KlipuiApp(Sources(paths=[BIG]), now=1_800_000_000.0, open_first=BIG)
    async with app.run_test(size=(160, 48)) as pilot:
        end = time.monotonic() + 120
        while getattr(app.screen, "partial", True) or getattr(app.screen, "session", None) is None:
            if time.monotonic() > end:
                raise SystemExit("the session did not load in 120 s")
            await pilot.pause(0.1)
        screen = app.screen
        await pilot.pause(1.0)
        await app.workers.wait_for_complete()
        turns = screen.query_one(TurnList)
        view = screen.query_one(EventView)
        turns.focus()
        await pilot.pause()
        cursor: list[float] = []
        key: list[float] = []
        key_cpu: list[float] = []
        install: list[float] = []
        install_cpu: list[float] = []
        build: list[float] = []

        def paint(*widgets: Any) -> None:
            for widget in widgets:
                for y in range(widget.scrollable_content_region.height):
                    widget.render_line(y)

        landed = view._built

        def timed_install(*args: Any) -> None:
            started, cpu = time.perf_counter(), time.thread_time()
            landed(*args)
            paint(view)
            install.append((time.perf_counter() - started) * 1000)
            install_cpu.append((time.thread_time() - cpu) * 1000)

        view._built = timed_install  # what a landing build costs the UI thread
        for step in range(moves):
            screen._last_move = 0.0  # every move draws its turn (no key-repeat debounce)
            if profile is not None:
                profile.enable()
            started, cpu = time.perf_counter(), time.thread_time()
            turns.action_move(1 if step < moves // 2 else -1)
            paint(turns, view)
            cursor.append((time.perf_counter() - started) * 1000)
            screen.show_turn(turns.current.number)
            paint(view)
            key.append((time.perf_counter() - started) * 1000)
            key_cpu.append((time.thread_time() - cpu) * 1000)
            if view.building:  # a worker builds it: wait for it to land
                asked = time.perf_counter()
                while view.building:
                    await pilot.pause(0.005)
                build.append((time.perf_counter() - asked) * 1000)
            if profile is not None:
                profile.disable()
            await pilot.pause()
        return {
            "turns": len(turns.turns),
            "moves": moves,
            "cursor": _summary(cursor),
            "key": _summary(key),
            "key_cpu": _summary(key_cpu),
            "install": _summary(install),
            "install_cpu": _summary(install_cpu),
            "build_wall": _summary(build),
        }


def _summary(samples: list[float]) -> dict[str, float]:
    ordered = sorted(samples) or [0.0]
    return {
        "moves": len(samples),
        "p50_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
        "max_ms": round(ordered[-1], 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--profile", action="store_true", help="print the top of a cProfile")
    args = parser.parse_args()
    if not BIG.exists():
        generate(BIG)
    _sealed_home()
    profile = cProfile.Profile() if args.profile else None
    figures = asyncio.run(measure(args.moves, profile))
    report = {
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average_at_start": list(os.getloadavg()),
        "file_bytes": BIG.stat().st_size,
        "target_ms": TARGET_MS,
        "moves": figures,
    }
    print(json.dumps(report, indent=2))
    if profile is not None:
        pstats.Stats(profile).sort_stats("cumulative").print_stats(25)
    else:
        RESULTS.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
