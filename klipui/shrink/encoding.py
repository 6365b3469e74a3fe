"""Telling the text encoding of a tool output that is not UTF-8: UTF-16 and UTF-32 text.

Windows tools (PowerShell redirection, `reg export`, many `.log` files) write UTF-16, whose
every other byte is a NUL for ASCII text: without this check it looks like binary data. A byte
order mark decides; without one, UTF-16 is recognised by NULs at the odd (little-endian) or
even (big-endian) positions of a probe and almost none at the others.
"""

from __future__ import annotations

import codecs

PROBE = 4096
"""Bytes looked at to tell UTF-16 without a byte order mark."""
NUL_SIDE = 0.4
"""Share of NULs the zero side of the probe must hold (ASCII-heavy UTF-16 has about 1)."""
OTHER_SIDE = 0.05
"""Share of NULs the other side may hold at most."""

_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


def wide_encoding(data: bytes) -> str | None:
    """ "utf-16", "utf-16-le", "utf-16-be" or "utf-32" when `data` is text in that encoding
    (the codec names Python decodes it with), else None."""
    for bom, name in _BOMS:
        if data.startswith(bom):
            return name
    probe = data[: PROBE - PROBE % 2]
    if len(probe) < 4 or len(data) % 2:
        return None
    even, odd = probe[0::2], probe[1::2]
    even_nuls, odd_nuls = even.count(0) / len(even), odd.count(0) / len(odd)
    if odd_nuls >= NUL_SIDE and even_nuls <= OTHER_SIDE:
        return "utf-16-le"
    if even_nuls >= NUL_SIDE and odd_nuls <= OTHER_SIDE:
        return "utf-16-be"
    return None


def decode_wide(data: bytes, encoding: str) -> str:
    """`data` decoded from `encoding` (the byte order mark dropped; bad units become U+FFFD)."""
    return data.decode(encoding, "replace").removeprefix("\ufeff")
