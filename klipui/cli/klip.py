"""`klipui klip SESSION "1..3,7"`: write a child session holding the selected turns.

Prints the turns kept (old → new), the events the cascade dropped with the rule that dropped
each, the validation result, what the child writer repaired or adjusted, and the path written.
Exit 1 with a one-line reason when the session cannot be read, the selection is unreadable
(with a caret under the column) or keeps no turn, or the child is invalid or refused by its
agent and `--force` was not given.

The selection picks among the turns that ended, whatever the reason; turns that did not complete
(aborted, interrupted, error, max-tokens — what `show` and the turn list mark "not completed")
are kept as they ended and listed. A last turn that never ended is left out unless
`--include-unfinished`.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from klipui.cli._notice import fail, progress, say
from klipui.cli._output import add_parents_flag, output_problem

SHOWN = 20
"""Dropped events and violations listed before "… N more"."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "klip",
        help="write a child session holding the selected turns",
        description=(
            "Clip SESSION to the turns of SELECTION (e.g. '1..3, 7', '-5..', '.., not 2') and "
            "write the child next to it, in the same format, never over an existing file."
        ),
    )
    # Selections may start with a minus ("-5..", "-3..-1"): read any "-<digit>..." argument as
    # a value, not an option (argparse only does so for plain negative numbers).
    parser._negative_number_matcher = re.compile(r"^-\d")
    parser.add_argument("session", metavar="SESSION", help="a session file")
    parser.add_argument("selection", metavar="SELECTION", help='turns to keep, e.g. "1..3, 7"')
    parser.add_argument("--dry-run", action="store_true", help="report only; write nothing")
    parser.add_argument("-o", "--output", metavar="PATH", help="write the child here instead")
    add_parents_flag(parser)
    parser.add_argument("--rules", metavar="FILE", help="extra rule cells (TOML) for the clip")
    parser.add_argument(
        "--force", action="store_true", help="write even an invalid or refused child"
    )
    parser.add_argument(
        "--include-unfinished",
        action="store_true",
        help="let the selection reach the last turn(s) that never ended (the child ends mid-turn, "
        "as a crashed session does)",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument(
        "--redact",
        action="store_true",
        help="replace secrets in the child's texts by placeholders (ids and structure kept)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from klipui.klip.child import ClipError, plan_child, write_child
    from klipui.klip.interval import KIntervalError, parse_interval
    from klipui.klip.rules import RulesError

    if args.output and (problem := output_problem(args.output, args.parents)):
        return fail(problem)
    try:
        selection = parse_interval(args.selection)
    except KIntervalError as error:
        caret = "\n".join(error.render().splitlines()[:2])
        return fail(f"invalid selection (column {error.column}): {error.message}\n{caret}")
    try:
        with progress(f"clipping {args.session}…"):
            plan = plan_child(
                args.session,
                selection,
                rules=args.rules,
                out=args.output,
                include_unfinished=args.include_unfinished,
            )
    except (ClipError, RulesError) as error:
        for warning in getattr(error, "warnings", []):
            say(f"klipui: warning: {warning}", sys.stderr)
        return fail(str(error))
    if args.redact:
        redact_plan(plan)
    refused = None
    if not args.dry_run:
        try:
            with progress(f"writing {plan.path}…"):
                write_child(plan, force=args.force)
        except ClipError as error:
            refused = str(error)
    if args.json:
        from klipui.cli._render import print_json

        print_json({**plan.to_dict(), "error": refused})
    else:
        print_report(plan, args.dry_run)
    if refused:
        return fail(refused)
    return 0


def redact_plan(plan: Any) -> int:
    """Redact the string contents of the planned child's records (a note says how many);
    returns the number of secrets replaced."""
    from klipui.redact import Redactor, redact_lines

    redactor = Redactor()
    plan.lines, changed = redact_lines(plan.lines, redactor)
    kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(redactor.found.items()))
    plan.notes.append(
        f"redacted {redactor.total} secrets in {changed} records" + (f" ({kinds})" if kinds else "")
    )
    return redactor.total


def turn_runs(turns: dict[int, int]) -> str:
    """`1→1, 3..5→2..4`: the turn map with runs collapsed."""
    runs: list[list[int]] = []
    for old, new in turns.items():
        if runs and old == runs[-1][1] + 1 and new == runs[-1][3] + 1:
            runs[-1][1], runs[-1][3] = old, new
        else:
            runs.append([old, old, new, new])
    return ", ".join(f"{a}→{c}" if a == b else f"{a}..{b}→{c}..{d}" for a, b, c, d in runs)


def print_report(plan: Any, dry_run: bool) -> None:
    """The clip report as text."""
    kept = len(plan.turns)
    say(
        f"{plan.source} ({plan.format}): selection {plan.selection!r} keeps {kept} of "
        f"{plan.turn_count} turns"
    )
    for warning in plan.warnings:
        say(f"  warning: {warning}")
    done = kept - len(plan.unfinished)
    if plan.unfinished:
        listed = ", ".join(f"{t} {how}" for t, how in list(plan.unfinished.items())[:SHOWN])
        more = f", … {len(plan.unfinished) - SHOWN} more" if len(plan.unfinished) > SHOWN else ""
        print(
            f"  {done} completed; {len(plan.unfinished)} did not complete and are kept as they "
            f"ended: {listed}{more}"
        )
    else:
        print("  all of them completed")
    if plan.left_open:
        turns = ", ".join(str(t) for t in plan.left_open)
        print(
            f"  left out: turn {turns} never ended (still running, or stopped mid-turn); "
            "--include-unfinished keeps it"
        )
    print("turns kept (old → new): " + turn_runs(plan.turns))
    if plan.dropped:
        print(f"dropped by the rules ({len(plan.dropped)}):")
        for drop in plan.dropped[:SHOWN]:
            say(f"  {drop}")
        if len(plan.dropped) > SHOWN:
            print(f"  … {len(plan.dropped) - SHOWN} more")
    else:
        print("dropped by the rules: nothing")
    if plan.violations:
        print(f"validation: {len(plan.violations)} problem(s) new in the child:")
        for violation in plan.violations[:SHOWN]:
            say(f"  {violation}")
    else:
        print("validation: ok")
    if plan.inherited:
        count, first = len(plan.inherited), plan.inherited[0]
        say(f"  ({count} problem(s) inherited from the parent, e.g. {first})")
    for blocker in plan.blockers:
        say(f"agent: {blocker}")
    for note in plan.notes:
        say(f"note: {note}")
    size = f"{plan.kept_events} events, {len(plan.lines)} lines"
    if plan.written:
        say(f"written: {plan.path} ({size})")
    elif dry_run:
        say(f"would write: {plan.path} ({size}; dry run)")
    else:
        say(f"not written: {plan.path}")
