"""`klipui archive [--to DIR] [--agents A,B] [--dry-run] [--json]`: keep every session safe.

Copies every agent's sessions, their sub-agent files and the originals kept beside them into
the archive folder (zstd, incremental), and says what it copied and what would be lost if the
agents deleted their files now. `--schedule cron|systemd` prints how to run it daily
(`--install` writes it, only when asked).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

SHOWN = 10
"""Copied files named in the text report (all of them with --json)."""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "archive",
        help="copy every agent's sessions into klipui's archive (incremental, zstd)",
        description=(
            "Copy every session of every agent (with sub-agent files and kept tool outputs) "
            "into an archive the agents cannot delete. Never changes the agents' folders."
        ),
    )
    parser.add_argument("--to", metavar="DIR", help="archive folder (default: user data folder)")
    parser.add_argument(
        "--agents",
        metavar="A,B",
        help="only these agents (claude, codex, pi, dsh), comma-separated",
    )
    parser.add_argument(
        "--dry-run", action="store_true", help="say what would be copied; write nothing"
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--quiet", action="store_true", help="print only problems (for cron)")
    parser.add_argument(
        "--schedule",
        choices=("cron", "systemd"),
        help="print a cron line or a systemd user timer that runs the archive daily",
    )
    parser.add_argument(
        "--install",
        action="store_true",
        help="with --schedule: write it for you (crontab or units)",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from klipui.archive import known_agents
    from klipui.cli import UsageError

    to = Path(args.to).expanduser() if args.to else None
    if args.install and not args.schedule:
        raise UsageError("--install goes with --schedule cron|systemd")
    if args.schedule:
        return _schedule(args.schedule, to, args.install)
    agents = None
    if args.agents:
        agents = [name.strip() for name in args.agents.split(",") if name.strip()]
        unknown = [name for name in agents if name not in known_agents()]
        if unknown:
            raise UsageError(f"unknown agent {unknown[0]!r} (agents: {', '.join(known_agents())})")
    if to is not None and to.exists() and not to.is_dir():
        raise UsageError(f"--to {args.to}: not a folder")
    return _archive(to, agents, args)


def _schedule(kind: str, to: Path | None, install: bool) -> int:
    from klipui.archive import install_cron, install_systemd, schedule_text
    from klipui.archive.schedule import UNIT
    from klipui.cli._notice import fail, say

    if not install:
        sys.stdout.write(schedule_text(kind, to))
        return 0
    try:
        if kind == "cron":
            say(f"added to your crontab:\n{install_cron(to)}")
            return 0
        for path in install_systemd(to):
            say(f"wrote {path}")
    except OSError as error:
        return fail(f"{error.filename or kind}: {error.strerror or error}")
    say(
        f"to start it: systemctl --user daemon-reload && systemctl --user enable --now {UNIT}.timer"
    )
    return 0


def _archive(to: Path | None, agents: list[str] | None, args: argparse.Namespace) -> int:
    from klipui.archive import ArchiveBusy, ArchiveInside, run_archive
    from klipui.cli import UsageError
    from klipui.cli._notice import fail
    from klipui.cli._render import LazyProgress

    try:
        if args.quiet or args.json:
            report = run_archive(to, agents=agents, dry_run=args.dry_run)
        else:
            with LazyProgress("Archiving sessions") as update:
                report = run_archive(
                    to,
                    agents=agents,
                    dry_run=args.dry_run,
                    on_progress=lambda done, total, _path: update(done, total),
                )
    except ArchiveInside as error:
        raise UsageError(f"--to {error.filename}: {error.strerror}") from None
    except ArchiveBusy as error:
        return fail(f"{error.filename}: {error.strerror}")
    except OSError as error:
        return fail(f"{error.filename or to}: {error.strerror or error}")
    if args.json:
        from klipui.cli._render import print_json

        print_json(report_dict(report))
    elif args.quiet:
        from klipui.cli._notice import say

        for problem in report.problems:
            say(f"klipui: {problem}", sys.stderr)
    else:
        _print_report(report)
    return 1 if report.states.get("failed") else 0


def report_dict(report: Any) -> dict[str, Any]:
    """The report as plain JSON values."""
    return {
        "archive": str(report.archive),
        "dry_run": report.dry_run,
        "files": dict(report.states),
        "sessions": dict(report.sessions),
        "copied": [
            {"path": str(path), "state": state, "bytes": size}
            for path, state, size in report.copied
        ],
        "copied_bytes": report.new_bytes,
        "written_bytes": report.written,
        "at_risk": [str(path) for path in report.at_risk],
        "at_risk_bytes": report.at_risk_bytes,
        "only_in_archive": sorted(report.gone),
        "held": {
            "files": report.held_files,
            "sessions": report.held_sessions,
            "source_bytes": report.held_source_bytes,
            "stored_bytes": report.held_stored_bytes,
        },
        "problems": report.problems,
        "seconds": round(report.seconds, 3),
    }


def _print_report(report: Any) -> None:
    from klipui.cli._notice import say
    from klipui.cli._render import human_size

    states = report.states
    verb = "would copy" if report.dry_run else "copied"
    changed = states["new"] + states["grown"] + states["rewritten"]
    say(f"archive: {report.archive}" + ("  (dry run: nothing written)" if report.dry_run else ""))
    say(
        f"{verb} {changed} files ({states['new']} new, {states['grown']} grown, "
        f"{states['rewritten']} rewritten; {report.sessions['new']} new sessions), "
        f"{human_size(report.new_bytes)}"
        + ("" if report.dry_run else f" → {human_size(report.written)} written")
        + f"; {states['unchanged']} unchanged"
    )
    for path, state, size in report.copied[:SHOWN]:
        say(f"  {state:<9} {human_size(size):>9}  {path}")
    if len(report.copied) > SHOWN:
        say(f"  … and {len(report.copied) - SHOWN} more (--json lists them all)")
    if report.held_files:
        ratio = report.held_source_bytes / max(1, report.held_stored_bytes)
        say(
            f"holds {report.held_sessions} sessions in {report.held_files} files: "
            f"{human_size(report.held_source_bytes)} as {human_size(report.held_stored_bytes)} "
            f"(×{ratio:.1f})"
        )
    if report.gone:
        say(f"{len(report.gone)} files exist only in the archive now (the agent deleted them)")
    if report.at_risk:
        say(
            f"if the agents deleted their files now, {len(report.at_risk)} files "
            f"({human_size(report.at_risk_bytes)}) would be lost"
        )
    else:
        say("if the agents deleted their files now, nothing would be lost")
    for problem in report.problems:
        say(f"klipui: {problem}", sys.stderr)
