"""Issue 16's named weaknesses, each checked on an output captured here from the real tool
(tests/fixtures/shrink_claims): what the issue says must survive a shrink does, within budget."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from klipui.shrink import Budget, FileSpillStore, Hint, Shrunk, shrink

CLAIMS = Path(__file__).parent / "fixtures" / "shrink_claims"


def _read(name: str) -> str:
    return (CLAIMS / name).read_text(encoding="utf-8")


def _shrunk(
    name: str,
    max_chars: int,
    command: str | None = None,
    tool: str = "bash",
    exit_code: int | None = None,
) -> Shrunk:
    text = _read(name)
    assert len(text) > max_chars
    hint = Hint(tool=tool, command=command, exit_code=exit_code)
    out = shrink(text, hint, Budget(max_chars=max_chars))
    assert out.reduced
    assert len(out.content) <= max_chars
    return out


def _missing(content: str, must: list[str]) -> list[str]:
    return [s for s in must if s not in content]


# ---------------------------------------------------------------------------------------------
# 1. Unrecognised shapes and tables


def test_dpkg_l_keeps_its_header_rows() -> None:
    lines = _read("dpkg-l.txt").splitlines()
    out = _shrunk("dpkg-l.txt", 2_000, "dpkg -l 'lib[a-d]*'")
    assert not _missing(out.content, lines[:5]), out.content  # legend, column names, rule
    assert lines[5] in out.content  # the first package


def test_pip_list_v_keeps_its_header_row() -> None:
    lines = _read("pip-list-v.txt").splitlines()
    out = _shrunk("pip-list-v.txt", 1_500, "pip list -v")
    assert not _missing(out.content, lines[:3]), out.content


def test_the_one_error_among_a_thousand_copied_files_is_kept() -> None:
    text = _read("cp-rv-one-error.txt")
    error = next(line for line in text.splitlines() if line.startswith("cp: "))
    first = text.splitlines()[0]
    for max_chars in (1_000, 2_000):
        out = _shrunk("cp-rv-one-error.txt", max_chars, exit_code=1)
        assert not _missing(out.content, [error, first]), out.content


# ---------------------------------------------------------------------------------------------
# 2. Logs


def test_syslog_priority_ranks_the_error_record() -> None:
    """`logger -s` lines lead with `<PRI>`; the one `<11>` (user.err) record is kept, though
    its words say nothing of an error, and the levels are counted by severity."""
    text = _read("logger-syslog-levels.txt")
    error = next(line for line in text.splitlines() if line.startswith("<11>"))
    assert not re.search(r"(?i)error|fail|fatal", error)
    for max_chars in (500, 1_000, 3_000):
        out = _shrunk("logger-syslog-levels.txt", max_chars)
        assert out.strategy.startswith("log"), out.note
        assert error in out.content, out.content
    assert (
        "[records by level: INFO 600, ERROR 1]"
        in _shrunk("logger-syslog-levels.txt", 3_000).content
    )


def _commits(text: str) -> list[tuple[str, str, str]]:
    """(header, author, subject) of each commit of a `git log -p`."""
    return re.findall(
        r"^(commit \w+)\n(?:Merge: .*\n)?(Author: .*)\nDate: .*\n\n(    .*)", text, re.M
    )


def test_git_log_p_keeps_the_newest_commits_headers_whole() -> None:
    """`git -C klipui log -p -n 20 -U1 -- klipui/shrink/reducers tests/...round6.py`: the
    newest commits keep hash, author and subject, and an indented context line of a patch
    (`    ... release ...`) does not make its commit notable (it took the room of the
    headers)."""
    commits = _commits(_read("git-log-p-klipui.txt"))
    assert len(commits) == 20
    for max_chars, newest in ((3_000, 7), (4_000, 9), (6_000, 15)):
        out = _shrunk("git-log-p-klipui.txt", max_chars, "git log -p -n 20")
        assert out.strategy == "gitlog", out.note
        for header, author, subject in commits[:newest]:
            assert not _missing(out.content, [header, author, subject]), (header, out.content)
        assert commits[-1][0] in out.content  # the oldest commit too


def test_pino_numeric_levels_rank_the_error_and_the_warning() -> None:
    """pino writes `"level":50` for an error, `"level":40` for a warning (node, pino 9)."""
    text = _read("pino-numeric-levels.txt")
    error = next(line for line in text.splitlines() if '"level":50' in line)
    warning = next(line for line in text.splitlines() if '"level":40' in line)
    for max_chars in (600, 1_500):
        out = _shrunk("pino-numeric-levels.txt", max_chars, "node app.js")
        assert out.strategy.startswith("log"), out.note
        assert not _missing(out.content, [error, warning]), out.content


def test_traceback_inside_a_log_with_bracketed_times_keeps_its_frames() -> None:
    """Python logging with `[%H:%M:%S]` times: the record, the whole traceback and the last
    record are kept; the bracketed time is not read as grep's `path:line:` even when the hint
    says grep."""
    text = _read("python-logging-bracket-time-traceback.txt")
    lines = text.splitlines()
    record = next(i for i, line in enumerate(lines) if " ERROR " in line)
    trace = lines[record : record + 8]
    assert trace[1] == "Traceback (most recent call last):"
    for tool in ("bash", "grep"):
        out = _shrunk("python-logging-bracket-time-traceback.txt", 1_000, tool=tool)
        assert out.strategy.startswith("log"), out.note
        assert not _missing(out.content, [*trace, lines[-1]]), out.content


def test_stack_frames_in_less_common_layouts_are_kept() -> None:
    """A node uncaught error, a Go goroutine panic, Tcl's errorInfo, Python faulthandler's dump:
    each after hundreds of routine lines, kept with the program's frames."""
    cases = {
        "node-uncaught-in-output.txt": (
            800,
            [
                "RangeError: empty amount on line 400",
                "    at toAmount (/tmp/g9/nodeerr/parse.js:2:27)",
                "    at parseRow (/tmp/g9/nodeerr/parse.js:7:36)",
                "    at importBatch (/tmp/g9/nodeerr/worker.js:2:42)",
                "Node.js v20.20.2",
            ],
        ),
        "go-run-nil-map-panic.txt": (
            700,
            [
                "panic: assignment to entry in nil map",
                "goroutine 18 [running]:",
                "main.(*cache).touch(...)",
                "\t/tmp/g9/gopanic/main.go:21 +0x170",
                "created by main.main",
                "exit status 2",
            ],
        ),
        "tclsh-error-info.txt": (
            500,
            [
                'expected integer but got "many"',
                '    (procedure "fmt_row" line 3)',
                '    (procedure "render" line 3)',
                '    (file "report.tcl" line 15)',
            ],
        ),
        "python-faulthandler-segv.txt": (
            600,
            [
                "Fatal Python error: Segmentation fault",
                '  File "/tmp/g9/fh/job.py", line 5 in read_block',
                '  File "/tmp/g9/fh/job.py", line 9 in scan',
                '  File "/tmp/g9/fh/job.py", line 12 in <module>',
            ],
        ),
    }
    for name, (max_chars, must) in cases.items():
        out = _shrunk(name, max_chars, exit_code=1)
        assert not _missing(out.content, must), (name, out.content)


# ---------------------------------------------------------------------------------------------
# 3. Repeats


def test_a_bump_repeated_in_four_files_outlives_forty_eight_moved_files() -> None:
    """`git diff --cached -M`: requests 2.31.0 -> 2.32.3 in four requirements.txt, and 48
    modules moved src/ -> app/ with one word added on one line each. Each file's bump is kept
    (the moved files' headers used to push out three of the four even at 10,000 chars)."""
    text = _read("git-diff-bump-and-48-renames.txt")
    assert text.count("rename from ") == 48
    for max_chars in (1_500, 3_000, 6_000):
        out = _shrunk("git-diff-bump-and-48-renames.txt", max_chars, "git diff --cached -M")
        assert out.strategy.startswith("diff"), out.note
        assert out.content.count("\n-requests==2.31.0\n+requests==2.32.3\n") == 4, out.content
        for service in ("api", "worker", "billing", "notifier"):
            assert f"+++ b/services/{service}/requirements.txt" in out.content


def test_retries_keep_first_last_and_the_exact_count() -> None:
    """60 refused connections, one line each, differing by the attempt number: the first and
    the last attempt are kept, with the count of those between; more of them when the budget
    has room."""
    lines = _read("python-wait-ready-60-retries.txt").splitlines()
    for max_chars, shown in ((400, 3), (1_000, 9), (3_000, 30)):
        out = _shrunk("python-wait-ready-60-retries.txt", max_chars, exit_code=3)
        assert out.strategy == "repeat", out.note
        kept = [line for line in lines if line in out.content.splitlines()]
        attempts = [line for line in kept if line.startswith("attempt ")]
        assert attempts[0] == lines[1] and attempts[-1] == lines[60]
        assert len(attempts) >= shown
        assert f"[… {60 - len(attempts)} similar lines, " in out.content
        assert lines[-1] in out.content  # service never became ready


def test_pip_keeps_its_last_retry_and_the_error() -> None:
    lines = _read("pip-download-retries.txt").splitlines()
    last_retry = next(line for line in lines if "Retry(total=0," in line)
    out = _shrunk("pip-download-retries.txt", 700, "pip download leftpad-nope", exit_code=1)
    assert not _missing(out.content, [last_retry, *lines[-2:]]), out.content


def test_pip_s_satisfied_requirements_keep_first_last_and_count() -> None:
    """`pip install -e .[test]` with everything installed: 32 `Requirement already satisfied`
    lines differing by the name; the first and the last are shown with the `[x32]` tally."""
    lines = _read("pip-install-all-satisfied.txt").splitlines()
    satisfied = [line for line in lines if line.startswith("Requirement already satisfied")]
    assert len(satisfied) == 32
    out = _shrunk("pip-install-all-satisfied.txt", 2_000, "pip install -e .[test]")
    assert out.strategy == "install", out.note
    assert not _missing(out.content, [satisfied[0], satisfied[-1], "[x32] Requirement …"])
    assert lines[-1] in out.content  # Successfully installed klipui-0.1.0


# ---------------------------------------------------------------------------------------------
# 4. Spare budget


def test_all_pass_pytest_keeps_platform_collected_skips_and_summary() -> None:
    text = _read("pytest-v-all-pass-skips.txt")
    lines = text.splitlines()
    skipped = [line for line in lines if line.startswith("SKIPPED [1]")]
    assert len(skipped) == 3
    must = [
        next(line for line in lines if line.startswith("platform linux")),
        next(line for line in lines if "collected 543 items" in line),
        *skipped,
        lines[-1],  # ==== 540 passed, 3 skipped in ... ====
    ]
    for max_chars in (3_000, 6_000):
        out = _shrunk("pytest-v-all-pass-skips.txt", max_chars, "pytest -v -rs tests", exit_code=0)
        assert not _missing(out.content, must), out.content
        assert len(out.content) >= 0.9 * max_chars


def test_a_6000_char_budget_is_mostly_used() -> None:
    """Every captured output bigger than the budget fills at least 85% of it, whatever reducer
    reads it (the repeat reducer used 409 characters of 6,000 on Tcl's 7,272)."""
    for path in sorted(CLAIMS.iterdir()):
        text = path.read_text(encoding="utf-8")
        if len(text) <= 6_000:
            continue
        out = shrink(text, Hint(tool="bash"), Budget(max_chars=6_000))
        assert 0.85 * 6_000 <= len(out.content) <= 6_000, (path.name, out.strategy)


def test_a_summary_in_unfamiliar_words_is_kept() -> None:
    """clang's `211 warnings and 2 errors generated.`, with the build reducer and with none."""
    summary = "211 warnings and 2 errors generated."
    errors = ["'missing_total'", "incomplete type 'struct ledger_row'"]
    text = _read("clang-warnings-and-errors.txt")
    for max_chars in (800, 1_500):
        out = _shrunk("clang-warnings-and-errors.txt", max_chars, "clang -c ledger.c", exit_code=1)
        assert not _missing(out.content, [summary, *errors]), out.content
        plain = shrink(text, Hint(tool="bash"), Budget(max_chars=max_chars), only=[])
        assert plain.strategy == "salience"
        assert not _missing(plain.content, [summary, *errors]), plain.content


# ---------------------------------------------------------------------------------------------
# 5. cargo test, find, JSON


def test_cargo_test_keeps_its_failed_index_lines() -> None:
    text = _read("cargo-test-two-failed.txt")
    failed = [line for line in text.splitlines() if line.endswith(" ... FAILED")]
    assert len(failed) == 2
    for max_chars in (1_000, 2_000):
        out = _shrunk("cargo-test-two-failed.txt", max_chars, "cargo test", exit_code=101)
        assert out.strategy == "tests", out.note
        must = [*failed, "half a cent rounds up", "over cap", "test result: FAILED. 180 passed"]
        assert not _missing(out.content, must), out.content


def test_find_over_two_roots_gives_each_root_its_entries() -> None:
    text = _read("find-zoneinfo-america-etc-ssl.txt")
    for max_chars in (1_000, 2_500):
        out = _shrunk("find-zoneinfo-america-etc-ssl.txt", max_chars, "find A B")
        for root in ("/usr/share/zoneinfo/America", "/etc/ssl"):
            kept = [line for line in out.content.splitlines() if line.startswith(root + "/")]
            assert len(kept) >= 5, (root, out.content)
            assert root + "\n" in out.content
        assert text.splitlines()[-1] in out.content or "more in /etc/ssl" in out.content


def test_json_keeps_later_items_and_trailing_keys() -> None:
    """`pip inspect | jq '{version, pip_version, installed: [...], environment}'`: the last
    package, more of the array's second half as the budget grows, and the `environment` object
    after it survive."""
    text = _read("pip-inspect-jq.json")
    names = re.findall(r'^      "name": "([^"]+)"', text, re.M)
    assert len(names) == 35
    for max_chars, later in ((2_000, 1), (4_000, 3)):
        out = _shrunk("pip-inspect-jq.json", max_chars, "pip inspect | jq")
        assert out.strategy.startswith("json"), out.note
        must = [f'"name": "{name}"' for name in (names[0], names[-1])]
        assert not _missing(out.content, [*must, '"environment": {', '"platform_machine"']), (
            out.content
        )
        second_half = names[len(names) // 2 :]
        kept = [name for name in second_half if f'"name": "{name}"' in out.content]
        assert len(kept) >= later, out.content


# ---------------------------------------------------------------------------------------------
# 6. sql (PostgreSQL 15 on a local socket, sqlite 3); docker did not run here (no daemon)


def test_psql_result_keeps_header_ends_and_row_count() -> None:
    lines = _read("psql-select-join-980-rows.txt").splitlines()
    out = _shrunk("psql-select-join-980-rows.txt", 1_200, "psql -c 'select ...'")
    assert out.strategy == "sql", out.note
    assert not _missing(out.content, [lines[0], lines[1], lines[2], lines[-3], "(980 rows)"])


def test_sqlite_column_result_keeps_header_ends_and_a_count() -> None:
    lines = _read("sqlite3-column-items.txt").splitlines()
    out = _shrunk("sqlite3-column-items.txt", 800, "sqlite3 -header -column shop.db")
    assert out.strategy == "sql", out.note
    assert not _missing(out.content, [lines[0], lines[1], lines[2], lines[-1], "[532 rows]"])


def test_explain_analyze_keeps_the_nodes_where_the_time_goes() -> None:
    """A parallel hash join: the sequential scan that throws away 50,692 rows (the most time of
    its own) is kept with that count at 1,000 chars, the partial aggregate at 1,400; the
    nodes that only pass rows up (Sort, Finalize, whose time is all their children's) no
    longer outrank them."""
    must = [
        " Sort  (cost=4469.87",
        "->  Parallel Seq Scan on orders o",
        "Rows Removed by Filter: 50692",
        "Execution Time: 29.437 ms",
        "(26 rows)",
    ]
    out = _shrunk("psql-explain-analyze-parallel-join.txt", 1_000, "psql -c 'explain analyze'")
    assert out.strategy == "sql", out.note
    assert not _missing(out.content, must), out.content
    roomy = _shrunk("psql-explain-analyze-parallel-join.txt", 1_400, "psql")
    assert not _missing(roomy.content, [*must, "->  Partial HashAggregate"]), roomy.content


# ---------------------------------------------------------------------------------------------
# 7. The hook and the library


def test_klipui_hook_gives_the_library_s_text(tmp_path: Path) -> None:
    """Every captured output, one JSON tool result a line through `klipui hook` (a process of
    its own, no settings file), comes back as `shrink` gives it for the same hint and budget,
    with no spill and with one (the footer's locator set aside)."""
    names = sorted(path.name for path in CLAIMS.iterdir())
    texts = [_read(name) for name in names]
    records = [
        json.dumps({"llm_content": text, "tool": "bash", "command": f"run {name}", "exit_code": 1})
        for name, text in zip(names, texts, strict=True)
    ]
    footer = re.compile(r"\[full output saved as [^\]\n]*\]")
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    for max_chars in (1_000, 6_000):
        for spill in (False, True):
            where = ["--spill-dir", str(tmp_path / "hook")] if spill else ["--no-spill"]
            command = [sys.executable, "-m", "klipui", "hook", "--max-chars", str(max_chars)]
            done = subprocess.run(
                [*command, "--project", str(tmp_path), *where],
                input="".join(record + "\n" for record in records),
                capture_output=True,
                text=True,
                env=env,
                check=True,
            )
            replies = [json.loads(line)["llm_content"] for line in done.stdout.splitlines()]
            assert len(replies) == len(names)
            store = FileSpillStore(tmp_path / "library") if spill else None
            for name, text, got in zip(names, texts, replies, strict=True):
                hint = Hint(tool="bash", command=f"run {name}", exit_code=1)
                out = shrink(text, hint, Budget(max_chars=max_chars), spill=store)
                assert out.reduced == (len(text) > max_chars)
                assert footer.sub("", got) == footer.sub("", out.content), name
                assert bool(footer.search(got)) == (spill and out.reduced)
                assert len(got) <= max_chars
