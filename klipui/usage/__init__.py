"""Token usage of sessions: what the files record (an estimate where they record nothing),
totalled by project, day, session or model.

`session_usage(path)` reads one session's items; `summarize(usages, by=…, since=…)` totals
them, counting a response that several files repeat once; `collect(paths)` does both for the
sessions discovery finds.
"""

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from klipui.usage.read import SessionUsage, Tokens, UsageItem, session_usage
from klipui.usage.report import BY, Report, Row, bar, day_of, parse_since, summarize


def collect(
    paths: Sequence[str | Path] | None = None,
    *,
    on_progress: Callable[[int, int], None] | None = None,
) -> Iterator[SessionUsage]:
    """The usage of every session under `paths` (the agents' folders and the archive when
    None), one session at a time; `on_progress(done, total)` after each."""
    from klipui.session.discover import discover, find_session_files

    files = find_session_files(paths)
    infos = {}
    for info in discover(files=files, exact=False):
        infos[info.path] = info
    total = len(infos)
    for done, (path, info) in enumerate(infos.items(), start=1):
        yield session_usage(path, info)
        if on_progress:
            on_progress(done, total)


__all__ = [
    "BY",
    "Report",
    "Row",
    "SessionUsage",
    "Tokens",
    "UsageItem",
    "bar",
    "collect",
    "day_of",
    "parse_since",
    "session_usage",
    "summarize",
]
