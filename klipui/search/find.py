"""Find inside one loaded session: every occurrence of the looked-for text, in reading order.

A find query without double quotes is found as typed, as one string (as a browser's find does);
with double quotes, each `"quoted phrase"` and each other word is a term of its own. Each
occurrence of a term (case-insensitive) is a match. Matches are ordered by turn, event, the
event's parts (prompt, thinking, answer, call, result) and position, and counted within their
(event, kind) so that a view can find the same occurrence in what it draws. `MatchCursor` steps
through them with wrap-around.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from klipui.search.units import event_parts
from klipui.session import Session
from klipui.session.display import clean_text

_PHRASE = re.compile(r'"([^"]*)"?|(\S+)')


@dataclass(frozen=True, slots=True)
class Match:
    """One occurrence of a find term."""

    turn: int
    """1-based turn number."""
    event: int
    """Index of the event in `Session.events`."""
    seq: int
    kind: str
    """The unit kind: prompt, answer, thinking, call, result."""
    start: int
    """Character offset in the unit's cleaned text."""
    length: int
    occurrence: int
    """0-based count of this match among the matches of its (event, kind)."""


def find_terms(query: str) -> tuple[str, ...]:
    """The terms of a find query (see the module), longest first, without repeats."""
    if '"' not in query:
        return (query.strip(),) if query.strip() else ()
    terms: dict[str, None] = {}
    for match in _PHRASE.finditer(query):
        term = (match.group(1) if match.group(1) is not None else match.group(2) or "").strip()
        if term and term.upper() not in ("AND", "OR", "NOT"):
            terms[term.rstrip("*") or term] = None
    return tuple(sorted(terms, key=len, reverse=True))


def term_pattern(terms: Sequence[str]) -> re.Pattern[str] | None:
    """A case-insensitive pattern for any of `terms` (None when there is none)."""
    if not terms:
        return None
    ordered = sorted(set(terms), key=len, reverse=True)
    return re.compile("|".join(re.escape(term) for term in ordered), re.IGNORECASE)


def unit_texts(session: Session) -> Iterator[tuple[int, int, int, str, str]]:
    """(turn, event index, seq, kind, cleaned text) of every unit of every turn."""
    for turn in session.turns:
        for index in range(turn.start, turn.end):
            event = session.events[index]
            for kind, text in event_parts(event):
                if text:
                    yield turn.number, index, event.seq, kind, clean_text(text)


def find_matches(session: Session, query: str, limit: int = 100_000) -> list[Match]:
    """Every match of `query` in the turns of `session`, in reading order (at most `limit`)."""
    pattern = term_pattern(find_terms(query))
    if pattern is None:
        return []
    matches: list[Match] = []
    for turn, index, seq, kind, text in unit_texts(session):
        for count, found in enumerate(pattern.finditer(text)):
            matches.append(
                Match(turn, index, seq, kind, found.start(), found.end() - found.start(), count)
            )
            if len(matches) >= limit:
                return matches
    return matches


class MatchCursor:
    """The current match among `matches`, moved with wrap-around."""

    def __init__(self, matches: list[Match]) -> None:
        self.matches = matches
        self.index = -1

    def __len__(self) -> int:
        return len(self.matches)

    @property
    def current(self) -> Match | None:
        return self.matches[self.index] if 0 <= self.index < len(self.matches) else None

    def first_from(self, event: int, kind: str | None = None) -> Match | None:
        """Make current the first match at or after event index `event` (of `kind` there, when
        given and present), wrapping to the first match; None when there are none."""
        if not self.matches:
            return None
        for position, match in enumerate(self.matches):
            if match.event > event or (
                match.event == event and (kind is None or match.kind == kind)
            ):
                self.index = position
                return match
        for position, match in enumerate(self.matches):
            if match.event == event:
                self.index = position
                return match
        self.index = 0
        return self.matches[0]

    def step(self, delta: int) -> tuple[Match | None, bool]:
        """Move by `delta` (±1); (the new current match, True when it wrapped around)."""
        if not self.matches:
            return None, False
        if self.index < 0:
            self.index = 0 if delta > 0 else len(self.matches) - 1
            return self.matches[self.index], False
        target = self.index + delta
        wrapped = not 0 <= target < len(self.matches)
        self.index = target % len(self.matches)
        return self.matches[self.index], wrapped

    def position(self) -> str:
        """ "match 3 of 41", "no match" or "41 matches"."""
        if not self.matches:
            return "no match"
        if self.index < 0:
            return f"{len(self.matches)} match{'' if len(self.matches) == 1 else 'es'}"
        return f"match {self.index + 1} of {len(self.matches)}"
