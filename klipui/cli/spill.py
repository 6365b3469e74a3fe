"""`klipui spill show LOCATOR | ls | prune`: the originals saved by `klipui shrink` and the hook."""

from __future__ import annotations

import argparse
import sys
import time

from klipui.cli import UsageError


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "spill", help="show, list or prune the full originals of shrunk outputs"
    )
    parser.add_argument("--spill-dir", metavar="D", help="the spill folder (default: user data)")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    show = actions.add_parser(
        "show", help="print an original byte for byte (on a terminal, cleaned of escape sequences)"
    )
    show.add_argument("locator", metavar="LOCATOR", help="spill:<tool>-<hash>")
    actions.add_parser("ls", help="list saved originals, newest first")
    prune = actions.add_parser("prune", help="delete originals older than --max-age-hours")
    prune.add_argument("--max-age-hours", type=float, default=24.0, metavar="H")
    parser.set_defaults(func=run)


def _age(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f}s"
    if seconds < 7200:
        return f"{seconds / 60:.0f}m"
    if seconds < 172800:
        return f"{seconds / 3600:.0f}h"
    return f"{seconds / 86400:.0f}d"


def run(args: argparse.Namespace) -> int:
    from klipui.cli._notice import fail
    from klipui.session.display import clean_text
    from klipui.session.spilled import RefusedFile, read_regular
    from klipui.shrink.spill import FileSpillStore, SpillError

    if args.action == "show":
        store = FileSpillStore(args.spill_dir)
        try:
            path = store.path_for(args.locator)
        except SpillError as error:
            raise UsageError(str(error)) from None
        try:  # a regular file of the store only: never a FIFO, device or symlink out of it
            data, _, _ = read_regular(path.parent, path.name, sys.maxsize)
        except FileNotFoundError:
            return fail(f"no spill stored for: {args.locator} (in {store.dir})")
        except RefusedFile as error:
            return fail(f"{args.locator}: not followed: {error}")
        except OSError as error:
            return fail(f"{args.locator}: {error.strerror or error}")
        if sys.stdout.isatty():  # piped, the original goes on byte for byte
            text = clean_text(data.decode("utf-8", "surrogateescape"))
            data = text.encode("utf-8", "surrogateescape")
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return 0
    if args.action == "ls":
        store = FileSpillStore(args.spill_dir)
        now = time.time()
        entries = store.entries()
        for entry in entries:
            print(f"{entry.locator:40} {entry.size:>12,} bytes  {_age(now - entry.mtime):>5} ago")
        if not entries:
            print(f"no saved originals in {store.dir}", file=sys.stderr)
        return 0
    if args.max_age_hours < 0:
        raise UsageError("--max-age-hours must be >= 0")
    store = FileSpillStore(args.spill_dir, max_age=args.max_age_hours * 3600)
    removed = store.prune()
    print(f"removed {removed} original{'s' if removed != 1 else ''} from {store.dir}")
    return 0
