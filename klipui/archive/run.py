"""One archive run: find every source, bring its copy up to date, report what changed and what
the archive still lacks (what would be lost if the agents deleted their files now)."""

from __future__ import annotations

import contextlib
import os
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from klipui.archive.layout import default_archive_dir, place_of
from klipui.archive.sources import SESSION, Source, find_sources
from klipui.archive.store import FAILED, UNCHANGED, Manifest, copy_source

SAVE_EVERY = 2.0
"""Seconds between manifest saves during a run (it is saved at the end too)."""
LOCK = ".klipui-archive.lock"

Progress = Callable[[int, int, Path | None], None]


class ArchiveBusy(OSError):
    """Another archive run holds the archive's lock."""


class ArchiveInside(OSError):
    """The archive folder is inside an agent's folder (it would archive itself) or holds one."""


def _overlapping_root(archive: Path) -> Path | None:
    """The agent folder that `archive` lies in or contains, if any (symlinks resolved)."""
    from klipui.archive.layout import archive_roots

    real = Path(os.path.realpath(archive))
    for root in archive_roots():
        folder = Path(os.path.realpath(root.path))
        if real.is_relative_to(folder) or folder.is_relative_to(real):
            return root.path
    return None


@dataclass(slots=True)
class ArchiveReport:
    """The figures of one run."""

    archive: Path
    dry_run: bool
    states: Counter[str] = field(default_factory=Counter)
    """Files per state (new, grown, rewritten, unchanged, failed)."""
    sessions: Counter[str] = field(default_factory=Counter)
    """Session files (not companions) per state."""
    new_bytes: int = 0
    """Source bytes copied (or, dry, that would be)."""
    written: int = 0
    """Archive bytes written."""
    problems: list[str] = field(default_factory=list)
    copied: list[tuple[Path, str, int]] = field(default_factory=list)
    """(source, state, source bytes taken) of each file copied (or, dry, that would be)."""
    at_risk: list[Path] = field(default_factory=list)
    """Sources the archive does not hold whole after the run (all changed ones, when dry)."""
    at_risk_bytes: int = 0
    gone: list[str] = field(default_factory=list)
    """Sources whose originals no longer exist: the archive holds the only copy."""
    held_files: int = 0
    held_sessions: int = 0
    held_source_bytes: int = 0
    held_stored_bytes: int = 0
    seconds: float = 0.0

    def summary(self) -> str:
        """One line: what was copied, and what would be lost if the agents deleted now."""
        states = self.states
        changed = states["new"] + states["grown"] + states["rewritten"]
        verb = "would copy" if self.dry_run else "copied"
        line = (
            f"{verb} {changed} files ({states['new']} new, {states['grown']} grown, "
            f"{states['rewritten']} rewritten), {states['unchanged']} unchanged"
        )
        if self.gone:
            line += f"; {len(self.gone)} kept only here"
        if self.at_risk:
            return line + f"; {len(self.at_risk)} files would be lost if deleted now"
        return line + "; nothing would be lost if the agents deleted now"


@contextlib.contextmanager
def _locked(archive: Path) -> Iterator[None]:
    """Hold the archive's lock file for the block (`ArchiveBusy` when another run holds it)."""
    if not archive.exists():
        archive.parent.mkdir(parents=True, exist_ok=True)
        archive.mkdir(mode=0o700, exist_ok=True)
    fd = os.open(archive / LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        try:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except ImportError:
            pass
        except BlockingIOError:
            raise ArchiveBusy(0, "another archive run is under way", str(archive)) from None
        yield
    finally:
        os.close(fd)


def run_archive(
    to: Path | None = None,
    *,
    agents: Sequence[str] | None = None,
    dry_run: bool = False,
    on_progress: Progress | None = None,
    sources: Sequence[Source] | None = None,
) -> ArchiveReport:
    """Archive every session (of `agents`, else of all) into `to` (default archive folder).

    `on_progress(done, total, path)` is called before each file and once at the end (path
    None). With `dry_run` nothing is written: the report says what a run would copy.
    """
    archive = Path(to) if to is not None else default_archive_dir()
    overlap = _overlapping_root(archive)
    if overlap is not None:
        raise ArchiveInside(0, f"inside or above the agent folder {overlap}", str(archive))
    started = time.monotonic()
    report = ArchiveReport(archive=archive, dry_run=dry_run)
    if dry_run:
        _run(archive, report, agents, sources, on_progress)
    else:
        with _locked(archive):
            _run(archive, report, agents, sources, on_progress)
    report.seconds = time.monotonic() - started
    return report


def _run(
    archive: Path,
    report: ArchiveReport,
    agents: Sequence[str] | None,
    sources: Sequence[Source] | None,
    on_progress: Progress | None,
) -> None:
    manifest = Manifest(archive)
    if manifest.problem:
        report.problems.append(manifest.problem)
    todo = list(sources) if sources is not None else list(find_sources(agents))
    last_save = time.monotonic()
    try:
        for done, source in enumerate(todo):
            if on_progress:
                on_progress(done, len(todo), source.path)
            outcome = copy_source(
                archive,
                source.key,
                source.path,
                source.agent,
                source.kind,
                manifest,
                dry_run=report.dry_run,
            )
            report.states[outcome.state] += 1
            if source.kind == SESSION:
                report.sessions[outcome.state] += 1
            report.new_bytes += outcome.new_bytes
            if outcome.state not in (UNCHANGED, FAILED):
                report.copied.append((source.path, outcome.state, outcome.new_bytes))
            report.written += outcome.written
            if outcome.problem:
                report.problems.append(outcome.problem)
            if outcome.state == FAILED or (report.dry_run and outcome.state != UNCHANGED):
                report.at_risk.append(source.path)
                report.at_risk_bytes += _size(source.path)
            if not report.dry_run and time.monotonic() - last_save > SAVE_EVERY:
                manifest.save()
                last_save = time.monotonic()
    finally:
        if not report.dry_run:
            manifest.save()
    if on_progress:
        on_progress(len(todo), len(todo), None)
    _holdings(archive, manifest, report)


def _holdings(archive: Path, manifest: Manifest, report: ArchiveReport) -> None:
    """What the archive holds, and which of it exists nowhere else any more."""
    for key, entry in manifest.entries.items():
        if not place_of(archive, key).is_file():
            continue
        report.held_files += 1
        report.held_sessions += entry.kind == SESSION
        report.held_source_bytes += entry.size
        report.held_stored_bytes += entry.stored
        if not os.path.lexists(entry.source):
            report.gone.append(entry.source)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
