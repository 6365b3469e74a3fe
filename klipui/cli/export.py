"""`klipui export SESSION --as anthropic|openai [-o FILE]`: a session as API-valid messages JSON.

Anthropic: `{"system"?, "messages": [...]}`; OpenAI: `{"messages": [...]}`. The messages are
merged, paired and sanitised (see `klipui.conversation.api`). Written to stdout, or to FILE
atomically (never over an existing file).
"""

from __future__ import annotations

import argparse
import sys

SHAPES = ("anthropic", "openai")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export",
        help="write a session as API messages JSON (Anthropic or OpenAI shape)",
        description=(
            "Write a session's conversation as the messages JSON of an API request: consecutive "
            "same-role messages merged, every tool call followed by its result, base64 blobs "
            "and binary replaced by placeholders."
        ),
    )
    parser.add_argument("session", metavar="SESSION", help="a session file (any supported format)")
    parser.add_argument(
        "--as", dest="shape", choices=SHAPES, required=True, help="the API shape to write"
    )
    parser.add_argument(
        "-o", "--output", metavar="FILE", help="write to FILE (a new file) instead of stdout"
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    import orjson

    from klipui.conversation.api import anthropic_request, openai_request
    from klipui.session import SessionError, open_session
    from klipui.session.jsonl import write_new

    if args.output and Path(args.output).exists():
        print(f"klipui: {args.output}: already exists (not overwritten)", file=sys.stderr)
        return 1
    try:
        session = open_session(args.session)
    except SessionError as error:
        print(f"klipui: {error}", file=sys.stderr)
        return 1
    request = anthropic_request(session) if args.shape == "anthropic" else openai_request(session)
    if not request["messages"]:
        print(f"klipui: {session.path}: no messages to export", file=sys.stderr)
        return 1
    payload = orjson.dumps(request, option=orjson.OPT_INDENT_2)
    if not args.output:
        sys.stdout.buffer.write(payload + b"\n")
        sys.stdout.flush()
        return 0
    try:
        write_new(args.output, [payload])
    except FileExistsError:
        print(f"klipui: {args.output}: already exists (not overwritten)", file=sys.stderr)
        return 1
    except OSError as error:
        print(f"klipui: {args.output}: {error.strerror or error}", file=sys.stderr)
        return 1
    count = len(request["messages"])
    print(f"klipui: wrote {count} messages to {args.output}", file=sys.stderr)
    return 0
