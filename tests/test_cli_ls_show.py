"""`klipui ls` and `klipui show` on the real samples."""

from __future__ import annotations

import io
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from conftest import SAMPLES, sample_files

from klipui.cli import main
from klipui.session import SessionInfo, open_session


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_ls_json_lists_every_sample(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "ls", str(SAMPLES), "--json")
    assert code == 0, err
    rows = json.loads(out)
    assert sorted(r["path"] for r in rows) == sorted(str(p) for p in sample_files())
    for row in rows:
        assert row["format"] is not None and row["problem"] is None, row
        assert row["exact"] and row["turns"] is not None


def test_ls_table_shows_titles_and_turns(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "160")
    path = SAMPLES / "dsh" / "permission-policy-context.jsonl"
    session = open_session(path)
    code, out, _ = run(capsys, "ls", str(path))
    assert code == 0
    header, row = out.splitlines()[:2]
    assert header.split() == [
        "title",
        "agent",
        "project",
        "updated",
        "turns",
        "tokens",
        "size",
        "path",
    ]
    assert session.title and session.title in row
    assert "DeepSeek Harness" in row
    assert f" {len(session.turns)} " in row


def test_ls_lists_foreign_files_with_their_problem(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "odd.jsonl").write_text("[1, 2]\n")
    code, out, _ = run(capsys, "ls", str(tmp_path), "--json")
    assert code == 0
    [row] = json.loads(out)
    assert row["format"] is None and row["problem"]


def test_ls_missing_path_is_an_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "ls", str(tmp_path / "nope.jsonl"))
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "nope.jsonl" in err


def test_show_renders_prompts_calls_and_results(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    path = SAMPLES / "dsh" / "bash-spill.jsonl"
    session = open_session(path)
    code, out, _ = run(capsys, "show", str(path))
    assert code == 0
    assert session.turns[0].prompt in out
    call = next(e for e in session.events if e.type == "tool/call")
    assert f"→ {call.data['name']}" in out
    assert "← result " in out and " B, " in out
    assert "assistant: DONE" in out


def test_show_turn_selection_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    path = SAMPLES / "pi" / "pi_large-session_v1.jsonl"
    session = open_session(path)
    code, out, _ = run(capsys, "show", str(path), "--turns", "2..3, 10", "--json")
    assert code == 0
    data = json.loads(out)
    assert [t["number"] for t in data["turns"]] == [2, 3, 10]
    third = session.turns[2]
    assert data["turns"][1]["prompt"] == third.prompt
    assert len(data["turns"][1]["events"]) == third.end - third.start
    assert data["info"]["turns"] == len(session.turns)


def test_show_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = run(capsys, "show", str(tmp_path / "missing.jsonl"))
    assert code == 1 and "missing.jsonl" in err and err.count("\n") == 1
    (tmp_path / "notes.jsonl").write_text('{"a": 1}\n')
    code, _, err = run(capsys, "show", str(tmp_path / "notes.jsonl"))
    assert code == 1 and "notes.jsonl: not a recognised session format" in err
    (tmp_path / "bad.jsonl").write_text("not json\n")
    code, _, err = run(capsys, "show", str(tmp_path / "bad.jsonl"))
    assert code == 1 and "bad.jsonl:1: " in err
    sample = str(SAMPLES / "dsh" / "multi-turn.jsonl")
    code, _, err = run(capsys, "show", sample, "--turns", "1..x")
    assert code == 1 and "column" in err and "1..x\n   ^" in err


def test_show_reports_bad_lines_and_goes_on(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    lines = (SAMPLES / "dsh" / "multi-turn.jsonl").read_bytes().splitlines()
    lines.insert(3, b"{broken")
    path = tmp_path / "damaged.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    code, out, err = run(capsys, "show", str(path))
    assert code == 0
    assert f"{path}:4: invalid JSON" in err
    assert "turn 2" in out


def test_show_takes_selections_from_the_end(capsys: pytest.CaptureFixture[str]) -> None:
    path = SAMPLES / "pi" / "pi_large-session_v1.jsonl"
    count = len(open_session(path).turns)
    code, out, _ = run(capsys, "show", str(path), "--turns", "-2..", "--json")
    assert code == 0
    assert [t["number"] for t in json.loads(out)["turns"]] == [count - 1, count]


def test_show_lists_images_with_their_size(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    line = {
        "type": "user",
        "uuid": "u1",
        "parentUuid": None,
        "sessionId": "s1",
        "timestamp": "2025-01-01T00:00:00.000Z",
        "cwd": "/home/ana/app",
        "message": {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is in this picture?"},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": "A" * 4000},
                },
            ],
        },
    }
    path = tmp_path / "s1.jsonl"
    path.write_text(json.dumps(line) + "\n")
    code, out, err = run(capsys, "show", str(path))
    assert code == 0, err
    assert "what is in this picture?" in out
    assert "[image/png, 3.0 kB]" in out


ESCAPES = (
    "\x1b[?25l\x1b[2K\x1b[1G\x1b[36m?\x1b[39m \x1b[1mWould you like it?\x1b[22m"
    "\x1b]0;pwned\x07 done\x9b31m\x07\x00"
)


def _session_with_output(tmp_path: Path, output: str) -> Path:
    """A dsh session (the bash-spill sample) whose tool result texts are `output`."""
    lines = [
        json.loads(raw) for raw in (SAMPLES / "dsh" / "bash-spill.jsonl").read_bytes().splitlines()
    ]
    changed = 0
    for record in lines:
        if record.get("type") == "tool/result":
            record["data"]["message"]["content"][0]["content"] = [{"type": "text", "text": output}]
            changed += 1
    assert changed
    path = tmp_path / "escapes.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in lines))
    return path


def test_show_prints_no_escape_or_control_sequence(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    path = _session_with_output(tmp_path, (ESCAPES + "\n") * 3 + "x" * 390 + ESCAPES)
    code, out, err = run(capsys, "show", str(path))
    assert code == 0, err
    assert "Would you like it? done" in out
    assert not any(c in out for c in "\x1b\x9b\x07\x00"), repr(out)


def test_show_sample_with_escapes_prints_none(capsys: pytest.CaptureFixture[str]) -> None:
    path = SAMPLES / "claude-code" / "ccv_fe5e1c67_sidechains_summary_errors.jsonl"
    assert "\\u001b[" in path.read_text()
    code, out, _ = run(capsys, "show", str(path))
    assert code == 0 and "\x1b" not in out


@pytest.mark.parametrize("selection", ["5..2", "99", "not 1"])
def test_show_selection_of_nothing_is_an_error_with_its_warning(
    capsys: pytest.CaptureFixture[str], selection: str
) -> None:
    path = SAMPLES / "dsh" / "multi-turn.jsonl"
    code, out, err = run(capsys, "show", str(path), "--turns", selection)
    assert code == 1 and out == ""
    assert "warning: " in err and "keeps none" in err


def test_show_warns_about_a_part_that_selects_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    path = SAMPLES / "dsh" / "multi-turn.jsonl"
    code, out, err = run(capsys, "show", str(path), "--turns", "1, 99", "--json")
    assert code == 0
    assert [t["number"] for t in json.loads(out)["turns"]] == [1]
    assert "warning: 99" in err


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name)
def test_show_and_ls_give_the_same_title(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, path: Path
) -> None:
    from klipui.session.display import display_title

    monkeypatch.setenv("COLUMNS", "400")
    code, out, _ = run(capsys, "ls", str(path), "--json")
    [row] = json.loads(out)
    title = display_title(SessionInfo(**{**row, "path": Path(row["path"])}))
    code, out, _ = run(capsys, "show", str(path))
    assert code == 0
    assert out.splitlines()[0].strip() == title[:390].strip() or out.startswith(title[:100])
    code, out, _ = run(capsys, "show", str(path), "--json")
    assert display_title(SessionInfo(**{**json.loads(out)["info"], "path": path})) == title


def test_show_json_reports_the_file_size(capsys: pytest.CaptureFixture[str]) -> None:
    path = SAMPLES / "dsh" / "multi-turn.jsonl"
    _, out, _ = run(capsys, "show", str(path), "--json")
    info = json.loads(out)["info"]
    assert info["bytes"] == path.stat().st_size > 0
    assert info["updated"] is not None


@pytest.mark.parametrize("columns", [50, 60, 80, 100, 160])
def test_ls_title_never_collapses_at_narrow_widths(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, columns: int
) -> None:
    from klipui.cli.ls import MIN_TITLE

    monkeypatch.setenv("COLUMNS", str(columns))
    code, out, _ = run(capsys, "ls", str(SAMPLES / "dsh"))
    assert code == 0
    header, *rows = out.splitlines()
    assert header.startswith("title") and "turns" in header
    assert max(len(line) for line in out.splitlines()) <= columns
    for row in rows:
        if row.startswith(" "):
            continue  # a long path folded onto the next line
        title = row[: header.index(header.split()[1])].strip()
        assert len(title) >= min(MIN_TITLE - 2, 10), row
        assert title.strip("…") and not title.startswith("…")


def test_ls_problem_rows_name_the_file_once_with_the_whole_reason(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    (tmp_path / "text.jsonl").write_text("this is not json at all\n")
    code, out, _ = run(capsys, "ls", str(tmp_path))
    assert code == 0
    words = out.split()
    assert words.count("text.jsonl") == 1
    assert {"line", "1:", "invalid", "JSON:", "(char", "0)"} <= set(words)
    assert "—" in out.splitlines()[1]


def test_ls_streams_rows_to_a_terminal_before_the_last_file_is_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import io
    import threading
    import time

    from klipui.cli import ls

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    screen = Terminal()
    monkeypatch.setattr(sys, "stdout", screen)
    monkeypatch.setenv("COLUMNS", "120")
    first = SessionInfo(path=Path("/x/a.jsonl"), format="dsh", title="first title seen", turns=1)
    last = SessionInfo(path=Path("/x/b.jsonl"), format="dsh", title="the last one", turns=2)
    seen_before_last = threading.Event()

    def infos(on_progress: Callable[[int, int], None]) -> Iterator[SessionInfo]:
        on_progress(1, 2)
        yield first
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and "first title seen" not in screen.getvalue():
            time.sleep(0.02)
        if "first title seen" in screen.getvalue():
            seen_before_last.set()
        on_progress(2, 2)
        yield last

    latest = ls._read_live(infos)
    assert seen_before_last.is_set()
    assert set(latest) == {first.path, last.path}


def test_ls_table_drops_columns_least_useful_first() -> None:
    from rich.console import Console

    from klipui.cli.ls import DROP_ORDER, MIN_TITLE, session_table

    infos = [
        SessionInfo(path=Path("/x/a.jsonl"), format="pi", agent="pi", title="t " * 80, turns=3),
        SessionInfo(path=Path("/x/b.jsonl"), format="dsh", agent="DeepSeek Harness", project="p"),
    ]
    everything = ["agent", "project", "updated", "turns", "tokens", "size", "path"]
    for width in range(30, 201, 5):
        console = Console(width=width, file=io.StringIO())
        console.print(session_table(infos, width))
        lines = console.file.getvalue().splitlines()
        header = lines[0].split()
        assert header[0] == "title" and max(map(len, lines)) <= width
        dropped = [name for name in everything if name not in header]
        assert set(dropped) == set(DROP_ORDER[: len(dropped)]), (width, header)
        if len(header) > 1:
            assert lines[0].index(header[1]) >= MIN_TITLE, (width, lines[0])


def test_ls_shows_the_whole_prompt_when_the_dsh_title_is_its_first_words(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    path = SAMPLES / "dsh" / "bash-spill.jsonl"
    session = open_session(path)
    prompt = " ".join(session.turns[0].prompt.split())
    assert session.title and prompt.startswith(session.title) and len(prompt) > len(session.title)
    code, out, _ = run(capsys, "ls", str(path))
    assert code == 0 and prompt in out
