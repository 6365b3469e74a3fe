"""`klipui compact SESSION [--max-chars N]`: a child with every big tool result shrunk.

Each tool result longer than N characters is replaced by its shrunk text, which ends with a
spill locator for the full original (kept in the spill store, see `klipui spill`); nothing else
changes. Prints each result replaced and the token estimate before and after. When nothing
was shrunk no child is written (it would be a duplicate of the parent) unless `--force`.
"""

from __future__ import annotations

import argparse
import sys

from klipui.cli import UsageError
from klipui.cli._notice import fail, progress, say
from klipui.cli._output import add_parents_flag, output_problem
from klipui.labels import number, plural

DEFAULT_MAX_CHARS = 8_000
"""The engine's default (`klipui.klip.compact.DEFAULT_MAX_CHARS`, a test keeps them equal),
repeated here so that building the parser does not import the clip engine."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "compact",
        help="write a child session with every big tool result shrunk",
        description=(
            "Write a child of SESSION in which every tool result over --max-chars is replaced "
            "by its shrunk text and a spill locator for the original; nothing else changes."
        ),
    )
    parser.add_argument("session", metavar="SESSION", help="a session file")
    parser.add_argument(
        "--max-chars",
        type=int,
        default=DEFAULT_MAX_CHARS,
        metavar="N",
        help=f"shrink tool results longer than N characters (default {DEFAULT_MAX_CHARS})",
    )
    parser.add_argument("--spill-dir", metavar="DIR", help="keep the originals here")
    parser.add_argument("--dry-run", action="store_true", help="report only; write nothing")
    parser.add_argument("-o", "--output", metavar="PATH", help="write the child here instead")
    add_parents_flag(parser)
    parser.add_argument(
        "--force",
        action="store_true",
        help="write even an invalid or refused child, or one in which nothing was shrunk",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--redact",
        action="store_true",
        help="also replace secrets in the child's texts (config: redact = true under [shrink])",
    )
    parser.set_defaults(func=run)


def wants_redaction(flag: bool) -> bool:
    """`--redact`, or `redact = true` in the [shrink] settings (a bad settings file is warned
    about and read as false)."""
    if flag:
        return True
    from klipui.shrink.hook import ConfigError, load_config

    try:
        return load_config().redact
    except ConfigError as error:
        say(f"klipui: warning: {error}; not redacting", sys.stderr)
        return False


def run(args: argparse.Namespace) -> int:
    from klipui.cli._render import print_json
    from klipui.klip.child import ClipError, write_child
    from klipui.klip.compact import plan_compact
    from klipui.shrink.pipeline import MIN_CHARS
    from klipui.shrink.spill import DryRunSpillStore, FileSpillStore, SpillStore

    if args.max_chars < MIN_CHARS:
        raise UsageError(f"--max-chars must be at least {MIN_CHARS}")
    if args.output and (problem := output_problem(args.output, args.parents)):
        return fail(problem)
    store: SpillStore = FileSpillStore(args.spill_dir, max_age=float("inf"))
    if args.dry_run:
        store = DryRunSpillStore()  # the locators the originals would get; nothing written
    try:
        with progress(f"compacting {args.session}…"):
            compacted = plan_compact(
                args.session, max_chars=args.max_chars, spill=store, out=args.output
            )
    except ClipError as error:
        return fail(str(error))
    plan = compacted.plan
    redacted = False
    if wants_redaction(args.redact):
        from klipui.cli.klip import redact_plan

        redacted = redact_plan(plan) > 0
    refused = None
    useless = not compacted.replaced and not redacted and not args.force
    if not args.dry_run and not useless:
        try:
            write_child(plan, force=args.force)
        except ClipError as error:
            refused = str(error)
    if args.json:
        report = {**compacted.to_dict(), "error": refused}
        if useless:
            report["not_written"] = f"{compacted.nothing_shrunk()}; --force writes the child"
        print_json(report)
    else:
        over = plural(args.max_chars, "character")
        say(f"{plan.source} ({plan.format}): tool results over {over}")
        for item in compacted.replaced:
            say(
                f"  seq {item.seq} {item.tool}: {number(item.chars_before)} → "
                f"{plural(item.chars_after, 'char')} "
                f"({item.strategy}) {item.locator or '(original not saved)'}"
            )
        if not compacted.replaced:
            say(f"  none: {compacted.nothing_shrunk()}")
        for line in compacted.skipped:
            say(f"  skipped: {line}", sys.stderr)
        before, after = number(compacted.tokens_before), number(compacted.tokens_after)
        print(f"tokens: {before} → {after} (estimate)")
        if not useless:
            for blocker in plan.blockers:
                say(f"agent: {blocker}")
            for note in plan.notes:
                say(f"note: {note}")
        if plan.written:
            say(f"written: {plan.path}")
        elif useless:
            print("no child written: it would equal the parent but for its ids (--force writes it)")
        elif args.dry_run:
            say(f"would write: {plan.path} (dry run)")
    if refused:
        return fail(refused)
    return 0
