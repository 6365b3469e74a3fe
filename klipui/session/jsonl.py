"""Tolerant JSONL reading that never loses a good line, and atomic writing of new files.

Reading: only a regular file is read (a FIFO or a device is refused at once, see
`files.open_regular`). A plain file is read in blocks of about 8 MB cut at newlines (no memory
mapping: a file that shrinks while it is read must not fault), each line decoded with orjson
straight from a memoryview (no copy); the file is read up to the size it had when opened, and a
file that shrank meanwhile is reported. A line that is not a JSON object becomes a
`Problem(path, line, reason)` and the rest still loads; so does a line nested too deeply to
decode or to be written back. Transparently handled, without a problem: a UTF-8 byte
order mark at the start, CRLF line ends, blank (whitespace-only) lines, lone UTF-16 surrogate
escapes (`"\\ud83d"`, written by JavaScript when it cuts an emoji in half; replaced by U+FFFD).

zstd input (a series of independent frames, as the DeepSeek Harness writes) is detected by its
magic bytes, not by the file name, and decompressed one frame at a time: a file cut inside its
last frame (a live session being written) keeps the whole lines that stream out of that frame;
a frame that is broken, or data that is not a frame, ends the content there, every whole line
before it kept and the rest reported; the decompressed content is capped (`MAX_DECOMPRESSED`)
so that a small file expanding to gigabytes is cut, and said to be. A file named `.jsonl.zstd`
that is neither zstd nor JSON lines is reported as "not a zstd stream".

Writing: `write_new` writes a temp file in the target folder and hard-links it into place, so a
reader never sees half a file and an existing file is never overwritten (FileExistsError).
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from klipui.session.files import open_regular
from klipui.session.model import Problem, Record

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
ZSTD_SUFFIXES = (".zstd", ".zst")
TRUNCATED_FRAME = "truncated zstd frame (still being written?)"
BOM = b"\xef\xbb\xbf"
HEAD_BYTES = 256 * 1024
"""Default bound of a head read (decompressed bytes)."""
HEAD_LINES = 400
MAX_DECOMPRESSED = 1 << 30
"""Decompressed bytes of a zstd file beyond which the content is cut (and the cut reported)."""
PRINT_BYTES = 64 * 1024
"""Bytes at each end of a file that its fingerprint covers."""
_PRINT = PRINT_BYTES
MAX_DEPTH = 254
"""Containers a record may nest (orjson writes no deeper): a deeper line is a Problem."""
_BLOCK = 8 << 20
"""Bytes of a plain file read at a time (a block then extends to the next newline)."""
_ZSTD_OUT = 1 << 20
"""Decompressed bytes asked of a zstd frame at a time."""
_ZSTD_IN = 1 << 20
"""Compressed bytes read at a time (at least; more while a frame is incomplete)."""
_ZSTD_BATCH = 1 << 20
"""Decompressed bytes per zstd frame after the header frame, when writing."""
_SKIPPABLE = 0x184D2A50
_FRAME = 0xFD2FB528


@dataclass(slots=True)
class Loaded:
    """A whole file read: its records, the problems met, and the decompressed bytes."""

    records: list[Record]
    problems: list[Problem]
    compression: str | None
    """"zstd" when the file was zstd-compressed, else None."""
    data: bytes | None
    """The decompressed content that `Record.offset/length` index; None for a plain file,
    whose records the offsets index directly."""
    size: int = 0
    """Bytes of the file read (for a plain file: what the offsets index)."""
    fingerprint: bytes | None = None
    """`fingerprint` of the bytes read of a plain file (to tell, on reading it again, that it
    was only appended to)."""


@dataclass(slots=True)
class Head:
    """A bounded read of the start of a file: the decoded values of its first complete lines."""

    values: list[Any]
    """Decoded values of the first good lines (objects only), in order."""
    lines: int
    """How many complete lines the head held (good, bad and blank)."""
    complete: bool
    """True when the head reached the end of the file (so the figures are exact)."""
    compression: str | None
    problems: list[Problem] = field(default_factory=list)


@dataclass(slots=True)
class _Stop:
    """Why a read stopped before the end of the data: a reason, and whether the content up to
    the stop may end inside a line (then only its whole lines are kept)."""

    reason: str = ""
    cut: bool = False


def is_zstd(prefix: bytes) -> bool:
    """True when `prefix` starts with the zstd frame magic number."""
    return prefix[:4] == ZSTD_MAGIC


def read_bytes(path: Path | str) -> tuple[bytes, str | None, Problem | None]:
    """The content of `path` (decompressed when it is zstd), the compression, and a problem.

    zstd content that stops early (a cut last frame, a broken frame, data that is not zstd, the
    decompressed size cap) keeps the whole lines before the stop; the problem names the line
    after them. A plain file is read up to the size it had when opened.
    """
    with open_regular(path) as handle:
        zstd = is_zstd(handle.read(4))
        handle.seek(0)
        stop = _Stop()
        if zstd:
            data = b"".join(_zstd_pieces(handle, stop))
        else:
            data = b"".join(block for _, block in _plain_blocks(handle, stop))
    if not stop.reason:
        return data, "zstd" if zstd else None, None
    if stop.cut:
        data = data[: data.rfind(b"\n") + 1]
    line = data.count(b"\n") + 1 if zstd else 0
    return data, "zstd" if zstd else None, Problem(str(path), line, stop.reason)


def zstd_frames_end(data: bytes | memoryview | bytearray) -> int:
    """Where the last whole zstd frame of `data` ends: `len(data)` when every frame is whole,
    less when the data stops inside a frame (frame and block headers are walked, nothing is
    decompressed). Skippable frames count as frames; data that is not a frame stops the walk."""
    size = len(data)
    pos = 0
    while pos + 4 <= size:
        end = _frame_extent(data, pos)
        if end is None or end > size:
            return pos
        pos = end
    return pos if pos < size else size


def _frame_extent(data: bytes | memoryview | bytearray, pos: int) -> int | None:
    """The end of the (skippable or zstd) frame at `pos`, past the data's end when the frame is
    cut there; None when `pos` starts no frame."""
    if pos + 4 > len(data):
        return len(data) + 1
    magic = int.from_bytes(data[pos : pos + 4], "little")
    if magic & 0xFFFFFFF0 == _SKIPPABLE:  # skippable frame: 4-byte length, then payload
        if pos + 8 > len(data):
            return len(data) + 1
        return pos + 8 + int.from_bytes(data[pos + 4 : pos + 8], "little")
    if magic == _FRAME:
        return _frame_end(data, pos)
    return None


def _frame_end(data: bytes | memoryview | bytearray, start: int) -> int:
    """The end of the zstd frame at `start` (past the data's end when the frame is cut)."""
    size = len(data)
    if start + 5 > size:
        return size + 1
    descriptor = data[start + 4]
    single_segment = descriptor >> 5 & 1
    content_size_bytes = (0 if not single_segment else 1, 2, 4, 8)[descriptor >> 6]
    pos = start + 5 + (0 if single_segment else 1)
    pos += (0, 1, 2, 4)[descriptor & 3] + content_size_bytes
    while pos + 3 <= size:
        header = int.from_bytes(data[pos : pos + 3], "little")
        block_type = header >> 1 & 3
        pos += 3 + (1 if block_type == 1 else header >> 3)
        if header & 1:
            return pos + (4 if descriptor >> 2 & 1 else 0)
    return size + 1


def _zstd_pieces(
    handle: BinaryIO,
    stop: _Stop,
    cap: int | None = None,
    frames: list[tuple[int, int, int]] | None = None,
) -> Iterator[bytes]:
    """The decompressed content of the zstd file at `handle`, in pieces, one frame at a time.

    Stops (setting `stop`) at a frame cut by the end of the file, a frame that does not
    decompress, data that is not a frame, or once `cap` (default `MAX_DECOMPRESSED`)
    decompressed bytes came out. `frames` is given (file offset, length, content offset) of
    each frame read.
    """
    import zstandard

    limit = MAX_DECOMPRESSED if cap is None else cap
    decompressor = zstandard.ZstdDecompressor()
    buffer = bytearray()
    consumed = 0
    produced = 0
    eof = False
    while True:
        end, eof = _fill(handle, buffer, eof)
        if not buffer:
            return
        if end is None:
            stop.reason = (
                f"not zstd data at byte {consumed}: the rest of the file is skipped"
                if consumed
                else "not a zstd stream"
            )
            stop.cut = True
            return
        cut = end > len(buffer)
        frame = bytes(buffer[: min(end, len(buffer))])
        del buffer[: len(frame)]
        if frames is not None:
            frames.append((consumed, len(frame), produced))
        if int.from_bytes(frame[:4], "little") & 0xFFFFFFF0 != _SKIPPABLE:
            reader = decompressor.stream_reader(frame, read_across_frames=False)
            try:
                while chunk := reader.read(min(_ZSTD_OUT, limit - produced + 1)):
                    produced += len(chunk)
                    if produced > limit:
                        yield chunk[: len(chunk) - (produced - limit)]
                        stop.reason = (
                            f"decompressed content cut at {limit:,} bytes (the file expands "
                            "further: too big to read, or a zstd bomb)"
                        )
                        stop.cut = True
                        return
                    yield chunk
            except zstandard.ZstdError as error:
                stop.reason = f"broken zstd frame at byte {consumed}: {error}; the rest is skipped"
                stop.cut = True
                return
        consumed += len(frame)
        if cut:
            stop.reason, stop.cut = TRUNCATED_FRAME, True
            return


def _fill(handle: BinaryIO, buffer: bytearray, eof: bool) -> tuple[int | None, bool]:
    """Read into `buffer` (unless the file already ended) until it starts with a whole frame:
    where that frame ends (past the buffer when the file ends inside it; None when the buffer
    starts no frame), and whether the file ended."""
    end = _frame_extent(buffer, 0) if buffer else len(buffer) + 1
    while not eof and (end is not None and end > len(buffer)):
        more = handle.read(max(_ZSTD_IN, len(buffer)))
        if not more:
            return end, True
        buffer += more
        end = _frame_extent(buffer, 0)
    return end, eof


def _plain_blocks(handle: BinaryIO, stop: _Stop) -> Iterator[tuple[int, bytes]]:
    """(offset, block) runs of a plain file, each ending at a newline (the last may not), read
    up to the size the file had when opened; `stop` says so when the file shrank meanwhile."""
    size = os.fstat(handle.fileno()).st_size
    remaining = size
    pending: list[bytes] = []
    pending_size = 0
    offset = 0
    while remaining > 0:
        chunk = handle.read(min(_BLOCK, remaining))
        if not chunk:
            stop.reason = (
                f"the file shrank while it was read ({size:,} bytes when opened, "
                f"{size - remaining:,} read): changed since read, the rest is missing"
            )
            break
        remaining -= len(chunk)
        cut = chunk.rfind(b"\n")
        if cut < 0:
            pending.append(chunk)
            pending_size += len(chunk)
            continue
        block = b"".join([*pending, chunk[: cut + 1]]) if pending else chunk[: cut + 1]
        yield offset, block
        offset += len(block)
        pending = [chunk[cut + 1 :]] if cut + 1 < len(chunk) else []
        pending_size = len(chunk) - cut - 1
    if pending_size:
        yield offset, b"".join(pending)


def decode_line(line: bytes | memoryview) -> Any:
    """Decode one JSON line; raises ValueError with a short reason when it is not JSON."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError as error:
        first_reason = _short_reason(error)  # not the error itself: its frames hold `line`
    if "depth limit" in first_reason:
        raise ValueError("nested too deeply to decode (over 1,024 levels)") from None
    raw = bytes(line)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"invalid UTF-8 at byte {error.start}") from None
    try:
        value = json.loads(text, parse_float=_finite_float, parse_constant=_no_constant)
    except _NotFinite as error:
        raise ValueError(str(error)) from None
    except RecursionError:
        raise ValueError("nested too deeply to decode") from None
    except ValueError:
        raise ValueError(f"invalid JSON: {first_reason}") from None
    # Here for lone surrogate escapes or integers beyond 64 bits, which only the stdlib takes.
    try:
        return _without_lone_surrogates(value) if "\\u" in text else value
    except RecursionError:
        raise ValueError("nested too deeply to decode") from None


class _NotFinite(Exception):
    """A number JSON cannot hold (beyond the float range, NaN, Infinity)."""


def _finite_float(text: str) -> float:
    number = float(text)
    if number in (float("inf"), float("-inf")):
        raise _NotFinite(f"number out of range: {text[:40]}")
    return number


def _no_constant(text: str) -> float:
    raise _NotFinite(f"not a JSON number: {text}")


def _without_lone_surrogates(value: Any) -> Any:
    """`value` with every lone UTF-16 surrogate in its strings replaced by U+FFFD."""
    if isinstance(value, str):
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    if isinstance(value, list):
        return [_without_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {_without_lone_surrogates(k): _without_lone_surrogates(v) for k, v in value.items()}
    return value


def _short_reason(error: Exception) -> str:
    return str(error).split("\n", 1)[0]


def kind_name(value: Any) -> str:
    """What a JSON value is, in words ("an array", "a string", ...)."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return "a number"


def parse_lines(
    data: bytes | bytearray,
    path: str,
    *,
    start: int = 0,
    limit: int | None = None,
    offset: int = 0,
    first: int = 0,
) -> tuple[list[Record], list[Problem], int, int]:
    """Cut `data` into lines from byte `start` and decode them.

    Returns (records, problems, lines seen, end offset). With `limit`, stops after that many
    lines; a last line without a newline counts only when the whole of `data` was meant to be
    read (`limit` None), and is then reported as truncated when it does not decode. `data` is
    the block of a file that starts at byte `offset` after `first` lines: record offsets and
    line numbers are the file's own (a byte order mark is skipped only at the file's start).
    """
    records: list[Record] = []
    problems: list[Problem] = []
    loads = orjson.loads
    find = data.find
    size = len(data)
    pos = start
    if pos == 0 and offset == 0 and data[: len(BOM)] == BOM:
        pos = len(BOM)
    number = 0
    with memoryview(data) as view:
        while pos < size and (limit is None or number < limit):
            end = find(b"\n", pos)
            has_newline = end >= 0
            if not has_newline:
                if limit is not None:
                    break
                end = size
            number += 1
            stop = end - 1 if end > pos and data[end - 1] == 13 else end
            try:
                value = loads(view[pos:stop])
            except orjson.JSONDecodeError:
                value = _slow_line(
                    bytes(data[pos:stop]), path, first + number, has_newline, problems
                )
                if value is None:
                    pos = end + 1
                    continue
            if type(value) is not dict:
                reason = f"not a JSON object ({kind_name(value)})"
                problems.append(Problem(path, first + number, reason))
            elif stop - pos > 2 * MAX_DEPTH and _deeper_than(data, pos, stop, value):
                reason = f"nested more than {MAX_DEPTH} levels deep (it could not be written back)"
                problems.append(Problem(path, first + number, reason))
            else:
                records.append(Record(first + number, offset + pos, stop - pos, value))
            pos = end + 1
    return records, problems, number, min(pos, size)


def _deeper_than(data: bytes | bytearray, start: int, stop: int, value: Any) -> bool:
    """True when `value` (decoded from `data[start:stop]`) nests more than `MAX_DEPTH`
    containers; the decoded value is walked only when the line holds enough brackets."""
    if data.count(b"[", start, stop) + data.count(b"{", start, stop) <= MAX_DEPTH:
        return False
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        children = node.values() if isinstance(node, dict) else node
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


def _slow_line(
    raw: bytes, path: str, number: int, has_newline: bool, problems: list[Problem]
) -> Any:
    """Decode a line orjson refused: blank, surrogates, or bad (then a Problem and None)."""
    if not raw.strip():
        return None
    try:
        value = decode_line(raw)
    except ValueError as error:
        reason = str(error)
        if not has_newline:
            reason = f"truncated last line (no newline; still being written?): {reason}"
        problems.append(Problem(path, number, reason))
        return None
    if value is None:
        problems.append(Problem(path, number, "not a JSON object (null)"))
    return value


def read_jsonl(path: Path | str) -> Loaded:
    """Read a whole JSONL file (zstd or plain): every good line a Record, each bad one a Problem.

    A plain file is read a block at a time, so that peak memory is the decoded records plus one
    block, not the records plus the file; its `Loaded.data` is then None (the records' offsets
    index the file itself). A zstd file is decompressed in memory and `Loaded.data` holds the
    decompressed bytes.
    A file that starts with the zstd magic but gives nothing when decompressed is read as
    plain lines.
    """
    name = str(path)
    records: list[Record] = []

    def take(block: bytes, offset: int, first: int, problems: list[Problem]) -> int:
        more, bad, seen, _ = parse_lines(block, name, offset=offset, first=first)
        records.extend(more)
        problems.extend(bad)
        return seen

    read = scan_blocks(path, take)
    return Loaded(
        records, read.problems(bool(records)), read.compression, read.data, read.size, read.digest
    )


BlockHandler = Callable[[bytes, int, int, list[Problem]], int]
"""`handle(block, offset, first_line, problems) -> lines seen`: a run of whole lines of a file
(the last may end without a newline), the byte offset and line number it starts after, and the
list its bad lines go to."""


@dataclass(slots=True)
class Scanned:
    """What `scan_blocks` learnt about a file besides its lines."""

    path: str
    compression: str | None
    data: bytes | None
    """The decompressed content of a zstd file (None for a plain one)."""
    size: int
    """Bytes of a plain file read (0 for zstd)."""
    digest: bytes | None
    """`fingerprint` of the bytes of a plain file read."""
    found: list[Problem]
    """The bad lines met, in line order."""
    stop: Problem | None
    """Why the read stopped early (a cut or broken zstd frame, a file that shrank)."""
    zstd_named: bool
    frames: list[tuple[int, int, int]] | None = None
    """zstd read without keeping its content: (file offset, length, content offset) of each
    frame, to decompress again the frames a record sits in."""

    def problems(self, any_record: bool) -> list[Problem]:
        """The problems as `read_jsonl` reports them, given whether any line was good."""
        problems = list(self.found)
        if self.stop is not None:
            problems.append(self.stop)
        elif self.compression is None and not any_record and problems and self.zstd_named:
            problems = [Problem(self.path, 0, "not a zstd stream")]
        return problems


def scan_blocks(
    path: Path | str,
    handle: BlockHandler,
    total: Callable[[int], None] | None = None,
    *,
    keep: bool = True,
) -> Scanned:
    """Feed `handle` the whole lines of a file (zstd or plain) in runs of about 8 MB, in order,
    as `read_jsonl` reads them; `read_jsonl` and the session index share it. `total` is told
    the bytes the blocks will cover (about: a plain file may change while it is read).
    `keep=False` decompresses a zstd file frame by frame without keeping its content (the
    frames are listed instead)."""
    path = Path(path)
    name = str(path)
    problems: list[Problem] = []
    with open_regular(path) as source:
        zstd = is_zstd(source.read(4))
        source.seek(0)
        if zstd and not keep:
            streamed = _scan_zstd(source, name, handle, problems)
            if streamed is not None:
                return streamed
            source.seek(0)  # nothing decompressed: a plain file whose first bytes are the magic
            zstd = False
        if zstd:
            data, compression, broken = read_bytes(path)
            if data or broken is None:
                if total is not None:
                    total(len(data))
                lines = 0
                for offset, block in memory_blocks(data):
                    lines += handle(block, offset, lines, problems)
                return Scanned(name, compression, data, 0, None, problems, broken, False)
            # Nothing decompressed: a plain file whose first bytes happen to be the magic.
        stop = _Stop()
        lines = size = 0
        head = tail = b""
        if total is not None:
            total(os.fstat(source.fileno()).st_size)
        for offset, block in _plain_blocks(source, stop):
            lines += handle(block, offset, lines, problems)
            size += len(block)
            if len(head) < _PRINT:
                head += block[: _PRINT - len(head)]
            tail = block[-_PRINT:] if len(block) >= _PRINT else (tail + block)[-_PRINT:]
    broken = Problem(name, 0, stop.reason) if stop.reason else None
    zstd_named = path.name.endswith(ZSTD_SUFFIXES)
    return Scanned(name, None, None, size, digest_ends(head, tail), problems, broken, zstd_named)


def _scan_zstd(
    source: BinaryIO, name: str, handle: BlockHandler, problems: list[Problem]
) -> Scanned | None:
    """`scan_blocks` of a zstd file, decompressed a frame at a time (None when nothing
    decompressed: then the file is read as plain lines)."""
    stop = _Stop()
    frames: list[tuple[int, int, int]] = []
    pieces = _zstd_pieces(source, stop, frames=frames)
    first = next(pieces, None)
    if first is None and stop.reason:
        return None
    lines = offset = 0
    batch: list[bytes] = [first] if first else []
    batched = len(first or b"")
    carry = b""
    for piece in pieces:
        batch.append(piece)
        batched += len(piece)
        if batched < _BLOCK:
            continue
        data = carry + b"".join(batch)
        batch, batched = [], 0
        cut = data.rfind(b"\n") + 1
        if cut:
            lines += handle(data[:cut], offset, lines, problems)
            offset += cut
        carry = data[cut:]
    data = carry + b"".join(batch)
    if stop.cut:
        data = data[: data.rfind(b"\n") + 1]
    if data:
        lines += handle(data, offset, lines, problems)
    broken = None
    if stop.reason:
        broken = Problem(name, lines + 1, stop.reason)
    return Scanned(name, "zstd", None, 0, None, problems, broken, False, frames)


def memory_blocks(data: bytes, size: int | None = None) -> Iterator[tuple[int, bytes]]:
    """(offset, block) runs of `data` of about `size` bytes (default: the block size of plain
    files), each ending at a newline (the last may not); a block is a copy only when it is not
    the whole of `data`."""
    size = _BLOCK if size is None else size
    total = len(data)
    if total <= size:
        if total:
            yield 0, data
        return
    start = 0
    while start < total:
        cut = data.find(b"\n", min(start + size, total) - 1)
        end = total if cut < 0 else cut + 1
        yield start, data[start:end]
        start = end


def fingerprint(data: bytes) -> bytes:
    """A digest of the first and last 64 KB of `data`: any rewrite that moves or changes the
    bytes of a file changes it (an append after `data` does not)."""
    return digest_ends(data[:_PRINT], data[-_PRINT:] if data else b"")


def file_digest(path: Path | str, size: int) -> bytes:
    """`fingerprint` of the first `size` bytes of the file at `path`, read from their ends."""
    reach = min(size, _PRINT)
    with open_regular(path) as handle:
        head = os.pread(handle.fileno(), reach, 0)
        tail = os.pread(handle.fileno(), reach, size - reach)
    return digest_ends(head, tail)


def digest_ends(head: bytes, tail: bytes) -> bytes:
    """The fingerprint of a file's bytes from their first and last `PRINT_BYTES`."""
    import hashlib

    return hashlib.blake2b(head + b"\0" + tail, digest_size=16).digest()


def scan_chunks(path: Path | str, handle: Callable[[memoryview], None]) -> None:
    """Call `handle` with successive runs of whole lines (about 8 MB each, BOM removed) of a
    file, in order, without keeping them: for typed scans that decode a few fields of each line
    (see `dsh.scan_info`). The last run may end without a newline. Memory stays bounded: a plain
    file is read a block at a time, a zstd file decompressed a frame at a time."""
    with open_regular(path) as source:
        zstd = is_zstd(source.read(4))
        source.seek(0)
        stop = _Stop()
        if zstd:
            _scan_stream(_zstd_pieces(source, stop), handle)
            return
        for offset, block in _plain_blocks(source, stop):
            view = memoryview(block)
            handle(view[len(BOM) :] if offset == 0 and block.startswith(BOM) else view)


def _scan_stream(pieces: Iterable[bytes], handle: Callable[[memoryview], None]) -> None:
    """`scan_chunks` over decompressed pieces: runs of about 8 MB cut at a newline."""
    carry = b""
    first = True
    batch: list[bytes] = []
    batched = 0
    for piece in pieces:
        batch.append(piece)
        batched += len(piece)
        if batched < _BLOCK:
            continue
        carry = _hand_over(carry + b"".join(batch), first, handle)
        first, batch, batched = False, [], 0
    data = carry + b"".join(batch)
    if first:
        data = data.removeprefix(BOM)
    if data:
        handle(memoryview(data))


def _hand_over(data: bytes, first: bool, handle: Callable[[memoryview], None]) -> bytes:
    """Give `handle` the whole lines of `data`; return the rest."""
    if first:
        data = data.removeprefix(BOM)
    cut = data.rfind(b"\n")
    if cut < 0:
        return data
    handle(memoryview(data)[: cut + 1])
    return data[cut + 1 :]


def read_head(path: Path | str, max_bytes: int = HEAD_BYTES, max_lines: int = HEAD_LINES) -> Head:
    """The first complete lines of a file, reading at most about `max_bytes` (decompressed).

    A first line longer than `max_bytes` is read on up to 16× the bound so that a header with a
    large first message still yields its values.
    """
    path = Path(path)
    with open_regular(path) as handle:
        compression = "zstd" if is_zstd(handle.read(4)) else None
        handle.seek(0)
        stop = _Stop()
        if compression:
            pieces = _zstd_pieces(handle, stop, cap=max_bytes * 16)
            data, eof = _read_bounded(_PieceReader(pieces).read, max_bytes)
        else:
            data, eof = _read_bounded(handle.read, max_bytes)
    if compression and not data and stop.reason:
        compression = None
    records, problems, lines, _ = parse_lines(data, str(path), limit=None if eof else max_lines)
    return Head([r.value for r in records], lines, eof, compression, problems)


def head_bytes(path: Path | str, size: int) -> bytes:
    """The first `size` bytes of a file's content (decompressed when it is zstd; fewer when
    the content is shorter or a zstd stream stops early)."""
    with open_regular(path) as handle:
        zstd = is_zstd(handle.read(4))
        handle.seek(0)
        if not zstd:
            return handle.read(size)
        data = _PieceReader(_zstd_pieces(handle, _Stop(), cap=size)).read(size)
    return data


class _PieceReader:
    """`read(size)` over an iterator of byte pieces."""

    def __init__(self, pieces: Iterator[bytes]) -> None:
        self._pieces = pieces
        self._rest = b""

    def read(self, size: int) -> bytes:
        while len(self._rest) < size:
            piece = next(self._pieces, None)
            if piece is None:
                break
            self._rest += piece
        out, self._rest = self._rest[:size], self._rest[size:]
        return out


def _read_bounded(read: Callable[[int], bytes], max_bytes: int) -> tuple[bytes, bool]:
    """At least `max_bytes` from `read` (up to 16× that while no newline came), and whether
    the end was reached."""
    data = bytearray()
    target, cap = max_bytes, max_bytes * 16
    while True:
        chunk = read(target - len(data))
        if not chunk:
            return bytes(data), True
        data += chunk
        if len(data) >= target:
            if b"\n" in data or target >= cap:
                return bytes(data), False
            target = min(target * 2, cap)


def write_new(
    path: Path | str,
    lines: Iterable[bytes],
    *,
    compression: str | None = None,
    mode: int | None = None,
) -> int:
    """Write `lines` (each without its newline) as a new file at `path`, atomically.

    The content goes to a temp file in the same folder, then is hard-linked into place, so the
    target appears whole or not at all and an existing file is never replaced (FileExistsError).
    `mode` sets the permission bits on the temp file before it is linked (None: what the umask
    gives a new file), so the file never appears with other permissions.
    With `compression="zstd"` the first frame holds only the first (header) line and the rest
    follows in independent frames of about 1 MB, as the DeepSeek Harness writes. Returns the
    number of bytes written.
    """
    path = Path(path)
    if path.exists():
        raise FileExistsError(f"{path}: already exists")
    folder = path.parent
    folder.mkdir(parents=True, exist_ok=True)
    handle, temp = _create_temp(folder, path.name)
    try:
        with os.fdopen(handle, "wb") as out:
            chunks = _zstd_frames(lines) if compression == "zstd" else _plain(lines)
            written = 0
            for chunk in chunks:
                out.write(chunk)
                written += len(chunk)
            out.flush()
            os.fsync(out.fileno())
        if mode is not None:
            os.chmod(temp, mode)
        _link_into_place(temp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temp.unlink()
    return written


def _create_temp(folder: Path, name: str) -> tuple[int, Path]:
    """A new, exclusively created temp file beside the target, with the permissions the umask
    gives a new file (mkstemp's would be 0600)."""
    for _ in range(100):
        temp = folder / f".{name}.{secrets.token_hex(6)}.tmp"
        try:
            return os.open(temp, os.O_CREAT | os.O_EXCL | os.O_WRONLY | _O_BINARY, 0o666), temp
        except FileExistsError:
            continue
    raise FileExistsError(f"{folder}: no free temp file name")


_O_BINARY = getattr(os, "O_BINARY", 0)


def _link_into_place(temp: Path, path: Path) -> None:
    try:
        os.link(temp, path)
    except FileExistsError:
        raise FileExistsError(f"{path}: already exists") from None
    except OSError:
        # No hard links on this file system: claim the name exclusively, then replace our claim.
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        os.close(fd)
        os.replace(temp, path)


def _plain(lines: Iterable[bytes]) -> Iterator[bytes]:
    batch: list[bytes] = []
    size = 0
    for line in lines:
        batch.append(line)
        size += len(line) + 1
        if size >= _ZSTD_BATCH:
            yield b"\n".join(batch) + b"\n"
            batch, size = [], 0
    if batch:
        yield b"\n".join(batch) + b"\n"


def _zstd_frames(lines: Iterable[bytes]) -> Iterator[bytes]:
    import zstandard

    compressor = zstandard.ZstdCompressor(write_content_size=True)
    iterator = iter(lines)
    for first in iterator:
        yield compressor.compress(first + b"\n")
        break
    for batch in _plain(iterator):
        yield compressor.compress(batch)
