"""A labelled set of real-shaped secrets and look-alikes, made from a seed.

Each item is one line of text (a shell line, a config line, a JSON field, a sentence) with the
spans that hold a secret and their kind; look-alikes (hashes, UUIDs, commit ids, base64 blobs,
integrity strings, identifiers) carry no span. Secrets follow their formats' alphabets and
checksums (GitHub's CRC32 suffix, JWT's JSON header and payload), so a detector cannot pass by
knowing the generator. `python tests/redact_set.py` writes the fixtures; the bench and the tests
read them.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string
import uuid
import zlib
from collections.abc import Callable
from pathlib import Path

BASE62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
URLSAFE = BASE62 + "-_"
UPPER_DIGITS = string.ascii_uppercase + string.digits
B64 = BASE62 + "+/"
FIXTURES = Path(__file__).parent / "fixtures" / "redact"


def _pick(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _base62(number: int, width: int) -> str:
    out = ""
    while number:
        number, digit = divmod(number, 62)
        out = BASE62[digit] + out
    return out.rjust(width, "0")


def github_token(rng: random.Random) -> str:
    prefix = rng.choice(["ghp", "gho", "ghu", "ghs", "ghr"])
    body = _pick(rng, BASE62, 30)
    return f"{prefix}_{body}{_base62(zlib.crc32(body.encode()), 6)}"


def github_pat(rng: random.Random) -> str:
    return f"github_pat_{_pick(rng, BASE62, 22)}_{_pick(rng, BASE62, 59)}"


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def jwt(rng: random.Random) -> str:
    header = {"alg": rng.choice(["HS256", "RS256", "ES256"]), "typ": "JWT"}
    payload = {
        "sub": str(rng.randrange(10**6)),
        "name": rng.choice(["alice", "bob", "svc-deploy"]),
        "iat": rng.randrange(1_600_000_000, 1_800_000_000),
    }
    parts = [json.dumps(header).encode(), json.dumps(payload).encode(), rng.randbytes(32)]
    return ".".join(_b64url(part) for part in parts)


def private_key(rng: random.Random) -> str:
    kind = rng.choice(["RSA ", "EC ", "OPENSSH ", ""])
    body = base64.b64encode(rng.randbytes(rng.randrange(96, 400))).decode()
    lines = [body[i : i + 64] for i in range(0, len(body), 64)]
    return "\n".join(
        [f"-----BEGIN {kind}PRIVATE KEY-----", *lines, f"-----END {kind}PRIVATE KEY-----"]
    )


def _anthropic(rng: random.Random) -> str:
    return f"sk-ant-api03-{_pick(rng, URLSAFE, 93)}AA"


def _openai(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return f"sk-proj-{_pick(rng, URLSAFE, 156)}"
    return f"sk-{_pick(rng, BASE62, 20)}T3BlbkFJ{_pick(rng, BASE62, 20)}"


SECRETS: dict[str, Callable[[random.Random], str]] = {
    "aws-access-key": lambda r: rng_choice(r, ["AKIA", "ASIA"]) + _pick(r, UPPER_DIGITS, 16),
    "github-token": lambda r: github_token(r) if r.random() < 0.7 else github_pat(r),
    "gitlab-token": lambda r: "glpat-" + _pick(r, URLSAFE, 20),
    "slack-token": lambda r: (
        f"xox{rng_choice(r, 'bpa')}-{r.randrange(10**11, 10**12)}-"
        f"{r.randrange(10**11, 10**12)}-{_pick(r, BASE62, 24)}"
    ),
    "stripe-key": lambda r: rng_choice(r, ["sk_live_", "rk_live_"]) + _pick(r, BASE62, 99),
    "openai-key": _openai,
    "anthropic-key": _anthropic,
    "google-api-key": lambda r: "AIza" + _pick(r, URLSAFE, 35),
    "npm-token": lambda r: "npm_" + _pick(r, BASE62, 36),
    "pypi-token": lambda r: "pypi-AgEIcHlwaS5vcmc" + _pick(r, URLSAFE, 140),
    "jwt": jwt,
    "private-key": private_key,
}
"""Generators of secrets found by their own shape."""


def rng_choice(rng: random.Random, options: str | list[str]) -> str:
    return rng.choice(list(options))


SHAPE_TEMPLATES = [
    "export {NAME}={S}",
    '{{"{name}": "{S}"}}',
    "here is the key: {S}",
    "{NAME}='{S}'",
    "Using token {S} for the request.",
    "  {name}: {S}",
    "curl -s https://api.example.com/v1 -d key={S}",
    "`{S}`",
    "{S}",
    "error: invalid credentials ({S}) for user deploy",
]
NAMES = ["API_KEY", "TOKEN", "ACCESS", "CRED", "KEY", "AUTH"]
HELDOUT_TEMPLATES = [
    "Run `deploy --key {S}` then wait.",
    "- value: {S}",
    '[config]\n{name} = "{S}"\n',
    "<td>{S}</td>",
    "logged in with {S}, expires in 3600s",
    "env:\n  {NAME}: {S}",
    '  File "app.py", line 3, in <module>\n    client = Client("{S}")',
    "docker run -e {NAME}={S} app:latest",
    "|{S}|",
    "INFO 12:00:01 using credential {S} (from keychain)",
]
HELDOUT_NAMES = ["SERVICE_KEY", "BOT", "UPLOAD", "PUBLISH", "CI_ACCESS", "SECRET"]


def _aws_secret(rng: random.Random) -> str:
    return _pick(rng, B64, 40)


def _password(rng: random.Random) -> str:
    return _pick(rng, BASE62 + "!%^*-_", rng.randrange(10, 24))


def context_items(rng: random.Random) -> list[dict]:
    """Secrets found by their context: URL passwords, headers, .env assignments."""
    items = []
    for _ in range(40):
        password = _password(rng)
        scheme = rng.choice(["postgres", "postgresql", "mysql", "mongodb+srv", "redis", "https"])
        host = rng.choice(["db.internal", "localhost:5432", "cluster0.ab1cd.mongodb.net"])
        text = f"DATABASE_URL={scheme}://app_user:{password}@{host}/main"
        items.append(_item(text, password, "url-password"))
    for _ in range(40):
        token = _pick(rng, URLSAFE, rng.randrange(24, 48))
        form = rng.choice(
            [
                'curl -H "Authorization: Bearer {t}" https://api.example.com',
                "Authorization: Basic {t}",
                "authorization: token {t}",
                '{{"headers": {{"Authorization": "Bearer {t}"}}}}',
                "X-Api-Key: {t}",
            ]
        )
        items.append(_item(form.format(t=token), token, "authorization"))
    for _ in range(40):
        value = rng.choice([_password(rng), _pick(rng, BASE62, 32)])
        name = rng.choice(
            [
                "DB_PASSWORD",
                "SECRET_KEY",
                "JWT_SECRET",
                "STRIPE_SECRET",
                "REDIS_PASSWORD",
                "SESSION_SECRET",
                "ADMIN_PASSWORD",
                "CLIENT_SECRET",
                "SMTP_PASS_WORD",
            ]
        )
        if name == "SMTP_PASS_WORD":
            name = "SMTP_PASSWORD"
        form = rng.choice(["{n}={v}", 'export {n}="{v}"', "{n}: '{v}'", '  {n} = "{v}"'])
        items.append(_item(form.format(n=name, v=value), value, "env-secret"))
    for _ in range(20):
        secret = _aws_secret(rng)
        items.append(_item(f"aws_secret_access_key = {secret}", secret, "aws-secret-key"))
    return items


def _item(text: str, secret: str, kind: str) -> dict:
    start = text.index(secret)
    return {"text": text, "spans": [[start, start + len(secret), kind]]}


def lookalikes(rng: random.Random) -> list[str]:
    """Lines that hold no secret but look like one to a careless detector."""
    out = []
    for _ in range(30):
        data = rng.randbytes(64)
        out += [
            f"commit {hashlib.sha1(data).hexdigest()}",
            f"sha256: {hashlib.sha256(data).hexdigest()}",
            f"request id {uuid.UUID(bytes=rng.randbytes(16), version=4)}",
            f"data:image/png;base64,{base64.b64encode(rng.randbytes(300)).decode()}",
            f'"integrity": "sha512-{base64.b64encode(hashlib.sha512(data).digest()).decode()}"',
            f"docker pull app@sha256:{hashlib.sha256(data[::-1]).hexdigest()}",
            f"{hashlib.md5(data).hexdigest()}  dist/app.tar.gz",
            f"Merge: {hashlib.sha1(data).hexdigest()[:7]} {hashlib.sha1(data[1:]).hexdigest()[:7]}",
            "password = os.environ['DB_PASSWORD']",
            "api_key = settings.OPENAI_API_KEY",
            f"max_tokens={rng.randrange(1000, 200000)}",
            'token = tokenizer.encode("hello world")',
            "DATABASE_URL=postgres://user:password@localhost:5432/dev",
            f"SECRET_KEY=${{SECRET_KEY}} # set in CI, run {rng.randrange(100)}",
            "const handlePasswordResetRequestWithTimeout = async () => {}",
            "src/components/UserProfileSettingsPanel/index.tsx",
        ]
    return out


def generic_items(rng: random.Random) -> list[dict]:
    """Random credentials of no known shape, in plain sentences: found only by entropy."""
    items = []
    for _ in range(40):
        secret = _pick(rng, BASE62, rng.randrange(28, 48))
        form = rng.choice(["the session key is {s}", "use {s} to sign in", "ref: {s}"])
        items.append(_item(form.format(s=secret), secret, "high-entropy"))
    return items


def make_set(seed: int, *, heldout: bool = False) -> list[dict]:
    """The labelled items of one seed: shape secrets in templates, context secrets, random
    credentials and look-alikes (spans empty). `heldout` uses other templates and names, so the
    held-out figure is not the tuned one again with new random characters."""
    rng = random.Random(seed)
    templates = HELDOUT_TEMPLATES if heldout else SHAPE_TEMPLATES
    names = HELDOUT_NAMES if heldout else NAMES
    items: list[dict] = []
    for kind, make in SECRETS.items():
        for _ in range(40 if kind != "private-key" else 15):
            secret = make(rng)
            template = rng.choice(templates)
            text = template.format(NAME=rng.choice(names), name=rng.choice(names).lower(), S=secret)
            items.append(_item(text, secret, kind))
    items += generic_items(rng)
    items += context_items(rng)
    items += [{"text": text, "spans": []} for text in lookalikes(rng)]
    rng.shuffle(items)
    return items


def main() -> None:
    FIXTURES.mkdir(parents=True, exist_ok=True)
    for name, seed, heldout in (("labelled.jsonl", 1, False), ("heldout.jsonl", 20261203, True)):
        lines = [json.dumps(item) for item in make_set(seed, heldout=heldout)]
        (FIXTURES / name).write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
