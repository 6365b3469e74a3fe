"""Benchmark: open (read + lower) and raise big pi and generic-messages sessions, and export them.

Generates under bench/data/ (once): a ~100 MB pi v3 session and a ~100 MB OpenAI messages file,
both made of many copies of the demo script's turns (fresh ids per copy). For each: time to
`open_session`, time to raise every event back (and whether the bytes are identical), time to
build the Anthropic export, and the peak RSS of a child process doing all three. Prints the
figures and writes bench/results/pi_messages_export.json.

    python bench/pi_messages_export.py [--mb 100]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
DATA = ROOT / "data"
RESULTS = ROOT / "results"


def generate(kind: str, megabytes: int) -> Path:
    from klipui.demo.build import dumps, make_uuid, messages_lines, pi_lines
    from klipui.demo.script import demo_script

    path = DATA / f"{kind}_{megabytes}mb.jsonl"
    if path.exists():
        return path
    DATA.mkdir(parents=True, exist_ok=True)
    turns = []
    size = 0
    copy = 0
    while size < megabytes * 1_000_000:
        script = demo_script(10_000 + copy, f"call_{copy}_")
        turns.extend(script)
        size += sum(len(c.output) for t in script for s in t.steps for c in s.calls) + 4000
        copy += 1
    rng = random.Random(1)
    writer = pi_lines if kind == "pi" else messages_lines
    lines = writer(turns, rng, make_uuid(rng))
    temp = path.with_suffix(".tmp")
    with temp.open("wb") as out:
        for line in lines:
            out.write(dumps(line) + b"\n")
    temp.rename(path)
    return path


def measure(path: str) -> dict[str, object]:
    """Run in a child: open, raise, export; times and peak RSS."""
    from klipui.conversation.api import anthropic_request
    from klipui.session import open_session
    from klipui.session.formats import adapter

    started = time.perf_counter()
    session = open_session(path)
    opened = time.perf_counter()
    module = adapter(session.format)
    data = b"".join(line + b"\n" for line in module.raise_records(session, session.events))
    raised = time.perf_counter()
    identical = data == Path(path).read_bytes()
    del data
    before_export = time.perf_counter()
    request = anthropic_request(session)
    exported = time.perf_counter()
    return {
        "format": session.format,
        "bytes": Path(path).stat().st_size,
        "events": len(session.events),
        "turns": len(session.turns),
        "open_s": round(opened - started, 3),
        "raise_s": round(raised - opened, 3),
        "raise_identical": identical,
        "export_s": round(exported - before_export, 3),
        "export_messages": len(request["messages"]),
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mb", type=int, default=100, help="size of each generated file in MB")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child)))
        return 0
    results = {}
    for kind in ("pi", "messages"):
        path = generate(kind, args.mb)
        done = subprocess.run(
            [sys.executable, __file__, "--child", str(path)],
            capture_output=True,
            text=True,
            check=True,
        )
        figures = json.loads(done.stdout)
        figures["rss_over_file"] = round(figures["peak_rss_mb"] * 1024 * 1024 / figures["bytes"], 2)
        results[kind] = figures
        print(f"{kind:9} {figures}")
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "pi_messages_export.json").write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
