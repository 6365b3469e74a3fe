"""Sessions on disk: read every agent's format, lower it to events, raise it back.

`open_session(path)` reads a whole session; `read_info(path)` gives quick figures from a bounded
head read; `exact_info(path)` the exact ones; `discover(...)` finds session files.
"""

from klipui.session.load import (
    SessionError,
    SessionUnreadable,
    exact_info,
    open_session,
    read_info,
    session_info,
)
from klipui.session.model import Event, Problem, Record, Session, SessionInfo, Turn

__all__ = [
    "Event",
    "Problem",
    "Record",
    "Session",
    "SessionError",
    "SessionInfo",
    "SessionUnreadable",
    "Turn",
    "exact_info",
    "open_session",
    "read_info",
    "session_info",
]
