"""The listed sessions as a tree (`klipui.session.tree`): filtering, sorting, children under
their parents, grouping by project; checked on crafted listings and real sample files."""

from __future__ import annotations

from pathlib import Path

from conftest import AGENT_WRITTEN
from hypothesis import given, settings
from hypothesis import strategies as st

from klipui.session.discover import list_sessions
from klipui.session.model import SessionInfo
from klipui.session.tree import MAX_DEPTH, Row, matches, session_rows, short_problem


def _info(n: int, parent: int | None, project: str = "p", readable: bool = True) -> SessionInfo:
    return SessionInfo(
        Path(f"/s/{n}.jsonl"),
        "claude" if readable else None,
        agent="Claude Code",
        title=f"title {n}",
        project=project,
        session_id=f"id{n}",
        parent=None if parent is None else f"id{parent}",
        updated=float(n),
    )


def _by_updated(info: SessionInfo) -> float:
    return info.updated or 0.0


def _parent_row(rows: list[Row], at: int) -> Row | None:
    depth = rows[at].depth
    for row in reversed(rows[:at]):
        if row.depth == depth - 1:
            return row
    return None


listings = st.lists(
    st.tuples(
        st.one_of(st.none(), st.integers(0, 14)),
        st.sampled_from(["alpha", "beta", ""]),
        st.booleans(),
    ),
    max_size=15,
).map(
    lambda specs: [
        _info(n, parent, project or "", readable)
        for n, (parent, project, readable) in enumerate(specs)
    ]
)


@settings(max_examples=200, deadline=None)
@given(listings, st.booleans(), st.booleans(), st.sampled_from(["", "title", "1", "beta", "x y"]))
def test_every_matching_session_has_exactly_one_row_under_its_parent(
    infos: list[SessionInfo], reverse: bool, group: bool, needle: str
) -> None:
    rows = session_rows(infos, needle, _by_updated, reverse, group)
    shown = [row.info.path for row in rows if row.info is not None]
    assert sorted(shown) == sorted(i.path for i in infos if matches(i, needle))
    by_id = {i.session_id: i for i in infos if matches(i, needle)}
    for at, row in enumerate(rows):
        if row.info is None:
            assert group and row.depth == 0
            continue
        top = 1 if group else 0
        parent = by_id.get(row.info.parent or "")
        if row.depth > top and row.depth < MAX_DEPTH:
            above = _parent_row(rows, at)
            assert above is not None and above.info is parent
        if parent is None or parent is row.info:
            assert row.depth == top  # no listed parent: a root


@settings(max_examples=100, deadline=None)
@given(listings, st.booleans())
def test_roots_are_sorted_and_groups_count_their_members(
    infos: list[SessionInfo], reverse: bool
) -> None:
    rows = session_rows(infos, "", _by_updated, reverse)
    roots = [row.info for row in rows if row.depth == 0 and row.info is not None]
    readable = [i for i in roots if i.format]
    assert readable == sorted(readable, key=_by_updated, reverse=reverse)
    assert roots[len(readable) :] == [i for i in roots if not i.format]
    grouped = session_rows(infos, "", _by_updated, reverse, group=True)
    titles = [row for row in grouped if row.info is None]
    assert [row.group for row in titles] == sorted((r.group or "" for r in titles), key=str.lower)
    for at, row in enumerate(grouped):
        if row.info is None:
            members = 0
            for below in grouped[at + 1 :]:
                if below.info is None:
                    break
                members += below.depth == 1
            assert row.members == members


def test_a_loop_of_parents_keeps_every_session() -> None:
    loop = [_info(0, 1), _info(1, 0), _info(2, 2)]
    rows = session_rows(loop, "", _by_updated)
    assert sorted(row.info.path.name for row in rows if row.info) == [
        "0.jsonl",
        "1.jsonl",
        "2.jsonl",
    ]
    assert [row.depth for row in rows].count(1) == 1


def test_a_deep_chain_is_indented_up_to_the_limit() -> None:
    chain = [_info(n, n - 1 if n else None) for n in range(MAX_DEPTH + 4)]
    rows = session_rows(chain, "", _by_updated)
    assert [row.info.path.name for row in rows if row.info] == [
        f"{n}.jsonl" for n in range(len(chain))
    ]
    assert [row.depth for row in rows] == [min(n, MAX_DEPTH) for n in range(len(chain))]


def test_the_filter_needs_every_word_anywhere() -> None:
    info = _info(3, None, project="ledgerline")
    assert matches(info, "LEDGER title")
    assert matches(info, "claude 3")
    assert not matches(info, "ledger missing")
    assert matches(info, "")


def test_a_problem_names_its_line_without_the_path() -> None:
    info = SessionInfo(Path("/a/b.jsonl"), None, problem="/a/b.jsonl:12: not JSON")
    assert short_problem(info) == "line 12: not JSON"
    assert short_problem(SessionInfo(Path("/a/b.jsonl"), None)) == "not a session file"


def test_real_sessions_listed_as_rows(tmp_path: Path) -> None:
    infos = list_sessions([AGENT_WRITTEN])
    rows = session_rows(infos, "", _by_updated, reverse=True)
    assert {row.key for row in rows} == {str(i.path) for i in infos}
    assert all(row.depth == 0 for row in rows)  # no file here names another as its parent
    agents = session_rows(infos, "qwen", _by_updated)
    assert [row.info.format for row in agents if row.info] == ["qwen"]
