"""`klipui hook`: the agent hook as a JSON-lines filter (one tool result a line in, one out).

An agent waits for the reply to each line, so the filter never stops early: every input line
gets exactly one reply line, in order, until stdin ends. A line that cannot be handled (not JSON,
not an object, wrong field types, too deeply nested, any failure while shrinking) is written back
unchanged, byte for byte, with one line on stderr. A bad setting (flag or config file) is
reported on stderr once; every line then passes through unchanged and the exit status is 2.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from klipui.redact import Redactor


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "hook",
        help="shrink agent tool results: JSON lines on stdin, JSON lines on stdout",
        description=(
            "Read one tool result a line ({llm_content | llmContent, is_error, truncated,"
            " output_path, tool, command, path, query, exit_code}); write it back shrunk when"
            " over the limits, with truncated and output_path set. Settings: [shrink] in"
            " ~/.config/klipui/config.toml, then ./.klipui.toml, then these options."
        ),
    )
    parser.add_argument(
        "--max-chars",
        type=int,
        metavar="N",
        help="shrink a result longer than N characters (0: no limit; default 50000)",
    )
    parser.add_argument(
        "--max-lines",
        type=int,
        metavar="N",
        help="shrink a result of more than N lines (0: no limit; default 2000)",
    )
    parser.add_argument(
        "--max-line-chars",
        type=int,
        metavar="N",
        help="cut each kept line to N characters (0: no limit, the default)",
    )
    parser.add_argument(
        "--shrink-errors",
        action="store_true",
        default=None,
        help="shrink failed results too (default: pass them through untouched)",
    )
    parser.add_argument(
        "--spill-dir", metavar="DIR", help="keep the full originals here (default: user data dir)"
    )
    parser.add_argument(
        "--no-spill", action="store_true", help="keep no original (the shrunk text has no locator)"
    )
    parser.add_argument("--no-truncation", action="store_true", help="pass everything through")
    parser.add_argument(
        "--redact",
        action="store_true",
        default=None,
        help="replace secrets in each result's text by placeholders (config: redact = true)",
    )
    parser.add_argument("--project", metavar="DIR", help="folder holding .klipui.toml (default: .)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import logging
    import sys

    from klipui.shrink.hook import ConfigError, HookConfig, load_config, reply
    from klipui.shrink.pipeline import MIN_CHARS

    logging.basicConfig(level=logging.WARNING, format="klipui hook: %(message)s", stream=sys.stderr)
    config, problem = HookConfig(truncation=False), ""
    for flag, value in (
        ("--max-chars", args.max_chars),
        ("--max-lines", args.max_lines),
        ("--max-line-chars", args.max_line_chars),
    ):
        if value is not None and value < 0:
            problem = problem or f"{flag} must be 0 (no limit) or positive"
    if args.max_chars is not None and 0 < args.max_chars < MIN_CHARS:
        problem = problem or f"--max-chars must be 0 (no limit) or at least {MIN_CHARS}"
    overrides = {
        "max_chars": args.max_chars,
        "max_lines": args.max_lines,
        "max_line_chars": args.max_line_chars,
        "shrink_errors": args.shrink_errors,
        "spill_dir": args.spill_dir,
        "spill": False if args.no_spill else None,
        "truncation": False if args.no_truncation else None,
        "redact": args.redact,
    }
    if not problem:
        try:
            config = load_config(args.project, overrides)
        except ConfigError as error:
            problem = str(error)
    if problem:
        print(f"klipui hook: {problem}; passing every line through unchanged", file=sys.stderr)
        sys.stderr.flush()
    stdout = sys.stdout.buffer
    redactor = None
    if config.redact and not problem:
        from klipui.redact import Redactor

        redactor = Redactor()
    for number, raw in enumerate(sys.stdin.buffer, 1):
        body = raw.rstrip(b"\r\n") if raw.endswith(b"\n") else raw
        out = body
        if body.strip() and (config.truncation or redactor):
            try:
                if redactor is not None:
                    body = out = redact_record(body, redactor)
                if config.truncation:
                    out = reply(body.decode("utf-8", "replace"), config)
            except Exception as error:  # every line gets a reply, whatever went wrong
                why = "".join(c if c.isprintable() else "?" for c in str(error)[:200])
                print(
                    f"klipui hook: stdin line {number}: {why or type(error).__name__};"
                    " passed through unchanged",
                    file=sys.stderr,
                )
                sys.stderr.flush()
                out = body
        stdout.write(out + b"\n")
        stdout.flush()
    return 2 if problem else 0


def redact_record(body: bytes, redactor: Redactor) -> bytes:
    """The record with the text of its `llm_content` / `llmContent` redacted (the same bytes
    when there was nothing to redact)."""
    import json

    record = json.loads(body)
    if not isinstance(record, dict):
        return body
    before = redactor.total
    for key in ("llm_content", "llmContent"):
        if key in record:
            record[key] = redactor.redact_json(record[key])
    if redactor.total == before:
        return body
    return json.dumps(record, ensure_ascii=False).encode("utf-8", "replace")
