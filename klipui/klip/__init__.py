"""The clip engine: select turns with a KInterval, reindex them into a valid child seed.

`parse_interval("1..3, 7")` reads a selection; `reindex(events, selection)` keeps the selected
completed turns of a dsh event list, renumbers seqs and turns densely and drops every event whose
references died (rule tables in `rules`); `validate(events)` checks the result's surface fold and
tool pairs.
"""

from klipui.klip.interval import KInterval, KIntervalError, parse_interval

__all__ = [
    "KInterval",
    "KIntervalError",
    "parse_interval",
]
