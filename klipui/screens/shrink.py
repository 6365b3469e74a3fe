"""The shrink pane: what a reducer keeps of a tool result, next to the (spilled) original."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.widgets import Footer, Input, Static

from klipui.conversation import Call, result_call, result_text
from klipui.screens.base import KlipuiScreen
from klipui.session.display import clean_line
from klipui.session.model import Session
from klipui.session.spilled import DryRunSpill, Original, find_reference, load_original
from klipui.shrink import BUILTIN_ORDER, Budget, Hint, Shrunk, shrink
from klipui.shrink.hints import hint_for
from klipui.widgets.format import human_size
from klipui.widgets.line_view import LineView
from klipui.widgets.plain_input import PlainInput
from klipui.widgets.shrink_pane import (
    LineMap,
    OriginalSource,
    ShrunkSource,
    marker_arithmetic,
)

BUDGET_STEPS = (500, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 50_000, 100_000, 200_000)
"""Character budgets `+`/`-` step through; the line budget follows at one line per 20 chars."""
LINE_CAP = 200
PAN_STEP = 20
"""Characters ← / → pan both panes sideways."""
CLI_WORDING = (("max_line_chars (--max-line-chars)", "the line cap (l)"),)
"""Command-line advice in engine notes, and what this pane says instead (its key)."""
STYLE_NAMES = (
    "kept",
    "capped",
    "summary",
    "marker",
    "footer",
    "dropped",
    "gutter",
    "mark-kept",
    "mark-capped",
    "mark-summary",
    "mark-dropped",
)


@dataclass(slots=True)
class ShrinkState:
    """What the pane shows: the texts, the settings and the latest result."""

    preview: str
    original: str
    origin_note: str
    budget_index: int
    reducer: str | None = None
    line_cap: bool = False
    shrunk: Shrunk | None = None
    error: str | None = None

    @property
    def budget(self) -> Budget:
        chars = BUDGET_STEPS[self.budget_index]
        return Budget(
            max_chars=chars,
            max_lines=max(10, chars // 20),
            max_line_chars=LINE_CAP if self.line_cap else 0,
        )


def hint_of(call: Call | None) -> Hint:
    """What the tool call says about its result: tool name, command, path."""
    if call is None:
        return Hint()
    return hint_for(call.name or None, call.arguments)


def _initial_budget(size: int) -> int:
    """The largest step below a quarter of the text, so the first view shows a real cut."""
    index = 0
    for i, step in enumerate(BUDGET_STEPS):
        if step * 4 <= size:
            index = i
    return index


class ShrinkScreen(KlipuiScreen):
    """Left: the shrunk result and its figures. Right: the original, dropped lines dimmed."""

    BINDING_GROUP_TITLE = "Shrink pane"
    HELP = (
        "Left, the tool result as the shrink engine would hand it to the model; the gutter gives "
        "the input line each output line came from (… a marker, Σ a summary). Right, the "
        "original — the spilled file when the result holds only a preview — with kept lines "
        "marked ▌ and dropped lines dimmed. `+` / `-` raise or lower the budget (More / Less), "
        "`r` and `R` choose the reducer, `l` caps long lines. The panes scroll together along "
        "the mapping; ← / → pan both sideways (a line past the edge ends in …). `/` types what "
        "to look for: the semantic reducer keeps the blocks most relevant to it."
    )
    COMPONENT_CLASSES: ClassVar[set[str]] = {f"shrink--{name}" for name in STYLE_NAMES}
    DEFAULT_CSS = """
    ShrinkScreen > .shrink--kept { color: $text; }
    ShrinkScreen > .shrink--capped { color: $warning; }
    ShrinkScreen > .shrink--summary { color: $secondary; text-style: italic; }
    ShrinkScreen > .shrink--marker { color: $warning; text-style: bold; }
    ShrinkScreen > .shrink--footer { color: $accent; }
    ShrinkScreen > .shrink--dropped { color: $text-disabled; }
    ShrinkScreen > .shrink--gutter { color: $text-muted; }
    ShrinkScreen > .shrink--mark-kept { color: $success; }
    ShrinkScreen > .shrink--mark-capped { color: $warning; }
    ShrinkScreen > .shrink--mark-summary { color: $secondary; }
    ShrinkScreen > .shrink--mark-dropped { color: $text-disabled; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("plus,equals_sign", "budget(1)", "More", key_display="+"),
        Binding("minus", "budget(-1)", "Less", key_display="-"),
        Binding("r", "next_reducer", "Reducer"),
        Binding("slash", "query", "Query", key_display="/"),
        Binding("left", "pan(-1)", "Pan left", show=False, priority=True),
        Binding("right", "pan(1)", "Pan right", show=False, priority=True),
        Binding("R", "pick_reducer", "Pick reducer", show=False),
        Binding("l", "line_cap", "Line cap"),
        Binding("number_sign", "arithmetic", "Markers", key_display="#"),
        Binding("escape,q", "back", "Back"),
    ]

    def __init__(self, session: Session, event_index: int, call_id: str | None) -> None:
        """The result of `call_id` in the tool/result event at `event_index` of `session`."""
        super().__init__()
        self.session = session
        self.event_index = event_index
        self.call_id = call_id
        self.call = result_call(session, event_index, call_id)
        self.hint = hint_of(self.call)
        preview = result_text(session, event_index, call_id)
        self.state = ShrinkState(preview, preview, "", _initial_budget(len(preview)))
        self._syncing = False
        self.original_missing = False
        self.generation = 0
        self.line_map: LineMap | None = None
        self.column = 0
        """Characters of each line panned away (both panes)."""
        self._budget_moved = False

    def compose(self) -> ComposeResult:
        yield Static("", id="shrink-head", markup=False)
        yield PlainInput(placeholder="query for the semantic reducer (Enter)", id="shrink-query")
        with Horizontal(id="shrink-panes"):
            yield LineView(id="shrink-left")
            yield LineView(id="shrink-right")
        yield Static("", id="shrink-arithmetic", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        left = self.query_one("#shrink-left", LineView)
        right = self.query_one("#shrink-right", LineView)
        self.watch(left, "scroll_y", self._left_scrolled, init=False)
        self.watch(right, "scroll_y", self._right_scrolled, init=False)
        self.query_one("#shrink-query").display = False
        left.focus()
        self._render_head("finding the original…")
        self.load_original()

    def styles_map(self) -> dict[str, Style]:
        return {name: self.get_component_rich_style(f"shrink--{name}") for name in STYLE_NAMES}

    # --- workers -----------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="shrink-original", exit_on_error=False)
    def load_original(self) -> None:
        """Follow a spill reference in the preview, if any, then shrink."""
        preview = self.state.preview
        ref = find_reference(preview, self.session.path, self.call_id or None)
        if ref is None:
            note = (
                f"original: the full result as stored in the session ({human_size(len(preview))})"
            )
            self.app.call_from_thread(self._set_original, preview, note)
            return
        loaded: Original = load_original(ref, session_path=self.session.path)
        if loaded.text is None:
            note = f"original: {loaded.describe()}"
            self.app.call_from_thread(self._set_original, preview, note, True)
            return
        note = f"original: spilled {loaded.describe()} ({human_size(len(loaded.text))})"
        self.app.call_from_thread(self._set_original, loaded.text, note)

    def _set_original(self, text: str, note: str, missing: bool = False) -> None:
        if not self.is_attached:
            return  # a worker's result for a screen that has closed
        self.state.original = text
        self.state.origin_note = note
        self.original_missing = missing
        self.state.budget_index = _initial_budget(len(text))
        self.reshrink()

    @work(thread=True, exclusive=True, group="shrink-run", exit_on_error=False)
    def run_shrink(self, generation: int) -> None:
        """Shrink the original with the current settings (a newer run supersedes this one)."""
        state = self.state
        only = [state.reducer] if state.reducer else None
        try:
            result = shrink(state.original, self.hint, state.budget, DryRunSpill(), only=only)
        except Exception as error:  # a reducer bug is shown, never a crash of the app
            self.app.call_from_thread(self._shrink_failed, f"{type(error).__name__}: {error}")
            return
        self.app.call_from_thread(self._shown, result, generation)

    def reshrink(self) -> None:
        """Shrink again with the current settings; results of older runs are ignored."""
        self.generation += 1
        self.run_shrink(self.generation)

    def _shrink_failed(self, message: str) -> None:
        if not self.is_attached:
            return  # a worker's result for a screen that has closed
        self.state.error = message
        self._render_head()

    def _shown(self, result: Shrunk, generation: int) -> None:
        if not self.is_attached:
            return  # a worker's result for a screen that has closed
        if generation != self.generation:
            return  # the settings changed while this run was working
        state = self.state
        previous = state.shrunk
        state.shrunk = result
        state.error = None
        if self._budget_moved and previous is not None and previous.content == result.content:
            self.notify(self._why_unchanged(result))
        self._budget_moved = False
        styles = self.styles_map()
        left = self.query_one("#shrink-left", LineView)
        right = self.query_one("#shrink-right", LineView)
        self.line_map = LineMap(result.kept, result.stats.input_lines)
        shrunk_rows = ShrunkSource(result, self.app.console, styles)
        original_rows = OriginalSource(state.original, self.line_map, self.app.console, styles)
        shrunk_rows.column = original_rows.column = self.column
        left.set_source(shrunk_rows, keep_scroll=True)
        right.set_source(original_rows, keep_scroll=True)
        self._render_head()
        if self.query_one("#shrink-arithmetic").has_class("-open"):
            self._render_arithmetic()

    def _render_head(self, status: str | None = None) -> None:
        state = self.state
        budget = state.budget
        reducer = state.reducer or "auto"
        tool = clean_line(self.hint.tool or "tool")
        head = Text.assemble(
            (tool, "bold"),
            " result · reducer ",
            (reducer, "bold"),
            f" · budget {budget.max_chars:,} chars / {budget.max_lines:,} lines · "
            + (f"line cap {LINE_CAP:,} chars" if state.line_cap else "line cap off"),
        )
        if self.hint.query:
            head.append(f" · query {clean_line(self.hint.query)!r}")
        if self.column:
            head.append(f" · from column {self.column + 1:,}")
        result = state.shrunk
        if status:
            head.append(f"\n{status}")
        elif state.error:
            head.append(f"\nshrink failed: {clean_line(state.error)}", "red")
        elif result is not None:
            stats = result.stats
            head.append("\nstrategy ")
            head.append(result.strategy, "bold")
            head.append(
                f" · {stats.input_chars:,} chars / {stats.input_lines:,} lines → "
                f"{stats.output_chars:,} / {stats.output_lines:,}"
                f" · locator {clean_line(result.locator or '—')}"
                + (
                    " (what the hook would save; this preview saves nothing)"
                    if result.locator
                    else ""
                )
            )
            if result.note:
                head.append(f"\nnote: {clean_line(app_wording(result.note))}")
        if state.origin_note:
            head.append(
                f"\n{clean_line(state.origin_note)}", "red" if self.original_missing else "dim"
            )
        self.query_one("#shrink-head", Static).update(head)

    def _render_arithmetic(self) -> None:
        box = self.query_one("#shrink-arithmetic", Static)
        if self.state.shrunk is None:
            box.update("")
            return
        rows = marker_arithmetic(self.state.original, self.state.shrunk)
        total, markers = rows[-1], rows[:-1]
        shown = [total, *markers[:6]]
        if len(markers) > 6:
            shown.append(f"… {len(markers) - 6} more markers")
        text = Text("\n".join(shown), no_wrap=True, overflow="ellipsis")
        box.update(text)

    # --- scrolling together ------------------------------------------------------------------

    def _left_scrolled(self, value: float) -> None:
        if self._syncing or self.line_map is None:
            return
        target = self.line_map.input_for(int(value))
        if target is not None:
            self._sync(self.query_one("#shrink-right", LineView), target)

    def _right_scrolled(self, value: float) -> None:
        if self._syncing or self.line_map is None:
            return
        self._sync(self.query_one("#shrink-left", LineView), self.line_map.output_for(int(value)))

    def _sync(self, view: LineView, row: int) -> None:
        self._syncing = True
        try:
            view.scroll_to(y=row, animate=False, immediate=True)
        finally:
            self._syncing = False

    # --- actions -----------------------------------------------------------------------------

    def action_budget(self, delta: int) -> None:
        index = max(0, min(len(BUDGET_STEPS) - 1, self.state.budget_index + delta))
        if index == self.state.budget_index:
            self.app.bell()
            return
        self.state.budget_index = index
        self._budget_moved = True
        self._render_head("shrinking…")
        self.reshrink()

    def action_next_reducer(self) -> None:
        names = [None, *BUILTIN_ORDER]
        current = names.index(self.state.reducer) if self.state.reducer in names else 0
        self.state.reducer = names[(current + 1) % len(names)]
        self._render_head("shrinking…")
        self.reshrink()

    def action_pick_reducer(self) -> None:
        from klipui.screens.pick import PickScreen

        options = [("auto (first that detects the shape)", "auto")]
        options += [(name, name) for name in BUILTIN_ORDER]
        current = next((i for i, o in enumerate(options) if o[1] == self.state.reducer), 0)

        def chosen(name: str | None) -> None:
            if name is None:
                return
            self.state.reducer = None if name == "auto" else name
            self._render_head("shrinking…")
            self.reshrink()

        self.app.push_screen(PickScreen("Reducer", options, current), chosen)

    def action_line_cap(self) -> None:
        self.state.line_cap = not self.state.line_cap
        if self.state.line_cap:
            self.notify(f"Line cap on: lines longer than {LINE_CAP:,} characters are cut.")
        else:
            self.notify("Line cap off: lines are kept whole or left out whole.")
        self._render_head("shrinking…")
        self.reshrink()

    def _why_unchanged(self, result: Shrunk) -> str:
        """Why a new budget gave the same output, in one line."""
        budget = self.state.budget
        stats = result.stats
        if not result.reduced:
            return f"Same output: the whole result ({stats.input_chars:,} chars) fits the budget."
        return (
            f"Same output at {budget.max_chars:,} chars: the {result.strategy} reducer keeps "
            "what it keeps whatever the budget (r picks another reducer)."
        )

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """← / → move the text cursor while the query is typed, and pan otherwise."""
        return not (action == "pan" and isinstance(self.focused, Input))

    def action_pan(self, direction: int) -> None:
        """Pan both panes sideways by `PAN_STEP` characters."""
        column = max(0, self.column + direction * PAN_STEP)
        if column == self.column:
            self.app.bell()
            return
        self.column = column
        for view in self.query(LineView):
            source = view.source
            if isinstance(source, ShrunkSource | OriginalSource):
                source.column = column
                view.invalidate()
        self._render_head()

    def action_query(self) -> None:
        box = self.query_one("#shrink-query", Input)
        box.value = self.hint.query or ""
        box.display = True
        box.focus()

    @on(Input.Submitted, "#shrink-query")
    def _query_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        query = event.value.strip() or None
        event.input.display = False
        self.query_one("#shrink-left").focus()
        self.hint = replace(self.hint, query=query)
        if query and self.state.reducer is None:
            self.state.reducer = "semantic"
        self._render_head("shrinking…")
        self.reshrink()

    def action_arithmetic(self) -> None:
        box = self.query_one("#shrink-arithmetic")
        box.toggle_class("-open")
        if box.has_class("-open"):
            self._render_arithmetic()

    def action_back(self) -> None:
        box = self.query_one("#shrink-query", Input)
        if box.display:
            box.display = False
            self.query_one("#shrink-left").focus()
            return
        self.app.pop_screen()


def app_wording(note: str) -> str:
    """An engine note as this pane says it: a key where the note names a command-line flag."""
    for flag, key in CLI_WORDING:
        note = note.replace(flag, key)
    return note
