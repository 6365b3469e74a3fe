"""Session formats: one adapter module per agent, each able to sniff, lower and raise.

An adapter module exposes:

- `name: str` and `agent: str` (the format name and the agent's human name);
- `sniff(values: Sequence[Any]) -> bool`: True when the first decoded records look like this
  format (content, never file names);
- `lower(path: Path, records: list[Record], problems: list[Problem]) -> Session`: records to events
  and turns;
- `info(path: Path, values: Sequence[Any]) -> SessionInfo`: quick figures from a head read;
- `raise_records(session: Session, events: Sequence[Event]) -> Iterator[bytes]`: the native lines
  (without newline) for the kept events, untouched records copied byte for byte.

`FORMATS` lists them in sniffing order: the most specific first, generic messages last.
"""
