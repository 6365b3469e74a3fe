"""Sessions exported as Markdown or as one self-contained HTML page (no UI code here).

`build_document(session, turns=, detail=, redactor=)` makes the document; `render_markdown` and
`render_html` draw it; `export_text(session, kind, ...)` does both steps.
"""

from __future__ import annotations

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


__all__ = [
    "DETAILS",
    "KINDS",
    "SUFFIXES",
    "Block",
    "Document",
    "TurnDoc",
    "build_document",
    "export_text",
    "render_html",
    "render_markdown",
]
