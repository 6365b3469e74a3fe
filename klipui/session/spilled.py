"""Find the full original of a tool result that holds only a preview, and load it.

Agents that cut a big tool output keep the whole text somewhere and leave a reference in the
preview the model sees. This module recognises those references:

- toolshrink / klipui: `spill:<name>` locators (loaded through the spill store);
- DeepSeek Harness: `Full formatted result stored at: PATH`;
- Claude Code: a `<persisted-output>` block naming `.../tool-results/<tool_use_id>.txt`, or that
  file next to the session (`<project>/<session>/tool-results/<id>.txt`);
- pi and neovate / opencode: `Full output: PATH` and `Full output saved to: PATH`.

A reference whose file is gone is reported as missing; nothing here raises on bad input.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

MAX_ORIGINAL_BYTES = 256 * 1024 * 1024
"""Originals bigger than this are not loaded (the app says so instead)."""

_SPILL = re.compile(r"\bspill:([A-Za-z0-9_-]+)")
_DSH = re.compile(r"Full formatted result stored at:\s*(\S+)")
_FULL_OUTPUT = re.compile(r"Full output(?: saved to| stored at)?:\s*\n?\s*(\S+)")
_PERSISTED = re.compile(r"<persisted-output>(.*?)(?:</persisted-output>|\Z)", re.DOTALL)
_TXT_PATH = re.compile(r"(/\S+?\.txt|[A-Za-z]:\\\S+?\.txt)\b")
_TRAILING = ".,;:)]}>\"'"


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

    @property
    def missing(self) -> bool:
        return self.text is None


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
    return session_path.parent / session_path.stem / "tool-results" / f"{tool_call_id}.txt"


def load_original(
    ref: SpillRef, load_spill: Callable[[str], str | bytes] | None = None
) -> Original:
    """Read the original a reference names; a missing or unreadable file is reported, not raised.

    `load_spill` loads a `spill:` locator (the spill store's `load`); without it a locator cannot
    be followed and is reported as such.
    """
    if ref.kind == "spill":
        if load_spill is None:
            return Original(ref, None, "no spill store to load it from")
        try:
            data = load_spill(ref.reference)
        except Exception as error:  # any store failure means the original is not there
            return Original(ref, None, f"missing: {error}")
        if data is None:
            return Original(ref, None, "missing: not in the spill store")
        text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
        return Original(ref, text)
    assert ref.path is not None
    try:
        size = ref.path.stat().st_size
        if size > MAX_ORIGINAL_BYTES:
            return Original(ref, None, f"too big to load ({size:,} bytes)")
        return Original(ref, ref.path.read_bytes().decode("utf-8", "replace"))
    except FileNotFoundError:
        return Original(ref, None, f"missing: {ref.path} no longer exists")
    except OSError as error:
        return Original(ref, None, f"unreadable: {error.strerror or error}")


def spill_store_loader() -> Callable[[str], str]:
    """`load` of the default spill store (where klipui's own hook saves originals)."""
    from klipui.shrink import FileSpillStore

    return FileSpillStore().load


class DryRunSpill:
    """A spill saver that names the locator a real save would give, and writes nothing.

    The shrink pane previews reductions as the budget changes; it must not fill the user's spill
    folder while doing so.
    """

    def save(self, text: str, tool: str | None) -> str:
        from klipui.shrink.spill import locator_for

        return locator_for(text, tool)
