"""The shape of a tool output as the reducers see it: the label and colours a viewer gives it."""

from __future__ import annotations

from klipui.shrink.pipeline import BUILTIN_ORDER, builtin_reducers
from klipui.shrink.plan import Hint

SHAPES = BUILTIN_ORDER[: BUILTIN_ORDER.index("tree") + 1]
"""Shapes the reducers recognise (their order up to `tree`; the reducers after it are generic)."""
LOG_SHAPES = frozenset({"tests", "build", "lint", "stacktrace", "install", "log"})
"""Shapes that read as a log: failures, warnings and passes worth colouring."""
DETECT_SAMPLE = 20_000
"""Characters of an output its shape is guessed from (whole lines of them)."""


def detect_shape(text: str, hint: Hint | None = None) -> str:
    """The name of the first reducer in `SHAPES` that recognises `text` ("text" when none does);
    a reducer whose detector fails counts as not recognising it."""
    sample = text[:DETECT_SAMPLE]
    if len(text) > DETECT_SAMPLE:
        sample = sample[: sample.rfind("\n") + 1] or sample
    hint = hint or Hint()
    for reducer in builtin_reducers():
        if reducer.name not in SHAPES:
            continue
        try:
            if reducer.detect(sample, hint):
                return str(reducer.name)
        except Exception:  # a detector's bug must not break showing the output
            continue
    return "text"
