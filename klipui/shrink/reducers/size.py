"""size: the fallback that always fits, last in the chain.

Its plan is the whole text: when only a line cap is needed, that is the result ("size:line-cap");
otherwise the pipeline picks the lines by salience (`klipui.shrink.salience`), never by a blind
cut. `direction` is the end a reducer with `overflow = "hint"` keeps when its own plan is still
over budget: a failed command (exit code other than 0) keeps both ends; otherwise shell-like
tools keep the tail (the latest output), search and read tools the head, anything else both.
"""

from __future__ import annotations

from klipui.shrink.plan import Budget, Hint, Keep, Plan
from klipui.shrink.text import count_lines

name = "size"
describe = "salient lines kept, with both ends"

TAIL_TOOLS = ("bash", "shell", "exec", "terminal", "command", "powershell")
HEAD_TOOLS = ("grep", "search", "find", "glob", "read", "cat", "view")


def direction(hint: Hint) -> str:
    """ "head", "tail" or "both"."""
    if hint.exit_code not in (None, 0):
        return "both"
    tool = (hint.tool or "").lower()
    if any(word in tool for word in TAIL_TOOLS):
        return "tail"
    if any(word in tool for word in HEAD_TOOLS):
        return "head"
    return "both"


def detect(text: str, hint: Hint) -> bool:
    return True


def reduce(text: str, hint: Hint, budget: Budget) -> Plan | None:
    """Everything; the pipeline cuts it to the budget from `direction(hint)`."""
    total = count_lines(text)
    return [Keep(0, total)] if total else None
