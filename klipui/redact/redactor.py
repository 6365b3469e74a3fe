"""The redactor: findings numbered per kind and secret, replaced by stable placeholders."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from klipui.redact.detect import DETECTORS, Detector, Match, detect, emails, home_paths

SKIP_KEYS = frozenset(
    {
        "id",
        "uuid",
        "parentUuid",
        "logicalParentUuid",
        "leafUuid",
        "sessionId",
        "session_id",
        "requestId",
        "messageId",
        "callId",
        "call_id",
        "toolCallId",
        "tool_call_id",
        "tool_use_id",
        "toolUseID",
        "parentId",
        "parent_id",
        "agentId",
        "compactionId",
        "signature",
        "encrypted_content",
        "encryptedContent",
        "thinkingSignature",
        "timestamp",
        "type",
        "role",
        "model",
        "cwd",
        "version",
        "gitBranch",
        "hash",
    }
)
"""JSON keys whose string values are identifiers or opaque signatures an agent checks: never
redacted (a changed thinking signature or id would break the session)."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One secret found: where, what kind, why, and the placeholder that replaces it."""

    kind: str
    start: int
    end: int
    secret: str
    reason: str
    placeholder: str


class Redactor:
    """Finds and replaces secrets; the same secret always gets the same placeholder.

    `home`: also replace the user's home folder (`/home/alice` → `~`); `emails`: also replace
    e-mail addresses. Numbers count per kind, in the order secrets are first met.
    """

    def __init__(
        self,
        *,
        home: bool = False,
        emails: bool = False,
        detectors: Iterable[Detector] = DETECTORS,
    ) -> None:
        extra: list[Detector] = []
        if home:
            extra.append(home_paths)
        if emails:
            extra.append(_emails)
        self.detectors: tuple[Detector, ...] = (*detectors, *extra)
        self._numbers: dict[tuple[str, str], int] = {}
        self._counts: dict[str, int] = {}
        self.found: dict[str, int] = {}
        """Replacements made so far, per kind."""

    def placeholder(self, kind: str, secret: str) -> str:
        """The placeholder of `secret` (numbered on first sight)."""
        if kind == "home-path":
            return "~"
        key = (kind, secret)
        number = self._numbers.get(key)
        if number is None:
            number = self._counts.get(kind, 0) + 1
            self._counts[kind] = number
            self._numbers[key] = number
        return f"[REDACTED {kind} #{number}]"

    def find(self, text: str) -> list[Finding]:
        """The findings of `text`, in order (numbering them, but not counting them as made)."""
        return [self._finding(text, match) for match in detect(text, detectors=self.detectors)]

    def _finding(self, text: str, match: Match) -> Finding:
        secret = text[match.start : match.end]
        return Finding(
            match.kind,
            match.start,
            match.end,
            secret,
            match.reason,
            self.placeholder(match.kind, secret),
        )

    def redact(self, text: str) -> str:
        """`text` with every finding replaced by its placeholder."""
        findings = self.find(text)
        if not findings:
            return text
        parts: list[str] = []
        at = 0
        for finding in findings:
            parts.append(text[at : finding.start])
            parts.append(finding.placeholder)
            at = finding.end
            self.found[finding.kind] = self.found.get(finding.kind, 0) + 1
        parts.append(text[at:])
        return "".join(parts)

    def redact_json(self, value: Any, *, key: str | None = None) -> Any:
        """A copy of the JSON `value` with its string contents redacted: keys, numbers, the
        values of identifier keys (`SKIP_KEYS`) and the shape are kept."""
        if isinstance(value, str):
            return value if key in SKIP_KEYS else self.redact(value)
        if isinstance(value, dict):
            return {k: self.redact_json(v, key=k) for k, v in value.items()}
        if isinstance(value, list):
            return [self.redact_json(v, key=key) for v in value]
        return value

    @property
    def total(self) -> int:
        """Replacements made so far."""
        return sum(self.found.values())


def _emails(text: str) -> Any:
    return emails(text)


def home_folder() -> str:
    """The user's home folder, as text."""
    return os.path.expanduser("~")


def redact_lines(lines: Iterable[bytes], redactor: Redactor) -> tuple[list[bytes], int]:
    """JSONL lines with the string contents of each record redacted (`Redactor.redact_json`):
    keys, ids, signatures, numbers and structure are kept, and a line with nothing to redact
    keeps its exact bytes. Lines that are not JSON pass unchanged. Returns the lines and how
    many changed."""
    import orjson

    out: list[bytes] = []
    changed = 0
    for line in lines:
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            out.append(line)
            continue
        before = redactor.total
        redacted = redactor.redact_json(value)
        if redactor.total == before:
            out.append(line)
            continue
        out.append(orjson.dumps(redacted))
        changed += 1
    return out, changed
