"""The redactor: recall and false positives on the labelled sets, stable placeholders,
idempotence, JSON structure kept."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from klipui.redact import KNOWN_SHAPES, Redactor
from klipui.redact.redactor import SKIP_KEYS
from tests.redact_set import SECRETS, github_token, make_set

FIXTURES = Path(__file__).parent / "fixtures" / "redact"


@pytest.mark.parametrize("name", ["labelled.jsonl", "heldout.jsonl"])
def test_recall_and_lookalikes_on_the_labelled_sets(name: str) -> None:
    items = [json.loads(line) for line in (FIXTURES / name).read_text().splitlines()]
    found = total = flagged = lookalikes = 0
    for item in items:
        findings = Redactor().find(item["text"])
        if not item["spans"]:
            lookalikes += 1
            flagged += bool(findings)
        for start, end, kind in item["spans"]:
            total += kind in KNOWN_SHAPES
            found += kind in KNOWN_SHAPES and any(
                f.start <= start and f.end >= end for f in findings
            )
    assert lookalikes > 400 and total > 400
    assert found / total >= 0.99
    assert flagged / lookalikes <= 0.01


def test_fixtures_are_what_the_generator_makes() -> None:
    for name, made in (
        ("labelled.jsonl", make_set(1)),
        ("heldout.jsonl", make_set(20261203, heldout=True)),
    ):
        lines = (FIXTURES / name).read_text().splitlines()
        assert [json.loads(line) for line in lines] == json.loads(json.dumps(made))


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_each_shape_is_found_with_its_kind(kind: str) -> None:
    rng = random.Random(kind)
    for _ in range(20):
        secret = SECRETS[kind](rng)
        text = f"the value is {secret} here"
        findings = Redactor().find(text)
        assert [(f.kind, f.secret) for f in findings] == [(kind, secret)]


def test_same_secret_same_number_across_texts() -> None:
    rng = random.Random(7)
    first, second = github_token(rng), github_token(rng)
    redactor = Redactor()
    a = redactor.redact(f"{first} {second}")
    b = redactor.redact(f"again {second} then {first}")
    assert a == "[REDACTED github-token #1] [REDACTED github-token #2]"
    assert b == "again [REDACTED github-token #2] then [REDACTED github-token #1]"
    assert redactor.found == {"github-token": 4}


def test_optional_home_and_email() -> None:
    text = "open /home/alice/proj/a.py and mail alice@example.org"
    assert Redactor().redact(text) == text
    out = Redactor(home=True, emails=True).redact(text)
    assert out == "open ~/proj/a.py and mail [REDACTED email #1]"


FILLER = st.text(alphabet=st.sampled_from("ab =:/\n\"'._-@xyzKEY0189"), max_size=30)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(FILLER, st.sampled_from(sorted(SECRETS))), max_size=8), st.integers())
def test_redaction_is_idempotent_and_removes_every_secret(parts: list[str], seed: int) -> None:
    rng = random.Random(seed)
    secrets = []
    pieces = []
    for part in parts:
        if part in SECRETS:
            secret = SECRETS[part](rng)
            secrets.append(secret)
            pieces.append(f" {secret} ")
        else:
            pieces.append(part)
    text = "".join(pieces)
    redactor = Redactor()
    once = redactor.redact(text)
    assert redactor.redact(once) == once
    for secret in secrets:
        assert secret not in once


def test_json_keeps_keys_ids_and_structure() -> None:
    token = github_token(random.Random(3))
    value = {
        "uuid": token,
        "signature": token,
        "message": {"content": [{"type": "text", "text": f"use {token}"}], "n": 3, "ok": True},
        token: ["x", None, 1.5],
    }
    out = Redactor().redact_json(value)
    assert out["uuid"] == token and out["signature"] == token
    assert out["message"]["content"][0]["text"] == "use [REDACTED github-token #1]"
    assert out["message"]["n"] == 3 and out["message"]["ok"] is True
    assert out[token] == ["x", None, 1.5]
    assert {"uuid", "signature", "type", "id"} <= SKIP_KEYS


@pytest.mark.parametrize(
    "text",
    [
        "commit 3f2a9c1e0b7d4e5f6a7b8c9d0e1f2a3b4c5d6e7f",
        "id 123e4567-e89b-12d3-a456-426614174000",
        "password = os.environ['DB_PASSWORD']",
        "max_tokens=128000",
        "export OPENAI_API_KEY=sk-...",
        "postgres://user:password@localhost/dev",
        "request req_011CVvAQm5gLufA1cDeHobKh failed",
        "const getBase64FromDataURL = () => 1",
        "src/components/UserProfileSettingsPanel/index.tsx",
    ],
)
def test_lookalikes_are_left_alone(text: str) -> None:
    assert Redactor().find(text) == []
