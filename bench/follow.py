"""Benchmark following a growing Claude Code session: the cost of one look, and of one append.

Generates a Claude Code session of about `--mb` MB (turns of a prompt, an assistant tool call and
its 2 KB result, linked by `parentUuid`), opens it, then times: starting a follower (finding the
end of the file), a look at an unchanged file (`due`, one stat; `poll`), and a poll after one
more turn was appended (read from the last offset, merged, lowered again). Prints the figures
and writes bench/results/follow.json.

    python bench/follow.py [--mb 20]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import orjson

from klipui.session import open_session
from klipui.session.follow import Follower

RESULTS = Path(__file__).resolve().parent / "results" / "follow.json"


def _turn(number: int, parent: str | None) -> tuple[list[bytes], str]:
    """The lines of one turn and the uuid of its last line."""
    ids = [str(uuid.uuid4()) for _ in range(3)]
    call = f"toolu_{number:08d}"
    stamp = f"2026-03-02T{number // 3600 % 24:02d}:{number // 60 % 60:02d}:{number % 60:02d}.000Z"
    base = {
        "sessionId": "bench",
        "cwd": "/tmp/bench",
        "type": "user",
        "isSidechain": False,
        "timestamp": stamp,
    }
    prompt = {
        **base,
        "uuid": ids[0],
        "parentUuid": parent,
        "message": {"role": "user", "content": f"Step {number}: run the tests again"},
    }
    answer = {
        **base,
        "type": "assistant",
        "uuid": ids[1],
        "parentUuid": ids[0],
        "message": {
            "id": f"msg_{number}",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 10, "output_tokens": 10},
            "content": [
                {"type": "tool_use", "id": call, "name": "Bash", "input": {"command": "pytest"}}
            ],
        },
    }
    output = "\n".join(f"tests/test_{i}.py::test_case_{number} PASSED" for i in range(45))
    result = {
        **base,
        "uuid": ids[2],
        "parentUuid": ids[1],
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": call, "content": output}],
        },
    }
    return [orjson.dumps(v) + b"\n" for v in (prompt, answer, result)], ids[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=20.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"{uuid.uuid4()}.jsonl"
        parent: str | None = None
        size = 0
        number = 0
        with path.open("wb") as out:
            while size < args.mb * 1_000_000:
                number += 1
                lines, parent = _turn(number, parent)
                for line in lines:
                    out.write(line)
                    size += len(line)
        started = time.perf_counter()
        session = open_session(path)
        opened = time.perf_counter() - started
        started = time.perf_counter()
        follower = Follower(session)
        follower_start = time.perf_counter() - started
        looks = []
        for _ in range(200):
            started = time.perf_counter()
            follower.due()
            looks.append(time.perf_counter() - started)
        appends = []
        for _ in range(5):
            number += 1
            lines, parent = _turn(number, parent)
            with path.open("ab") as out:
                out.write(b"".join(lines))
            started = time.perf_counter()
            change = follower.poll()
            appends.append(time.perf_counter() - started)
            assert change.kind == "appended" and change.records == 3
        figures = {
            "file_mb": round(path.stat().st_size / 1e6, 1),
            "turns": len(follower.session.turns),
            "open_s": round(opened, 3),
            "follower_start_s": round(follower_start, 3),
            "look_unchanged_us_median": round(statistics.median(looks) * 1e6, 1),
            "append_poll_s_median": round(statistics.median(appends), 3),
            "append_poll_s_max": round(max(appends), 3),
            "python": platform.python_version(),
        }
    print(json.dumps(figures, indent=2))
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
