"""The agent hook: every edge case of the seed design, config files, and `klipui hook`."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path

import pytest
from conftest import CORPUS

from klipui.cli import main
from klipui.shrink.hook import (
    ConfigError,
    HookConfig,
    ToolResult,
    load_config,
    on_tool_result,
)

PYTEST = (CORPUS / "01-pytest-ledger-mixed" / "output.txt").read_text(encoding="utf-8")


def _config(tmp_path: Path, **changes: object) -> HookConfig:
    return HookConfig(spill_dir=str(tmp_path / "spill"), **changes)  # type: ignore[arg-type]


def test_truncation_off_leaves_result_untouched(tmp_path: Path) -> None:
    result = ToolResult(PYTEST, tool="bash")
    assert on_tool_result(result, _config(tmp_path, truncation=False)) is result
    assert result.truncated is None


@pytest.mark.parametrize("already", [True, False])
def test_tool_that_truncated_itself_is_left_alone(tmp_path: Path, already: bool) -> None:
    result = ToolResult(PYTEST, truncated=already)
    assert on_tool_result(result, _config(tmp_path)) is result


def test_errors_are_untouched_by_default(tmp_path: Path) -> None:
    result = ToolResult(PYTEST, is_error=True, tool="bash")
    assert on_tool_result(result, _config(tmp_path, max_chars=2000)) is result


def test_errors_shrunk_on_request_keep_failure_lines(tmp_path: Path) -> None:
    result = ToolResult(PYTEST, is_error=True, tool="bash", command="python -m pytest -v tests/")
    out = on_tool_result(result, _config(tmp_path, max_chars=4000, shrink_errors=True))
    assert out.truncated is True and out.is_error
    assert isinstance(out.llm_content, str) and len(out.llm_content) <= 4000
    assert "10 failed, 684 passed" in out.llm_content
    assert "KeyError: ('EUR', 'GBP')" in out.llm_content


def test_only_text_parts_are_shrunk_images_pass(tmp_path: Path) -> None:
    image = {"type": "image", "data": "iVBORw0KGgo=" * 10_000, "mimeType": "image/png"}
    result = ToolResult([{"type": "text", "text": PYTEST}, image], tool="bash")
    out = on_tool_result(result, _config(tmp_path, max_chars=3000))
    assert out.truncated is True
    assert isinstance(out.llm_content, list)
    assert out.llm_content[1] is image
    assert len(out.llm_content[0]["text"]) <= 3000
    assert out.output_path and Path(out.output_path).read_text(encoding="utf-8") == PYTEST


def test_images_alone_count_nothing(tmp_path: Path) -> None:
    result = ToolResult([{"type": "image", "data": "x" * 200_000}])
    assert on_tool_result(result, _config(tmp_path, max_chars=100)) is result


def test_exactly_at_the_limit_is_not_shrunk(tmp_path: Path) -> None:
    text = "x" * 99 + "\n" + "y" * 100  # 200 characters, 2 lines
    out = on_tool_result(ToolResult(text), _config(tmp_path, max_chars=200, max_lines=2))
    assert out.truncated is False and out.llm_content == text and out.output_path is None
    assert not (tmp_path / "spill").exists()


def test_one_over_is_shrunk_and_spilled(tmp_path: Path) -> None:
    text = "".join(f"row {i}\n" for i in range(300))
    limit = len(text) - 1
    out = on_tool_result(ToolResult(text, tool="bash"), _config(tmp_path, max_chars=limit))
    assert out.truncated is True
    assert isinstance(out.llm_content, str) and len(out.llm_content) <= limit
    assert out.output_path is not None
    assert Path(out.output_path).read_text(encoding="utf-8") == text


def test_line_limit_alone_triggers(tmp_path: Path) -> None:
    text = "a\n" * 50
    out = on_tool_result(ToolResult(text), _config(tmp_path, max_chars=0, max_lines=49))
    assert out.truncated is True
    assert isinstance(out.llm_content, str) and len(out.llm_content.splitlines()) <= 49


def test_missing_output_folder_is_created(tmp_path: Path) -> None:
    folder = tmp_path / "a" / "b" / "spill"
    config = HookConfig(max_chars=2000, spill_dir=str(folder))
    out = on_tool_result(ToolResult(PYTEST, tool="bash"), config)
    assert folder.is_dir() and out.output_path and Path(out.output_path).parent == folder


def test_failed_write_is_logged_and_degrades(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("in the way")
    config = HookConfig(max_chars=2000, spill_dir=str(blocker / "spill"))
    with caplog.at_level(logging.WARNING, logger="klipui.shrink.hook"):
        out = on_tool_result(ToolResult(PYTEST, tool="bash"), config)
    assert out.truncated is True and out.output_path is None
    assert isinstance(out.llm_content, str) and len(out.llm_content) <= 2000
    assert "could not save the full output" in caplog.text and str(blocker) in caplog.text


def test_several_text_parts_share_the_budget(tmp_path: Path) -> None:
    parts = [{"type": "text", "text": PYTEST}, {"type": "text", "text": "short note"}]
    out = on_tool_result(ToolResult(parts, tool="bash"), _config(tmp_path, max_chars=3000))
    assert isinstance(out.llm_content, list)
    assert out.llm_content[1]["text"] == "short note"
    assert sum(len(p["text"]) for p in out.llm_content) <= 3000


def test_config_files_and_arguments(tmp_path: Path, sealed_home: Path) -> None:
    user = sealed_home / ".config" / "klipui" / "config.toml"
    user.parent.mkdir(parents=True)
    user.write_text("[shrink]\nmax_chars = 9000\nmax_lines = 300\ndisable = ['json']\n")
    project = tmp_path / "proj"
    project.mkdir()
    (project / ".klipui.toml").write_text("[shrink]\nmax_lines = 100\nshrink_errors = true\n")
    config = load_config(project, {"max_line_chars": 400})
    assert (config.max_chars, config.max_lines, config.max_line_chars) == (9000, 100, 400)
    assert config.shrink_errors and config.disable == ("json",)
    (project / ".klipui.toml").write_text("truncation = false\n")
    assert load_config(project).truncation is False


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[shrink]\nmax_chars = 'lots'\n", "whole number"),
        ("[shrink]\nbogus = 1\n", "unknown key"),
        ("[shrink\n", r"\.klipui\.toml"),
    ],
)
def test_bad_config_is_reported(tmp_path: Path, content: str, message: str) -> None:
    (tmp_path / ".klipui.toml").write_text(content)
    with pytest.raises(ConfigError, match=message):
        load_config(tmp_path)


def _run_hook(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    lines: list[str],
    *args: str,
) -> list[str]:
    stdin = io.TextIOWrapper(io.BytesIO("".join(line + "\n" for line in lines).encode()))
    monkeypatch.setattr("sys.stdin", stdin)
    assert main(["hook", *args]) == 0
    return capsys.readouterr().out.splitlines()


def test_hook_command_is_a_json_lines_filter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    records = [
        json.dumps({"llmContent": PYTEST, "toolName": "bash", "callId": "c1"}),
        json.dumps({"llm_content": "small", "tool": "bash"}),
        json.dumps({"llm_content": PYTEST, "truncated": True}),
        "not json",
    ]
    out = _run_hook(
        monkeypatch, capsys, records, "--max-chars", "3000", "--spill-dir", str(tmp_path / "s")
    )
    first, second, third, fourth = out
    big = json.loads(first)
    assert big["truncated"] is True and big["callId"] == "c1"
    assert len(big["llmContent"]) <= 3000
    assert Path(big["outputPath"]).read_text(encoding="utf-8") == PYTEST
    assert json.loads(second) == {"llm_content": "small", "tool": "bash", "truncated": False}
    assert json.loads(third)["llm_content"] == PYTEST
    assert fourth == "not json"


@pytest.mark.parametrize(
    ("content", "where"),
    [
        ("[shrink]\nmax_chars = 10\n", r"\.klipui\.toml: max_chars = 10: .*at least 80"),
        ("[shrink]\nmax_lines = -3\n", r"\.klipui\.toml: max_lines must be"),
    ],
)
def test_out_of_range_config_names_the_file_and_key(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    content: str,
    where: str,
) -> None:
    import re

    (tmp_path / ".klipui.toml").write_text(content)
    with pytest.raises(ConfigError, match=where):
        load_config(tmp_path)
    monkeypatch.chdir(tmp_path)
    line = b'{"llm_content": "x", "tool": 3}\n'
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(line * 2)))
    assert main(["hook"]) == 2
    out, err = capsys.readouterr()
    assert re.search(where, err) and "--max-chars" not in err
    assert out == (line * 2).decode()  # the agent still gets every line back, unchanged


def test_out_of_range_flag_names_the_flag(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b'{"llm_content": "x"}\n')))
    assert main(["hook", "--max-chars", "10"]) == 2
    out, err = capsys.readouterr()
    assert "--max-chars must be 0 (no limit) or at least 80" in err
    assert out == '{"llm_content": "x"}\n'
    assert main(["hook", "--max-lines", "-1"]) == 2
    assert "--max-lines" in capsys.readouterr().err
