"""Keeping binary data out of API messages: big base64 blobs and binary text become placeholders.

A placeholder states what was there and how big it was, e.g.
`[base64 data omitted: image/png, 48.2 KB]` or `[binary content omitted: 3.1 KB]`.

- `sanitize_text`: `data:` URLs with a base64 payload, and runs of base64 of at least
  `min_base64` characters (mixed case and digits, so long words and hex hashes are left alone)
  become placeholders; text that looks binary (NUL bytes, many control characters, many U+FFFD
  replacement characters) becomes one placeholder as a whole.
- `sanitize_messages`: the same over every text of API messages in either shape, plus image
  blocks (`source.type == "base64"`, or an `image_url` data URL) with at least `min_base64`
  characters of data, which become text blocks holding the placeholder (inside a
  `tool_result`, its content). The input is not modified.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from klipui.conversation.walk import Message
from klipui.session.formats import base64_size

MIN_BASE64 = 1024
"""Shortest base64 run (characters) that is replaced."""

_DATA_URL = re.compile(r"data:([\w.+-]+/[\w.+-]+)?(?:;[\w=.-]+)*;base64,([A-Za-z0-9+/]+={0,2})")
_BASE64_RUN = re.compile(r"(?<![A-Za-z0-9+/])[A-Za-z0-9+/]{64,}={0,2}")
"""A run of base64 characters, matched from its start only (no quadratic retries inside it)."""
_BASE64_CHARS = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_RUN_TABLE = bytes(65 if byte in _BASE64_CHARS else 32 for byte in range(256))
"""Maps base64 characters to `A` and every other byte to a space (a fast pre-check)."""
_MAGIC = (
    (b"\x89PNG", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF8", "image/gif"),
    (b"%PDF", "application/pdf"),
    (b"PK\x03\x04", "application/zip"),
    (b"\x1f\x8b", "application/gzip"),
    (b"\x7fELF", "application/x-elf"),
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1a\x1c-\x1f\x7f-\x9f]")


@dataclass(slots=True)
class Sanitized:
    """The result of sanitising messages: the new messages and how many blobs were replaced."""

    messages: list[Message]
    replaced: int


def human_size(size: int) -> str:
    """A byte count for people: `512 bytes`, `48.2 KB`, `3.1 MB`."""
    if size < 1024:
        return f"{size} bytes"
    value = float(size)
    for unit in ("KB", "MB", "GB"):
        value /= 1024
        if value < 1024 or unit == "GB":
            return f"{value:.1f} {unit}"
    return f"{size} bytes"


def sniff_media_type(payload: str) -> str:
    """The media type of base64 data, from its first bytes ("application/octet-stream" when
    unknown)."""
    head = payload[:24]
    head = head[: len(head) - len(head) % 4]
    try:
        raw = base64.b64decode(head, validate=False)
    except (binascii.Error, ValueError):
        return "application/octet-stream"
    for magic, media in _MAGIC:
        if raw.startswith(magic):
            return media
    if raw[:4] == b"RIFF" and raw[8:12] == b"WEBP":
        return "image/webp"
    return "application/octet-stream"


def base64_placeholder(media: str, size: int) -> str:
    """The text that stands for an omitted base64 blob."""
    return f"[base64 data omitted: {media}, {human_size(size)}]"


def looks_binary(text: str) -> bool:
    """True for text decoded from binary data: a NUL, or more than 10% control (C0 or C1) or
    U+FFFD characters (tabs, newlines and ANSI escapes do not count)."""
    if "\x00" in text:
        return True
    if len(text) < 32:
        return False
    sample = text[:8192]
    odd = len(_CONTROL.findall(sample)) + sample.count("\ufffd")
    return odd * 10 > len(sample)


def has_base64_run(text: str, length: int) -> bool:
    """True when `text` holds a run of at least `length` base64 characters (fast, no regex)."""
    translated = text.encode("utf-8", "surrogatepass").translate(_RUN_TABLE)
    return b"A" * length in translated


def _is_base64_blob(run: str, min_base64: int) -> bool:
    if len(run) < min_base64:
        return False
    return (
        any(c.isupper() for c in run)
        and any(c.islower() for c in run)
        and any(c.isdigit() for c in run)
    )


def sanitize_text(text: str, min_base64: int = MIN_BASE64) -> tuple[str, int]:
    """`text` with base64 blobs and binary replaced, and how many replacements were made.

    Blobs are replaced first; text that then looks binary is replaced as a whole (its size is
    that of the original), so that sanitising twice changes nothing more.
    """
    original = text
    count = 0

    def data_url(match: re.Match[str]) -> str:
        nonlocal count
        payload = match.group(2)
        if len(payload) < min_base64:
            return match.group(0)
        count += 1
        media = match.group(1) or sniff_media_type(payload)
        return base64_placeholder(media, base64_size(payload))

    def run(match: re.Match[str]) -> str:
        nonlocal count
        blob = match.group(0)
        if not _is_base64_blob(blob, min_base64):
            return blob
        count += 1
        return base64_placeholder(sniff_media_type(blob), base64_size(blob))

    if len(text) >= min_base64 and has_base64_run(text, min_base64):
        text = _DATA_URL.sub(data_url, text)
        text = _BASE64_RUN.sub(run, text)
    if looks_binary(text):
        size = len(original.encode("utf-8", "replace"))
        return f"[binary content omitted: {human_size(size)}]", 1
    return text, count


def sanitize_messages(messages: Iterable[Message], min_base64: int = MIN_BASE64) -> Sanitized:
    """Messages (either API shape) with every base64 blob and binary text replaced."""
    counter = [0]
    out = [_message(message, min_base64, counter) for message in messages]
    return Sanitized(out, counter[0])


def _message(message: Message, min_base64: int, counter: list[int]) -> Message:
    out = dict(message)
    if "content" in out:
        out["content"] = _content(out["content"], min_base64, counter)
    return out


def _content(content: Any, min_base64: int, counter: list[int]) -> Any:
    if isinstance(content, str):
        text, count = sanitize_text(content, min_base64)
        counter[0] += count
        return text
    if isinstance(content, list):
        return [_block(block, min_base64, counter) for block in content]
    return content


def _block(block: Any, min_base64: int, counter: list[int]) -> Any:
    if isinstance(block, str):
        return _content(block, min_base64, counter)
    if not isinstance(block, dict):
        return block
    kind = block.get("type")
    if kind == "text" and isinstance(block.get("text"), str):
        text, count = sanitize_text(block["text"], min_base64)
        counter[0] += count
        return {**block, "text": text}
    if kind == "tool_result":
        return {**block, "content": _content(block.get("content"), min_base64, counter)}
    if kind == "image":
        found = block.get("source")
        source: dict[str, Any] = found if isinstance(found, dict) else {}
        data = source.get("data")
        if source.get("type") == "base64" and isinstance(data, str) and len(data) >= min_base64:
            counter[0] += 1
            media = source.get("media_type") or sniff_media_type(data)
            return {"type": "text", "text": base64_placeholder(media, base64_size(data))}
    if kind == "image_url":
        image = block.get("image_url")
        url = image.get("url") if isinstance(image, dict) else image
        if isinstance(url, str) and url.startswith("data:") and len(url) >= min_base64:
            text, count = sanitize_text(url, min_base64)
            if count:
                counter[0] += count
                return {"type": "text", "text": text}
    return block
