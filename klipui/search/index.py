"""The search index: SQLite FTS5 over every searchable unit of every session, in the user cache.

Layout: `sessions` (one row a file: its (size, mtime, fingerprint) when indexed and its figures),
`units` (one row a unit: its place, and where its record lies in the file) and `fts`, a
contentless FTS5 table (rowid = unit id). The text is not kept: snippets are cut from the session
file (`klipui.search.snippet`); only units a file cannot give back (a compressed file) keep theirs,
zstd-compressed. A contentless table cannot forget a row without its text, so a removed unit
leaves its FTS row behind, unseen (every query joins `units`); when such rows pass a share of the
table, the index is emptied and built again.

Updating is incremental by (path, size, mtime): an unchanged file is skipped; a file that grew
and whose first bytes (the fingerprint of what was indexed) are unchanged is indexed from the
last event it had; any other change reindexes the file; a file that is gone is removed. Each
file is one transaction, so other connections see results as they come (partial while an
update runs). WAL journal, a busy timeout and a few retries let two processes share the index.
A corrupt index, or one of another version, is set aside and rebuilt; an index locked beyond
the timeout is replaced, for this process, by a private one. Nothing here is fatal.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from klipui.search.query import Query, parse_query
from klipui.search.snippet import MARK_END, MARK_START, cut, record_texts, spilled_texts
from klipui.search.snippet import term_pattern as snippet_pattern
from klipui.search.units import SessionUnits, Unit, file_stat, read_units

SCHEMA_VERSION = 2
BUSY_TIMEOUT = 5.0
"""Seconds a connection waits for another process's write lock before giving up."""
RETRIES = 3
POOL_FROM = 8
COMMIT_SECONDS = 0.5
"""Seconds of writing an update commits after, at most (fewer, bigger segments to merge)."""
CACHE_KB = 64 * 1024
"""SQLite page cache of a connection (KB): FTS5 merges segments through it."""
HASH_BYTES = 16 * 1024 * 1024
"""FTS5 terms kept in memory before a segment is written (bigger: fewer segments to merge)."""
"""Files to read from which an update reads them in a pool of processes."""
GARBAGE_SHARE = 0.3
"""Share of FTS rows left by removed units from which the next update rebuilds the index."""
GARBAGE_MIN = 5_000
KIND_GROUPS = {
    "prompts": ("prompt",),
    "prompt": ("prompt",),
    "answers": ("answer",),
    "answer": ("answer",),
    "thinking": ("thinking",),
    "tools": ("call", "result"),
    "tool": ("call", "result"),
    "calls": ("call",),
    "call": ("call",),
    "results": ("result",),
    "result": ("result",),
}
"""Names `--in` takes, and the unit kinds each covers."""


class SearchUnavailable(RuntimeError):
    """SQLite here has no FTS5: search cannot work (the message says what to do)."""


def fts5_available() -> bool:
    """True when the standard library's SQLite has FTS5 compiled in."""
    try:
        with contextlib.closing(sqlite3.connect(":memory:")) as db:
            db.execute("CREATE VIRTUAL TABLE t USING fts5(x)")
    except sqlite3.OperationalError:
        return False
    return True


def require_fts5() -> None:
    """SearchUnavailable unless FTS5 is there."""
    if not fts5_available():
        raise SearchUnavailable(
            f"search needs SQLite's FTS5, which this Python's SQLite {sqlite3.sqlite_version} "
            "lacks; use a Python built with a full SQLite (python.org and most distributions)"
        )


def default_index_path() -> Path:
    """`search.sqlite` in the user cache folder (XDG_CACHE_HOME, else ~/.cache, /klipui)."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("klipui", appauthor=False)) / "search.sqlite"


_local = threading.local()


def _codec() -> tuple[Any, Any]:
    """This thread's zstd compressor and decompressor (they are not thread-safe)."""
    codec = getattr(_local, "codec", None)
    if codec is None:
        import zstandard

        codec = (zstandard.ZstdCompressor(level=3), zstandard.ZstdDecompressor())
        _local.codec = codec
    return codec


def pack(text: str) -> bytes:
    """Text as stored: b"s" + zstd when that is smaller, else b"t" + UTF-8."""
    raw = text.encode("utf-8", "replace")
    if len(raw) > 64:
        packed = _codec()[0].compress(raw)
        if len(packed) + 1 < len(raw):
            return b"s" + packed
    return b"t" + raw


def unpack(blob: bytes | None) -> str:
    """The text `pack` stored ("" for anything else: never raises inside a query)."""
    if not blob:
        return ""
    try:
        raw = _codec()[1].decompress(blob[1:]) if blob[:1] == b"s" else bytes(blob[1:])
        return raw.decode("utf-8", "replace")
    except Exception:  # a damaged blob is a blank text, not a failed query
        return ""


SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS sessions(
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    fingerprint BLOB,
    events INTEGER NOT NULL DEFAULT 0,
    format TEXT, agent TEXT, project TEXT, title TEXT,
    started REAL, updated REAL,
    problem TEXT
);
CREATE TABLE IF NOT EXISTS units(
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    event INTEGER NOT NULL,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    time INTEGER,
    part INTEGER NOT NULL DEFAULT 0,
    offset INTEGER NOT NULL,
    length INTEGER NOT NULL,
    z BLOB
);
CREATE INDEX IF NOT EXISTS units_session ON units(session, event);
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
    text, content='', tokenize='unicode61 remove_diacritics 2'
);
INSERT OR IGNORE INTO meta(key, value) VALUES ('version', '{SCHEMA_VERSION}');
INSERT OR IGNORE INTO meta(key, value) VALUES ('garbage', '0');
INSERT INTO fts(fts, rank) SELECT 'hashsize', {HASH_BYTES}
    WHERE NOT EXISTS (SELECT 1 FROM fts_config WHERE k = 'hashsize');
"""


@dataclass(slots=True)
class Hit:
    """One match: where it is and a snippet around it."""

    path: Path
    agent: str
    title: str
    project: str
    turn: int
    seq: int
    event: int
    kind: str
    time: int | None
    """Epoch milliseconds of the event, when known."""
    snippet: str
    """Text around the match, each matched term between `MARK_START` and `MARK_END`."""
    score: float
    """BM25 relevance (higher is better)."""
    part: int = 0

    def to_json(self) -> dict[str, object]:
        """The hit for `--json` (the snippet's marks left out)."""
        return {
            "path": str(self.path),
            "agent": self.agent,
            "title": self.title,
            "project": self.project,
            "turn": self.turn,
            "seq": self.seq,
            "kind": self.kind,
            "time": self.time,
            "snippet": self.snippet.replace(MARK_START, "").replace(MARK_END, ""),
            "score": round(self.score, 4),
        }


@dataclass(slots=True)
class Results:
    """The hits of a query, best first."""

    query: Query
    hits: list[Hit] = field(default_factory=list)
    note: str = ""
    """A word for the user: how the query was read, or why nothing was searched."""


@dataclass(slots=True)
class UpdateReport:
    """What an update did, file by file counted."""

    added: int = 0
    appended: int = 0
    reindexed: int = 0
    unchanged: int = 0
    removed: int = 0
    skipped: int = 0
    """Files that are not sessions, or could not be read (each has a problem)."""
    units: int = 0
    """Units written."""
    text_bytes: int = 0
    """UTF-8 bytes of the text of the units written."""
    busy: int = 0
    """Files left out because the index stayed locked by another process."""
    rebuilt: bool = False
    """True when the update began by emptying an index grown with removed units' rows."""
    problems: list[str] = field(default_factory=list)

    @property
    def changed(self) -> int:
        return self.added + self.appended + self.reindexed + self.removed


@dataclass(slots=True, frozen=True)
class _Plan:
    path: Path
    action: str
    """"add", "append", "reindex" or "unchanged"."""
    first_event: int = 0


def _locked(error: sqlite3.OperationalError) -> bool:
    text = str(error).lower()
    return "locked" in text or "busy" in text


class SearchIndex:
    """A connection to the search index (one per thread)."""

    def __init__(self, path: Path | None = None, *, timeout: float = BUSY_TIMEOUT) -> None:
        require_fts5()
        self.path = path or default_index_path()
        self.timeout = timeout
        self.note = ""
        """What happened when opening: rebuilt, private index, …"""
        self._batch = False
        """True while `update` holds a transaction open over several files."""
        self.db = self._open()

    # --- opening -------------------------------------------------------------------------------

    def _connect(self, path: Path) -> sqlite3.Connection:
        path.parent.mkdir(parents=True, exist_ok=True)
        return sqlite3.connect(path, timeout=self.timeout, isolation_level=None)

    def _prepare(self, db: sqlite3.Connection) -> None:
        """WAL, schema, version check (ValueError for another version)."""
        mode = db.execute("PRAGMA journal_mode=WAL").fetchone()
        if mode is None or str(mode[0]).lower() != "wal":
            raise sqlite3.OperationalError("database is locked (WAL mode not set)")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(f"PRAGMA cache_size={-CACHE_KB}")
        db.executescript(SCHEMA)
        row = db.execute("SELECT value FROM meta WHERE key='version'").fetchone()
        if row is None or row[0] != str(SCHEMA_VERSION):
            raise ValueError(f"index version {row[0] if row else '?'}")
        db.execute("SELECT count(*) FROM sessions").fetchone()

    def _open(self) -> sqlite3.Connection:
        for _ in range(RETRIES):
            db = self._connect(self.path)
            try:
                self._prepare(db)
                return db
            except sqlite3.OperationalError as error:
                db.close()
                if not _locked(error):
                    self._set_aside(f"unusable ({error})")
                    continue
                time.sleep(0.05)
            except (sqlite3.DatabaseError, ValueError) as error:
                db.close()
                self._set_aside(f"{error}")
        private = self.path.with_name(f"search-{os.getpid()}.sqlite")
        self.note = f"{self.path} is locked by another process: using a private index {private}"
        self.path = private
        db = self._connect(private)
        self._prepare(db)
        return db

    def _set_aside(self, why: str) -> None:
        """Remove an index that cannot be used (it is a cache: rebuilding loses nothing)."""
        for suffix in ("", "-wal", "-shm", "-journal"):
            with contextlib.suppress(OSError):
                os.unlink(f"{self.path}{suffix}")
        self.note = f"the search index was rebuilt ({why})"

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self.db.close()

    def __enter__(self) -> SearchIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- updating ------------------------------------------------------------------------------

    def stored(self) -> dict[str, tuple[int, int, int, bytes | None, int]]:
        """path → (id, size, mtime_ns, fingerprint, events) of every indexed file."""
        rows = self.db.execute("SELECT path, id, size, mtime_ns, fingerprint, events FROM sessions")
        return {row[0]: (row[1], row[2], row[3], row[4], row[5]) for row in rows}

    def plan(self, files: Iterable[Path]) -> list[_Plan]:
        """What to do with each file (by its stat against the stored row)."""
        stored = self.stored()
        plans: list[_Plan] = []
        for path in files:
            key = str(Path(os.path.abspath(path)))
            now = file_stat(path)
            row = stored.get(key)
            if now is None:
                continue
            if row is None:
                plans.append(_Plan(path, "add"))
            elif (row[1], row[2]) == now:
                plans.append(_Plan(path, "unchanged"))
            elif now[0] > row[1] and row[3] and _same_prefix(path, row[1], row[3]):
                plans.append(_Plan(path, "append", max(0, row[4] - 1)))
            else:
                plans.append(_Plan(path, "reindex"))
        return plans

    def update(
        self,
        files: Sequence[Path],
        *,
        on_progress: Callable[[int, int], None] | None = None,
        cancelled: Callable[[], bool] | None = None,
        workers: int = 0,
        remove_missing: bool = True,
    ) -> UpdateReport:
        """Bring the index up to date with `files`.

        Files are written in transactions of `COMMIT_SECONDS` at most (the first file alone, so
        that results come soon), each file whole: other connections see whole files only.
        `workers`: processes that read files while this one writes (used from `POOL_FROM` files
        to read on; 0 reads here). `remove_missing`: drop indexed files that no longer exist.
        """
        report = UpdateReport()
        self._compact_if_needed(report)
        if remove_missing:
            self._remove_missing(report)
        plans = self.plan(files)
        total = len(plans)
        todo = [p for p in plans if p.action != "unchanged"]
        report.unchanged = total - len(todo)
        done = report.unchanged
        if on_progress:
            on_progress(done, total)
        opened = 0.0
        try:
            with _pool(workers if len(todo) >= POOL_FROM else 0) as executor:
                for plan, read in _reads(todo, executor):
                    if cancelled is not None and cancelled():
                        break
                    if not self._batch:
                        if not self._begin():
                            report.busy += 1
                            continue
                        self._batch, opened = True, time.monotonic()
                    self._apply(plan, read, report)
                    done += 1
                    if done == report.unchanged + 1 or time.monotonic() - opened >= COMMIT_SECONDS:
                        self._batch = False
                        self.db.execute("COMMIT")
                    if on_progress:
                        on_progress(done, total)
        except BaseException:
            if self._batch:
                self._batch = False
                with contextlib.suppress(sqlite3.Error):
                    self.db.execute("ROLLBACK")
            raise
        if self._batch:
            self._batch = False
            self.db.execute("COMMIT")
        return report

    def garbage(self) -> int:
        """FTS rows of removed units."""
        row = self.db.execute("SELECT value FROM meta WHERE key='garbage'").fetchone()
        return int(row[0]) if row else 0

    def _add_garbage(self, count: int) -> None:
        self.db.execute(
            "UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key='garbage'", (count,)
        )

    def _compact_if_needed(self, report: UpdateReport) -> None:
        """Empty the index when removed units' rows pass `GARBAGE_SHARE` of the FTS table (the
        update that follows reads every file again)."""
        garbage = self.garbage()
        live = self.counts()[1]
        if garbage < GARBAGE_MIN or garbage < GARBAGE_SHARE * (garbage + live):
            return

        def empty() -> None:
            self.db.execute("INSERT INTO fts(fts) VALUES('delete-all')")
            self.db.execute("DELETE FROM units")
            self.db.execute("DELETE FROM sessions")
            self.db.execute("UPDATE meta SET value='0' WHERE key='garbage'")

        if self._write(empty, report):
            report.rebuilt = True

    def _remove_missing(self, report: UpdateReport) -> None:
        gone = [(i, p) for p, (i, *_) in self.stored().items() if file_stat(Path(p)) is None]
        for session_id, _ in gone:
            if self._write(lambda sid=session_id: self._delete_session(sid), report):
                report.removed += 1

    def _apply(self, plan: _Plan, read: SessionUnits | str, report: UpdateReport) -> None:
        path = Path(os.path.abspath(plan.path))
        if isinstance(read, str):
            stat = file_stat(plan.path) or (0, 0)
            report.skipped += 1
            report.problems.append(read)
            self._write(lambda: self._store_problem(path, stat, read), report)
            return

        def write() -> None:
            row = self.db.execute(
                "SELECT id, size, mtime_ns, events FROM sessions WHERE path=?", (str(path),)
            ).fetchone()
            if row is not None and (row[1], row[2]) == (read.size, read.mtime_ns):
                return  # another process indexed this very content meanwhile
            if plan.action == "append" and row is not None and row[3] - 1 == plan.first_event:
                gone = self.db.execute(
                    "DELETE FROM units WHERE session=? AND event>=?", (row[0], plan.first_event)
                )
                self._add_garbage(gone.rowcount)
                session_id = row[0]
                units = read.units
            else:
                if row is not None:
                    self._delete_session(row[0])
                session_id = None
                units = read.units if plan.first_event == 0 else None
            session_id = self._store_session(path, read, session_id)
            if units is None:  # planned as an append, but the file moved on: read it whole
                units = read_units(plan.path).units
            self._store_units(session_id, units)
            report.units += len(units)
            report.text_bytes += sum(len(u.text.encode("utf-8", "replace")) for u in units)

        if self._write(write, report):
            if plan.action == "add":
                report.added += 1
            elif plan.action == "append":
                report.appended += 1
            else:
                report.reindexed += 1

    def _begin(self) -> bool:
        """BEGIN IMMEDIATE, retrying while another process holds the lock (False if it stays)."""
        for attempt in range(RETRIES):
            try:
                self.db.execute("BEGIN IMMEDIATE")
                return True
            except sqlite3.OperationalError as error:
                if not _locked(error):
                    raise
                time.sleep(0.05 * (attempt + 1))
        return False

    def _write(self, work: Callable[[], None], report: UpdateReport) -> bool:
        """Run `work` in one immediate transaction (in the open batch, if any), retrying while
        another process holds the lock; False when the index stayed locked."""
        if self._batch:
            work()
            return True
        for attempt in range(RETRIES):
            try:
                self.db.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError as error:
                if not _locked(error):
                    raise
                time.sleep(0.05 * (attempt + 1))
                continue
            try:
                work()
                self.db.execute("COMMIT")
                return True
            except BaseException:
                with contextlib.suppress(sqlite3.Error):
                    self.db.execute("ROLLBACK")
                raise
        report.busy += 1
        return False

    def _delete_session(self, session_id: int) -> None:
        gone = self.db.execute("DELETE FROM units WHERE session=?", (session_id,))
        self._add_garbage(gone.rowcount)
        self.db.execute("DELETE FROM sessions WHERE id=?", (session_id,))

    def _store_problem(self, path: Path, stat: tuple[int, int], problem: str) -> None:
        row = self.db.execute("SELECT id FROM sessions WHERE path=?", (str(path),)).fetchone()
        if row is not None:
            self._delete_session(row[0])
        self.db.execute(
            "INSERT INTO sessions(path, size, mtime_ns, problem) VALUES (?, ?, ?, ?)",
            (str(path), stat[0], stat[1], problem),
        )

    def _store_session(self, path: Path, read: SessionUnits, session_id: int | None) -> int:
        values = (
            read.size,
            read.mtime_ns,
            read.fingerprint,
            read.events,
            read.format,
            read.agent,
            read.project,
            read.title,
            read.started,
            read.updated,
        )
        if session_id is not None:
            self.db.execute(
                "UPDATE sessions SET size=?, mtime_ns=?, fingerprint=?, events=?, format=?, "
                "agent=?, project=?, title=?, started=?, updated=?, problem=NULL WHERE id=?",
                (*values, session_id),
            )
            return session_id
        cursor = self.db.execute(
            "INSERT INTO sessions(size, mtime_ns, fingerprint, events, format, agent, project, "
            "title, started, updated, path) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (*values, str(path)),
        )
        return int(cursor.lastrowid or 0)

    def _store_units(self, session_id: int, units: list[Unit]) -> None:
        # Ids are never reused (AUTOINCREMENT): the FTS rows of removed units keep theirs.
        row = self.db.execute("SELECT seq FROM sqlite_sequence WHERE name='units'").fetchone()
        first = int(row[0] if row else 0) + 1
        self.db.executemany(
            "INSERT INTO units(id, session, turn, event, seq, kind, time, part, offset, length, z) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    first + number,
                    session_id,
                    unit.turn,
                    unit.event,
                    unit.seq,
                    unit.kind,
                    unit.time if isinstance(unit.time, int) else None,
                    unit.part,
                    unit.offset,
                    unit.length,
                    pack(unit.text) if unit.offset < 0 else None,
                )
                for number, unit in enumerate(units)
            ],
        )
        self.db.executemany(
            "INSERT INTO fts(rowid, text) VALUES (?, ?)",
            [(first + number, unit.text) for number, unit in enumerate(units)],
        )

    # --- searching -----------------------------------------------------------------------------

    def search(
        self,
        query: str | Query,
        *,
        paths: Iterable[Path] | None = None,
        agent: str | None = None,
        project: str | None = None,
        since: float | None = None,
        kinds: Iterable[str] | None = None,
        limit: int = 20,
    ) -> Results:
        """Hits for `query`, best (BM25) first.

        `paths`: only these session files; `agent`/`project`: a case-insensitive part of the
        agent's name or format / of the project; `since`: epoch seconds; `kinds`: unit kinds.
        """
        parsed = query if isinstance(query, Query) else parse_query(query)
        results = Results(parsed, note=parsed.note)
        if parsed.empty:
            results.note = "nothing to search for: type a word"
            return results
        where = ["fts MATCH ?"]
        args: list[object] = [parsed.expression]
        if kinds is not None:
            kinds = sorted(set(kinds))
            where.append(f"u.kind IN ({','.join('?' * len(kinds))})")
            args.extend(kinds)
        if agent:
            where.append("(instr(lower(s.agent), ?) OR instr(lower(s.format), ?))")
            args.extend([agent.lower(), agent.lower()])
        if project:
            where.append("instr(lower(s.project), ?)")
            args.append(project.lower())
        if since is not None:
            where.append("coalesce(u.time / 1000.0, s.updated, 0) >= ?")
            args.append(since)
        if paths is not None:
            self._set_scope(paths)
            where.append("u.session IN (SELECT id FROM temp.scope)")
        sql = (
            "SELECT s.path, s.agent, s.title, s.project, u.turn, u.seq, u.event, u.kind, u.time, "
            "bm25(fts), u.part, u.offset, u.length, u.z "
            "FROM fts JOIN units u ON u.id = fts.rowid JOIN sessions s ON s.id = u.session "
            f"WHERE {' AND '.join(where)} ORDER BY bm25(fts) LIMIT ?"
        )
        args.append(max(1, limit))
        try:
            rows = self.db.execute(sql, args).fetchall()
        except sqlite3.OperationalError as error:
            if not parsed.syntax or _locked(error):
                raise
            from klipui.search.query import plain

            fallback = plain(parsed.text.replace('"', " "), f"read as plain words ({error})")
            return self.search(
                fallback,
                paths=paths,
                agent=agent,
                project=project,
                since=since,
                kinds=kinds,
                limit=limit,
            )
        pattern = snippet_pattern(parsed.terms)
        results.hits = [
            Hit(
                path=Path(r[0]),
                agent=r[1] or "",
                title=r[2] or "",
                project=r[3] or "",
                turn=r[4],
                seq=r[5],
                event=r[6],
                kind=r[7],
                time=r[8],
                snippet=_snippet(Path(r[0]), r[7], r[11], r[12], r[13], pattern),
                score=-float(r[9]),
                part=r[10],
            )
            for r in rows
        ]
        return results

    def _set_scope(self, paths: Iterable[Path]) -> None:
        self.db.execute("CREATE TEMP TABLE IF NOT EXISTS scope(id INTEGER PRIMARY KEY)")
        self.db.execute("DELETE FROM temp.scope")
        keys = [(str(Path(os.path.abspath(p))),) for p in paths]
        self.db.execute("CREATE TEMP TABLE IF NOT EXISTS scope_paths(path TEXT PRIMARY KEY)")
        self.db.execute("DELETE FROM temp.scope_paths")
        self.db.executemany("INSERT OR IGNORE INTO temp.scope_paths(path) VALUES (?)", keys)
        self.db.execute(
            "INSERT INTO temp.scope(id) SELECT s.id FROM sessions s "
            "JOIN temp.scope_paths p ON p.path = s.path"
        )

    # --- figures -------------------------------------------------------------------------------

    def counts(self) -> tuple[int, int]:
        """(sessions, units) in the index."""
        sessions = self.db.execute("SELECT count(*) FROM sessions WHERE problem IS NULL")
        units = self.db.execute("SELECT count(*) FROM units")
        return int(sessions.fetchone()[0]), int(units.fetchone()[0])

    def size_bytes(self) -> int:
        """Bytes of the index file and its WAL."""
        total = 0
        for suffix in ("", "-wal"):
            with contextlib.suppress(OSError):
                total += os.path.getsize(f"{self.path}{suffix}")
        return total


def _snippet(
    path: Path, kind: str, offset: int, length: int, stored: bytes | None, pattern: Any
) -> str:
    """The snippet of a hit: from its stored text, else from its record(s) in the file (and the
    spilled original a result's preview names, when the match is there)."""
    if stored is not None:
        return cut([unpack(stored)], pattern)
    texts = record_texts(path, offset, length)
    if kind == "result" and pattern is not None and not any(pattern.search(t) for t in texts):
        texts = spilled_texts(texts, path) or texts
    return cut(texts, pattern)


def _same_prefix(path: Path, size: int, fingerprint: bytes) -> bool:
    """True when the first `size` bytes of `path` are still those that were indexed (their
    fingerprint: the first and last 64 KB)."""
    from klipui.session.jsonl import fingerprint as digest

    window = 64 * 1024
    try:
        with open(path, "rb") as handle:
            if size <= 2 * window:
                data = handle.read(size)
            else:
                head = handle.read(window)
                handle.seek(size - window)
                data = head + handle.read(window)
    except OSError:
        return False
    if len(data) < min(size, 2 * window):
        return False
    return digest(data) == fingerprint


def _read(path: Path, first_event: int) -> SessionUnits | str:
    """The units of a file, or one line saying why it cannot be indexed."""
    from klipui.session import SessionError

    try:
        read = read_units(path, first_event)
    except SessionError as error:
        return str(error)
    except Exception as error:  # one file must never stop an update
        return f"{path}: cannot be read ({type(error).__name__}: {str(error)[:120]})"
    return read


@contextlib.contextmanager
def _pool(workers: int) -> Iterator[Executor | None]:
    """A process pool of `workers` (forkserver where there is one: the app has threads), or
    None for 0 or 1."""
    if workers <= 1:
        yield None
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    executor = ProcessPoolExecutor(max_workers=workers, mp_context=context)
    try:
        yield executor
    finally:
        executor.shutdown(wait=True, cancel_futures=True)


def _reads(
    plans: list[_Plan], executor: Executor | None
) -> Iterator[tuple[_Plan, SessionUnits | str]]:
    """Each plan with its read, in order; reads run ahead in `executor` when given (and here,
    when the pool cannot be used: it could not start, or a worker died)."""
    window = 8
    pending: list[Future[SessionUnits | str] | None] = []

    def submit(plan: _Plan) -> Future[SessionUnits | str] | None:
        nonlocal executor
        if executor is None:
            return None
        try:
            return executor.submit(_read, plan.path, plan.first_event)
        except Exception:  # a broken pool: read the rest here
            executor = None
            return None

    pending = [submit(p) for p in plans[:window]]
    for index, plan in enumerate(plans):
        if index + window < len(plans):
            pending.append(submit(plans[index + window]))
        future = pending[index]
        read: SessionUnits | str | None = None
        if future is not None:
            try:
                read = future.result()
            except Exception:  # a worker that died: read the file here
                executor = None
        yield plan, read if read is not None else _read(plan.path, plan.first_event)
