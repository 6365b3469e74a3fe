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
