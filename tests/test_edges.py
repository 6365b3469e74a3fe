"""Rough edges a new user hit (issue 15): engine decisions and the blocks the views draw."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.style import Style

from klipui.cli import main
from klipui.labels import plural
from klipui.session import Event, Session, open_session
from klipui.widgets.event_doc import EventDocument, build_blocks
from klipui.widgets.event_view import STYLE_NAMES

SAMPLES = Path(__file__).resolve().parent / "fixtures" / "samples"
CONSOLE = Console(width=100, color_system=None, force_terminal=False)
STYLES = {name: Style() for name in STYLE_NAMES}
WORDS = ("alpha", "beta", "considering", "the", "interchangeability", "of", "x", "refactor")


def _body_text(block, width: int = 90) -> str:
    body = block.body
    return "\n".join(
        "".join(segment.text for segment in body.render(row, width))
        for row in range(body.rows(width))
    )


def test_dsh_compaction_summary_is_shown_as_its_text() -> None:
    session = open_session(SAMPLES / "dsh/compaction-recovery.jsonl")
    blocks = build_blocks(session, 0, len(session.events), CONSOLE, STYLES, False)
    summaries = [b for b in blocks if b.kind == "compaction"]
    assert summaries
    text = _body_text(summaries[0])
    assert "The request established a durable compaction premise." in text
    assert "{'type'" not in text and "[{" not in text


def _thinking_session(text: str) -> Session:
    events = [
        Event("user/message", 0, data={"content": [{"type": "text", "text": "go"}]}),
        Event(
            "assistant/message",
            1,
            data={"message": {"content": [{"type": "reasoning", "text": text}]}},
        ),
    ]
    return Session(path=Path("x.jsonl"), format="dsh", events=events)


def _row_text(document: EventDocument, row: int, width: int) -> str:
    return "".join(s.text for s in document.render_row(row, width, Style()))


@given(st.lists(st.sampled_from(WORDS), min_size=20, max_size=80), st.integers(24, 70))
@settings(max_examples=30, deadline=None)
def test_unfolded_thinking_wraps_between_words(words: list[str], width: int) -> None:
    session = _thinking_session(" ".join(words))
    blocks = build_blocks(session, 0, 2, CONSOLE, STYLES)
    document = EventDocument(blocks, STYLES, CONSOLE)
    thinking = next(i for i, b in enumerate(blocks) if b.kind == "thinking")
    header_row = document.block_row(thinking, width)
    assert _row_text(document, header_row, width).lstrip().startswith("▸ thinking")
    blocks[thinking].collapsed = False
    document.relayout()
    assert _row_text(document, header_row, width).lstrip().startswith("▾ thinking")
    shown: list[str] = []
    for row in range(header_row + 1, document.block_row(thinking + 1, width) - 1):
        shown += _row_text(document, row, width).replace("│", " ").split()
    assert shown == words


@given(st.integers(0, 10**9), st.sampled_from(["turn", "line", "tool call"]))
def test_plural_agrees_with_its_count_and_groups_thousands(count: int, word: str) -> None:
    text = plural(count, word)
    figure, _, noun = text.partition(" ")
    assert int(figure.replace(",", "")) == count
    assert all(len(group) == 3 for group in figure.split(",")[1:])
    assert noun == (word if count == 1 else word + "s")


def test_show_says_one_turn_and_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    rows = [
        {"role": "user", "content": "run it"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "done"},
        {"role": "assistant", "content": "ok"},
    ]
    path = tmp_path / "one.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    assert main(["show", str(path)]) == 0
    out = capsys.readouterr().out
    assert "1 turn ·" in out and "1 tool call ·" in out and "1 line" in out
    assert "1 turns" not in out and "1 lines" not in out and "1 tool calls" not in out


def test_compact_prints_figures_with_thousands_separators(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    parent = tmp_path / "pi.jsonl"
    parent.write_bytes((SAMPLES / "pi/pi_before-compaction_v1.jsonl").read_bytes())
    code = main(["compact", str(parent), "--max-chars", "5000", "--dry-run"])
    out = capsys.readouterr().out
    assert code == 0
    tokens = re.search(r"tokens: ([\d,]+) → ([\d,]+)", out)
    assert tokens is not None
    for figure in tokens.groups():
        assert int(figure.replace(",", "")) >= 1000 and "," in figure
    assert "over 5,000 characters" in out
    moves = re.findall(r"seq \d+ \w+: ([\d,]+) → ([\d,]+) chars", out)
    assert moves
    for figure in (f for move in moves for f in move):
        assert figure == f"{int(figure.replace(',', '')):,}"


def test_help_names_the_app_section_in_words() -> None:
    from klipui.app import KlipuiApp
    from klipui.screens.help import _section

    text = _section(KlipuiApp())
    assert text.startswith("## Everywhere") and "KlipuiApp" not in text


def _claude_home(home: Path) -> dict[str, Path]:
    """Samples laid out as Claude Code keeps them: a session with a legacy sub-agent file
    beside it, and a new-layout sub-agent file whose session file is gone."""
    demo = home / ".claude/projects/-path-to-Demo"
    orphan_folder = home / ".claude/projects/-workspace-app/55550000-0000-4000-8000-000000000001"
    (orphan_folder / "subagents").mkdir(parents=True)
    demo.mkdir(parents=True)
    files = {
        "parent": demo / "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
        "legacy": demo / "agent-test-hash-123.jsonl",
        "orphan": orphan_folder / "subagents/agent-showcol1.jsonl",
    }
    sources = {
        "parent": "ccv_5c0375b4_task_sidechain.jsonl",
        "legacy": "ccv_agent-test-hash-123_legacy_agent_file.jsonl",
        "orphan": "ccl_subagents_agent-showcol1.jsonl",
    }
    for key, path in files.items():
        path.write_bytes((SAMPLES / "claude-code" / sources[key]).read_bytes())
    return files


@pytest.mark.parametrize("exact", [False, True])
def test_subagent_files_are_listed_under_their_session_or_alone(
    sealed_home: Path, exact: bool
) -> None:
    from klipui.screens.sessions import COLUMNS
    from klipui.session.discover import discover
    from klipui.session.tree import session_rows

    files = _claude_home(sealed_home)
    infos = {i.path: i for i in discover(None, exact=exact)}
    assert set(files.values()) <= set(infos)
    rows = session_rows(infos.values(), "", COLUMNS[3].sort_key, True, False)
    depth = {row.info.path: row.depth for row in rows if row.info is not None}
    order = [row.info.path for row in rows if row.info is not None]
    assert depth[files["parent"]] == 0 and depth[files["orphan"]] == 0
    assert depth[files["legacy"]] == 1
    assert order.index(files["legacy"]) == order.index(files["parent"]) + 1


def test_piped_ls_prints_whole_tab_separated_rows_with_the_path(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    path = tmp_path / "rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl"
    path.write_bytes((SAMPLES / "codex" / path.name).read_bytes())
    session = open_session(path)
    assert main(["ls", str(tmp_path)]) == 0
    header, row, *rest = capsys.readouterr().out.splitlines()
    assert rest == []
    names = header.split("\t")
    assert names == ["title", "agent", "project", "updated", "turns", "tokens", "size", "path"]
    fields = dict(zip(names, row.split("\t"), strict=True))
    assert fields["path"] == str(path)
    assert len(fields["title"]) > 35 and "…" not in fields["title"]
    assert session.turns[0].prompt.startswith(fields["title"][:60])
    assert fields["project"] == Path(session.cwd).name
    assert main(["show", fields["path"]]) == 0  # from ls to show


def test_terminal_ls_table_has_a_path_column(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    path = SAMPLES / "dsh" / "multi-turn.jsonl"
    assert main(["ls", str(path)]) == 0
    header, *rows = capsys.readouterr().out.splitlines()
    assert header.split()[-1] == "path"
    start = header.index("path")
    assert "".join(line[start:].strip() for line in rows) == str(path)


def test_clock_is_compact_and_dated_on_a_new_day() -> None:
    from klipui.labels import clock

    morning = 1_772_445_600_000  # 2026-03-02, some hour
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", clock(morning))
    assert re.fullmatch(r"\d\d:\d\d", clock(morning + 60_000, morning))
    assert len(clock(morning + 3 * 86_400_000, morning)) == 16


def test_block_headers_show_when_their_record_was_written() -> None:
    from klipui.labels import clock

    session = open_session(SAMPLES / "claude-code/ccv_1af7fc5e_tools_error.jsonl")
    blocks = build_blocks(session, 0, len(session.events), CONSOLE, STYLES)
    stamped = [b for b in blocks if b.kind in ("prompt", "call", "result", "error")]
    assert stamped
    first = session.events[stamped[0].event_index].time
    assert first is not None and stamped[0].header.plain.endswith(clock(first))
    later = [b for b in stamped[1:] if session.events[b.event_index].time is not None]
    assert later and all(re.search(r"  \d\d:\d\d$", b.header.plain) for b in later)


def test_blocks_without_a_time_have_no_stamp() -> None:
    session = _thinking_session("no clock here")
    blocks = build_blocks(session, 0, 2, CONSOLE, STYLES)
    assert not any(re.search(r"\d\d:\d\d", b.header.plain) for b in blocks)


def test_theme_setting_round_trips_and_a_damaged_file_reads_as_none(sealed_home: Path) -> None:
    from klipui.settings import load_settings, save_setting, settings_path

    path = settings_path()
    assert path == sealed_home / ".config/klipui/ui.json"
    assert load_settings() == {}
    save_setting("theme", "nord")
    save_setting("other", 1)
    assert load_settings() == {"theme": "nord", "other": 1}
    assert [p.name for p in path.parent.iterdir()] == ["ui.json"]  # no temp file left
    path.write_text("[not an object", encoding="utf-8")
    assert load_settings() == {}


@given(
    st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E), max_size=400),
    st.integers(0, 20).map(lambda n: n * 20),
    st.integers(10, 120),
)
def test_panning_shows_the_line_from_the_column_on(line: str, column: int, width: int) -> None:
    from klipui.widgets.shrink_pane import _shown

    shown = _shown(line, width, column)
    rest = line[column:]
    if column == 0:
        assert shown.startswith(line[:width])
    elif not rest:
        assert shown == ""
    else:
        assert shown.startswith("…") and rest.startswith(shown[1 : 1 + width])
        assert len(shown) > min(width, len(rest))
