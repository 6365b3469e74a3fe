"""Shape-aware shrinking of big tool outputs: `shrink(text, hint, budget, spill)`.

Reducers recognise a shape (a test run, a diff, a build log...) and keep the lines that carry
information; every removal is counted in a marker; the original can be spilled to disk.
"""

from klipui.shrink.pipeline import (
    BUILTIN_ORDER,
    Shrunk,
    Span,
    Stats,
    builtin_reducers,
    load_reducers,
    reducer_chain,
    shrink,
)
from klipui.shrink.plan import Budget, Hint, Keep, Plan, Summary
from klipui.shrink.shapes import LOG_SHAPES, detect_shape
from klipui.shrink.spill import FileSpillStore, SpillError, SpillStore

__all__ = [
    "BUILTIN_ORDER",
    "LOG_SHAPES",
    "Budget",
    "FileSpillStore",
    "Hint",
    "Keep",
    "Plan",
    "Shrunk",
    "Span",
    "SpillError",
    "SpillStore",
    "Stats",
    "Summary",
    "builtin_reducers",
    "detect_shape",
    "load_reducers",
    "reducer_chain",
    "shrink",
]
