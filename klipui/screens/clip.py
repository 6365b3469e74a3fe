"""The clip preview: what a child of the selected turns keeps, drops, breaks, and where it goes."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Footer, LoadingIndicator, Static

from klipui.klip import KInterval, left_open_turns
from klipui.screens.base import KlipuiScreen
from klipui.session.display import clean_line
from klipui.session.model import Session, SessionInfo
from klipui.widgets.line_view import LineView, TextRows

if TYPE_CHECKING:
    from klipui.klip.child import ChildPlan


NO_TITLE = "(no title line: this format stores none; its agent shows the first prompt)"
"""What the preview says for a child of a format without a title (Codex, generic messages)."""


def is_demo(path: Path) -> bool:
    """True for a bundled demo session (package data, not the user's file)."""
    from klipui.demo import SESSIONS

    try:
        return path.resolve().is_relative_to(SESSIONS.resolve())
    except OSError:
        return False


def demo_children_dir() -> Path:
    """Where children of the demo sessions are written: the user's data folder."""
    from platformdirs import user_data_path

    return user_data_path("klipui") / "demo-clips"


def report_rows(plan: ChildPlan, session: Session) -> list[Text]:
    """The clip report, one row a fact: turns old → new (with how the unfinished ones ended),
    the unfinished last turn left out, dropped events with their rule, validation."""
    rows: list[Text] = [Text("Turns kept (old → new)", style="bold")]
    prompts = {t.number: t.prompt for t in session.turns}
    for old, new in plan.turns.items():
        ended = plan.unfinished.get(old)
        row = Text(f"  {old:>5} → {new:<5} ")
        if ended is not None:
            row.append("… never ended " if ended == "open" else f"⊘ {ended} ", style="yellow")
        row.append(clean_line(prompts.get(old, "")))
        rows.append(row)
    if plan.unfinished:
        rows.append(Text(""))
        rows.append(Text("Kept turns that did not complete (kept as they are)", style="bold"))
        for turn, ended in plan.unfinished.items():
            how = "never ended" if ended == "open" else f"ended: {ended}"
            rows.append(Text(f"  turn {turn} {how}", style="yellow"))
    if plan.left_open:
        rows.append(Text(""))
        rows.append(Text("Left out: the unfinished last turn", style="bold"))
        listed = ", ".join(str(t) for t in plan.left_open)
        rows.append(
            Text(
                f"  turn {listed} never ended (still running, or stopped mid-turn); u includes it",
                style="yellow",
            )
        )
    rows.append(Text(""))
    rows.append(
        Text(
            f"Events kept: {plan.kept_events:,} · native records kept: {plan.kept_records:,} · "
            f"dropped by a rule: {len(plan.dropped):,}",
            style="bold",
        )
    )
    for drop in plan.dropped:
        rows.append(Text(f"  ✗ {clean_line(str(drop))}", style="yellow"))
    if plan.violations or plan.inherited:
        rows.append(Text(""))
        rows.append(Text("Validation", style="bold"))
        for violation in plan.violations:
            rows.append(Text(f"  ✗ {clean_line(str(violation))}", style="red"))
        for violation in plan.inherited:
            rows.append(
                Text(f"  · already in the parent: {clean_line(str(violation))}", style="dim")
            )
    for title, items, style in (
        ("Why the agent would refuse it", plan.blockers, "red"),
        ("Repairs and adjustments", plan.notes, ""),
        ("Warnings", plan.warnings, "yellow"),
    ):
        if items:
            rows.append(Text(""))
            rows.append(Text(title, style="bold"))
            rows.extend(Text(f"  {clean_line(str(item))}", style=style) for item in items)
    return rows


class ClipScreen(KlipuiScreen):
    """Preview the child session of the selected turns; `w` writes it and opens it."""

    BINDING_GROUP_TITLE = "Clip preview"
    HELP = (
        "The child session the selected turns make, before anything is written: the turns kept "
        "with their new numbers (a turn that ended without completing, e.g. aborted, is kept as "
        "it is and listed with how it ended), the events a rule removes with them, validation, "
        "and the file. An unfinished last turn (never ended) is left out; `u` includes it. `w` "
        "writes the child (atomically, never over a file) and opens it; `F` writes an invalid "
        "child anyway; Escape goes back."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("w", "write", "Write child"),
        Binding("u", "toggle_unfinished", "Unfinished turn"),
        Binding("F", "write(True)", "Force write", show=False),
        Binding("escape,q", "back", "Back"),
    ]

    def __init__(self, session: Session, turns: list[int], now: datetime | None = None) -> None:
        super().__init__()
        self.session = session
        self.turns = turns
        self.selection = KInterval.from_turns(turns)
        self.now = now
        self.plan: ChildPlan | None = None
        self.error: str | None = None
        self.written: Path | None = None
        self.include_unfinished = False
        """Plan with the unfinished last turn (never ended) selectable too."""
        self.needs_unfinished = False
        """True when the plan failed because no turn ended: `u` is the way on."""

    def compose(self) -> ComposeResult:
        yield Static(Text(f"Clipping {self.selection} …"), id="clip-summary", markup=False)
        yield LoadingIndicator(id="clip-loading")
        yield LineView(id="clip-details")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#clip-details").display = False
        self.make_plan()

    @work(thread=True, exclusive=True, group="clip-plan", exit_on_error=False)
    def make_plan(self) -> None:
        """Plan the child without writing it."""
        from klipui.klip.child import ClipError, KIntervalError, plan_child

        now = self.now
        if now is None and self.klipui.fixed_now is not None:
            now = datetime.fromtimestamp(self.klipui.fixed_now, UTC)
        # never write into the installed package: demo children go to the user's data folder,
        # under their normal name (a dsh store child keeps its `<id>/` folder)
        out = f"{demo_children_dir()}/" if is_demo(self.session.path) else None
        try:
            plan = plan_child(
                self.session,
                self.selection,
                now=now,
                out=out,
                include_unfinished=self.include_unfinished,
            )
        except ClipError as error:
            if error.needs_unfinished:
                message = f"{error.reason}; u clips it as it is"
                self.app.call_from_thread(self._failed, message, True)
            else:
                self.app.call_from_thread(self._failed, str(error))
            return
        except KIntervalError as error:
            self.app.call_from_thread(self._failed, str(error))
            return
        self.app.call_from_thread(self._planned, plan)

    def _failed(self, message: str, needs_unfinished: bool = False) -> None:
        if not self.is_attached:
            return  # a worker's result for a screen that has closed
        self.error = message
        self.needs_unfinished = needs_unfinished
        self.refresh_bindings()
        self.query_one("#clip-loading").display = False
        self.query_one("#clip-summary", Static).update(
            Text(f"Cannot clip: {clean_line(message)}", "red")
        )

    def _planned(self, plan: ChildPlan) -> None:
        if not self.is_attached:
            return  # a worker's result for a screen that has closed
        self.plan = plan
        self.query_one("#clip-loading").display = False
        details = self.query_one("#clip-details", LineView)
        details.display = True
        details.set_source(TextRows(report_rows(plan, self.session), self.app.console))
        self._summary()
        self.refresh_bindings()
        details.focus()

    def _summary(self) -> None:
        plan = self.plan
        if plan is None:
            return
        title = clean_line(plan.child_title or NO_TITLE)
        if plan.ok:
            verdict = Text("✓ valid", style="bold green")
        else:
            problems = len(plan.violations) + len(plan.blockers)
            verdict = Text(f"✗ {problems} problem(s): not written unless forced (F)", "bold red")
        state = (
            Text(f"written: {clean_line(str(self.written))}", style="bold green")
            if self.written
            else Text(f"target: {clean_line(str(plan.path))}", style="")
        )
        summary = Text.assemble(
            (title, "bold"),
            f"\n{plan.format} · selection {plan.selection} · {len(plan.turns)} of "
            f"{plan.turn_count} turns{self._unfinished_note(plan)} · "
            f"{plan.kept_events:,} events · {plan.size:,} bytes\n",
            verdict,
            "\n",
            state,
        )
        self.query_one("#clip-summary", Static).update(summary)

    def _unfinished_note(self, plan: ChildPlan) -> str:
        """What the turn count says about unfinished turns, in a few words."""
        parts = []
        if plan.unfinished:
            parts.append(f"{len(plan.unfinished)} did not complete")
        if plan.left_open:
            parts.append("unfinished last turn left out (u)")
        elif self.include_unfinished:
            parts.append("unfinished last turn included")
        return f" ({'; '.join(parts)})" if parts else ""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`u` is dimmed when the session has no unfinished last turn to include."""
        if action == "toggle_unfinished":
            if self.written is not None:
                return None
            if self._can_include() or self.include_unfinished:
                return True
            return None
        return True

    def action_toggle_unfinished(self) -> None:
        """Plan again with or without the unfinished last turn."""
        if self.written is not None:
            return
        if not self.include_unfinished and not self._can_include():
            if self.plan is None and self.error is None:
                self.notify("Still planning the clip; try again in a moment.")
            else:
                self.notify("No unfinished last turn: every turn of this session ended.")
            return
        self.include_unfinished = not self.include_unfinished
        self.error = None
        self.needs_unfinished = False
        if self.include_unfinished:
            turns = sorted(set(self.turns) | set(left_open_turns(self.session)))
            self.selection = KInterval.from_turns(turns)
        else:
            self.selection = KInterval.from_turns(self.turns)
        self.plan = None
        self.query_one("#clip-loading").display = True
        self.query_one("#clip-summary", Static).update(Text(f"Clipping {self.selection} …"))
        self.make_plan()

    def _can_include(self) -> bool:
        """True when the plan (or its failure) says an unfinished last turn is left out."""
        if self.plan is not None:
            return bool(self.plan.left_open)
        return self.needs_unfinished

    def action_write(self, force: bool = False) -> None:
        plan = self.plan
        if self.written is not None:
            return
        if plan is None:
            if self.error is not None:
                self.notify(f"Nothing to write: {self.error}", severity="warning")
            else:
                self.notify("Still planning the clip; try again in a moment.")
            return
        if not plan.ok and not force:
            self.notify("This child breaks validation or its agent would refuse it; F forces.")
            return
        self.write_plan(force)

    @work(thread=True, exclusive=True, group="clip-write", exit_on_error=False)
    def write_plan(self, force: bool) -> None:
        """Write the child atomically, then list and open it."""
        from klipui.klip.child import ClipError, write_child
        from klipui.session import exact_info

        assert self.plan is not None
        try:
            if is_demo(self.session.path):
                self.plan.path.parent.mkdir(parents=True, exist_ok=True)
            path = write_child(self.plan, force=force)
        except (ClipError, OSError) as error:
            self.app.call_from_thread(
                self.notify, str(error), severity="error", timeout=10, markup=False
            )
            return
        info = exact_info(path)
        if not info.parent:
            info.parent = str(self.session.path)
        self.app.call_from_thread(self._written, path, info)

    def _written(self, path: Path, info: SessionInfo) -> None:
        if not self.is_attached:
            return  # a worker's result for a screen that has closed
        from klipui.screens.sessions import SessionsScreen

        self.written = path
        self._summary()
        for screen in self.app.screen_stack:
            if isinstance(screen, SessionsScreen):
                screen.add_session(info)
        agent = f" in {info.agent}" if info.agent else ""
        self.notify(f"Wrote {path}. R continues it{agent}.", title="klipui", markup=False)
        self.app.pop_screen()
        self.klipui.open_session(path)

    def action_back(self) -> None:
        self.app.pop_screen()
