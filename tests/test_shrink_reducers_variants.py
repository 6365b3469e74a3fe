"""Known kinds in less common variants, on outputs captured here (tests/fixtures/shrink_shapes):
each goes to the reducer that understands it and keeps what an expert would look for."""

from __future__ import annotations

import re
from pathlib import Path

from klipui.shrink import Budget, Hint, shrink

SHAPES = Path(__file__).parent / "fixtures" / "shrink_shapes"


def _read(name: str) -> str:
    return (SHAPES / name).read_text(encoding="utf-8")


def _shrunk(name: str, max_chars: int, command: str | None = None) -> tuple[str, str]:
    text = _read(name)
    assert len(text) > max_chars
    out = shrink(text, Hint(tool="bash", command=command), Budget(max_chars=max_chars))
    assert len(out.content) <= max_chars
    return out.strategy, out.content


def test_git_log_patch_keeps_every_commit_header() -> None:
    """`git log -p` is a log of commits, not one diff: hash, author, date and subject survive."""
    text = _read("git-log-p.txt")
    commits = re.findall(
        r"^commit ([0-9a-f]{40})\nAuthor: (.*)\nDate: +(.*)\n\n +(.*)$", text, re.M
    )
    assert len(commits) == 12
    for command in ("git log -p", None):
        strategy, content = _shrunk("git-log-p.txt", 5_000, command)
        assert strategy == "gitlog"
        for sha, author, date, subject in commits:
            assert f"Author: {author}" in content
            assert f"commit {sha}" in content
            assert f"Date:   {date}" in content
            assert subject in content
        assert content.count("Author: ") == 12


def test_git_log_patch_shows_diffs_when_there_is_room() -> None:
    strategy, content = _shrunk("git-log-p.txt", 12_000, "git log -p")
    assert strategy == "gitlog"
    assert content.count("diff --git ") >= 5


def test_git_show_keeps_the_commit_header_with_the_diff() -> None:
    text = _read("git-show.txt")
    subject = text.split("\n")[4].strip()
    strategy, content = _shrunk("git-show.txt", 1_200, "git show")
    assert strategy.startswith("diff")
    assert content.startswith(text.split("\n")[0])  # commit <sha>
    assert "Author: " in content and "Date: " in content and subject in content


def test_pino_numeric_levels_are_read_as_levels() -> None:
    """pino writes `"level":50`: the error, the fatal and the warning records are the ones kept."""
    text = _read("pino-app-log.txt")
    severe = [line for line in text.splitlines() if re.search(r'"level":[456]0\b', line)]
    assert len(severe) == 3
    strategy, content = _shrunk("pino-app-log.txt", 2_000, "node app.js")
    assert strategy == "log"
    for line in severe:
        assert line in content


def test_python_log_keeps_the_traceback_of_its_error_record() -> None:
    strategy, content = _shrunk("python-worker-log-traceback.txt", 1_200, "python3 worker.py")
    assert strategy == "log"
    for must in (
        "ERROR worker: invoice 733 failed, moving to dead-letter queue",
        "Traceback (most recent call last):",
        'File "/tmp/pyapp/worker.py", line 14, in total',
        "TypeError: can't multiply sequence by non-int of type 'float'",
        "WARNING worker: queue lag 42s above threshold 30s",
        "INFO worker: worker stopped: 1199 ok, 1 failed",
    ):
        assert must in content


def test_java_log_keeps_exception_causes_and_user_frames() -> None:
    strategy, content = _shrunk("java-log-stacktrace.txt", 900, "java com.acme.shop.OrderService")
    assert strategy == "log"
    for must in (
        "ERROR [worker-1] c.a.shop.OrderService - order 417 rejected",
        "java.lang.IllegalStateException: cannot place order 417: reservation failed",
        "Caused by: java.lang.NullPointerException",
        "at com.acme.shop.OrderService.reserve(OrderService.java:15)",
        "batch done: 799 placed, 1 rejected",
    ):
        assert must in content


def test_bracketed_timestamps_are_not_grep_locations() -> None:
    from klipui.shrink.reducers import grep

    text = _read("python-worker-log-traceback.txt")
    assert text.startswith("[")
    assert not grep.detect(text, Hint(tool="grep"))
    out = shrink(text, Hint(tool="grep"), Budget(max_chars=1_500))
    assert out.strategy == "log"


def test_valgrind_report_keeps_errors_first_and_last_leaks_and_summaries() -> None:
    text = _read("valgrind-leaks.txt")
    records = re.findall(r"^==\d+== (.* in loss record \d+ of 25)$", text, re.M)
    assert len(records) == 25
    strategy, content = _shrunk("valgrind-leaks.txt", 1_800, "valgrind --leak-check=full ./leaky")
    assert strategy == "stacktrace+salience"
    for must in (
        "Invalid read of size 4",
        "at 0x109684: cfg_lookup (leaky.c:29)",
        "Conditional jump or move depends on uninitialised value(s)",
        records[0],
        records[-1],  # the last of a repeated kind is kept with the first
        "definitely lost: 3,550 bytes in 100 blocks",
        "ERROR SUMMARY: 28 errors from 28 contexts",
    ):
        assert must in content


def test_asan_report_keeps_the_error_and_each_stack_header() -> None:
    strategy, content = _shrunk("asan.txt", 1_000, "./uaf_asan")
    assert strategy == "stacktrace+salience"
    for must in (
        "ERROR: AddressSanitizer: heap-use-after-free",
        "#0 0x561c9b7be32e in sum /tmp/crash/uaf.c:7",
        "freed by thread T0 here:",
        "in release /tmp/crash/uaf.c:6",
        "previously allocated by thread T0 here:",
        "SUMMARY: AddressSanitizer: heap-use-after-free /tmp/crash/uaf.c:7 in sum",
    ):
        assert must in content


def test_gdb_backtrace_keeps_signal_and_both_ends_of_the_stack() -> None:
    strategy, content = _shrunk("gdb-bt.txt", 900, "gdb -batch -ex run -ex bt ./deep")
    assert strategy == "stacktrace+salience"
    for must in (
        "Program received signal SIGSEGV, Segmentation fault.",
        "#0  0x000055555555516a in walk (c=0x7fffffffe6d0, level=40) at deep.c:5",
        "#41 0x00005555555551d1 in main () at deep.c:8",
    ):
        assert must in content


def test_cargo_failure_index_lines_and_user_frames_outrank_std_frames() -> None:
    strategy, content = _shrunk("cargo-test-backtrace.txt", 1_500, "cargo test")
    assert strategy == "tests"
    for name in ("parses_record_63", "rounds_amount_17", "rounds_amount_88"):
        assert f"test tests::{name} ... FAILED" in content
        assert f"   4: ledger::tests::{name}" in content
    assert "at ./src/lib.rs:138:77" in content
    assert "test result: FAILED. 117 passed; 3 failed" in content
    assert "rust_begin_unwind" not in content  # std frames go before the user's


def test_all_pass_pytest_run_keeps_platform_collection_and_skips() -> None:
    strategy, content = _shrunk("pytest-all-pass-skips.txt", 3_000, "pytest -v -rs tests")
    assert strategy == "tests"
    for must in (
        "platform linux -- Python 3.11.7",
        "collected 400 items",
        "SKIPPED [1] tests/test_codec.py:905: flaky upstream sandbox, see issue 812",
        "SKIPPED [1] tests/test_codec.py:1137: needs macOS keychain (case 377)",
        "396 passed, 4 skipped in 7.48s",
    ):
        assert must in content


def test_a_version_bump_in_four_files_is_not_rename_noise() -> None:
    strategy, content = _shrunk("git-diff-bump-and-rename.txt", 4_000, "git diff")
    assert strategy.startswith("diff")
    for folder in ("admin", "api", "cli", "worker"):
        assert f"diff --git a/{folder}/requirements.txt b/{folder}/requirements.txt" in content
    assert content.count("+requests==2.32.3") == 4
    assert content.count("-requests==2.31.0") == 4
    # the rename repeated 240 times is what goes
    assert content.count("load_account") < 20


def test_find_over_two_roots_shows_real_lines_of_each() -> None:
    text = _read("find-two-roots.txt")
    second = [line for line in text.splitlines() if line.startswith("/usr/lib/python3/")]
    assert 0 < len(second) < len(text.splitlines()) // 10
    strategy, content = _shrunk("find-two-roots.txt", 1_200, "find /usr/share/doc/git ... -type f")
    assert strategy == "tree"
    kept = [line for line in content.splitlines() if line in second]
    assert len(kept) >= 3
    assert any(line.startswith("/usr/share/doc/git/") for line in content.splitlines())


def test_repeated_errors_keep_the_first_and_the_last_retry() -> None:
    strategy, content = _shrunk("python-retry-log.txt", 800, "python3 retry.py")
    assert strategy == "log"
    assert "upload attempt 1/40 failed: [Errno 111] Connection refused" in content
    assert "upload attempt 39/40 failed: [Errno 111] Connection refused" in content
    assert "giving up, 7500 records left unsent" in content
    assert "[… 37 lines, " in content  # the retries between, counted exactly
