"""Tolerant JSONL reading that never loses a good line, and atomic writing of new files.

Reading: a plain file is memory-mapped (its pages handed back to the OS as they are decoded), a
zstd file decompressed at once; the content is cut at newlines and each line decoded with orjson
straight from a memoryview (no copy). A line that is not a JSON object becomes a
`Problem(path, line, reason)` and the rest still loads. Transparently handled, without a problem:
a UTF-8 byte order mark at the start, CRLF line ends, blank (whitespace-only) lines, lone UTF-16
surrogate escapes (`"\\ud83d"`, written by JavaScript when it cuts an emoji in half; replaced by
U+FFFD). zstd input (a series of independent frames, as the DeepSeek Harness writes) is detected
by its magic bytes, not by the file name. A zstd file cut inside its last frame (a live session
being written) keeps the whole lines that stream out of that frame, and the cut is reported as a
problem on the line after them; a file named `.jsonl.zstd` that is neither zstd nor JSON lines
is reported as "not a zstd stream".

Writing: `write_new` writes a temp file in the target folder and hard-links it into place, so a
reader never sees half a file and an existing file is never overwritten (FileExistsError).
"""

from __future__ import annotations

import contextlib
import gc
import json
import mmap
import os
import secrets
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from klipui.session.model import Problem, Record

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
ZSTD_SUFFIXES = (".zstd", ".zst")
TRUNCATED_FRAME = "truncated zstd frame (still being written?)"
BOM = b"\xef\xbb\xbf"
HEAD_BYTES = 256 * 1024
"""Default bound of a head read (decompressed bytes)."""
HEAD_LINES = 400
_READ_CHUNK = 1 << 20
_RELEASE_EVERY = 8 << 20
"""Bytes decoded between two hand-backs of mapped pages."""
Buffer = bytes | mmap.mmap
_ZSTD_BATCH = 1 << 20
"""Decompressed bytes per zstd frame after the header frame, when writing."""


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


def is_zstd(prefix: bytes) -> bool:
    """True when `prefix` starts with the zstd frame magic number."""
    return prefix[:4] == ZSTD_MAGIC


def read_bytes(path: Path) -> tuple[bytes, str | None, Problem | None]:
    """The content of `path` (decompressed when it is zstd), the compression, and a problem.

    A zstd stream cut inside a frame keeps the whole lines that came out of it (the problem
    names the line after them); one that breaks otherwise keeps what came before the break.
    """
    with open(path, "rb") as handle:
        data = handle.read()
    if not is_zstd(data):
        return data, None, None
    content, error = _decompress_all(data)
    if error:
        reason = f"zstd data broken after {len(content)} bytes: {error}"
        return content, "zstd", Problem(str(path), 0, reason)
    if zstd_frames_end(data) < len(data):
        content = content[: content.rfind(b"\n") + 1]
        line = content.count(b"\n") + 1
        return content, "zstd", Problem(str(path), line, TRUNCATED_FRAME)
    return content, "zstd", None


def zstd_frames_end(data: bytes | memoryview) -> int:
    """Where the last whole zstd frame of `data` ends: `len(data)` when every frame is whole,
    less when the data stops inside a frame (frame and block headers are walked, nothing is
    decompressed). Skippable frames count as frames; data that is not a frame stops the walk."""
    size = len(data)
    pos = 0
    while pos + 4 <= size:
        magic = int.from_bytes(data[pos : pos + 4], "little")
        if magic & 0xFFFFFFF0 == 0x184D2A50:  # skippable frame: 4-byte length, then payload
            end = pos + 8 + int.from_bytes(data[pos + 4 : pos + 8], "little")
        elif magic == 0xFD2FB528:
            end = _frame_end(data, pos)
        else:
            return pos
        if end > size:
            return pos
        pos = end
    return pos if pos < size else size


def _frame_end(data: bytes | memoryview, start: int) -> int:
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


def _zstd_reader(source: BinaryIO | bytes) -> Any:
    import zstandard

    stream = source if not isinstance(source, bytes | bytearray) else _BytesSource(source)
    return zstandard.ZstdDecompressor().stream_reader(stream, read_across_frames=True)


class _BytesSource:
    """A minimal readable over bytes (avoids copying into io.BytesIO)."""

    def __init__(self, data: bytes) -> None:
        self._view = memoryview(data)
        self._pos = 0

    def read(self, size: int = -1) -> bytes:
        end = len(self._view) if size < 0 else min(len(self._view), self._pos + size)
        chunk = self._view[self._pos : end].tobytes()
        self._pos = end
        return chunk


def _decompress_all(data: bytes) -> tuple[bytes, str | None]:
    """Every frame of `data` concatenated (a truncated last frame gives what it holds), and the
    error that stopped decompression, if any."""
    import zstandard

    parts: list[bytes] = []
    reader = _zstd_reader(data)
    error = None
    try:
        while chunk := reader.read(_READ_CHUNK * 8):
            parts.append(chunk)
    except zstandard.ZstdError as failure:
        error = str(failure)
    return b"".join(parts), error


def decode_line(line: bytes | memoryview) -> Any:
    """Decode one JSON line; raises ValueError with a short reason when it is not JSON."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError as error:
        first_reason = _short_reason(error)  # not the error itself: its frames hold `line`
    raw = bytes(line)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"invalid UTF-8 at byte {error.start}") from None
    try:
        value = json.loads(text)
    except ValueError:
        raise ValueError(f"invalid JSON: {first_reason}") from None
    # Here for lone surrogate escapes or integers beyond 64 bits, which only the stdlib takes.
    return _without_lone_surrogates(value) if "\\u" in text else value


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


def _kind_name(value: Any) -> str:
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
    data: Buffer,
    path: str,
    *,
    start: int = 0,
    limit: int | None = None,
    release: Callable[[int], None] | None = None,
) -> tuple[list[Record], list[Problem], int, int]:
    """Cut `data` (bytes or an mmap) into lines from byte `start` and decode them.

    Returns (records, problems, lines seen, end offset). With `limit`, stops after that many
    lines; a last line without a newline counts only when the whole of `data` was meant to be
    read (`limit` None), and is then reported as truncated when it does not decode.
    `release(offset)` is called every few MB: everything before `offset` has been decoded.
    """
    records: list[Record] = []
    problems: list[Problem] = []
    loads = orjson.loads
    find = data.find
    size = len(data)
    pos = start
    if pos == 0 and data[: len(BOM)] == BOM:
        pos = len(BOM)
    number = 0
    next_release = pos + _RELEASE_EVERY
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
                value = _slow_line(data[pos:stop], path, number, has_newline, problems)
                if value is None:
                    pos = end + 1
                    continue
            if type(value) is dict:
                records.append(Record(number, pos, stop - pos, value))
            else:
                problems.append(Problem(path, number, f"not a JSON object ({_kind_name(value)})"))
            pos = end + 1
            if release is not None and pos >= next_release:
                release(pos)
                next_release = pos + _RELEASE_EVERY
    return records, problems, number, min(pos, size)


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


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector: building a million decoded records otherwise sets
    off full collections over and over (measured: 3x slower loads)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


Content = tuple[Buffer, Callable[[int], None] | None, str | None, Problem | None]


@contextlib.contextmanager
def _content(path: Path) -> Iterator[Content]:
    """The (decompressed) content of `path`: (buffer, release, compression, problem).

    A plain file is memory-mapped, and `release(offset)` hands the pages before `offset` back to
    the OS; a zstd file is decompressed into bytes (no release).
    """
    with open(path, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size == 0 or is_zstd(handle.read(4)) or not hasattr(mmap, "MADV_DONTNEED"):
            mapped = None
        else:
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    if mapped is None:
        data, compression, problem = read_bytes(path)
        yield data, None, compression, problem
        return
    released = 0

    def release(offset: int) -> None:
        nonlocal released
        upto = offset - offset % mmap.PAGESIZE
        if upto > released:
            mapped.madvise(mmap.MADV_DONTNEED, released, upto - released)
            released = upto

    try:
        yield mapped, release, None, None
    finally:
        with contextlib.suppress(BufferError):  # a view still held: the GC closes it later
            mapped.close()


def read_jsonl(path: Path | str) -> Loaded:
    """Read a whole JSONL file (zstd or plain): every good line a Record, each bad one a Problem.

    A plain file is memory-mapped and its pages are handed back to the OS as soon as they are
    decoded, so that peak memory is the decoded records, not the records plus the file; its
    `Loaded.data` is then None (the records' offsets index the file itself). A zstd file is
    decompressed in memory and `Loaded.data` holds the decompressed bytes.
    """
    path = Path(path)
    with _content(path) as (data, release, compression, broken), paused_gc():
        records, problems, _, _ = parse_lines(data, str(path), release=release)
    if broken:
        problems.append(broken)
    elif not records and problems and compression is None and path.name.endswith(ZSTD_SUFFIXES):
        problems = [Problem(str(path), 0, "not a zstd stream")]
    return Loaded(records, problems, compression, data if compression else None)


def scan_chunks(path: Path | str, handle: Callable[[memoryview], None]) -> None:
    """Call `handle` with successive runs of whole lines (about 8 MB each, BOM removed) of a
    file, in order, without keeping them: for typed scans that decode a few fields of each line
    (see `dsh.scan_info`). The last run may end without a newline. Memory stays bounded: a plain
    file is mapped and handed back as it goes, a zstd file is decompressed a run at a time."""
    path = Path(path)
    with open(path, "rb") as handle_file:
        zstd = is_zstd(handle_file.read(4))
        handle_file.seek(0)
        if zstd:
            _scan_stream(_zstd_reader(handle_file), handle)
            return
    with _content(path) as (data, release, _, _), memoryview(data) as view:
        size = len(data)
        pos = len(BOM) if data[: len(BOM)] == BOM else 0
        while pos < size:
            cut = data.find(b"\n", min(pos + _RELEASE_EVERY, size))
            end = size if cut < 0 else cut + 1
            handle(view[pos:end])
            pos = end
            if release is not None:
                release(pos)


def _scan_stream(source: Any, handle: Callable[[memoryview], None]) -> None:
    """`scan_chunks` over a readable stream: runs cut at the last newline of each read."""
    import zstandard

    carry = b""
    first = True
    while True:
        try:
            chunk = source.read(_RELEASE_EVERY)
        except zstandard.ZstdError:
            chunk = b""  # broken data: the full reader reports it; scan what came before
        if not chunk:
            break
        data = carry + chunk
        if first:
            data = data.removeprefix(BOM)
            first = False
        cut = data.rfind(b"\n")
        if cut < 0:
            carry = data
            continue
        handle(memoryview(data)[: cut + 1])
        carry = data[cut + 1 :]
    if carry:
        handle(memoryview(carry))


def read_head(path: Path | str, max_bytes: int = HEAD_BYTES, max_lines: int = HEAD_LINES) -> Head:
    """The first complete lines of a file, reading at most about `max_bytes` (decompressed).

    A first line longer than `max_bytes` is read on up to 16× the bound so that a header with a
    large first message still yields its values.
    """
    path = Path(path)
    with open(path, "rb") as handle:
        compression = "zstd" if is_zstd(handle.read(4)) else None
        handle.seek(0)
        try:
            data, eof = _read_bounded(_zstd_reader(handle) if compression else handle, max_bytes)
        except Exception:
            if not compression:
                raise
            data, eof = b"", False
        if compression and not data:
            compression = None
            handle.seek(0)
            data, eof = _read_bounded(handle, max_bytes)
    records, problems, lines, _ = parse_lines(data, str(path), limit=None if eof else max_lines)
    return Head([r.value for r in records], lines, eof, compression, problems)


def _read_bounded(source: Any, max_bytes: int) -> tuple[bytes, bool]:
    """At least `max_bytes` from `source` (up to 16× that while no newline came), and whether
    the end was reached."""
    data = bytearray()
    target, cap = max_bytes, max_bytes * 16
    while True:
        chunk = source.read(target - len(data))
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
