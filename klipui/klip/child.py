"""Make and write a child session: the selected turns of a session, in the parent's own format.

The flow: the session is lowered to events (`open_session`), the reindexer keeps the selected
completed turns and cascades what their removal takes with it (`reindex_report`), the result is
validated (`validate`), the kept events are mapped back to the parent's native records through
`Event.origin`, and the format's child writer (`klipui.klip.children.<format>`) rewrites what a
new session needs: ids, parent links, header, title. The child is written atomically next to the
parent and never over an existing file.

A child is not written, unless forced, when it breaks a validation rule the parent did not
already break, or when the agent that owns the format would refuse it (`ChildPlan.blockers`,
e.g. a Claude Code file with only sidechain records, a Codex rollout without `session_meta`).
Certain repairs are made and reported in `ChildPlan.notes` (a dsh header without
`delegationDepth` gets `delegationDepth: 0`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from klipui.klip.children import ChildSource, child_title_text, title_for, writer
from klipui.klip.interval import KInterval, KIntervalError, parse_interval
from klipui.klip.reindex import Drop, reindex_report
from klipui.klip.rules import RuleTable, load_rules, rules_for_format
from klipui.klip.surface import Violation, validate
from klipui.session.model import Event, Session, SourceChanged


class ClipError(Exception):
    """A clip that cannot be made as asked; the message is one line naming the session.

    `warnings` holds what the selection's own warnings say (e.g. "did you mean 2..5?") when the
    selection is what kept nothing. `reason` is the message without the command-line remedy;
    `needs_unfinished` is true when planning with `include_unfinished` is the remedy."""

    def __init__(
        self,
        message: str,
        warnings: list[str] | None = None,
        *,
        reason: str | None = None,
        needs_unfinished: bool = False,
    ) -> None:
        super().__init__(message)
        self.warnings: list[str] = list(warnings or [])
        self.reason = reason or message
        self.needs_unfinished = needs_unfinished


@dataclass(slots=True)
class ChildPlan:
    """A child session made in memory, with everything the clip report shows."""

    source: Path
    format: str
    child_id: str
    path: Path
    selection: str
    """The selection in canonical form."""
    turn_count: int
    """Turns of the parent the selection could pick: those that ended (any reason), and with
    `include_unfinished` the ones after the last end too."""
    turns: dict[int, int]
    """Old turn number → new turn number."""
    completed: set[int]
    """The parent's turns that completed (their `turn/end` says "completed"): the same turns
    `Turn.completed` marks."""
    unfinished: dict[int, str]
    """Kept turns that did not complete → how they ended ("aborted", "interrupted", "error",
    "max-tokens", …, or "open": never ended). They are kept as they are."""
    left_open: list[int]
    """Turns after the parent's last ended turn, never ended, so not selectable (unless
    `include_unfinished`)."""
    dropped: list[Drop]
    """Events of selected turns removed by a rule (skips and the reference cascade)."""
    violations: list[Violation]
    """Validation failures new in the child (the parent did not have them)."""
    inherited: list[Violation]
    """Validation failures the parent already had."""
    blockers: list[str]
    """Why the owning agent would refuse or hang on this child."""
    notes: list[str]
    """Repairs and record-level adjustments made."""
    warnings: list[str]
    """Clauses of the selection that select nothing, then what the agent will not show of the
    child (the writer's warnings)."""
    lines: list[bytes] = field(repr=False)
    compression: str | None
    title: str | None
    """The title the child is written with, without its "KLIP " prefix (`child_title` has the
    whole text); None when the format stores no title (Codex, generic messages)."""
    kept_events: int
    kept_records: int
    mode: int | None = None
    """Permission bits the child is written with (the parent's; None: the umask's default)."""
    written: bool = False

    @property
    def child_title(self) -> str | None:
        """The child's title exactly as written ("KLIP <title>"), None when the format stores
        none (its agent shows the first prompt instead)."""
        return child_title_text(self.title) if self.title is not None else None

    @property
    def ok(self) -> bool:
        """True when nothing stands in the way of writing the child."""
        return not self.violations and not self.blockers

    @property
    def size(self) -> int:
        """Bytes of the child's lines, newlines included (before compression)."""
        return sum(len(line) + 1 for line in self.lines)

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        return {
            "source": str(self.source),
            "format": self.format,
            "child_id": self.child_id,
            "path": str(self.path),
            "written": self.written,
            "selection": self.selection,
            "turn_count": self.turn_count,
            "turns": [{"old": old, "new": new} for old, new in self.turns.items()],
            "completed": sorted(self.completed),
            "unfinished": [{"turn": t, "ended": how} for t, how in self.unfinished.items()],
            "left_open": self.left_open,
            "dropped": [
                {"seq": d.seq, "type": d.type, "turn": d.turn, "reason": d.reason, "rule": d.rule}
                for d in self.dropped
            ],
            "violations": [_violation(v) for v in self.violations],
            "inherited_violations": [_violation(v) for v in self.inherited],
            "blockers": self.blockers,
            "notes": self.notes,
            "warnings": self.warnings,
            "kept_events": self.kept_events,
            "kept_records": self.kept_records,
            "lines": len(self.lines),
            "bytes": self.size,
            "compression": self.compression,
            "title": self.child_title,
        }


def _violation(violation: Violation) -> dict[str, Any]:
    return {
        "seq": violation.seq,
        "type": violation.type,
        "rule": violation.rule,
        "message": violation.message,
    }


SeedEdit = Callable[[Session, list[Event], list[dict[str, Any]]], dict[int, Any]]
"""A hook that edits the kept records of a child (compaction): given the parent, the kept events
and the seed, it may change seed events in place and returns record index → replacement value."""


def load_session(source: Session | Path | str) -> Session:
    """`source` itself, or the session read from that path (ClipError when it cannot be read)."""
    if isinstance(source, Session):
        return source
    from klipui.session import SessionError, open_session

    try:
        return open_session(source)
    except SessionError as error:
        raise ClipError(str(error)) from None


def resolve_rules(session: Session, rules: RuleTable | Path | str | None) -> RuleTable:
    """The rule table for `session`: its format's default, a given table, or a TOML file merged
    into the default."""
    base = rules_for_format(session.format)
    if rules is None:
        return base
    if isinstance(rules, RuleTable):
        return rules
    return load_rules(rules, base)


def plan_child(
    source: Session | Path | str,
    selection: KInterval | str,
    *,
    rules: RuleTable | Path | str | None = None,
    out: Path | str | None = None,
    now: datetime | None = None,
    edit: SeedEdit | None = None,
    include_unfinished: bool = False,
) -> ChildPlan:
    """Make the child of `source` holding the turns of `selection`, without writing it.

    The selection picks among the turns that ended (whatever the reason: a turn the user
    aborted is kept as it is); the turns after the last end never ended and are selectable only
    with `include_unfinished` (the child then ends mid-turn, as a crashed session does).
    Raises `KIntervalError` for unreadable selection text and `ClipError` when the session has no
    turn to pick, the selection keeps none, or the format has no child writer.
    """
    session = load_session(source)
    interval = parse_interval(selection) if isinstance(selection, str) else selection
    try:
        module = writer(session.format)
    except KeyError:
        raise ClipError(f"{session.path}: no child writer for format {session.format}") from None
    table = resolve_rules(session, rules)
    dicts = [event.to_dict() for event in session.events]
    report = reindex_report(dicts, interval, table, include_open=include_unfinished)
    if report.turn_count <= 0:
        reason = _nothing_ended(session)
        if not session.turns:
            raise ClipError(reason)
        raise ClipError(
            f"{reason}; --include-unfinished clips it as it is",
            reason=reason,
            needs_unfinished=True,
        )
    if not report.turns:
        raise ClipError(
            f"selection {str(interval)!r} keeps none of the {report.turn_count} turns",
            interval.warnings(report.turn_count),
        )
    by_seq = {event.seq: event for event in session.events}
    kept = [by_seq[old] for old in report.seqs]
    seed = report.events
    replacements = edit(session, kept, seed) if edit is not None else {}
    violations, inherited = _validate(session, dicts, seed, report.seqs)
    moment = now or datetime.now(UTC)
    child_id = module.new_id(moment)
    default = module.child_path(session, child_id, moment)
    path = output_path(out, default, child_id) if out is not None else default
    title = title_for(session, report.turns)
    try:
        body = module.build(ChildSource(session, kept, seed, child_id, moment, title, replacements))
    except SourceChanged as error:
        raise ClipError(str(error)) from None
    except (OSError, ValueError) as error:
        raise ClipError(f"{session.path}: cannot read the records back: {error}") from None
    placement = getattr(module, "placement", None)
    if placement is not None and out is None:
        body.notes.append(placement(session, path))
    compression = body.compression
    if out is not None and session.format == "dsh":
        compression = "zstd" if path.name.endswith(".zstd") else None
    return ChildPlan(
        source=Path(session.path),
        format=session.format,
        child_id=child_id,
        path=path,
        selection=str(interval),
        turn_count=report.turn_count,
        turns=dict(report.turns),
        completed=report.completed,
        unfinished={
            turn: report.outcome(turn)
            for turn in report.turns
            if report.outcome(turn) != "completed"
        },
        left_open=[t.number for t in session.turns if t.number > report.turn_count],
        dropped=report.cascade,
        violations=violations,
        inherited=inherited,
        blockers=body.blockers,
        notes=body.notes,
        warnings=[*interval.warnings(report.turn_count), *body.warnings],
        lines=body.lines,
        compression=compression,
        title=title if module.TITLED else None,
        kept_events=len(seed),
        kept_records=body.records,
        mode=_permissions(session.path),
    )


END_MARKS = {
    "codex": "Codex wrote no task_complete for it",
    "dsh": "the log has no turn/end for it",
    "claude": "no final assistant reply was recorded",
    "pi": "no final assistant reply was recorded",
    "messages": "no final assistant reply was recorded",
}
"""Why a format's turn counts as never ended."""


def _nothing_ended(session: Session) -> str:
    """The one-line reason a session without an ended turn cannot be clipped, and what to do."""
    count = len(session.turns)
    if count == 0:
        return f"{session.path}: no turn to clip (the session holds no prompt)"
    which = "its only turn" if count == 1 else f"none of its {count} turns"
    verb = "never ended" if count == 1 else "ended"
    why = END_MARKS.get(session.format, "it never ended")
    return (
        f"{session.path}: no completed turn to clip: {which} {verb} ({why}; still running, or "
        "stopped mid-turn)"
    )


def output_path(out: Path | str, default: Path, child_id: str) -> Path:
    """Where `-o OUT` puts a child whose own path would be `default`: inside OUT, under its
    normal name (and its `<id>/` folder for a dsh store child), when OUT is an existing folder
    or ends with a path separator; else OUT itself."""
    text = str(out)
    folder = Path(out)
    if not (text.endswith(("/", os.sep)) or folder.is_dir()):
        return folder
    if default.parent.name == child_id:
        return folder / child_id / default.name
    return folder / default.name


def _permissions(path: Path | str) -> int | None:
    """The permission bits of the file at `path` (None when it cannot be read)."""
    try:
        return stat.S_IMODE(os.stat(path).st_mode)
    except (OSError, ValueError):
        return None


def _validate(
    session: Session,
    parent: list[dict[str, Any]],
    seed: list[dict[str, Any]],
    seqs: dict[Any, int],
) -> tuple[list[Violation], list[Violation]]:
    """The child's violations, split into new ones and those the parent already had."""
    fold = session.format == "dsh"
    found = validate(seed, fold=fold)
    if not found:
        return [], []
    old_of = {new: old for old, new in seqs.items()}
    before = {(v.seq, v.rule) for v in validate(parent, fold=fold)}
    new: list[Violation] = []
    inherited: list[Violation] = []
    for violation in found:
        key = (old_of.get(violation.seq), violation.rule)
        (inherited if key in before else new).append(violation)
    return new, inherited


def write_file(
    path: Path, lines: Iterable[bytes], *, compression: str | None, mode: int | None
) -> None:
    """Write a new file atomically, never over an existing one (FileExistsError), with the
    permission bits `mode` (None: what the umask gives) already set when it appears: one temp
    file beside `path`, given `mode`, then linked into place (`jsonl.write_new`)."""
    from klipui.session.jsonl import write_new

    write_new(path, lines, compression=compression, mode=mode)


def write_child(plan: ChildPlan, *, force: bool = False) -> Path:
    """Write the planned child atomically (never over an existing file), with the parent's
    permission bits; ClipError when it is invalid or refused by its agent and not forced, or
    when the path is taken."""
    if not force:
        if plan.violations:
            first = plan.violations[0]
            more = f" (+{len(plan.violations) - 1} more)" if len(plan.violations) > 1 else ""
            raise ClipError(f"invalid child, not written: {first}{more}; --force writes it")
        if plan.blockers:
            raise ClipError(f"{plan.blockers[0]}; not written (--force writes it)")
    try:
        write_file(plan.path, plan.lines, compression=plan.compression, mode=plan.mode)
    except FileExistsError:
        raise ClipError(f"{plan.path}: already exists, not overwritten") from None
    except OSError as error:
        raise ClipError(f"{plan.path}: {error.strerror or error}") from None
    plan.written = True
    return plan.path


def clip(
    source: Session | Path | str,
    selection: KInterval | str,
    *,
    rules: RuleTable | Path | str | None = None,
    out: Path | str | None = None,
    force: bool = False,
    dry_run: bool = False,
    include_unfinished: bool = False,
) -> ChildPlan:
    """Make the child of `source` for `selection` and write it (unless `dry_run`)."""
    plan = plan_child(
        source, selection, rules=rules, out=out, include_unfinished=include_unfinished
    )
    if not dry_run:
        write_child(plan, force=force)
    return plan


__all__ = [
    "ChildPlan",
    "ClipError",
    "KIntervalError",
    "clip",
    "load_session",
    "output_path",
    "plan_child",
    "write_child",
    "write_file",
]
