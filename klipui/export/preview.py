"""What redaction would change in an export, as hunks to show beside the original.

`redaction_preview(doc, redactor)` runs the redactor over every text of an unredacted document
(prompts, answers, thinking, tool arguments and results, notes) and returns one hunk per text
that holds a secret: the lines around the findings, before and after, where they are, and why
each was found.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass

from klipui.export.document import Block, Document
from klipui.redact import Finding, Redactor

CONTEXT = 1
"""Lines shown around the lines that hold a finding."""


@dataclass(slots=True)
class Hunk:
    """One place with secrets: the original lines and the same lines redacted."""

    where: str
    """`turn 3 · Bash result`."""
    original: list[str]
    redacted: list[str]
    first_line: int
    """1-based number of the first shown line within its text."""
    findings: list[Finding]


def _texts(block: Block) -> Iterator[tuple[str, str]]:
    if block.kind == "tool":
        if block.arguments not in (None, {}):
            yield f"{block.name} call", json.dumps(block.arguments, indent=2, ensure_ascii=False)
        if block.result is not None:
            yield f"{block.name} result", block.result
    else:
        label = block.name if block.kind == "note" else block.kind
        yield label, block.text


def redaction_preview(doc: Document, redactor: Redactor, *, limit: int = 500) -> list[Hunk]:
    """The hunks of `doc` (built without a redactor) that `redactor` would change, at most
    `limit` of them; the redactor's numbering is the one the export will use."""
    hunks: list[Hunk] = []
    for turn in doc.turns:
        for block in turn.blocks:
            for label, text in _texts(block):
                findings = redactor.find(text)
                if findings:
                    hunks += _hunks(f"turn {turn.number} · {label}", text, findings)
                if len(hunks) >= limit:
                    return hunks[:limit]
    return hunks


def _hunks(where: str, text: str, findings: list[Finding]) -> list[Hunk]:
    starts = [0]
    for index, char in enumerate(text):
        if char == "\n":
            starts.append(index + 1)
    lines = text.split("\n")

    def line_of(offset: int) -> int:
        low, high = 0, len(starts) - 1
        while low < high:
            middle = (low + high + 1) // 2
            if starts[middle] <= offset:
                low = middle
            else:
                high = middle - 1
        return low

    groups: list[tuple[int, int, list[Finding]]] = []
    for finding in findings:
        first = max(0, line_of(finding.start) - CONTEXT)
        last = min(len(lines) - 1, line_of(max(finding.start, finding.end - 1)) + CONTEXT)
        if groups and first <= groups[-1][1] + 1:
            groups[-1] = (groups[-1][0], max(last, groups[-1][1]), [*groups[-1][2], finding])
        else:
            groups.append((first, last, [finding]))
    out = []
    for first, last, found in groups:
        begin = starts[first]
        end = starts[last] + len(lines[last])
        original = text[begin:end]
        parts, at = [], begin
        for finding in found:
            parts += [text[at : finding.start], finding.placeholder]
            at = finding.end
        parts.append(text[at:end])
        out.append(Hunk(where, original.split("\n"), "".join(parts).split("\n"), first + 1, found))
    return out
