"""Sessions exported as Markdown or as one self-contained HTML page (no UI code here).

`build_document(session, turns=, detail=, redactor=)` makes the document; `render_markdown` and
`render_html` draw it; `export_text(session, kind, ...)` does both steps.
"""

from __future__ import annotations

from pathlib import Path

from klipui.export.document import DETAILS, Block, Document, TurnDoc, build_document
from klipui.export.html import render_html
from klipui.export.markdown import render_markdown
from klipui.redact import Redactor
from klipui.session import Session

KINDS = ("markdown", "html")
SUFFIXES = {"markdown": ".md", "html": ".html"}


def export_text(
    session: Session,
    kind: str,
    *,
    turns: list[int] | None = None,
    detail: str = "full",
    redactor: Redactor | None = None,
) -> str:
    """`session` (its `turns`, every turn when None) as Markdown or HTML text."""
    if kind not in KINDS:
        raise ValueError(f"unknown export kind {kind!r} (one of {', '.join(KINDS)})")
    doc = build_document(session, turns=turns, detail=detail, redactor=redactor)
    return render_html(doc) if kind == "html" else render_markdown(doc)


def write_export(path: Path | str, text: str, *, overwrite: bool = False) -> Path:
    """Write an export atomically: as a new file (FileExistsError when `path` exists), or,
    with `overwrite`, in place of the existing file (written beside it, then renamed over)."""
    from klipui.session.atomic import replace_atomic
    from klipui.session.jsonl import write_new

    path = Path(path)
    data = [text.rstrip("\n").encode("utf-8", "replace")]
    if not overwrite or not path.exists():
        write_new(path, data)
    else:
        replace_atomic(path, [*data, b"\n"])
    return path


def default_name(session: Session, kind: str, *, redacted: bool = False) -> str:
    """`<session file stem>[.redacted].md|.html`."""
    stem = session.path.name.split(".")[0] or "session"
    return f"{stem}{'.redacted' if redacted else ''}{SUFFIXES[kind]}"


__all__ = [
    "DETAILS",
    "KINDS",
    "SUFFIXES",
    "Block",
    "Document",
    "TurnDoc",
    "build_document",
    "default_name",
    "export_text",
    "render_html",
    "render_markdown",
    "write_export",
]
