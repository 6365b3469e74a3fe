"""`klipui search`: hits as JSON and on a terminal, filters, and its complaints."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from search_support import session_file

from klipui.cli import main
from klipui.cli.search import parse_kinds, parse_since
from klipui.search.snippet import MARK_END, MARK_START, Terms, cut, record_texts, snippet_pieces

NOW = 1_800_000_000.0


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    where = tmp_path / "sessions"
    where.mkdir()
    session_file(
        where / "one.jsonl",
        ("why does the parser crash", "a TypeError", "TypeError: 'NoneType' object"),
        ("fix it", "fixed the \x1b]0;pwned\x07parser", None),
    )
    session_file(where / "two.jsonl", ("unrelated prompt", "nothing to see", None))
    return where


def test_json_hits_carry_their_place(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "TypeError: 'NoneType'", str(folder), "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert len(hits) == 1
    hit = hits[0]
    assert set(hit) >= {"path", "agent", "title", "turn", "seq", "kind", "time", "snippet", "score"}
    assert hit["path"] == str(folder / "one.jsonl")
    assert (hit["turn"], hit["kind"]) == (1, "result")
    assert "TypeError" in hit["snippet"] and MARK_START not in hit["snippet"]


def test_terminal_output_is_cleaned_and_filters_apply(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", "parser", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "pwned" not in out
    assert "fixed the parser" in out
    assert main(["search", "parser", str(folder), "--in", "prompts", "--json"]) == 0
    assert [h["kind"] for h in json.loads(capsys.readouterr().out)] == ["prompt"]
    assert main(["search", "parser", str(folder), "--agent", "codex", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert main(["search", "parser", str(folder / "two.jsonl"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []


def test_options_may_sit_between_query_and_paths(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", "parser", "--json", "--in", "prompts", str(folder)]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert [(h["path"], h["kind"]) for h in hits] == [(str(folder / "one.jsonl"), "prompt")]


def test_complaints(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "x", str(folder), "--since", "last tuesday"]) == 2
    assert "--since" in capsys.readouterr().err
    assert main(["search", "x", str(folder), "--in", "emails"]) == 2
    assert "not a kind" in capsys.readouterr().err
    assert main(["search", "x", str(folder / "missing")]) == 1
    assert "no such file" in capsys.readouterr().err
    assert main(["search", ":::", str(folder)]) == 0
    assert "nothing to search for" in capsys.readouterr().err


def test_since_and_kinds_values() -> None:
    assert parse_since("3d", NOW) == NOW - 3 * 86400
    assert parse_since("12h", NOW) == NOW - 12 * 3600
    assert parse_since("2026-03-01", NOW) < NOW
    assert parse_kinds("tools,prompts") == ["call", "prompt", "result"]
    assert parse_kinds("thinking") == ["thinking"]


@given(
    st.lists(st.text(min_size=0, max_size=300), min_size=1, max_size=4),
    st.lists(st.text(min_size=1, max_size=12), min_size=1, max_size=3),
)
def test_snippets_are_clean_and_their_marks_pair(texts: list[str], terms: list[str]) -> None:
    snippet = cut(texts, Terms(terms))
    assert snippet.count(MARK_START) == snippet.count(MARK_END)
    for piece, _ in snippet_pieces(snippet):
        assert not any(ord(ch) < 32 or 0x7F <= ord(ch) <= 0x9F for ch in piece)


def test_a_snippet_marks_every_term_around_the_first_match() -> None:
    text = "x " * 400 + "KeyError: 'EUR' in the rates table, EURO too"
    snippet = cut([text, "short"], Terms(["KeyError", "EUR"]))
    assert snippet.startswith("…")
    assert f"{MARK_START}KeyError{MARK_END}" in snippet
    assert f"{MARK_START}EUR{MARK_END}" in snippet
    assert f"{MARK_START}EURO{MARK_END}" in snippet  # the last token is a prefix


def test_a_sqlite_without_fts5_is_said_clearly(
    folder: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import klipui.search.index as module

    monkeypatch.setattr(module, "fts5_available", lambda: False)
    assert main(["search", "parser", str(folder)]) == 1
    err = capsys.readouterr().err
    assert "FTS5" in err and "SQLite" in err


def test_outputs_kept_as_json_text_give_their_strings(tmp_path: Path) -> None:
    inner = json.dumps({"output": 'a "b"\nc', "metadata": {"exit_code": 0}})
    record = {"type": "response_item", "payload": {"output": inner, "note": "{not json}"}}
    line = json.dumps(record).encode()
    (tmp_path / "one.jsonl").write_bytes(line + b"\n")
    texts = record_texts(tmp_path / "one.jsonl", 0, len(line))
    assert texts == ["response_item", 'a "b"\nc', "{not json}"]
