"""Index-first dsh sessions: one typed pass places every record in the event log and its turn.

A dsh record lowers alone (an event, or the members of a packed row), so the pass keeps no
event: per record it notes where its events start, and it builds the turns and their figures
with the same `TurnScan` the full lowering uses. A block of lines the fast typed decoder takes
whole is read from msgspec structs holding only the fields turns need; any other block (a bad
line, a blank line, an odd row) goes through the records a full read decodes, lowered by the
full lowering's own `lower_record`, so both paths give the same events, turns and problems.
"""

from __future__ import annotations

from array import array
from pathlib import Path
from typing import Any

import msgspec

from klipui.session.blocks import block_texts, first_line, result_errors
from klipui.session.formats.dsh.lowering import (
    CHUNK_ROWS,
    describe,
    is_header,
    lower_record,
    name,
)
from klipui.session.index import Indexer, LazyEvents, LazyRecords, RecordIndex
from klipui.session.jsonl import kind_name
from klipui.session.model import Event, Problem, Record, Session
from klipui.session.tokens import estimate_tokens
from klipui.session.turns import TurnScan

_MAX_SEQ_PROBLEMS = 20
_TEXT_EVENTS = frozenset({"user/message", "assistant/message", "tool/call", "tool/result"})
_UNSET: Any = msgspec.UNSET


class _Message(msgspec.Struct, gc=False):
    content: Any = None


class _Data(msgspec.Struct, gc=False):
    content: Any = None
    message: _Message | None = None
    arguments: Any = None
    reason: Any = None
    title: Any = None
    texts: Any = None
    args: Any = None
    dt: Any = None


class _Line(msgspec.Struct, gc=False):
    type: Any = _UNSET
    seq: Any = None
    seq0: Any = _UNSET
    time0: Any = None
    data: _Data | None = None


_DECODER = msgspec.json.Decoder(_Line)
_EMPTY = _Data()


class DshIndexer(Indexer):
    """Builds an index-first dsh `Session` from the blocks of its file."""

    def __init__(self, path: Path, index: RecordIndex) -> None:
        super().__init__(path, index)
        self.spath = str(path)
        self.header: dict[str, Any] | None = None
        self.starts = array("q", [0])
        self.scan = TurnScan()
        self.lowering: list[Problem] = []
        self.seq_problems: list[Problem] = []
        self.title: str | None = None

    def exact(self, records: list[Record]) -> None:
        for record in records:
            position = len(self.starts) - 1
            if is_header(position, record.value):
                self.header = record.value
                self.starts.append(self.starts[-1])
                continue
            events = lower_record(self.spath, position, record, self.lowering)
            for event in events:
                self._seq(event.seq, 1, record.line)
                self.scan.add(event)
                if event.type == "session/title":
                    self._title(event.data.get("title"))
            self.starts.append(self.starts[-1] + len(events))

    def fast(self, block: bytes, first_line: int) -> tuple[list[int], list[Problem]] | None:
        if len(self.starts) == 1:
            return None  # the first record may be the header: read it whole
        try:
            values = _DECODER.decode_lines(block)
        except (msgspec.DecodeError, RecursionError):
            return None
        if len(values) != block.count(b"\n") or not self._fast_rows(values):
            return None
        lines: list[int] = []
        odd: list[Problem] = []
        for number, value in enumerate(values, first_line + 1):
            kind = value.type
            if kind is not _UNSET and type(kind) is not str:
                reason = f"its `type` is not a string ({kind_name(kind)})"
                odd.append(Problem(self.spath, number, reason))
                continue
            lines.append(number)
            self._fast_line(value, number)
        return lines, odd

    @staticmethod
    def _fast_rows(values: list[_Line]) -> bool:
        """Whether every packed row of `values` expands without an error (else the block is
        read whole, so that the error is the full lowering's own)."""
        for value in values:
            if type(value.type) is not str or value.type not in CHUNK_ROWS or value.seq0 is _UNSET:
                continue
            seq0, data = value.seq0, value.data or _EMPTY
            if type(seq0) is not int:
                return False
            deltas = data.args if value.type == "tool-call-chunks" else data.texts
            for part in (data.args, data.texts, data.dt):
                if part is not None and type(part) is not list:
                    return False
            members = len(deltas or ())
            time0 = value.time0
            if time0 is None or isinstance(time0, bool) or not isinstance(time0, int | float):
                continue
            steps = (data.dt or [])[: max(members - 1, 0)]
            if any(type(step) not in (int, float) for step in steps):
                return False
        return True

    def _fast_line(self, value: _Line, line: int) -> None:
        kind = value.type
        data = value.data or _EMPTY
        starts = self.starts
        if kind in CHUNK_ROWS and value.seq0 is not _UNSET:
            deltas = data.args if kind == "tool-call-chunks" else data.texts
            members = len(deltas or ())
            self._seq(value.seq0, members, line)
            self.scan.skip(members)
            starts.append(starts[-1] + members)
            return
        seq = value.seq
        if type(kind) is not str or not isinstance(seq, int):
            reason = "not a SessionEvent (no type or seq)"
            self.lowering.append(Problem(self.spath, line, reason))
            starts.append(starts[-1])
            return
        if seq != self.scan.position:
            self._seq(seq, 1, line)
        starts.append(starts[-1] + 1)
        scan = self.scan
        if kind not in _TEXT_EVENTS:
            scan.counted(kind, data.reason)
            if kind == "session/title":
                self._title(data.title)
            return
        content: Any
        if kind == "user/message":
            content = data.content
        elif kind == "tool/call":
            arguments = data.arguments
            tokens = estimate_tokens(arguments) if isinstance(arguments, str) and arguments else 0
            scan.counted(kind, None, tokens)
            return
        else:
            content = None if data.message is None else data.message.content
        texts = block_texts(content, False)
        tokens = sum(estimate_tokens(text) for text in texts) if texts else 0
        prompt = None
        if kind == "user/message" and scan.wants_prompt:
            prompt = first_line("\n".join(block_texts(content)))
        errors = result_errors(content) if kind == "tool/result" else 0
        scan.counted(kind, None, tokens, errors, prompt)

    def _seq(self, first: Any, count: int, line: int) -> None:
        """Check the seqs `first`, `first + 1`, … of `count` events against their positions."""
        position = self.scan.position
        if first == position or len(self.seq_problems) >= _MAX_SEQ_PROBLEMS:
            return
        for k in range(count):
            seq = first if count == 1 else first + k  # a lone seq as the file has it (`true`)
            if seq != position + k and len(self.seq_problems) < _MAX_SEQ_PROBLEMS:
                reason = f"seq {seq} where {position + k} was expected"
                self.seq_problems.append(Problem(self.spath, line, reason))

    def _title(self, title: Any) -> None:
        if isinstance(title, str) and title:
            self.title = title

    def finish(self, records: LazyRecords, problems: list[Problem]) -> Session:
        spath = self.spath

        def lower(position: int, record: Record) -> list[Event]:
            if is_header(position, record.value):
                return []
            return lower_record(spath, position, record, [])

        session = Session(
            path=self.path,
            format=name,
            header=self.header,
            records=records,
            events=LazyEvents(records, self.starts, lower),
            turns=self.scan.finish(),
            problems=[*problems, *self.lowering, *self.seq_problems],
        )
        describe(session, self.header, self.title)
        return session
