"""`klipui export SESSION --as anthropic|openai [-o FILE]`: a session as API-valid messages JSON.

Anthropic: `{"system"?, "messages": [...]}`; OpenAI: `{"messages": [...]}`. The messages are
merged, paired and sanitised (see `klipui.conversation.api`). Written to stdout, or to FILE
atomically (never over an existing file).
"""

from __future__ import annotations

import argparse
import sys

from klipui.cli._output import add_parents_flag, output_problem

SHAPES = ("anthropic", "openai")
MAX_WARNINGS = 5


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
    add_parents_flag(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    import orjson

    from klipui.cli._render import LazyProgress
    from klipui.conversation.api import anthropic_request, openai_request
    from klipui.conversation.tokens import estimate_tokens
    from klipui.conversation.walk import message_text
    from klipui.session import SessionError, open_session
    from klipui.session.jsonl import write_new

    if args.output and (problem := output_problem(args.output, args.parents)):
        print(f"klipui: {problem}", file=sys.stderr)
        return 1
    if args.output and Path(args.output).exists():
        print(f"klipui: {args.output}: already exists (not overwritten)", file=sys.stderr)
        return 1
    with LazyProgress(f"Exporting {Path(args.session).name}") as progress:
        progress(0, 3)
        try:
            session = open_session(args.session)
        except SessionError as error:
            print(f"klipui: {error}", file=sys.stderr)
            return 1
        progress(1, 3)
        build = anthropic_request if args.shape == "anthropic" else openai_request
        request = build(session)
        payload = orjson.dumps(request, option=orjson.OPT_INDENT_2)
        progress(2, 3)
    for problem in session.problems[:MAX_WARNINGS]:
        print(f"klipui: warning: {problem}", file=sys.stderr)
    if not request["messages"]:
        print(f"klipui: {session.path}: no messages to export", file=sys.stderr)
        return 1
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
    tokens = sum(estimate_tokens(message_text(m)) for m in request["messages"])
    print(f"klipui: wrote {count} messages (~{tokens:,} tokens) to {args.output}", file=sys.stderr)
    return 0
