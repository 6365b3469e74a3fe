"""Make session text safe to draw: no terminal escape or control sequences reach the screen.

Tool outputs often hold colour codes, cursor moves or window-title sequences; drawn as they are
they show as garbage (or, in a terminal, act on it). Sequences are removed whole, never cut.
"""

from __future__ import annotations

import re

_ESCAPE = re.compile(
    r"\x1b(?:"
    r"\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, erase
    r"|\][^\x07\x1b]*(?:\x07|\x1b\\|$)"  # OSC: window title, hyperlinks
    r"|[PX^_][^\x1b]*(?:\x1b\\|$)"  # DCS, SOS, PM, APC
    r"|[@-Z\\-_]"  # two-character sequences
    r")?"
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_ANY = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x9b]")


def clean_text(text: str) -> str:
    """`text` without escape sequences and control characters; CR LF and lone CR become LF."""
    if not _ANY.search(text):
        return text
    text = _ESCAPE.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROL.sub("", text)


def clean_line(line: str) -> str:
    """One line made safe to draw, keeping it one line (a CR is dropped, not split on)."""
    if not _ANY.search(line):
        return line
    return _CONTROL.sub("", _ESCAPE.sub("", line).replace("\r", "").replace("\n", " "))
