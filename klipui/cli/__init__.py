"""The `klipui` command line: `klipui [PATH...]` opens the app, subcommands do the rest.

Each subcommand lives in its own module in this package and exposes
`register(subparsers: argparse._SubParsersAction) -> None`, which adds its parser and sets
`func=<callable(args) -> int>` as a default. Modules import their heavy dependencies inside the
command function so that `klipui --help` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

from klipui import __version__


class UsageError(Exception):
    """A command line that cannot be carried out as written (exit 2)."""


def build_parser() -> tuple[argparse.ArgumentParser, set[str]]:
    """The parser, and the names of its subcommands."""
    parser = argparse.ArgumentParser(
        prog="klipui",
        description="Browse, shrink and clip coding-agent sessions.",
    )
    parser.add_argument("--version", action="version", version=f"klipui {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if module_info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        module.register(subparsers)
    return parser, set(subparsers.choices)


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser, commands = build_parser()
    if not args_list or args_list[0] not in commands | {"-h", "--help", "--version"}:
        args_list = ["app", *args_list]
    args = parser.parse_args(args_list)
    try:
        return int(args.func(args) or 0)
    except UsageError as error:
        print(f"klipui: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
