"""`session.display`: text cleaned of terminal sequences, and the one title rule."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from klipui.session.display import clean_line, clean_text, display_title
from klipui.session.model import SessionInfo

BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
CONTROLS = re.compile(f"[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f{BIDI}]")
ESCAPES = ["\x1b[?25l", "\x1b[2K", "\x1b[1;31m", "\x1b]0;title\x07", "\x1b]8;;x\x1b\\", "\x1bc"]
OTHERS = [
    "\x9b2J",
    "\x07",
    "\x00",
    "\r\n",
    "\r",
    "\t",
    "\n",
    "plain ",
    "ünï ",
    "→ ",
    "[not-esc]",
    *BIDI,
]
PIECES = st.sampled_from([*ESCAPES, *OTHERS])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(PIECES, st.text(max_size=8)), max_size=30))
def test_no_control_survives(parts: list[str]) -> None:
    text = "".join(parts)
    cleaned = clean_text(text)
    assert not CONTROLS.search(cleaned)
    line = clean_line(text)
    assert not CONTROLS.search(line) and "\n" not in line and "\t" not in line


@settings(max_examples=200, deadline=None)
@given(
    st.text(
        alphabet=st.characters(blacklist_categories=("Cc",), blacklist_characters=BIDI),
        max_size=200,
    )
)
def test_text_without_controls_is_unchanged(text: str) -> None:
    assert clean_text(text) == text
    assert clean_line(text) == text


def test_sequences_go_whole_and_text_stays() -> None:
    raw = "\x1b[?25l\x1b[2K\x1b[1G\x1b[36m?\x1b[39m \x1b[1mWould you\x1b[22m"
    raw += "\x1b]0;x\x07 like it?\r\nok"
    assert clean_text(raw) == "? Would you like it?\nok"
    assert clean_line(raw) == "? Would you like it? ok"


def test_display_title_prefers_the_prompt_it_starts() -> None:
    path = Path("/s/a.jsonl")
    prefix = SessionInfo(path, "dsh", title="Use the", first_prompt="Use the bash")
    assert display_title(prefix) == "Use the bash"
    assert display_title(SessionInfo(path, "dsh", title="Own", first_prompt="Other")) == "Own"
    assert display_title(SessionInfo(path, "dsh", first_prompt="a\n  b")) == "a b"
    assert display_title(SessionInfo(path, "dsh")) == "a.jsonl"


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.one_of(PIECES, st.text(max_size=8), st.characters(max_codepoint=0x9F)), max_size=40)
)
def test_clean_text_keeps_only_tab_and_newline_and_is_idempotent(parts: list[str]) -> None:
    cleaned = clean_text("".join(parts))
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", cleaned)  # ESC and BEL included
    assert clean_text(cleaned) == cleaned
    assert clean_line(clean_line("".join(parts))) == clean_line("".join(parts))


def test_osc_52_and_other_strings_go_whole_with_their_payload() -> None:
    payload = "Y3VybCBldmlsLmV4YW1wbGUgfCBzaA=="
    for raw in (
        f"a\x1b]52;c;{payload}\x07b",  # BEL terminated
        f"a\x1b]52;c;{payload}\x1b\\b",  # ST terminated
        f"a\x1bP+q{payload}\x1b\\b",  # DCS
        f"a\x1b_{payload}\x1b\\b",  # APC
        f"a\x9d52;c;{payload}\x9cb",  # 8-bit OSC
    ):
        assert clean_text(raw) == "ab", repr(raw)
    assert clean_text(f"a\x1b]52;c;{payload}") == "a"  # unterminated: to the end
    assert clean_text("a\x1b") == "a" and clean_text("\x1b\x1b[2Jx") == "x"


def test_a_broken_string_sequence_ends_with_its_line() -> None:
    out = "ok\x1b]0;cut title\nnext line\n\x1bPq#0;2;0;0;0\nmore\n\x9d0;t\nlast"
    assert clean_text(out) == "ok\nnext line\n\nmore\n\nlast"
    assert clean_text("a\x1b]0;t\x1b[1mb") == "ab"  # an OSC cut by another sequence
    assert clean_text("a\x1b]0;t\x9cb") == "ab"  # ended by the 8-bit ST


@pytest.mark.parametrize("control", ["\u202e", "\u202a", "\u2066", "\u2069", "\u200f", "\u061c"])
def test_bidirectional_controls_are_shown_as_code_points(control: str) -> None:
    shown = f"[U+{ord(control):04X}]"
    text = f"if (admin{control}) {{ ok }}\nnext"
    assert clean_text(text) == f"if (admin{shown}) {{ ok }}\nnext"
    assert clean_line(text) == f"if (admin{shown}) {{ ok }} next"


def test_right_to_left_letters_are_left_as_they_are() -> None:
    hebrew = "שלום עולם"
    assert clean_text(hebrew) is hebrew
    assert clean_line(hebrew) is hebrew
