"""A text input whose value never holds a control or escape sequence.

A paste can bring what a keyboard cannot (ESC, BEL, C1 controls); Textual draws an input's
value as it is, so each value is cleaned as it is set, whatever set it.
"""

from __future__ import annotations

from textual.widgets import Input

from klipui.session.display import clean_line


class PlainInput(Input):
    """An `Input` whose value is cleaned by `clean_line` on every change."""

    def validate_value(self, value: str) -> str:
        return clean_line(value)
