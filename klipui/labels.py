"""Figures for people, shared by the app and the command line: counts with thousands separators
and the right plural, decimal sizes, short counts."""

from __future__ import annotations


def plural(count: int, word: str, many: str | None = None) -> str:
    """`1 turn`, `2 turns`, `1,024 lines`; `many` for an irregular plural."""
    return f"{count:,} {word if count == 1 else (many or word + 's')}"


def number(count: int) -> str:
    """`375,091`: an exact count with thousands separators."""
    return f"{count:,}"


def human_size(size: int | None, unknown: str = "?") -> str:
    """`532 B`, `12.3 kB`, `4.0 MB`: decimal units; `unknown` for None."""
    if size is None:
        return unknown
    value = float(size)
    for unit in ("B", "kB", "MB", "GB"):
        if value < 1000 or unit == "GB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} GB"


def human_count(count: int | None, exact: bool = True, unknown: str = "…") -> str:
    """`950`, `12.3k`, `4.1M`; `~` marks an estimate, `unknown` stands for None."""
    if count is None:
        return unknown
    prefix = "" if exact else "~"
    if count < 1000:
        return f"{prefix}{count}"
    if count < 1_000_000:
        return f"{prefix}{count / 1000:.1f}k"
    return f"{prefix}{count / 1_000_000:.1f}M"
