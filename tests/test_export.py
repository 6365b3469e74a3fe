"""`klipui export`: API-valid messages from every sample session, and the command's behaviour."""

from __future__ import annotations

import itertools
import random
from pathlib import Path

import orjson
import pytest

from klipui.cli import main
from klipui.conversation.api import anthropic_request, openai_request
from klipui.conversation.validate import check_messages
from klipui.session import open_session
from tests.conftest import sample_files
from tests.format_support import write_lines
from tests.test_format_messages import anthropic_conversation, openai_conversation

SAMPLES = sample_files()
WITHOUT_MESSAGES = {"ccusage_usage_alpha.jsonl", "ccusage_codex_tokens_alpha.jsonl"}
"""Usage-only samples: token counts, no conversation."""


def generated(tmp_path: Path) -> list[Path]:
    rng = random.Random(11)
    return [
        write_lines(tmp_path / "openai.jsonl", openai_conversation(rng, 6)),
        write_lines(tmp_path / "anthropic.jsonl", anthropic_conversation(rng, 6)),
        write_lines(
            tmp_path / "packed.jsonl",
            [{"messages": anthropic_conversation(rng, 2, f"p{n}")} for n in range(3)],
        ),
    ]


def demo_files() -> list[Path]:
    try:
        from klipui.demo import demo_paths
    except ImportError:
        return []
    return demo_paths()


def assert_valid(path: Path) -> None:
    session = open_session(path)
    for request in (anthropic_request(session), openai_request(session)):
        messages = request["messages"]
        assert messages, path
        assert check_messages(messages) == [], (path, [str(p) for p in check_messages(messages)])
    anthropic = anthropic_request(session)["messages"]
    roles = [m["role"] for m in anthropic]
    assert roles[0] == "user"
    assert all(a != b for a, b in itertools.pairwise(roles))


def test_sample_coverage() -> None:
    formats = {open_session(p).format for p in SAMPLES}
    assert formats == {"dsh", "claude", "codex", "pi"}
    assert {p.name for p in SAMPLES} >= WITHOUT_MESSAGES
    assert len(SAMPLES) - len(WITHOUT_MESSAGES) >= 26


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_sample_exports_valid_messages(path: Path) -> None:
    if path.name in WITHOUT_MESSAGES:
        session = open_session(path)
        assert anthropic_request(session)["messages"] == []
        return
    assert_valid(path)


def test_generated_messages_files(tmp_path: Path) -> None:
    for path in generated(tmp_path):
        assert open_session(path).format == "messages"
        assert_valid(path)


def test_demo_sessions_export() -> None:
    paths = demo_files()
    assert len(paths) == 5
    for path in paths:
        assert_valid(path)


def test_tool_pairs_survive_export() -> None:
    """Every tool call of the pi sample reaches the export with its own result text."""
    path = next(p for p in SAMPLES if p.name == "pi_large-session_v1.jsonl")
    session = open_session(path)
    messages = anthropic_request(session)["messages"]
    uses = [b["id"] for m in messages for b in m["content"] if b["type"] == "tool_use"]
    calls = [e.data["callId"] for e in session.events if e.type == "tool/call"]
    assert sorted(uses) == sorted(set(calls))


def test_cli_stdout(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    path = next(p for p in SAMPLES if p.name == "multi-turn.jsonl")
    assert main(["export", str(path), "--as", "openai"]) == 0
    out = orjson.loads(capsysbinary.readouterr().out)
    assert [m["role"] for m in out["messages"]] == ["user", "assistant", "user", "assistant"]


def test_cli_output_file_is_new(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = next(p for p in SAMPLES if p.name.startswith("pi_large"))
    target = tmp_path / "out.json"
    assert main(["export", str(path), "--as", "anthropic", "-o", str(target)]) == 0
    exported = orjson.loads(target.read_bytes())
    assert check_messages(exported["messages"]) == []
    before = target.read_bytes()
    assert main(["export", str(path), "--as", "openai", "-o", str(target)]) == 1
    assert "already exists" in capsys.readouterr().err
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_cli_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    assert main(["export", str(bad), "--as", "openai"]) == 1
    err = capsys.readouterr().err
    assert str(bad) in err and len(err.strip().splitlines()) == 1
    usage = next(p for p in SAMPLES if p.name in WITHOUT_MESSAGES)
    assert main(["export", str(usage), "--as", "openai"]) == 1
    with pytest.raises(SystemExit) as exit_info:
        main(["export", str(bad), "--as", "xml"])
    assert exit_info.value.code == 2
