"""Round 9: rules found on the tuned cases of the batch 400–479, each stated on crafted text."""

from __future__ import annotations

from klipui.shrink import Budget, Hint, shrink
from klipui.shrink.salience import PEAK, STRONG, Scores, _line_signal
from klipui.shrink.text import split

UNITS = [
    f"example.org/shop/{area}/{name}"
    for area in ("core", "edge")
    for name in "abcdefghijklmnopqrst"
]


def _unit_results(failing: dict[int, list[str]]) -> str:
    """`go test ./...`-like output: one result line per package, the failing packages' own
    output printed just before their `FAIL` line."""
    out: list[str] = []
    for k, unit in enumerate(UNITS):
        if k in failing:
            out += failing[k]
            out.append(f"FAIL\t{unit}\t0.00{k % 10}s")
        else:
            out.append(f"ok  \t{unit}\t0.0{k % 10}1s")
    out += ["FAIL", "exit=1"]
    return "\n".join(out) + "\n"


def test_what_a_failing_unit_printed_ranks_above_the_passing_units() -> None:
    text = _unit_results(
        {
            5: ["inventory: STOCK_DSN not set, cannot open the fixture database"],
            23: [
                "--- FAIL: TestRound (0.00s)",
                "panic: index out of range [3] with length 3 [recovered]",
                "goroutine 7 [running]:",
                "testing.tRunner.func1()",
                "\t/usr/lib/go/src/testing/testing.go:1399 +0x39f",
                "example.org/shop/edge/d.TestRound(0x0?)",
                "\t/src/shop/edge/d/round_test.go:21 +0x1d",
            ],
        }
    )
    out = shrink(text, Hint(tool="bash", command="go test ./..."), Budget(max_chars=900))
    assert out.strategy.startswith("tests")
    assert "inventory: STOCK_DSN not set, cannot open the fixture database" in out.content
    assert "\t/src/shop/edge/d/round_test.go:21 +0x1d" in out.content
    assert "panic: index out of range [3] with length 3 [recovered]" in out.content


def _box(header: list[str], rows: list[list[str]]) -> list[str]:
    """A sqlite3 `.mode box` table."""
    widths = [max(len(h), *(len(r[j]) for r in rows)) for j, h in enumerate(header)]

    def line(cells: list[str]) -> str:
        return "│ " + " │ ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " │"

    def rule(left: str, mid: str, right: str) -> str:
        return left + mid.join("─" * (w + 2) for w in widths) + right

    return [
        rule("┌", "┬", "┐"),
        line(header),
        rule("├", "┼", "┤"),
        *(line(r) for r in rows),
        rule("└", "┴", "┘"),
    ]


NAMES = [f"{first} {last}." for first in ("Ana", "Ben", "Cleo", "Dev", "Eli") for last in "BCDEFGH"]


def _orders(blank: set[int]) -> list[list[str]]:
    return [
        [
            str(k),
            str(10 + k % 7),
            "" if k in blank else NAMES[k % len(NAMES)],
            ("open", "paid")[k % 2],
        ]
        for k in range(1, 61)
    ]


def test_an_empty_cell_in_a_filled_column_is_a_rare_value() -> None:
    text = "\n".join(_box(["id", "customer", "name", "status"], _orders({37}))) + "\n"
    out = shrink(text, Hint(tool="bash", command="sqlite3 shop.db"), Budget(max_chars=900))
    assert out.strategy.startswith("sql")
    assert "│ 37 │ 12       │         │ paid   │" in out.content
    assert "│ 36 │" not in out.content and "│ 38 │" not in out.content


def test_a_short_table_keeps_its_middle_rows_before_a_long_tables_outliers() -> None:
    checks = [["lines", str(295 + k), "orders", "0"] for k in range(3)]
    checks += [["orders", str(r), "customers", "0"] for r in (87, 212, 377)]
    large = (7, 19, 33, 41, 52)
    totals = [
        [
            str(k),
            NAMES[k % len(NAMES)],
            str(900_000 + k * 37 if k in large else 1000 + k * 13 % 200),
        ]
        for k in range(1, 61)
    ]
    text = "\n".join(
        [
            *_box(["id", "name", "total"], totals),
            *_box(["table", "rowid", "parent", "fkid"], checks),
        ]
    )
    for budget in (700, 900):
        out = shrink(text, Hint(tool="bash", command="sqlite3 shop.db"), Budget(max_chars=budget))
        assert out.strategy.startswith("sql")
        for row in checks:
            assert f"│ {row[1]} " in out.content


def _yaml_node(
    depth: int, kind: str, time: float, rows: tuple[int, int], extra: list[str]
) -> list[str]:
    pad = "  " * depth
    first = f'{pad}- Node Type: "{kind}"' if depth else f'{pad}  Node Type: "{kind}"'
    body = [
        'Parent Relationship: "Outer"',
        "Parallel Aware: false",
        "Startup Cost: 0.00",
        "Total Cost: 1234.50",
        f"Plan Rows: {rows[0]}",
        "Plan Width: 16",
        "Actual Startup Time: 0.010",
        f"Actual Total Time: {time}",
        f"Actual Rows: {rows[1]}",
        "Actual Loops: 1",
        *extra,
        "Shared Hit Blocks: 120",
        "Shared Read Blocks: 3",
        "Temp Read Blocks: 0",
    ]
    return [first, *(f"{pad}    {line}" for line in body), f"{pad}    Plans:"]


def test_a_plan_printed_as_keys_and_values_keeps_its_costly_nodes_details() -> None:
    plan = [
        *_yaml_node(0, "Sort", 410.0, (20, 20), ['Sort Method: "quicksort"']),
        *_yaml_node(1, "Aggregate", 400.0, (20, 20), []),
        *_yaml_node(2, "Sort", 390.0, (900, 40000), ['Sort Method: "external merge"']),
        *_yaml_node(3, "Hash Join", 120.0, (900, 40000), ['Hash Cond: "(p.depot_id = d.id)"']),
        *_yaml_node(
            4,
            "Seq Scan",
            100.0,
            (900, 40000),
            [
                "Filter: \"(created_at > (now() - '30 days'::interval))\"",
                "Rows Removed by Filter: 360000",
            ],
        ),
        *_yaml_node(4, "Seq Scan", 0.02, (40, 41), ['Relation Name: "depots"']),
    ]
    width = max(len(line) for line in plan) + 2
    rows = [f" {line.ljust(width)}+" for line in plan]
    text = "\n".join(
        [
            " QUERY PLAN".center(width),
            "-" * (width + 2),
            *rows,
            "   Execution Time: 410.531",
            "(1 row)",
        ]
    )
    out = shrink(text, Hint(tool="bash", command="psql -f q.sql"), Budget(max_chars=2000))
    assert out.strategy.startswith("sql")
    for kept in (
        "Rows Removed by Filter: 360000",
        "Filter: \"(created_at > (now() - '30 days'::interval))\"",
        'Sort Method: "external merge"',
        "Execution Time: 410.531",
    ):
        assert kept in out.content
    assert "Plan Width: 16" not in out.content


def test_a_trouble_word_naming_a_field_with_an_empty_value_is_no_signal() -> None:
    assert _line_signal("            timeout: None") == 0
    assert _line_signal('  "error": null,') == 0
    assert _line_signal("deadlock_detected=false") == 0
    assert _line_signal("timeout: connection to db:5432 timed out") == STRONG
    assert _line_signal('  "error": "connection refused",') == STRONG


def test_empty_trouble_fields_leave_room_for_the_threads_that_differ() -> None:
    idle = [
        "    Condition.wait (threading.py:327)",
        "        Arguments:",
        "            self: <Condition at 0x7f00>",
        "            timeout: None",
        "    worker (jobs.py:21)",
    ]
    out = ["Process 100: python3 jobs.py", ""]
    for k in range(12):
        out.append(f'Thread {200 + k} (idle): "worker-{k}"')
        if k == 6:
            out += ["    settle (jobs.py:10)", "        Arguments:", "            batch: 41"]
        out += idle
    out.append('Thread 300 (idle): "MainThread"')
    out.append("    <module> (jobs.py:43)")
    text = "\n".join(out) + "\n"
    kept = shrink(text, Hint(tool="bash", command="py-spy dump --pid 100"), Budget(max_chars=700))
    assert "    settle (jobs.py:10)" in kept.content


def test_a_percent_sign_before_a_header_word_names_the_column_under_a_rule_line() -> None:
    header = "Line #      Hits         Time  Per Hit   % Time  Line Contents"
    shares = [1.2, 1.6, 2.0, 90.1, 3.1, 1.0, 1.0]
    rows = [f"{20:6d}{'':43}@profile", f"{21:6d}{'':43}def run(jobs):"]
    rows += [
        f"{22 + k:6d}{320:10d}{share * 40:13.1f}{share / 8:9.1f}{share:9.1f}      x{k} = step({k})"
        for k, share in enumerate(shares)
    ]
    title = ["Timer unit: 1e-06 s", "", "Total time: 0.4 s", "File: jobs.py", "Function: run", ""]
    text = "\n".join([*title, header, "=" * len(header), *rows, "", "done"])
    lines = split(text)
    score = Scores(lines, Hint(tool="bash")).score
    peak = lines.lines.index(rows[2 + 3])
    assert score.get(peak, 0) >= PEAK
    assert score.get(peak - 1, 0) < PEAK and score.get(peak - 2, 0) < PEAK


def _server_log() -> str:
    out: list[str] = []
    for k in range(40):
        stamp = f"2026-01-02 10:00:{k:02d}.{k * 7:03d} UTC [{900 + k}]"
        out.append(f"{stamp} [unknown]@[unknown] LOG:  connection received: host=[local]")
        out.append(f"{stamp} app@shop LOG:  connection authorized: user=app database=shop")
        if k == 20:
            out.append(f"{stamp} app@shop ERROR:  duplicate key value violates unique constraint")
            out.append(f"{stamp} app@shop DETAIL:  Key (sku)=(SKU-0042) already exists.")
            out.append(f"{stamp} app@shop STATEMENT:  insert into items(sku) values ('SKU-0042')")
        out.append(f"{stamp} app@shop LOG:  disconnection: session time: 0:00:00.0{k % 10}")
    return "\n".join(out) + "\n"


def test_records_an_error_shares_its_prefix_with_are_its_details() -> None:
    out = shrink(
        _server_log(), Hint(tool="bash", command="tail -n 200 server.log"), Budget(max_chars=600)
    )
    assert out.strategy.startswith("log")
    assert "DETAIL:  Key (sku)=(SKU-0042) already exists." in out.content
    assert "STATEMENT:  insert into items(sku) values ('SKU-0042')" in out.content


def test_counts_after_an_info_glyph_are_the_runs_summary() -> None:
    out = [f"✔ case {k} ({k}.1ms)" for k in range(60)]
    out[30:31] = ["✖ case 30 (0.2ms)", "  Error: boom", "      at t (file:///t/a.test.mjs:3:9)"]
    out += ["ℹ tests 60", "ℹ suites 0", "ℹ pass 58", "ℹ fail 1", "ℹ cancelled 1", "ℹ skipped 0"]
    out += ["ℹ todo 0", "ℹ duration_ms 91.5", "", *[f"✔ late {k} ({k}.3ms)" for k in range(20)]]
    text = "\n".join(out) + "\n"
    kept = shrink(text, Hint(tool="bash", command="node --test"), Budget(max_chars=300))
    assert kept.strategy.startswith("tests")
    assert "ℹ fail 1" in kept.content and "ℹ cancelled 1" in kept.content


def test_a_line_opening_with_a_trouble_level_outside_failures_ranks_as_a_message() -> None:
    out = ["============================= test session starts =============================="]
    out += [
        f"tests/test_m{k}.py ....                                   [{k * 2:3d}%]"
        for k in range(40)
    ]
    out.insert(21, "ERROR: Coverage failure: total of 58 is less than fail-under=90")
    out += ["Name         Stmts   Miss  Cover", "-" * 32]
    out += [f"src/m{k:02d}.py     {30 + k:3d}   {k % 9:3d}   {70 + k % 30:3d}%" for k in range(30)]
    out += ["-" * 32, "TOTAL          1211    449    58%"]
    out += ["============================= 160 passed in 0.73s =============================="]
    text = "\n".join(out) + "\n"
    for budget in (400, 600):
        kept = shrink(text, Hint(tool="bash", command="pytest --cov"), Budget(max_chars=budget))
        assert kept.strategy.startswith("tests")
        assert "ERROR: Coverage failure: total of 58 is less than fail-under=90" in kept.content
