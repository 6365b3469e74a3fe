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

    from klipui.cli._notice import fail, say
    from klipui.cli._render import LazyProgress, terminal_safe_json
    from klipui.conversation.api import anthropic_request, openai_request
    from klipui.conversation.tokens import estimate_tokens
    from klipui.conversation.walk import message_text
    from klipui.session import SessionError, open_session
    from klipui.session.formats._values import dumps_json
    from klipui.session.jsonl import write_new

    if args.output and (problem := output_problem(args.output, args.parents)):
        print(f"klipui: {problem}", file=sys.stderr)
        return 1
    if args.output and Path(args.output).exists():
        return fail(f"{args.output}: already exists (not overwritten)")
    with LazyProgress(f"Exporting {Path(args.session).name}") as progress:
        progress(0, 3)
        try:
            session = open_session(args.session)
        except SessionError as error:
            return fail(str(error))
        progress(1, 3)
        build = anthropic_request if args.shape == "anthropic" else openai_request
        request = build(session)
        try:
            payload = dumps_json(request, indent=True)
        except ValueError as error:
            return fail(f"{session.path}: cannot write the messages: {error}")
        progress(2, 3)
    for problem in session.problems[:MAX_WARNINGS]:
        say(f"klipui: warning: {problem}", sys.stderr)
    if not request["messages"]:
        return fail(f"{session.path}: no messages to export")
    if not args.output:
        sys.stdout.buffer.write(terminal_safe_json(payload) + b"\n")
        sys.stdout.flush()
        return 0
    try:
        write_new(args.output, [payload])
    except FileExistsError:
        return fail(f"{args.output}: already exists (not overwritten)")
    except OSError as error:
        return fail(f"{args.output}: {error.strerror or error}")
    count = len(request["messages"])
    tokens = sum(estimate_tokens(message_text(m)) for m in request["messages"])
    say(f"klipui: wrote {count} messages (~{tokens:,} tokens) to {args.output}", sys.stderr)
    return 0
