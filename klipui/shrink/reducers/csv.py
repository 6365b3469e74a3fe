"""csv: delimited tables (CSV, TSV, `;` and `|` separated).

The delimiter is the one that splits most sampled records into the same number of fields,
counting quotes (a delimiter inside `"..."` does not split; a quoted field may span lines).
Keeps the header, the first 5 and last 2 data rows, every line that is not a row of the table
(warnings, totals printed around it) and adds `CSV: N data rows, M columns`; whole lines only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from klipui.shrink.plan import Budget, Hint, Keep, Plan, Summary
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
MAX_ODD_SHARE = 0.2


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


def find_delimiter(lines: list[str], min_columns: int = 3) -> tuple[str, int] | None:
    """The delimiter and column count that fit most of these lines, or None."""
    best: tuple[float, str, int] | None = None
    for delimiter in DELIMITERS:
        counts = Counter(f for _, _, f in records(lines, delimiter))
        if not counts:
            continue
        columns, hits = counts.most_common(1)[0]
        share = hits / sum(counts.values())
        if columns >= min_columns and share >= MIN_SHARE and (best is None or share > best[0]):
            best = (share, delimiter, columns)
    return (best[1], best[2]) if best else None


def _min_columns(hint: Hint) -> int:
    """Two columns only for a file named .csv/.tsv: `cat -n` and log timestamps have two."""
    return 2 if (hint.path or "").lower().endswith((".csv", ".tsv")) else 3


def detect(text: str, hint: Hint) -> bool:
    lines = [line for line in sample_lines(text, 60, 0) if line.strip()]
    if len(lines) < MIN_LINES:
        return False
    path = (hint.path or "").lower()
    if not path.endswith((".csv", ".tsv")) and len(lines) < MIN_LINES_WITHOUT_PATH:
        return False
    return find_delimiter(lines, _min_columns(hint)) is not None


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
    plan: Plan = [Keep(a, b, p) for (a, b), p in sorted(priority.items())]
    kind = "TSV" if delimiter == "\t" else "CSV"
    plan.append(
        Summary((f"{kind}: {len(data):,} data rows, {columns} columns",), len(lines), len(lines), 4)
    )
    return plan
