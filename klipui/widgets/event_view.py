"""The event view: the blocks of one turn, drawn row by row, with a block cursor."""

from __future__ import annotations

import re
from typing import ClassVar

from rich.console import Console
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.message import Message

from klipui.session.model import Session
from klipui.widgets.event_doc import Block, EventDocument, RichBody, build_blocks
from klipui.widgets.line_view import LineView

DOCUMENTS_KEPT = 32
"""Turns whose laid-out events are kept for going back to them."""
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
        "The events of the current turn. `n`/`p` move between blocks, `]`/`[` between tool "
        "results, Enter folds or unfolds a block (thinking starts folded), `t` unfolds every "
        "thinking block. Long outputs are drawn only where you look, so they scroll at any size."
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
        Binding("n", "block(1)", "Next block", show=False),
        Binding("p", "block(-1)", "Prev block", show=False),
        Binding("right_square_bracket", "result(1)", "Next result", key_display="]"),
        Binding("left_square_bracket", "result(-1)", "Prev result", show=False, key_display="["),
        Binding("enter", "fold", "Fold/unfold"),
        Binding("t", "thinking", "Thinking", show=False),
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
        self._documents: LRUCache[tuple[int, int, bool, tuple[str, str] | None], EventDocument] = (
            LRUCache(DOCUMENTS_KEPT)
        )
        self._documents_of: Session | None = None
        self.find_pattern: re.Pattern[str] | None = None
        """Find matches to highlight in every turn shown."""

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
    ) -> None:
        """Show `session.events[start:end]`, under `note` (a header line and a sentence) when
        given; with `keep_place`, at the same scroll and block as now (a turn that grew).

        The documents of recently shown turns are kept, so going back to one costs no rebuild."""
        if session is not self._documents_of:
            self._documents.clear()
            self._documents_of = session
        key = (start, end, show_all, note)
        document = self._documents.get(key)
        if document is None:
            document = self._build(session, start, end, show_all, note)
            self._documents[key] = document
        if keep_place and self.document is not None:
            document.current = min(self.document.current, len(document.blocks) - 1)
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
        start: int,
        end: int,
        show_all: bool,
        note: tuple[str, str] | None,
    ) -> EventDocument:
        console: Console = self.app.console
        styles = self.styles_map()
        blocks = build_blocks(session, start, end, console, styles, show_all)
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
