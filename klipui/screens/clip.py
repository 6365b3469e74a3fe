"""The clip preview: what a child of the selected turns keeps, drops, breaks, and where it goes."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.screen import Screen
from textual.widgets import Footer, LoadingIndicator, Static

from klipui.klip import KInterval
from klipui.session.model import Session, SessionInfo
from klipui.widgets.line_view import LineView, TextRows

if TYPE_CHECKING:
    from klipui.app import KlipuiApp
    from klipui.klip.child import ChildPlan


def written_title(plan: ChildPlan) -> str | None:
    """The title line the child will carry, read from its own lines (what is written)."""
    import orjson

    for line in plan.lines[:200]:
        try:
            value = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(value, dict):
            continue
        if value.get("type") == "summary" and isinstance(value.get("summary"), str):
            return str(value["summary"])
        data = value.get("data")
        if value.get("type") == "session/title" and isinstance(data, dict):
            return str(data.get("title"))
    return f"KLIP {plan.title}" if plan.title else None


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
    """The clip report, one row a fact: turns old → new, dropped events with their rule."""
    rows: list[Text] = [Text("Turns kept (old → new)", style="bold")]
    prompts = {t.number: t.prompt for t in session.turns}
    for old, new in plan.turns.items():
        rows.append(Text(f"  {old:>5} → {new:<5} {prompts.get(old, '')}"))
    rows.append(Text(""))
    rows.append(
        Text(
            f"Events kept: {plan.kept_events:,} · native records kept: {plan.kept_records:,} · "
            f"dropped by a rule: {len(plan.dropped):,}",
            style="bold",
        )
    )
    for drop in plan.dropped:
        rows.append(Text(f"  ✗ {drop}", style="yellow"))
    if plan.violations or plan.inherited:
        rows.append(Text(""))
        rows.append(Text("Validation", style="bold"))
        for violation in plan.violations:
            rows.append(Text(f"  ✗ {violation}", style="red"))
        for violation in plan.inherited:
            rows.append(Text(f"  · already in the parent: {violation}", style="dim"))
    for title, items, style in (
        ("Why the agent would refuse it", plan.blockers, "red"),
        ("Repairs and adjustments", plan.notes, ""),
        ("Warnings", plan.warnings, "yellow"),
    ):
        if items:
            rows.append(Text(""))
            rows.append(Text(title, style="bold"))
            rows.extend(Text(f"  {item}", style=style) for item in items)
    return rows


class ClipScreen(Screen[None]):
    """Preview the child session of the selected turns; `w` writes it and opens it."""

    BINDING_GROUP_TITLE = "Clip preview"
    HELP = (
        "The child session the selected turns make, before anything is written: the turns kept "
        "with their new numbers, the events a rule removes with them, validation, and the file. "
        "`w` writes it (atomically, never over a file) and opens it; `F` writes an invalid child "
        "anyway; Escape goes back."
    )
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("w", "write", "Write child"),
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

    @property
    def klipui(self) -> KlipuiApp:
        return self.app  # type: ignore[return-value]

    def on_screen_resume(self) -> None:
        self.app.fit_footer()  # type: ignore[attr-defined]

    def compose(self) -> ComposeResult:
        yield Static(f"Clipping {self.selection} …", id="clip-summary")
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
        try:
            plan = plan_child(self.session, self.selection, now=now)
            if is_demo(self.session.path):
                # never write into the installed package: demo children go to the user's data
                out = demo_children_dir() / plan.path.name
                plan = plan_child(self.session, self.selection, now=now, out=out)
        except (ClipError, KIntervalError) as error:
            self.app.call_from_thread(self._failed, str(error))
            return
        self.app.call_from_thread(self._planned, plan)

    def _failed(self, message: str) -> None:
        if not self.is_attached:
            return  # a worker's result for a screen that has closed
        self.error = message
        self.query_one("#clip-loading").display = False
        self.query_one("#clip-summary", Static).update(Text(f"Cannot clip: {message}", "red"))

    def _planned(self, plan: ChildPlan) -> None:
        if not self.is_attached:
            return  # a worker's result for a screen that has closed
        self.plan = plan
        self.query_one("#clip-loading").display = False
        details = self.query_one("#clip-details", LineView)
        details.display = True
        details.set_source(TextRows(report_rows(plan, self.session), self.app.console))
        self._summary()
        details.focus()

    def _summary(self) -> None:
        plan = self.plan
        if plan is None:
            return
        title = written_title(plan) or "(the child carries no title line)"
        if plan.ok:
            verdict = Text("✓ valid", style="bold green")
        else:
            problems = len(plan.violations) + len(plan.blockers)
            verdict = Text(f"✗ {problems} problem(s): not written unless forced (F)", "bold red")
        state = (
            Text(f"written: {self.written}", style="bold green")
            if self.written
            else Text(f"target: {plan.path}", style="")
        )
        summary = Text.assemble(
            (title, "bold"),
            f"\n{plan.format} · selection {plan.selection} · {len(plan.turns)} of "
            f"{plan.turn_count} completed turns · {plan.kept_events:,} events · "
            f"{plan.size:,} bytes\n",
            verdict,
            "\n",
            state,
        )
        self.query_one("#clip-summary", Static).update(summary)

    def action_write(self, force: bool = False) -> None:
        plan = self.plan
        if plan is None or self.written is not None:
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
            self.app.call_from_thread(self.notify, str(error), severity="error", timeout=10)
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
        self.notify(f"Wrote {path}", title="klipui")
        self.app.pop_screen()
        self.klipui.open_session(path)

    def action_back(self) -> None:
        self.app.pop_screen()
