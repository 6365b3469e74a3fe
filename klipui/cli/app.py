"""`klipui [PATH...]` / `klipui app`: open the Textual app."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "app", help="open the app on PATHs, else on discovered sessions, else the demo (default)"
    )
    parser.add_argument("paths", nargs="*", metavar="PATH", help="session files, folders or globs")
    parser.add_argument("--demo", action="store_true", help="open the bundled demo sessions")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from klipui.app import run_app

    return run_app(args.paths, demo=args.demo)
