"""DeepSeek Harness (dsh) sessions: a `session` header line, then SessionEvents and packed rows.

The SessionEvent envelope is already the common model, so lowering is mostly decoding. Packed
`text-chunks` / `reasoning-chunks` / `tool-call-chunks` rows hold runs of `assistant/chunk`
delta events; they are expanded to their members (seq `seq0+k`, time `time0 + dt[0..k)`) so
that `events[i].seq == i`.

Raising writes the header, then each event: an event equal to the record it came from is
copied byte for byte; a run of events that is exactly all the members of one packed row, in
order and unchanged (seqs may be shifted by a constant), is written back as that row (byte for
byte when its seq0 is unchanged); anything else is written as a compact JSON SessionEvent, the
native record's own extra keys kept. Normalisations: CRLF line ends become LF; a BOM, blank
lines, lines that did not decode and objects that are not SessionEvents (no type or seq) are
dropped (the reader reports the last two as problems); a non-object `data` becomes `{}`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import accumulate
from pathlib import Path
from typing import Any

from klipui.session.blocks import event_texts, first_line, iter_block_texts
from klipui.session.formats._values import dumps_json, text_or_none
from klipui.session.jsonl import decode_line
from klipui.session.model import Event, Problem, Record, Session, SessionInfo
from klipui.session.tokens import estimate_tokens
from klipui.session.turns import build_turns

name = "dsh"
agent = "DeepSeek Harness"

CHUNK_ROWS = {
    "text-chunks": "text-delta",
    "reasoning-chunks": "reasoning-delta",
    "tool-call-chunks": "tool-call-delta",
}
"""Packed row type → the `chunk.type` of its members."""

SESSION_FILE = "session.jsonl"
ZSTD_SUFFIX = ".zstd"
NO_CWD = "_no-cwd"
_SAFE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
_SEPARATORS = frozenset("/\\:")
_MAX_KEY = 251
_MAX_SEQ_PROBLEMS = 20


def _is_header(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") == "session" and "id" in value


def sniff(values: Sequence[Any]) -> bool:
    """A `session` header of version 0 (the only one the harness writes; pi's `session`
    headers are versions 1-3), followed by SessionEvents or packed rows."""
    if not values or not _is_header(values[0]) or values[0].get("version") != 0:
        return False
    for value in values[1:4]:
        if not isinstance(value, dict):
            return False
        if not ("seq" in value or value.get("type") in CHUNK_ROWS):
            return False
    return True


def expand_row(value: dict[str, Any], origin: int | None = None) -> list[Event]:
    """The `assistant/chunk` member events of a packed row (ValueError for a row of another
    shape: `data` not an object, `seq0` not an integer, deltas or steps not arrays)."""
    data = value.get("data")
    data = {} if data is None else data
    if not isinstance(data, dict):
        raise ValueError("`data` is not an object")
    kind = CHUNK_ROWS[value["type"]]
    seq0 = value["seq0"]
    if not isinstance(seq0, int) or isinstance(seq0, bool):
        raise ValueError("`seq0` is not an integer")
    time0 = value.get("time0")
    if time0 is not None and not isinstance(time0, int | float):
        time0 = None
    for key in ("args", "texts", "dt"):
        if data.get(key) is not None and not isinstance(data[key], list):
            raise ValueError(f"`data.{key}` is not an array")
    turn, step, index = data.get("turn"), data.get("step"), data.get("index")
    if kind == "tool-call-delta":
        deltas = data.get("args") or ()
        call_id = data.get("id")
        if "name" in data:
            tool = data["name"]
            chunks = [
                {"type": kind, "index": index, "id": call_id, "name": tool, "argumentsDelta": d}
                for d in deltas
            ]
        else:
            chunks = [
                {"type": kind, "index": index, "id": call_id, "argumentsDelta": d} for d in deltas
            ]
    else:
        chunks = [{"type": kind, "index": index, "text": d} for d in data.get("texts") or ()]
    if time0 is None:
        times: list[int | None] = [None] * len(chunks)
    else:
        steps = list(data.get("dt") or ())
        steps += [0] * (len(chunks) - 1 - len(steps))
        start: Any = time0  # a number as the file has it (int or float)
        times = list(accumulate(steps[: max(len(chunks) - 1, 0)], initial=start))
    return [
        Event(
            "assistant/chunk",
            seq0 + k,
            times[k],
            {"turn": turn, "step": step, "chunk": chunk},
            None,
            None,
            False,
            origin,
        )
        for k, chunk in enumerate(chunks)
    ]


def lower(path: Path, records: list[Record], problems: list[Problem]) -> Session:
    """Records to events: the header aside, packed rows expanded, turns from the brackets."""
    header: dict[str, Any] | None = None
    events: list[Event] = []
    spath = str(path)
    for index, record in enumerate(records):
        if index == 0 and _is_header(record.value):
            header = record.value
            continue
        events.extend(lower_record(spath, index, record, problems))
    _check_seqs(spath, records, events, problems)
    session = Session(
        path=path,
        format=name,
        header=header,
        records=records,
        events=events,
        turns=build_turns(events),
        problems=problems,
    )
    describe(session, header, latest_title(events))
    return session


def describe(session: Session, header: dict[str, Any] | None, title: str | None) -> None:
    """Set the session's fields that come from its header, and its title."""
    if header is not None:
        session.cwd = text_or_none(header.get("cwd"))
        session.session_id = text_or_none(header.get("id"))
        session.parent = text_or_none(header.get("parentSession"))
    session.title = title


def is_header(index: int, value: Any) -> bool:
    """Whether record `index` of value `value` is the session header (only the first can be)."""
    return index == 0 and _is_header(value)


def lower_record(spath: str, index: int, record: Record, problems: list[Problem]) -> list[Event]:
    """The events of record `index` (not the header): a SessionEvent, or the members of a packed
    row; none, and a problem, for a record that is neither."""
    value = record.value
    kind = value.get("type")
    if kind in CHUNK_ROWS and "seq0" in value:
        try:
            return expand_row(value, index)
        except (TypeError, KeyError, ValueError) as error:
            problems.append(Problem(spath, record.line, f"bad {kind} row: {error}"))
            return []
    if not isinstance(kind, str) or not isinstance(value.get("seq"), int):
        problems.append(Problem(spath, record.line, "not a SessionEvent (no type or seq)"))
        return []
    data = value.get("data")
    time = value.get("time")
    return [
        Event(
            kind,
            value["seq"],
            _number(time),
            data if isinstance(data, dict) else {},
            value.get("sourceEventSeqs"),
            value.get("surfaceOp"),
            bool(value.get("ignorable", False)),
            index,
        )
    ]


def _check_seqs(
    path: str, records: list[Record], events: list[Event], problems: list[Problem]
) -> None:
    reported = 0
    for position, event in enumerate(events):
        if event.seq != position:
            line = records[event.origin].line if event.origin is not None else 0
            problems.append(Problem(path, line, f"seq {event.seq} where {position} was expected"))
            reported += 1
            if reported >= _MAX_SEQ_PROBLEMS:
                break


def _number(value: Any) -> Any:
    """`value` when it is a number (int or float, as the file has it), else None."""
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def latest_title(events: Sequence[Event]) -> str | None:
    """The title of the latest `session/title` event (the harness's rule), or None."""
    for event in reversed(events):
        if event.type == "session/title":
            title = event.data.get("title")
            if isinstance(title, str) and title:
                return title
    return None


def info(path: Path, values: Sequence[Any]) -> SessionInfo:
    """Figures from the first records: header fields, latest title and prompt seen, turns so far."""
    header = values[0] if values and _is_header(values[0]) else {}
    title: str | None = None
    prompt: str | None = None
    turns = 0
    events = 0
    tokens = 0
    last_time: int | None = None
    for value in values[1:]:
        if not isinstance(value, dict):
            continue
        kind = value.get("type")
        if kind in CHUNK_ROWS:
            row = value.get("data")
            deltas = row.get("texts") or row.get("args") if isinstance(row, dict) else None
            events += len(deltas) if isinstance(deltas, list) else 0
            continue
        events += 1
        if isinstance(value.get("time"), int):
            last_time = value["time"]
        found = value.get("data")
        data: dict[str, Any] = found if isinstance(found, dict) else {}
        if kind == "turn/start":
            turns += 1
        elif kind == "session/title" and isinstance(data.get("title"), str):
            title = data["title"]
        elif kind == "user/message" and prompt is None:
            prompt = first_line("\n".join(iter_block_texts(data.get("content")))) or None
        if kind in ("user/message", "assistant/message", "tool/call", "tool/result"):
            event = Event(kind, 0, data=data)
            tokens += sum(estimate_tokens(text) for text in event_texts(event))
    cwd = text_or_none(header.get("cwd"))
    created = header.get("createdAt")
    return SessionInfo(
        path=path,
        format=name,
        agent=agent,
        title=title,
        first_prompt=prompt,
        project=project_name(cwd),
        cwd=cwd,
        session_id=text_or_none(header.get("id")),
        parent=text_or_none(header.get("parentSession")),
        started=created / 1000 if isinstance(created, int | float) else None,
        updated=last_time / 1000 if last_time is not None else None,
        turns=turns,
        events=events,
        tokens=tokens,
    )


def project_name(cwd: Any) -> str | None:
    """The last component of a working directory, for display."""
    if not isinstance(cwd, str) or not cwd:
        return None
    return Path(cwd.rstrip("/\\")).name or cwd


def raise_records(session: Session, events: Sequence[Event]) -> Iterator[bytes]:
    """The native lines for the header and `events` (see the module docstring).

    Events are compared with a fresh decode of their native line, so an event changed in place
    (its `data` shared with the decoded record) is still seen as changed.
    """
    if session.header is not None:
        raw = session.record_bytes(0) if session.records else None
        if raw is not None and decode_line(raw) == session.header:
            yield raw
        else:
            yield dumps_json(session.header)
    position = 0
    total = len(events)
    while position < total:
        event = events[position]
        origin = event.origin
        raw = session.record_bytes(origin) if origin is not None else None
        record: dict[str, Any] = decode_line(raw) if raw is not None else {}
        if origin is not None and raw is not None and record.get("type") in CHUNK_ROWS:
            members = expand_row(record)
            run = events[position : position + len(members)]
            if _is_whole_row(run, members, origin):
                shift = run[0].seq - members[0].seq
                if shift == 0:
                    yield raw
                else:
                    yield dumps_json({**record, "seq0": record["seq0"] + shift})
                position += len(members)
                continue
            yield dumps_json(event.to_dict())
        elif raw is not None and _same_event(event, record):
            yield raw
        else:
            yield dumps_json(_native(event, record if raw is not None else None))
        position += 1


def _is_whole_row(run: Sequence[Event], members: list[Event], origin: int) -> bool:
    if len(run) != len(members):
        return False
    shift = run[0].seq - members[0].seq
    for event, member in zip(run, members, strict=True):
        if (
            event.origin != origin
            or event.seq - shift != member.seq
            or event.type != member.type
            or event.time != member.time
            or event.data != member.data
            or event.source_event_seqs is not None
            or event.surface_op is not None
            or event.ignorable
        ):
            return False
    return True


def _same_event(event: Event, record: dict[str, Any]) -> bool:
    return (
        event.seq == record.get("seq")
        and event.type == record.get("type")
        and event.time == record.get("time")
        and event.data == (record.get("data") or {})
        and event.source_event_seqs == record.get("sourceEventSeqs")
        and event.surface_op == record.get("surfaceOp")
        and event.ignorable == bool(record.get("ignorable", False))
    )


def _native(event: Event, record: dict[str, Any] | None) -> dict[str, Any]:
    """The wire shape of `event`, keeping any extra keys of the record it came from."""
    shape = event.to_dict()
    if record is None:
        return shape
    extra = {k: v for k, v in record.items() if k not in _ENVELOPE_KEYS}
    return {**shape, **extra} if extra else shape


_ENVELOPE_KEYS = frozenset(
    {"type", "seq", "time", "data", "ignorable", "sourceEventSeqs", "surfaceOp"}
)


def _escape(text: str, *, separators: bool) -> str:
    out: list[str] = []
    in_separator = False
    for char in text:
        if separators and char in _SEPARATORS:
            if not in_separator:
                out.append("-")
            in_separator = True
            continue
        in_separator = False
        if char in _SAFE:
            out.append(char)
            continue
        encoded = char.encode("utf-16-be", "surrogatepass")
        for unit in range(0, len(encoded), 2):
            out.append(f"~{int.from_bytes(encoded[unit : unit + 2], 'big'):04X}")
    return "".join(out)


def project_key(cwd: str | None) -> str:
    """The folder name of a working directory in the harness's session store (§6.1):
    separator runs become `-`, other unsafe UTF-16 units `~XXXX`, wrapped in `--…--`;
    `_no-cwd` when there is no cwd."""
    if not cwd:
        return NO_CWD
    key = _escape(cwd, separators=True).lstrip("-") or "root"
    return f"--{key[:_MAX_KEY]}--"


def encode_id(session_id: str) -> str:
    """The folder name of a session id: unsafe UTF-16 units as `~XXXX`, `.` and `..` escaped."""
    if not session_id:
        raise ValueError("empty session id")
    if session_id in (".", ".."):
        return "~002E" * len(session_id)
    return _escape(session_id, separators=False)


def session_path(root: Path, cwd: str | None, session_id: str, *, zstd: bool = True) -> Path:
    """Where the harness keeps a session: `<root>/<project-key>/<id>/session.jsonl[.zstd]`."""
    filename = SESSION_FILE + (ZSTD_SUFFIX if zstd else "")
    return root / project_key(cwd) / encode_id(session_id) / filename


def scan_info(path: Path) -> SessionInfo:
    """Exact figures without lowering: each line is decoded into a few typed fields only.

    The same figures as `session_info(open_session(path))` (turns, events, title, first prompt,
    times, token estimate) at a fraction of the time and memory: a 1,000,000-event session is
    never held in memory. Raises ValueError when a line does not have the expected shape (the
    caller then falls back to a full read).
    """
    from klipui.session.formats._dsh_scan import scan

    return scan(path)
