"""The shrink pipeline: routing, composition, markers, footer, reducer loading, the CLI pipe."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from conftest import CORPUS

from klipui.cli import main
from klipui.shrink import (
    Budget,
    FileSpillStore,
    Hint,
    Keep,
    builtin_reducers,
    load_reducers,
    shrink,
)
from klipui.shrink.text import (
    cap_line,
    join_lines,
    marker,
    safe_slice,
    sample,
    split,
    split_lines,
)


def corpus(name: str) -> str:
    return (CORPUS / name / "output.txt").read_text(encoding="utf-8")


NUMBERED = "".join(f"line {i:04d}\n" for i in range(500))


# text helpers ------------------------------------------------------------------------------


def test_split_lines_rules() -> None:
    assert split_lines("") == []
    assert split_lines("\n") == [""]
    assert split_lines("a\nb\n") == ["a", "b"]
    assert split_lines("a\r\nb\r\n") == ["a", "b"]
    assert split("a\r\nbc").starts == [0, 3, 5]
    for rows in (["a", ""], [""], ["x", "", "y"], []):
        assert split_lines(join_lines(rows)) == rows


def test_marker_counts_and_plurals() -> None:
    assert marker(15903, 401) == "[… 401 lines, 15,903 chars]"
    assert marker(1, 1) == "[… 1 line, 1 char]"
    assert marker(10, 2, "unchanged") == "[… 2 lines, 10 chars] (unchanged)"


@pytest.mark.parametrize(
    ("text", "limit", "kept"),
    [
        ("abce\u0301x", 4, "abc"),  # combining accent stays with its letter
        ("ab👩\u200d💻", 3, "ab"),  # ZWJ sequence
        ("ab\udcff\udcfe", 3, "ab"),  # surrogate escapes of one bad sequence
        ("ab🇫🇷", 3, "ab"),  # regional indicator pair
        ("abcdef", 3, "abc"),
    ],
)
def test_safe_slice_never_splits(text: str, limit: int, kept: str) -> None:
    assert safe_slice(text, limit) == kept


def test_cap_line() -> None:
    assert cap_line("x" * 20, 5) == "xxxxx ... +15 characters"
    assert cap_line("x" * 6, 5) == "xxxxx ... +1 character"
    assert cap_line("short", 5) == "short"


def test_detection_sample_is_bounded() -> None:
    big = "y" * 99 + "\n"
    assert len(sample(big * 1_000_000)) <= 250_000


# routing -----------------------------------------------------------------------------------


def test_fitting_text_passes_unchanged() -> None:
    out = shrink("hello\r\nworld\r\n", Hint(), Budget(100, 10, 3))
    assert (out.content, out.reduced, out.strategy) == ("hello\r\nworld\r\n", False, "none")


@pytest.mark.parametrize(
    "hint",
    [
        Hint(tool="bash"),
        Hint(tool="grep"),
        Hint(tool="read"),
        Hint(),
        Hint(tool="bash", exit_code=2),
    ],
)
def test_fallback_is_salience_and_keeps_both_ends(hint: Hint) -> None:
    out = shrink(NUMBERED, hint, Budget(max_chars=400), disable=["repeat"])
    assert out.strategy == "salience"
    rows = out.content.splitlines()
    assert rows[0] == "line 0000" and rows[-1] == "line 0499"
    assert out.content.endswith("\n")  # the kept last line keeps its newline
    assert len(out.content) <= 400


def test_head_tail_reference_example_counts() -> None:
    out = shrink(NUMBERED, Hint(), Budget(max_chars=400), only=[])
    rows = out.content.splitlines()
    omitted = [r for r in rows if r.startswith("[… ")]
    assert len(omitted) == 1
    kept = [r for r in rows if not r.startswith("[… ")]
    missing = 500 - len(kept)
    assert omitted[0] == marker(missing * 10, missing)


def test_line_cap_only() -> None:
    text = "\n".join("x" * 500 for _ in range(10))
    out = shrink(text, Hint(), Budget(max_chars=1000, max_lines=100, max_line_chars=50))
    assert out.strategy == "size:line-cap"
    assert all(r.endswith("... +450 characters") for r in out.content.split("\n"))


def test_single_huge_line_without_cap_is_only_a_marker() -> None:
    out = shrink("z" * 10_000, Hint(), Budget(max_chars=500))
    assert out.content == "[… 1 line, 10,000 chars]"
    assert "line 1 (10,000 characters) is longer than the whole budget" in out.note
    assert "max_line_chars" in out.note


def test_lines_too_long_for_the_budget_are_named_in_the_note() -> None:
    text = "short\n" + "y" * 3_000 + "\nmid\n" + "z" * 9_000 + "\nend\n"
    out = shrink(text, Hint(tool="bash"), Budget(max_chars=400))
    assert "2 omitted lines are each longer than the whole budget" in out.note
    assert "line 4, has 9,000 characters" in out.note
    capped = shrink(text, Hint(tool="bash"), Budget(max_chars=400, max_line_chars=50))
    assert "longer than the whole budget" not in capped.note
    assert "longer than the whole budget" not in shrink(NUMBERED, Hint(), Budget(400)).note


def test_only_empty_means_size_and_disable_skips() -> None:
    diff = corpus("14-git-diff-jinja-rename")
    assert shrink(diff, Hint(tool="bash"), Budget(4000), only=[]).strategy == "salience"
    assert shrink(diff, Hint(tool="bash"), Budget(4000)).strategy == "diff"
    assert shrink(diff, Hint(tool="bash"), Budget(4000), disable=["diff"]).strategy != "diff"
    assert shrink(diff, Hint(tool="bash"), Budget(4000), disable=["size"]).strategy == "diff"


def test_shape_reducer_over_budget_composes_with_salience() -> None:
    out = shrink(corpus("14-git-diff-jinja-rename"), Hint(tool="bash"), Budget(max_chars=600))
    assert out.strategy == "diff+salience"
    assert out.content.startswith("diff --git a/src/jinja2/_compat_aliases.py")
    assert len(out.content) <= 600


def test_shape_reducer_over_budget_composes_with_semantic() -> None:
    """Even the file headers of the diff overflow: the query picks which files stay."""
    text = corpus("14-git-diff-jinja-rename")
    header = "diff --git a/tests/test_security.py b/tests/test_security.py"
    hint = Hint(tool="bash", command="git diff", query="security test")
    out = shrink(text, hint, Budget(max_chars=800))
    assert out.strategy.startswith("diff+semantic")
    assert header in out.content and len(out.content) <= 800
    plain = shrink(text, Hint(tool="bash", command="git diff"), Budget(max_chars=800))
    assert plain.strategy == "diff+salience" and header not in plain.content


def test_semantic_before_size_when_no_shape_matches() -> None:
    text = corpus("23-man-git-rebase-prose")
    out = shrink(
        text, Hint(tool="bash", query="autosquash fixup"), Budget(3000), disable=["outline"]
    )
    assert out.strategy.startswith("semantic")
    assert "--autosquash" in out.content


def test_footer_is_inside_the_budget_and_idempotent(tmp_path: Path) -> None:
    store = FileSpillStore(tmp_path)
    text = corpus("14-git-diff-jinja-rename")
    out = shrink(text, Hint(tool="bash"), Budget(max_chars=4000), spill=store)
    assert len(out.content) <= 4000 and out.stats.output_chars == len(out.content)
    assert out.content.split("\n")[-1].startswith("[full output saved as spill:bash-")
    again = shrink(out.content, Hint(tool="bash"), Budget(max_chars=4000), spill=store)
    assert again.strategy == "none" and again.content == out.content


def test_crlf_input_counts_its_carriage_returns() -> None:
    text = NUMBERED.replace("\n", "\r\n")
    out = shrink(text, Hint(tool="grep"), Budget(max_chars=400), only=[])
    omitted = next(r for r in out.content.split("\n") if r.startswith("[… "))
    kept = out.stats.kept_lines
    assert omitted == marker((500 - kept) * 11, 500 - kept)
    assert "\r" not in out.content


def test_kept_maps_every_output_line() -> None:
    text = corpus("20-csv-zoneinfo-export")
    lines = split_lines(text)
    out = shrink(text, Hint(tool="bash"), Budget(2500))
    rows = split_lines(out.content)
    assert len(rows) == len(out.kept)
    for row, span in zip(rows, out.kept, strict=True):
        if span.kind == "line":
            assert row == lines[span.start]
        elif span.kind == "omitted":
            assert row.endswith(f", {split(text).span_chars(span.start, span.end):,} chars]")
    assert {span.kind for span in out.kept} == {"line", "omitted", "summary"}


# reducer loading ---------------------------------------------------------------------------

GOOD = """
from klipui.shrink.plan import Keep, Summary
name = "kubectl"
def detect(text, hint):
    return (hint.command or "").startswith("kubectl")
def reduce(text, hint, budget):
    return [Keep(0, 1, 1), Summary(("[pods elided]",), 1, 3, 1)]
"""


def test_extra_reducers_run_first(tmp_path: Path) -> None:
    (tmp_path / "kubectl.py").write_text(GOOD)
    extra = load_reducers(tmp_path)
    text = "NAME READY\n" + "pod-x 1/1\n" * 5000
    out = shrink(text, Hint(command="kubectl get pods"), Budget(2000), extra=extra)
    assert out.strategy == "kubectl"
    assert out.content.startswith("NAME READY\n[pods elided]\n")
    assert " lines, " in out.content and len(out.content) <= 2000
    assert shrink(text, Hint(command="ls"), Budget(2000), extra=extra).strategy != "kubectl"
    assert (
        shrink(text, Hint(command="kubectl"), Budget(2000), extra=extra, only=["kubectl"]).strategy
        == "kubectl"
    )


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            "name = 'other'\ndef detect(t, h): return True\ndef reduce(t, h, b): return None\n",
            "differs",
        ),
        ("name = 'bad'\ndef detect(t, h): return True\n", "no callable `reduce`"),
        ("raise RuntimeError('boom')\n", "boom"),
    ],
)
def test_bad_reducer_files_fail_loudly(tmp_path: Path, source: str, message: str) -> None:
    (tmp_path / "bad.py").write_text(source)
    with pytest.raises(ValueError, match=message):
        load_reducers(tmp_path)


def test_a_failing_reducer_is_skipped_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "broken.py").write_text(
        "name = 'broken'\ndef detect(t, h): return True\ndef reduce(t, h, b): raise KeyError('x')\n"
    )
    out = shrink(NUMBERED, Hint(), Budget(400), extra=load_reducers(tmp_path))
    assert out.reduced and "reducer broken failed: KeyError" in out.note


def test_bad_plan_is_skipped() -> None:
    class Overlapping:
        name = "overlapping"

        @staticmethod
        def detect(text: str, hint: Hint) -> bool:
            return True

        @staticmethod
        def reduce(text: str, hint: Hint, budget: Budget) -> list[Keep]:
            return [Keep(5, 10), Keep(0, 3)]

    out = shrink(NUMBERED, Hint(), Budget(400), extra=[Overlapping()], disable=["repeat"])
    assert out.strategy == "salience" and "overlapping failed" in out.note


def test_every_builtin_is_discovered_in_order() -> None:
    names = [m.name for m in builtin_reducers()]
    assert names[-1] == "size"
    for name in ("diff", "json", "csv", "tree", "repeat", "semantic"):
        assert name in names
    assert names.index("diff") < names.index("json") < names.index("csv") < names.index("tree")


def test_budget_too_small_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 80"):
        shrink(NUMBERED, Hint(), Budget(max_chars=20))


def test_a_budget_passed_as_the_hint_is_named() -> None:
    with pytest.raises(TypeError, match="hint must be a Hint, not Budget"):
        shrink(NUMBERED, Budget(400))  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="budget must be a Budget, not int"):
        shrink(NUMBERED, Hint(), 400)  # type: ignore[arg-type]


# the CLI pipe ------------------------------------------------------------------------------


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))


def test_cli_pipe(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes], tmp_path: Path
) -> None:
    _stdin(monkeypatch, corpus("01-pytest-ledger-mixed").encode())
    args = ["shrink", "-", "--max-chars", "4000", "--tool", "bash", "--spill-dir", str(tmp_path)]
    assert main(args) == 0
    out = capsysbinary.readouterr().out.decode()
    assert "10 failed, 684 passed" in out and len(out.rstrip("\n")) <= 4000
    assert "[full output saved as spill:bash-" in out


def test_cli_json(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    _stdin(monkeypatch, NUMBERED.encode())
    assert (
        main(
            [
                "shrink",
                "--max-chars",
                "400",
                "--tool",
                "grep",
                "--no-spill",
                "--json",
                "--only",
                "size",
            ]
        )
        == 0
    )
    record = json.loads(capsysbinary.readouterr().out)
    assert record["strategy"] == "salience" and record["reduced"] and record["locator"] is None
    assert len(record["kept"]) == len(record["content"].splitlines())


def test_cli_default_budget_passes_small_input(
    monkeypatch: pytest.MonkeyPatch, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    _stdin(monkeypatch, b"small\n")
    assert main(["shrink", "--no-spill"]) == 0
    assert capsysbinary.readouterr().out == b"small\n"


@pytest.mark.parametrize(
    ("data", "code", "message"),
    [
        (b"\x00\x01binary", 1, "binary"),
        (b"caf\xe9 au lait\n", 0, "not valid UTF-8"),
        (b"", 0, ""),
    ],
)
def test_cli_bad_input(
    monkeypatch: pytest.MonkeyPatch,
    capsysbinary: pytest.CaptureFixture[bytes],
    data: bytes,
    code: int,
    message: str,
) -> None:
    _stdin(monkeypatch, data)
    assert main(["shrink", "--no-spill"]) == code
    captured = capsysbinary.readouterr()
    assert message.encode() in captured.err
    if code == 0:
        assert captured.out.rstrip(b"\n") == data.rstrip(b"\n")


@pytest.mark.parametrize(
    "args",
    [["--max-chars", "10"], ["--only", "nope"], ["--reducers", "/nonexistent"]],
)
def test_cli_usage_errors(args: list[str], capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    assert main(["shrink", "--no-spill", *args]) == 2
    assert b"klipui:" in capsysbinary.readouterr().err


def test_cli_missing_file_is_exit_1(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    assert main(["shrink", "--no-spill", "/no/such/file"]) == 1
    assert b"klipui: /no/such/file: no such file" in capsysbinary.readouterr().err


def test_cli_spill_show_ls_prune(
    tmp_path: Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    store = FileSpillStore(tmp_path)
    raw = "orig\xe9\r\n" * 3
    locator = store.save(raw, "bash")
    assert main(["spill", "--spill-dir", str(tmp_path), "show", locator]) == 0
    assert capsysbinary.readouterr().out == raw.encode()
    assert main(["spill", "--spill-dir", str(tmp_path), "ls"]) == 0
    assert locator.encode() in capsysbinary.readouterr().out
    assert main(["spill", "--spill-dir", str(tmp_path), "show", "spill:../x"]) == 2
    assert main(["spill", "--spill-dir", str(tmp_path), "prune", "--max-age-hours", "0"]) == 0
    assert b"removed 1 original" in capsysbinary.readouterr().out
