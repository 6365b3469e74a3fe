"""Benchmark the app with Pilot (headless): time to the first turn, per-key latency, first rows.

Targets (issue 5):
- open the 100 MB Claude Code session of bench/open.py and show its first turn: <= 1.0 s;
- cursor and scroll keys on a session of 5,000 turns: <= 50 ms per key at p95;
- sessions screen over 2,000 session files: first rows on screen <= 0.5 s.
Target (issue 12): open and close a 30 MB Claude Code session ten times in one app: the process's
RSS after the tenth close within 15 % of that after the first, every closed screen freed
(`--only churn` runs just this; it makes only the 30 MB file).

Per key three figures: `raw` is the wall time of a Pilot `press` (Pilot waits for idle in
20 ms steps, so a key that does any work costs at least ~62 ms and an unbound key ~42 ms); `net`
is raw minus the unbound-key round trip (the app's own share); `cpu` is the process CPU time a
key costs (the app's work, Pilot's own bookkeeping included, ~1.5 ms).

Data is generated into bench/data/ (reused when present). Prints the figures and writes
bench/results/app.json.

    python bench/app.py [--keys N] [--repeat R]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
RESULTS = HERE / "results" / "app.json"
BIG = DATA / "claude-100mb.jsonl"
TURNS_FILE = DATA / "app-5000-turns.jsonl"
SESSIONS_DIR = DATA / "app-2000-sessions"
CHURN_FILE = DATA / "claude-30mb.jsonl"
CHURN_BYTES = 30 * 1024 * 1024
CHURN_TIMES = 10
TURNS = 5_000
SESSIONS = 2_000
NOW = 1_800_000_000.0
WORDS = [
    "build",
    "test",
    "error",
    "module",
    "import",
    "value",
    "result",
    "config",
    "path",
    "file",
    "line",
    "output",
]


def _sentence(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def make_turns_session(path: Path, turns: int) -> None:
    """A generic-messages session of `turns` turns, each with a tool call and a result."""
    rng = random.Random(5)
    with path.open("w", encoding="utf-8") as out:
        for turn in range(turns):
            call = f"call_{turn}"
            result = "\n".join(_sentence(rng, 4, 14) for _ in range(rng.randint(5, 200)))
            rows = [
                {"role": "user", "content": f"turn {turn}: {_sentence(rng, 5, 20)}"},
                {
                    "role": "assistant",
                    "content": _sentence(rng, 10, 60),
                    "tool_calls": [
                        {
                            "id": call,
                            "type": "function",
                            "function": {
                                "name": "bash",
                                "arguments": json.dumps({"command": f"make test-{turn}"}),
                            },
                        }
                    ],
                },
                {"role": "tool", "tool_call_id": call, "content": result},
                {"role": "assistant", "content": _sentence(rng, 10, 40)},
            ]
            for row in rows:
                out.write(json.dumps(row) + "\n")


def make_sessions(folder: Path, count: int) -> None:
    """`count` small session files (generic messages) in one folder."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(6)
    for index in range(count):
        rows = []
        for turn in range(rng.randint(1, 6)):
            rows.append(
                {"role": "user", "content": f"session {index} turn {turn} {_sentence(rng, 3, 12)}"}
            )
            rows.append({"role": "assistant", "content": _sentence(rng, 20, 200)})
        text = "\n".join(json.dumps(r) for r in rows) + "\n"
        (folder / f"session-{index:05d}.jsonl").write_text(text, encoding="utf-8")


def prepare() -> None:
    if not BIG.exists():
        print("generating the 100 MB session with bench/open.py…", file=sys.stderr)
        command = [sys.executable, str(HERE / "open.py"), "--generate", "--skip-listing"]
        subprocess.run(command, check=True)
    if not TURNS_FILE.exists():
        print(f"generating a session of {TURNS:,} turns…", file=sys.stderr)
        make_turns_session(TURNS_FILE, TURNS)
    if not SESSIONS_DIR.exists() or len(list(SESSIONS_DIR.glob("*.jsonl"))) < SESSIONS:
        print(f"generating {SESSIONS:,} session files…", file=sys.stderr)
        make_sessions(SESSIONS_DIR, SESSIONS)


def make_churn_session(path: Path) -> None:
    """A 30 MB Claude Code session made by bench/open.py's generator."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("klipui_bench_open", HERE / "open.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    lines = module.claude_lines(random.Random(12), CHURN_BYTES, 6_000, 2 * 1024 * 1024)
    module.write_lines(path, lines)


def rss_bytes() -> int:
    """The process's resident set size now (Linux)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE")


def _loaded(screen: Any) -> bool:
    """True once a session screen holds its whole session."""
    return getattr(screen, "session", None) is not None and not getattr(screen, "partial", True)


async def open_close(path: Path, times: int) -> dict[str, Any]:
    """RSS after each of `times` opens and closes of `path` in one app (no forced collection
    between them), and how many closed session screens are still alive at the end."""
    import weakref

    from klipui.app import KlipuiApp, Sources
    from klipui.screens.session import SessionScreen

    after: list[int] = []
    screens: list[weakref.ref[SessionScreen]] = []
    app = KlipuiApp(Sources(paths=[path]), now=NOW)
    async with app.run_test(size=(160, 48)) as pilot:
        before = rss_bytes()
        for _ in range(times):
            app.open_session(path)
            await _until(pilot, lambda: isinstance(app.screen, SessionScreen))
            await _until(pilot, lambda: _loaded(app.screen))
            await app.workers.wait_for_complete()
            screens.append(weakref.ref(app.screen))
            app.pop_screen()
            await pilot.pause(0.2)
            after.append(rss_bytes())
        import gc

        gc.collect()
        alive = sum(1 for ref in screens if ref() is not None)
    growth = after[-1] / after[0] - 1
    return {
        "file_bytes": path.stat().st_size,
        "times": times,
        "rss_before_mb": round(before / 2**20, 1),
        "rss_after_each_close_mb": [round(value / 2**20, 1) for value in after],
        "growth_first_to_last": round(growth, 3),
        "screens_alive_after_collect": alive,
    }


def _sealed_home() -> None:
    """Keep the benchmark off the user's own cache and sessions."""
    home = Path(tempfile.mkdtemp(prefix="klipui-bench-home-"))
    for name, sub in (
        ("HOME", ""),
        ("XDG_CACHE_HOME", ".cache"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_CONFIG_HOME", ".config"),
        ("CLAUDE_CONFIG_DIR", ".claude"),
        ("CODEX_HOME", ".codex"),
        ("DSH_HOME", ".dsh"),
    ):
        os.environ[name] = str(home / sub) if sub else str(home)


async def _until(pilot: Any, predicate: Callable[[], bool], timeout: float = 120.0) -> None:
    end = time.perf_counter() + timeout
    while not predicate():
        if time.perf_counter() > end:
            raise TimeoutError("condition not reached")
        await asyncio.sleep(0.002)


async def first_turn(path: Path) -> dict[str, float]:
    """Seconds from starting the app on `path` to its first turn's events on screen."""
    from klipui.app import KlipuiApp, Sources
    from klipui.widgets.event_view import EventView

    started = time.perf_counter()
    app = KlipuiApp(Sources(paths=[path]), now=NOW, open_first=path)
    async with app.run_test(size=(160, 48)) as pilot:
        await _until(pilot, lambda: getattr(app.screen, "session", None) is not None)
        screen = app.screen
        view = screen.query_one(EventView)
        await _until(pilot, lambda: view.document is not None)
        shown = time.perf_counter() - started
        await _until(pilot, lambda: not screen.partial)
        loaded = time.perf_counter() - started
        await app.workers.wait_for_complete()
        return {
            "first_turn_shown_seconds": shown,
            "fully_loaded_seconds": loaded,
            "turns_at_first_paint": len(screen.query_one("TurnList").turns),
        }


def _p95(ordered: list[float]) -> float:
    return ordered[max(0, round(0.95 * len(ordered)) - 1)]


def _summary(samples: list[tuple[float, float]], baseline_ms: float = 0.0) -> dict[str, float]:
    """p50/p95/max of (wall, cpu) seconds a key, in ms; `net` subtracts the Pilot round trip."""
    wall = sorted(w for w, _ in samples)
    cpu = sorted(c for _, c in samples)
    out = {
        "keys": len(samples),
        "p50_ms": statistics.median(wall) * 1000,
        "p95_ms": _p95(wall) * 1000,
        "max_ms": wall[-1] * 1000,
        "cpu_p50_ms": statistics.median(cpu) * 1000,
        "cpu_p95_ms": _p95(cpu) * 1000,
    }
    if baseline_ms:
        out["net_p50_ms"] = out["p50_ms"] - baseline_ms
        out["net_p95_ms"] = out["p95_ms"] - baseline_ms
    return out


async def key_latency(path: Path, presses: int) -> dict[str, Any]:
    """Per-key time of cursor moves in the turn list and scrolling in the event view."""
    from klipui.app import KlipuiApp, Sources
    from klipui.widgets.event_view import EventView
    from klipui.widgets.turn_list import TurnList

    app = KlipuiApp(Sources(paths=[path]), now=NOW, open_first=path)
    out: dict[str, Any] = {}
    async with app.run_test(size=(160, 48)) as pilot:
        await _until(pilot, lambda: getattr(app.screen, "session", None) is not None)
        screen = app.screen
        await pilot.pause(0.5)  # the listing starts once the session is on screen
        await app.workers.wait_for_complete()
        turns = screen.query_one(TurnList)
        view = screen.query_one(EventView)
        out["turns"] = len(turns.turns)

        async def measure(keys: list[str]) -> list[tuple[float, float]]:
            samples = []
            for key in keys:
                started, cpu = time.perf_counter(), time.process_time()
                await pilot.press(key)
                samples.append((time.perf_counter() - started, time.process_time() - cpu))
            return samples

        turns.focus()
        await pilot.pause()
        samples = {
            "turn_cursor_down": await measure(["down"] * presses),
            "turn_page_down": await measure(["pagedown"] * (presses // 4)),
            "turn_end_home": await measure(["end", "home"] * 10),
        }
        # the events of the biggest turn (~200 rows), so every scroll key moves
        turns.cursor = max(range(len(turns.turns)), key=lambda i: turns.turns[i].tokens)
        await pilot.pause(0.2)
        view.focus()
        await pilot.pause()
        out["event_rows"] = view.virtual_size.height
        samples["event_scroll_down"] = await measure(["down"] * min(presses, out["event_rows"]))
        samples["event_page_down_up"] = await measure(["pagedown", "pageup"] * (presses // 8))
        idle = await measure(["f24"] * 50)  # an unbound key: the cost of a key round trip alone
        out["unbound_key_baseline"] = _summary(idle)
        base = out["unbound_key_baseline"]["p50_ms"]
        for name, keys in samples.items():
            out[name] = _summary(keys, base)
    return out


async def sessions_first_rows(folder: Path) -> dict[str, float]:
    """Seconds from starting the app on `folder` to the first rows, and to every row."""
    from klipui.app import KlipuiApp, Sources
    from klipui.screens.sessions import SessionsScreen, SessionTable

    started = time.perf_counter()
    app = KlipuiApp(Sources(paths=[folder]), now=NOW)
    async with app.run_test(size=(160, 48)) as pilot:
        await _until(pilot, lambda: isinstance(app.screen, SessionsScreen))
        screen = app.screen
        table = screen.query_one(SessionTable)
        await _until(pilot, lambda: table.row_count > 0)
        first = time.perf_counter() - started
        first_count = table.row_count
        await _until(pilot, lambda: not screen.discovering, timeout=600)
        await pilot.pause(0.3)
        every = time.perf_counter() - started
        return {
            "sessions": len(screen.infos),
            "first_rows_seconds": first,
            "rows_at_first_paint": first_count,
            "all_listed_seconds": every,
        }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keys", type=int, default=200, help="key presses per measurement")
    parser.add_argument("--repeat", type=int, default=3, help="repeats of the open measurement")
    parser.add_argument("--only", choices=["churn"], help="run one measurement only")
    args = parser.parse_args()
    if args.only == "churn":
        return churn_only()
    prepare()
    _sealed_home()
    results: dict[str, Any] = {
        "python": sys.version.split()[0],
        "cpus": os.cpu_count(),
        "load_average_at_start": os.getloadavg(),
        "targets": {"first_turn_seconds": 1.0, "key_p95_ms": 50, "first_rows_seconds": 0.5},
        "files": {"big": str(BIG.relative_to(HERE)), "big_bytes": BIG.stat().st_size},
    }
    opens = [asyncio.run(first_turn(BIG)) for _ in range(args.repeat)]
    best = min(opens, key=lambda r: r["first_turn_shown_seconds"])
    results["open_100mb"] = {**best, "runs": opens}
    print(
        f"100 MB session, first turn shown: {best['first_turn_shown_seconds']:.2f} s "
        f"(whole file loaded {best['fully_loaded_seconds']:.2f} s)"
    )
    results["keys_5000_turns"] = asyncio.run(key_latency(TURNS_FILE, args.keys))
    for name, figures in results["keys_5000_turns"].items():
        if isinstance(figures, dict):
            net = f", net p95 {figures['net_p95_ms']:.1f} ms" if "net_p95_ms" in figures else ""
            print(
                f"{name}: raw p50 {figures['p50_ms']:.1f} ms, p95 {figures['p95_ms']:.1f} ms{net};"
                f" cpu p50 {figures['cpu_p50_ms']:.1f} ms, p95 {figures['cpu_p95_ms']:.1f} ms"
            )
    rows = [asyncio.run(sessions_first_rows(SESSIONS_DIR)) for _ in range(args.repeat)]
    best_rows = min(rows, key=lambda r: r["first_rows_seconds"])
    results["sessions_2000"] = {**best_rows, "runs": rows}
    print(
        f"{best_rows['sessions']:,} sessions: first rows {best_rows['first_rows_seconds']:.2f} s,"
        f" all listed {best_rows['all_listed_seconds']:.2f} s"
    )
    results["load_average_at_end"] = os.getloadavg()
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS}")
    return 0


def churn_only() -> int:
    """Just the open/close measurement; its figures go to bench/results/app_churn.json."""
    if not CHURN_FILE.exists():
        print("generating a 30 MB session…", file=sys.stderr)
        make_churn_session(CHURN_FILE)
    _sealed_home()
    figures = asyncio.run(open_close(CHURN_FILE, CHURN_TIMES))
    print(
        f"open/close a {figures['file_bytes'] / 2**20:.0f} MB session {figures['times']}x: RSS "
        f"{figures['rss_after_each_close_mb'][0]} MB after the first close, "
        f"{figures['rss_after_each_close_mb'][-1]} MB after the last "
        f"({figures['growth_first_to_last']:+.1%}); screens alive: "
        f"{figures['screens_alive_after_collect']}"
    )
    out = RESULTS.with_name("app_churn.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
