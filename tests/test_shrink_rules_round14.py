"""Round 14: grep-shaped results rank matches by what they say, not only by where they are."""

from __future__ import annotations

from conftest import corpus_case, corpus_cases

from klipui.shrink import Budget, Hint, shrink
from klipui.shrink.reducers import grep, json, outline
from klipui.shrink.text import split_lines

PYFLAKES = "1254-pyflakes-unused-imports-one-undefined-name"


def _shrunk(case: str) -> tuple[str, dict[str, object]]:
    text, meta = corpus_case(case)
    hint = Hint(tool=meta["tool"], command=meta["command"])
    return shrink(text, hint, Budget(max_chars=meta["budget_chars"])).content, meta


def test_a_finding_unlike_the_repeated_ones_survives_the_cut() -> None:
    content, _ = _shrunk(PYFLAKES)
    assert "svc/m23.py:23:28: undefined name 'discount_rate'" in content
    assert "redefinition of unused 'dup' from line 22" in content


def test_counts_per_file_no_longer_crowd_out_the_one_unusual_finding() -> None:
    content, meta = _shrunk("1162-cpplint-recursive-one-strcpy-among-style")
    assert all(keep in content for keep in meta["must_keep"])


def test_repeats_between_the_first_and_last_are_not_a_files_first_matches() -> None:
    text, _ = corpus_case(PYFLAKES)
    lines = split_lines(text)
    plan = grep.reduce(text, Hint(tool="bash"), Budget(max_chars=2000))
    assert plan is not None
    priority = {i: piece.priority for piece in plan for i in range(piece.start, piece.end)}
    same = [i for i, line in enumerate(lines) if line.endswith("' imported but unused")]
    assert len(same) > grep.REPEATS
    assert all(priority[i] < priority[same[0]] for i in same[1:-1])
    path = [line.split(":", 1)[0] for line in lines]
    assert any(path[i - 1] != path[i] for i in same[1:-1])  # some are their file's first match


def test_a_compact_report_followed_by_its_exit_status_keeps_the_file_with_errors() -> None:
    content, meta = _shrunk("1119-eslint-f-json-ufo-new-helper-three-problems")
    assert all(keep in content for keep in meta["must_keep"])
    assert content.endswith("exit=1\n")


def test_json_lines_followed_by_an_exit_status_stay_with_their_reducer() -> None:
    text, meta = corpus_case("1504-go-test-json-four-packages-discount-qty-100-tier-typo")
    hint = Hint(tool=meta["tool"], command=meta["command"])
    assert text.rstrip().endswith("exit=1")
    assert not json.detect(text, hint)


def test_the_items_that_stand_out_are_picked_from_anywhere_in_a_long_array() -> None:
    clean = {"file": "a.js", "messages": [], "errors": 0}
    items = [{**clean, "file": f"f{i}.js"} for i in range(40)]
    items[29] = {"file": "bad.js", "messages": [{"rule": "no-undef"}], "errors": 1}
    odd = json._oddity(items)
    assert odd[29] == 2 and sum(odd) == 2
    picked = json._picked(items, odd)
    assert 29 in picked and picked[0] == 0 and picked[-1] == 39
    assert json._picked(items, [0] * 40) == [0, 1, 2, 39]


def test_a_command_reporting_errors_is_no_document_for_the_outline() -> None:
    case = next(c.name for c in corpus_cases() if c.name.startswith("2320-capnp-compile"))
    text, meta = corpus_case(case)
    assert not outline.detect(text, Hint(tool=meta["tool"], command=meta["command"]))
    content, _ = _shrunk(case)
    assert all(keep in content for keep in meta["must_keep"])
    man, _ = corpus_case("23-man-git-rebase-prose")
    assert outline.detect(man, Hint(tool="bash"))


def test_a_definition_among_repeated_findings_keeps_its_own_priority() -> None:
    rows = [f"pkg/m{f}.py:{i}:1: 'os' imported but unused\n" for f in range(30) for i in (1, 2)]
    rows.insert(31, "pkg/core.py:7:class Ledger:\n")
    plan = grep.reduce("".join(rows), Hint(tool="grep"), Budget(max_chars=1500))
    assert plan is not None
    priority = {i: piece.priority for piece in plan for i in range(piece.start, piece.end)}
    assert priority[31] > grep.STANDOUT
