"""sql: database client output: aligned result tables and query plans.

Result tables of psql (`col | col` over `----+----`), sqlite3 (`-column`, `-box`, `-table`),
mysql (`+----+` borders, `N rows in set`) and other clients that rule a header the same way:
the header and its rules, the first and last rows and the row count (`(N rows)`, or one the
reducer adds when the client printed none) are kept; the rows between go first.

Query plans (PostgreSQL `EXPLAIN [ANALYZE]`, sqlite `EXPLAIN QUERY PLAN`): the root node, the
planning and execution times and the costliest nodes are kept: each node ranks by its share of
the root's time (`actual time`, times its loops) or, without ANALYZE, of the root's cost, so the
expensive subtrees are kept from the top down, each node with its details (filters, rows
removed, sort spills) just below it.

Anything else in the output (notices, errors, `Time:` lines) is kept before the table rows.
Declines when tables and plans are not most of the output, and on ruled tables that show no
sign of a database (a row count footer, a plan, dpkg's `+++-===` rule, a statement in the
output, or a statement word or `sql` in the command).
"""

from __future__ import annotations

import re
from dataclasses import replace

from klipui.shrink.plan import Budget, Hint, Keep, Plan, Summary
from klipui.shrink.reducers._patterns import (
    FLOOR,
    HIGH,
    LOW,
    MID,
    TOP,
    Fitter,
    Lines,
    Mark,
    Marks,
    finish,
    line_regex,
    sample,
    table_outliers,
)
from klipui.shrink.salience import column_outliers

name = "sql"
describe = "table headers, first and last rows and counts; costly plan nodes and timings kept"
overflow = "both"

FIRST_ROWS = 3
LAST_ROWS = 2
SHORT_TABLE = 8
"""A table of at most this many rows shows its middle rows before a long table's."""
MIN_SHARE = 0.5
"""Share of the non-blank lines that tables and plans must cover."""

_RULE = line_regex(
    r"^(?:\s?-{2,}(?:(?:\+| +)-+)*\s?"
    r"|\+-+(?:\+-+)*\+"
    r"|[┌├└]─+(?:[┬┼┴]─+)*[┐┤┘]"
    r"|=+(?: +=+)+"
    r"|\+{1,3}-=+(?:[-+]=+)+)$"
)
"""A line ruling a header: psql `---+---`, sqlite -column `---  ---`, `+---+` borders (mysql,
sqlite -table), box drawing (sqlite -box), `=== ===`, dpkg's `+++-===-===`."""
_FOOTER = re.compile(r"^\s*(?:\(\d[\d,]* rows?\)|\d+ rows? in set\b|Empty set\b)")
_PLAN_NODE = re.compile(
    r"^\s*(?:->\s+)?\S.*?\(cost=[\d.]+\.\.(?P<cost>[\d.]+) rows=\d+ width=\d+\)"
    r"(?: \(actual (?:time=[\d.]+\.\.(?P<time>[\d.]+) )?rows=[\d.]+ loops=(?P<loops>\d+)\)"
    r"| \(never executed\))?"
)
_BAR = re.compile(r"\s*[|│]\s*")
_DATABASE = re.compile(
    rf"{_FOOTER.pattern}|{_PLAN_NODE.pattern}|\s*QUERY PLAN\s*$|\+\+\+-="
    r"|\s*(?:[|`]--)+(?:SCAN|SEARCH|USE TEMP B-TREE)\b"
)
_STATEMENT = re.compile(
    r"\b(?:SELECT|INSERT INTO|UPDATE|DELETE FROM|CREATE (?:TABLE|INDEX|VIEW)|EXPLAIN|PRAGMA)\b"
)
_STATEMENT_WORD = re.compile(r"\b(?:select|explain|insert|update|delete|create|pragma)\b|sql", re.I)
_TIMING = re.compile(r"^\s*(?:Planning|Execution|Total runtime|JIT|Timing|Trigger)\b")
_DETAIL_SIGNAL = re.compile(
    r"Rows Removed by|external|Disk:|Batches: [2-9]|Heap Blocks: lossy|Recheck"
)
_EQP = re.compile(
    r"^\s*(?:[|`]--|\s{3})*(?P<op>SCAN|SEARCH|USE TEMP B-TREE|CO-ROUTINE"
    r"|MATERIALIZE|CORRELATED|SCALAR SUBQUERY|COMPOUND|MULTI-INDEX|LIST SUBQUERY)\b"
)
_TROUBLE = re.compile(
    r"^\s*(?:ERROR|FATAL|PANIC|WARNING|HINT|DETAIL|LINE \d+|NOTICE|Error|ERROR \d+)\b"
)


def _is_rule(line: str) -> bool:
    return _RULE.match(line) is not None


def _fill(rule: str) -> str:
    """The character a rule is drawn with (`-`, `=`, `─`)."""
    core = rule.strip()
    return max("-=─", key=core.count)


def _columns(rule: str) -> list[int]:
    """Where each column of a rule starts (after the first): where a run of its fill character
    starts after a separator."""
    fill = _fill(rule)
    return [
        i + 1
        for i in range(1, len(rule) - 1)
        if rule[i] != fill and rule[i + 1] == fill and rule[:i].strip()
    ]


def _header_fits(header: str, rule: str) -> bool:
    """A header row above a rule: text over the rule, each column boundary at a space or bar."""
    if not header.strip() or _is_rule(header) or len(header.rstrip()) > len(rule) + 4:
        return False
    columns = _columns(rule)
    if not columns:
        # one column: only a header that names a plan, or a rule of the header's width
        return header.strip() == "QUERY PLAN" or len(header) == len(rule)
    return all(start - 1 >= len(header) or header[start - 1] in " |│" for start in columns)


def _row_fits(line: str, border: bool, bars: list[int], columns: list[int]) -> bool:
    """A row of the table: bars where the rule has them (psql), a space before each column
    (sqlite -column), a bar at the start (bordered tables); a shorter row may end early."""
    if border:
        return line.lstrip()[:1] in "|│"
    if bars:
        return all(k >= len(line) or line[k] in "|│" for k in bars)
    misses = sum(1 for k in columns if k - 1 < len(line) and line[k - 1] != " ")
    return misses == 0 or (misses == 1 and len(columns) >= 3)  # one overlong value


class _Table:
    __slots__ = ("count", "end", "footer", "header", "rows_end", "rows_start", "rules")

    def __init__(self, header: int, rules: list[int], rows_start: int) -> None:
        self.header = header
        self.rules = rules
        self.rows_start = rows_start
        self.rows_end = rows_start
        self.footer = -1
        self.end = rows_start
        self.count = 0


def _tables(lines: list[str], rule_lines: list[int]) -> list[_Table]:
    """Tables found at their header rules, each with its rows and footer."""
    n = len(lines)
    tables: list[_Table] = []
    used = -1
    for r in rule_lines:
        if r <= used:
            continue
        rule = lines[r]
        border = rule.lstrip().startswith(("+-", "┌"))
        if border:
            # a top border: header below it, a second rule below the header
            if r + 2 >= n or not _is_rule(lines[r + 2]):
                continue
            header, rules, start = r + 1, [r, r + 2], r + 3
        else:
            if r == 0 or not _header_fits(lines[r - 1], rule):
                continue
            header, rules, start = r - 1, [r], r + 1
        table = _Table(header, rules, start)
        fill = _fill(rule)
        bars = [
            k
            for k in range(1, len(rule) - 1)
            if rule[k] in "+┼┬" and rule[k - 1] == fill and rule[k + 1] == fill
        ]
        bars = bars if not border else []
        columns = _columns(rule) if not bars and not border else []
        i = start
        while i < n:
            line = lines[i]
            if not line.strip() or _FOOTER.match(line):
                break
            if _is_rule(line):
                if border:
                    rules.append(i)
                    i += 1
                break
            if not _row_fits(line, border, bars, columns):
                break
            i += 1
        table.rows_end = i if not (border and rules[-1] == i - 1) else i - 1
        table.end = i
        if i < n and _FOOTER.match(lines[i]):
            table.footer = i
            table.end = i + 1
        table.count = table.rows_end - table.rows_start
        tables.append(table)
        used = table.end - 1
    return tables


def detect(text: str, hint: Hint) -> bool:
    """Ruled tables or query plans make up most of the sampled lines."""
    lines = sample(text)
    filled = [i for i, line in enumerate(lines) if line.strip()]
    if len(filled) < 4:
        return False
    rules = [i for i in filled if _is_rule(lines[i])]
    covered = sum(t.end - t.header for t in _tables(lines, rules) if t.count >= 2)
    covered += sum(1 for i in filled if _PLAN_NODE.match(lines[i]))
    if _has_plan_header(lines):
        covered += sum(1 for i in filled if _EQP.match(lines[i])) + 1
    return covered >= MIN_SHARE * len(filled) and covered >= 3 and _from_a_database(lines, hint)


def _from_a_database(lines: list[str], hint: Hint) -> bool:
    """What only a database client prints: a row count footer, a query plan, dpkg's `+++-===`
    rule, a statement in the output; or a statement word or `sql` (`psql`, `sqlite3`, `mysql`) in
    the command. Other ruled tables (`pdffonts`, `unzip -l`, `cloc`, a server's status
    variables) are read by salience, whose column outliers find their odd row."""
    if any(_DATABASE.match(line) or _STATEMENT.search(line) for line in lines):
        return True
    return _STATEMENT_WORD.search(hint.command or "") is not None


def _has_plan_header(lines: list[str]) -> bool:
    return any(line.strip() == "QUERY PLAN" for line in lines[:50])


def reduce(text: str, hint: Hint, budget: Budget) -> Plan | None:
    """Headers, counts and timings first; then plan nodes by cost, then the ends of each table."""
    lines = Lines(text)
    n = len(lines)
    if n == 0:
        return None
    text_lines = lines.lines
    priority = Marks()
    mark = priority.mark
    tables = _tables(text_lines, lines.hits(_RULE))
    in_table = [False] * n
    counts: list[tuple[_Table, str]] = []
    for table in tables:
        for i in range(table.header, table.end):
            in_table[i] = True
        mark(table.header, TOP)
        for r in table.rules:
            mark(r, TOP - 1)
        if table.footer >= 0:
            mark(table.footer, TOP)
        elif table.count > FIRST_ROWS + LAST_ROWS:
            counts.append((table, f"[{table.count:,} rows]"))
        if text_lines[table.header].strip() == "QUERY PLAN":
            _mark_plan(text_lines, table.rows_start, table.rows_end, mark)
        else:
            _mark_rows(table, mark)
            _mark_outliers(text_lines, table, mark)
    plan_lines = 0
    if not tables:
        plan_lines = _mark_plan(text_lines, 0, n, mark)
    covered = sum(t.end - t.header for t in tables) + plan_lines
    filled = sum(1 for line in text_lines if line.strip())
    if not filled or covered < MIN_SHARE * filled:
        return None
    for i in range(n):
        if not in_table[i] and i not in priority and text_lines[i].strip():
            mark(i, HIGH if _TROUBLE.match(text_lines[i]) else LOW + 5)
    room = sum(len(label) + 1 for _, label in counts)
    if budget.max_chars:
        budget = replace(budget, max_chars=max(1, budget.max_chars - room))
    if budget.max_lines:
        budget = replace(budget, max_lines=max(1, budget.max_lines - len(counts)))
    fitter = Fitter(lines, budget)
    fitter.add_marks(priority)
    planned = finish(fitter.plan(), n)
    if planned is None:
        return None
    for table, label in counts:
        planned = _insert_count(planned, table.rows_end, label)
    return planned


def _insert_count(plan: Plan, at: int, label: str) -> Plan:
    """`plan` with a row count (standing for no line) placed just before line `at`."""
    out: Plan = []
    placed = False
    for piece in plan:
        if not placed and piece.start >= at:
            out.append(Summary((label,), at, at, TOP))
            placed = True
        elif not placed and isinstance(piece, Keep) and piece.start < at < piece.end:
            out.append(Keep(piece.start, at, piece.priority))
            out.append(Summary((label,), at, at, TOP))
            piece = Keep(at, piece.end, piece.priority)
            placed = True
        out.append(piece)
    if not placed:
        out.append(Summary((label,), at, at, TOP))
    return out


def _mark_rows(table: _Table, mark: Mark) -> None:
    """The first and last rows of a table; the rows between, in order, when there is room (a
    short table's with its first rows: each of its few rows is a finding)."""
    start, end = table.rows_start, table.rows_end
    middle = HIGH - FIRST_ROWS if end - start <= SHORT_TABLE else FLOOR
    for k, i in enumerate(range(start, end)):
        if k < FIRST_ROWS:
            mark(i, HIGH - k)
        elif end - i <= LAST_ROWS:
            mark(i, HIGH - FIRST_ROWS - (end - 1 - i))
        else:
            mark(i, middle)


def _mark_outliers(lines: list[str], table: _Table, mark: Mark) -> None:
    """Rows that stand out in a column (a rare status, the largest sizes) rank with the first
    rows: in a long table they are what a reader looks for."""
    start, end = table.rows_start, table.rows_end
    for k in column_outliers(lines[start:end]):
        mark(start + k, HIGH - FIRST_ROWS)
    rows = [k for k in range(start, end) if "|" in lines[k] or "│" in lines[k]]
    if len(rows) == end - start:
        # cells between bars (psql, mysql, sqlite -box): every column, not the leading ones
        cells = [_BAR.split(lines[k].strip().strip("|│").strip()) for k in rows]
        # a rare value or a far extreme says more than being the largest: above the first rows
        found = table_outliers([[c.strip() for c in row] for row in cells])
        for k, rare in found.items():
            mark(rows[k], HIGH - 1 if rare else HIGH - 2)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _shares(lines: list[str], nodes: list[tuple[int, float, int]]) -> list[float]:
    """Each node's importance in [0, 1]: its share of the root's time (or cost), halved for a
    node whose time is all its children's and less so the more of it is its own, or twice its
    own time's share (time not spent in its children) when that is more.

    A node's time is its time a loop times its loops, except under a Gather, where the loops
    are parallel workers sharing the time; no node counts more than its parent."""
    depth = [_indent(lines[i].replace("->", "  ", 1)) for i, _, _ in nodes]
    total = [weight for _, weight, _ in nodes]
    parents: list[int] = [-1] * len(nodes)
    gathered = [False] * len(nodes)
    stack: list[int] = []
    for k, (_i, weight, loops) in enumerate(nodes):
        while stack and depth[stack[-1]] >= depth[k]:
            stack.pop()
        if stack:
            parent = stack[-1]
            parents[k] = parent
            gathered[k] = gathered[parent] or "Gather" in lines[nodes[parent][0]]
            total[k] = min(weight * (1 if gathered[k] else loops), total[parent])
        stack.append(k)
    inner = [0.0] * len(nodes)
    for k, parent in enumerate(parents):
        if parent >= 0:
            inner[parent] += total[k]
    root = max(total[0], 1e-9)
    shares: list[float] = []
    for k in range(len(nodes)):
        own = max(0.0, total[k] - inner[k])
        # a node that only passes its children's rows on (its time all theirs) counts half
        passing = total[k] * (0.5 + 0.5 * own / total[k]) if total[k] > 0 else 0.0
        shares.append(min(1.0, max(passing, 2 * own) / root))
    return shares


MAX_LOOP_DIGITS = 12


def _loops(digits: str | None) -> int:
    """A node's loops, at most 12 digits of them (a 400-digit count overflows a float)."""
    return int(digits.lstrip("0")[:MAX_LOOP_DIGITS] or 0) if digits else 1


_ACTUAL_ROWS = re.compile(r"\(actual (?:time=\S+ )?rows=(\d+) loops=(\d+)\)")
_REMOVED = re.compile(r"^\s*Rows Removed by (?:Filter|Join Filter|Index Recheck): (\d+)")


def _wasted(lines: list[str], node: int, stop: int) -> tuple[float, int]:
    """The share of the rows a node read that its filter threw away (`Rows Removed by Filter`
    against the rows it returned; 0 when it kept more than it threw away), and how many rows
    that is: the node that throws away most is where an index is missing, however little time
    it took, and ranks by that share too. Counts are read from at most 12 digits."""
    m = _ACTUAL_ROWS.search(lines[node])
    if m is None:
        return 0.0, 0
    loops = _loops(m.group(2))
    kept = _loops(m.group(1)) * loops
    removed = 0
    for j in range(node + 1, min(stop, node + 12)):
        r = _REMOVED.match(lines[j])
        if r is not None:
            removed += _loops(r.group(1)) * loops
    return (removed / (removed + kept), removed) if removed > kept else (0.0, 0)


def _mark_plan(lines: list[str], start: int, end: int, mark: Mark) -> int:
    """Plan nodes by their share of the root's time (or cost), details under their node,
    timings at the top. Returns how many lines are plan lines."""
    nodes: list[tuple[int, float, int]] = []
    for i in range(start, end):
        m = _PLAN_NODE.match(lines[i])
        if m is None:
            continue
        if m.group("time") is not None:
            nodes.append((i, float(m.group("time")), _loops(m.group("loops"))))
        elif m.group(0).endswith("(never executed)"):
            nodes.append((i, 0.0, 1))
        else:
            nodes.append((i, float(m.group("cost")), 1))
    if not nodes:
        plan_lines = _mark_keyed_plan(lines, start, end, mark)
    else:
        shares = _shares(lines, nodes)
        firsts = [node[0] for node in nodes]
        stops = [*firsts[1:], end]
        wasted = [_wasted(lines, i, stop) for i, stop in zip(firsts, stops, strict=True)]
        worst = max(range(len(nodes)), key=lambda k: (wasted[k][1], -k))
        shares[worst] = max(shares[worst], wasted[worst][0])
        for k, i in enumerate(firsts):
            stop = stops[k]
            p = TOP - 2 if k == 0 else LOW + round(shares[k] * (HIGH - LOW - 2))
            mark(i, p)
            indent = _indent(lines[i])
            for j in range(i + 1, stop):
                line = lines[j]
                if _TIMING.match(line) or (line.strip() and _indent(line) <= indent):
                    break
                signal = _DETAIL_SIGNAL.search(line) is not None
                mark(j, max(FLOOR, p - 1) if signal else max(FLOOR, min(p - 3, MID)))
        plan_lines = end - nodes[0][0]
    for i in range(start, end):
        line = lines[i]
        if _TIMING.match(line):
            mark(i, TOP - 1 if "Time" in line or "runtime" in line else MID)
            plan_lines += 0 if nodes else 1
        elif not nodes and (m := _EQP.match(line)):
            op = m.group("op")
            mark(i, HIGH if op in ("SCAN", "USE TEMP B-TREE") else MID)
            plan_lines += 1
    return plan_lines


_KEYED_NODE = re.compile(r'^\s*(?:- )?"?Node Type"?: ')
_KEYED = re.compile(r'^\s*(?:- )?"?(?P<key>[A-Z][A-Za-z ]*)"?: (?P<value>.*?),?\s*\+?$')
_KEYED_NUMBER = re.compile(r"^-?\d+(?:\.\d+)?$")
_KEYED_EXPRESSION = re.compile(r"[\s(=<>]")
"""A value that is an expression (a filter, a condition), not a name, flag or count."""
_NODE_TYPE = "Node Type"
MISESTIMATE = 1.5
"""A node whose actual rows differ from the planned rows by this factor or more is misestimated."""


def _keyed_values(lines: list[str], start: int, end: int) -> dict[str, tuple[int, str]]:
    """The `key: value` lines of one node of a plan printed as YAML or JSON: key → (line,
    value), the first of each key."""
    found: dict[str, tuple[int, str]] = {}
    for j in range(start, end):
        m = _KEYED.match(lines[j])
        if m is not None:
            found.setdefault(m.group("key"), (j, m.group("value").strip('"')))
    return found


def _number(values: dict[str, tuple[int, str]], key: str, default: float) -> float:
    value = values.get(key, (0, ""))[1]
    return float(value[:MAX_LOOP_DIGITS]) if _KEYED_NUMBER.match(value) else default


def _mark_keyed_plan(lines: list[str], start: int, end: int, mark: Mark) -> int:
    """A plan printed as keys and values (`EXPLAIN (FORMAT YAML)` or JSON): each node (its
    `Node Type` line to the next one) ranks by its share of the root's time, as a text plan's
    node does, with its named details (filter, sort method) under it and its trouble (rows
    removed, a sort on disk) just below it; the node whose row estimate is furthest off shows
    both counts. Returns how many lines are plan lines (0 when it holds no node)."""
    firsts = [i for i in range(start, end) if _KEYED_NODE.match(lines[i])]
    if not firsts:
        return 0
    stops = [*firsts[1:], end]
    values = [_keyed_values(lines, i, stop) for i, stop in zip(firsts, stops, strict=True)]
    nodes = [
        (
            i,
            _number(v, "Actual Total Time", _number(v, "Total Cost", 0.0)),
            int(_number(v, "Actual Loops", 1.0)),
        )
        for i, v in zip(firsts, values, strict=True)
    ]
    shares = _shares(lines, nodes)
    for k, v in enumerate(values):
        loops = max(1, nodes[k][2])
        kept = _number(v, "Actual Rows", 0.0) * loops
        removed = sum(
            _number(v, key, 0.0) * loops for key in v if key.startswith("Rows Removed by")
        )
        if removed > kept:
            shares[k] = max(shares[k], removed / (removed + kept))
    worst, worst_ratio = -1, MISESTIMATE
    for k, v in enumerate(values):
        planned, actual = _number(v, "Plan Rows", 0.0), _number(v, "Actual Rows", 0.0)
        if planned > 0 and actual > 0:
            ratio = max(planned, actual) / min(planned, actual)
            if ratio >= worst_ratio:
                worst, worst_ratio = k, ratio
    for k, (i, v) in enumerate(zip(firsts, values, strict=True)):
        p = TOP - 2 if k == 0 else LOW + round(shares[k] * (HIGH - LOW - 2))
        mark(i, p)
        for key, (j, value) in v.items():
            if _DETAIL_SIGNAL.search(lines[j]):
                mark(j, max(FLOOR, p - 1))
            elif key != _NODE_TYPE and _KEYED_EXPRESSION.search(value):
                mark(j, max(FLOOR, min(p - 3, MID)))
        if k == worst:
            for key in ("Plan Rows", "Actual Rows"):
                if key in v:
                    mark(v[key][0], max(FLOOR, p - 2))
    return end - firsts[0]
