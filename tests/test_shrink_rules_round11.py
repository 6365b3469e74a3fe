"""Round 11: the words and letters of trouble, each rule stated on crafted text."""

from __future__ import annotations

from klipui.shrink import Hint
from klipui.shrink.salience import STRONG, WEAK, Scores
from klipui.shrink.text import split


def _report(odd: dict[int, str]) -> str:
    """200 routine lines of a checker, with the lines of `odd` at their indices."""
    lines = [f"I: acme-agent: checked file {k:03d} in {k % 9} ms" for k in range(200)]
    for index, line in odd.items():
        lines[index] = line
    return "\n".join(lines) + "\n"


def test_a_line_led_by_an_error_letter_is_a_strong_signal() -> None:
    text = _report({100: "E: acme-agent: no-copyright-file", 140: "see section E: of the guide"})
    scores = Scores(split(text), Hint(tool="bash", command="lintian pkg.deb")).score
    assert scores[100] >= STRONG
    assert scores.get(140, 0) < WEAK


def test_a_line_led_by_a_warning_letter_is_a_weak_signal() -> None:
    text = _report({100: "W: acme-agent: script-not-executable [usr/lib/acme/helper.sh]"})
    scores = Scores(split(text), Hint(tool="bash", command="lintian pkg.deb")).score
    assert WEAK <= scores[100] < STRONG


def test_words_of_trouble_beyond_error_are_strong_signals() -> None:
    odd = {
        60: "Illegal division by zero at /usr/bin/tuner line 6024.",
        90: "config: malformed entry in section [cache]",
        120: "TLS: certificate expired on 2026-01-02",
        150: "STARTTLS: unexpected response from the server",
    }
    scores = Scores(split(_report(odd)), Hint(tool="bash", command="tuner")).score
    assert all(scores[i] >= STRONG for i in odd)
