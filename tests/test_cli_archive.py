"""`klipui archive` from the command line: the report, --json, --dry-run, --agents, the
schedules (printed, and written only with --install), and archived rows in `ls` and the app."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from app_support import settle

from klipui.app import KlipuiApp, Sources
from klipui.cli import main

SAMPLES = Path(__file__).resolve().parent / "fixtures" / "samples"


def _pi_session(home: Path, name: str = "2025-11-20_x.jsonl") -> Path:
    path = home / ".pi" / "agent" / "sessions" / "--home-me-app--" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(SAMPLES / "pi" / "pi_large-session_v1.jsonl", path)
    return path


def test_json_report_then_nothing_to_do(
    sealed_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = _pi_session(sealed_home)
    archive = tmp_path / "kept"
    assert main(["archive", "--to", str(archive), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["files"] == {"new": 1}
    assert report["copied_bytes"] == source.stat().st_size
    assert 0 < report["written_bytes"] < report["copied_bytes"]
    assert report["at_risk"] == [] and report["held"]["sessions"] == 1
    assert main(["archive", "--to", str(archive)]) == 0
    out = capsys.readouterr().out
    assert "copied 0 files" in out and "1 unchanged" in out
    assert "nothing would be lost" in out


def test_dry_run_says_what_would_be_lost(
    sealed_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _pi_session(sealed_home)
    archive = tmp_path / "kept"
    assert main(["archive", "--to", str(archive), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "would copy 1 files" in out and "would be lost" in out
    assert not archive.exists()


def test_bad_arguments(sealed_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["archive", "--agents", "claude,bogus"]) == 2
    assert "unknown agent 'bogus'" in capsys.readouterr().err
    assert main(["archive", "--install"]) == 2
    file = sealed_home / "plain.txt"
    file.write_text("x")
    assert main(["archive", "--to", str(file)]) == 2


def test_schedules_are_printed_and_installed_only_on_request(
    sealed_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    units = sealed_home / ".config" / "systemd" / "user"
    assert main(["archive", "--schedule", "cron"]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    minute, hour, *rest = line.split()
    assert minute.isdigit() and hour.isdigit() and rest[:3] == ["*", "*", "*"]
    assert "archive --quiet" in line and line.endswith("# klipui archive")
    assert main(["archive", "--schedule", "systemd"]) == 0
    text = capsys.readouterr().out
    assert "OnCalendar=daily" in text and "ExecStart=" in text
    assert not units.exists()
    assert main(["archive", "--schedule", "systemd", "--install", "--to", "~/kept"]) == 0
    service = (units / "klipui-archive.service").read_text()
    assert f"--to {sealed_home}/kept" in service
    assert (units / "klipui-archive.timer").is_file()
    assert "systemctl --user" in capsys.readouterr().out


def test_ls_marks_archived_sessions(
    sealed_home: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = _pi_session(sealed_home, "2025-11-20_kept.jsonl")
    gone = _pi_session(sealed_home, "2025-11-21_gone.jsonl")
    assert main(["archive", "--quiet"]) == 0
    gone.unlink()
    monkeypatch.setenv("COLUMNS", "160")
    assert main(["ls", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    by_name = {Path(row["path"]).name: row for row in rows}
    assert len(rows) == 2
    assert by_name[kept.name]["archived"] is False
    assert by_name[gone.name]["archived"] is True
    assert "klipui/archive/pi/sessions" in by_name[gone.name]["path"]


async def test_sessions_screen_marks_archived_rows(sealed_home: Path) -> None:
    from klipui.screens.sessions import ARCHIVED_MARK, SessionTable

    gone = _pi_session(sealed_home, "2025-11-21_gone.jsonl")
    _pi_session(sealed_home, "2025-11-20_kept.jsonl")
    assert main(["archive", "--quiet"]) == 0
    gone.unlink()
    app = KlipuiApp(Sources(fallback_to_demo=False), now=1_800_000_000.0)
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot, app)
        table = app.screen.query_one(SessionTable)
        titles = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        assert len(titles) == 2
        assert sum(title.startswith(ARCHIVED_MARK) for title in titles) == 1


async def test_archive_from_the_app_with_progress_then_rescan(sealed_home: Path) -> None:
    from app_support import wait_for

    from klipui.screens.archive import ArchiveScreen
    from klipui.screens.sessions import SessionsScreen

    source = _pi_session(sealed_home)
    app = KlipuiApp(Sources(fallback_to_demo=False), now=1_800_000_000.0)
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot, app)
        await pilot.press("B")
        await wait_for(pilot, lambda: isinstance(app.screen, ArchiveScreen))
        dialog = app.screen
        await wait_for(pilot, lambda: dialog.result is not None)
        assert dialog.result.startswith("copied 1 files (1 new")
        assert "nothing would be lost" in dialog.result
        copy = sealed_home / ".local/share/klipui/archive/pi/sessions" / source.parent.name
        assert (copy / source.name).is_file()
        await pilot.press("escape")
        await settle(pilot, app)
        assert isinstance(app.screen, SessionsScreen)
        assert len(app.screen.infos) == 1


def test_report_names_what_it_copied_and_the_archive_is_private(
    sealed_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = _pi_session(sealed_home, "2025-11-20_a.jsonl")
    _pi_session(sealed_home, "2025-11-21_b.jsonl")
    archive = tmp_path / "new" / "kept"
    assert main(["archive", "--to", str(archive), "--json"]) == 0
    copied = json.loads(capsys.readouterr().out)["copied"]
    assert sorted(Path(entry["path"]).name for entry in copied) == [
        "2025-11-20_a.jsonl",
        "2025-11-21_b.jsonl",
    ]
    assert all(entry["state"] == "new" and entry["bytes"] > 0 for entry in copied)
    assert archive.stat().st_mode & 0o777 == 0o700
    files = [p for p in archive.rglob("*") if p.is_file()]
    assert files and all(p.stat().st_mode & 0o077 == 0 for p in files)
    with first.open("ab") as out:
        out.write(b"{}\n")
    assert main(["archive", "--to", str(archive)]) == 0
    out = capsys.readouterr().out
    assert "grown" in out and str(first) in out


def test_an_archive_inside_an_agent_folder_is_refused(
    sealed_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _pi_session(sealed_home)
    inside = sealed_home / ".pi" / "agent" / "sessions" / "kept"
    assert main(["archive", "--to", str(inside)]) == 2
    assert "inside or above the agent folder" in capsys.readouterr().err
    assert not inside.exists()
    assert main(["archive", "--to", str(sealed_home), "--dry-run"]) == 2  # holds them all
