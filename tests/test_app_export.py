"""The export screen: redaction preview beside the original, writing, and asking before
replacing a file."""

from __future__ import annotations

import json
from pathlib import Path

from app_support import make_app, settle, wait_for
from textual.widgets import Input, Static

from klipui.screens.export import ConfirmScreen, ExportScreen
from klipui.screens.session import SessionScreen

SECRET = "ghp_aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"


def secret_session(path: Path) -> Path:
    rows = [
        {"role": "user", "content": f"deploy with {SECRET}"},
        {"role": "assistant", "content": "Done."},
        {"role": "user", "content": "now print the env"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "bash", "arguments": '{"command": "cat .env"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "A=1\nDB_PASSWORD=Xy7-Wq2-Lp9\nB=2"},
        {"role": "assistant", "content": "ok"},
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path


async def _export_screen(pilot, app, keys: tuple[str, ...] = ()) -> ExportScreen:
    await settle(pilot, app)
    screen = app.screen
    assert isinstance(screen, SessionScreen)
    await wait_for(pilot, lambda: screen.session is not None)
    if keys:
        await pilot.press(*keys)
    await pilot.press("e")
    await settle(pilot, app)
    export = app.screen
    assert isinstance(export, ExportScreen)
    return export


def _summary(screen: ExportScreen) -> str:
    return str(screen.query_one("#export-summary", Static).render())


async def test_preview_shows_each_replacement_beside_the_original(tmp_path: Path) -> None:
    path = secret_session(tmp_path / "s.jsonl")
    app = make_app(tmp_path, open_first=path)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await _export_screen(pilot, app)
        await wait_for(pilot, lambda: "replacements" in _summary(screen))
        assert "2 replacements" in _summary(screen)
        lefts = [str(w.render()) for w in screen.query(".export-left")]
        rights = [str(w.render()) for w in screen.query(".export-right")]
        whys = " ".join(str(w.render()) for w in screen.query(".export-why"))
        assert any("[REDACTED github-token #1]" in text for text in lefts)
        assert any(SECRET in text for text in rights)
        assert "DB_PASSWORD=[REDACTED env-secret #1]" in "".join(lefts)
        assert "GitHub" in whys and "turn 2" in whys
        await pilot.press("r")
        await settle(pilot, app)
        assert "Redaction off" in _summary(screen)


async def test_write_the_selection_and_ask_before_replacing(tmp_path: Path) -> None:
    path = secret_session(tmp_path / "s.jsonl")
    out = tmp_path / "out" / "export.md"
    out.parent.mkdir()
    app = make_app(tmp_path, open_first=path)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await _export_screen(pilot, app, ("space",))  # turn 1 selected
        assert screen.turns == [1]
        await pilot.press("t")  # html → markdown
        await pilot.press("p")
        screen.query_one(Input).value = str(out)
        await pilot.press("enter")
        await settle(pilot, app)
        await wait_for(pilot, lambda: out.exists())
        text = out.read_text()
        assert "## Turn 1" in text and "## Turn 2" not in text
        assert SECRET not in text and "[REDACTED github-token #1]" in text
        await pilot.press("d", "w")  # another detail: same path, so it asks
        await settle(pilot, app)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        await settle(pilot, app)
        assert out.read_text() == text
        await pilot.press("r", "w")
        await settle(pilot, app)
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        await settle(pilot, app)
        await wait_for(pilot, lambda: SECRET in out.read_text())
        assert [p.name for p in out.parent.iterdir()] == ["export.md"]  # no temp file left
        await pilot.press("escape")
        await settle(pilot, app)
        assert isinstance(app.screen, SessionScreen)
