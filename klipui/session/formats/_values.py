"""Native values in the lowered shapes every adapter shares.

ISO times to epoch milliseconds, tool arguments to JSON text, base64 and `data:` URL images to
image blocks, and the exact bytes of the records a raised session writes back.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from klipui.session.jsonl import read_bytes
from klipui.session.model import Session


def iso_ms(value: Any, cache: dict[str, int | None] | None = None) -> int | None:
    """Epoch milliseconds of an ISO 8601 time with a zone ("...Z" or an offset), else None;
    `cache` remembers strings already converted (lowering sees the same stamp many times)."""
    if not isinstance(value, str) or not value:
        return None
    if cache is not None and value in cache:
        return cache[value]
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        result = None
    else:
        result = int(moment.timestamp() * 1000) if moment.tzinfo is not None else None
    if cache is not None:
        cache[value] = result
    return result


def json_text(value: Any) -> str:
    """`value` as compact JSON text (a string is returned unchanged); see `dumps_json`. A value
    nested too deeply to write becomes a JSON string saying so."""
    if isinstance(value, str):
        return value
    try:
        return dumps_json(value).decode("utf-8", "replace")
    except ValueError:
        return json.dumps("(nested too deeply to write as JSON)")


def dumps_json(value: Any, indent: bool = False) -> bytes:
    """`value` as JSON: orjson, else (integers beyond 64 bits, nesting orjson refuses) the
    standard library, which writes big integers digit for digit, never a Python repr. NaN and
    the infinities, which JSON cannot hold, become null (as orjson writes them). Raises
    ValueError when the value is nested too deeply even for the standard library."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else None)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        pass
    plain = without_non_finite(value)
    for spaces in (2, None) if indent else (None,):  # unindented is the C encoder: deeper
        try:
            text = json.dumps(
                plain,
                indent=spaces,
                separators=None if spaces else (",", ":"),
                ensure_ascii=False,
                allow_nan=False,
                default=str,
            )
        except RecursionError:
            continue
        return text.encode("utf-8", "replace")
    raise ValueError("nested too deeply to write as JSON")


def without_non_finite(value: Any) -> Any:
    """A copy of a JSON value with NaN and the infinities as None (iterative: any depth)."""

    def plain(item: Any) -> Any:
        if isinstance(item, float) and not math.isfinite(item):
            return None
        if isinstance(item, dict):
            return {}
        if isinstance(item, list | tuple):
            return []
        return item

    root = plain(value)
    stack = [(value, root)] if isinstance(root, dict | list) else []
    while stack:
        source, target = stack.pop()
        pairs = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in pairs:
            copy = plain(item)
            if isinstance(copy, dict | list):
                stack.append((item, copy))
            if isinstance(target, dict):
                target[key] = copy
            else:
                target.append(copy)
    return root


def base64_size(data: Any) -> int:
    """Bytes a base64 string decodes to (0 when it is not a string)."""
    if not isinstance(data, str):
        return 0
    body = data.strip()
    padding = len(body) - len(body.rstrip("="))
    return max(0, len(body) * 3 // 4 - padding)


def data_url_image(url: Any, *, default_media: str = "") -> dict[str, Any]:
    """An image block for a `data:` URL (media type, decoded size; `default_media` when the URL
    names none) or a plain URL."""
    if not isinstance(url, str):
        return {"type": "image", "mediaType": "", "size": 0}
    if url.startswith("data:"):
        head, _, payload = url.partition(",")
        media = head[5:].split(";", 1)[0] or default_media
        size = base64_size(payload) if ";base64" in head else len(payload)
        return {"type": "image", "mediaType": media, "size": size}
    return {"type": "image", "mediaType": "", "size": 0, "url": url}


def raw_lines(session: Session, indexes: Sequence[int]) -> dict[int, bytes]:
    """The exact bytes (no newline) of the records at `indexes`: through `Session.record_bytes`
    for a session opened from its file (ValueError when the file changed since), else read
    from `session.path` directly."""
    wanted = sorted(set(indexes))
    if not wanted:
        return {}
    if session.raw is not None or session.source_stat is not None:
        return {index: session.record_bytes(index) for index in wanted}
    records = session.records
    out: dict[int, bytes] = {}
    if session.compression:
        data = read_bytes(Path(session.path))[0]
        for index in wanted:
            record = records[index]
            out[index] = data[record.offset : record.offset + record.length]
        return out
    with Path(session.path).open("rb") as handle:
        for index in wanted:
            record = records[index]
            handle.seek(record.offset)
            out[index] = handle.read(record.length)
    return out


def text_or_none(value: Any) -> str | None:
    """`value` when it is a string, else None (a header field of another type is no text)."""
    return value if isinstance(value, str) else None
