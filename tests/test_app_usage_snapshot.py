"""A snapshot of the usage screen (looks only; its figures are tested in test_usage.py).

Update on purpose only: `pytest tests/test_app_usage_snapshot.py --snapshot-update -n 0`.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from app_support import copy_samples, make_app, settle, wait_for


@pytest.fixture
def utc(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


async def _usage(pilot) -> None:
    from klipui.screens.usage import UsageScreen

    app = pilot.app
    await settle(pilot, app)
    await pilot.press("u")
    await wait_for(pilot, lambda: isinstance(app.screen, UsageScreen))
    await wait_for(pilot, lambda: app.screen.by_day is not None)
    await settle(pilot, app)


def test_usage_screen(snap_compare, tmp_path: Path, utc: None) -> None:
    copy_samples(
        tmp_path,
        [
            "dsh/permission-policy-context.jsonl",
            "dsh/multi-turn.jsonl",
            "pi/pi_large-session_v1.jsonl",
            "claude-code/ccusage_usage_alpha.jsonl",
            "codex/ccusage_codex_tokens_alpha.jsonl",
        ],
    )
    assert snap_compare(make_app(tmp_path), terminal_size=(100, 24), run_before=_usage)
