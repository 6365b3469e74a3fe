"""Short human figures for tables: sizes, counts, relative times."""

from __future__ import annotations

import time

from klipui.labels import human_count, human_size, plural

__all__ = ["human_count", "human_size", "one_line", "plural", "relative_time"]


def relative_time(then: float | None, now: float | None = None) -> str:
    """`now`, `5m ago`, `3h ago`, `2d ago`, or the date beyond a month."""
    if then is None:
        return ""
    now = time.time() if now is None else now
    delta = max(0.0, now - then)
    if delta < 60:
        return "now"
    if delta < 3600:
        return f"{int(delta // 60)}m ago"
    if delta < 86400:
        return f"{int(delta // 3600)}h ago"
    if delta < 30 * 86400:
        return f"{int(delta // 86400)}d ago"
    return time.strftime("%Y-%m-%d", time.gmtime(then))


def one_line(text: str | None, limit: int = 200) -> str:
    """The first line of `text`, at most `limit` characters."""
    if not text:
        return ""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"
