"""Opening sessions: read (decompressing), sniff on content, lower; and quick or exact info."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from klipui.session import jsonl
from klipui.session.adapter import Adapter
from klipui.session.blocks import event_texts
from klipui.session.formats import adapter, detect_format
from klipui.session.index import (
    CACHE_RECORDS,
    Indexer,
    LazyRecords,
    RecordIndex,
    RecordSpans,
    fast_candidate,
)
from klipui.session.jsonl import Head, Scanned, file_digest, kind_name, read_head, scan_blocks
from klipui.session.model import Event, Problem, Record, Session, SessionInfo
from klipui.session.tokens import estimate_tokens


class SessionError(Exception):
    """A file that cannot be opened as a session; the message is one line naming the file."""


class SessionUnreadable(SessionError):
    """The file could not be read at all (missing, a folder, no permission)."""


Progress = Callable[[int, int], None]
"""Told (bytes read, bytes in all) after each block of a file read."""


def open_session(
    path: Path | str,
    *,
    subagents: bool = True,
    indexed: bool = True,
    progress: Progress | None = None,
) -> Session:
    """Read, sniff and lower the session file at `path` (SessionError when it is not one).

    `subagents`: look for the files of its sub-agents (`Session.subagents`); figures for a
    listing do without, so that a listing never lists a folder once per session.
    `indexed`: open index-first when the format can (its records and events are then decoded
    when read, see `klipui.session.index`); False reads and lowers the whole file (the
    reference the index is tested against). `progress` is told how far the read is.
    """
    return _open(Path(path), subagents, indexed, progress)


def _open(path: Path, subagents: bool, indexed: bool, progress: Progress | None) -> Session:
    reading = _Reading(path, indexed, progress)
    try:
        stat = path.stat()
        scanned = scan_blocks(path, reading.block, reading.set_total, keep=False)
    except OSError as error:
        raise SessionUnreadable(f"{path}: {error.strerror or error}") from None
    if reading.module is None and reading.records:
        reading.decide(scanned.found)
    problems = scanned.problems(reading.count > 0)
    if not reading.count:
        reason = str(problems[0]) if problems else f"{path}: empty file"
        raise SessionError(f"{reason} (no JSON records)" if problems else reason)
    module = reading.module
    if module is None:
        raise SessionError(f"{path}: not a recognised session format")
    if reading.indexer is not None and reading.index is not None:
        if reading.odd:
            problems.sort(key=lambda problem: problem.line)
        index = _source(reading.index, path, stat, scanned)
        records = LazyRecords(index, reading.first)
        session = reading.indexer.finish(records, problems)
        session.raw_source = records
    else:
        records_read = reading.records
        if module.typed_records:
            records_read, problems = _typed_records(path, records_read, problems)
        session = lower_tolerant(module, path, records_read, problems)
        reader = _source(RecordIndex(path, None), path, stat, scanned)
        session.raw_source = RecordSpans(session.records, reader)
    session.raw = scanned.data
    session.compression = scanned.compression
    size = stat.st_size if scanned.compression else scanned.size
    session.source_stat = (size, stat.st_mtime_ns)
    session.source_fingerprint = scanned.digest
    if subagents:
        session.subagents = module.subagents(session)
    return session


def _source(index: RecordIndex, path: Path, stat: os.stat_result, scanned: Scanned) -> RecordIndex:
    """`index` told where its records' bytes are read from, and what the file was."""
    index.data = scanned.data
    if scanned.compression is None:
        index.stat = index.checked = (scanned.size, stat.st_mtime_ns)
        index.digest = scanned.digest
    elif scanned.frames is not None:
        index.frames = scanned.frames
        index.stat = index.checked = (stat.st_size, stat.st_mtime_ns)
        index.digest = file_digest(path, stat.st_size)
    return index


SNIFF_RECORDS = 256
"""Leading records that decide a file's format (`sniffed`)."""


class _Reading:
    """The blocks of a file as `open_session` reads them: decoded whole until the format is
    known, then handed to the format's indexer when it has one (else still decoded whole)."""

    def __init__(self, path: Path, indexed: bool, progress: Progress | None = None) -> None:
        self.path = path
        self.progress = progress
        self.total = 0
        self.name = str(path)
        self.indexed = indexed
        self.module: Adapter | None = None
        self.records: list[Record] = []
        """Every record, for a format read whole; the leading ones until the format is known."""
        self.count = 0
        """Records read (objects, whatever their `type`)."""
        self.pending: list[tuple[int, int, int]] = []
        self.index: RecordIndex | None = None
        self.indexer: Indexer | None = None
        self.first: list[Record] = []
        """The records decoded before the format was known (an index-first session keeps them
        decoded)."""
        self.odd = False

    def set_total(self, total: int) -> None:
        self.total = total

    def block(self, block: bytes, offset: int, first: int, problems: list[Problem]) -> int:
        seen = self._block(block, offset, first, problems)
        if self.progress is not None:
            self.progress(min(offset + len(block), self.total), self.total)
        return seen

    def _block(self, block: bytes, offset: int, first: int, problems: list[Problem]) -> int:
        if self.indexer is not None and self.index is not None:
            return self._indexed(self.indexer, self.index, block, offset, first, problems)
        records, bad, seen, _ = jsonl.parse_lines(block, self.name, offset=offset, first=first)
        problems.extend(bad)
        self.records.extend(records)
        self.count += len(records)
        if self.module is None:
            self.pending.append((offset, first, len(block)))
            if len(self.records) >= SNIFF_RECORDS:
                self.decide(problems)
        return seen

    def _indexed(
        self,
        indexer: Indexer,
        index: RecordIndex,
        block: bytes,
        offset: int,
        first: int,
        problems: list[Problem],
    ) -> int:
        if fast_candidate(block):
            found = indexer.fast(block, first)
            if found is not None:
                lines, odd = found
                self.count += len(lines) + len(odd)
                self.odd = self.odd or bool(odd)
                problems.extend(odd)
                index.add_block(offset, first, len(block), lines)
                return block.count(b"\n")
        records, bad, seen, _ = jsonl.parse_lines(block, self.name, offset=offset, first=first)
        problems.extend(bad)
        self.count += len(records)
        kept = self._typed(records, problems)
        index.add_block(offset, first, len(block), [record.line for record in kept])
        indexer.exact(kept)
        return seen

    def _typed(self, records: list[Record], problems: list[Problem]) -> list[Record]:
        """`records` without those of an odd `type` (their problems added, in line order)."""
        kept, odd = _split_typed(self.name, records)
        if odd:
            self.odd = True
            problems.extend(odd)
        return kept

    def decide(self, problems: list[Problem]) -> None:
        """Sniff the format from the leading records; hand them to its indexer if it has one."""
        values = [record.value for record in self.records[:SNIFF_RECORDS]]
        self.module = detect_format(sniffed(values))
        if self.module is None or not self.indexed:
            return
        index = RecordIndex(self.path, None)
        indexer = self.module.indexer(self.path, index)
        if indexer is None:
            return
        kept = self._typed(self.records, problems) if self.module.typed_records else self.records
        if self.odd:
            problems.sort(key=lambda problem: problem.line)
        lines = [record.line for record in kept]
        taken = 0
        for number, (offset, first, length) in enumerate(self.pending):
            end = self.pending[number + 1][1] if number + 1 < len(self.pending) else None
            upto = taken
            while upto < len(lines) and (end is None or lines[upto] <= end):
                upto += 1
            index.add_block(offset, first, length, lines[taken:upto])
            taken = upto
        indexer.exact(kept)
        self.first = kept[:CACHE_RECORDS]
        self.index, self.indexer = index, indexer
        self.records, self.pending = [], []


def _split_typed(path: str, records: list[Record]) -> tuple[list[Record], list[Problem]]:
    """`records` without those of an odd `type`, and a problem for each of those."""
    odd = [record for record in records if odd_type(record.value)]
    if not odd:
        return records, []
    problems = [
        Problem(path, r.line, f"its `type` is not a string ({kind_name(r.value['type'])})")
        for r in odd
    ]
    return [record for record in records if not odd_type(record.value)], problems


def odd_type(value: dict[str, Any]) -> bool:
    """True for a record whose `type` is there but not a string: every agent format but the
    generic messages one keys on `type`, so such a record is a bad line there."""
    return "type" in value and type(value["type"]) is not str


def sniffed(values: list[Any]) -> list[Any]:
    """The leading values sniffing should look at: those without an odd `type` (all of them
    when every one has one: only the generic messages format may then take the file)."""
    typed = [value for value in values if isinstance(value, dict) and not odd_type(value)]
    return typed or values


def _typed_records(
    path: Path, records: list[Record], problems: list[Problem]
) -> tuple[list[Record], list[Problem]]:
    """`records` without those of an odd `type`, which become problems."""
    odd = [record for record in records if odd_type(record.value)]
    if not odd:
        return records, problems
    more = [
        Problem(str(path), r.line, f"its `type` is not a string ({kind_name(r.value['type'])})")
        for r in odd
    ]
    kept = [record for record in records if not odd_type(record.value)]
    return kept, sorted([*problems, *more], key=lambda problem: problem.line)


SHAPE_ERRORS = (TypeError, AttributeError, KeyError, ValueError, IndexError, RecursionError)
"""What lowering raises on a record whose fields have types or shapes it does not expect."""
MAX_SKIPPED = 50
"""Records of unexpected shapes skipped before a file is given up as not a session."""


def lower_tolerant(
    module: Adapter, path: Path, records: list[Record], problems: list[Problem]
) -> Session:
    """`module.lower`, skipping each record it cannot lower (a Problem naming its line).

    When lowering fails, the record that makes it fail is found by bisecting on prefixes of
    the records (the shortest prefix whose lowering fails ends with it), reported and left out;
    that repeats until the rest lowers (SessionError after `MAX_SKIPPED` such records).
    """
    try:
        return module.lower(path, records, list(problems))
    except SHAPE_ERRORS:
        pass
    kept = list(records)
    skipped: list[Problem] = []
    while True:
        found = _first_failure(module, path, kept)
        if found is None:
            break
        index, error = found
        record = kept.pop(index)
        name = type(error).__name__
        reason = f"a record of a shape klipui cannot read ({name}: {str(error)[:80]}); skipped"
        skipped.append(Problem(str(path), record.line, reason))
        if len(skipped) >= MAX_SKIPPED:
            raise SessionError(f"{path}: too many records of shapes klipui cannot read")
    merged = sorted([*problems, *skipped], key=lambda problem: problem.line)
    return module.lower(path, kept, merged)


def _first_failure(
    module: Adapter, path: Path, records: list[Record]
) -> tuple[int, Exception] | None:
    """The index of the record whose addition first makes lowering fail, and the error; None
    when all of `records` lowers."""

    def failure(count: int) -> Exception | None:
        try:
            module.lower(path, records[:count], [])
        except SHAPE_ERRORS as error:
            return error
        return None

    error = failure(len(records))
    if error is None:
        return None
    low, high = 0, len(records)  # lowering the first `high` records fails
    while high - low > 1:
        middle = (low + high) // 2
        found = failure(middle)
        if found is None:
            low = middle
        else:
            high, error = middle, found
    return high - 1, error


def read_info(path: Path | str) -> SessionInfo:
    """Quick figures from a bounded head read (exact ones when the head held the whole file)."""
    path = Path(path)
    try:
        stat = path.stat()
        head = read_head(path)
    except OSError as error:
        return SessionInfo(path=path, format=None, problem=error.strerror or str(error))
    if head.complete or not head.lines:
        # The whole file was read, or its first line is longer than the head: read it all.
        return _exact(path, stat, head)
    values = sniffed(head.values)
    module = detect_format(values)
    if module is None:
        return _unknown(path, stat.st_size, stat.st_mtime)
    try:
        info = module.info(path, values if module.typed_records else head.values)
    except SHAPE_ERRORS:
        return exact_info(path)  # a head of unexpected shapes: the full read decides
    info.bytes = stat.st_size
    info.updated = stat.st_mtime  # the head's records are the oldest; the mtime is fresher
    info.exact = False
    return info


def exact_info(path: Path | str) -> SessionInfo:
    """Exact figures: from the format's typed scan when it has one (`scan_info`, no lowering),
    else from a full read and lowering."""
    path = Path(path)
    try:
        stat = path.stat()
        head = read_head(path)
    except OSError as error:
        return SessionInfo(path=path, format=None, problem=error.strerror or str(error))
    return _exact(path, stat, head)


def _exact(path: Path, stat: os.stat_result, head: Head) -> SessionInfo:
    """`exact_info` once the file's stat and head are read."""
    module = detect_format(sniffed(head.values))
    if module is not None:
        try:
            scanned = module.scan_info(path)
        except (OSError, *SHAPE_ERRORS):
            scanned = None  # an odd shape: the full read below decides
        if scanned is not None:
            return scanned
    try:
        session = open_session(path, subagents=False)
    except SessionUnreadable as error:
        return SessionInfo(path=path, format=None, problem=str(error).removeprefix(f"{path}: "))
    except SessionError as error:
        info = _unknown(path, 0, None)
        info.problem = str(error).removeprefix(f"{path}: ")
        return _with_stat(info, path)
    return session_info(session, stat.st_size, stat.st_mtime)


def session_info(session: Session, size: int = 0, mtime: float | None = None) -> SessionInfo:
    """The figures of a loaded session."""
    module = adapter(session.format)
    times = [e.time for e in session.events if e.time is not None]
    first_turn = session.turns[0] if session.turns else None
    tokens = sum(turn.tokens for turn in session.turns)
    tokens += sum(estimate_tokens(t) for e in _outside_turns(session) for t in event_texts(e))
    cwd = _text(session.cwd)
    updated = max(times) / 1000 if times else mtime
    return SessionInfo(
        path=session.path,
        format=session.format,
        agent=module.agent,
        title=_text(session.title),
        first_prompt=first_turn.prompt if first_turn and first_turn.prompt else None,
        project=Path(cwd.rstrip("/\\")).name or cwd if cwd else None,
        cwd=cwd,
        session_id=_text(session.session_id),
        parent=_text(session.parent),
        started=min(times) / 1000 if times else None,
        updated=updated,
        turns=len(session.turns),
        events=len(session.events),
        bytes=size,
        tokens=tokens,
        exact=True,
    )


def _outside_turns(session: Session) -> Iterator[Event]:
    """The events that belong to no turn: header events, and any between or after turns."""
    position = 0
    for turn in session.turns:
        yield from session.events[position : turn.start]
        position = turn.end
    yield from session.events[position:]


def _unknown(path: Path, size: int, mtime: float | None) -> SessionInfo:
    return SessionInfo(
        path=path,
        format=None,
        bytes=size,
        updated=mtime,
        exact=True,
        problem="not a recognised session format",
    )


def _with_stat(info: SessionInfo, path: Path) -> SessionInfo:
    try:
        stat = os.stat(path)
    except OSError:
        return info
    info.bytes = stat.st_size
    info.updated = stat.st_mtime
    return info


def _text(value: object) -> str | None:
    """A header field as text, or None when the file holds something else there."""
    return value if isinstance(value, str) else None
