"""`klipui hook`: the agent hook as a JSON-lines filter (one tool result a line in, one out)."""

from __future__ import annotations

import argparse


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
    parser.add_argument("--project", metavar="DIR", help="folder holding .klipui.toml (default: .)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import json
    import logging
    import sys

    from klipui.cli import UsageError
    from klipui.shrink.hook import (
        ConfigError,
        apply_to_record,
        load_config,
        on_tool_result,
        result_from_record,
    )
    from klipui.shrink.pipeline import MIN_CHARS

    logging.basicConfig(level=logging.WARNING, format="klipui hook: %(message)s", stream=sys.stderr)
    for flag, value in (
        ("--max-chars", args.max_chars),
        ("--max-lines", args.max_lines),
        ("--max-line-chars", args.max_line_chars),
    ):
        if value is not None and value < 0:
            raise UsageError(f"{flag} must be 0 (no limit) or positive")
    if args.max_chars is not None and 0 < args.max_chars < MIN_CHARS:
        raise UsageError(f"--max-chars must be 0 (no limit) or at least {MIN_CHARS}")
    overrides = {
        "max_chars": args.max_chars,
        "max_lines": args.max_lines,
        "max_line_chars": args.max_line_chars,
        "shrink_errors": args.shrink_errors,
        "spill_dir": args.spill_dir,
        "spill": False if args.no_spill else None,
        "truncation": False if args.no_truncation else None,
    }
    try:
        config = load_config(args.project, overrides)
    except ConfigError as error:
        raise UsageError(str(error)) from error
    stdin = sys.stdin.buffer
    stdout = sys.stdout
    for number, raw in enumerate(stdin, 1):
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        if not line.strip():
            stdout.write("\n")
            continue
        try:
            record = json.loads(line)
            if not isinstance(record, dict):
                raise ConfigError("not a JSON object")
            result, camel = result_from_record(record)
            shrunk = on_tool_result(result, config)
            out = json.dumps(apply_to_record(record, shrunk, camel), ensure_ascii=False)
        except (ValueError, ConfigError) as error:
            print(f"klipui hook: stdin line {number}: {error}; passed through", file=sys.stderr)
            out = line
        stdout.write(out + "\n")
        stdout.flush()
    return 0
