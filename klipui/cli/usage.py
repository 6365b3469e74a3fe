"""`klipui usage [PATH...] [--by project|day|session|model] [--since DATE] [--json]`.

Token usage as the session files record it (input, output, cache read, cache write per model
response), an estimate for sessions that record none (marked `~`), totalled by project, day,
session or model, with a bar per row.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

BAR = 20
"""Cells of the longest bar."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "usage",
        help="token usage by project, day, session or model",
        description=(
            "Token usage recorded in the sessions (an estimate where a file records none, "
            "marked ~), by project, day, session or model."
        ),
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="session files, folders or globs")
    parser.add_argument(
        "--by", choices=("project", "day", "session", "model"), default="project", help="grouping"
    )
    parser.add_argument("--since", metavar="DATE", help="from this day on: YYYY-MM-DD, 7d or 2w")
    parser.add_argument("--json", action="store_true", help="print the totals as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from klipui.cli import UsageError
    from klipui.cli._notice import fail
    from klipui.cli._render import LazyProgress
    from klipui.usage import collect, parse_since, summarize

    try:
        since = parse_since(args.since) if args.since else None
    except ValueError as error:
        raise UsageError(str(error)) from None
    try:
        with LazyProgress("Reading usage") as update:
            usages = list(collect(args.paths or None, on_progress=update))
    except FileNotFoundError as error:
        return fail(str(error))
    report = summarize(usages, by=args.by, since=since)
    if args.json:
        from klipui.cli._render import print_json

        print_json(report.as_dict())
        return 0
    if not report.rows:
        from klipui.cli._notice import say

        say("klipui: no usage found" + (f" since {since}" if since else ""), sys.stderr)
        return 0
    from rich.console import Console

    Console().print(usage_table(report))
    return 0


def usage_table(report: Any) -> Any:
    """A rich table of a usage report: one row per key, a bar of its total, and the total."""
    from rich.table import Table
    from rich.text import Text

    from klipui.cli._render import human_count
    from klipui.session.display import clean_line
    from klipui.usage import bar

    table = Table(box=None, header_style="bold", pad_edge=False)
    table.add_column(report.by, overflow="ellipsis", no_wrap=True, max_width=48)
    for name in ("input", "output", "cache rd", "cache wr", "total"):
        table.add_column(name, justify="right", no_wrap=True, min_width=8)
    costs = report.total.costed > 0
    if costs:
        table.add_column("cost", justify="right", no_wrap=True, min_width=9)
    table.add_column("", no_wrap=True, overflow="crop", max_width=BAR)
    largest = max(row.tokens.total for row in report.rows)

    def cells(row: Any) -> list[Any]:
        mark = "~" if row.estimated else ""
        tokens = row.tokens
        figures = (tokens.input, tokens.output, tokens.cache_read, tokens.cache_write, tokens.total)
        shown = [Text(f"{mark}{human_count(value)}") for value in figures]
        if costs:
            shown.append(Text(f"${row.cost:,.2f}" if row.costed else "—"))
        return shown

    for row in report.rows:
        table.add_row(Text(clean_line(row.key)), *cells(row), Text(bar(row.tokens.total, largest)))
    table.add_row(Text("total", style="bold"), *cells(report.total), Text(""))
    return table
