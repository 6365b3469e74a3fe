"""Shape reducers on variants they were not written for: general rules, on crafted text.

Each test states one rule a reducer follows whatever tool printed the text: a summary never
hides a rare kind of line, repeats are grouped, a reducer declines what is mostly not its shape.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from klipui.shrink import Budget, Hint, shrink
from klipui.shrink.plan import Keep
from klipui.shrink.reducers import build, stacktrace
from klipui.shrink.reducers._patterns import (
    EDGE,
    HEADER,
    PEAK,
    Lines,
    aligned_tables,
    kind,
    table_roles,
)


def _reflog() -> tuple[str, list[str]]:
    """A reflog-like one-line log: a long run of one kind of entry, a few rare entries inside."""
    rows = ["9f1c2d3 HEAD@{0}: checkout: moving from main to topic"]
    rare = {
        5: "4b7e9a1 HEAD@{5}: reset: moving to HEAD~12",
        31: "c0ffee7 HEAD@{31}: merge feature/x: Fast-forward",
        58: "d15ea5e HEAD@{58}: commit: Quick experiment with the pool size",
    }
    for k in range(1, 90):
        routine = f"{k:07x} HEAD@{{{k}}}: rebase (pick): Adjust knob {k % 17} step {k}"
        rows.append(rare.get(k, routine))
    rows.append("1234567 HEAD@{90}: clone: from https://example.test/repo.git")
    return "\n".join(rows) + "\n", list(rare.values())


def test_gitlog_summary_never_hides_a_rare_kind_of_entry() -> None:
    text, rare = _reflog()
    out = shrink(text, Hint(tool="bash", command="git reflog"), Budget(max_chars=1_500))
    assert out.strategy.startswith("gitlog")
    assert len(out.content) <= 1_500
    for line in rare:
        assert line in out.content
    lines = text.splitlines()
    # the run of routine entries shows its newest and its oldest entry
    assert lines[1] in out.content and lines[89] in out.content


def test_gitlog_without_repeats_has_no_rare_kind() -> None:
    """In a log where every subject differs, no commit is rare: the plan keeps the newest ones
    and summarises the rest, as before."""
    words = [
        "parser",
        "lexer",
        "cache",
        "pool",
        "router",
        "store",
        "index",
        "shard",
        "queue",
        "codec",
    ]
    rows = [
        f"{k:07x} {verb} the {noun} for the {other} path"
        for k, (verb, noun, other) in enumerate(
            (v, n, o) for v in ("Fix", "Add", "Drop", "Speed up") for n in words for o in words[:3]
        )
    ]
    text = "\n".join(rows) + "\n"
    out = shrink(text, Hint(tool="bash", command="git log --oneline"), Budget(max_chars=1_200))
    assert out.strategy.startswith("gitlog")
    kept = [row for row in rows if row in out.content]
    assert rows[0] in kept and rows[-1] in kept
    assert len(kept) < len(rows) // 4


def _dpkg_run() -> tuple[str, dict[str, str]]:
    """An install whose middle is a long run of per-package steps, with a few one-off lines."""
    names = [f"libthing{k}-{suffix}" for k in range(40) for suffix in ("core", "dev")]
    rows = ["Reading package lists...", "Building dependency tree..."]
    special = {
        "newest": "zlib-tools is already the newest version (3.1-2).",
        "space": "After this operation, 48.0 MB of additional disk space will be used.",
        "refused": "hook-runner: the sandbox refused to start the service.",
    }
    rows += [special["newest"], "80 newly installed, 0 to remove and 3 not upgraded."]
    rows.append(special["space"])
    rows += [f"Unpacking {name} (1.{k}-1) ..." for k, name in enumerate(names)]
    rows += [f"Setting up {name} (1.{k}-1) ..." for k, name in enumerate(names[:50])]
    rows.append(special["refused"])
    rows += [f"Setting up {name} (1.{k}-1) ..." for k, name in enumerate(names[50:], 50)]
    rows += [f"Registering plugin {name}." for name in names[:20]]
    rows.append("Processing triggers for man-db (2.11.2-2) ...")
    return "\n".join(rows) + "\n", special


def test_install_keeps_trouble_words_and_one_off_lines_over_routine_steps() -> None:
    text, special = _dpkg_run()
    out = shrink(text, Hint(tool="bash", command="apt-get install -y things"), Budget(1_500))
    assert out.strategy.startswith("install")
    assert len(out.content) <= 1_500
    for line in special.values():
        assert line in out.content
    rows = text.splitlines()
    steps = [row for row in rows if row.startswith("Setting up ")]
    kept = [row for row in steps if row in out.content]
    # the run of steps shows where it began and ended, not every step
    assert steps[0] in kept and steps[-1] in kept
    assert len(kept) < len(steps) // 4


def _sectioned(body: list[str]) -> str:
    rows: list[str] = []
    for section in ("General", "Network", "Storage", "Limits", "Counters"):
        rows += [f"# {section}", *body, ""]
    return "\n".join(rows)


def test_outline_declines_a_sectioned_dump_of_records() -> None:
    """`# Section` lines over `key:value` records are a status dump, not a document."""
    body = [f"{section}_setting_{k}:{k * 37 % 11}" for section in ("a", "b") for k in range(14)]
    text = _sectioned(body)
    out = shrink(text, Hint(tool="bash", command="svc status --all"), Budget(max_chars=1_200))
    assert not out.strategy.startswith("outline")
    prose = [
        f"The {k}th paragraph explains one part of the manual in plain words." for k in range(12)
    ]
    doc = _sectioned(prose)
    out = shrink(doc, Hint(tool="bash", command="render-doc guide"), Budget(max_chars=1_200))
    assert out.strategy.startswith("outline")
    for section in ("General", "Network", "Storage", "Limits", "Counters"):
        assert f"# {section}" in out.content


def test_outline_does_not_read_a_comment_banner_as_headings() -> None:
    """A block of `#` lines (a crash banner, a commented header) holds no headings."""
    banner = [
        "#",
        "# A serious problem was detected by the runtime:",
        "#",
        "#  SIGBUS at pc=0x00007f00dead0000, pid=77, tid=78",
        "#",
        "# Runtime version: Example VM 9.1 (build 9.1+3)",
        "# Faulting frame:",
        "# C  [libexample.so+0x1234]  copy_block+0x44",
        "#",
        "# Core dumps are disabled here.",
        "#",
    ]
    rows = [*banner, ""]
    rows += [f"R{k:02d}=0x{k * 7919:016x} is an unknown value" for k in range(60)]
    out = shrink("\n".join(rows), Hint(tool="bash", command="cat crash.log"), Budget(1_500))
    assert not out.strategy.startswith("outline")


def test_log_keeps_the_user_frame_of_an_indented_trace() -> None:
    """A log that indents its records' traces: the exception line and the frame in the user's
    own file (`Object.<anonymous>` is a module's top level, not foreign code) are kept."""
    trace = [
        "    SmtpError: relay access refused for example.test",
        "        at Object.<anonymous> (/srv/mailer/send.js:42:11)",
        "        at Module._compile (node:internal/modules/cjs/loader:1521:14)",
        "        at Module.load (node:internal/modules/cjs/loader:1266:32)",
        "        at Module._load (node:internal/modules/cjs/loader:1091:12)",
        "        at node:internal/main/run_main_module:28:49",
    ]
    rows: list[str] = []
    for k in range(1000, 1400):
        stamp = f"[2027-01-05T10:{k // 60 % 60:02d}:{k % 60:02d}.000Z]"
        if k % 40 == 0:
            rows += [f"{stamp} ERROR: mailer/77 on host-2: send failed (msg=m-{k})", *trace]
        else:
            rows.append(f"{stamp}  INFO: mailer/77 on host-2: sent (msg=m-{k}, bytes={k * 7})")
    out = shrink("\n".join(rows) + "\n", Hint(tool="bash", command="cat mailer.log"), Budget(2_000))
    assert out.strategy.startswith("log")
    for line in trace[:2]:
        assert line in out.content


def test_a_frame_is_foreign_by_its_location_not_its_function_name() -> None:
    assert not stacktrace.is_dependency_frame("    at Object.<anonymous> (/srv/app/main.js:3:9)")
    assert stacktrace.is_dependency_frame("    at Object.<anonymous> (node:internal/x:3:9)")
    assert stacktrace.is_dependency_frame("    at eval (<anonymous>)")
    assert stacktrace.is_dependency_frame("    at <anonymous>")


def _json_log() -> tuple[str, list[str], list[str]]:
    """JSON-lines records: routine requests, one error repeated with new ids and times, a few
    one-off records. Returns the text, the one-off records and the repeated error's lines."""
    rows = ['{"lvl":"info","ts":1800000000000,"svc":"cart","msg":"ready","port":40123}']
    errors: list[str] = []
    for k in range(600):
        ts = 1800000000100 + k * 37
        status = 502 if k == 123 else 200
        rows.append(
            f'{{"lvl":"info","ts":{ts},"svc":"cart","rid":"r-{k:05x}","path":"/cart?n={k}",'
            f'"status":{status},"msg":"done"}}'
        )
        if k % 100 == 50:
            error = (
                f'{{"lvl":"error","ts":{ts + 1},"svc":"cart","rid":"r-{k:05x}","err":'
                f'"KeyError: {"x" * 300}","msg":"handler crashed"}}'
            )
            rows.append(error)
            errors.append(error)
        if k == 400:
            rows.append(f'{{"lvl":"info","ts":{ts + 2},"svc":"cart","path":"/admin","status":403}}')
    rows.append('{"lvl":"info","ts":1800000099999,"svc":"cart","msg":"bye"}')
    one_off = [rows[0], rows[-1], *(row for row in rows if '"/admin"' in row or ":502," in row)]
    return "\n".join(rows) + "\n", one_off, errors


def test_log_groups_an_error_repeated_with_new_ids_and_keeps_one_off_records() -> None:
    text, one_off, errors = _json_log()
    out = shrink(text, Hint(tool="bash", command="node cart.js"), Budget(max_chars=2_500))
    assert out.strategy.startswith("log")
    assert len(out.content) <= 2_500
    for line in one_off:
        assert line in out.content
    kept = [e for e in errors if e in out.content]
    assert errors[0] in kept and errors[-1] in kept
    assert len(kept) < len(errors)


def _access(k: int, path: str, status: int) -> str:
    return (
        f"10.0.0.{k % 7} - - [05/Jan/2027:09:{k // 60 % 60:02d}:{k % 60:02d} +0000] "
        f'"GET {path} HTTP/1.1" {status} {100 + k % 50} "-" "probe/2.{k % 3}"'
    )


def test_log_keeps_file_headers_one_off_records_and_client_errors() -> None:
    """`tail` over two logs: each `==> file <==` header, the one-off shutdown record and the
    first and last response of each 4xx status survive among hundreds of routine lines."""
    rows = ["==> logs/app.log <=="]
    rows += [
        f"2027-01-05 09:00:{k % 60:02d} INFO worker {k % 5} polled queue q-{k}" for k in range(150)
    ]
    rows.append("2027-01-05 09:03:00 INFO supervisor received SIGINT, draining")
    rows += ["", "==> logs/access.log <=="]
    gone = [_access(k, f"/files/old{k}.zip", 410) for k in (40, 90, 140)]
    for k in range(200):
        rows.append(
            gone[[40, 90, 140].index(k)] if k in (40, 90, 140) else _access(k, f"/p/{k}", 200)
        )
    out = shrink(
        "\n".join(rows) + "\n", Hint(tool="bash", command="tail -n +1 logs/*"), Budget(2_500)
    )
    assert out.strategy.startswith("log")
    for line in ("==> logs/app.log <==", "==> logs/access.log <==", rows[151], gone[0], gone[-1]):
        assert line in out.content


def _pytest_chain() -> str:
    """A pytest failure whose exception was raised from another one, deep in a recursion."""
    rows = [
        "============================= test session starts ==============================",
        "platform linux -- Python 3.12.1, pytest-8.0.0, pluggy-1.4.0",
        "collected 64 items",
        "",
        "tests/test_walk.py " + "." * 40 + "F",
        "",
        "=================================== FAILURES ===================================",
        "_________________________________ test_deep_walk _________________________________",
        "",
        "    def walk(node):",
        ">       return lookup[node.name]",
        "E       IndexError: list index out of range",
        "",
        "graph/walk.py:12: IndexError",
        "",
        "The above exception was the direct cause of the following exception:",
        "",
        "    def test_deep_walk():",
        ">       walk(build(300))",
        "",
        "tests/test_walk.py:77: ",
        "_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _",
    ]
    for _ in range(60):
        rows += ["graph/walk.py:20: in visit", "    return visit(child)", "           ^^^^^^^^^^^^"]
    rows += [
        ">           raise WalkError(node) from err",
        "E           graph.walk.WalkError: node n299 has no parent",
        "",
        "graph/walk.py:24: WalkError",
        "=========================== short test summary info ============================",
        "FAILED tests/test_walk.py::test_deep_walk - graph.walk.WalkError: node n299 has...",
        "========================= 1 failed, 40 passed in 0.50s =========================",
    ]
    return "\n".join(rows) + "\n"


def test_pytest_keeps_the_chain_and_the_tests_own_line_over_recursion_frames() -> None:
    text = _pytest_chain()
    out = shrink(text, Hint(tool="bash", command="pytest -x"), Budget(max_chars=1_400))
    assert out.strategy.startswith("tests")
    for line in (
        "E       IndexError: list index out of range",
        "The above exception was the direct cause of the following exception:",
        "tests/test_walk.py:77: ",
        "E           graph.walk.WalkError: node n299 has no parent",
        "========================= 1 failed, 40 passed in 0.50s =========================",
    ):
        assert line in out.content
    # the recursion shows once, not sixty times
    assert out.content.count("graph/walk.py:20: in visit") < 5


def _timing_table() -> tuple[list[str], str]:
    """A test run that prints a timing table: header, rule, rows, closing rule and a total."""
    header = "case                     runs      mean_ms      worst_ms   retries"
    rows = [
        f"case_{k:02d}                  {100 + k:4d}   {1.5 + k * 0.25:10.2f}   {3.0 + k:11.2f}"
        f"   {k % 2:7d}"
        for k in range(30)
    ]
    rows[17] = f"case_17                   117   {2.1:10.2f}   {9_876.5:11.2f}         0"
    table = [header, "-" * len(header), *rows, "-" * len(header), "total                   3435"]
    run = [f"test_case_{k:02d} PASSED" for k in range(30)]
    text = [
        "============================= test session starts ==============================",
        *run,
        "",
        *table,
        "",
        "FAILED test_timing.py::test_budget - AssertionError: worst case over budget",
        "========================= 1 failed, 30 passed in 9.10s =========================",
    ]
    return [header, rows[0], rows[17], rows[-1], table[-1]], "\n".join(text) + "\n"


def test_a_table_in_a_test_run_keeps_header_ends_and_column_peaks() -> None:
    wanted, text = _timing_table()
    out = shrink(text, Hint(tool="bash", command="pytest test_timing.py"), Budget(1_500))
    assert out.strategy.startswith("tests")
    assert len(out.content) <= 1_500
    for line in wanted:
        assert line in out.content


def test_table_columns_follow_the_rule_segments_when_cells_are_blank() -> None:
    """A column left blank in most rows (an error count) is read by the rule's segments, so
    its largest value is found; a total under the closing rule is an edge."""
    rows = [f"{50 - k:6d} {k * 3:9d} {'':>7} call_{k:02d}" for k in range(20)]
    rows[9] = f"{41:6d} {27:9d} {4_321:7d} call_09"
    rows[14] = f"{36:6d} {42:9d} {12:7d} call_14"
    rows[16] = f"{34:6d} {48:9d} {7:7d} call_16"
    rule = "------ --------- ------- -------"
    head = ["preamble line", "  time     calls  errors name", rule]
    text = "\n".join([*head, *rows, rule, "   100      9999    4340 total", ""])
    roles = table_roles(Lines(text))
    assert roles[1] == HEADER
    assert roles[3] == EDGE and roles[22] == EDGE and roles[24] == EDGE
    assert roles[3 + 9] == PEAK  # errors column
    assert roles.get(3 + 19) == EDGE  # calls column peak is the last row
    assert 0 not in roles and 2 not in roles


def test_a_table_without_a_rule_is_found_by_its_header_over_numeric_rows() -> None:
    rows = [
        f"{900 - k * 7:8d} {k * 0.5:5.1f} {k * 0.25:5.1f} {4_000 + k:9d}  worker-{k}"
        for k in range(12)
    ]
    rows[6] = f"{858:8d} {97.0:5.1f} {1.5:5.1f} {4_006:9d}  worker-6"
    prose = ["Sampling 12 processes for 3 seconds", "done in 3 s, 12 of 12 answered", ""]
    text = "\n".join([*prose, "     PID  %CPU  %MEM       RSS  COMMAND", *rows, "", "bye", ""])
    roles = aligned_tables(Lines(text))
    assert roles[3] == HEADER
    assert roles[4] == EDGE and roles[15] == EDGE
    assert roles[4 + 6] == PEAK  # %CPU
    assert not any(i < 3 or i > 15 for i in roles)
    # words over words, or too few rows, are no table
    assert aligned_tables(Lines("\n".join(["a b c d", *["x y z w"] * 8]))) == {}
    assert aligned_tables(Lines("\n".join(["name size date", *["1 2 3"] * 4]))) == {}


def test_build_keeps_the_step_that_reported_an_error() -> None:
    """A build of many steps: the line opening the block an error starts in names the step
    that failed, and is kept with the error."""
    rows: list[str] = []
    for k, package in enumerate(["alpha", "beta", "gamma", "delta", "omega"]):
        rows += [f"10:0{k}:00 - Building package '{package}'...", ""]
        if package == "gamma":
            rows += [f"{package}/src/io.ts(7,3): error TS2304: Cannot find name 'reader'.", ""]
        rows += [f"EMIT: /work/{package}/dist/file{j}.js" for j in range(40)]
        rows.append("")
    rows.append("Found 1 error.")
    text = "\n".join(rows) + "\n"
    hint = Hint(tool="bash", command="tsc --build")
    step = rows.index("10:02:00 - Building package 'gamma'...")
    plan = build.reduce(text, hint, Budget(1_000))
    assert plan is not None
    assert any(isinstance(p, Keep) and p.start <= step < p.end for p in plan)
    out = shrink(text, hint, Budget(1_000))
    assert out.strategy.startswith("build")
    assert rows[step] in out.content
    assert "gamma/src/io.ts(7,3): error TS2304: Cannot find name 'reader'." in out.content


def _explain() -> tuple[str, str, str]:
    """An EXPLAIN ANALYZE plan: slow sorts and joins on top, and one quick scan whose filter
    throws away far more rows than it returns."""
    rows = [
        "                                 QUERY PLAN",
        "-" * 76,
        " Sort  (cost=900.00..950.00 rows=500 width=16) "
        "(actual time=410.0..415.0 rows=500 loops=1)",
        "   Sort Key: t.total DESC",
        "   Sort Method: quicksort  Memory: 60kB",
    ]
    for depth in range(1, 7):
        pad = "  " * depth
        rows += [
            f" {pad}->  Hash Join  (cost={800 - depth}.00..{850 - depth}.00 rows=500 width=16) "
            f"(actual time={400 - depth * 5}.0..{405 - depth * 5}.0 rows=500 loops=1)",
            f" {pad}      Hash Cond: (a{depth}.id = b{depth}.a_id)",
            f" {pad}      Buffers: shared hit={1000 + depth}",
        ]
    scan = (
        "               ->  Seq Scan on events e  (cost=0.00..50.00 rows=900 width=8) "
        "(actual time=0.01..9.50 rows=900 loops=1)"
    )
    removed = "                     Rows Removed by Filter: 99100"
    rows += [scan, "                     Filter: (kind = 'click'::text)", removed]
    rows += [" Planning Time: 0.300 ms", " Execution Time: 416.000 ms", "(30 rows)"]
    return "\n".join(rows) + "\n", scan.strip(), removed.strip()


def test_sql_plan_keeps_a_scan_that_throws_away_most_of_what_it_reads() -> None:
    text, scan, removed = _explain()
    out = shrink(text, Hint(tool="bash", command="psql -c 'explain analyze ...'"), Budget(1_300))
    assert out.strategy.startswith("sql")
    assert len(out.content) <= 1_300
    assert scan in out.content and removed in out.content
    assert "Execution Time: 416.000 ms" in out.content


def test_log_keeps_the_record_that_led_to_a_one_off_record() -> None:
    rows = [
        f"2027-02-01 08:00:{k % 60:02d}.{k:04d} conn c{k} open from 10.1.{k % 9}.{k % 200} ok"
        for k in range(300)
    ]
    rows.insert(201, "2027-02-01 08:03:21.9999 conn c200 reset by peer after 0 bytes")
    text = "\n".join(rows) + "\n"
    out = shrink(text, Hint(tool="bash", command="netwatch --tail"), Budget(max_chars=1_200))
    assert out.strategy.startswith("log")
    assert rows[201] in out.content and rows[200] in out.content


_TOKEN = st.text(alphabet="abcXYZ019-_./:= ", min_size=0, max_size=40)


@settings(max_examples=200, deadline=None)
@given(_TOKEN, st.lists(st.integers(0, 10**9), min_size=1, max_size=4))
def test_kind_masks_every_number_and_is_stable(words: str, numbers: list[int]) -> None:
    """No digit survives `kind`; applying it twice changes nothing; a line and the same line with
    other numbers in the same places are one kind."""
    line = " ".join(f"{words}{n}" for n in numbers)
    other = " ".join(f"{words}{n + 7}" for n in numbers)
    masked = kind(line)
    assert not any(c.isdigit() for c in masked)
    assert kind(masked) == masked
    assert kind(other) == masked


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(["name", "size", "time", "count", "state"]), min_size=3, max_size=5),
    st.lists(st.lists(st.integers(0, 99_999), min_size=5, max_size=5), min_size=5, max_size=40),
    st.booleans(),
)
def test_table_roles_name_the_header_and_both_ends(
    columns: list[str], cells: list[list[int]], ruled: bool
) -> None:
    """Whatever its numbers, a table keeps its header and both its ends; peaks are rows of it."""
    header = "  ".join(f"{c:>8}" for c in columns)
    rows = ["  ".join(f"{v:>8}" for v in row[: len(columns)]) for row in cells]
    body = [header, "-" * len(header), *rows] if ruled else [header, *rows]
    text = "\n".join(["intro text here", "", *body, "", "done"]) + "\n"
    roles = table_roles(Lines(text))
    first = 4 if ruled else 3
    last = first + len(rows) - 1
    assert roles[2] == HEADER
    assert roles[first] == EDGE and roles[last] == EDGE
    assert all(first <= i <= last for i, role in roles.items() if role == PEAK)
    assert set(roles) <= {2, *range(first, last + 1)}
