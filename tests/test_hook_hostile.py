"""`klipui hook` never dies: one reply line for every input line, in order (issue 11 item 6)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from klipui.cli import main
from klipui.shrink.hook import HookConfig, RecordError, ToolResult, on_tool_result, reply

BIG = "".join(f"line {i}: {'x' * (i % 40)}\n" for i in range(3000))
DEEP = "[" * 2000 + "]" * 2000


def _good(text: str = BIG, **fields: object) -> str:
    return json.dumps({"llm_content": text, "tool": "bash", **fields})


def _hostile_lines() -> list[tuple[str, bool]]:
    """(line, passed through unchanged?) — a mix of good and hostile lines."""
    return [
        (_good(), False),
        ('{"llm_content": "cut emoji \\ud83d", "tool": "bash"}', False),
        (_good(BIG + "cut emoji").replace("cut emoji", "cut \\ud800 emoji"), False),
        (_good(tool=5), True),
        (_good(query=["a"]), True),
        (_good(is_error="yes"), True),
        (_good(exit_code=True), True),
        (DEEP, True),
        ('{"llm_content": ' + DEEP + "}", True),
        ('{"llm_content": "x", "args": ' + DEEP + "}", True),
        ("not json at all", True),
        ("[1, 2, 3]", True),
        ('"a string"', True),
        ("{}", True),
        ('{"llm_content": "small"}', False),
        (_good(), False),
    ]


def test_hook_process_replies_line_for_line_in_order_and_lives_until_eof(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    command = [sys.executable, "-m", "klipui", "hook", "--max-lines", "200"]
    command += ["--spill-dir", str(tmp_path / "spill")]
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=env,
    )
    assert process.stdin and process.stdout
    lines = _hostile_lines()
    for line, unchanged in lines:
        # Like an agent: send one line, wait for its reply before the next.
        process.stdin.write(line.encode("utf-8") + b"\n")
        process.stdin.flush()
        answer = process.stdout.readline()
        assert answer.endswith(b"\n"), line[:60]
        assert process.poll() is None  # still running while stdin is open
        if unchanged:
            assert answer == line.encode("utf-8") + b"\n"
        else:
            record = json.loads(answer)
            assert isinstance(record["truncated"], bool)
            assert len(record["llm_content"]) < 20_000
    _, err = process.communicate(timeout=120)
    assert process.returncode == 0
    complaints = err.decode().splitlines()
    passed = [n for n, (_, unchanged) in enumerate(lines, 1) if unchanged]
    assert [int(c.split("stdin line ")[1].split(":")[0]) for c in complaints] == passed
    assert all("passed through unchanged" in c for c in complaints)


def test_lone_surrogate_comes_back_as_the_same_escape_or_shrunk_as_u_fffd(tmp_path: Path) -> None:
    config = HookConfig(spill_dir=str(tmp_path / "spill"), max_lines=200)
    small = reply('{"llm_content": "cut \\ud83d", "tool": "bash"}', config)
    assert json.loads(small)["llm_content"] == "cut \ud83d"
    assert b"\\ud83d" in small
    big = json.loads(reply(_good(BIG + "\ud83d"), config))
    assert big["truncated"] is True
    assert Path(big["output_path"]).read_text(encoding="utf-8") == BIG + "\ufffd"


@pytest.mark.parametrize(
    ("line", "why"),
    [
        (_good(tool=5), "tool must be a string, not int"),
        (_good(command={"a": 1}), "command must be a string, not dict"),
        (_good(truncated="no"), "truncated must be true or false"),
        (_good(exit_code=False), "exit_code must be a whole number, not bool"),
        (_good(output_path=3), "output_path must be a string"),
        ("[1]", "not a JSON object but a list"),
        ('{"tool": "bash"}', "needs llm_content"),
    ],
)
def test_records_the_hook_cannot_handle_raise_record_error(line: str, why: str) -> None:
    with pytest.raises(RecordError, match=why):
        reply(line, HookConfig(spill=False))


def test_non_string_arguments_are_ignored_not_fatal(tmp_path: Path) -> None:
    line = _good(args={"command": ["ls"], "file_path": 7})
    record = json.loads(reply(line, HookConfig(spill_dir=str(tmp_path), max_lines=200)))
    assert record["truncated"] is True and record["args"] == {"command": ["ls"], "file_path": 7}


@pytest.mark.parametrize("spill", ["blocked", "off"])
def test_a_long_single_line_keeps_its_head_when_no_original_is_saved(
    tmp_path: Path, spill: str
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("in the way")
    config = HookConfig(max_chars=2000, spill_dir=str(blocker / "spill"), spill=spill != "off")
    for text in ("y" * 100_000, "head\n" + "z" * 100_000 + "\ntail\n"):
        out = on_tool_result(ToolResult(text, tool="bash"), config)
        assert out.truncated is True and out.output_path is None
        assert isinstance(out.llm_content, str) and len(out.llm_content) <= 2000
        long_char = text.strip().splitlines()[-2 if "tail" in text else 0][-1]
        assert long_char * 500 in out.llm_content  # the head of the long line is there
        assert "characters" in out.llm_content  # with an honest marker of what was cut


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
records = st.fixed_dictionaries(
    {},
    optional={
        "llm_content": json_values | st.text(max_size=300),
        "tool": json_values,
        "query": json_values,
        "is_error": json_values,
        "truncated": json_values,
        "exit_code": json_values,
        "args": json_values,
    },
)
lines = (
    records.map(json.dumps)
    | json_values.map(json.dumps)
    | st.text(max_size=40).filter(lambda t: "\n" not in t and "\r" not in t)
    | st.integers(1, 3000).map(lambda depth: "[" * depth + "]" * depth)
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(lines, max_size=8))
def test_reply_count_equals_input_count(batch: list[str]) -> None:
    stdin = io.TextIOWrapper(io.BytesIO("".join(f"{line}\n" for line in batch).encode("utf-8")))
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    old = sys.stdin, sys.stdout, sys.stderr
    sys.stdin, sys.stdout, sys.stderr = stdin, stdout, io.StringIO()
    try:
        assert main(["hook", "--max-chars", "200", "--no-spill"]) == 0
    finally:
        sys.stdin, sys.stdout, sys.stderr = old
    stdout.flush()
    replies = stdout.buffer.getvalue().split(b"\n")  # type: ignore[attr-defined]
    assert replies[-1] == b""
    assert len(replies) - 1 == len(batch)
    for line, answer in zip(batch, replies, strict=False):
        if not line.strip():
            assert answer == line.encode("utf-8")
            continue
        try:
            record = json.loads(answer)
        except (ValueError, RecursionError):
            assert answer == line.encode("utf-8")  # passed through unchanged
            continue
        if isinstance(record, dict) and record != json.loads(line):
            assert set(json.loads(line)) <= set(record)


def _hook_process(tmp_path: Path, *args: str) -> subprocess.Popen[bytes]:
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
    return subprocess.Popen(
        [sys.executable, "-m", "klipui", "hook", "--spill-dir", str(tmp_path / "spill"), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=tmp_path,
        env=env,
    )


def test_a_bad_config_file_passes_every_line_through_and_exits_2_at_eof(tmp_path: Path) -> None:
    (tmp_path / ".klipui.toml").write_text("[shrink]\nmax_chars = 'lots'\n")
    process = _hook_process(tmp_path)
    assert process.stdin and process.stdout and process.stderr
    for line in (_good().encode(), b"not json", DEEP.encode()):
        process.stdin.write(line + b"\n")
        process.stdin.flush()
        assert process.stdout.readline() == line + b"\n"
        assert process.poll() is None
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2
    assert err.decode().count("\n") == 1 and "max_chars must be" in err.decode()


def test_odd_line_endings_and_bytes_come_back_line_for_line(tmp_path: Path) -> None:
    lines = [
        b"",
        b"   ",
        b"\xff\xfe not utf-8 and not json",
        b'{"llm_content": "crlf"}\r',
        b'{"llm_content": "last line, no newline"}',
    ]
    process = _hook_process(tmp_path)
    out, err = process.communicate(b"\n".join(lines), timeout=60)
    assert process.returncode == 0
    replies = out.split(b"\n")
    assert replies[-1] == b"" and len(replies) - 1 == len(lines)
    assert replies[:3] == lines[:3]
    assert json.loads(replies[3]) == {"llm_content": "crlf", "truncated": False}
    assert json.loads(replies[4])["llm_content"] == "last line, no newline"
    assert err.decode().count("stdin line 3:") == 1


any_chars = st.characters(blacklist_categories=())  # surrogates included
texts_with_surrogates = st.text(any_chars, max_size=50) | st.lists(
    st.text(any_chars, max_size=30), min_size=1, max_size=40
).map("\n".join)


@settings(max_examples=200, deadline=None)
@given(texts_with_surrogates, st.sampled_from([None, "bash", "x\ud800"]))
def test_reply_is_always_utf8_json_and_unshrunk_text_comes_back_exactly(
    text: str, tool: str | None
) -> None:
    line = json.dumps({"llm_content": text, "tool": tool})  # escapes lone surrogates as JS does
    answer = reply(line, HookConfig(max_chars=200, spill=False))
    record = json.loads(answer.decode("utf-8"))  # strict: valid UTF-8
    assert record["tool"] == tool
    if record["truncated"] is False:
        assert record["llm_content"] == text
    else:
        assert len(record["llm_content"]) <= 200
        assert not any("\ud800" <= c <= "\udfff" for c in record["llm_content"])
