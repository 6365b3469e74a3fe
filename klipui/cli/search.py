"""`klipui search QUERY [PATH...]`: full-text search over sessions, best matches first.

The index (SQLite FTS5 in the user cache folder) is brought up to date first: only new, grown
or rewritten files are read. Plain words must all occur; FTS5 syntax (phrases, `word*`,
AND/OR/NOT in capitals) is used when the query holds some (see `klipui.search.query`).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from datetime import datetime, timedelta
from typing import Any

_RELATIVE = re.compile(r"(\d+)\s*([hdwmy])")
_UNITS = {"h": 3600, "d": 86400, "w": 7 * 86400, "m": 30 * 86400, "y": 365 * 86400}


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "search",
        help="search the text of sessions (prompts, answers, thinking, tool calls and results)",
        description=(
            "Search sessions, best matches first. Plain words must all occur; a query with a "
            'double quote ("a phrase"), a word ending in * (prefix*) or AND/OR/NOT in capitals '
            "is read as FTS5 syntax."
        ),
    )
    parser.add_argument("query", metavar="QUERY", help="words to look for")
    parser.add_argument(
        "paths", nargs="*", metavar="PATH", help="session files, folders or globs (default: all)"
    )
    parser.add_argument("--agent", help="only this agent (claude, codex, pi, dsh, messages)")
    parser.add_argument("--project", help="only projects whose name holds this")
    parser.add_argument(
        "--since", metavar="DATE", help="only from DATE on (2026-03-01, or 3d, 2w, 12h ago)"
    )
    parser.add_argument(
        "--in",
        dest="kinds",
        metavar="KINDS",
        help="search only these, comma-separated: prompts, answers, thinking, tools "
        "(or calls, results)",
    )
    parser.add_argument("--limit", type=int, default=20, help="hits shown at most (default 20)")
    parser.add_argument("--json", action="store_true", help="print the hits as a JSON list")
    parser.set_defaults(func=run)


def parse_since(text: str, now: float | None = None) -> float:
    """Epoch seconds of a `--since` value: an ISO date or time, or `N[hdwmy]` before now."""
    from klipui.cli import UsageError

    now = time.time() if now is None else now
    value = text.strip().lower()
    match = _RELATIVE.fullmatch(value)
    if match:
        return now - int(match.group(1)) * _UNITS[match.group(2)]
    if value == "today":
        return datetime.fromtimestamp(now).replace(hour=0, minute=0, second=0).timestamp()
    if value == "yesterday":
        day = datetime.fromtimestamp(now).replace(hour=0, minute=0, second=0)
        return (day - timedelta(days=1)).timestamp()
    try:
        return datetime.fromisoformat(text.strip()).timestamp()
    except ValueError:
        raise UsageError(
            f"--since {text!r}: not a date (write 2026-03-01, 2026-03-01T14:00, 3d, 2w or 12h)"
        ) from None


def parse_kinds(text: str) -> list[str]:
    """The unit kinds of an `--in` value."""
    from klipui.cli import UsageError
    from klipui.search import KIND_GROUPS

    kinds: list[str] = []
    for name in (part.strip().lower() for part in text.split(",")):
        if not name:
            continue
        if name not in KIND_GROUPS:
            raise UsageError(
                f"--in {name!r}: not a kind (prompts, answers, thinking, tools, calls, results)"
            )
        kinds.extend(KIND_GROUPS[name])
    if not kinds:
        raise UsageError("--in: name at least one kind (prompts, answers, thinking, tools)")
    return sorted(set(kinds))


def run(args: argparse.Namespace) -> int:
    from klipui.cli import UsageError
    from klipui.cli._notice import fail, say
    from klipui.cli._render import LazyProgress
    from klipui.search import SearchIndex, SearchUnavailable
    from klipui.session.discover import find_session_files

    if args.limit < 1:
        raise UsageError("--limit: give a number of hits of 1 or more")
    since = parse_since(args.since) if args.since else None
    kinds = parse_kinds(args.kinds) if args.kinds else None
    try:
        files = find_session_files(args.paths or None)
    except FileNotFoundError as error:
        return fail(str(error))
    try:
        index = SearchIndex()
    except SearchUnavailable as error:
        return fail(str(error))
    with index:
        if index.note:
            say(f"klipui: {index.note}", sys.stderr)
        with LazyProgress("Indexing sessions") as progress:
            report = index.update(files, on_progress=progress, workers=os.cpu_count() or 1)
        results = index.search(
            args.query,
            paths=files,
            agent=args.agent,
            project=args.project,
            since=since,
            kinds=kinds,
            limit=args.limit,
        )
    if report.busy:
        say(f"klipui: partial results: {report.busy} files not indexed (index busy)", sys.stderr)
    if results.note:
        say(f"klipui: {results.note}", sys.stderr)
    if args.json:
        from klipui.cli._render import write_json

        write_json([hit.to_json() for hit in results.hits])
        return 0
    if not results.hits:
        if not results.query.empty:
            say(f"klipui: no match for {args.query!r} in {len(files)} sessions", sys.stderr)
        return 0
    from rich.console import Console

    console = Console(highlight=False)
    for number, hit in enumerate(results.hits, 1):
        head, snippet, where = hit_lines(hit, number)
        console.print(head, no_wrap=True, overflow="ellipsis")
        console.print(snippet)
        console.print(where, no_wrap=True, overflow="ellipsis")
    return 0


def hit_lines(hit: Any, number: int) -> tuple[Any, Any, Any]:
    """A hit as three rich texts: title and place, the snippet (terms highlighted), the path."""
    from rich.text import Text

    from klipui.cli._render import human_time
    from klipui.session.display import clean_line

    when = human_time(hit.time / 1000) if isinstance(hit.time, int) else ""
    place = [hit.agent, hit.project, when, f"turn {hit.turn}", f"event {hit.seq}", hit.kind]
    head = Text()
    head.append(f"{number:>3}. ", style="dim")
    head.append(" · ".join(clean_line(p) for p in place if p), style="cyan")
    head.append("  " + clean_line(hit.title), style="bold")
    snippet = Text("     ")
    snippet.append_text(snippet_text(hit.snippet))
    where = Text(f"     {clean_line(str(hit.path))}", style="dim")
    return head, snippet, where


def snippet_text(snippet: str, style: str = "bold reverse") -> Any:
    """A snippet as one line of rich text, its matched terms in `style`."""
    from rich.text import Text

    from klipui.search.snippet import snippet_pieces

    text = Text()
    for piece, matched in snippet_pieces(snippet):
        text.append(piece, style=style if matched else "")
    return text
