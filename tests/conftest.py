"""Shared fixtures: the real sample sessions and tool outputs, and a sealed-off user environment."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SAMPLES = FIXTURES / "samples"
"""Real session files (copied from ../shared/samples; provenance in SOURCES.md)."""
AGENT_WRITTEN = FIXTURES / "agent-written"
"""Sessions the real agents wrote themselves (../shared/tools/write_sessions.py,
write_dsh_session.py; provenance in its README.md)."""
CORPUS = FIXTURES / "corpus"
"""Real tool outputs (copied from ../shared/corpus): a folder a case, output.txt + meta.json."""


def sample_files(agent: str | None = None) -> list[Path]:
    """Every sample session file, or those of one agent folder (dsh, claude-code, codex, pi)."""
    root = SAMPLES / agent if agent else SAMPLES
    return sorted(p for p in root.rglob("*") if p.is_file() and p.name != "SOURCES.md")


def corpus_cases() -> list[Path]:
    """Every corpus case folder."""
    return sorted(p for p in CORPUS.iterdir() if (p / "output.txt").is_file())


def fitted_strategy(kind: str) -> str:
    """The strategy of an output whose plan fits: the reducer's name, `+salience` after it for a
    reducer whose plan joins salience's ranking (`blend`)."""
    module = importlib.import_module(f"klipui.shrink.reducers.{kind}")
    return f"{kind}+salience" if getattr(module, "blend", False) else kind


def corpus_case(name: str) -> tuple[str, dict]:
    """The output and the meta of one corpus case."""
    folder = CORPUS / name
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    return (folder / "output.txt").read_text(encoding="utf-8"), meta


FIRST_MEASURE_CASE = 24
"""Cases from this number on were captured to measure the engine on shapes it was not built for:
their `kind` is the capturer's word, not a reducer's contract, so they are judged by recall
(test_shrink_salience.py, bench/shrink_quality.py), not by which reducer detects them."""


def design_cases() -> list[Path]:
    """The corpus cases the reducers were designed on (0.1), whose kinds are reducer contracts."""
    return [p for p in corpus_cases() if int(p.name.split("-", 1)[0]) < FIRST_MEASURE_CASE]


@pytest.fixture(autouse=True)
def sealed_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point every user directory klipui may touch at a fresh temporary home."""
    home = tmp_path_factory.mktemp("home")
    for name, sub in (
        ("HOME", ""),
        ("XDG_CACHE_HOME", ".cache"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_CONFIG_HOME", ".config"),
        ("CLAUDE_CONFIG_DIR", ".claude"),
        ("CODEX_HOME", ".codex"),
        ("DSH_HOME", ".dsh"),
    ):
        monkeypatch.setenv(name, str(home / sub) if sub else str(home))
    return home
