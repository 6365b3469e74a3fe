"""Procedural tool outputs for the demo sessions: plausible, deterministic, and big.

Every function takes a seeded `random.Random` and returns the text a command would have
printed in a fictional project, "ledgerline" (a small double-entry bookkeeping service): a
verbose pytest run with failures among hundreds of passes, a cargo build with warnings and
errors, a git diff, an application log, a JSON status document, a recursive directory listing.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta

PROJECT = "ledgerline"
CWD = "/home/dev/ledgerline"
MODULES = (
    "accounts",
    "ledger",
    "posting",
    "currency",
    "reports",
    "importer",
    "reconcile",
    "budget",
    "export",
    "auth",
    "audit",
    "rates",
)
VERBS = (
    "create",
    "post",
    "reverse",
    "close",
    "reopen",
    "convert",
    "merge",
    "split",
    "import",
    "render",
)
NOUNS = (
    "entry",
    "account",
    "journal",
    "balance",
    "period",
    "invoice",
    "rate",
    "report",
    "batch",
    "rule",
)
QUALIFIERS = (
    "basic",
    "empty",
    "negative",
    "rounding",
    "unicode",
    "large",
    "duplicate",
    "locked",
    "future",
    "legacy",
)


def _name(rng: random.Random) -> str:
    return f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}_{rng.choice(QUALIFIERS)}"


def pytest_run(rng: random.Random, tests: int = 560, failures: int = 5) -> tuple[str, int]:
    """`python -m pytest -v`: (output, exit code 1)."""
    files = [f"tests/test_{m}.py" for m in MODULES]
    cases: list[tuple[str, str]] = []
    for index in range(tests):
        path = files[index * len(files) // tests]
        case = _name(rng)
        if rng.random() < 0.25:
            case += f"[{rng.choice(['EUR', 'USD', 'JPY', 'CHF', 'GBP'])}-{rng.randrange(1, 100)}]"
        cases.append((path, f"test_{case}"))
    failed = set(rng.sample(range(tests), failures))
    skipped = set(rng.sample([i for i in range(tests) if i not in failed], 9))
    lines = [
        "=" * 29 + " test session starts " + "=" * 30,
        f"platform linux -- Python 3.11.9, pytest-8.2.2, pluggy-1.5.0 -- {CWD}/.venv/bin/python",
        "cachedir: .pytest_cache",
        f"rootdir: {CWD}",
        "configfile: pyproject.toml",
        "plugins: hypothesis-6.103.1, xdist-3.6.1, cov-5.0.0",
        f"collecting ... collected {tests} items",
        "",
    ]
    for index, (path, case) in enumerate(cases):
        status = (
            "FAILED"
            if index in failed
            else "SKIPPED (needs network)"
            if index in skipped
            else "PASSED"
        )
        percent = (index + 1) * 100 // tests
        lines.append(f"{path}::{case} {status} {'':<4}[{percent:3d}%]")
    lines += ["", "=" * 35 + " FAILURES " + "=" * 35]
    for index in sorted(failed):
        path, case = cases[index]
        module = path.removeprefix("tests/test_").removesuffix(".py")
        expected = rng.randrange(1000, 99999) / 100
        got = round(expected + rng.choice([-0.01, 0.01, 0.1, -1.0]), 2)
        entries, batch = rng.randrange(2, 40), rng.randrange(10**5)
        lines += [
            f"{'_' * 20} {case} {'_' * 20}",
            "",
            f"    def {case.split('[')[0]}(ledger_factory):",
            f'        ledger = ledger_factory(currency="{rng.choice(["EUR", "USD", "CHF"])}")',
            f"        batch = ledger.{rng.choice(VERBS)}({entries}, rounding=ROUND_HALF_EVEN)",
            f'>       assert batch.total == Decimal("{expected}")',
            f"E       AssertionError: assert Decimal('{got}') == Decimal('{expected}')",
            f"E        +  where Decimal('{got}') = <Batch id={batch} entries={entries}>.total",
            "",
            f"{path}:{rng.randrange(20, 400)}: AssertionError",
            "----------------------------- Captured log call ------------------------------",
            f"WARNING  ledgerline.{module}:{module}.py:{rng.randrange(10, 300)} "
            f"rounding drift of {abs(got - expected):.2f} in batch",
        ]
    lines += ["", "=" * 29 + " short test summary info " + "=" * 26]
    for index in sorted(failed):
        path, case = cases[index]
        lines.append(f"FAILED {path}::{case} - AssertionError: assert Decimal(...) == Decimal(...)")
    passed = tests - failures - len(skipped)
    seconds = rng.randrange(2000, 6000) / 100
    lines.append(
        f"{'=' * 14} {failures} failed, {passed} passed, {len(skipped)} skipped "
        f"in {seconds:.2f}s {'=' * 14}"
    )
    return "\n".join(lines) + "\n", 1


CRATES = (
    "proc-macro2",
    "unicode-ident",
    "quote",
    "syn",
    "serde",
    "serde_derive",
    "serde_json",
    "itoa",
    "ryu",
    "memchr",
    "libc",
    "cfg-if",
    "once_cell",
    "bytes",
    "pin-project-lite",
    "tokio",
    "mio",
    "socket2",
    "tracing",
    "tracing-core",
    "log",
    "smallvec",
    "parking_lot",
    "lock_api",
    "scopeguard",
    "hashbrown",
    "indexmap",
    "equivalent",
    "rust_decimal",
    "arrayvec",
    "chrono",
    "num-traits",
    "autocfg",
    "time",
    "uuid",
    "getrandom",
    "rand",
    "rand_core",
    "ppv-lite86",
    "regex",
    "aho-corasick",
    "regex-syntax",
    "thiserror",
    "anyhow",
    "clap",
    "clap_lex",
    "strsim",
    "heck",
    "axum",
    "hyper",
    "http",
    "httparse",
    "tower",
    "tower-service",
    "sqlx",
    "sqlx-core",
    "futures",
    "futures-core",
)


def cargo_build(rng: random.Random, warnings: int = 40, errors: int = 3) -> tuple[str, int]:
    """`cargo build --release`: (output, exit code 101)."""
    lines = []
    for crate in CRATES:
        lines.append(
            f"   Compiling {crate} v{rng.randrange(2)}.{rng.randrange(40)}.{rng.randrange(30)}"
        )
    lines.append(f"   Compiling {PROJECT} v0.7.3 ({CWD})")
    kinds = [
        (
            "unused variable: `{v}`",
            "help: if this is intentional, prefix it with an underscore: `_{v}`",
        ),
        ("unused import: `{t}`", "= note: `#[warn(unused_imports)]` on by default"),
        ("variable does not need to be mutable", "help: remove this `mut`"),
        ("field `{v}` is never read", "= note: `#[warn(dead_code)]` on by default"),
    ]
    types = ("Decimal", "Posting", "AccountId", "Currency", "Journal", "HashMap", "Arc", "Mutex")
    variables = ("amount", "rate", "period", "entry", "cursor", "total", "scale", "posting")
    for _ in range(warnings):
        message, help_text = rng.choice(kinds)
        v, t = rng.choice(variables), rng.choice(types)
        module = rng.choice(MODULES)
        line = rng.randrange(10, 600)
        column = rng.randrange(5, 30)
        lines += [
            "warning: " + message.format(v=v, t=t),
            f"  --> src/{module}/mod.rs:{line}:{column}",
            "   |",
            f"{line:<3}|     let mut {v} = {t}::default();",
            f"   |{' ' * column}{'^' * len(v)}",
            "   |",
            "   = " + help_text.format(v=v, t=t).removeprefix("= "),
            "",
        ]
    for _ in range(errors):
        module = rng.choice(MODULES)
        line = rng.randrange(10, 600)
        expected, found = rng.sample(types, 2)
        lines += [
            "error[E0308]: mismatched types",
            f"  --> src/{module}/mod.rs:{line}:24",
            "   |",
            f"{line:<3}|         let value: {expected} = self.lookup(id)?;",
            f"   |                    {'-' * len(expected)}   ^^^^^^^^^^^^^^^^^ "
            f"expected `{expected}`, found `{found}`",
            "   |                    |",
            "   |                    expected due to this",
            "",
        ]
    lines += [
        "Some errors have detailed explanations: E0308.",
        "For more information about an error, try `rustc --explain E0308`.",
        f"warning: `{PROJECT}` (lib) generated {warnings} warnings",
        f"error: could not compile `{PROJECT}` (lib) due to {errors} previous errors; "
        f"{warnings} warnings emitted",
    ]
    return "\n".join(lines) + "\n", 101


def _code_line(rng: random.Random) -> str:
    indent = "    " * rng.randrange(0, 3)
    v, n = rng.choice(("amount", "entry", "total", "rate", "period")), rng.choice(NOUNS)
    shapes = (
        f"{indent}let {v} = self.{n}s.get(&id).ok_or(Error::Missing{n.title()})?;",
        f"{indent}{v}.round_dp_with_strategy(2, RoundingStrategy::MidpointNearestEven)",
        f"{indent}if {v}.is_zero() {{ return Ok(None); }}",
        f'{indent}tracing::debug!(%id, ?{v}, "{rng.choice(VERBS)} {n}");',
        f"{indent}for {n} in batch.{n}s.iter().filter(|p| !p.is_void()) {{",
        f"{indent}}}",
        f"{indent}// {rng.choice(VERBS)} the {n} before the period closes",
    )
    return rng.choice(shapes)


def git_diff(rng: random.Random, files: int = 14) -> tuple[str, int]:
    """`git diff`: (output, exit code 0)."""
    lines = []
    for module in rng.sample(MODULES, min(files, len(MODULES))):
        path = f"src/{module}/mod.rs"
        lines += [
            f"diff --git a/{path} b/{path}",
            f"index {rng.getrandbits(28):07x}..{rng.getrandbits(28):07x} 100644",
            f"--- a/{path}",
            f"+++ b/{path}",
        ]
        start = rng.randrange(1, 80)
        for _ in range(rng.randrange(3, 7)):
            context = [_code_line(rng) for _ in range(3)]
            removed = [_code_line(rng) for _ in range(rng.randrange(0, 6))]
            added = [_code_line(rng) for _ in range(rng.randrange(1, 9))]
            tail = [_code_line(rng) for _ in range(3)]
            old_len, new_len = 6 + len(removed), 6 + len(added)
            lines.append(
                f"@@ -{start},{old_len} +{start},{new_len} @@ "
                f"impl {rng.choice(NOUNS).title()}Store {{"
            )
            lines += [f" {c}" for c in context] + [f"-{r}" for r in removed]
            lines += [f"+{a}" for a in added] + [f" {c}" for c in tail]
            start += rng.randrange(30, 90)
    return "\n".join(lines) + "\n", 0


def app_log(rng: random.Random, count: int = 800) -> tuple[str, int]:
    """`tail -n N logs/app.log`: (output, exit code 0); a crash near the end."""
    moment = datetime(2026, 3, 1, 22, 0, 0, tzinfo=UTC)
    routes = (
        "/api/accounts",
        "/api/journal",
        "/api/reports/monthly",
        "/api/rates",
        "/healthz",
        "/api/import",
    )
    lines = []
    crash_at = count - rng.randrange(20, 60)
    for index in range(count):
        moment += timedelta(milliseconds=rng.randrange(5, 4000))
        stamp = moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
        request = f"req_{rng.getrandbits(40):010x}"
        if index == crash_at:
            lines += [
                f"{stamp} ERROR [worker-3] unhandled error in reconcile job {request}",
                "Traceback (most recent call last):",
                '  File "/srv/ledgerline/ledgerline/jobs/reconcile.py", line 214, in run',
                "    matched = self.match(batch, window=self.window)",
                '  File "/srv/ledgerline/ledgerline/jobs/reconcile.py", line 167, in match',
                "    candidates = self.index[entry.account_id]",
                f"KeyError: 'acct_{rng.getrandbits(24):06x}'",
                f"{stamp} CRITICAL [main] worker-3 exited with code 1; restarting (attempt 1/5)",
            ]
            continue
        roll = rng.random()
        if roll < 0.8:
            route = rng.choice(routes)
            status = rng.choices([200, 201, 204, 400, 404, 500], [70, 8, 6, 6, 6, 1])[0]
            level = "INFO " if status < 400 else "WARN " if status < 500 else "ERROR"
            method = (
                "GET" if route in ("/healthz", "/api/rates") else rng.choice(["GET", "POST", "PUT"])
            )
            lines.append(
                f"{stamp} {level} [http] {method} {route} {status} "
                f"{rng.randrange(1, 900)}ms req_id={request}"
            )
        elif roll < 0.93:
            lines.append(
                f"{stamp} DEBUG [db] pool checkout waited {rng.randrange(50)}ms "
                f"(size=20 busy={rng.randrange(21)})"
            )
        else:
            lines.append(
                f"{stamp} WARN  [rates] provider slow: "
                f"{rng.choice(['ecb', 'fixer', 'oanda'])} took {rng.randrange(1000, 9000)}ms"
            )
    return "\n".join(lines) + "\n", 0


def json_status(rng: random.Random, accounts: int = 120) -> tuple[str, int]:
    """`curl -s localhost:8080/api/status | jq .`: (output, exit code 0)."""
    document = {
        "service": PROJECT,
        "version": "0.7.3",
        "uptime_seconds": rng.randrange(10_000, 900_000),
        "workers": [
            {
                "id": f"worker-{n}",
                "state": rng.choice(["idle", "busy", "restarting"]),
                "jobs": rng.randrange(0, 500),
            }
            for n in range(8)
        ],
        "accounts": [
            {
                "id": f"acct_{rng.getrandbits(24):06x}",
                "name": f"{rng.choice(NOUNS).title()} {rng.choice(QUALIFIERS)} {n}",
                "currency": rng.choice(["EUR", "USD", "CHF", "GBP", "JPY"]),
                "balance": f"{rng.randrange(-(10**7), 10**8) / 100:.2f}",
                "open": rng.random() < 0.9,
                "tags": rng.sample(
                    ["ops", "payroll", "tax", "vendor", "client", "fx"], rng.randrange(0, 4)
                ),
                "last_posting": f"2026-02-{rng.randrange(1, 29):02d}T{_clock(rng)}:00Z",
            }
            for n in range(accounts)
        ],
        "metrics": {
            route: {
                "p50_ms": rng.randrange(2, 40),
                "p99_ms": rng.randrange(50, 2000),
                "count": rng.randrange(10**5),
            }
            for route in ("accounts", "journal", "reports", "rates", "import")
        },
    }
    return json.dumps(document, indent=2) + "\n", 0


def _day(rng: random.Random) -> str:
    return f"{rng.choice(('Jan', 'Feb', 'Mar'))} {rng.randrange(1, 28):2d}"


def _clock(rng: random.Random) -> str:
    return f"{rng.randrange(24):02d}:{rng.randrange(60):02d}"


def dir_listing(rng: random.Random, folders: int = 18) -> tuple[str, int]:
    """`ls -laR data`: (output, exit code 0)."""
    lines: list[str] = []
    for index in range(folders):
        folder = (
            "data"
            if index == 0
            else f"data/{rng.choice(MODULES)}/{2024 + index % 3}-{index % 12 + 1:02d}"
        )
        entries = rng.randrange(15, 45)
        lines += [f"{folder}:", f"total {rng.randrange(100, 90000)}"]
        lines.append(
            f"drwxr-xr-x  {rng.randrange(2, 9)} dev dev     4096 {_day(rng)} {_clock(rng)} ."
        )
        lines.append(
            f"drwxr-xr-x {rng.randrange(2, 20):2d} dev dev     4096 {_day(rng)} {_clock(rng)} .."
        )
        for _ in range(entries):
            kind = rng.choice(["csv", "csv", "json", "parquet", "log", "gz"])
            date = (
                f"{rng.randrange(2019, 2027)}{rng.randrange(1, 13):02d}{rng.randrange(1, 29):02d}"
            )
            name = f"{rng.choice(NOUNS)}s_{date}.{kind}"
            size = rng.randrange(200, 90_000_000)
            lines.append(f"-rw-r--r--  1 dev dev {size:>10} {_day(rng)} {_clock(rng)} {name}")
        lines.append("")
    return "\n".join(lines), 0


def source_file(rng: random.Random, lines: int = 160) -> tuple[str, int]:
    """`cat src/ledger/mod.rs` with line numbers, as a Read tool shows it: (output, 0)."""
    body = [f"{n:6d}\t{_code_line(rng)}" for n in range(1, lines + 1)]
    return "\n".join(body) + "\n", 0
