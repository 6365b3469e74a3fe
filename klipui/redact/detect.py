"""Detectors of secrets in text: each finds spans of one kind, with the reason it matched.

Detectors are tried in priority order (known token shapes first, then context rules, then the
entropy rule); overlapping matches keep the higher-priority one, then the longer one.
"""

from __future__ import annotations

import bisect
import itertools
import math
import re
import string
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Match:
    """One span of `text` that holds a secret."""

    kind: str
    start: int
    end: int
    reason: str


Detector = Callable[[str], Iterator[Match]]

_E = r"(?![A-Za-z0-9_])"
"""Right boundary of a token."""

_SHAPES: list[tuple[str, str, re.Pattern[str]]] = [
    (
        "private-key",
        "a PEM private key block",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----"
            r"(?:[\s\S]{0,16000}?-----END (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----"
            r"|[A-Za-z0-9+/=\s:\\n-]{0,16000})"
        ),
    ),
    (
        "anthropic-key",
        "the sk-ant- prefix of Anthropic API keys",
        re.compile(r"sk-ant-(?:api|admin|oat|sid)\d\d-[A-Za-z0-9_-]{20,}" + _E.replace("_", "_-")),
    ),
    (
        "openai-key",
        "the sk- / sk-proj- shape of OpenAI API keys",
        re.compile(
            r"sk-(?:proj-|svcacct-|admin-|None-)?(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Z])"
            r"(?=[A-Za-z0-9_-]*[a-z])[A-Za-z0-9_-]{32,}" + r"(?![A-Za-z0-9_-])"
        ),
    ),
    (
        "aws-access-key",
        "the AKIA/ASIA prefix of AWS access key ids",
        re.compile(r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}" + _E),
    ),
    (
        "github-token",
        "the ghp_/gho_/ghu_/ghs_/ghr_ prefix of GitHub tokens",
        re.compile(r"gh[pousr]_[A-Za-z0-9]{36,255}" + _E),
    ),
    (
        "github-token",
        "the github_pat_ prefix of GitHub fine-grained tokens",
        re.compile(r"github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}" + _E),
    ),
    (
        "gitlab-token",
        "the glpat- prefix of GitLab personal access tokens",
        re.compile(
            r"gl(?:pat|dt|oas|rt|cbt|ptt|ft|imt|agent|soat)-"
            r"[A-Za-z0-9_-]{20,}(?:\.[A-Za-z0-9]{2}\.[A-Za-z0-9]{9})?(?![A-Za-z0-9_-])"
        ),
    ),
    (
        "slack-token",
        "the xox*- prefix of Slack tokens",
        re.compile(r"xox[abposre]-(?:\d+-)+[A-Za-z0-9-]{8,}" + r"(?![A-Za-z0-9-])"),
    ),
    (
        "slack-webhook",
        "a Slack incoming-webhook address",
        re.compile(r"https://hooks\.slack\.com/(?:services|workflows)/[A-Za-z0-9/_-]{20,}"),
    ),
    (
        "stripe-key",
        "the sk_live_/rk_live_ shape of Stripe secret keys",
        re.compile(r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{20,}" + _E),
    ),
    (
        "google-api-key",
        "the AIza prefix of Google API keys",
        re.compile(r"AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])"),
    ),
    (
        "huggingface-token",
        "the hf_ prefix of Hugging Face access tokens",
        re.compile(r"hf_[A-Za-z]{34}" + _E),
    ),
    (
        "npm-token",
        "the npm_ prefix of npm access tokens",
        re.compile(r"npm_[A-Za-z0-9]{36}" + _E),
    ),
    (
        "pypi-token",
        "the pypi-AgE prefix of PyPI upload tokens",
        re.compile(r"pypi-AgE[A-Za-z0-9_-]{50,}(?![A-Za-z0-9_-])"),
    ),
    (
        "jwt",
        "a JSON Web Token (three base64url parts, header and payload are JSON)",
        re.compile(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{0,1000}"),
    ),
]

KNOWN_SHAPES: tuple[str, ...] = tuple(dict.fromkeys(kind for kind, _, _ in _SHAPES))
"""The kinds found by their own shape (recall on these is what the benchmark's target is)."""

_PLACEHOLDER = re.compile(
    r"^(?:\[REDACTED|\$\{?[A-Za-z_]|<[^>]*>?$|%(?:\([A-Za-z_]+\))?s$|\{\{|\*{3,}|x{3,}|X{3,}|\.{3}|…)"
    r"|^(?:password|passwd|pass|secret|changeme|example|your[_-]?\w*|placeholder|redacted|"
    r"none|null|true|false|undefined|dummy|test|string|str|bytes|optional|required|"
    r"\*+|-+|x+|X+)$",
    re.IGNORECASE,
)
"""Values that stand for a secret without being one (templates, references, examples)."""


def is_placeholder(value: str) -> bool:
    """True for a value that names or templates a secret rather than holding one."""
    return bool(_PLACEHOLDER.search(value))


_WORDISH = frozenset(string.ascii_letters + string.digits + "_-")


def _shapes(text: str) -> Iterator[Match]:
    for kind, reason, pattern in _SHAPES:
        for found in pattern.finditer(text):
            start = found.start()
            if start and text[start - 1] in _WORDISH and kind != "private-key":
                continue  # inside a longer token
            yield Match(kind, start, found.end(), reason)


_URL_PASSWORD = re.compile(r"://[^\s:/@\"'<>]{1,128}:([^\s@/\"'<>]{1,256})@")


def _url_passwords(text: str) -> Iterator[Match]:
    for found in _URL_PASSWORD.finditer(text):
        password = found.group(1)
        if is_placeholder(password):
            continue
        yield Match("url-password", found.start(1), found.end(1), "the password part of a URL")


_AUTH_HEADER = re.compile(
    r"authorization\b[\"']?\s*[:=]\s*[\"']?"
    r"(?:(?:bearer|basic|token|bot|digest|apikey|sso-key)\s+)?"
    r"([A-Za-z0-9._~+/=:-]{8,})"
)
_KEY_HEADER = re.compile(
    r"(?:x-api-key|x-auth-token|api-key|x-goog-api-key|private-token|x-access-token)"
    r"[\"']?\s*:\s*[\"']?([A-Za-z0-9._~+/=-]{12,})"
)


def _lowered(text: str) -> str:
    """`text` in lower case with the same indices (the text itself when lowering would move
    them: a few characters lower to two)."""
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else text


def _headers(text: str) -> Iterator[Match]:
    lowered = _lowered(text)
    for pattern, reason in (
        (_AUTH_HEADER, "the credential of an Authorization header"),
        (_KEY_HEADER, "the value of an API-key header"),
    ):
        for found in pattern.finditer(lowered):
            value = text[found.start(1) : found.end(1)]
            if is_placeholder(value) or _is_reference(value):
                continue
            yield Match("authorization", found.start(1), found.end(1), reason)


_SECRET_WORD = re.compile(
    r"secret|token|passw(?:or)?d|pwd|api[_-]?key|apikey|access[_-]?key|private[_-]?key|"
    r"auth[_-]?key|credentials?"
)
_NAME_TAIL = re.compile(
    r"[A-Za-z0-9_.-]*[\"']?[ \t]*(?::=|=|:)[ \t]*([\"']?)([^\s\"'`,;]{6,512})\1"
)
_NAME_CHARS = frozenset(string.ascii_letters + string.digits + "_.-")
_NOT_SECRET_NAME = re.compile(
    r"(?i)tokens|tokeni[sz]|token_?(?:count|type|limit|usage|id|ize|s)\b|max_?token|"
    r"(?:_|^)(?:file|path|env|name|url|uri|len|length|size|id|ids|dir|field|type|header|"
    r"prefix|suffix|format|kind|hash|sha|endpoint|expires?|expiry|ttl|at|in|count|index)$|"
    r"^(?:csrf|xsrf)|csrf|secretsmanager|password_?(?:reset|hash|policy|field|prompt)|"
    r"passwordless"
)
_REFERENCE = re.compile(
    r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+(?:\(.*)?$"  # settings.SECRET, f(x)
    r"|[()\[\]{}]|^\$|^&|^@|^#|^env\b|getenv|environ|process\.env|^os\.|^self\.|"
    r"^[a-z_]+$|^[A-Z_]+$|[<>]|\.\.\.|…|^[a-z]{2,}(?:[A-Z][a-z]{2,})+$|^(?:[A-Z][a-z]{2,})+$|^\d+(?:\.\d+)?[a-z]*$|^[a-z]+(?:-[a-z]+)+$|^(?:/[A-Za-z0-9_.@-]+)+/?$|^~|^\.|\.(?:txt|json|"
    r"ya?ml|toml|pem|key|env|ini|cfg|conf|py|js|ts|sh)$"
)
"""Values that refer to a secret kept elsewhere (a variable, call, path, number, word)."""


def _is_reference(value: str) -> bool:
    return bool(_REFERENCE.search(value))


def _assignments(text: str) -> Iterator[Match]:
    for word in _SECRET_WORD.finditer(_lowered(text)):
        found = _NAME_TAIL.match(text, word.end())
        if not found:
            continue
        start = word.start()
        while start and text[start - 1] in _NAME_CHARS:
            start -= 1
        name = text[start : found.start(1)].rstrip(" \t:=\"'")
        value = found.group(2)
        if _NOT_SECRET_NAME.search(name) or is_placeholder(value) or _is_reference(value):
            continue
        aws = "aws" in name.lower() and "secret" in name.lower()
        yield Match(
            "aws-secret-key" if aws else "env-secret",
            found.start(2),
            found.end(2),
            f"the value given to {name[:40]!r}, a secret-looking name",
        )


_HOME = re.compile(
    r"(?<![A-Za-z0-9_.-])(?:/home|/Users|C:\\Users)[/\\]([A-Za-z0-9_][A-Za-z0-9_.-]*)"
)
_EMAIL = re.compile(
    r"(?<![A-Za-z0-9._%+-])[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*"
    r"\.[A-Za-z]{2,24}(?![A-Za-z0-9-])"
)


def home_paths(text: str) -> Iterator[Match]:
    """The user part of home folders (`/home/alice`, `/Users/alice`)."""
    for found in _HOME.finditer(text):
        yield Match("home-path", found.start(), found.end(), "a home folder naming its user")


def emails(text: str) -> Iterator[Match]:
    """E-mail addresses."""
    for found in _EMAIL.finditer(text):
        yield Match("email", found.start(), found.end(), "an e-mail address")


_CANDIDATE = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_=-]{20,100}(?![A-Za-z0-9+/=_-])")
_HEX = re.compile(r"^(?:0x)?[0-9a-fA-F-]+$")
_NOT_RANDOM = re.compile(
    r"^sha\d+-|^(?:md5|sha\d*)[:=]|\d{4}-\d\d-\d\d|"
    r"^(?:req|msg|msgbatch|toolu|srvtoolu|call|chatcmpl|resp|run|file|evt|cus|pi|ch|sub|in|txn|"
    r"prod|price|thread|asst|batch|ft|org|user|item|rs|fc|ws|msg|step|vs|cs|seti|re|po|acct)_"
)
"""Integrity strings (`sha512-…`), anything with a date in it, and the ids of API objects
(`req_…`, `msg_…`, `toolu_…`, `call_…`: public handles, not credentials)."""
_BASE64_LINE = re.compile(r"^[A-Za-z0-9+/=]{40,}$")


def _in_block(text: str, start: int, end: int) -> bool:
    """True when the span is a whole line of a run of base64 lines (a PEM certificate or key
    body, an encoded file): a blob, not a credential."""
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    if text[line_start:line_end].strip() != text[start:end]:
        return False
    before = text[text.rfind("\n", 0, max(0, line_start - 1)) + 1 : max(0, line_start - 1)]
    after_end = text.find("\n", line_end + 1)
    after = text[line_end + 1 : len(text) if after_end < 0 else after_end]
    return any(_BASE64_LINE.match(line.strip()) for line in (before, after))


def entropy(text: str) -> float:
    """Shannon entropy of `text` in bits per character."""
    counts = Counter(text)
    size = len(text)
    return -sum(n / size * math.log2(n / size) for n in counts.values())


def looks_random(token: str) -> bool:
    """True for a token that looks like a random credential rather than a word, a path, an
    identifier, a hash, a UUID or a commit id."""
    if _HEX.match(token):
        return False  # hashes, commit ids, UUIDs: hex only
    core = token.rstrip("=")
    upper = sum(c.isupper() for c in core)
    lower = sum(c.islower() for c in core)
    digits = sum(c.isdigit() for c in core)
    size = len(core)
    if size < 20 or not upper or not lower or not digits:
        return False
    if _NOT_RANDOM.search(core):
        return False
    if "/" in core and sum(len(p) for p in core.split("/") if len(p) >= 16) < size * 0.8:
        return False  # a path: short segments
    switches = sum(1 for a, b in itertools.pairwise(core) if _class(a) != _class(b))
    if switches < size * 0.3:
        return False  # camelCase identifiers and words switch class rarely
    if sum(len(w) for w in _WORD.findall(core)) >= size * 0.6:
        return False  # camelCase or snake_case identifier made of words
    letters_runs = re.findall(r"[a-z]{5,}", core)
    if sum(len(run) for run in letters_runs) > size * 0.35:
        return False  # mostly lowercase words
    return entropy(core) >= min(4.2, math.log2(size) - 0.45)


_WORD = re.compile(r"[A-Z]?[a-z]{2,}")


def _class(char: str) -> int:
    return 0 if char.islower() else 1 if char.isupper() else 2 if char.isdigit() else 3


def _entropy(text: str) -> Iterator[Match]:
    for found in _CANDIDATE.finditer(text):
        token = found.group()
        if looks_random(token) and not _in_block(text, found.start(), found.end()):
            yield Match(
                "high-entropy",
                found.start(),
                found.end(),
                f"a random-looking string ({entropy(token.rstrip('=')):.1f} bits a character)",
            )


DETECTORS: tuple[Detector, ...] = (_shapes, _url_passwords, _headers, _assignments, _entropy)
"""The default detectors, in priority order."""


def detect(text: str, *, detectors: tuple[Detector, ...] = DETECTORS) -> list[Match]:
    """The secrets of `text`, in order, without overlaps (the earlier detector wins, then the
    longer span)."""
    found: list[tuple[int, int, int, Match]] = []
    for rank, detector in enumerate(detectors):
        for match in detector(text):
            if match.end > match.start:
                found.append((match.start, rank, -(match.end - match.start), match))
    if not found:
        return []
    found.sort(key=lambda item: (item[1], item[2], item[0]))
    starts: list[int] = []
    taken: list[Match] = []
    for _, _, _, match in found:
        at = bisect.bisect_right(starts, match.start)
        if at and taken[at - 1].end > match.start:
            continue
        if at < len(taken) and taken[at].start < match.end:
            continue
        starts.insert(at, match.start)
        taken.insert(at, match)
    return taken
