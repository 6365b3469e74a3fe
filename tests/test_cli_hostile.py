"""The command line on hostile sessions: `compact`, `klip`, `show`, `ls` and `export` print no
terminal control sequence from a file (tool names, paths, warnings, content), never read content
as Rich markup, and JSON keeps every value exactly (escaped, not raw, on a terminal)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from app_support import SAMPLES
from hostile_support import CLICK, CWD, EDIT_ARGS, HOSTILE_NAME, PAYLOAD, RESULT, hostile_copy
from hypothesis import given, settings
from hypothesis import strategies as st

from klipui.cli._render import terminal_safe_json

RAW_CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")
"""Bytes a terminal acts on: C0 controls but tab and newline, DEL, and C1 (UTF-8 encoded)."""
CLAUDE = SAMPLES / "claude-code" / "ccv_1af7fc5e_tools_error.jsonl"
DSH = SAMPLES / "dsh" / "advanced-toolchain.jsonl"


def klipui(*argv: str) -> subprocess.CompletedProcess[bytes]:
    """Run the real command (stdout and stderr as bytes, as a terminal would get them)."""
    return subprocess.run(
        [sys.executable, "-m", "klipui", *argv],
        capture_output=True,
        timeout=120,
        check=False,
        env={**os.environ, "COLUMNS": "200"},
    )


def assert_terminal_safe(*outputs: bytes) -> None:
    for output in outputs:
        found = RAW_CONTROL.findall(output)
        assert not found, found[:5]


@pytest.fixture
def hostile_dir(tmp_path: Path) -> Path:
    folder = tmp_path / f"w\x1b]0;t\x07{CLICK}"
    folder.mkdir()
    return folder


def test_compact_prints_tool_names_and_paths_clean(hostile_dir: Path, tmp_path: Path) -> None:
    big = RESULT * 400
    for sample in (CLAUDE, DSH):
        path = hostile_copy(sample, hostile_dir / f"s\x1b[2J{sample.name}", result=big)
        spill = tmp_path / "spill"
        done = klipui("compact", str(path), "--dry-run", "--spill-dir", str(spill))
        assert done.returncode == 0, done.stderr
        assert_terminal_safe(done.stdout, done.stderr)
        out = done.stdout.decode()
        assert f"Edit{CLICK}" in out  # the hostile tool's result was replaced and named
        assert PAYLOAD not in out
        as_json = klipui("compact", str(path), "--dry-run", "--json", "--spill-dir", str(spill))
        assert_terminal_safe(as_json.stdout)
        report = json.loads(as_json.stdout)
        assert HOSTILE_NAME in [item["tool"] for item in report["replaced"]]  # kept exactly


def test_klip_report_is_clean(hostile_dir: Path) -> None:
    path = hostile_copy(CLAUDE, hostile_dir / f"k\x1b[31m{CLICK}.jsonl")
    done = klipui("klip", str(path), "1", "--dry-run")
    assert_terminal_safe(done.stdout, done.stderr)
    assert f"k{CLICK}.jsonl" in done.stdout.decode()


def test_show_cleans_the_path_warnings_and_content(hostile_dir: Path) -> None:
    for sample in (CLAUDE, DSH):
        path = hostile_copy(sample, hostile_dir / f"s\x1b]52;c;{PAYLOAD}\x07.jsonl")
        with path.open("a", encoding="utf-8") as out:
            out.write('{"broken\x1b[2J line\n')
        done = klipui("show", str(path))
        assert done.returncode == 0, done.stderr
        assert_terminal_safe(done.stdout, done.stderr)
        assert PAYLOAD not in done.stderr.decode()  # (stdout quotes arguments as JSON text)
        assert "warning" in done.stderr.decode()
        assert f"Edit{CLICK}" in done.stdout.decode()
        as_json = klipui("show", str(path), "--json")
        assert_terminal_safe(as_json.stdout)
        assert EDIT_ARGS["new_string"] in _strings(json.loads(as_json.stdout))  # kept, escaped


def _strings(value: object) -> set[str]:
    """Every string in a JSON value, and in the JSON text it holds (tool arguments)."""
    found: set[str] = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack += [*item.keys(), *item.values()]
        elif isinstance(item, list):
            stack += item
        elif isinstance(item, str):
            found.add(item)
            if item.startswith(("{", "[")):
                with contextlib.suppress(ValueError):
                    stack.append(json.loads(item))
    return found


def test_ls_table_and_json_are_clean_and_markup_is_text(tmp_path: Path) -> None:
    hostile_dir = tmp_path / "l\x1b]0;t\x07s"  # no glob characters: ls would take it as a glob
    hostile_dir.mkdir()
    claude = hostile_copy(CLAUDE, hostile_dir / f"c{CLICK}.jsonl")
    text = claude.read_text(encoding="utf-8").replace(
        json.dumps(CWD, ensure_ascii=False)[1:-1], "/w/x[red]y"
    )
    (hostile_dir / "markup.jsonl").write_text(text, encoding="utf-8")
    (hostile_dir / f"b\x1b]0;t\x07{CLICK}.jsonl").write_text("{not json\n", encoding="utf-8")
    done = klipui("ls", str(hostile_dir))
    assert done.returncode == 0, done.stderr
    assert_terminal_safe(done.stdout, done.stderr)
    out = done.stdout.decode()
    assert CLICK in out and "x[red]y" in out  # markup shown as text, not applied or refused
    as_json = klipui("ls", str(hostile_dir), "--json")
    assert_terminal_safe(as_json.stdout)
    assert len(json.loads(as_json.stdout)) == 3


def test_export_is_terminal_safe_and_exact(hostile_dir: Path) -> None:
    path = hostile_copy(CLAUDE, hostile_dir / "e.jsonl")
    done = klipui("export", str(path), "--as", "anthropic")
    assert done.returncode == 0, done.stderr
    assert_terminal_safe(done.stdout, done.stderr)
    request = json.loads(done.stdout)
    inputs = [
        block["input"]
        for message in request["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_use"
    ]
    assert EDIT_ARGS in inputs  # OSC 52 and C1 included: escaped in the JSON, not lost


def test_terminal_safe_json_keeps_the_value() -> None:
    value = {"a\x9b": "x\x9d\x1b\x7fy\u00a0é", "n": [1, "\x80"]}
    raw = json.dumps(value, ensure_ascii=False).encode()
    safe = terminal_safe_json(raw)
    assert not RAW_CONTROL.search(safe)
    assert json.loads(safe) == value
    assert "\u00a0é".encode() in safe  # other non-ASCII stays as it is


BIG = 123456789012345678901234567890


@pytest.mark.parametrize("shape", ["anthropic", "openai"])
def test_export_keeps_huge_integers_and_never_writes_a_repr(tmp_path: Path, shape: str) -> None:
    # a bare NaN outside a string is not JSON: the reader reports such a line
    # (test_hostile_readers); a >64-bit integer outside a string is read by orjson as a float
    as_object = {"n": 12345, "s": "ok"}
    rows = [
        '{"role": "user", "content": "go"}',
        '{"role": "assistant", "content": null, "tool_calls": ['
        '{"id": "c1", "type": "function", "function": {"name": "calc", "arguments": '
        + json.dumps(as_object)
        + "}}, "
        '{"id": "c2", "type": "function", "function": {"name": "calc", "arguments": '
        + json.dumps(json.dumps({"n": BIG, "x": float("nan")}))
        + "}}]}",
        '{"role": "tool", "tool_call_id": "c1", "content": "ok"}',
        '{"role": "tool", "tool_call_id": "c2", "content": "ok"}',
    ]
    assert "NaN" in rows[1] and str(BIG) in rows[1]
    path = tmp_path / "big.jsonl"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    done = klipui("export", str(path), "--as", shape)
    assert done.returncode == 0, done.stderr
    out = done.stdout.decode()
    assert not re.search(r"'n'|: nan\b|: -?inf\b", out)  # no Python repr of the arguments
    assert str(BIG) in out and "e+29" not in out
    request = json.loads(out)
    calls = []
    for message in request["messages"]:
        for block in message["content"] if isinstance(message.get("content"), list) else ():
            if block.get("type") == "tool_use":
                calls.append(block["input"])
        for call in message.get("tool_calls") or ():
            calls.append(json.loads(call["function"]["arguments"]))
    first, second = calls
    assert first == {"n": 12345, "s": "ok"}
    # arguments text that is not JSON (NaN) is kept as the original text
    assert second == {"arguments": json.dumps({"n": BIG, "x": float("nan")})}


_CHARS = st.text(alphabet=st.characters(max_codepoint=0x2FF))
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | _CHARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_CHARS, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(_JSON)
def test_terminal_safe_json_is_the_same_value_without_control_bytes(value: object) -> None:
    import orjson

    for raw in (orjson.dumps(value), json.dumps(value, ensure_ascii=False).encode()):
        safe = terminal_safe_json(raw)
        assert not RAW_CONTROL.search(safe.replace(b"\n", b""))
        assert json.loads(safe) == value


def on_terminal(*argv: str) -> bytes:
    """What the real command writes when its stdout is a terminal (a pseudo-terminal), read
    while it runs (a full terminal buffer would block it); the CR the terminal adds to each
    newline taken out."""
    import pty

    controller, terminal = pty.openpty()
    try:
        process = subprocess.Popen(
            [sys.executable, "-m", "klipui", *argv], stdout=terminal, stderr=subprocess.DEVNULL
        )
        os.close(terminal)
        chunks = []
        with contextlib.suppress(OSError):  # EIO once the command has exited and all is read
            while chunk := os.read(controller, 65536):
                chunks.append(chunk)
        assert process.wait(timeout=120) == 0
        return b"".join(chunks).replace(b"\r\n", b"\n")
    finally:
        os.close(controller)


def test_shrink_and_spill_show_clean_for_a_terminal_and_pass_bytes_to_a_pipe(
    tmp_path: Path,
) -> None:
    output = tmp_path / "out.txt"
    body = "".join(f"line {i} ok\n" for i in range(3000))
    output.write_text(body + RESULT + "if (admin\u202e) {}\n", encoding="utf-8")
    spills = tmp_path / "spills"
    argv = ("shrink", "--max-chars", "600", "--spill-dir", str(spills), str(output))
    shown = on_terminal(*argv)
    assert_terminal_safe(shown)
    assert b"[U+202E]" in shown and CLICK.encode() in shown
    piped = klipui(*argv).stdout
    assert PAYLOAD.encode() in piped and "\u202e".encode() in piped  # a filter changes nothing
    (name,) = [p.stem for p in spills.iterdir()]
    locator = f"spill:{name}"
    original = on_terminal("spill", "--spill-dir", str(spills), "show", locator)
    assert_terminal_safe(original)
    assert original.startswith(b"line 0 ok\nline 1 ok\n") and b"[U+2066]" in original
    raw = klipui("spill", "--spill-dir", str(spills), "show", locator).stdout
    assert raw == output.read_bytes()
