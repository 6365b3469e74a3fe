"""Finding session files and their `SessionInfo`: quick figures first, exact ones after, cached.

`discover(paths)` is a generator meant to be consumed incrementally (by a worker or a CLI loop).
It yields one `SessionInfo` per file as soon as a bounded head read gives it (or the cache has
it), then, for files whose first info was only an estimate, a second, exact `SessionInfo`: a
later info for the same path replaces the earlier one. Files that cannot be read are yielded
with `problem` set, never hidden. Exact infos are cached in the user cache directory, keyed by
(path, size, mtime), and the cache file is replaced atomically.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fnmatch
import glob
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from stat import S_ISDIR, S_ISREG
from typing import Any

import orjson

from klipui.session.adapter import Root
from klipui.session.atomic import replace_atomic
from klipui.session.files import kind_of
from klipui.session.formats import adapter, adapters
from klipui.session.load import exact_info, read_info
from klipui.session.model import SessionInfo

_INFO_FIELDS = dataclasses.fields(SessionInfo)
SESSION_SUFFIXES = (".jsonl", ".jsonl.zstd", ".jsonl.zst")
CACHE_VERSION = 1
_SAVE_EVERY = 2.0
"""Seconds between cache saves while exact figures come in."""


def default_roots() -> list[Root]:
    """Where every registered agent keeps its sessions, per the environment."""
    home = Path.home()
    return [root for one in adapters() for root in one.roots(home, os.environ)]


def is_session_name(path: Path) -> bool:
    """True for names a session file may have inside a folder (temp files excluded)."""
    name = path.name
    return name.endswith(SESSION_SUFFIXES) and not (name.startswith(".") and ".tmp" in name)


def find_session_files(
    paths: Sequence[str | Path] | None = None, *, archive: bool = True
) -> list[Path]:
    """Session files under `paths` (files, folders or globs), or under the default roots.

    With no `paths`, the sessions of klipui's archive join the list (`archive=False` leaves
    them out): a copy whose original is listed appears only when it is the newer of the two.

    A file given by name is taken whatever its name; folders are searched recursively for
    `.jsonl` / `.jsonl.zstd` files. FileNotFoundError for a named path (not a glob) that does
    not exist. Each file appears once, in the order found. Entries that are not regular files
    (a FIFO, a device, a symlink to one) are listed too, and so is every folder that could not
    be listed: `discover` gives each a SessionInfo with the reason as its `problem`.
    """
    found: dict[Path, None] = {}
    if not paths:
        for root in default_roots():
            if root.path.is_dir():
                for path in _root_files(root):
                    if not (root.orphans_only and _has_session(path)):
                        found[path] = None
        return _with_archive(list(found)) if archive else list(found)
    for given in paths:
        text = str(given)
        if glob.has_magic(text):
            matches = [Path(m) for m in sorted(glob.glob(os.path.expanduser(text), recursive=True))]
        else:
            path = Path(os.path.expanduser(text))
            if not path.exists():
                raise FileNotFoundError(f"{text}: no such file or folder")
            matches = [path]
        for match in matches:
            if match.is_dir():
                for path in _walk(match):
                    found[path] = None
            elif match.exists():
                found[match] = None
    return list(found)


def _with_archive(found: list[Path]) -> list[Path]:
    """`found` and the session files of klipui's archive (found with the same patterns under
    the archive's mirror of each root), merged by `klipui.session.archive.merge_archived`; `found`
    alone when the archive cannot be read: a damaged archive never ends a listing."""
    from klipui.session.archive.layout import default_archive_dir, root_key
    from klipui.session.archive.listing import merge_archived

    archive = default_archive_dir()
    if not archive.is_dir():
        return found
    copies: dict[Path, None] = {}
    for root in default_roots():
        mirror = Root(root.agent, archive / root_key(root), root.pattern, root.orphans_only)
        if mirror.path.is_dir():
            copies.update(dict.fromkeys(_root_files(mirror)))
    try:
        return merge_archived(found, list(copies), archive)
    except (OSError, ValueError):
        return found


def _has_session(subagent: Path) -> bool:
    """True when `<project>/<session>/subagents/agent-*.jsonl` has its `<session>.jsonl`."""
    folder = subagent.parent.parent
    return folder.with_name(folder.name + ".jsonl").exists()


def _root_files(root: Root) -> list[Path]:
    """The files under `root` that its pattern matches (each folder component a name or an
    fnmatch pattern, or `**` for any depth), and the folders on the way that could not be
    listed."""
    *folders, name = root.pattern.split("/")
    depth = None if "**" in folders else len(folders)
    unreadable: list[Path] = []
    matched: list[Path] = []
    base = str(root.path)
    for directory, subdirs, files in os.walk(
        base,
        onerror=lambda error: unreadable.append(Path(error.filename)),
        followlinks=depth is not None,
    ):
        level = 0 if directory == base else directory[len(base) :].strip(os.sep).count(os.sep) + 1
        if depth is not None and level >= depth:
            subdirs.clear()
        elif depth is not None:  # a folder component may be a name ("subagents") or a pattern
            subdirs[:] = [d for d in subdirs if fnmatch.fnmatchcase(d, folders[level])]
        if depth is None or level == depth:
            matched.extend(
                Path(directory, entry)
                for entry in files
                if fnmatch.fnmatchcase(entry, name) and is_session_name(Path(entry))
            )
    return sorted([*matched, *unreadable])


def _walk(folder: Path) -> Iterator[Path]:
    """Session files under `folder`, and the folders under it that could not be listed."""
    unreadable: list[Path] = []
    for directory, subdirs, files in os.walk(
        folder, onerror=lambda error: unreadable.append(Path(error.filename))
    ):
        yield from unreadable
        unreadable.clear()
        subdirs.sort()
        for name in sorted(files):
            path = Path(directory, name)
            if is_session_name(path):
                yield path
    yield from unreadable


def _cache_version() -> str:
    """Changes when the cache layout or the set of known formats changes."""
    from klipui.session.formats import FORMATS

    return f"{CACHE_VERSION}:{','.join(FORMATS)}"


def cache_path() -> Path:
    """The cache file in the user cache directory."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("klipui", appauthor=False)) / "session-info.json"


class InfoCache:
    """Exact `SessionInfo`s by path, valid while the file's size and mtime are unchanged."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or cache_path()
        self._entries: dict[str, dict[str, Any]] = {}
        self._dirty = False
        self._loaded = False

    def _load(self) -> None:
        self._loaded = True
        try:
            data = orjson.loads(self.path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return
        if isinstance(data, dict) and data.get("version") == _cache_version():
            entries = data.get("entries")
            if isinstance(entries, dict):
                self._entries = entries

    def get(self, path: Path, stat: os.stat_result) -> SessionInfo | None:
        """The cached info of `path` if the file is unchanged since it was cached."""
        if not self._loaded:
            self._load()
        entry = self._entries.get(str(path.absolute()))
        if not entry or entry.get("size") != stat.st_size or entry.get("mtime") != stat.st_mtime_ns:
            return None
        try:
            fields = dict(entry["info"])
            fields["path"] = path
            return SessionInfo(**fields)
        except (KeyError, TypeError):
            return None

    def put(self, info: SessionInfo, stat: os.stat_result) -> None:
        """Remember an exact info for the file as it was at `stat`."""
        if not self._loaded:
            self._load()
        # Every field is a scalar: a shallow copy is what `dataclasses.asdict` would give.
        fields = {f.name: getattr(info, f.name) for f in _INFO_FIELDS if f.name != "path"}
        self._entries[str(info.path.absolute())] = {
            "size": stat.st_size,
            "mtime": stat.st_mtime_ns,
            "info": fields,
        }
        self._dirty = True

    def save(self) -> None:
        """Write the cache if it changed (entries of deleted files dropped): a temp file beside
        it, then an atomic replace."""
        if not self._dirty:
            return
        self._entries = {k: v for k, v in self._entries.items() if os.path.exists(k)}
        data = orjson.dumps({"version": _cache_version(), "entries": self._entries})
        with contextlib.suppress(OSError):
            replace_atomic(self.path, [data])
            self._dirty = False


def discover(
    paths: Sequence[str | Path] | None = None,
    *,
    files: Iterable[Path] | None = None,
    exact: bool = True,
    cache: InfoCache | bool | None = True,
    on_progress: Callable[[int, int], None] | None = None,
) -> Iterator[SessionInfo]:
    """Yield `SessionInfo`s for the session files under `paths` (or `files`, already found).

    First pass: one info per file, from the cache or a head read (exact when the head held the
    whole file). Second pass, when `exact`: an exact info for every file whose first one was an
    estimate. `on_progress(done, total)` is called after each file of each pass (total counts
    both passes' work as it is known).
    """
    file_list = list(files) if files is not None else find_session_files(paths)
    store = InfoCache() if cache is True else (cache or None)
    mark = _archive_marker()
    pending: list[tuple[Path, os.stat_result]] = []
    done = 0
    total = len(file_list)
    last_save = time.monotonic()
    try:
        for path in file_list:
            info, stat = _first_info(path, store)
            done += 1
            if stat is not None and not info.exact:
                pending.append((path, stat))
                total += 1 if exact else 0
            if on_progress:
                on_progress(done, total)
            yield mark(info)
        if not exact:
            return
        for path, stat in pending:
            info = _guarded(exact_info, path)
            if store is not None and _cacheable(info):
                store.put(info, stat)
            done += 1
            if on_progress:
                on_progress(done, total)
            yield mark(info)
            if store is not None and time.monotonic() - last_save > _SAVE_EVERY:
                store.save()
                last_save = time.monotonic()
    finally:
        if store is not None:
            store.save()


def _archive_marker() -> Callable[[SessionInfo], SessionInfo]:
    """A function that sets `archived` on the info of a file inside klipui's archive."""
    from klipui.session.archive.layout import default_archive_dir

    folder = os.path.abspath(default_archive_dir())

    def mark(info: SessionInfo) -> SessionInfo:
        if os.path.abspath(info.path).startswith(folder + os.sep):
            info.archived = True
        return info

    return mark


def _first_info(path: Path, store: InfoCache | None) -> tuple[SessionInfo, os.stat_result | None]:
    try:
        stat = path.stat()
    except OSError as error:
        return _problem(path, _why(error)), None
    if not S_ISREG(stat.st_mode):
        return _problem(path, _not_regular(path, stat.st_mode)), None
    if store is not None:
        cached = store.get(path, stat)
        if cached is not None:
            return cached, None
    info = _guarded(read_info, path)
    if info.exact:
        if store is not None and _cacheable(info):
            store.put(info, stat)
        return info, None
    return info, (None if info.problem else stat)


def placed_subagent(info: SessionInfo) -> SessionInfo:
    """`info` with the parent its agent's layout implies (see `Adapter.place_listed`)."""
    try:
        owner = adapter(info.format or "")
    except KeyError:
        return info
    return owner.place_listed(info)


def _guarded(reader: Callable[[Path], SessionInfo], path: Path) -> SessionInfo:
    """`reader(path)`, or for any error it lets through an info whose problem names it: one
    file must never end a listing."""
    try:
        return placed_subagent(reader(path))
    except Exception as error:  # the per-file catch-all of a listing
        return _problem(path, f"cannot be read ({type(error).__name__}: {str(error)[:120]})")


def _problem(path: Path, reason: str) -> SessionInfo:
    return SessionInfo(path=path, format=None, exact=True, problem=reason)


def _not_regular(path: Path, mode: int) -> str:
    """Why a path that is not a regular file is not read: a folder that cannot be listed, or
    what kind of file it is."""
    if S_ISDIR(mode):
        try:
            os.listdir(path)
        except OSError as error:
            return f"folder not readable ({_why(error)}): its sessions are not listed"
        return "a folder"
    return f"not a regular file ({kind_of(mode)}): skipped"


def _cacheable(info: SessionInfo) -> bool:
    """Exact infos (files whose content is not a session included); never read errors."""
    return info.exact


def _why(error: OSError) -> str:
    return error.strerror or str(error)


def list_sessions(
    paths: Sequence[str | Path] | None = None,
    *,
    exact: bool = True,
    cache: InfoCache | bool | None = True,
) -> list[SessionInfo]:
    """The final `SessionInfo` of every session file under `paths`, in the order found."""
    latest: dict[Path, SessionInfo] = {}
    for info in discover(paths, exact=exact, cache=cache):
        latest[info.path] = info
    return list(latest.values())
