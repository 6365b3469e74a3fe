"""The `klipui` command line: `klipui [PATH...]` opens the app, subcommands do the rest.

Each subcommand lives in its own module in this package and exposes
`register(subparsers: argparse._SubParsersAction) -> None`, which adds its parser and sets
`func=<callable(args) -> int>` as a default. Modules import their heavy dependencies inside the
command function so that `klipui --help` stays fast, and a run of one subcommand imports only
that subcommand's module (`klipui hook` is run once per tool result by agents).
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import os
import re
import sys
from collections.abc import Sequence

from klipui import __version__


class UsageError(Exception):
    """A command line that cannot be carried out as written (exit 2)."""


class InputError(Exception):
    """An input that does not exist or cannot be read (exit 1, as everywhere)."""


_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")


def unknown_command(argument: str, commands: Sequence[str]) -> str | None:
    """The complaint for a first argument that looks like a mistyped subcommand (a plain word
    that names no existing path), else None."""
    if not _WORD.fullmatch(argument) or os.path.lexists(argument):
        return None
    close = difflib.get_close_matches(argument, commands, n=2, cutoff=0.6)
    if close:
        return f"unknown command {argument!r}; did you mean {' or '.join(close)}?"
    return (
        f"unknown command {argument!r} (commands: {', '.join(commands)}); "
        f"to open a file of that name, write ./{argument}"
    )


def command_names() -> list[str]:
    """The subcommands: the public modules of this package, by name."""
    names = (entry[:-3] for entry in os.listdir(__path__[0]) if entry.endswith(".py"))
    return sorted(name for name in names if name.isidentifier() and not name.startswith("_"))


def build_parser(
    only: str | None = None,
) -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The parser, and its subcommands' parsers by name (with `only`, that subcommand alone is
    registered, so that only its module is imported)."""
    parser = argparse.ArgumentParser(
        prog="klipui",
        description="Browse, shrink and clip coding-agent sessions.",
    )
    parser.add_argument("--version", action="version", version=f"klipui {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in [only] if only else command_names():
        importlib.import_module(f"{__name__}.{name}").register(subparsers)
    return parser, dict(subparsers.choices)


def _parse(
    parser: argparse.ArgumentParser,
    subcommands: dict[str, argparse.ArgumentParser],
    args_list: list[str],
) -> argparse.Namespace:
    """The parsed arguments; options may sit between a subcommand's positional arguments
    (`klipui search WORD --limit 3 PATH`), which plain `parse_args` refuses."""
    sub = subcommands.get(args_list[0])
    if sub is None:
        return parser.parse_args(args_list)
    try:
        args = sub.parse_intermixed_args(args_list[1:])
    except TypeError:
        return parser.parse_args(args_list)
    args.command = args_list[0]
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    commands = command_names()
    if not args_list or args_list[0] not in {*commands, "-h", "--help", "--version"}:
        complaint = unknown_command(args_list[0], commands) if args_list else None
        if complaint:
            print(f"klipui: {complaint}", file=sys.stderr)
            return 2
        args_list = ["app", *args_list]
    parser, subcommands = build_parser(args_list[0] if args_list[0] in commands else None)
    args = _parse(parser, subcommands, args_list)
    try:
        return int(args.func(args) or 0)
    except UsageError as error:
        from klipui.session.display import clean_text

        print(clean_text(f"klipui: {error}"), file=sys.stderr)
        return 2
    except InputError as error:
        print(f"klipui: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
