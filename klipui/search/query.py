"""What a search query means: plain words, or FTS5 syntax when the user writes some.

The rule, in one sentence: a query is read as FTS5 syntax when it holds a double quote, a word
ending in `*`, or one of the operators `AND`, `OR`, `NOT` written in capitals as a word of its
own; any other query is plain words, every one of which must occur.

Either way each word is passed to SQLite quoted, so punctuation never reaches the FTS5 parser:
`TypeError: 'NoneType'` looks for the tokens `typeerror` and `nonetype`, and a word such as
`snake_case_name` or `src/app.py` matches its pieces side by side. In syntax mode, `"…"` is a
phrase, `word*` and `"…"*` are prefixes, the capital operators combine, and `(`/`)` at the edge
of a word group (balanced, else they are read as text). A syntax query that SQLite still rejects
is searched as plain words (operators left out), with a note saying so.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

OPERATORS = frozenset({"AND", "OR", "NOT"})
_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_TOKEN = re.compile(r'"[^"]*(?:"|$)\*?|\S+')


@dataclass(frozen=True, slots=True)
class Query:
    """A user query made ready for FTS5."""

    text: str
    """What the user typed."""
    expression: str
    """The FTS5 MATCH expression ("" when there is nothing to look for)."""
    syntax: bool
    """True when the query was read as FTS5 syntax."""
    terms: tuple[str, ...]
    """The words and phrases looked for, as plain text (for highlighting and find)."""
    note: str = ""
    """Why the query was read otherwise than written, when it was."""

    @property
    def empty(self) -> bool:
        return not self.expression


def has_token(text: str) -> bool:
    """True when `text` holds a character FTS5's unicode61 tokenizer keeps (a letter, a digit
    or a private-use character); punctuation, spaces and symbols alone make no token."""
    return any(
        unicodedata.category(ch)[0] in "LN" or unicodedata.category(ch) == "Co" for ch in text
    )


def _kept(ch: str) -> bool:
    category = unicodedata.category(ch)
    return category[0] in "LN" or category == "Co"


def quoted(word: str) -> str:
    """`word` as an FTS5 string (double quotes doubled)."""
    return '"' + word.replace('"', '""') + '"'


def is_syntax(text: str) -> bool:
    """True when `text` uses FTS5 syntax by the rule of this module."""
    if '"' in text:
        return True
    words = text.split()
    return any(word in OPERATORS or (word.endswith("*") and has_token(word)) for word in words)


def plain(text: str, note: str = "") -> Query:
    """Every word of `text` must occur (words without a token are dropped)."""
    words = [word for word in text.split() if has_token(word)]
    return Query(
        text=text,
        expression=" AND ".join(quoted(word) for word in words),
        syntax=False,
        terms=tuple(words),
        note=note,
    )


def parse_query(text: str) -> Query:
    """The FTS5 reading of `text` by the rule above (control characters read as spaces: SQLite
    ends a string at NUL)."""
    text = _CONTROLS.sub(" ", text).strip()
    if not is_syntax(text):
        return plain(text)
    parts = _syntax_parts(text)
    expression, terms = _assemble(parts)
    if expression is None:
        words = [w for w in text.replace('"', " ").replace("*", " ").split() if w not in OPERATORS]
        return plain(" ".join(words), "read as plain words: the operators do not combine")
    return Query(text=text, expression=expression, syntax=True, terms=tuple(terms))


def _syntax_parts(text: str) -> list[tuple[str, str]]:
    """(kind, value) pieces: "term" (an FTS5 string, maybe with `*`), "op", "(" or ")"."""
    raw: list[tuple[str, str]] = []
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token.startswith('"'):
            star = token.endswith("*") and len(token) > 1 and token[-2] == '"'
            inner = token[1:-2] if star else token[1:-1] if token.endswith('"') else token[1:]
            if len(token) == 1:
                inner = ""
            if has_token(inner):
                raw.append(("term", quoted(inner) + ("*" if star else "")))
            continue
        opens = len(token) - len(token.lstrip("("))
        closes = len(token) - len(token.rstrip(")"))
        core = token[opens : len(token) - closes] if closes else token[opens:]
        raw.extend(("(", "(") for _ in range(opens))
        if core in OPERATORS:
            raw.append(("op", core))
        elif core:
            star = core.endswith("*")
            word = core.rstrip("*") if star else core
            if has_token(word):
                raw.append(("term", quoted(word) + ("*" if star else "")))
        raw.extend((")", ")") for _ in range(closes))
    return _balanced(raw)


def _balanced(parts: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """`parts` with unmatched parentheses dropped and empty groups `()` removed."""
    depth = 0
    keep = [True] * len(parts)
    opened: list[int] = []
    for index, (kind, _) in enumerate(parts):
        if kind == "(":
            opened.append(index)
            depth += 1
        elif kind == ")":
            if opened:
                start = opened.pop()
                if not any(parts[i][0] == "term" and keep[i] for i in range(start + 1, index)):
                    for i in range(start, index + 1):
                        keep[i] = False
            else:
                keep[index] = False
    for index in opened:
        keep[index] = False
    return [part for part, kept in zip(parts, keep, strict=True) if kept]


def _assemble(parts: list[tuple[str, str]]) -> tuple[str | None, list[str]]:
    """The FTS5 expression of `parts` (implicit AND between operands), or None when operators
    stand where an operand is needed."""
    out: list[str] = []
    terms: list[str] = []
    expect_operand = True
    for kind, value in parts:
        if kind == "term":
            if not expect_operand:
                out.append("AND")
            out.append(value)
            terms.append(value.rstrip("*")[1:-1].replace('""', '"'))
            expect_operand = False
        elif kind == "(":
            if not expect_operand:
                out.append("AND")
            out.append("(")
            expect_operand = True
        elif kind == ")":
            if expect_operand:
                return None, terms
            out.append(")")
        else:  # an operator
            if expect_operand:
                return None, terms
            out.append(value)
            expect_operand = True
    if expect_operand and out:
        return None, terms
    return " ".join(out), terms
