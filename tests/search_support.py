"""Crafted sessions for the search tests: generic-messages files built turn by turn."""

from __future__ import annotations

import json
from pathlib import Path


def turn_rows(prompt: str, answer: str, result: str | None = None, call: str = "c1") -> list[dict]:
    """The records of one turn: a prompt, optionally a bash call and its result, an answer."""
    rows: list[dict] = [{"role": "user", "content": prompt}]
    if result is not None:
        rows.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": call,
                        "type": "function",
                        "function": {"name": "bash", "arguments": '{"command": "make test"}'},
                    }
                ],
            }
        )
        rows.append({"role": "tool", "tool_call_id": call, "content": result})
    rows.append({"role": "assistant", "content": answer})
    return rows


def write_rows(path: Path, rows: list[dict], append: bool = False) -> Path:
    """Write (or append) records as JSON lines."""
    text = "".join(json.dumps(row) + "\n" for row in rows)
    with path.open("a" if append else "w", encoding="utf-8") as out:
        out.write(text)
    return path


def session_file(path: Path, *turns: tuple[str, str, str | None]) -> Path:
    """A messages session of the given (prompt, answer, result) turns."""
    rows: list[dict] = []
    for number, (prompt, answer, result) in enumerate(turns, 1):
        rows.extend(turn_rows(prompt, answer, result, call=f"c{number}"))
    return write_rows(path, rows)
