"""Fuzz: real samples, mutated line by line, never crash a reader and never cost a good line.

`open_session`, `read_info`, `exact_info` and `plan_child` either succeed or raise their own
documented error (SessionError, ClipError); no other exception escapes. Every line that was a
record before the mutation and was not touched is still a record after it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fuzz_support import Sample, fuzz_settings, load_samples, mutated
from hypothesis import given
from hypothesis import strategies as st

from klipui.klip.child import ClipError, plan_child
from klipui.session import SessionError, open_session
from klipui.session.formats import SNIFF_VALUES
from klipui.session.load import exact_info, read_info, session_info
from klipui.session.model import SessionInfo

EXAMPLES = int(__import__("os").environ.get("FUZZ_EXAMPLES", "1500"))
"""Mutated files per run (each with one to three mutated lines)."""


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> list[Sample]:
    return load_samples(tmp_path_factory.mktemp("samples"))


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def test_the_samples_are_many_and_open(samples: list[Sample], workdir: Path) -> None:
    assert len(samples) >= 20
    formats = set()
    for sample in samples:
        path = workdir / "whole.jsonl"
        path.write_bytes(b"\n".join(sample.lines) + b"\n")
        session = open_session(path)
        assert {record.line for record in session.records} == sample.good, sample.name
        formats.add(session.format)
    assert formats == {"claude", "codex", "pi", "dsh", "qwen", "messages"}


@fuzz_settings(EXAMPLES)
@given(data=st.data())
def test_mutated_samples_never_crash_and_keep_every_untouched_line(
    samples: list[Sample], workdir: Path, data: st.DataObject
) -> None:
    case = data.draw(mutated(samples))
    sample, content, touched = case.sample, case.content, case.touched
    path = workdir / "session.jsonl"
    path.write_bytes(content)
    try:
        session = open_session(path)
    except SessionError as error:
        # Either no good line is left, or a mutation among the lines sniffing looks at made
        # the format unknown.
        if sample.good - touched:
            assert "not a recognised session format" in str(error), (sample.name, str(error))
            assert min(touched) <= SNIFF_VALUES, sample.name
        session = None
    else:
        kept = {record.line for record in session.records}
        lost = (sample.good - touched) - kept
        assert not lost, (sample.name, sorted(lost), [str(p) for p in session.problems])
    for info in (read_info(path), exact_info(path)):
        assert isinstance(info, SessionInfo)
        assert (info.problem is None) == (info.format is not None) or info.problem
    if session is not None:
        assert isinstance(session_info(session), SessionInfo)
        try:
            plan = plan_child(session, "..", include_unfinished=True)
        except ClipError:
            return
        assert plan.lines or plan.blockers or plan.kept_records == 0
