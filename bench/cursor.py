"""Benchmark the turn-list cursor on the 100 MB Claude Code session (issue 15, item 11).

A cursor move costs what runs between the key and the frame that shows it: the key's action
and the rows that frame repaints; the event view follows in the next frame. This script moves
the cursor N times on the session of bench/open.py in a headless app and times, per move,
`cursor`: the action and the repaint of every visible row of the turn list and the event view;
and `turn`: drawing the new turn's events after that frame (building its blocks, laying them
out, painting the visible rows). The key-repeat debounce is set aside, so every move draws its
turn (the worst case). Target: `cursor` under one frame (16 ms).

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
BIG = HERE / "data" / "claude-100mb.jsonl"
RESULTS = HERE / "results" / "cursor.json"
TARGET_MS = 16.0


def _sealed_home() -> None:
    home = Path(tempfile.mkdtemp(prefix="klipui-bench-home-"))
    for name, sub in (("HOME", ""), ("XDG_CACHE_HOME", ".cache"), ("XDG_CONFIG_HOME", ".config")):
        os.environ[name] = str(home / sub) if sub else str(home)


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
        turn: list[float] = []

        def paint(*widgets: Any) -> None:
            for widget in widgets:
                for y in range(widget.scrollable_content_region.height):
                    widget.render_line(y)

        for step in range(moves):
            screen._last_move = 0.0  # every move draws its turn (no key-repeat debounce)
            if profile is not None:
                profile.enable()
            started = time.perf_counter()
            turns.action_move(1 if step < moves // 2 else -1)
            paint(turns, view)
            cursor.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            screen.show_turn(turns.current.number)
            paint(view)
            turn.append((time.perf_counter() - started) * 1000)
            if profile is not None:
                profile.disable()
            await pilot.pause()
        return {
            "turns": len(turns.turns),
            "moves": moves,
            "cursor": _summary(cursor),
            "turn": _summary(turn),
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
        raise SystemExit(f"{BIG}: missing (python bench/open.py --generate --skip-listing)")
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
