"""The sql and docker reducers on outputs captured here (tests/fixtures/shrink_shapes): psql and
sqlite3 against real databases (PostgreSQL 15 on loopback, sqlite 3.40), podman and buildah
builds."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from klipui.shrink import Budget, Hint, shrink
from klipui.shrink.reducers import docker, sql
from tests.conftest import design_cases, fitted_strategy

SHAPES = Path(__file__).parent / "fixtures" / "shrink_shapes"


def _read(name: str) -> str:
    return (SHAPES / name).read_text(encoding="utf-8")


def _kept(name: str, kind: str, max_chars: int, must: list[str], command: str = "") -> str:
    text = _read(name)
    assert len(text) > max_chars
    hint = Hint(tool="bash", command=command or None)
    out = shrink(text, hint, Budget(max_chars=max_chars))
    assert out.strategy == fitted_strategy(kind), out.note
    assert len(out.content) <= max_chars
    missing = [s for s in must if s not in out.content]
    assert not missing, out.content
    return out.content


# ---------------------------------------------------------------------------------------------
# sql


def test_psql_result_table_keeps_header_ends_and_count() -> None:
    rows = _read("psql-select-rows.txt").splitlines()
    assert rows[-2:] == ["(300 rows)", ""]
    content = _kept(
        "psql-select-rows.txt",
        "sql",
        1_200,
        [rows[0], rows[1], rows[2], rows[-3], "(300 rows)"],  # header, rule, first, last, count
    )
    assert "[… " in content


def test_psql_explain_analyze_keeps_root_costly_nodes_and_times() -> None:
    content = _kept(
        "psql-explain-analyze.txt",
        "sql",
        1_500,
        [
            "QUERY PLAN",
            " Sort  (cost=29957.39..29986.56",
            "Sort Method: external merge  Disk: 1784kB",  # the spill of the costliest node
            "Planning Time: 1.556 ms",
            "Execution Time: 933.444 ms",
            "(36 rows)",
        ],
    )
    # the cheapest node (5,000 rows of products in 0.47 ms) goes before the costly ones
    assert "Seq Scan on products p" not in content


def test_psql_explain_of_a_big_union_keeps_the_costliest_branch() -> None:
    text = _read("psql-explain-analyze-union.txt")
    node = re.compile(r"->  (.*?)\s+\(cost=.*actual time=[\d.]+\.\.([\d.]+) rows=\d+ loops=1\)")
    branches = [
        (float(m.group(2)), m.group(0)) for line in text.splitlines() if (m := node.search(line))
    ]
    top_level = [b for b in branches if "Finalize GroupAggregate" in b[1]]
    costliest = max(top_level)[1]
    content = _kept(
        "psql-explain-analyze-union.txt",
        "sql",
        3_000,
        [" Append  (cost=", "Execution Time: 2142.503 ms", "Planning Time: 2.844 ms", costliest],
    )
    assert "(475 rows)" in content


def test_sqlite_column_and_box_tables() -> None:
    text = _read("sqlite-column.txt")
    rows = text.splitlines()
    must = [rows[0], rows[1], rows[2], rows[-1]]
    content = _kept("sqlite-column.txt", "sql", 1_000, must, "sqlite3 -column shop.db")
    assert f"[{len(rows) - 2:,} rows]" in content  # sqlite prints no count: the reducer adds it
    box = _read("sqlite-box.txt").splitlines()
    must = [box[0], box[1], box[2], box[3], box[-2], box[-1]]
    _kept("sqlite-box.txt", "sql", 1_000, must, "sqlite3 -box shop.db")


def test_ruled_tables_without_a_sign_of_a_database_are_read_by_salience() -> None:
    """The same sqlite output with no command (nothing says it came from a database), and
    `pip list -v`: salience reads them and still keeps the header rows and the last row."""
    for name, max_chars, command in (
        ("sqlite-column.txt", 1_000, ""),
        ("pip-list-v.txt", 1_500, "pip list -v"),
    ):
        text = _read(name)
        rows = text.splitlines()
        out = shrink(text, Hint(tool="bash", command=command or None), Budget(max_chars))
        assert out.strategy == "salience", out.note
        assert not [row for row in (rows[0], rows[1], rows[-1]) if row not in out.content]


def test_sql_declines_other_shapes() -> None:
    wrongly = [
        path.name
        for path in design_cases()
        if sql.detect((path / "output.txt").read_text(encoding="utf-8"), Hint(tool="bash"))
    ]
    assert wrongly == []


def test_sql_declines_a_small_table_in_other_output() -> None:
    rows = [f"{k:>4} | item {k}" for k in range(3)]
    prose = [f"log line {k}: nothing in particular happened here" for k in range(40)]
    text = "\n".join([*prose, "  id | name", "-----+-------", *rows, *prose]) + "\n"
    assert sql.reduce(text, Hint(), Budget(max_chars=500)) is None


@settings(max_examples=40, deadline=None)
@given(
    rows=st.lists(
        st.tuples(st.integers(0, 10**6), st.text("abcxyz ", min_size=0, max_size=12)),
        min_size=6,
        max_size=120,
    ),
    max_chars=st.integers(200, 1_500),
)
def test_psql_shaped_tables_keep_header_and_count_within_budget(
    rows: list[tuple[int, str]], max_chars: int
) -> None:
    body = [f" {a:>7} | {b:<12}" for a, b in rows]
    count = f"({len(rows)} rows)"
    text = "\n".join(["   id    | label", "---------+-------------", *body, count, ""])
    out = shrink(text, Hint(tool="bash"), Budget(max_chars=max_chars), only=["sql"])
    assert len(out.content) <= max_chars
    if out.strategy == "sql":
        assert out.content.startswith("   id    | label\n---------+-------------\n")
        assert count in out.content
        figures = re.findall(r"\[… ([\d,]+) lines?, ([\d,]+) chars?\]", out.content)
        assert sum(int(lines.replace(",", "")) for lines, _ in figures) == out.stats.dropped_lines


# ---------------------------------------------------------------------------------------------
# docker


FAILED_STEP = (
    '[1/2] STEP 7/7: RUN test -f /src/config.yml || { echo "error: /src/config.yml: no such'
    ' file (needed by the release step)" >&2; exit 2; }'
)


@pytest.mark.parametrize("name", ["podman-build-fail.txt", "buildah-bud-fail.txt"])
def test_failed_build_keeps_the_failing_step_and_its_error(name: str) -> None:
    content = _kept(
        name,
        "docker",
        1_000,
        [
            FAILED_STEP,
            "error: /src/config.yml: no such file (needed by the release step)",
            'Error: building at STEP "RUN test -f /src/config.yml',
            "[1/2] STEP 5/7: RUN seq 1 300",
        ],
    )
    assert content.count("generating asset") <= 4  # a step's routine output goes first


def test_successful_build_keeps_steps_and_final_image() -> None:
    text = _read("podman-build-multistage.txt")
    image_id = text.rstrip("\n").rsplit("\n", 1)[-1]
    assert re.fullmatch(r"[0-9a-f]{64}", image_id)
    content = _kept(
        "podman-build-multistage.txt",
        "docker",
        900,
        [
            "[2/2] COMMIT localhost/app:2.3",
            "Successfully tagged localhost/app:2.3",
            image_id,
            "[2/2] STEP 1/3: FROM scratch",
        ],
    )
    assert content.count("generating asset") <= 4


def test_docker_declines_other_shapes() -> None:
    wrongly = [
        path.name
        for path in design_cases()
        if docker.detect((path / "output.txt").read_text(encoding="utf-8"), Hint(tool="bash"))
    ]
    assert wrongly == []


def test_docker_reduce_declines_text_without_build_structure() -> None:
    text = "\n".join(f"error: thing {k} failed" for k in range(50)) + "\n"
    assert docker.reduce(text, Hint(), Budget(max_chars=300)) is None


def test_package_tables_keep_their_header_rows() -> None:
    """`dpkg -l`: a `+++-===` rule under a `||/ Name` header, and the count of its rows."""
    dpkg = _read("dpkg-l.txt").splitlines()
    header = next(i for i, line in enumerate(dpkg) if line.startswith("||/ Name"))
    rows = [line for line in dpkg[header + 2 :] if line.strip()]
    content = _kept(
        "dpkg-l.txt", "sql", 1_500, [dpkg[0], dpkg[header], dpkg[header + 1], rows[0], rows[-1]]
    )
    assert f"[{len(rows):,} rows]" in content


@settings(max_examples=40, deadline=None)
@given(
    outputs=st.lists(st.integers(0, 60), min_size=2, max_size=8),
    fail=st.booleans(),
    max_chars=st.integers(300, 2_000),
)
def test_docker_builds_fit_the_budget_with_whole_lines(
    outputs: list[int], fail: bool, max_chars: int
) -> None:
    """Any podman-shaped build: within budget, every kept line an input line or a marker, and
    the error of a failed build (or the final image of a good one) kept."""
    steps = len(outputs)
    rows: list[str] = []
    for k, count in enumerate(outputs, 1):
        rows.append(f"STEP {k}/{steps}: RUN ./make part{k}")
        rows += [f"compiling unit {k}.{j} ok" for j in range(count)]
        if k < steps or not fail:
            rows.append(f"--> {k:011x}")
    if fail:
        rows.append('Error: building at STEP "RUN ./make part9": exit status 2')
    else:
        rows += ["COMMIT localhost/app:1", "Successfully tagged localhost/app:1"]
    text = "\n".join(rows) + "\n"
    out = shrink(text, Hint(tool="bash"), Budget(max_chars=max_chars), only=["docker"])
    assert len(out.content) <= max_chars
    originals = set(rows)
    marker = re.compile(r"\[… [\d,]+ lines?, [\d,]+ chars?\]")
    assert all(line in originals or marker.fullmatch(line) for line in out.content.splitlines())
    if out.strategy == "docker":
        last = rows[-1]
        assert last in out.content
