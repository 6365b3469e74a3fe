"""Short human figures for tables: sizes, counts, relative times."""

from __future__ import annotations

import time


def human_size(size: int | None) -> str:
    """`532 B`, `12.3 kB`, `4.0 MB`: decimal units, as the command line prints them."""
    if size is None:
        return "?"
    value = float(size)
    for unit in ("B", "kB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} GB"


def plural(count: int, word: str) -> str:
    """`1 turn`, `2 turns`, `1,024 lines`."""
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def human_count(count: int | None, exact: bool = True) -> str:
    """`950`, `12.3k`, `4.1M`; `~` marks an estimate, `…` an unknown."""
    if count is None:
        return "…"
    prefix = "" if exact else "~"
    if count < 1000:
        return f"{prefix}{count}"
    if count < 1_000_000:
        return f"{prefix}{count / 1000:.1f}k"
    return f"{prefix}{count / 1_000_000:.1f}M"


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
