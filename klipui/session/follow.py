"""Following a session file that is being written: what changed, the new records, the merge.

`Follower(session).poll()` looks at the file once (a stat, then small reads) and says what it
found: nothing new; new whole lines appended (read from the last offset, decoded, and merged
into the session, which is lowered again from the records already decoded); a last line still
being written (waited for; once the file has stopped growing for `SETTLE` seconds it is read as
a whole read would read it: a record when it decodes, else a problem, which goes again when the
line is finished after all); or a file truncated, rewritten or gone (then read again whole). A
dsh `.jsonl.zstd` file grows by whole zstd frames: only whole frames are read, from the end of
the last one. An append is told from a rewrite by the first and last `ANCHOR` bytes of what was
read (a rewrite that keeps both and only changes the middle is not seen). The tail is read by
one function, `read_tail`, so that an index-first session can later replace how new records are
merged without touching how they are found.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Literal

from klipui.session.files import open_regular
from klipui.session.jsonl import TRUNCATED_FRAME, fingerprint, is_zstd, parse_lines
from klipui.session.load import SessionError, lower_tolerant, odd_type, open_session
from klipui.session.model import Problem, Record, Session

Kind = Literal["same", "appended", "waiting", "partial", "truncated", "rewritten", "gone"]
"""What a poll found: nothing new; new records; a last line still being written; that line
unchanged for `SETTLE` seconds and broken (said once); a shorter file; different bytes where the
read ones were; no file (or one that no longer reads as a session)."""

SETTLE = 2.0
"""Seconds a file must stop growing before its last line without a newline is read as it is."""
ANCHOR = 64 * 1024
"""Bytes at each end of the consumed part of a file that are read again to tell an append from
a rewrite."""
PARTIAL_LINE = "truncated last line (no newline; still being written?)"


@dataclass(slots=True)
class TailState:
    """Where the read of a file stopped: enough to read only what comes after."""

    compression: str | None
    consumed: int
    """File bytes fully read: through the last whole line (plain), the last whole frame (zstd)."""
    parsed: int
    """Content offset (decompressed for zstd) just after the last whole line read."""
    lines: int
    """Lines (good, bad and blank) before `parsed`."""
    size: int
    """File size at the last look."""
    mtime_ns: int
    anchor: bytes
    """Digest of the first and last `ANCHOR` bytes of the file's first `consumed` bytes."""
    content: bytes = b""
    """zstd only: the decompressed content of the whole frames read (records index it)."""


@dataclass(slots=True)
class Tail:
    """What `read_tail` found after a state: new records, their problems, the next state."""

    kind: Kind
    state: TailState
    records: list[Record] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


@dataclass(slots=True)
class Change:
    """The result of one poll: what happened, and the session as it now is."""

    kind: Kind
    session: Session
    records: int = 0
    """Records added (appended) or in the reloaded session (truncated, rewritten)."""
    events: int = 0
    """Events added (appended; negative when lowering folded some away)."""
    problems: list[Problem] = field(default_factory=list)
    """Problems met in the new part (a partial line that settled, bad new lines)."""
    message: str = ""
    """One line for the user (reloads, a vanished file, a settled partial line)."""


def _anchor(handle_bytes: bytes, tail: bytes) -> bytes:
    return hashlib.blake2b(handle_bytes + b"\0" + tail, digest_size=16).digest()


def _read_anchor(path: Path, consumed: int) -> bytes:
    """The anchor digest of the first `consumed` bytes of `path`."""
    with open_regular(path) as handle:
        head = handle.read(min(ANCHOR, consumed))
        start = max(0, consumed - ANCHOR)
        handle.seek(start)
        tail = handle.read(consumed - start)
    return _anchor(head, tail)


def start_state(session: Session) -> TailState:
    """The tail state of a session just read whole (from its file as it is now).

    For a plain file the read stopped after the last whole line; for a zstd file after the last
    whole frame (lines that streamed out of a cut last frame are read again, and compared, when
    the frame is complete).
    """
    path = session.path
    with open_regular(path) as handle:
        stat = os.fstat(handle.fileno())
        zstd = is_zstd(handle.read(4))
        handle.seek(0)
        if zstd:
            data = handle.read()
    if zstd:
        from klipui.session.jsonl import zstd_frames_end

        consumed = zstd_frames_end(data)
        anchor = _anchor(data[: min(ANCHOR, consumed)], data[max(0, consumed - ANCHOR) : consumed])
        content = _decompress(data[:consumed])
        del data
        if content == session.raw:
            content = session.raw  # one copy of a big log in memory, not two
        elif session.raw is None and session.raw_source is not None:
            session.raw = content  # an index-first session: the one copy serves both
        # lines that streamed out of a cut last frame were read already: they count as read
        read = session.raw if session.raw is not None else content
        parsed = max(content.rfind(b"\n"), read.rfind(b"\n")) + 1
        return TailState(
            "zstd",
            consumed,
            parsed,
            (read if len(read) >= parsed else content).count(b"\n", 0, parsed),
            stat.st_size,
            stat.st_mtime_ns,
            anchor,
            content,
        )
    size = session.source_stat[0] if session.source_stat else stat.st_size
    parsed = _last_line_end(path, size)
    last = session.records[-1] if session.records else None
    if last is not None and last.offset + last.length > parsed:
        parsed = size  # a last line without newline that decodes: it counts as read
    lines = _count_lines(path, parsed)
    return TailState(
        None, parsed, parsed, lines, stat.st_size, stat.st_mtime_ns, _read_anchor(path, parsed)
    )


def _last_line_end(path: Path, size: int) -> int:
    """The offset just after the last newline in the first `size` bytes of `path`."""
    with open_regular(path) as handle:
        end = size
        step = 64 * 1024
        while end > 0:
            start = max(0, end - step)
            handle.seek(start)
            block = handle.read(end - start)
            cut = block.rfind(b"\n")
            if cut >= 0:
                return start + cut + 1
            end = start
            step *= 2
    return 0


def _count_lines(path: Path, size: int) -> int:
    """Newlines in the first `size` bytes of `path`."""
    count = 0
    with open_regular(path) as handle:
        remaining = size
        while remaining > 0:
            block = handle.read(min(8 << 20, remaining))
            if not block:
                break
            count += block.count(b"\n")
            remaining -= len(block)
    return count


def _decompress(data: bytes) -> bytes:
    """The decompressed content of whole zstd frames."""
    import zstandard

    if not data:
        return b""
    reader = zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=True)
    return reader.read()


def read_tail(path: Path, state: TailState, *, final: bool = False) -> Tail:
    """What the file at `path` holds after `state`: new whole lines decoded into records (with
    the file's own line numbers and offsets), or why it cannot be read on from there.

    `final`: the file has stopped growing, so a plain file's last line without a newline is
    read too (a record when it decodes, else a problem), as reading the file whole does."""
    try:
        handle = open_regular(path)
    except FileNotFoundError:
        return Tail("gone", state)
    with handle:
        stat = os.fstat(handle.fileno())
        if stat.st_size == state.size and stat.st_mtime_ns == state.mtime_ns and not final:
            return Tail("same", state)
        if stat.st_size < state.consumed:
            return Tail("truncated", state)
        head = handle.read(min(ANCHOR, state.consumed))
        start = max(0, state.consumed - ANCHOR)
        handle.seek(start)
        before = handle.read(state.consumed - start)
        if _anchor(head, before) != state.anchor:
            return Tail("rewritten", state)
        more = handle.read(stat.st_size - state.consumed)
    moved = replace(state, size=stat.st_size, mtime_ns=stat.st_mtime_ns)
    if state.compression == "zstd":
        return _zstd_tail(str(path), moved, more)
    cut = len(more) if final else more.rfind(b"\n") + 1
    if cut == 0:
        return Tail("waiting" if more else "same", moved)
    records, problems, seen, _ = parse_lines(
        more[:cut], str(path), offset=state.consumed, first=state.lines
    )  # with `final`, a last line without newline counts (parse_lines reads all of it)
    consumed = state.consumed + cut
    moved.consumed = moved.parsed = consumed
    moved.lines += seen
    moved.anchor = _read_anchor(path, consumed)
    return Tail("appended" if records or problems else "same", moved, records, problems)


def _zstd_tail(name: str, state: TailState, more: bytes) -> Tail:
    """`read_tail` for a zstd file: decompress the whole frames after the last one read."""
    from klipui.session.jsonl import zstd_frames_end

    end = zstd_frames_end(more)
    if end == 0:
        return Tail("waiting" if more else "same", state)
    try:
        fresh = _decompress(more[:end])
    except Exception as error:  # a frame that does not decompress: read the file again
        return Tail("rewritten", state, problems=[Problem(name, 0, f"broken zstd frame: {error}")])
    content = state.content + fresh
    cut = content.rfind(b"\n") + 1
    records: list[Record] = []
    problems: list[Problem] = []
    seen = 0
    if cut > state.parsed:
        records, problems, seen, _ = parse_lines(
            content[:cut], name, start=state.parsed, first=state.lines
        )
    consumed = state.consumed + end
    with open_regular(Path(name)) as handle:
        head = handle.read(min(ANCHOR, consumed))
        handle.seek(max(0, consumed - ANCHOR))
        tail = handle.read(consumed - max(0, consumed - ANCHOR))
    moved = replace(
        state,
        consumed=consumed,
        parsed=max(cut, state.parsed),
        lines=state.lines + seen,
        anchor=_anchor(head, tail),
        content=content,
    )
    return Tail("appended" if records or problems else "same", moved, records, problems)


def merge(session: Session, tail: Tail) -> Session:
    """A new session: `session` with the tail's records appended and the whole lowered again
    (records are not decoded again; only lowering runs). The raw-bytes bookkeeping follows the
    tail, so clipping the merged session copies the appended records byte for byte."""
    from klipui.session.formats import adapter

    typed = adapter(session.format).typed_records
    kept = [r for r in tail.records if not (typed and odd_type(r.value))]
    odd = [
        Problem(str(session.path), r.line, "its `type` is not a string")
        for r in tail.records
        if r not in kept
    ]
    records = [*session.records, *kept]
    problems = sorted([*session.problems, *tail.problems, *odd], key=lambda problem: problem.line)
    merged = lower_tolerant(adapter(session.format), session.path, records, problems)
    merged.compression = session.compression
    merged.subagents = session.subagents
    state = tail.state
    if state.compression == "zstd":
        longer = len(state.content) >= len(session.raw or b"")
        merged.raw = state.content if longer else session.raw
        merged.source_stat = (state.size, state.mtime_ns)
    else:
        merged.raw = None  # read again on demand, up to the new size
        merged.source_stat = (state.consumed, state.mtime_ns)
        merged.source_fingerprint = _fingerprint(session.path, state.consumed)
    return merged


def _fingerprint(path: Path, size: int) -> bytes:
    """`jsonl.fingerprint` of the first `size` bytes of `path` (its two 64 KB ends only)."""
    edge = 64 * 1024
    with open_regular(path) as handle:
        if size <= 2 * edge:
            return fingerprint(handle.read(size))
        head = handle.read(edge)
        handle.seek(size - edge)
        tail = handle.read(edge)
    from klipui.session.jsonl import digest_ends

    return digest_ends(head, tail)


def _settled(problems: list[Problem]) -> list[Problem]:
    """`problems` without those of a partial last line or a cut last frame (waited for)."""
    return [p for p in problems if not _is_partial(p)]


def _is_partial(problem: Problem) -> bool:
    return problem.reason.startswith(PARTIAL_LINE) or problem.reason == TRUNCATED_FRAME


class Follower:
    """Follows one session file: `poll()` looks once and says what changed."""

    def __init__(self, session: Session, *, settle: float | None = None) -> None:
        self.settle = SETTLE if settle is None else settle
        self._start(session)

    def _start(self, session: Session) -> None:
        """Follow `session` from the end of what was read of its file."""
        self.session = session
        self.waiting: Problem | None = next((p for p in session.problems if _is_partial(p)), None)
        """The problem of an incomplete last line (or frame), held back while it may grow."""
        if self.waiting is not None:
            session.problems = _settled(session.problems)
        self.state = start_state(session)
        self._grew_at = time.monotonic()
        self._reported = False
        self._gone = False
        self.shown: list[Problem] = []
        """Problems said of an incomplete last line, dropped when it grows."""

    def due(self, now: float | None = None) -> bool:
        """True when a `poll` has something to find: the file's size or mtime moved, it went or
        came back, or an incomplete last line has waited `settle` seconds. One stat."""
        try:
            stat = os.stat(self.session.path)
        except OSError:
            return not self._gone
        if self._gone:
            return True
        if stat.st_size != self.state.size or stat.st_mtime_ns != self.state.mtime_ns:
            return True
        now = time.monotonic() if now is None else now
        pending = self._pending_bytes() and not self._reported
        return pending and now - self._grew_at >= self.settle

    def poll(self, now: float | None = None) -> Change:
        """Look at the file once; read what was appended, or the whole file again."""
        now = time.monotonic() if now is None else now
        path = self.session.path
        try:
            tail = read_tail(path, self.state)
        except OSError as error:
            self._gone = True
            return Change("gone", self.session, message=f"{path}: {error.strerror or error}")
        if tail.kind == "gone":
            self._gone = True
            return Change("gone", self.session, message=f"{path}: the file is gone")
        if self._gone:  # back again: read it whole, it may be another file now
            return self._reload("rewritten")
        if tail.kind in ("truncated", "rewritten"):
            return self._reload(tail.kind)
        grew = tail.state.size != self.state.size
        if tail.kind == "appended":
            old = self._unsaid()
            try:
                merged = merge(old, tail)
            except SessionError:  # the records no longer lower together: read the file whole
                return self._reload("rewritten")
            self.session, self.state = merged, tail.state
            self._grew_at, self._reported = now, False
            return Change(
                "appended",
                self.session,
                records=len(tail.records),
                events=len(self.session.events) - len(old.events),
                problems=tail.problems,
            )
        self.state = tail.state
        if grew:
            self._grew_at = now
            self._reported = False
            self._unsaid()  # what was said of the last line no longer holds: it grew
        if self._pending_bytes() and not self._reported and now - self._grew_at >= self.settle:
            self._reported = True
            return self._settle_last_line()
        return Change("waiting" if grew else "same", self.session)

    def _settle_last_line(self) -> Change:
        """The file stopped growing with bytes after its last whole line (or frame): read them as
        reading the file whole would (a record when they decode, else a problem)."""
        path = self.session.path
        self._unsaid()
        if self.state.compression == "zstd":
            problem = Problem(str(path), self.state.lines + 1, TRUNCATED_FRAME)
            self.session.problems = [*self.session.problems, problem]
            self.shown = [problem]
            return Change("partial", self.session, problems=[problem], message=str(problem))
        tail = read_tail(path, self.state, final=True)
        if tail.kind != "appended":
            return Change("same", self.session)
        if not tail.records:  # still a broken line: said, not consumed (it may yet be finished)
            self.shown = tail.problems
            self.session.problems = sorted(
                [*self.session.problems, *tail.problems], key=lambda problem: problem.line
            )
            message = str(tail.problems[0]) if tail.problems else ""
            return Change("partial", self.session, problems=tail.problems, message=message)
        try:
            merged = merge(self.session, tail)
        except SessionError:
            return self._reload("rewritten")
        events = len(merged.events) - len(self.session.events)
        self.session, self.state = merged, tail.state
        return Change("appended", merged, len(tail.records), events, tail.problems)

    def _unsaid(self) -> Session:
        """The session without the problems said of a last line that has grown since."""
        if self.shown:
            shown = self.shown
            self.session.problems = [p for p in self.session.problems if p not in shown]
            self.shown = []
        return self.session

    def _pending_bytes(self) -> bool:
        """True when the file holds bytes after the last whole line (or frame) read."""
        if self.state.compression == "zstd":
            return self.state.size > self.state.consumed or (
                len(self.state.content) > self.state.parsed
            )
        return self.state.size > self.state.consumed

    def _reload(self, kind: Kind) -> Change:
        path = self.session.path
        try:
            session = open_session(path)
            self._start(session)
        except (SessionError, OSError) as error:
            self._gone = True
            return Change("gone", self.session, message=str(error))
        how = "shorter than before" if kind == "truncated" else "rewritten"
        return Change(
            kind,
            self.session,
            records=len(session.records),
            message=f"{path.name}: the file is {how}; read again",
        )
