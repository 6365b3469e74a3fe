"""`klipui ls [PATH...] [--json]`: list sessions with their agent, project, size and turns."""

from __future__ import annotations

import argparse
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "ls",
        help="list sessions (under PATHs, else the agents' own folders)",
        description="List session files: title, agent, project, updated, turns, tokens, size.",
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="session files, folders or globs")
    parser.add_argument("--json", action="store_true", help="print SessionInfo records as JSON")
    parser.add_argument(
        "--quick", action="store_true", help="figures from head reads only (estimates)"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from klipui.cli._render import LazyProgress, write_json
    from klipui.session.discover import discover, find_session_files

    try:
        files = find_session_files(args.paths or None)
    except FileNotFoundError as error:
        print(f"klipui: {error}", file=sys.stderr)
        return 1
    latest = {}
    with LazyProgress("Reading sessions") as progress:
        for info in discover(files=files, exact=not args.quick, on_progress=progress):
            latest[info.path] = info
    infos = sorted(latest.values(), key=lambda i: -(i.updated or 0))
    if args.json:
        write_json(infos)
        return 0
    if not infos:
        where = "under " + ", ".join(args.paths) if args.paths else "in the agents' folders"
        print(f"klipui: no session files found {where}", file=sys.stderr)
        return 0
    _print_table(infos)
    return 0


def _print_table(infos: list) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    from klipui.cli._render import human_count, human_size, human_time

    console = Console()
    wide = console.width >= 110
    table = Table(box=None, header_style="bold", pad_edge=False, expand=True)
    table.add_column("title", overflow="ellipsis", no_wrap=True, ratio=1)
    table.add_column("agent", no_wrap=True, overflow="ellipsis", max_width=16 if wide else 7)
    table.add_column("project", overflow="ellipsis", no_wrap=True, max_width=20 if wide else 12)
    table.add_column("updated", no_wrap=True)
    table.add_column("turns", justify="right", no_wrap=True)
    table.add_column("tokens", justify="right", no_wrap=True)
    table.add_column("size", justify="right", no_wrap=True)
    for info in infos:
        title = info.title or info.first_prompt or info.path.name
        if info.problem:
            label = Text(f"{info.path.name}: {info.problem}", style="red")
        else:
            label = Text(title.replace("\n", " "))
        approx = "" if info.exact else "~"
        table.add_row(
            label,
            (info.agent if wide else info.format) or info.format or "?",
            info.project or "",
            human_time(info.updated)[: None if wide else 10],
            f"{approx}{info.turns}" if info.turns is not None else "",
            f"{approx}{human_count(info.tokens)}" if info.tokens is not None else "",
            human_size(info.bytes),
        )
    console.print(table)
