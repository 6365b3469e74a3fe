"""Memory returns when a session screen closes (issue 12): no closed screen keeps its session,
the cyclic collector is never switched off or frozen, and freed pages go back to the system."""

from __future__ import annotations

import gc
import sys

import pytest
from app_support import make_app, settle, wait_for
from conftest import AGENT_WRITTEN

from klipui.memory import fewer_arenas, return_freed_memory
from klipui.screens.session import SessionScreen
from klipui.session.model import Session

SESSION = AGENT_WRITTEN / "claude_10turns_compact6.jsonl"


def live_sessions() -> int:
    return sum(1 for thing in gc.get_objects() if isinstance(thing, Session))


async def test_closed_session_screens_keep_no_session() -> None:
    app = make_app(SESSION)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot, app)
        before = live_sessions()
        frozen = gc.get_freeze_count()
        for _ in range(3):
            app.open_session(SESSION)
            await wait_for(pilot, lambda: getattr(app.screen, "session", None) is not None)
            await settle(pilot, app)
            assert isinstance(app.screen, SessionScreen)
            assert live_sessions() > before
            app.pop_screen()
            await settle(pilot, app)
            # Freed by reference counting alone, before any collection runs.
            assert live_sessions() == before
        assert gc.isenabled()
        assert gc.get_freeze_count() == frozen


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc only")
def test_the_allocator_is_asked_on_linux() -> None:
    import ctypes.util

    glibc = "libc" in (ctypes.util.find_library("c") or "")
    assert return_freed_memory() is glibc
    assert fewer_arenas() is glibc
