"""`klipui ls [PATH...] [--json] [--quick]`: session files with agent, project, size and turns.

On a terminal the rows show as they come, from the quick head reads (figures marked `~`), newest
first, with a progress bar under them; once the exact figures are in, that live view gives way
to the final table. Piped, the table (or `--json`) is printed once everything is read, with a
progress bar on stderr when that takes over half a second. `--quick` skips the exact figures.
At narrow widths the least useful columns are dropped before the title gets short. Piped
without `COLUMNS`, the rows are tab-separated lines with every field whole (titles, projects and
full paths uncut), for `cut -f` and friends. The path column is what `klipui show` takes.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

MIN_TITLE = 24
"""Columns the title keeps; other columns are dropped (least useful first) to leave it that."""
WIDE = 110
"""From this terminal width on, agents are named in full and times carry the hour."""
DROP_ORDER = ("project", "tokens", "updated", "path", "agent", "size", "turns")
PATH_ROOM = 40
"""Columns the path takes on a terminal at least; a longer path folds onto more lines (never
cut), and gets more room once the title has `TITLE_WANT` columns."""
TITLE_WANT = 80
UNKNOWN = "—"
LIVE_REFRESH = 2
"""Redraws a second of the live view (one costs ~17 ms of a busy process: keep it rare); the
first row is drawn as soon as it comes."""


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
    from klipui.session.discover import discover, find_session_files

    try:
        files = find_session_files(args.paths or None)
    except FileNotFoundError as error:
        from klipui.cli._notice import fail

        return fail(str(error))

    def infos(on_progress: Callable[[int, int], None]) -> Iterable[Any]:
        return discover(files=files, exact=not args.quick, on_progress=on_progress)

    if not args.json and files and sys.stdout.isatty():
        latest = _read_live(infos)
    else:
        latest = _read_quietly(infos)
    ordered = newest_first(latest.values())
    if args.json:
        from klipui.cli._render import write_json

        write_json(ordered)
        return 0
    if not ordered:
        where = "under " + ", ".join(args.paths) if args.paths else "in the agents' folders"
        from klipui.cli._notice import say

        say(f"klipui: no session files found {where}", sys.stderr)
        return 0
    import os

    from rich.console import Console

    if sys.stdout.isatty() or os.environ.get("COLUMNS"):
        console = Console()
        console.print(session_table(ordered, console.width))
    else:
        sys.stdout.write("".join(f"{line}\n" for line in tab_lines(ordered)))
    return 0


Reader = Callable[[Callable[[int, int], None]], Iterable[Any]]


def newest_first(infos: Iterable[Any]) -> list[Any]:
    """Infos by last update, newest first."""
    return sorted(infos, key=lambda i: -(i.updated or 0))


def _read_quietly(infos: Reader) -> dict[Path, Any]:
    """The latest info of each file, with a progress bar on stderr past half a second."""
    from klipui.cli._render import LazyProgress

    latest: dict[Path, Any] = {}
    with LazyProgress("Reading sessions") as progress:
        for info in infos(progress):
            latest[info.path] = info
    return latest


def _read_live(infos: Reader) -> dict[Path, Any]:
    """The latest info of each file, shown as it comes: the newest rows that fit the terminal
    above a progress bar, in a live view that is cleared at the end."""
    from rich.console import Console, Group
    from rich.live import Live
    from rich.progress import Progress

    console = Console()
    latest: dict[Path, Any] = {}
    progress = Progress(console=console)
    task = progress.add_task("Reading sessions", total=None)

    def view() -> Group:
        shown = newest_first(list(latest.values()))[: max(1, console.height - 4)]
        return Group(session_table(shown, console.width), progress)

    def advance(done: int, total: int) -> None:
        progress.update(task, completed=done, total=total)

    with Live(
        get_renderable=view,
        console=console,
        transient=True,
        refresh_per_second=LIVE_REFRESH,
        vertical_overflow="crop",
    ) as live:
        for info in infos(advance):
            first = not latest
            latest[info.path] = info
            if first:
                live.refresh()
    return latest


COLUMN_NAMES = ("agent", "project", "updated", "turns", "tokens", "size", "path")


def tab_lines(infos: list[Any]) -> list[str]:
    """The header and one tab-separated line per info, every field whole and on one line."""
    from klipui.session.display import clean_line

    lines = ["\t".join(("title", *COLUMN_NAMES))]
    for info in infos:
        row = _cells(info, True, whole=True)
        title = _title_cell(info).plain
        fields = [title, *(row[name] for name in COLUMN_NAMES)]
        lines.append("\t".join(clean_line(f).replace("\t", " ") for f in fields))
    return lines


def session_table(infos: list[Any], width: int) -> Any:
    """A rich table of `infos` for a terminal `width` columns wide: the title takes the room
    left by the other columns, which are dropped (least useful first) rather than leave the
    title fewer than `MIN_TITLE` columns; a long path folds onto more lines."""
    from rich.cells import cell_len
    from rich.table import Table
    from rich.text import Text

    rows = [_cells(info, width >= WIDE) for info in infos]
    names = list(COLUMN_NAMES)

    def room(name: str) -> int:
        widest = max([len(name), *(cell_len(row[name]) for row in rows)])
        return min(widest, PATH_ROOM if name == "path" else widest) + 2

    for name in DROP_ORDER:
        if width - sum(room(n) for n in names) >= MIN_TITLE:
            break
        names.remove(name)
    widest_path = max([4, *(cell_len(row["path"]) for row in rows)])
    others = sum(room(n) for n in names if n != "path")
    path_width = min(widest_path, max(PATH_ROOM, width - others - 2 - TITLE_WANT))
    table = Table(box=None, header_style="bold", pad_edge=False, expand=True)
    table.add_column("title", overflow="ellipsis", no_wrap=True, ratio=1, min_width=MIN_TITLE)
    for name in names:
        justify = "right" if name in ("turns", "tokens", "size") else "left"
        if name == "path":
            table.add_column(name, overflow="fold", min_width=path_width, max_width=path_width)
        else:
            table.add_column(name, no_wrap=True, overflow="ellipsis", justify=justify)
    for info, row in zip(infos, rows, strict=True):
        table.add_row(_title_cell(info), *(Text(row[name]) for name in names))
    return table


def _cells(info: Any, wide: bool, whole: bool = False) -> dict[str, str]:
    """The figures of one row, as text; `—` for what is not known; `whole`: nothing shortened
    (the full path too, where a terminal shows `~` for the home folder)."""
    from klipui.cli._render import human_count, human_size, human_time
    from klipui.session.display import clean_line

    approx = "" if info.exact else "~"
    project = clean_line(info.project or "")
    limit = 1_000_000 if whole else 20 if wide else 12
    return {
        "path": clean_line(str(info.path) if whole else _home_short(info.path)),
        "agent": clean_line((info.agent if wide else info.format) or UNKNOWN),
        "project": project if len(project) <= limit else project[: limit - 1] + "…",
        "updated": human_time(info.updated)[: None if wide else 10] or UNKNOWN,
        "turns": f"{approx}{info.turns}" if info.turns is not None else UNKNOWN,
        "tokens": f"{approx}{human_count(info.tokens)}" if info.tokens is not None else UNKNOWN,
        "size": human_size(info.bytes) if info.bytes or not info.problem else UNKNOWN,
    }


def _home_short(path: Path) -> str:
    """`path` with the home folder as `~` (what a shell expands back)."""
    home = str(Path.home())
    text = str(path)
    return "~" + text[len(home) :] if home != "/" and text.startswith(home + "/") else text


def _title_cell(info: Any) -> Any:
    """The title (one line, cut with `…`), or for a file that is not a readable session its
    name and the reason, whole (wrapped)."""
    from rich.text import Text

    from klipui.session.display import clean_line, display_title

    if info.problem:
        text = Text(f"⚠ {clean_line(info.path.name)}", style="red")
        text.append(f" — {clean_line(short_problem(info))}", style="dim")
        text.no_wrap, text.overflow = False, "fold"
        return text
    title = Text(clean_line(display_title(info)))
    if getattr(info, "archived", False):
        title = Text.assemble(("⌂ ", "bold cyan"), title)
    return title


def short_problem(info: Any) -> str:
    """The problem of an unreadable file without the file's own path: `line 3: …` when it
    names a line."""
    problem = str(info.problem)
    for prefix in (f"{info.path}:", f"{info.path.name}:"):
        if problem.startswith(prefix):
            rest = problem[len(prefix) :].lstrip()
            line, colon, reason = rest.partition(":")
            return f"line {line}:{reason}" if colon and line.isdigit() else rest
    return problem
