"""Search: an SQLite FTS5 index of every session, and find inside one session.

`SearchIndex` keeps the index in the user cache folder and brings it up to date incrementally;
`SearchIndex.search` ranks hits by BM25; `parse_query` says how a query is read (plain words, or
FTS5 syntax when the user writes some); `find_matches` finds text inside one loaded session.
"""

from klipui.search.index import (
    KIND_GROUPS,
    MARK_END,
    MARK_START,
    Hit,
    Results,
    SearchIndex,
    SearchUnavailable,
    UpdateReport,
    default_index_path,
    fts5_available,
    require_fts5,
)
from klipui.search.query import Query, parse_query
from klipui.search.units import KINDS, SessionUnits, Unit, read_units

__all__ = [
    "KINDS",
    "KIND_GROUPS",
    "MARK_END",
    "MARK_START",
    "Hit",
    "Query",
    "Results",
    "SearchIndex",
    "SearchUnavailable",
    "SessionUnits",
    "Unit",
    "UpdateReport",
    "default_index_path",
    "fts5_available",
    "parse_query",
    "read_units",
    "require_fts5",
]
