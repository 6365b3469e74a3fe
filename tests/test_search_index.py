"""The search index: every sample and demo session indexed, incremental updates, a broken index
rebuilt, odd queries, spilled originals, filters."""

from __future__ import annotations

import os
import sqlite3
import uuid
from pathlib import Path

import pytest
from conftest import SAMPLES, sample_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from search_support import session_file, turn_rows, write_rows

from klipui.demo import demo_paths
from klipui.search import MARK_END, MARK_START, SearchIndex, parse_query, read_units
from klipui.session import open_session
from klipui.session.discover import find_session_files


@pytest.fixture
def index(tmp_path: Path) -> SearchIndex:
    with SearchIndex(tmp_path / "index" / "search.sqlite") as opened:
        yield opened


def _words(index: SearchIndex, query: str, **filters: object) -> list[tuple[str, int, str]]:
    hits = index.search(query, limit=50, **filters).hits  # type: ignore[arg-type]
    return [(hit.path.name, hit.turn, hit.kind) for hit in hits]


def test_the_index_lives_in_the_user_cache(sealed_home: Path) -> None:
    with SearchIndex() as opened:
        assert opened.path == sealed_home / ".cache" / "klipui" / "search.sqlite"
        assert opened.path.exists()


def test_every_sample_and_demo_session_is_indexed_and_found_by_its_words(
    index: SearchIndex,
) -> None:
    files = [*find_session_files([SAMPLES]), *demo_paths()]
    report = index.update(files)
    assert report.skipped == 0, report.problems
    assert report.added == len(files)
    with_text = 0
    for path in files:
        session = open_session(path)
        units = read_units(path).units
        if not units:  # usage-only samples carry no text
            continue
        with_text += 1
        # the longest words of the session's first and last units find those units
        for unit in (units[0], units[-1]):
            words = " ".join(sorted(unit.text.split(), key=len)[-6:])
            hits = index.search(words, paths=[path], limit=1000).hits
            places = {(h.turn, h.seq, h.kind) for h in hits}
            assert (unit.turn, unit.seq, unit.kind) in places, (path, words)
            assert session.events[unit.event].seq == unit.seq
    assert with_text >= len(files) - 3
    again = index.update(files)
    assert again.unchanged == len(files) and again.changed == 0


def test_an_appended_turn_is_indexed_from_where_the_index_stopped(
    index: SearchIndex, tmp_path: Path
) -> None:
    path = session_file(tmp_path / "s.jsonl", ("fix the parser", "done with zebrafish", "ok"))
    index.update([path])
    before = index.db.execute("SELECT id, event FROM units ORDER BY id").fetchall()
    write_rows(path, turn_rows("now the lexer", "added quokka support", "1 failed"), append=True)
    report = index.update([path])
    assert report.appended == 1 and report.reindexed == 0
    assert _words(index, "quokka") == [("s.jsonl", 2, "answer")]
    assert _words(index, "zebrafish") == [("s.jsonl", 1, "answer")]
    after = index.db.execute("SELECT id, event FROM units ORDER BY id").fetchall()
    last_event = max(event for _, event in before)
    kept = [row for row in before if row[1] < last_event]
    assert after[: len(kept)] == kept  # earlier units were not rewritten


def test_a_rewritten_session_is_reindexed_and_its_old_words_are_gone(
    index: SearchIndex, tmp_path: Path
) -> None:
    path = session_file(tmp_path / "s.jsonl", ("alpha prompt", "wombat answer", None))
    index.update([path])
    session_file(path, ("alpha prompt", "platypus answer plus more", None))
    report = index.update([path])
    assert report.reindexed == 1
    assert _words(index, "wombat") == []
    assert _words(index, "platypus") == [("s.jsonl", 1, "answer")]
    assert index.db.execute("SELECT count(*) FROM sessions").fetchone()[0] == 1


def test_a_session_grown_with_a_changed_head_is_reindexed(
    index: SearchIndex, tmp_path: Path
) -> None:
    path = session_file(tmp_path / "s.jsonl", ("first aardvark", "ok", None))
    index.update([path])
    session_file(path, ("first echidna", "ok", None), ("second", "ok much longer now", None))
    report = index.update([path])
    assert report.reindexed == 1 and report.appended == 0
    assert _words(index, "aardvark") == []
    assert _words(index, "echidna") == [("s.jsonl", 1, "prompt")]


def test_a_deleted_session_is_removed(index: SearchIndex, tmp_path: Path) -> None:
    gone = session_file(tmp_path / "gone.jsonl", ("find the narwhal", "ok", None))
    kept = session_file(tmp_path / "kept.jsonl", ("find the narwhal too", "ok", None))
    index.update([gone, kept])
    gone.unlink()
    report = index.update([kept])
    assert report.removed == 1
    assert _words(index, "narwhal") == [("kept.jsonl", 1, "prompt")]
    orphans = index.db.execute(
        "SELECT count(*) FROM units WHERE session NOT IN (SELECT id FROM sessions)"
    ).fetchone()[0]
    assert orphans == 0


def test_a_file_that_is_not_a_session_is_reported_once(index: SearchIndex, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json at all\n", encoding="utf-8")
    report = index.update([bad])
    assert report.skipped == 1 and "bad.jsonl" in report.problems[0]
    assert index.update([bad]).unchanged == 1


@pytest.mark.parametrize(
    "damage",
    [
        b"this is not a database at all" * 100,
        b"SQLite format 3\x00" + b"\xff" * 4000,
        b"",
    ],
    ids=["garbage", "bad-pages", "empty"],
)
def test_a_corrupt_index_is_rebuilt(tmp_path: Path, damage: bytes) -> None:
    where = tmp_path / "search.sqlite"
    path = session_file(tmp_path / "s.jsonl", ("find the ocelot", "ok", None))
    with SearchIndex(where) as first:
        first.update([path])
    where.write_bytes(damage)
    for suffix in ("-wal", "-shm"):
        Path(f"{where}{suffix}").unlink(missing_ok=True)
    with SearchIndex(where) as second:
        assert damage == b"" or "rebuilt" in second.note
        second.update([path])
        assert [h.path for h in second.search("ocelot").hits] == [path]


def test_an_index_of_another_version_is_rebuilt(tmp_path: Path) -> None:
    where = tmp_path / "search.sqlite"
    path = session_file(tmp_path / "s.jsonl", ("find the tapir", "ok", None))
    with SearchIndex(where) as first:
        first.update([path])
        first.db.execute("UPDATE meta SET value='0' WHERE key='version'")
    with SearchIndex(where) as second:
        assert "rebuilt" in second.note
        assert second.counts() == (0, 0)
        second.update([path])
        assert len(second.search("tapir").hits) == 1


def test_a_locked_index_gives_way_to_a_private_one(tmp_path: Path) -> None:
    where = tmp_path / "search.sqlite"
    SearchIndex(where).close()
    holder = sqlite3.connect(where, isolation_level=None)
    holder.execute("PRAGMA journal_mode=DELETE")  # leave WAL: an exclusive lock then blocks all
    holder.execute("PRAGMA locking_mode=EXCLUSIVE")
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with SearchIndex(where, timeout=0.1) as other:
            assert "private index" in other.note
            path = session_file(tmp_path / "s.jsonl", ("find the okapi", "ok", None))
            other.update([path])
            assert len(other.search("okapi").hits) == 1
            private = other.path
    finally:
        holder.close()
    assert private != where


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("TypeError: 'NoneType'", True),
        ('"object is not"', True),
        ('"NoneType" object', True),
        ("subscript*", True),
        ("NoneType OR kangaroo", True),
        ("NoneType NOT subscriptable", False),
        ("(kangaroo OR NoneType) AND object", True),
        ('object "NoneType', True),
        ('unterminated "NoneType', False),
        ("NoneType\x00object", True),
        ("nonetype()", True),
        ("kangaroo", False),
        ("foo AND", False),
        ("OR", False),
        ("", False),
        ('""', False),
        (":::", False),
        ("🎉", False),
        ("col:NoneType", False),
        ("^NoneType", True),
        ("NEAR(NoneType object)", False),
    ],
)
def test_odd_queries_are_never_errors(
    index: SearchIndex, tmp_path: Path, query: str, expected: bool
) -> None:
    result = "TypeError: 'NoneType' object is not subscriptable"
    path = session_file(tmp_path / "s.jsonl", ("run it", "fixed", result))
    index.update([path])
    hits = index.search(query).hits
    assert bool(hits) is expected, (query, parse_query(query))


def test_unicode_words_match_without_their_accents_and_whole(
    index: SearchIndex, tmp_path: Path
) -> None:
    path = session_file(tmp_path / "s.jsonl", ("le café est naïf", "東京タワー ok", None))
    index.update([path])
    assert _words(index, "cafe naif") == [("s.jsonl", 1, "prompt")]
    assert _words(index, "CAFÉ") == [("s.jsonl", 1, "prompt")]
    assert _words(index, "東京タワー") == [("s.jsonl", 1, "answer")]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=40))
def test_any_query_either_searches_or_says_nothing_to_search(
    index: SearchIndex, query: str
) -> None:
    results = index.search(query)
    assert results.hits == []
    assert results.query.empty == (results.note == "nothing to search for: type a word")


def test_filters_by_kind_agent_project_time_and_paths(index: SearchIndex, tmp_path: Path) -> None:
    one = session_file(tmp_path / "one.jsonl", ("lemur prompt", "lemur answer", "lemur result"))
    two = session_file(tmp_path / "two.jsonl", ("lemur again", "ok", None))
    index.update([one, two])
    assert {k for _, _, k in _words(index, "lemur")} == {"prompt", "answer", "result"}
    assert {k for _, _, k in _words(index, "lemur", kinds=["prompt"])} == {"prompt"}
    assert {k for _, _, k in _words(index, "lemur", kinds=["call", "result"])} == {"result"}
    assert {n for n, _, _ in _words(index, "lemur", paths=[two])} == {"two.jsonl"}
    assert _words(index, "lemur", agent="codex") == []
    assert len(_words(index, "lemur", agent="messages")) == 4
    assert _words(index, "lemur", since=4_000_000_000) == []


def test_snippets_mark_the_terms_and_hold_no_escape_sequence(
    index: SearchIndex, tmp_path: Path
) -> None:
    result = "\x1b]0;pwned\x07\x1b[31mFAILED\x1b[0m test_gnu \x9b2J done"
    path = session_file(tmp_path / "s.jsonl", ("run", "ok", result))
    index.update([path])
    (hit,) = index.search("failed").hits
    assert f"{MARK_START}FAILED{MARK_END}" in hit.snippet
    assert "\x1b" not in hit.snippet and "\x9b" not in hit.snippet and "\x07" not in hit.snippet


def test_a_spilled_original_is_indexed_with_its_result_and_others_are_not_followed(
    index: SearchIndex, tmp_path: Path
) -> None:
    import tempfile

    name = f"pi-bash-{uuid.uuid4().hex[:16]}.log"
    inside = Path(tempfile.gettempdir()) / name
    outside = tmp_path / "secret.log"
    inside.write_text("line\nthe capybara was in the original\n", encoding="utf-8")
    outside.write_text("the wallaby is a secret\n", encoding="utf-8")
    try:
        path = session_file(
            tmp_path / "s.jsonl",
            ("run", "ok", f"[cut]\nFull output: {inside}"),
            ("again", "ok", f"[cut]\nFull output: {outside}"),
        )
        index.update([path])
        assert _words(index, "capybara") == [("s.jsonl", 1, "result")]
        (hit,) = index.search("capybara").hits
        assert f"{MARK_START}capybara{MARK_END}" in hit.snippet  # cut from the original
        assert _words(index, "wallaby") == []
    finally:
        inside.unlink()


def test_a_long_result_is_cut_into_parts_that_each_find_their_words(
    index: SearchIndex, tmp_path: Path
) -> None:
    lines = [f"line {i} filler text" for i in range(20_000)]
    lines[15_000] = "line 15000 the hidden pangolin"
    path = session_file(tmp_path / "s.jsonl", ("run", "ok", "\n".join(lines)))
    index.update([path])
    (hit,) = index.search("pangolin").hits
    assert hit.part > 0 and "pangolin" in hit.snippet
    parts = index.db.execute("SELECT count(*) FROM units WHERE kind='result'").fetchone()[0]
    assert parts > 5


def test_two_processes_indexing_at_once_both_succeed(tmp_path: Path) -> None:
    import json
    import subprocess
    import sys

    folder = tmp_path / "sessions"
    folder.mkdir()
    for number in range(12):
        session_file(
            folder / f"s{number}.jsonl",
            (f"prompt {number} mongoose", "answer " * 200, "result line\n" * 500),
        )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    command = [sys.executable, "-m", "klipui", "search", "mongoose", str(folder), "--json"]
    runs = [
        subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    outputs = [run.communicate(timeout=120) for run in runs]
    for run, (out, err) in zip(runs, outputs, strict=True):
        assert run.returncode == 0, err.decode()
        assert len(json.loads(out)) == 12
    with SearchIndex(tmp_path / "cache" / "klipui" / "search.sqlite") as opened:
        assert opened.counts()[0] == 12
        assert opened.db.execute("SELECT count(DISTINCT path) FROM sessions").fetchone()[0] == 12


def test_removed_units_rows_are_compacted_away(
    index: SearchIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import klipui.search.index as module

    monkeypatch.setattr(module, "GARBAGE_MIN", 5)
    path = tmp_path / "s.jsonl"
    rebuilt = False
    for round_ in range(6):
        turns = [(f"round{round_} prompt {n}", f"answer {n}", None) for n in range(4)]
        session_file(path, *turns)
        os.utime(path, ns=(round_ * 10**9, round_ * 10**9))
        rebuilt |= index.update([path]).rebuilt
        assert len(index.search(f"round{round_}").hits) == 4
        assert index.search(f"round{round_ - 1}").hits == []
    assert rebuilt
    assert index.garbage() < 5 * 8
    fts_rows = index.db.execute("SELECT count(*) FROM fts").fetchone()[0]
    assert fts_rows < 6 * 8


def test_a_compressed_session_keeps_its_text_for_snippets(
    index: SearchIndex, tmp_path: Path
) -> None:
    import zstandard

    source = sample_files("dsh")[0]
    folder = tmp_path / "s"
    folder.mkdir()
    path = folder / "session.jsonl.zstd"
    path.write_bytes(zstandard.ZstdCompressor().compress(source.read_bytes()))
    index.update([path])
    stored = index.db.execute("SELECT count(*) FROM units WHERE z IS NOT NULL").fetchone()[0]
    assert stored == index.counts()[1] > 0
    unit = read_units(path).units[0]
    word = max(unit.text.split(), key=len)
    hits = index.search(f'"{word}"').hits
    assert hits and all(MARK_START in hit.snippet for hit in hits)


def test_a_file_changed_since_indexing_gives_hits_without_breaking(
    index: SearchIndex, tmp_path: Path
) -> None:
    path = session_file(tmp_path / "s.jsonl", ("find the gerbil", "ok", "gerbil output"))
    index.update([path])
    path.write_bytes(b"\x00\xff garbage" * 10)
    hits = index.search("gerbil").hits
    assert len(hits) == 2
    assert all("\x00" not in hit.snippet for hit in hits)
