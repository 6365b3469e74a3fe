"""Fuzz the command line on mutated real samples: `show`, `ls` and `klip --dry-run` exit with a
status (0 or 1) and never let an exception or a traceback out."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from fuzz_support import Sample, fuzz_settings, load_samples, mutated
from hypothesis import given
from hypothesis import strategies as st

from klipui.cli import main

EXAMPLES = int(os.environ.get("FUZZ_CLI_EXAMPLES", "150"))
"""Mutated files per run, each given to the three commands."""


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> list[Sample]:
    return load_samples(tmp_path_factory.mktemp("samples"))


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz-cli")


@fuzz_settings(EXAMPLES)
@given(data=st.data())
def test_the_cli_on_mutated_samples_never_crashes(
    samples: list[Sample],
    workdir: Path,
    capsys: pytest.CaptureFixture[str],
    data: st.DataObject,
) -> None:
    case = data.draw(mutated(samples))
    path = workdir / "session.jsonl"
    path.write_bytes(case.content)
    for argv in (
        ["show", str(path)],
        ["ls", str(path), "--json"],
        ["klip", str(path), "..", "--dry-run", "--include-unfinished"],
    ):
        code = main(argv)
        err = capsys.readouterr().err
        assert code in (0, 1), (argv[0], err)
        assert "Traceback" not in err
