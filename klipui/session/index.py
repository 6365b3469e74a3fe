"""The session index: where each record of a file sits, and records decoded only when asked.

`RecordIndex` is what one pass over a file's bytes leaves behind: the line number of every
good record and, per block of about 8 MB, where the block starts (byte offset, first line, first
record). A record's own offset and length are found on demand by scanning its block for
newlines; its bytes are then read again (a plain file: from the file, after checking it was only
appended to; zstd: from the decompressed content) and decoded by the same `parse_lines` the
whole-file reader uses, so a record decoded late is the record a full read gives.

`LazyRecords` and `LazyEvents` are the `Sequence`s an index-first `Session` holds: items are
decoded (and lowered) when read, a slice or an iteration decodes a run of records in one read,
and decoded items live in a bounded least-recently-used cache.
"""

from __future__ import annotations

import os
import re
from abc import ABC, abstractmethod
from array import array
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TypeVar, overload

from klipui.session.files import open_regular
from klipui.session.jsonl import BOM, PRINT_BYTES, ZSTD_MAGIC, digest_ends, parse_lines
from klipui.session.model import Event, Problem, Record, Session, SourceChanged

T = TypeVar("T")

CACHE_RECORDS = 4096
"""Decoded records (or lowered records' events) a lazy sequence keeps."""
CACHE_BYTES = 64 << 20
"""Bytes of native lines whose decoded records a lazy sequence keeps at most."""
_RUN = 512
"""Records decoded at a time while iterating."""
_WINDOW = 1 << 20
"""Bytes of a plain file read ahead for a short read (the next records come from them)."""


class RecordIndex:
    """Line numbers of a file's good records, and its blocks; offsets found when needed."""

    def __init__(
        self,
        path: Path,
        data: bytes | None,
        stat: tuple[int, int] | None = None,
        digest: bytes | None = None,
    ) -> None:
        self.path = path
        self.data = data
        """The decompressed content of a zstd file (records are read from it), else None."""
        self.stat = stat
        """(size, mtime_ns) of a plain file as read."""
        self.digest = digest
        self.frames: list[tuple[int, int, int]] | None = None
        """A zstd file read frame by frame: (file offset, length, content offset) of each frame
        (records are read by decompressing their frames again)."""
        self._frame_starts = array("q")
        self._window: tuple[int, bytes] | None = None
        self._frame_cache: _Cache[bytes] = _Cache(8, 16 << 20)
        self.lines = array("q")
        """1-based line number of each record."""
        self._blocks: list[tuple[int, int, int]] = []
        """(byte offset, first line number - 1, block length) of each block."""
        self._first_record = array("q")
        """Index of the first record of each block."""
        self._spans: dict[int, tuple[array[int], array[int]]] = {}
        self.checked: tuple[int, int] | None = stat

    def __len__(self) -> int:
        return len(self.lines)

    def add_block(self, offset: int, first_line: int, length: int, lines: Sequence[int]) -> None:
        """Record a block of `length` bytes at `offset` after `first_line` lines, and the line
        numbers of its good records."""
        self._blocks.append((offset, first_line, length))
        self._first_record.append(len(self.lines))
        self.lines.extend(lines)

    def span(self, index: int) -> tuple[int, int]:
        """(offset, length) of record `index` in the (decompressed) file."""
        block = bisect_right(self._first_record, index) - 1
        offsets, lengths = self._block_spans(block)
        line = self.lines[index] - self._blocks[block][1] - 1
        return offsets[line], lengths[line]

    def _block_spans(self, block: int) -> tuple[array[int], array[int]]:
        found = self._spans.get(block)
        if found is None:
            offset, _, length = self._blocks[block]
            found = line_spans(self.read(offset, length), offset)
            self._spans[block] = found
        return found

    def read(self, offset: int, length: int) -> bytes:
        """`length` bytes of the (decompressed) file at `offset` (`SourceChanged` when a plain
        file is no longer what was read, only appended to being fine)."""
        if self.data is not None:
            return self.data[offset : offset + length]
        window = self._window
        if (
            window is not None
            and window[0] <= offset
            and offset + length <= window[0] + len(window[1])
        ):
            start = offset - window[0]
            return window[1][start : start + length]
        with open_regular(self.path) as handle:
            self._check(handle.fileno())
            if self.frames is not None:
                return self._from_frames(handle.fileno(), offset, length)
            if length >= _WINDOW:
                return os.pread(handle.fileno(), length, offset)
            # Callers mostly read records in file order: read ahead, so that the next ones are
            # served without opening the file again.
            data = os.pread(handle.fileno(), _WINDOW, offset)
        self._window = (offset, data)
        return data[:length]

    def _from_frames(self, fd: int, offset: int, length: int) -> bytes:
        """Content bytes `offset` to `offset + length` of a zstd file, from its frames."""
        frames = self.frames or []
        if len(self._frame_starts) != len(frames):
            self._frame_starts = array("q", (start for _, _, start in frames))
        number = max(bisect_right(self._frame_starts, offset) - 1, 0)
        parts: list[bytes] = []
        start = self._frame_starts[number] if frames else 0
        end = offset + length
        while number < len(frames) and start < end:
            content = self._frame(fd, number)
            parts.append(content)
            start += len(content)
            number += 1
        data = b"".join(parts)
        skip = offset - self._frame_starts[max(bisect_right(self._frame_starts, offset) - 1, 0)]
        return data[skip : skip + length]

    def _frame(self, fd: int, number: int) -> bytes:
        found = self._frame_cache.take(number)
        if found is None:
            import zstandard

            where, size, _ = (self.frames or [])[number]
            frame = os.pread(fd, size, where)
            if frame[:4] == ZSTD_MAGIC:
                found = zstandard.ZstdDecompressor().decompressobj().decompress(frame)
            else:
                found = b""  # a skippable frame
            self._frame_cache.keep(number, found, len(found))
        return found

    def _check(self, fd: int) -> None:
        stat = os.fstat(fd)
        now = (stat.st_size, stat.st_mtime_ns)
        if self.stat is None or now == self.checked:
            return
        size = self.stat[0]
        changed = stat.st_size < size or (stat.st_size == size and now != self.stat)
        if not changed and self.digest is not None:
            changed = _ends_digest(fd, size) != self.digest
        if changed:
            raise SourceChanged(f"{self.path}: changed since it was read; open it again")
        self.checked = now

    def records(self, start: int, stop: int) -> list[Record]:
        """Records `start` to `stop` (exclusive), decoded as a whole read decodes them."""
        if start >= stop:
            return []
        first, _ = self.span(start)
        last, length = self.span(stop - 1)
        data = self.read(first, last + length - first)
        # A record at offset 0 means the file has no byte order mark: none is skipped twice.
        found, _, _, _ = parse_lines(
            data, str(self.path), offset=first, first=self.lines[start] - 1
        )
        wanted = set(self.lines[start:stop])
        kept = [record for record in found if record.line in wanted]
        if len(kept) != stop - start:
            raise SourceChanged(
                f"{self.path}: a record no longer reads as it did when the file was indexed"
                " (the file changed, or holds a line the index took for a record)"
            )
        return kept


def _ends_digest(fd: int, size: int) -> bytes:
    """`fingerprint` of the first `size` bytes of the open file `fd`, read from their ends."""
    reach = min(size, PRINT_BYTES)
    return digest_ends(os.pread(fd, reach, 0), os.pread(fd, reach, size - reach))


def line_spans(block: bytes, offset: int) -> tuple[array[int], array[int]]:
    """(offsets, lengths) of every line of `block` (which starts at byte `offset` of the file),
    as `parse_lines` cuts them: a CR before the newline is not part of the line, and a byte order
    mark at the start of the file is skipped."""
    offsets = array("q")
    lengths = array("q")
    find = block.find
    size = len(block)
    pos = len(BOM) if offset == 0 and block.startswith(BOM) else 0
    while pos < size:
        end = find(b"\n", pos)
        if end < 0:
            end = size
        stop = end - 1 if end > pos and block[end - 1] == 13 else end
        offsets.append(offset + pos)
        lengths.append(stop - pos)
        pos = end + 1
    return offsets, lengths


class RecordSpans:
    """The native bytes of records that know their place (a session read whole), read from the
    file when asked rather than by keeping the whole file in memory."""

    def __init__(self, records: Sequence[Record], index: RecordIndex) -> None:
        self.records = records
        self.source = index

    def raw(self, index: int) -> bytes:
        """The bytes of record `index`, without newline."""
        record = self.records[index]
        return self.source.read(record.offset, record.length)


class _Cache(OrderedDict[int, T]):
    """A least-recently-used map bounded by entries and by the bytes they stand for."""

    def __init__(self, entries: int, weight: int) -> None:
        super().__init__()
        self.entries = entries
        self.weight = weight
        self.held = 0
        self._weights: dict[int, int] = {}

    def take(self, key: int) -> T | None:
        found = self.get(key)
        if found is not None:
            self.move_to_end(key)
        return found

    def keep(self, key: int, value: T, weight: int) -> None:
        if key in self:
            return
        self[key] = value
        self._weights[key] = weight
        self.held += weight
        while len(self) > self.entries or (self.held > self.weight and len(self) > 1):
            old, _ = self.popitem(last=False)
            self.held -= self._weights.pop(old)


class _LazySequence(Sequence[T]):
    """A sequence read from the file on demand: an item alone (`_item`), or a run of items
    (`run`) for a slice."""

    what = "item"

    @abstractmethod
    def __len__(self) -> int: ...

    @abstractmethod
    def run(self, start: int, stop: int, *, keep: bool = True) -> list[T]: ...

    @abstractmethod
    def _item(self, position: int) -> T: ...

    @overload
    def __getitem__(self, key: int) -> T: ...

    @overload
    def __getitem__(self, key: slice) -> list[T]: ...

    def __getitem__(self, key: int | slice) -> T | list[T]:
        if isinstance(key, slice):
            start, stop, step = key.indices(len(self))
            if step != 1:
                return [self[i] for i in range(start, stop, step)]
            return self.run(start, stop)
        position = key + len(self) if key < 0 else key
        if not 0 <= position < len(self):
            raise IndexError(f"{self.what} index out of range")
        return self._item(position)


class LazyRecords(_LazySequence[Record]):
    """A session's records, decoded from the file when read."""

    def __init__(self, index: RecordIndex, first: Sequence[Record] = ()) -> None:
        self.source = index
        self._cache: _Cache[Record] = _Cache(CACHE_RECORDS, CACHE_BYTES)
        for position, record in enumerate(first):
            self._cache.keep(position, record, record.length)

    def __len__(self) -> int:
        return len(self.source)

    what = "record"

    def _item(self, position: int) -> Record:
        found = self._cache.take(position)
        if found is None:
            found = self.run(position, position + 1)[0]
        return found

    def run(self, start: int, stop: int, *, keep: bool = True) -> list[Record]:
        """Records `start` to `stop`, from the cache where it has them."""
        out: list[Record] = []
        missing_from = None
        for position in range(start, stop):
            found = self._cache.take(position)
            if found is None:
                missing_from = position
                break
            out.append(found)
        if missing_from is None:
            return out
        decoded = self.source.records(missing_from, stop)
        if keep:
            for position, record in enumerate(decoded, missing_from):
                self._cache.keep(position, record, record.length)
        return out + decoded

    def __iter__(self) -> Iterator[Record]:
        for start in range(0, len(self), _RUN):
            yield from self.run(start, min(start + _RUN, len(self)), keep=False)

    def raw(self, index: int) -> bytes:
        """The native bytes of record `index`, without newline."""
        offset, length = self.source.span(index)
        return self.source.read(offset, length)


Lower = Callable[[int, Record], list[Event]]
"""The events of one record (its index in the session's records, and the record)."""


class LazyEvents(_LazySequence[Event]):
    """A session's events, each record lowered when one of its events is read."""

    def __init__(self, records: LazyRecords, starts: array[int], lower: Lower) -> None:
        self.records = records
        self.starts = starts
        """`starts[r]`: the index of the first event of record `r`; one more entry at the end
        holds the number of events."""
        self.lower = lower
        self._cache: _Cache[list[Event]] = _Cache(CACHE_RECORDS, CACHE_BYTES)

    def __len__(self) -> int:
        return self.starts[-1] if self.starts else 0

    what = "event"

    def _item(self, position: int) -> Event:
        record = bisect_right(self.starts, position) - 1
        return self._record_events(record, None)[position - self.starts[record]]

    def _record_events(self, record: int, decoded: Record | None, keep: bool = True) -> list[Event]:
        found = self._cache.take(record)
        if found is None:
            found = self.lower(record, decoded or self.records[record])
            if keep:
                self._cache.keep(record, found, self.starts[record + 1] - self.starts[record])
        return found

    def run(self, start: int, stop: int, *, keep: bool = True) -> list[Event]:
        """Events `start` to `stop`: their records decoded in one read."""
        if start >= stop:
            return []
        first = bisect_right(self.starts, start) - 1
        last = bisect_right(self.starts, stop - 1) - 1
        out: list[Event] = []
        for record_index, record in enumerate(self.records.run(first, last + 1, keep=keep), first):
            out.extend(self._record_events(record_index, record, keep))
        return out[start - self.starts[first] : stop - self.starts[first]]

    def __iter__(self) -> Iterator[Event]:
        total = len(self.records)
        for start in range(0, total, _RUN):
            stop = min(start + _RUN, total)
            begin, end = self.starts[start], self.starts[stop]
            if end > begin:
                yield from self.run(begin, end, keep=False)


_BIG_EXPONENTS = (re.compile(rb"e\+?[0-9]{3}"), re.compile(rb"E\+?[0-9]{3}"))
"""Exponents of three digits or more (searched from their letter, which keeps the scan fast)."""
_NUMBER_CHARS = frozenset(b"0123456789.-")
_BEFORE_NUMBER = frozenset(b":,[ \t\r\n")


def may_overflow(block: bytes) -> bool:
    """Whether `block` may hold a number beyond the float range written with an exponent (the
    full reader refuses it; msgspec would take it). A string that looks so (a hex id "…4e500…")
    only makes the block read line by line. (Numbers of over 308 digits without an exponent,
    and lines nested over 254 levels deep, are not looked for: a record of a fast block that
    turns out so is refused when it is decoded, see `RecordIndex.records`.)"""
    for pattern in _BIG_EXPONENTS:
        for found in pattern.finditer(block):
            start = found.start()
            while start > 0 and block[start - 1] in _NUMBER_CHARS:
                start -= 1
            if start < found.start() and (start == 0 or block[start - 1] in _BEFORE_NUMBER):
                return True
    return False


def fast_candidate(block: bytes) -> bool:
    """Whether a block may be read by a typed fast decoder rather than line by line: whole
    lines, valid UTF-8, no number that could overflow a float. A block that fails this, or
    that the fast decoder refuses, is read as a whole read reads it."""
    if not block.endswith(b"\n") or may_overflow(block):
        return False
    if block.isascii():
        return True
    try:
        block.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


class Indexer(ABC):
    """One format's index-first reading: takes the blocks of a file, builds its `Session`.

    A block is first offered to `fast`; when that gives None the block's records, decoded as a
    whole read decodes them (records whose `type` is not a string already left out and
    reported), go to `exact`.
    """

    def __init__(self, path: Path, index: RecordIndex) -> None:
        self.path = path
        self.index = index

    @abstractmethod
    def exact(self, records: list[Record]) -> None:
        """Take the next records, fully decoded."""

    @abstractmethod
    def fast(self, block: bytes, first_line: int) -> tuple[list[int], list[Problem]] | None:
        """Take a block of whole lines (after `first_line` lines) whose every line is a JSON
        object: the line numbers of its records and the problems of records whose `type` is not
        a string; None when the block must be read line by line instead."""

    @abstractmethod
    def finish(self, records: LazyRecords, problems: list[Problem]) -> Session:
        """The session, given its records and the problems met while reading."""
