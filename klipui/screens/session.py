"""The session screen: the turn list with its selection, and the events of the current turn."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import Footer, Input, LoadingIndicator, Static

from klipui.demo import is_demo
from klipui.klip import ending_note, turn_endings
from klipui.memory import return_freed_memory
from klipui.screens.base import KlipuiScreen
from klipui.search.find import Match, MatchCursor, find_matches, find_terms, term_pattern
from klipui.session.display import clean_line, display_title
from klipui.session.marks import NAMES, TurnMark, turn_marks
from klipui.session.model import Session, SessionInfo
from klipui.widgets.event_view import EventView
from klipui.widgets.find_bar import FindBar
from klipui.widgets.format import human_count, human_size, one_line, plural
from klipui.widgets.interval_bar import IntervalBar
from klipui.widgets.turn_list import Marks, TurnList

if TYPE_CHECKING:
    from klipui.session.follow import Change, Follower
    from klipui.session.resume import ResumeCommand

POLL_SECONDS = 0.25
"""How often a session's file is looked at (a stat; a read when it moved)."""
LIVE_SECONDS = 120.0
"""A file written this recently when it is opened counts as live."""
SHOW_DELAY = 0.04
"""Seconds the cursor must rest on a turn before its events are drawn (fast key repeat)."""


def _open(path: Path, progress: Callable[[int, int], None] | None = None) -> Session:
    from klipui.session import open_session

    return open_session(path, progress=progress)


PREVIEW_FROM = 8_000_000
"""Files at least this big show their first turns from a head read while the rest loads."""
PREVIEW_BYTES = 2_000_000
PAINT_PAUSE = 0.15
"""Seconds the loading worker waits after handing over the head, so it reaches the screen."""


def open_head(path: Path, size: int = PREVIEW_BYTES) -> Session | None:
    """The first complete turns of a big session, lowered from its first `size` bytes.

    None when the file is small (the full read is quick; a zstd file counts its compressed
    size), or its first turn does not end within the head. The result is only for showing;
    clipping waits for the whole file.
    """
    from klipui.session.formats import detect_format
    from klipui.session.jsonl import head_bytes, parse_lines

    try:
        if path.stat().st_size < PREVIEW_FROM:
            return None
        data = head_bytes(path, size)  # decompressed when zstd
    except OSError:
        return None
    records, problems, _, _ = parse_lines(data, str(path), limit=data.count(b"\n"))
    module = detect_format([record.value for record in records[:64]])
    if module is None:
        return None
    try:
        session = module.lower(path, records, problems)
    except Exception:  # a head cut mid-structure may not lower; the full read will say why
        return None
    if len(session.turns) < 2:
        return None
    session.turns = session.turns[:-1]  # the last one may go on past the head
    return session


def agent_name(format_name: str) -> str:
    """The agent's human name for a format ("Claude Code" for "claude")."""
    from klipui.session.formats import adapter

    try:
        return adapter(format_name).agent
    except KeyError:
        return format_name


class SessionScreen(KlipuiScreen):
    """One session: turns on the left, the current turn's events on the right."""

    BINDING_GROUP_TITLE = "Session screen"
    HELP = (
        "Select turns with space, shift+arrows, `a` (all), `i` (invert), Escape (clear), or type "
        "them with `:`. `w` previews the child of the selection (`w` again writes it); `s` "
        "opens the shrink pane on the current tool result; `e` exports. `j`/`k` move as the "
        "arrows do. Tab moves between the turn list and the events. `c`, `d` and `x` jump to the "
        "next turn with a compaction, a sidechain or a failed tool call; `A` lists the sub-agent "
        "sessions; `m` shows every event, the ignorable ones included. `/` finds text in the "
        "session (tool results included): `n`/`N` go to the next/previous match across turns, "
        "wrapping around. A file that grows is followed: LIVE in the header, new turns and "
        "events appear within a second; `f` (offered while the file is live) follows the newest "
        "event like `tail -f` (scrolled away, the header counts the new events instead). `C` "
        "continues the session in its agent (Claude Code, Codex, pi, dsh) and comes back when "
        "the agent exits; `Y` copies that command. Fork at turn N = `..N` in the interval bar "
        "(`:`), `w`, `w`, then `C` on the child."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("colon", "interval", "Interval", key_display=":"),
        Binding("w", "clip", "Clip"),
        Binding("s", "shrink", "Shrink"),
        Binding("e", "export", "Export"),
        Binding("c", "next_compaction", "Next compaction", show=False),
        Binding("x", "next_error", "Next error", show=False),
        Binding("d", "next_sidechain", "Next sidechain", show=False),
        Binding("A", "subagents", "Sub-agents", show=False),
        Binding("m", "toggle_all_events", "All events", show=False),
        Binding("slash", "find", "Find", key_display="/"),
        Binding("n", "step_match(1)", "Next match", priority=True),
        Binding("N", "step_match(-1)", "Previous match", priority=True, key_display="N"),
        Binding("escape", "back_to_results", "Back to results", priority=True),
        Binding("f", "toggle_follow", "Follow"),
        Binding("C", "continue_in_agent", "Continue in agent", show=False),
        Binding("Y", "copy_resume", "Copy resume command", show=False),
        Binding("q,backspace", "back", "Back"),
    ]

    def __init__(
        self,
        path: Path,
        session: Session | None = None,
        *,
        find: str | None = None,
        at: tuple[int, str] | None = None,
    ) -> None:
        """`find`: a query to find once the session is read, going to its first match at event
        seq and kind `at` (a search hit) and making Escape go back to the results."""
        super().__init__()
        self.path = path
        self.from_search = at is not None
        self._find_first: tuple[str, tuple[int, str] | None] | None = (find, at) if find else None
        self.finder = MatchCursor([])
        self.session: Session | None = session
        self.show_all = False
        self._pending_turn: int | None = None
        self._timer = None
        self._last_move = 0.0
        self._focus_error = False
        self._error_wrapped = False
        self.partial = False
        """True while only the head of a big file is shown (its first turns)."""
        self.read_share = 0.0
        """How much of a big file the loading worker has read (shown while `partial`)."""
        self.following = False
        """`f`: keep the newest event in view while the file grows."""
        self.live = False
        """The file grew in the last `LIVE_SECONDS` (or had been written that recently when it
        was opened)."""
        self._live_until = 0.0
        """`time.monotonic()` at which the file stops counting as live unless it grows."""
        self._next_poll = 0.0
        """No poll before this `time.monotonic()` (merging a big session takes its time)."""
        self.unseen = 0
        """Events that came in out of view since the user last saw the newest one."""
        self._gone_said = False
        self.follower: Follower | None = None
        self._polling = False

    def compose(self) -> ComposeResult:
        yield Static(
            Text(f"Opening {clean_line(self.path.name)}…"), id="session-info", markup=False
        )
        yield LoadingIndicator(id="session-loading")
        with Horizontal(id="session-body"):
            yield TurnList(id="turn-list")
            yield EventView(id="event-view")
        yield IntervalBar(id="interval-bar")
        yield FindBar(id="find-bar")
        yield Footer()

    def on_mount(self) -> None:
        self.watch(self.query_one(TurnList), "cursor", self._cursor_moved, init=False)
        self.query_one("#session-body").display = False
        if self.session is not None:
            self._loaded(self.session, {})
            self.make_follower()
        else:
            self.load_session()

    def on_unmount(self) -> None:
        """Let the session go with the screen (a finished load worker may keep the screen
        object itself alive for a while, never its session), and its memory with it."""
        self.session = None
        self.follower = None
        self.app.call_later(return_freed_memory)

    def on_resize(self) -> None:
        self.set_class(self.size.width < 100, "-narrow")
        self._update_info()

    @work(thread=True, exclusive=True, group="session-open", exit_on_error=False)
    def load_session(self) -> None:
        """Read and lower the session file (its head first when it is big), then the marks."""
        preview = open_head(self.path)
        if preview is not None:
            self.app.call_from_thread(self._loaded, preview, {}, True)
            time.sleep(PAINT_PAUSE)  # let the screen paint it before the long read holds the GIL
        try:
            session = _open(self.path, self._progress_reporter() if preview is not None else None)
        except Exception as error:  # an unreadable file is reported on screen, not raised
            self.app.call_from_thread(self._failed, f"{self.path}: {error}")
            return
        follower = _follower(session)
        self.app.call_from_thread(self._loaded, session, {})
        marks = turn_marks(session)
        self.app.call_from_thread(self.query_one(TurnList).set_marks, marks)
        self.app.call_from_thread(self._start_follow, follower)

    def _progress_reporter(self) -> Callable[[int, int], None]:
        """A `progress` for the loading worker: the share read, shown at most every 0.2 s."""
        shown = [0.0]

        def report(done: int, total: int) -> None:
            now = time.monotonic()
            if total and now - shown[0] >= 0.2:
                shown[0] = now
                self.app.call_from_thread(self._read_share, done / total)

        return report

    def _read_share(self, share: float) -> None:
        if self.is_attached and self.partial:
            self.read_share = share
            self._update_info()

    def _failed(self, message: str) -> None:
        if not self.is_attached:
            return  # a worker's result for a screen that has closed
        self.klipui.resume_discovery()
        self.query_one("#session-loading").display = False
        self.query_one("#session-info", Static).update(Text(f"⚠ {clean_line(message)}"))
        self.notify(message, severity="error", timeout=10, markup=False)

    def _loaded(self, session: Session, marks: Marks, partial: bool = False) -> None:
        if not self.is_attached:
            return  # a worker's result for a screen that has closed
        was_partial = self.partial
        self.session = session
        self.partial = partial
        self.query_one("#session-loading").display = False
        self.query_one("#session-body").display = True
        turns = self.query_one(TurnList)
        if was_partial:  # the whole file replaces its head: keep the place and the selection
            cursor, selected = turns.cursor, set(turns.selected)
            turns.set_turns(session.turns, marks, turn_endings(session))
            turns.selected = {n for n in selected if n <= len(session.turns)}
            turns.cursor = min(cursor, max(0, len(session.turns) - 1))
            turns.refresh()
            self._update_info()
        else:
            turns.set_turns(session.turns, marks, turn_endings(session))
            self._update_info()
            if session.turns:
                self.show_turn(1)
            else:
                view = self.query_one(EventView)
                view.show_turn(session, 0, len(session.events), show_all=True)
            turns.focus()
        if partial:
            return
        if self._find_first is not None:
            query, at = self._find_first
            self._find_first = None
            self.query_one(FindBar).open(query)
            self.query_one(EventView).focus()
            self.find(query, at)
        self._check_live()
        self.set_timer(0.3, self.klipui.resume_discovery)
        if session.problems:
            first = session.problems[0]
            more = f" (and {len(session.problems) - 1} more)" if len(session.problems) > 1 else ""
            self.notify(f"{first}{more}", severity="warning", timeout=8, markup=False)

    def _update_info(self) -> None:
        session = self.session
        if session is None:
            return
        turns = self.query_one(TurnList)
        tokens = sum(t.tokens for t in session.turns)
        parts = [
            agent_name(session.format),
            plural(len(session.turns), "turn"),
            f"{human_count(tokens)} tokens",
            human_size(self.path.stat().st_size) if self.path.exists() else "",
        ]
        if self.partial:
            share = f" {self.read_share:.0%}" if self.read_share else ""
            parts.append(f"reading the rest of the file…{share}")
        if self.live:
            parts.insert(0, "● LIVE")
            if self.unseen:
                parts.append(f"{plural(self.unseen, 'new event')} (f)")
            elif self.following:
                parts.append("following")
        if session.subagents:
            parts.append(f"{plural(len(session.subagents), 'sub-agent')} (A)")
        if self.show_all:
            parts.append("all events (m)")
        if turns.selected:
            parts.append(f"selected {len(turns.selected)}")
        rest = " · ".join(p for p in parts if p)
        first = session.turns[0].prompt if session.turns else None
        info = SessionInfo(self.path, session.format, title=session.title, first_prompt=first)
        room = max(12, self.size.width - 2 - Text(rest).cell_len - 3)
        title = one_line(clean_line(display_title(info)), room)
        self.query_one("#session-info", Static).update(Text(f"{title} · {rest}"))

    # --- turn list and event view ------------------------------------------------------------

    def _cursor_moved(self, new: int) -> None:
        """Draw the turn under the cursor right after the frame that shows the cursor move, so
        the cursor never waits for the events of a turn (a big one takes several frames to lay
        out); under fast key repeat only where the cursor comes to rest."""
        turns = self.query_one(TurnList)
        if not 0 <= new < len(turns.turns):
            return
        self._pending_turn = turns.turns[new].number
        now = time.monotonic()
        repeating = now - self._last_move < SHOW_DELAY
        self._last_move = now
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if repeating:  # key repeat: draw only where the cursor comes to rest
            self._timer = self.set_timer(SHOW_DELAY, self._show_pending)
        else:
            self.call_after_refresh(self._show_pending)

    def _show_pending(self) -> None:
        self._timer = None
        pending, self._pending_turn = self._pending_turn, None
        if pending is not None:
            self.show_turn(pending)

    def show_turn(
        self, number: int, keep_place: bool = False, then: Callable[[], None] | None = None
    ) -> None:
        """Draw the events of turn `number` in the event view (at the same place when
        `keep_place`: the turn grew), then call `then` (a big turn is drawn once built)."""
        session = self.session
        if session is None or not 1 <= number <= len(session.turns):
            return
        if self._pending_turn == number:
            self._pending_turn = None  # drawn now: the deferred draw has nothing left to do
        turn = session.turns[number - 1]
        view = self.query_one(EventView)
        how = self.query_one(TurnList).endings.get(number)
        note = ending_note(how) if how is not None else None
        focus_error, self._focus_error = self._focus_error, False
        wrapped = self._error_wrapped

        def shown() -> None:
            if focus_error:
                view.next_error_block(from_start=True)
                self._say_error_position(wrapped)
            if then is not None:
                then()

        view.show_turn(
            session,
            turn.start,
            turn.end,
            self.show_all,
            note=note,
            keep_place=keep_place,
            then=shown,
        )
        if number == len(session.turns) and self.unseen and not keep_place:
            self.unseen = 0
            self._update_info()

    @on(TurnList.SelectionChanged)
    def _selection_changed(self, event: TurnList.SelectionChanged) -> None:
        self._update_info()

    # --- interval bar ------------------------------------------------------------------------

    def action_interval(self) -> None:
        if self.partial:
            self.notify("Still reading the session; try again in a moment.")
            return
        if self.session is None:
            return
        turns = self.query_one(TurnList)
        self.query_one(IntervalBar).open(sorted(turns.selected), len(turns.turns))

    @on(IntervalBar.Selected)
    def _interval_selected(self, event: IntervalBar.Selected) -> None:
        turns = self.query_one(TurnList)
        turns.select(event.turns)

    @on(IntervalBar.Closed)
    def _interval_closed(self, event: IntervalBar.Closed) -> None:
        turns = self.query_one(TurnList)
        if event.restore is not None:
            turns.select(event.restore)
        turns.focus()

    # --- navigation --------------------------------------------------------------------------

    def _next_turn_with(self, mark: TurnMark) -> int | None:
        """The index of the next turn that has `mark`, from the top again past the last turn;
        None when no turn has it."""
        turns = self.query_one(TurnList)
        count = len(turns.turns)
        for step in range(1, count + 1):
            index = (turns.cursor + step) % count
            if mark in turns.marks_of(turns.turns[index]):
                return index
        return None

    def _jump_to_mark(self, mark: TurnMark) -> None:
        turns = self.query_one(TurnList)
        what = NAMES[mark]
        marked = [t.number for t in turns.turns if mark in turns.marks_of(t)]
        index = self._next_turn_with(mark)
        if not marked or index is None:
            self.notify(f"No {what} in this session.")
            return
        wrapped = " (from the top again)" if index <= turns.cursor else ""
        turns.cursor = index
        number = turns.turns[index].number
        position = marked.index(number) + 1
        self.notify(f"{what.capitalize()} {position} of {len(marked)}: turn {number}{wrapped}")

    def action_next_compaction(self) -> None:
        self._jump_to_mark(TurnMark.COMPACTION)

    def action_next_sidechain(self) -> None:
        self._jump_to_mark(TurnMark.SIDECHAIN)

    def action_next_error(self) -> None:
        turns = self.query_one(TurnList)
        index = self._next_turn_with(TurnMark.ERROR)
        if index is None:
            self.notify("No failed tool call in this session.")
            return
        current = turns.current
        view = self.query_one(EventView)
        if current is not None and current.errors and view.next_error_block():
            self._say_error_position(wrapped=False)
            return  # the next failed result in this turn
        if index == turns.cursor:  # the only turn with errors: start it again
            view.next_error_block(from_start=True)
            self._say_error_position(wrapped=True)
            return
        self._focus_error = True  # applied when the turn is drawn
        self._error_wrapped = index < turns.cursor
        turns.cursor = index

    def _say_error_position(self, wrapped: bool) -> None:
        """`Failed tool call n of N: turn T`, and a word when the search went past the end."""
        turns = self.query_one(TurnList)
        current = turns.current
        view = self.query_one(EventView)
        if current is None or view.document is None:
            return
        total = sum(t.errors for t in turns.turns)
        before = sum(t.errors for t in turns.turns if t.number < current.number)
        blocks = view.document.blocks[: view.document.current + 1]
        position = min(total, before + sum(1 for b in blocks if b.kind == "error"))
        tail = " (from the top again)" if wrapped else ""
        self.notify(f"Failed tool call {position} of {total}: turn {current.number}{tail}")

    def action_toggle_all_events(self) -> None:
        self.show_all = not self.show_all
        if self.show_all:
            self.notify("All events: on (ignorable and unknown records shown too)")
        else:
            self.notify("All events: off (the conversation only)")
        self._update_info()
        turn = self.query_one(TurnList).current
        if turn is not None:
            self.show_turn(turn.number)

    def action_subagents(self) -> None:
        """Pick a sub-agent: its own file (opened), or a turn whose sub-agent work is inline
        (⑂, the cursor goes there)."""
        session = self.session
        if session is None:
            return
        turns = self.query_one(TurnList)
        inline = [t for t in turns.turns if TurnMark.SIDECHAIN in turns.marks_of(t)]
        if not session.subagents and not inline:
            self.notify("No sub-agent in this session: no sub-agent file, no inline sidechain.")
            return
        from klipui.screens.pick import PickScreen

        def chosen(choice: Path | int | None) -> None:
            if isinstance(choice, Path):
                self.klipui.open_session(choice)
            elif isinstance(choice, int):
                turns.cursor = choice

        options: list[tuple[str, Path | int]] = [(f"file {p.name}", p) for p in session.subagents]
        options += [
            (f"turn {t.number}, inline ⑂ · {t.prompt}", turns.turns.index(t)) for t in inline
        ]
        title = "Open a sub-agent session" if not inline else "Sub-agents: files and inline work"
        self.app.push_screen(PickScreen(title, options), chosen)

    def action_back(self) -> None:
        self.app.pop_screen()

    # --- clip and shrink ---------------------------------------------------------------------

    def action_clip(self) -> None:
        if self.partial:
            self.notify("Still reading the session; try again in a moment.")
            return
        session = self.session
        if session is None:
            return
        turns = self.query_one(TurnList)
        if not turns.selected:
            self.notify("Select turns first: space, shift+↓, `a`, or `:` to type them.")
            return
        from klipui.screens.clip import ClipScreen

        self.app.push_screen(ClipScreen(session, sorted(turns.selected)))

    def action_export(self) -> None:
        if self.partial:
            self.notify("Still reading the session; try again in a moment.")
            return
        if self.session is None:
            return
        from klipui.screens.export import ExportScreen

        selected = sorted(self.query_one(TurnList).selected)
        self.app.push_screen(ExportScreen(self.session, selected or None))

    def action_shrink(self) -> None:
        session = self.session
        if session is None:
            return
        view = self.query_one(EventView)
        block = view.first_result()
        if block is None or block.item is None:
            self.notify("No tool result in this turn.")
            return
        view.invalidate()
        from klipui.screens.shrink import ShrinkScreen

        self.app.push_screen(ShrinkScreen(session, block.event_index, block.item.call_id))

    # --- find ----------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "step_match":  # n/N type into inputs, and move blocks when nothing is found
            return bool(self.finder.matches) and not isinstance(self.focused, Input)
        if action == "back_to_results":
            return self.from_search and not isinstance(self.focused, Input)
        if action == "toggle_follow":  # offered (footer, palette) only while the file is live
            return self.live or self.following
        return True

    def action_find(self) -> None:
        self.query_one(FindBar).open()

    def action_back_to_results(self) -> None:
        self.app.pop_screen()

    @on(FindBar.Changed)
    def _find_changed(self, event: FindBar.Changed) -> None:
        self.find(event.query)

    @on(FindBar.Step)
    def _find_step(self, event: FindBar.Step) -> None:
        self.action_step_match(event.delta)

    @on(FindBar.Closed)
    def _find_closed(self, event: FindBar.Closed) -> None:
        if event.hidden:
            self.finder = MatchCursor([])
            self.query_one(EventView).set_find(None)
        self.query_one(EventView).focus()

    def find(self, query: str, at: tuple[int, str] | None = None) -> None:
        """Look for `query` in the session (in a worker), then go to the first match at or
        after event seq and kind `at`, else after the current turn's start."""
        if self.session is None or self.partial:
            self._find_first = (query, at)
            return
        self.query_one(FindBar).set_status("finding…")
        self._find_worker(query, at)

    @work(thread=True, exclusive=True, group="session-find", exit_on_error=False)
    def _find_worker(self, query: str, at: tuple[int, str] | None) -> None:
        """Find `query` in the session the screen shows (read here, not passed: Textual keeps a
        finished worker's arguments in the context of its callback, which would keep a closed
        session alive)."""
        session = self.session
        if session is None:
            return
        matches = find_matches(session, query)
        self.app.call_from_thread(self._found, session, query, matches, at)

    def _found(
        self, session: Session, query: str, matches: list[Match], at: tuple[int, str] | None
    ) -> None:
        if not self.is_attached or session is not self.session:
            return
        self.finder = MatchCursor(matches)
        view = self.query_one(EventView)
        view.set_find(term_pattern(find_terms(query)) if matches else None)
        bar = self.query_one(FindBar)
        if not matches:
            bar.set_status("no match" if query.strip() else "")
            return
        if at is not None:
            seq, kind = at
            index = next((i for i, e in enumerate(session.events) if e.seq == seq), 0)
            match = self.finder.first_from(index, kind)
        else:
            turn = self.query_one(TurnList).current
            start = session.turns[turn.number - 1].start if turn is not None else 0
            match = self.finder.first_from(start)
        self._go_to(match)

    def action_step_match(self, delta: int) -> None:
        match, wrapped = self.finder.step(delta)
        if match is None:
            return
        if wrapped:
            where = "top" if delta > 0 else "bottom"
            self.notify(f"Search wrapped to the {where} of the session.", timeout=2)
        self._go_to(match, wrapped)

    def _go_to(self, match: Match | None, wrapped: bool = False) -> None:
        """Show the turn of `match` and scroll its event view to it."""
        if match is None:
            return
        turns = self.query_one(TurnList)
        index = next((i for i, t in enumerate(turns.turns) if t.number == match.turn), None)
        if index is not None and turns.cursor != index:
            turns.cursor = index
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        self._pending_turn = None
        view = self.query_one(EventView)
        shown = view.document
        if (
            view.building
            or shown is None
            or not any(b.event_index == match.event for b in shown.blocks)
        ):
            self.show_turn(
                match.turn, then=lambda: view.show_match(match.event, match.kind, match.occurrence)
            )
        else:
            view.show_match(match.event, match.kind, match.occurrence)
        status = self.finder.position() + (" · wrapped" if wrapped else "")
        self.query_one(FindBar).set_status(status)

    # --- live follow -------------------------------------------------------------------------

    def _check_live(self) -> None:
        if is_demo(self.path):
            return
        try:
            written = self.path.stat().st_mtime
        except OSError:
            return
        age = self.klipui.now() - written
        if 0 <= age <= LIVE_SECONDS:
            self._set_live(time.monotonic() + LIVE_SECONDS - age)

    def _set_live(self, until: float) -> None:
        """Count the file as live until `until` (monotonic seconds); the header and the footer
        follow when that changes."""
        self._live_until = until
        live = time.monotonic() < until
        if live != self.live:
            self.live = live
            self.query_one("#session-info").set_class(live, "-live")
            self._update_info()
            self.refresh_bindings()

    def _start_follow(self, follower: Follower | None) -> None:
        """Look at the file every `POLL_SECONDS` from now on (a stat; a read when it moved)."""
        if follower is None or not self.is_attached or self.follower is not None:
            return
        self.follower = follower
        self.set_interval(POLL_SECONDS, self._tick)

    def _tick(self) -> None:
        if self.live and time.monotonic() >= self._live_until:
            self._set_live(self._live_until)  # quiet for LIVE_SECONDS: no longer live
        follower = self.follower
        now = time.monotonic()
        if follower is None or self._polling or self.partial or now < self._next_poll:
            return
        if not follower.due():
            return
        self._polling = True
        self.poll_file(follower)

    @work(thread=True, exclusive=True, group="session-make-follower", exit_on_error=False)
    def make_follower(self) -> None:
        """Start following a session handed to this screen (the file is read to find its end)."""
        if self.session is not None:
            self.app.call_from_thread(self._start_follow, _follower(self.session))

    @work(thread=True, exclusive=True, group="session-follow", exit_on_error=False)
    def poll_file(self, follower: Follower) -> None:
        """Read what changed in the file and hand it to the screen with its turn marks."""
        started = time.monotonic()
        try:
            change = follower.poll()
            session = change.session
            fresh = change.kind in ("appended", "truncated", "rewritten")
            looks = (turn_marks(session), turn_endings(session)) if fresh else ({}, {})
            if change.kind not in ("same", "waiting"):
                self.app.call_from_thread(self._followed, change, looks)
        finally:
            spent = time.monotonic() - started
            self.app.call_from_thread(self._polled, started + 4 * spent)

    def _polled(self, next_poll: float) -> None:
        """A poll ended: the next one not before `next_poll`, so that merging a big session
        never takes more than a fifth of the time."""
        self._polling = False
        self._next_poll = next_poll

    def _followed(self, change: Change, looks: tuple[Marks, dict[int, str]]) -> None:
        """Draw a change of the file: more turns and events, a re-read file, a problem."""
        if not self.is_attached or self.partial:
            return
        if change.kind == "gone":
            if not self._gone_said:
                self._gone_said = True
                self.notify(change.message, severity="warning", timeout=8)
            return
        self._gone_said = False
        if change.kind == "partial":
            self.notify(change.message, severity="warning", timeout=8)
            return
        turns = self.query_one(TurnList)
        view = self.query_one(EventView)
        at_end = turns.cursor >= len(turns.turns) - 1 and view.at_end
        old = self.session
        session = self.session = change.session
        self._set_live(time.monotonic() + LIVE_SECONDS)
        turns.update_turns(session.turns, *looks)
        if change.kind != "appended":
            self.notify(change.message, severity="warning", timeout=8)
        if change.problems:
            first = change.problems[0]
            self.notify(str(first), severity="warning", timeout=8)
        if not session.turns:
            view.show_turn(session, 0, len(session.events), show_all=True, keep_place=True)
        elif self.following and (at_end or change.kind != "appended"):
            self.unseen = 0
            last = len(session.turns)
            if turns.cursor != last - 1:
                turns.cursor = last - 1
            self.show_turn(last, then=view.show_end)
        else:
            self.unseen += max(0, change.events) if change.kind == "appended" else 0
            current = turns.current
            reread = change.kind != "appended"  # every turn may differ: draw it again
            if current is not None and (reread or _turn_changed(old, session, current.number)):
                self.show_turn(current.number, keep_place=True)
        self._update_info()

    def action_toggle_follow(self) -> None:
        """Follow the newest event (jump there now), or stop following."""
        self.following = not self.following
        if self.following:
            self.unseen = 0
            turns = self.query_one(TurnList)
            if turns.turns:
                turns.cursor = len(turns.turns) - 1
                self.show_turn(len(turns.turns), then=self.query_one(EventView).show_end)
            self.notify("Following: new events scroll into view (f stops).")
        else:
            self.notify("Not following: new events are counted in the header.")
        self._update_info()

    # --- continue in the agent ---------------------------------------------------------------

    def _resume_command(self) -> ResumeCommand | None:
        from klipui.session.resume import ResumeError, resume_command

        if self.session is None or self.partial:
            self.notify("Still reading the session; try again in a moment.")
            return None
        try:
            return resume_command(self.session)
        except ResumeError as error:
            self.notify(str(error), severity="error", timeout=10)
            return None

    def action_continue_in_agent(self) -> None:
        """Run the agent's own resume of this session; klipui comes back when it exits."""
        command = self._resume_command()
        if command is None:
            return
        missing = command.missing()
        if missing is not None:
            self.notify(
                f"{command.agent}'s CLI `{missing}` is not on PATH. The command: "
                f"{command.display()}",
                severity="error",
                timeout=15,
            )
            return
        import subprocess

        from textual.app import SuspendNotSupported

        try:
            with self.app.suspend():
                finished = subprocess.run(list(command.argv), cwd=command.cwd, check=False)
        except OSError as error:
            self.notify(f"{command.program}: {error.strerror or error}", severity="error")
            return
        except SuspendNotSupported:  # no terminal to hand over (a test driver, a web app)
            self.notify(f"klipui cannot step aside here. Run: {command.display()}", timeout=15)
            return
        how = "exited" if finished.returncode == 0 else f"exited with {finished.returncode}"
        note = f" ({command.note})" if command.note else ""
        self.notify(f"{command.agent} {how}; back in klipui.{note}", timeout=10 if note else None)

    def action_copy_resume(self) -> None:
        """Copy the exact resume command to the clipboard, and show it."""
        command = self._resume_command()
        if command is None:
            return
        self.app.copy_to_clipboard(command.display())
        note = f" ({command.note})" if command.note else ""
        self.notify(f"Copied: {command.display()}{note}", timeout=10)


def _follower(session: Session) -> Follower | None:
    """A follower of the session's file, None when the file cannot be followed (gone, odd)."""
    from klipui.session.follow import Follower

    try:
        return Follower(session)
    except (OSError, ValueError):
        return None


def _turn_changed(old: Session | None, new: Session, number: int) -> bool:
    """True when turn `number` spans other events in `new` than in `old`."""
    if old is None or number > len(old.turns) or number > len(new.turns):
        return True
    before, after = old.turns[number - 1], new.turns[number - 1]
    return (before.start, before.end, before.completed) != (after.start, after.end, after.completed)
