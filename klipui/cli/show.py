"""`klipui show SESSION [--turns KINTERVAL] [--json]`: a session's turns, rendered with rich.

Session text is printed without its terminal escape and control sequences (a tool output must
not act on the user's terminal). A selection that cannot be read, or selects no turn, is an
error (exit 1) with the reason on stderr.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

PREVIEW_LINES = 4
"""Lines of each tool result shown under its header."""
MAX_TEXT = 2000
"""Characters of a message shown before it is cut."""
MAX_PROBLEMS = 5


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "show",
        help="print a session's turns: prompts, answers, tool calls and results",
        description="Print the turns of a session file (any supported agent format).",
    )
    parser.add_argument("session", metavar="SESSION", help="a session file")
    parser.add_argument(
        "--turns", metavar="KINTERVAL", help='turns to show, e.g. "1..3, 7" or "-2.." (default all)'
    )
    parser.add_argument("--json", action="store_true", help="print the selected turns as JSON")
    # Let `--turns -2..` through: argparse takes only plain negative numbers as values.
    if hasattr(parser, "_negative_number_matcher"):
        parser._negative_number_matcher = re.compile(r"^-\d")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from klipui.cli._notice import fail, say
    from klipui.session import SessionError, open_session

    try:
        session = open_session(args.session)
    except SessionError as error:
        return fail(str(error))
    numbers = None
    if args.turns:
        numbers = _select(args.turns, len(session.turns))
        if numbers is None:
            return 1
    for problem in session.problems[:MAX_PROBLEMS]:
        say(f"klipui: warning: {problem}", sys.stderr)
    if len(session.problems) > MAX_PROBLEMS:
        more = len(session.problems) - MAX_PROBLEMS
        say(f"klipui: warning: {session.path}: {more} more problems", sys.stderr)
    turns = session.turns if numbers is None else [session.turns[n - 1] for n in numbers]
    if args.json:
        _print_json(session, turns)
    else:
        _print_rich(session, turns)
    return 0


def _select(text: str, count: int) -> list[int] | None:
    """The turn numbers `text` selects among `count` turns, its warnings printed on stderr;
    None (after saying why) when it cannot be read or selects nothing."""
    from klipui.cli._notice import fail
    from klipui.klip import KIntervalError, parse_interval
    from klipui.session.display import clean_line

    try:
        interval = parse_interval(text)
    except KIntervalError as error:
        caret = "\n".join(error.render().splitlines()[:2])
        fail(f"invalid selection (column {error.column}): {error.message}\n{caret}")
        return None
    for warning in interval.warnings(count):
        print(clean_line(f"klipui: warning: {warning}"), file=sys.stderr)
    numbers = interval.turns(count)
    if not numbers:
        fail(f"selection {text!r} keeps none of the {count} turns")
        return None
    return numbers


def _info(session: Any) -> Any:
    """The session's `SessionInfo`, with the file's size and mtime as it was read."""
    from klipui.session.load import session_info

    size, mtime_ns = session.source_stat or (0, None)
    return session_info(session, size, mtime_ns / 1e9 if mtime_ns is not None else None)


def _print_json(session: Any, turns: list[Any]) -> None:
    from klipui.cli._render import write_json

    write_json(
        {
            "info": _info(session),
            "problems": [str(p) for p in session.problems],
            "turns": [
                {
                    "number": turn.number,
                    "prompt": turn.prompt,
                    "tool_calls": turn.tool_calls,
                    "tokens": turn.tokens,
                    "errors": turn.errors,
                    "completed": turn.completed,
                    "events": [e.to_dict() for e in session.events[turn.start : turn.end]],
                }
                for turn in turns
            ],
        }
    )


def _print_rich(session: Any, turns: list[Any]) -> None:
    from rich.console import Console
    from rich.text import Text

    from klipui.cli._render import human_count
    from klipui.labels import plural
    from klipui.session.display import clean_line, display_title
    from klipui.session.formats import adapter

    console = Console()
    head = Text()
    head.append(clean_line(display_title(_info(session))), style="bold")
    head.append(f"\n{adapter(session.format).agent} · {clean_line(str(session.path))}", style="dim")
    if session.cwd:
        head.append(f"\ncwd {clean_line(session.cwd)}", style="dim")
    head.append(
        f"\n{plural(len(session.turns), 'turn')} · {plural(len(session.events), 'event')}",
        style="dim",
    )
    console.print(head)
    for turn in turns:
        state = "" if turn.completed else " · not completed"
        console.rule(
            f"[bold]turn {turn.number}[/] · {plural(turn.tool_calls, 'tool call')} · "
            f"{human_count(turn.tokens)} tokens{state}",
            align="left",
        )
        for event in session.events[turn.start : turn.end]:
            _print_event(console, event)


def _print_event(console: Any, event: Any) -> None:
    from rich.text import Text

    from klipui.cli._render import human_size
    from klipui.labels import plural
    from klipui.session.blocks import blocks_text, message_content
    from klipui.session.display import clean_line

    kind = event.type
    if kind == "user/message":
        source = (event.data.get("source") or {}).get("kind", "user")
        label = "user" if source == "user" else f"user ({clean_line(str(source))})"
        content = message_content(event)
        _print_text(console, label, "bold cyan", blocks_text(content))
        _print_images(console, content)
    elif kind == "assistant/message":
        for block in message_content(event) or []:
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text":
                _print_text(console, "assistant", "bold green", block.get("text") or "")
            elif block.get("type") == "reasoning":
                _print_text(console, "thinking", "dim italic", block.get("text") or "", "dim")
    elif kind == "tool/call":
        arguments = str(event.data.get("arguments") or "")
        line = Text()
        line.append("→ ", style="yellow")
        line.append(_one_line(str(event.data.get("name") or "tool"), 80), style="bold yellow")
        line.append(f" {_one_line(arguments, 400)}", style="yellow")
        console.print(line, no_wrap=True, overflow="ellipsis")
    elif kind == "tool/result":
        for block in message_content(event) or []:
            if not isinstance(block, dict) or block.get("type") != "tool-result":
                continue
            text = blocks_text(block.get("content"))
            size = len(text.encode("utf-8"))
            lines = text.count("\n") + 1 if text else 0
            error = block.get("isError")
            style = "red" if error else "magenta"
            header = Text()
            header.append("← ", style=style)
            header.append("error" if error else "result", style=f"bold {style}")
            header.append(f" {human_size(size)}, {plural(lines, 'line')}", style=style)
            console.print(header)
            preview = text.splitlines()[:PREVIEW_LINES]
            for row in preview:
                row_text = Text("  " + _one_line(row, 400), style="dim")
                console.print(row_text, no_wrap=True, overflow="ellipsis")
            if lines > len(preview):
                more = plural(lines - len(preview), "more line")
                console.print(Text(f"  … {more}", style="dim"))
    elif kind == "compaction/summary":
        _print_text(console, "compaction", "bold blue", str(event.data.get("summary") or ""))


def _print_images(console: Any, content: Any) -> None:
    from rich.text import Text

    from klipui.cli._render import human_size
    from klipui.session.display import clean_line

    for block in content if isinstance(content, list) else ():
        if isinstance(block, dict) and block.get("type") == "image":
            media = clean_line(str(block.get("mediaType") or "image"))
            console.print(Text(f"  [{media}, {human_size(block.get('size') or 0)}]", style="cyan"))


def _print_text(console: Any, label: str, style: str, text: str, body: str = "") -> None:
    from rich.text import Text

    from klipui.session.display import clean_text

    text = clean_text(text)
    if not text.strip():
        return
    shown = text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + f" … ({len(text)} chars)"
    out = Text()
    out.append(f"{label}: ", style=style)
    out.append(shown, style=body)
    console.print(out)


def _one_line(text: str, limit: int) -> str:
    """`text` cleaned, on one line, cut to `limit` characters (after cleaning: never inside an
    escape sequence)."""
    from klipui.session.display import clean_line

    flat = " ".join(clean_line(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
