"""Token usage: recorded figures per format checked against sums computed here from the raw
lines, Claude Code duplicates counted once, Codex running totals, estimates, grouping, the CLI
and the usage screen."""

from __future__ import annotations

import json
import shutil
import time
from datetime import date
from pathlib import Path

import pytest
from app_support import make_app, settle, wait_for
from hypothesis import given
from hypothesis import strategies as st

from klipui.cli import main
from klipui.usage import Tokens, bar, collect, parse_since, session_usage, summarize

SAMPLES = Path(__file__).resolve().parent / "fixtures" / "samples"
PI = sorted((SAMPLES / "pi").glob("*.jsonl"))
DSH = sorted((SAMPLES / "dsh").glob("*.jsonl"))
CODEX_REAL = next((SAMPLES / "codex").glob("rollout-2025-11-17*.jsonl"))
CODEX_ALPHA = SAMPLES / "codex" / "ccusage_codex_tokens_alpha.jsonl"
CLAUDE_ALPHA = SAMPLES / "claude-code" / "ccusage_usage_alpha.jsonl"
CLAUDE_BIG = SAMPLES / "claude-code" / "ccv_fe5e1c67_sidechains_summary_errors.jsonl"


def _lines(path: Path) -> list[dict]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            out.append(value)
    return out


def _sum(path: Path) -> Tokens:
    total = Tokens()
    for item in session_usage(path).items:
        total.add(item.tokens)
    return total


@pytest.fixture()
def utc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.mark.parametrize("path", PI, ids=lambda p: p.name)
def test_pi_usage_is_the_sum_of_its_assistant_messages(path: Path) -> None:
    expected = Tokens()
    count = 0
    for value in _lines(path):
        message = value.get("message") or {}
        if value.get("type") == "message" and message.get("role") == "assistant":
            usage = message["usage"]
            expected.add(
                Tokens(usage["input"], usage["output"], usage["cacheRead"], usage["cacheWrite"])
            )
            count += 1
    usage = session_usage(path)
    assert len(usage.items) == count > 0
    assert _sum(path) == expected
    assert not any(item.estimated for item in usage.items)


@pytest.mark.parametrize("path", DSH, ids=lambda p: p.name)
def test_dsh_usage_is_the_sum_of_its_assistant_messages_not_chunks(path: Path) -> None:
    expected = Tokens()
    for value in _lines(path):
        if value.get("type") == "assistant/message" and "usage" in value["data"]:
            usage = value["data"]["usage"]
            expected.add(
                Tokens(
                    usage.get("inputTokens", 0),
                    usage.get("outputTokens", 0),
                    usage.get("cacheReadTokens", 0),
                    usage.get("cacheWriteTokens", 0),
                )
            )
    assert _sum(path) == expected
    assert expected.total > 0


def test_codex_running_totals_add_up_to_the_last_total() -> None:
    last = None
    for value in _lines(CODEX_REAL):
        payload = value.get("payload") or {}
        if payload.get("type") == "token_count" and payload.get("info"):
            last = payload["info"]["total_token_usage"]
    assert last is not None
    got = _sum(CODEX_REAL)
    assert got.input == last["input_tokens"] - last["cached_input_tokens"]
    assert got.cache_read == last["cached_input_tokens"]
    assert got.output == last["output_tokens"]
    repeated = sum(
        1
        for value in _lines(CODEX_REAL)
        if (value.get("payload") or {}).get("type") == "token_count"
    )
    assert len(session_usage(CODEX_REAL).items) < repeated  # the repeats counted once


def test_codex_total_that_falls_takes_the_last_usage(tmp_path: Path) -> None:
    def count(total: int, last: int) -> str:
        usage = lambda n: {"input_tokens": n, "cached_input_tokens": 0, "output_tokens": 1}  # noqa: E731
        info = {"total_token_usage": usage(total), "last_token_usage": usage(last)}
        payload = {"type": "token_count", "info": info}
        return json.dumps(
            {"timestamp": "2026-05-13T09:00:00Z", "type": "event_msg", "payload": payload}
        )

    path = tmp_path / "rollout-2026-05-13T09-00-00-b.jsonl"
    meta = {"timestamp": "2026-05-13T09:00:00Z", "type": "session_meta", "payload": {"id": "b"}}
    lines = [json.dumps(meta), count(100, 100), count(100, 100), count(150, 50), count(30, 30)]
    path.write_text("\n".join(lines) + "\n")
    assert [item.tokens.input for item in session_usage(path).items] == [100, 50, 30]


def test_codex_alpha_figures(utc: None) -> None:
    report = summarize([session_usage(CODEX_ALPHA)], by="model")
    rows = {row.key: row.tokens for row in report.rows}
    assert rows["gpt-5.2-codex"] == Tokens(750, 125, 250, 0)
    assert rows["gpt-5.3-codex"] == Tokens(2000, 300, 500, 0)


def test_claude_alpha_figures_by_day(utc: None) -> None:
    report = summarize([session_usage(CLAUDE_ALPHA)], by="day")
    rows = {row.key: row.tokens for row in report.rows}
    assert rows == {
        "2026-01-09": Tokens(300, 125, 30, 75),
        "2026-01-10": Tokens(300, 125, 40, 0),
    }
    since = summarize([session_usage(CLAUDE_ALPHA)], by="day", since=date(2026, 1, 10))
    assert [row.key for row in since.rows] == ["2026-01-10"]


def _claude_line(message_id: str, output: int, request: str = "req_1", uuid: str = "u") -> str:
    usage = {"input_tokens": 10, "output_tokens": output, "cache_read_input_tokens": 100}
    message = {"id": message_id, "role": "assistant", "model": "claude-x", "usage": usage}
    line = {
        "type": "assistant",
        "uuid": uuid,
        "sessionId": "S",
        "requestId": request,
        "timestamp": "2026-02-01T10:00:00Z",
        "message": message,
    }
    return json.dumps(line)


def test_claude_response_over_several_lines_and_files_counts_once(tmp_path: Path) -> None:
    first = tmp_path / "a.jsonl"
    lines = [
        _claude_line("msg_1", 5, uuid="1"),
        _claude_line("msg_1", 40, uuid="2"),  # streaming: the output grows
        _claude_line("msg_1", 40, uuid="3"),
        _claude_line("msg_2", 7, request="req_2", uuid="4"),
    ]
    first.write_text("\n".join(lines) + "\n")
    resumed = tmp_path / "b.jsonl"  # a resumed session copies earlier lines
    resumed.write_text("\n".join([lines[0], _claude_line("msg_3", 9, "req_3", "5")]) + "\n")
    report = summarize([session_usage(first), session_usage(resumed)], by="session")
    assert report.total.tokens == Tokens(30, 40 + 7 + 9, 300, 0)
    assert report.total.responses == 3
    rows = {Path(row.key).name: row.tokens.output for row in report.rows}
    assert rows == {"a.jsonl": 47, "b.jsonl": 9}


def test_claude_big_sample_matches_unique_responses() -> None:
    largest: dict[tuple[str, str], dict] = {}
    for value in _lines(CLAUDE_BIG):
        message = value.get("message")
        if value.get("type") != "assistant" or not isinstance(message, dict):
            continue
        if "usage" not in message or message.get("model") == "<synthetic>":
            continue
        key = (message["id"], value.get("requestId") or "")
        if key not in largest or message["usage"]["output_tokens"] > largest[key]["output_tokens"]:
            largest[key] = message["usage"]
    report = summarize([session_usage(CLAUDE_BIG)])
    assert report.total.responses == len(largest)
    assert report.total.tokens.output == sum(u["output_tokens"] for u in largest.values())
    assert report.total.tokens.cache_read == sum(
        u.get("cache_read_input_tokens", 0) for u in largest.values()
    )


def test_a_session_without_usage_is_estimated_and_marked(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text(
        json.dumps({"role": "user", "content": "hello " * 100})
        + "\n"
        + json.dumps({"role": "assistant", "content": "answer " * 40})
        + "\n"
    )
    usage = session_usage(path)
    assert [item.estimated for item in usage.items] == [True]
    tokens = usage.items[0].tokens
    assert tokens.input > tokens.output > 0
    report = summarize([usage])
    assert report.total.estimated and report.rows[0].estimated


def test_subagent_usage_counts_for_its_session(tmp_path: Path) -> None:
    session = tmp_path / "S1.jsonl"
    session.write_text(_claude_line("msg_1", 5) + "\n")
    folder = tmp_path / "S1" / "subagents"
    folder.mkdir(parents=True)
    (folder / "agent-x.jsonl").write_text(_claude_line("msg_9", 11, "req_9") + "\n")
    assert _sum(session).output == 16


def test_parse_since() -> None:
    today = date(2026, 3, 10)
    assert parse_since("2026-03-01", today) == date(2026, 3, 1)
    assert parse_since("7d", today) == date(2026, 3, 3)
    assert parse_since("2w", today) == date(2026, 2, 24)
    with pytest.raises(ValueError, match="YYYY-MM-DD"):
        parse_since("last week", today)


@given(st.integers(0, 10**9), st.integers(1, 10**9), st.integers(1, 60))
def test_bar_fits_and_grows(value: int, largest: int, width: int) -> None:
    drawn = bar(value, largest, width)
    assert len(drawn) <= width
    assert (drawn == "") == (value == 0)
    assert len(bar(min(value, largest), largest, width)) <= len(bar(largest, largest, width))


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "sessions"
    folder.mkdir()
    for path in (CLAUDE_ALPHA, CODEX_ALPHA, *DSH[:3], PI[1]):
        shutil.copyfile(path, folder / path.name)
    return folder


def test_cli_json_matches_the_engine(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], utc: None
) -> None:
    folder = _folder(tmp_path)
    assert main(["usage", str(folder), "--by", "model", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    report = summarize(list(collect([folder])), by="model")
    assert printed["by"] == "model"
    assert [row["key"] for row in printed["rows"]] == [row.key for row in report.rows]
    assert printed["total"]["total"] == report.total.tokens.total
    assert sum(row["output"] for row in printed["rows"]) == printed["total"]["output"]
    assert main(["usage", str(folder), "--since", "2026-01-10", "--by", "day", "--json"]) == 0
    days = [row["key"] for row in json.loads(capsys.readouterr().out)["rows"]]
    assert days and min(days) >= "2026-01-10"
    assert main(["usage", str(folder), "--since", "yesterday"]) == 2


def test_cli_table_shows_rows_and_bars(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["usage", str(_folder(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "pi-mono" in out and "total" in out and "█" in out


async def test_usage_screen_per_project_and_day(tmp_path: Path) -> None:
    from klipui.screens.usage import UsageScreen, UsageTable

    folder = _folder(tmp_path)
    app = make_app(folder)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot, app)
        await pilot.press("u")
        await wait_for(pilot, lambda: isinstance(app.screen, UsageScreen))
        screen = app.screen
        await wait_for(pilot, lambda: screen.by_day is not None)
        await settle(pilot, app)
        projects = screen.query_one("#usage-projects", UsageTable)
        days = screen.query_one("#usage-days", UsageTable)
        report = summarize(list(collect([folder])), by="project")
        assert projects.row_count == len(report.rows)
        first = projects.get_row_at(0)
        assert str(first[0]) == report.rows[0].key
        assert str(first[-1]).startswith("█" * 16)
        assert days.row_count == len(screen.by_day.rows) > 1
        assert screen.by_day.total.tokens == report.total.tokens
        await pilot.press("tab")
        assert days.has_focus
        await pilot.press("escape")
        assert not isinstance(app.screen, UsageScreen)


async def test_usage_is_in_the_command_palette(tmp_path: Path) -> None:
    from klipui.app import context_actions
    from klipui.screens.usage import UsageScreen

    app = make_app(_folder(tmp_path))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot, app)
        actions = {title: (node, action) for title, _, node, action in context_actions(app.screen)}
        node, action = actions["Sessions screen: Usage"]
        await node.run_action(action)
        await wait_for(pilot, lambda: isinstance(app.screen, UsageScreen))
        await wait_for(pilot, lambda: app.screen.by_project is not None)
        assert "tokens" in str(app.screen.query_one("#usage-total").render())


def test_hostile_usage_values_count_nothing_and_crash_nothing(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    bad = [
        {"input_tokens": -5, "output_tokens": True, "cache_read_input_tokens": "9"},
        {"input_tokens": 1e300, "output_tokens": 2.5, "cache_creation_input_tokens": [1]},
        {"input_tokens": 3, "output_tokens": 4.0},
    ]
    lines = []
    for index, usage in enumerate(bad):
        message = {"id": f"m{index}", "role": "assistant", "model": "\x1b[31mred", "usage": usage}
        line = {
            "type": "assistant",
            "uuid": f"u{index}",
            "parentUuid": None,
            "sessionId": "S",
            "timestamp": ["not", "a", "time"],
            "message": message,
        }
        lines.append(json.dumps(line))
    lines.append(json.dumps({"type": "assistant", "uuid": "x", "message": {"usage": [1, 2]}}))
    path.write_text("\n".join(lines) + "\n")
    usage = session_usage(path)
    assert usage.problem is None
    assert [item.tokens for item in usage.items] == [Tokens(), Tokens(), Tokens(3, 4)]
    report = summarize([usage], by="model")
    assert report.total.tokens == Tokens(3, 4)


@pytest.mark.parametrize(
    ("sample", "selection"),
    [
        (CLAUDE_BIG, ["1"]),
        (DSH[3], ["1"]),
        (PI[1], ["1..4"]),
        (CODEX_REAL, ["1", "--include-unfinished"]),
    ],
    ids=["claude", "dsh", "pi", "codex"],
)
def test_a_clipped_child_does_not_count_its_parents_usage_again(
    tmp_path: Path, sample: Path, selection: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    parent = tmp_path / sample.name
    shutil.copyfile(sample, parent)
    alone = summarize([session_usage(parent)]).total.tokens
    assert main(["klip", str(parent), *selection]) == 0
    capsys.readouterr()
    files = sorted(tmp_path.glob("*.jsonl*"))
    assert len(files) == 2
    child = next(path for path in files if path != parent)
    assert summarize([session_usage(child)]).total.tokens.total > 0
    assert summarize([session_usage(path) for path in files]).total.tokens == alone


def test_recorded_costs_are_summed_and_absent_ones_are_not_invented() -> None:
    expected = 0.0
    for value in _lines(PI[1]):
        message = value.get("message") or {}
        if value.get("type") == "message" and message.get("role") == "assistant":
            expected += message["usage"]["cost"]["total"]
    pi = summarize([session_usage(PI[1])]).total
    assert pi.costed > 0 and pi.cost == pytest.approx(expected)
    claude = summarize([session_usage(CLAUDE_ALPHA)]).total
    assert claude.costed == 3 and claude.cost == pytest.approx(0.12 + 0.34 + 0.56)
    codex = summarize([session_usage(CODEX_REAL)]).total
    assert codex.costed == 0 and codex.as_dict()["cost_usd"] is None
