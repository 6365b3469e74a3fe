"""`klipui export SESSION --as markdown|html|anthropic|openai [...] [-o FILE]`.

Markdown and HTML: a readable transcript (`klipui.export`), of the turns `--turns` selects, at
the `--detail` asked, redacted with `--redact`. Anthropic: `{"system"?, "messages": [...]}`;
OpenAI: `{"messages": [...]}`; the messages are merged, paired and sanitised (see
`klipui.conversation.api`). Written to stdout, or to FILE atomically (never over an existing
file).
"""

from __future__ import annotations

import argparse
import sys

from klipui.cli._output import add_parents_flag, output_problem

SHAPES = ("anthropic", "openai")
DOCUMENTS = ("markdown", "html")
DETAILS = ("full", "no-thinking", "no-tools", "prompts")
MAX_WARNINGS = 5


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export",
        help="write a session as Markdown, HTML, or API messages JSON",
        description=(
            "Write a session as a readable Markdown or self-contained HTML transcript, or as "
            "the messages JSON of an API request (Anthropic or OpenAI shape: consecutive "
            "same-role messages merged, every tool call followed by its result, base64 blobs "
            "and binary replaced by placeholders)."
        ),
    )
    parser.add_argument("session", metavar="SESSION", help="a session file (any supported format)")
    parser.add_argument(
        "--as", dest="shape", choices=DOCUMENTS + SHAPES, required=True, help="what to write"
    )
    parser.add_argument(
        "--turns", metavar="SEL", help='the turns to export, e.g. "1..3, 7" (default: all)'
    )
    parser.add_argument(
        "--detail",
        choices=DETAILS,
        default="full",
        help="markdown/html: everything, no thinking, no tool calls, or prompts and answers only",
    )
    parser.add_argument(
        "--redact",
        action="store_true",
        help="replace secrets (API keys, tokens, passwords, private keys, ...) by placeholders",
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
    if args.shape in DOCUMENTS:
        return run_document(args)
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


def run_document(args: argparse.Namespace) -> int:
    """Export as Markdown or HTML."""
    from pathlib import Path

    from klipui.cli._notice import fail, say
    from klipui.cli._render import LazyProgress
    from klipui.export import export_text, write_export
    from klipui.klip import KIntervalError, parse_interval
    from klipui.redact import Redactor
    from klipui.session import SessionError, open_session
    from klipui.session.display import clean_text

    selection = None
    if args.turns is not None:
        try:
            selection = parse_interval(args.turns)
        except KIntervalError as error:
            return fail(f"invalid --turns (column {error.column}): {error.message}")
    with LazyProgress(f"Exporting {Path(args.session).name}") as progress:
        progress(0, 2)
        try:
            session = open_session(args.session)
        except SessionError as error:
            return fail(str(error))
        progress(1, 2)
        turns = selection.turns(len(session.turns)) if selection is not None else None
        if turns is not None and not turns:
            return fail(
                f"{session.path}: --turns {args.turns!r} selects none of its "
                f"{len(session.turns)} turns"
            )
        redactor = Redactor() if args.redact else None
        text = export_text(session, args.shape, turns=turns, detail=args.detail, redactor=redactor)
    for problem in session.problems[:MAX_WARNINGS]:
        say(f"klipui: warning: {problem}", sys.stderr)
    if not args.output:
        sys.stdout.write(clean_text(text) if args.shape == "markdown" else text)
        sys.stdout.flush()
    else:
        try:
            write_export(args.output, text)
        except FileExistsError:
            return fail(f"{args.output}: already exists (not overwritten)")
        except OSError as error:
            return fail(f"{args.output}: {error.strerror or error}")
        count = len(turns) if turns is not None else len(session.turns)
        say(f"klipui: wrote {count} turns as {args.shape} to {args.output}", sys.stderr)
    if redactor is not None:
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(redactor.found.items()))
        say(
            f"klipui: redacted {redactor.total} secrets" + (f" ({kinds})" if kinds else ""),
            sys.stderr,
        )
    return 0
