"""A typed scan of a DeepSeek Harness file: only the fields `SessionInfo` needs are decoded."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import msgspec

from klipui.session.blocks import block_texts, first_line
from klipui.session.jsonl import scan_chunks
from klipui.session.model import SessionInfo
from klipui.session.tokens import estimate_tokens


class Message(msgspec.Struct, gc=False):
    content: Any = None


class Data(msgspec.Struct, gc=False):
    """The fields of `data` the figures need; the rest of it is skipped, never decoded."""

    title: Any = None
    content: Any = None
    message: Message | None = None
    arguments: Any = None
    texts: Any = None
    args: Any = None
    dt: Any = None


class Line(msgspec.Struct, gc=False):
    type: str = ""
    seq: int | None = None
    time: int | None = None
    seq0: int | None = None
    time0: int | None = None
    data: Data | None = None
    id: Any = None
    cwd: Any = None
    parentSession: Any = None
    createdAt: Any = None


_CHUNK_ROWS = frozenset({"text-chunks", "reasoning-chunks", "tool-call-chunks"})


class _Scan:
    def __init__(self) -> None:
        self.decoder = msgspec.json.Decoder(Line)
        self.header: Line | None = None
        self.lines = 0
        self.events = 0
        self.turns = 0
        self.in_turn = False
        self.prompt: str | None = None
        self.prompt_taken = False
        self.title: str | None = None
        self.tokens = 0
        self.first_time: int | None = None
        self.last_time: int | None = None

    def __call__(self, chunk: memoryview) -> None:
        try:
            values = self.decoder.decode_lines(chunk)
        except (msgspec.DecodeError, RecursionError):
            values = []
            for line in bytes(chunk).split(b"\n"):
                if line.strip():
                    # A line of another shape or nested too deeply: the full reader reports it.
                    with contextlib.suppress(msgspec.DecodeError, RecursionError):
                        values.append(self.decoder.decode(line))
        for value in values:
            self._line(value)

    def _time(self, value: int | None) -> None:
        if value is None:
            return
        if self.first_time is None or value < self.first_time:
            self.first_time = value
        if self.last_time is None or value > self.last_time:
            self.last_time = value

    def _line(self, value: Line) -> None:
        self.lines += 1
        kind = value.type
        if self.lines == 1 and kind == "session":
            self.header = value
            return
        data = value.data or Data()
        if kind in _CHUNK_ROWS and value.seq0 is not None:
            deltas = data.args if kind == "tool-call-chunks" else data.texts
            members = len(deltas) if isinstance(deltas, list) else 0
            self.events += members
            if value.time0 is not None and members:
                steps = [d for d in data.dt if type(d) is int] if isinstance(data.dt, list) else []
                self._time(value.time0)
                self._time(value.time0 + sum(steps[: members - 1]))
            return
        if value.seq is None:
            return
        self.events += 1
        self._time(value.time)
        if kind == "turn/start":
            self.turns += 1
            self.in_turn = True
        elif kind == "turn/end":
            self.in_turn = False
        elif kind == "session/title":
            if isinstance(data.title, str) and data.title:
                self.title = data.title
        elif kind == "user/message":
            if self.in_turn and self.turns == 1 and not self.prompt_taken:
                self.prompt_taken = True
                self.prompt = first_line("\n".join(block_texts(data.content, True))) or None
            self._count(block_texts(data.content, False))
        elif kind in ("assistant/message", "tool/result"):
            if data.message is not None:
                self._count(block_texts(data.message.content, False))
        elif kind == "tool/call" and isinstance(data.arguments, str) and data.arguments:
            self._count([data.arguments])

    def _count(self, texts: list[str]) -> None:
        for text in texts:
            self.tokens += estimate_tokens(text)


def scan(path: Path) -> SessionInfo:
    """Exact `SessionInfo` figures of a dsh file from a typed scan (see `dsh.scan_info`)."""
    state = _Scan()
    scan_chunks(path, state)
    header = state.header
    if header is None:
        raise ValueError(f"{path}: no session header")
    cwd = header.cwd if isinstance(header.cwd, str) else None
    stat = path.stat()
    return SessionInfo(
        path=path,
        format="dsh",
        agent="DeepSeek Harness",
        title=state.title,
        first_prompt=state.prompt,
        project=Path(cwd.rstrip("/\\")).name or cwd if cwd else None,
        cwd=cwd,
        session_id=header.id if isinstance(header.id, str) else None,
        parent=header.parentSession if isinstance(header.parentSession, str) else None,
        started=state.first_time / 1000 if state.first_time is not None else None,
        updated=state.last_time / 1000 if state.last_time is not None else stat.st_mtime,
        turns=state.turns,
        events=state.events,
        bytes=stat.st_size,
        tokens=state.tokens,
        exact=True,
    )
