"""csv: delimited tables (CSV, TSV, `;` and `|` separated).

The delimiter is the one that splits most sampled records into the same number of fields,
counting quotes (a delimiter inside `"..."` does not split; a quoted field may span lines).
Unless the file is named `.csv`/`.tsv`, a table must also look like one: nearly every sampled
record with the same field count, a header row (every field a name, not a value) or at least 5
columns, and few lines of other shapes that happen to split evenly (JSON-lines records, `go test`
package lines such as `ok  \tpkg\t0.01s`).
Keeps the header, the first 5 and last 2 data rows, every line that is not a row of the table
(warnings, totals printed around it) and adds `CSV: N data rows, M columns`; whole lines only.
Rows that stand out in a column rank with the first rows: a value of a column with few distinct
values that occurs in at most one row in 100 (a rare status), and the largest and smallest
value of a numeric column when it lies far from the others.
"""

from __future__ import annotations

import csv as csvlib
import re
from collections import Counter
from collections.abc import Iterator

from klipui.shrink.plan import Budget, Hint, Keep, Plan, Summary
from klipui.shrink.reducers._patterns import table_outliers
from klipui.shrink.text import sample_lines, split_lines

name = "csv"
describe = "header, first and last rows and the lines around the table kept"
overflow = "head"

DELIMITERS = (",", "\t", ";", "|")
FIRST_ROWS = 5
LAST_ROWS = 2
MIN_LINES = 12
MIN_LINES_WITHOUT_PATH = 30
MIN_SHARE = 0.8
"""Share of sampled records with the common field count."""
MIN_SHARE_SPLIT = 0.95
"""For text of unknown origin: the share among records the delimiter splits at all (lines with
no delimiter, such as warnings printed around the table, do not count against it)."""
MANY_COLUMNS = 5
"""From this many columns a table needs no header row."""
MAX_FOREIGN_SHARE = 0.1
MAX_ODD_SHARE = 0.2
_FOREIGN = re.compile(r"\s*[{\[]|ok {2}\t|FAIL\t|\? {3}\t|--- |=== |PASS$|FAIL$")
"""Lines that split evenly but are no table rows: JSON records, `go test` output."""
_NAME_MAX = 64


def fields(line: str, delimiter: str) -> tuple[int, bool]:
    """(number of fields, whether a quote is left open at the end of the line)."""
    if '"' not in line:
        return line.count(delimiter) + 1, False
    count = 1
    quoted = False
    at_field_start = True
    for char in line:
        if char == '"':
            if quoted or at_field_start:
                quoted = not quoted
            at_field_start = False
        elif char == delimiter and not quoted:
            count += 1
            at_field_start = True
        elif not char.isspace():
            at_field_start = False
    return count, quoted


def records(lines: list[str], delimiter: str) -> Iterator[tuple[int, int, int]]:
    """(first line, end line, fields) of each record; a quoted field may span lines."""
    i = 0
    n = len(lines)
    while i < n:
        start = i
        total, open_quote = fields(lines[i], delimiter)
        i += 1
        while open_quote and i < n and i - start < 50:
            more, still_open = fields('"' + lines[i], delimiter)
            total += more - 1
            open_quote = still_open
            i += 1
        yield start, i, total


def find_delimiter(
    lines: list[str], min_columns: int = 3, min_share_split: float = 0.0
) -> tuple[str, int] | None:
    """The delimiter and column count that fit most of these lines, or None.

    `min_share_split`: the share of the records the delimiter splits at all that must have
    the common field count.
    """
    best: tuple[float, str, int] | None = None
    for delimiter in DELIMITERS:
        counts = Counter(f for _, _, f in records(lines, delimiter))
        if not counts:
            continue
        columns, hits = counts.most_common(1)[0]
        share = hits / sum(counts.values())
        split = sum(count for fields, count in counts.items() if fields > 1)
        if split and hits / split < min_share_split:
            continue
        if columns >= min_columns and share >= MIN_SHARE and (best is None or share > best[0]):
            best = (share, delimiter, columns)
    return (best[1], best[2]) if best else None


def _min_columns(hint: Hint) -> int:
    """Two columns only for a file named .csv/.tsv: `cat -n` and log timestamps have two."""
    return 2 if (hint.path or "").lower().endswith((".csv", ".tsv")) else 3


def header_like(line: str, delimiter: str) -> bool:
    """True for a row of column names: every field a short, distinct name starting with a letter
    (`zone`, `utc_offset`, `"Unit Price"`), none a value such as `0.01s`, `?` or `[no files]`."""
    names = [field.strip().strip('"').strip() for field in line.split(delimiter)]
    for field in names:
        if not field or len(field) > _NAME_MAX or not (field[0].isalpha() or field[0] in "_#%"):
            return False
    return len(set(names)) == len(names)


def _foreign_share(lines: list[str]) -> float:
    return sum(1 for line in lines if _FOREIGN.match(line)) / len(lines)


def detect(text: str, hint: Hint) -> bool:
    lines = [line for line in sample_lines(text, 60, 0) if line.strip()]
    if len(lines) < MIN_LINES:
        return False
    named = (hint.path or "").lower().endswith((".csv", ".tsv"))
    if not named and len(lines) < MIN_LINES_WITHOUT_PATH:
        return False
    if _foreign_share(lines) > MAX_FOREIGN_SHARE:
        return False
    if named:
        return find_delimiter(lines, _min_columns(hint)) is not None
    found = find_delimiter(lines, _min_columns(hint), MIN_SHARE_SPLIT)
    if found is None:
        return False
    delimiter, columns = found
    return columns >= MANY_COLUMNS or header_like(lines[0], delimiter)


def reduce(text: str, hint: Hint, budget: Budget) -> Plan | None:
    lines = split_lines(text)
    sample = [line for line in sample_lines(text, 60, 0) if line.strip()]
    found = find_delimiter(sample, _min_columns(hint))
    if found is None:
        return None
    delimiter, columns = found
    rows: list[tuple[int, int]] = []
    odd: list[tuple[int, int]] = []
    for start, end, count in records(lines, delimiter):
        (rows if count == columns else odd).append((start, end))
    if len(rows) <= 1 + FIRST_ROWS + LAST_ROWS or len(odd) > MAX_ODD_SHARE * len(lines):
        return None
    header, data = rows[0], rows[1:]
    priority: dict[tuple[int, int], int] = {header: 5}
    for row in data[:FIRST_ROWS]:
        priority[row] = 3
    for row in data[-LAST_ROWS:]:
        priority[row] = 2
    for line_range in odd:
        if lines[line_range[0]].strip():
            priority[line_range] = 4
    for row, p in _outliers(lines, data, delimiter).items():
        priority[row] = max(priority.get(row, 0), p)
    plan: Plan = [Keep(a, b, p) for (a, b), p in sorted(priority.items())]
    kind = "TSV" if delimiter == "\t" else "CSV"
    plan.append(
        Summary((f"{kind}: {len(data):,} data rows, {columns} columns",), len(lines), len(lines), 4)
    )
    return plan


OUTLIER_SAMPLE = 20_000
"""Data rows read for outliers (the first ones)."""


def _split(line: str, delimiter: str) -> list[str]:
    if '"' in line:
        try:
            return [f.strip() for f in next(csvlib.reader([line], delimiter=delimiter), [])]
        except csvlib.Error:
            pass  # a carriage return inside the line: read its fields plainly
    return [f.strip() for f in line.split(delimiter)]


def _outliers(
    lines: list[str], data: list[tuple[int, int]], delimiter: str
) -> dict[tuple[int, int], int]:
    """`{row: priority}` for the rows that stand out in one of their columns: a rare value
    with the lines around the table, a far extreme with the first rows."""
    rows = [r for r in data[:OUTLIER_SAMPLE] if r[1] == r[0] + 1]
    found = table_outliers([_split(lines[a], delimiter) for a, _ in rows])
    return {rows[k]: 4 if rare else 3 for k, rare in found.items()}
