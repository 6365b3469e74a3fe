"""The event view: the blocks of one turn, drawn row by row, with a block cursor."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from rich.console import Console
from rich.style import Style
from rich.text import Text
from textual import work
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.message import Message
from textual.worker import get_current_worker

from klipui.labels import plural
from klipui.session.display import clean_line
from klipui.session.model import Session
from klipui.widgets.event_doc import Block, EventDocument, RichBody, build_blocks
from klipui.widgets.line_view import LineView

COPY_NAMES = {
    "prompt": "the prompt",
    "assistant": "the answer",
    "thinking": "the thinking",
    "call": "the tool call's arguments",
    "result": "the tool result",
    "error": "the failed tool result",
    "compaction": "the compaction summary",
    "branch": "the rewound message",
}
DOCUMENTS_KEPT = 32
"""Turns whose laid-out events are kept for going back to them."""
BUILD_HERE = 40
"""Turns of at most this many events are laid out at once; bigger ones in a worker thread
(a 500-event turn takes about a tenth of a second), the view saying "building…" meanwhile."""
DocumentKey = tuple[int, int, bool, tuple[str, str] | None]


@dataclass(frozen=True, slots=True)
class BuildRequest:
    """A turn's document to build in a worker, and what building it needs."""

    session: Session
    key: DocumentKey
    styles: dict[str, Style]
    console: Console
    width: int
    keep_place: bool


STYLE_NAMES = (
    "prompt",
    "assistant",
    "thinking",
    "call",
    "result",
    "error",
    "image",
    "compaction",
    "sidechain",
    "meta",
    "cursor",
    "gutter",
    "gutter-prompt",
    "gutter-assistant",
    "gutter-call",
    "gutter-result",
    "gutter-error",
    "gutter-thinking",
    "gutter-compaction",
    "match",
    "match-current",
)
BLOCK_KINDS = {
    "prompt": ("prompt",),
    "answer": ("assistant", "compaction"),
    "thinking": ("thinking",),
    "call": ("call",),
    "result": ("result", "error"),
}
"""The blocks that show each kind of searchable unit (see `klipui.search`)."""


class EventView(LineView):
    """Prompt, assistant text, thinking, tool calls and results of the turn under the cursor."""

    BINDING_GROUP_TITLE = "Events"
    HELP = (
        "The events of the current turn. `}`/`{` move between blocks, `]`/`[` between tool "
        "results, Enter folds or unfolds a block (thinking starts folded), `t` unfolds every "
        "thinking block, `y` copies the block under the cursor (its text, without escape "
        "sequences). Headers show when each record was written, where the format records it. "
        "Long outputs are drawn only where you look, so they scroll at any size."
    )
    COMPONENT_CLASSES: ClassVar[set[str]] = {f"event-view--{name}" for name in STYLE_NAMES}
    DEFAULT_CSS = """
    EventView > .event-view--prompt { color: $accent; text-style: bold; }
    EventView > .event-view--assistant { color: $success; text-style: bold; }
    EventView > .event-view--thinking { color: $text-muted; text-style: italic; }
    EventView > .event-view--call { color: $secondary; }
    EventView > .event-view--result { color: $primary; }
    EventView > .event-view--error { color: $error; }
    EventView > .event-view--image { color: $warning; }
    EventView > .event-view--compaction { color: $warning; text-style: bold; }
    EventView > .event-view--sidechain { color: $secondary; text-style: italic; }
    EventView > .event-view--meta { color: $text-muted; }
    EventView > .event-view--cursor { color: $accent; text-style: bold; }
    EventView > .event-view--gutter { color: $panel-lighten-2; }
    EventView > .event-view--gutter-prompt { color: $accent 60%; }
    EventView > .event-view--gutter-assistant { color: $success 60%; }
    EventView > .event-view--gutter-call { color: $secondary 60%; }
    EventView > .event-view--gutter-result { color: $primary 60%; }
    EventView > .event-view--gutter-error { color: $error; }
    EventView > .event-view--gutter-thinking { color: $panel-lighten-2; }
    EventView > .event-view--gutter-compaction { color: $warning; }
    EventView > .event-view--match { background: $warning 40%; }
    EventView > .event-view--match-current { background: $warning; color: $background; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right_curly_bracket", "block(1)", "Next block", show=False, key_display="}"),
        Binding("left_curly_bracket", "block(-1)", "Prev block", show=False, key_display="{"),
        Binding("right_square_bracket", "result(1)", "Next result", show=False, key_display="]"),
        Binding("left_square_bracket", "result(-1)", "Prev result", show=False, key_display="["),
        Binding("enter", "fold", "Fold"),
        Binding("t", "thinking", "Thinking", show=False),
        Binding("y", "copy", "Copy block", show=False),
        Binding("up", "scroll_up", "Scroll up", show=False),
        Binding("down", "scroll_down", "Scroll down", show=False),
        Binding("k", "scroll_up", "Scroll up", show=False),
        Binding("j", "scroll_down", "Scroll down", show=False),
        Binding("pageup", "page_up", "Page up", show=False),
        Binding("pagedown", "page_down", "Page down", show=False),
        Binding("home", "scroll_home", "Top", show=False),
        Binding("end", "scroll_end", "Bottom", show=False),
    ]

    class BlockChanged(Message):
        """The block cursor moved."""

        def __init__(self, block: Block | None) -> None:
            super().__init__()
            self.block = block

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.document: EventDocument | None = None
        self._styles: dict[str, Style] | None = None
        self._documents: LRUCache[DocumentKey, EventDocument] = LRUCache(DOCUMENTS_KEPT)
        self._documents_of: Session | None = None
        self._wanted: DocumentKey | None = None
        """The turn asked for last; a build of any other is stale when it lands."""
        self._then: Callable[[], None] | None = None
        self.building = False
        """True while the turn asked for is built in a worker (the view says so meanwhile)."""
        self._request: BuildRequest | None = None
        """What the build worker is to build next."""
        self.find_pattern: re.Pattern[str] | None = None
        """Find matches to highlight in every turn shown."""

    def on_unmount(self) -> None:
        """Drop the session and its documents: the closed screen may outlive its close."""
        self._documents.clear()
        self._documents_of = None
        self._request = None
        self._then = None
        self.document = None

    def styles_map(self) -> dict[str, Style]:
        """The component styles by name, computed once per style change (each walks the DOM)."""
        if self._styles is None:
            self._styles = {
                name: self.get_component_rich_style(f"event-view--{name}") for name in STYLE_NAMES
            }
        return self._styles

    def show_turn(
        self,
        session: Session,
        start: int,
        end: int,
        show_all: bool = False,
        note: tuple[str, str] | None = None,
        keep_place: bool = False,
        then: Callable[[], None] | None = None,
    ) -> None:
        """Show `session.events[start:end]`, under `note` (a header line and a sentence) when
        given; with `keep_place`, at the same scroll and block as now (a turn that grew); then
        call `then` (once the turn is shown: a big turn is built in a worker).

        The documents of recently shown turns are kept, so going back to one costs no rebuild."""
        if session is not self._documents_of:
            self._documents.clear()
            self._documents_of = session
        key = (start, end, show_all, note)
        self._wanted, self._then = key, then
        document = self._documents.get(key)
        if document is None and end - start <= BUILD_HERE:
            document = self._documents[key] = self._build(
                session, key, self.styles_map(), self.app.console
            )
        if document is not None:
            self.building = False
            self._install(document, keep_place)
            return
        self.building = True
        if not keep_place:
            count = plural(end - start, "event")
            line = Block(
                "building", start, Text(f"building the turn ({count})…", self.styles_map()["meta"])
            )
            self._show(EventDocument([line], self.styles_map(), self.app.console), False)
        self._request = BuildRequest(
            session, key, self.styles_map(), self.app.console, self.text_width, keep_place
        )
        self._build_in_worker()

    @work(thread=True, exclusive=True, group="event-build", exit_on_error=False)
    def _build_in_worker(self) -> None:
        """Build and lay out the asked-for turn's document off the UI thread; hand it over
        unless a newer turn was asked for meanwhile.

        The request is read from the view, never passed as an argument: Textual keeps a
        finished worker (and its arguments) in the context of the callback it hands over, so an
        argument would keep a closed session alive."""
        request = self._request
        if request is None:
            return
        session, key, styles, console = (
            request.session,
            request.key,
            request.styles,
            request.console,
        )
        worker = get_current_worker()

        def stale() -> bool:
            return worker.is_cancelled or self._wanted != key or session is not self._documents_of

        try:
            document = self._build(session, key, styles, console, stale)
            if stale():
                return
            document.row_count(request.width)  # the layout at the width it is likely drawn at
        except Exception as error:  # drawn as one line: the turn must not stay "building…"
            why = clean_line(f"{type(error).__name__}: {error}")[:300]
            line = Text(f"⚠ could not draw this turn: {why}", styles["error"])
            document = EventDocument([Block("failed", key[0], line)], styles, console)
            self.app.call_from_thread(self._built, request, document, False)
            return
        self.app.call_from_thread(self._built, request, document)

    def _built(self, request: BuildRequest, document: EventDocument, keep: bool = True) -> None:
        """Show a built document if its turn is still the one asked for (and keep it for going
        back to that turn, unless not `keep`)."""
        if self._request is request:
            self._request = None
        if not self.is_attached or request.session is not self._documents_of:
            return  # a build for a session (or a screen) that has gone
        if keep:
            self._documents[request.key] = document
        if self._wanted == request.key:
            self.building = False
            self._install(document, request.keep_place)

    def _install(self, document: EventDocument, keep_place: bool) -> None:
        if keep_place and self.document is not None:
            document.current = min(self.document.current, len(document.blocks) - 1)
        self._show(document, keep_place)
        then, self._then = self._then, None
        if then is not None:
            then()

    def _show(self, document: EventDocument, keep_place: bool) -> None:
        self.document = document
        document.highlight = self.find_pattern
        document.current_match = None
        self.set_source(document, keep_scroll=keep_place)
        self.post_message(self.BlockChanged(self.current_block))

    def set_find(self, pattern: re.Pattern[str] | None) -> None:
        """Highlight the matches of `pattern` (None: none)."""
        self.find_pattern = pattern
        if self.document is not None:
            self.document.highlight = pattern
            self.document.current_match = None
        self.invalidate()

    def show_match(self, event_index: int, kind: str, occurrence: int) -> bool:
        """Put the block cursor on the block of `event_index` that shows `kind` and scroll to the
        `occurrence`-th match in it (unfolding the block); False when no block shows it."""
        doc = self.document
        if doc is None:
            return False
        kinds = BLOCK_KINDS.get(kind, (kind,))
        found = [
            i for i, b in enumerate(doc.blocks) if b.event_index == event_index and b.kind in kinds
        ]
        if not found:
            return False
        index = found[0]
        block = doc.blocks[index]
        if block.collapsed:
            block.collapsed = False
            doc.relayout()
        doc.current = index
        row = doc.block_row(index, self.text_width)
        if self.find_pattern is not None:
            row = doc.locate(index, self.find_pattern, occurrence, self.text_width)
        self.invalidate()
        height = self.scrollable_content_region.height
        self.scroll_to(y=max(0, row - height // 3), animate=False)
        self.post_message(self.BlockChanged(self.current_block))
        return True

    def _build(
        self,
        session: Session,
        key: DocumentKey,
        styles: dict[str, Style],
        console: Console,
        cancelled: Callable[[], bool] | None = None,
    ) -> EventDocument:
        start, end, show_all, note = key
        blocks = build_blocks(session, start, end, console, styles, show_all, cancelled)
        if note is not None:
            header, sentence = note
            body = RichBody(Text(sentence, styles["meta"]), console)
            # at the end of the turn: it says how this turn ended, not the one before
            blocks.append(Block("ending", max(start, end - 1), Text(header, styles["image"]), body))
        return EventDocument(blocks, styles, console)

    @property
    def at_end(self) -> bool:
        """True when the last row is in view (nothing below it to scroll to)."""
        return self.scroll_offset.y >= self.max_scroll_y - 1

    def show_end(self) -> None:
        """Scroll to the last row and put the block cursor on the last block."""
        doc = self.document
        if doc is not None and doc.blocks:
            doc.current = len(doc.blocks) - 1
            self.invalidate()
            self.post_message(self.BlockChanged(self.current_block))
        self.scroll_end(animate=False, immediate=True)

    @property
    def current_block(self) -> Block | None:
        doc = self.document
        if doc is None or doc.current < 0:
            return None
        return doc.blocks[doc.current]

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles = None
        self._documents.clear()  # their headers hold the old styles
        if self.document is not None:
            self.document.styles.update(self.styles_map())

    def _move_to(self, index: int) -> None:
        doc = self.document
        if doc is None or not doc.blocks:
            return
        doc.current = max(0, min(len(doc.blocks) - 1, index))
        self.invalidate()
        self.scroll_to_row(doc.block_row(doc.current, self.text_width), top=True)
        self.post_message(self.BlockChanged(self.current_block))

    def action_block(self, delta: int) -> None:
        if self.document is not None:
            self._move_to(self.document.current + delta)

    def action_result(self, delta: int) -> None:
        doc = self.document
        if doc is None:
            return
        index = doc.current + delta
        while 0 <= index < len(doc.blocks):
            if doc.blocks[index].kind in ("result", "error"):
                self._move_to(index)
                return
            index += delta

    def next_error_block(self, from_start: bool = False) -> bool:
        """Move the block cursor to the next failed tool result; False when there is none."""
        doc = self.document
        if doc is None:
            return False
        start = 0 if from_start else doc.current + 1
        for index in range(start, len(doc.blocks)):
            if doc.blocks[index].kind == "error":
                self._move_to(index)
                return True
        return False

    def first_result(self) -> Block | None:
        """The current block when it is a tool result, else the first result of the turn."""
        doc = self.document
        if doc is None:
            return None
        current = self.current_block
        if current is not None and current.kind in ("result", "error"):
            return current
        for index, block in enumerate(doc.blocks):
            if block.kind in ("result", "error"):
                doc.current = index
                return block
        return None

    def action_fold(self) -> None:
        block = self.current_block
        if block is None or block.body is None or self.document is None:
            return
        block.collapsed = not block.collapsed
        self.document.relayout()
        self.invalidate()

    def action_copy(self) -> None:
        """Copy the current block's text to the clipboard (the terminal's, via OSC 52)."""
        block = self.current_block
        if block is None or not block.text:
            self.notify("Nothing to copy in this block.")
            return
        self.app.copy_to_clipboard(block.text)
        what = COPY_NAMES.get(block.kind, block.kind)
        self.notify(f"Copied {what}: {plural(len(block.text), 'character')}.")

    def action_thinking(self) -> None:
        doc = self.document
        if doc is None:
            return
        thinking = [b for b in doc.blocks if b.kind == "thinking"]
        fold = not any(b.collapsed for b in thinking)
        for block in thinking:
            block.collapsed = fold
        doc.relayout()
        self.invalidate()

    def on_click(self, event) -> None:
        if self.document is not None:
            row = event.y + int(self.scroll_offset.y)
            self.document.current = self.document.block_at(row, self.text_width)
            self.invalidate()
            self.post_message(self.BlockChanged(self.current_block))
