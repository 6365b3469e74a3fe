"""Find the full original of a tool result that holds only a preview, and load it safely.

Agents that cut a big tool output keep the whole text somewhere and leave a reference in the
preview the model sees. This module recognises those references:

- toolshrink / klipui: `spill:<name>` locators (files of klipui's spill store);
- DeepSeek Harness: `Full formatted result stored at: PATH`
  (`<temp>/dsh-…/session-<id>/<hex>-<name>.txt`);
- Claude Code: a `<persisted-output>` block naming `.../tool-results/<tool_use_id>.txt`, or that
  file next to the session (`<project>/<session>/tool-results/<id>.txt`);
- pi and neovate / opencode: `Full output: PATH` and `Full output saved to: PATH`
  (`<temp>/pi-<tool>-<hex>.log`, `~/.neovate/tool-output/tool_…`, opencode's `tool-output`).

A session file is untrusted, and so is every path it names. `load_original` follows a reference
only to a regular file, owned by the user, directly inside the folder where that agent writes
its originals (after resolving symlinks); it opens the file without following a symlink and
without blocking, and reads at most `MAX_ORIGINAL_BYTES`. Anything else is reported, never read;
nothing here raises on bad input.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path

from klipui.session.display import clean_line

MAX_ORIGINAL_BYTES = 64 * 1024 * 1024
"""Bytes of an original read at most; a longer file is shown cut at its last whole line."""
NOT_FOLLOWED = "not followed: outside the agent's folders"
"""The problem of a reference to anything but a file in the agent's own spill folder."""

_SPILL = re.compile(r"\bspill:([A-Za-z0-9_-]+)")
_DSH = re.compile(r"Full formatted result stored at:\s*(\S+)")
_FULL_OUTPUT = re.compile(r"Full output(?: saved to| stored at)?:\s*\n?\s*(\S+)")
_PERSISTED = re.compile(r"<persisted-output>(.*?)(?:</persisted-output>|\Z)", re.DOTALL)
_TXT_PATH = re.compile(r"(/\S+?\.txt|[A-Za-z]:\\\S+?\.txt)\b")
_TRAILING = ".,;:)]}>\"'"

_CLAUDE_NAME = re.compile(r"[A-Za-z0-9_-]{1,200}\.txt")
_DSH_NAME = re.compile(r"[0-9a-f]{4,64}-[A-Za-z0-9._~%+@=-]{1,200}\.txt")
_DSH_SESSION = re.compile(r"session-[A-Za-z0-9_-]{1,128}")
_DSH_ROOT = re.compile(r"dsh-[A-Za-z0-9._-]{1,128}")
_PI_NAME = re.compile(r"pi-[a-z]{1,32}-[0-9a-f]{8,64}\.log")
_TOOL_OUTPUT_NAME = re.compile(r"tool_[A-Za-z0-9._-]{1,200}")
_READ_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class SpillRef:
    """Where the full original of a previewed tool result is kept."""

    kind: str
    """"spill" (toolshrink locator), "dsh", "claude", "pi" (also neovate/opencode)."""
    reference: str
    """The locator or path as written in the preview (or derived, for Claude Code)."""
    path: Path | None
    """The file it names; None for a spill locator."""


@dataclass(frozen=True, slots=True)
class Original:
    """The outcome of loading a reference: the text, or why there is none."""

    ref: SpillRef
    text: str | None
    problem: str | None = None
    size: int = 0
    """The file's size in bytes (when it was opened)."""
    capped: bool = False
    """True when only the first `MAX_ORIGINAL_BYTES` (cut at a line end) were read."""

    @property
    def missing(self) -> bool:
        return self.text is None

    def describe(self) -> str:
        """One line for the user: where the original came from, or why it was not read
        (the path cleaned of control sequences)."""
        where = f"{self.ref.kind} reference {clean_line(self.ref.reference)}"
        if self.text is None:
            return f"{where} — {self.problem}"
        note = f" (first {len(self.text.encode('utf-8', 'replace')):,} of {self.size:,} bytes)"
        return where + (note if self.capped else "")


@dataclass(frozen=True, slots=True)
class SpillFolders:
    """The folders agents write originals to; only files directly inside them are read."""

    temp: tuple[Path, ...]
    """Temp folders: pi's `pi-<tool>-<hex>.log`, dsh's `dsh-…/session-…/<hex>-<name>.txt`."""
    home: Path
    """The user's home: neovate, takumi and opencode keep `tool-output` folders under it."""
    spill_store: Path
    """klipui's own spill store."""

    @classmethod
    def default(cls) -> SpillFolders:
        from klipui.shrink.spill import default_spill_dir

        temp = [Path(tempfile.gettempdir())]
        if os.name == "posix":
            temp.append(Path("/tmp"))
        home = Path(os.path.expanduser("~"))  # never raises; "~" when there is no home
        return cls(tuple(dict.fromkeys(temp)), home, default_spill_dir())

    def tool_output_folders(self) -> tuple[Path, ...]:
        """neovate, takumi (`~/.<product>/tool-output`) and opencode (XDG data) folders."""
        data = os.environ.get("XDG_DATA_HOME") or str(self.home / ".local" / "share")
        return (
            self.home / ".neovate" / "tool-output",
            self.home / ".takumi" / "tool-output",
            Path(data) / "opencode" / "tool-output",
        )


def _clean_path(raw: str) -> str:
    return raw.rstrip(_TRAILING)


def find_reference(
    text: str, session_path: Path | None = None, tool_call_id: str | None = None
) -> SpillRef | None:
    """The reference to a spilled original in `text`, or None when it holds none."""
    match = _SPILL.search(text)
    if match:
        return SpillRef("spill", match.group(0), None)
    match = _DSH.search(text)
    if match:
        raw = _clean_path(match.group(1))
        return SpillRef("dsh", raw, Path(raw))
    persisted = _PERSISTED.search(text)
    if persisted:
        inner = _TXT_PATH.search(persisted.group(1))
        if inner:
            return SpillRef("claude", inner.group(1), Path(inner.group(1)))
        derived = _claude_tool_result_path(session_path, tool_call_id)
        if derived is not None:
            return SpillRef("claude", str(derived), derived)
    match = _FULL_OUTPUT.search(text)
    if match:
        raw = _clean_path(match.group(1))
        return SpillRef("pi", raw, Path(raw))
    return None


def _claude_tool_result_path(session_path: Path | None, tool_call_id: str | None) -> Path | None:
    if session_path is None or not tool_call_id:
        return None
    if not _CLAUDE_NAME.fullmatch(f"{tool_call_id}.txt"):
        return None  # an id that is not a plain name never becomes a path
    session_path = Path(os.path.abspath(session_path))
    return session_path.parent / session_path.stem / "tool-results" / f"{tool_call_id}.txt"


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _claude_folders(session_path: Path | None) -> list[Path]:
    """`<project>/<session>/tool-results` of the session (and of the parent session for a
    sub-agent file `<project>/<session>/subagents/agent-<id>.jsonl`)."""
    if session_path is None:
        return []
    folders = [session_path.parent / session_path.stem / "tool-results"]
    if session_path.parent.name == "subagents":
        folders.append(session_path.parent.parent / "tool-results")
    return folders


def allowed_place(
    ref: SpillRef, folders: SpillFolders, session_path: Path | None = None
) -> tuple[Path, str] | None:
    """(folder, file name) of the file `ref` names when it lies where its agent writes
    originals, symlinks resolved; None when it does not."""
    if ref.kind == "spill":
        match = _SPILL.fullmatch(ref.reference.strip())
        return (_real(folders.spill_store), f"{match.group(1)}.txt") if match else None
    if ref.path is None or not ref.path.is_absolute():
        return None
    try:
        real = _real(ref.path)
    except (OSError, ValueError):
        return None
    parent, name = real.parent, real.name
    ok: bool
    if ref.kind == "claude":
        ok = bool(_CLAUDE_NAME.fullmatch(name)) and any(
            parent == _real(folder) for folder in _claude_folders(session_path)
        )
    elif ref.kind == "dsh":
        ok = (
            bool(_DSH_NAME.fullmatch(name))
            and bool(_DSH_SESSION.fullmatch(parent.name))
            and bool(_DSH_ROOT.fullmatch(parent.parent.name))
            and any(parent.parent.parent == _real(t) for t in folders.temp)
        )
    elif ref.kind == "pi":
        in_temp = bool(_PI_NAME.fullmatch(name)) and any(parent == _real(t) for t in folders.temp)
        ok = in_temp or (
            bool(_TOOL_OUTPUT_NAME.fullmatch(name))
            and any(parent == _real(f) for f in folders.tool_output_folders())
        )
    else:
        ok = False
    return (parent, name) if ok else None


class RefusedFile(OSError):
    """A file that is there but is not followed: not regular, linked, or someone else's."""


def load_original(
    ref: SpillRef,
    *,
    session_path: Path | None = None,
    folders: SpillFolders | None = None,
    max_bytes: int | None = None,
) -> Original:
    """Read the original a reference names, if it lies in its agent's own folder.

    `session_path` is the session file being viewed (Claude Code keeps originals next to it).
    A reference elsewhere is `NOT_FOLLOWED`; a missing, unreadable or special file is reported.
    At most `max_bytes` (default `MAX_ORIGINAL_BYTES`) are read.
    """
    folders = folders or SpillFolders.default()
    max_bytes = MAX_ORIGINAL_BYTES if max_bytes is None else max_bytes
    place = allowed_place(ref, folders, session_path)
    if place is None:
        return Original(ref, None, NOT_FOLLOWED)
    folder, name = place
    try:
        data, size, capped = read_regular(folder, name, max_bytes)
    except FileNotFoundError:
        gone = "not in the spill store" if ref.kind == "spill" else "no longer exists"
        return Original(ref, None, f"missing: {gone}")
    except RefusedFile as refused:
        return Original(ref, None, f"not followed: {refused}")
    except OSError as error:
        return Original(ref, None, f"unreadable: {error.strerror or error}")
    if data[:4] == _ZSTD_MAGIC and not capped:
        data, size, capped = _unpacked(data, max_bytes)
    errors = "surrogateescape" if ref.kind == "spill" else "replace"
    return Original(ref, data.decode("utf-8", errors), size=size, capped=capped)


_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def _unpacked(data: bytes, max_bytes: int) -> tuple[bytes, int, bool]:
    """The content of a zstd original (klipui's archive keeps originals compressed): at most
    `max_bytes`, cut at a line end; the data as it is when it does not decompress."""
    import zstandard

    try:
        reader = zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=True)
        out = reader.read(max_bytes + 1)
    except zstandard.ZstdError:
        return data, len(data), False
    if len(out) <= max_bytes:
        return out, len(out), False
    out = out[:max_bytes]
    end = out.rfind(b"\n")
    return (out[: end + 1] if end >= 0 else out), max_bytes + 1, True


def read_regular(folder: Path, name: str, max_bytes: int) -> tuple[bytes, int, bool]:
    """(bytes, file size, capped) of the regular file `name` directly in `folder`.

    Opened relative to the folder, without following a symlink and without blocking (a FIFO
    or device is refused, never read); at most `max_bytes` are read, cut at the last line end.
    Raises FileNotFoundError, RefusedFile or another OSError.
    """
    if not name or "/" in name or "\\" in name or name in (".", ".."):
        raise RefusedFile("not a plain file name")
    flags = (
        os.O_RDONLY
        | getattr(os, "O_NOFOLLOW", 0)
        | getattr(os, "O_NONBLOCK", 0)
        | getattr(os, "O_NOCTTY", 0)
        | getattr(os, "O_CLOEXEC", 0)
        | getattr(os, "O_BINARY", 0)
    )
    fd = _open_in(folder, name, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise RefusedFile("not a regular file")
        if info.st_nlink > 1:
            raise RefusedFile("a file with other hard links")
        if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
            raise RefusedFile("owned by another user")
        chunks: list[bytes] = []
        got = 0
        while got <= max_bytes:
            chunk = os.read(fd, min(_READ_CHUNK, max_bytes + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) <= max_bytes:
        return data, max(info.st_size, len(data)), False
    data = data[:max_bytes]
    end = data.rfind(b"\n")
    return (data[: end + 1] if end >= 0 else data), max(info.st_size, max_bytes + 1), True


def _open_in(folder: Path, name: str, flags: int) -> int:
    """Open `name` inside `folder` (relative to an open folder where the system allows it)."""
    if os.open not in os.supports_dir_fd:
        return os.open(folder / name, flags)
    folder_fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | os.O_CLOEXEC)
    try:
        return os.open(name, flags, dir_fd=folder_fd)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise RefusedFile("a symbolic link") from None
        raise
    finally:
        with contextlib.suppress(OSError):
            os.close(folder_fd)


class DryRunSpill:
    """A spill saver that names the locator a real save would give, and writes nothing.

    The shrink pane previews reductions as the budget changes; it must not fill the user's spill
    folder while doing so.
    """

    def save(self, text: str, tool: str | None) -> str:
        from klipui.shrink.spill import locator_for

        return locator_for(text, tool)
