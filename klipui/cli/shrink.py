"""`klipui shrink [FILE|-]`: shrink a tool output to a budget, keeping what its shape says."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from klipui.cli import InputError, UsageError
from klipui.cli._notice import progress

DEFAULT_CHARS = 50_000
DEFAULT_LINES = 2_000
BINARY_PROBE = 8192
"""Bytes looked at in each of three places (start, middle, end) to tell binary from text."""
BINARY_SHARE = 0.05
"""Input is binary when more than this share of the probed bytes are NULs or control bytes."""
MAX_INPUT = 512 << 20
"""Bytes of input read at most (more is refused with one line: `/dev/zero` never ends)."""
_CONTROL = bytes(c for c in range(32) if chr(c) not in "\t\n\r\f\v\b\x1b") + b"\x7f"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "shrink",
        help="shrink a tool output (file or stdin) to a budget, shape-aware",
        description=(
            "Shrink a big tool output to a budget: recognise its shape (tests, diff, build, json,"
            " ...), keep the lines that matter, count every omission, save the original."
            " The budget is 50,000 characters and 2,000 lines unless --max-chars or --max-lines"
            " say otherwise (each on its own; 0 means no limit). Lines are kept whole unless"
            " --max-line-chars caps them."
        ),
    )
    parser.add_argument("file", nargs="?", default="-", metavar="FILE", help="input (- = stdin)")
    parser.add_argument(
        "--max-chars",
        type=int,
        default=DEFAULT_CHARS,
        metavar="N",
        help=f"budget in characters, footer included (default {DEFAULT_CHARS:,}; 0: none)",
    )
    parser.add_argument(
        "--max-lines",
        type=int,
        default=DEFAULT_LINES,
        metavar="N",
        help=f"budget in lines, footer included (default {DEFAULT_LINES:,}; 0: none)",
    )
    parser.add_argument(
        "--max-line-chars",
        type=int,
        default=0,
        metavar="N",
        help="cut lines longer than N characters (default 0: lines are never cut)",
    )
    parser.add_argument("--tool", metavar="T", help="the tool that produced it (bash, grep, read)")
    parser.add_argument("--command", metavar="C", help="the command that produced it")
    parser.add_argument("--path", metavar="P", help="the file it was read from")
    parser.add_argument("--query", metavar="Q", help="the current goal, for the semantic reducer")
    parser.add_argument("--exit-code", type=int, metavar="N", help="the command's exit code")
    parser.add_argument("--only", metavar="A,B", help="try only these reducers, in this order")
    parser.add_argument("--disable", metavar="X,Y", help="skip these reducers")
    parser.add_argument("--reducers", metavar="DIR", help="a folder of extra reducer modules")
    spill = parser.add_mutually_exclusive_group()
    spill.add_argument("--spill-dir", metavar="D", help="where the original is saved")
    spill.add_argument("--no-spill", action="store_true", help="do not save the original")
    parser.add_argument("--json", action="store_true", help="print the whole result as JSON")
    parser.set_defaults(func=run)


def _names(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [name.strip() for name in value.split(",") if name.strip()]


def _read(source: str) -> tuple[bytes, str]:
    from klipui.session.files import read_capped

    if source == "-":
        try:
            return read_capped(sys.stdin.buffer, MAX_INPUT, "stdin"), "stdin"
        except OSError as error:
            raise UsageError(f"stdin: {error.strerror or error}") from None
    path = Path(source)
    try:
        with path.open("rb") as handle:
            return read_capped(handle, MAX_INPUT, source), str(path)
    except IsADirectoryError:
        raise InputError(f"{path}: is a folder, not a file") from None
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as error:
        raise InputError(f"{path}: {error.strerror or error}") from None


def binary_share(data: bytes) -> float:
    """Share of NUL and control bytes (not tab, newlines, form feed, backspace or escape) in the
    start, middle and end of `data`: a stray NUL in a log is text, a high share is binary."""
    if len(data) <= 3 * BINARY_PROBE:
        probe = data
    else:
        middle = len(data) // 2
        probe = b"".join(
            (
                data[:BINARY_PROBE],
                data[middle : middle + BINARY_PROBE],
                data[-BINARY_PROBE:],
            )
        )
    if not probe:
        return 0.0
    return (len(probe) - len(probe.translate(None, _CONTROL))) / len(probe)


def _check_names(names: list[str] | None, known: set[str], option: str) -> None:
    unknown = sorted(set(names or ()) - known)
    if unknown:
        raise UsageError(
            f"{option}: unknown reducer {', '.join(unknown)} (known: {', '.join(sorted(known))})"
        )


def run(args: argparse.Namespace) -> int:
    from klipui.session.display import clean_text
    from klipui.shrink import Budget, FileSpillStore, Hint, builtin_reducers, load_reducers, shrink
    from klipui.shrink.encoding import decode_wide, wide_encoding
    from klipui.shrink.pipeline import MIN_CHARS

    max_chars, max_lines = args.max_chars, args.max_lines
    if max_chars < 0 or max_lines < 0 or args.max_line_chars < 0:
        raise UsageError("budgets must be 0 (no limit) or positive")
    if 0 < max_chars < MIN_CHARS:
        raise UsageError(f"--max-chars must be 0 (no limit) or at least {MIN_CHARS}")
    extra: list[Any] = []
    if args.reducers:
        try:
            extra = load_reducers(args.reducers)
        except ValueError as error:
            raise UsageError(f"--reducers: {error}") from None
    known = {m.name for m in builtin_reducers()} | {m.name for m in extra}
    only, disable = _names(args.only), _names(args.disable)
    _check_names(only, known, "--only")
    _check_names(disable, known, "--disable")

    data, origin = _read(args.file)
    wide = wide_encoding(data)
    share = 0.0 if wide else binary_share(data)
    if share > BINARY_SHARE:
        print(
            f"klipui: {origin}: looks like binary data ({share:.0%} of the bytes probed are"
            " NULs or control bytes); not shrunk",
            file=sys.stderr,
        )
        return 1
    nuls = 0 if wide else data.count(b"\0")
    if nuls:
        print(
            f"klipui: warning: {origin}: {nuls:,} NUL byte{'s' if nuls != 1 else ''},"
            " treated as characters",
            file=sys.stderr,
        )
    try:
        text = decode_wide(data, wide) if wide else data.decode("utf-8")
    except UnicodeDecodeError as error:
        text = data.decode("utf-8", "surrogateescape")
        print(
            f"klipui: warning: {origin}: not valid UTF-8 (byte {error.start}); "
            "undecodable bytes are kept as they are",
            file=sys.stderr,
        )
    store = None if args.no_spill else FileSpillStore(args.spill_dir)
    hint = Hint(args.tool, args.command, args.path, args.query, args.exit_code)
    with progress(f"shrinking {len(data) / 1e6:.1f} MB from {origin} ...", terminal_only=True):
        result = shrink(
            text,
            hint,
            Budget(max_chars, max_lines, args.max_line_chars),
            spill=store,
            only=only,
            disable=disable,
            extra=extra,
        )
    if result.spill_error:
        where = store.dir if store is not None else "the spill folder"
        print(
            f"klipui: warning: the original could not be saved in {where}"
            f" ({result.spill_error}); the output is shrunk and nothing else holds the rest",
            file=sys.stderr,
        )
    if result.reduced and not result.stats.kept_lines and not args.json:
        print(f"klipui: note: {result.note}", file=sys.stderr)
    out = sys.stdout.buffer
    if args.json:
        import json

        record = {
            "content": result.content,
            "reduced": result.reduced,
            "strategy": result.strategy,
            "note": result.note,
            "locator": result.locator,
            "spill_error": result.spill_error or None,
            "stats": {
                "input_chars": result.stats.input_chars,
                "input_lines": result.stats.input_lines,
                "output_chars": result.stats.output_chars,
                "output_lines": result.stats.output_lines,
                "kept_lines": result.stats.kept_lines,
                "dropped_lines": result.stats.dropped_lines,
            },
            "kept": [list(span) for span in result.kept],
        }
        payload = json.dumps(record, ensure_ascii=True) + "\n"
        out.write(payload.encode("ascii"))
    else:
        content = result.content
        if sys.stdout.isatty():  # a filter passes bytes on; a terminal is not acted on
            content = clean_text(content)
        if content and not content.endswith("\n"):
            content += "\n"
        out.write(content.encode("utf-8", "surrogateescape"))
    out.flush()
    return 0
