"""Session text made fit to show: no terminal escape or control sequences, and one title rule.

Tool outputs often hold colour codes, cursor moves or window-title sequences. Printed as they
are they act on the user's terminal (hide the cursor, set the title); drawn in a widget they
show as garbage. `clean_text` and `clean_line` remove each sequence whole, so that text cut
afterwards is never cut inside one. `display_title` is the title every view shows for a file.
"""

from __future__ import annotations

import re

from klipui.session.model import SessionInfo

_ESCAPE = re.compile(
    r"\x1b(?:"
    r"\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves and visibility, erase
    r"|\][^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"  # OSC: title, hyperlinks, clipboard (52)
    r"|[PX^_][^\x1b\x9c\n]*(?:\x1b\\|\x9c)?"  # DCS, SOS, PM, APC strings
    r"|[ -/]*[0-~]"  # nF / Fp / Fe / Fs sequences (charset selection, keypad mode, RIS)
    r")?"
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
    r"|\x9d[^\x07\x1b\x9c\n]*[\x07\x9c]?"  # 8-bit OSC
)
"""Each sequence whole, with its payload; a string sequence (OSC, DCS, …) ends at its
terminator (BEL, ESC \\ or the 8-bit ST), or unterminated at the end of its line, so that a cut
or broken sequence never hides the lines after it."""
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
"""C0 controls but tab, LF and CR (handled apart), DEL, and the C1 controls."""
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")
"""Bidirectional controls: they reorder what the terminal shows (a "Trojan Source" trick), so
each is shown as its code point, `[U+202E]`."""
_ANY = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")


def _code_point(match: re.Match[str]) -> str:
    return f"[U+{ord(match.group()):04X}]"


def clean_text(text: str) -> str:
    """`text` without escape sequences and control characters, its bidirectional controls
    shown as code points; CR LF and lone CR become LF."""
    if not _ANY.search(text):
        return text
    text = _ESCAPE.sub("", text)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _BIDI.sub(_code_point, _CONTROL.sub("", text))


def clean_line(line: str) -> str:
    """One line made safe to show as `clean_text` makes text, kept one line (CR dropped, LF and
    tab turned into a space: a tab in a label would move the terminal's cursor to a tab stop)."""
    if not _ANY.search(line) and "\n" not in line and "\t" not in line:
        return line
    line = _ESCAPE.sub("", line).replace("\r", "").replace("\n", " ").replace("\t", " ")
    return _BIDI.sub(_code_point, _CONTROL.sub("", line))


def display_title(info: SessionInfo) -> str:
    """The title of a session file as every view shows it: its own title, or the first prompt
    when there is no title or the title is only the prompt's first words, else the file name."""
    title = " ".join((info.title or "").split())
    prompt = " ".join((info.first_prompt or "").split())
    if prompt and (not title or (prompt.startswith(title) and len(prompt) > len(title))):
        return prompt
    return title or info.path.name
