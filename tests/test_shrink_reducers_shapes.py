"""The shape reducers (tests, build, lint, stacktrace, gitlog, install, log) on real and hand-built
outputs: each is detected for its own shape, rejects the others, and keeps what matters within
the budget through the real pipeline."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from types import ModuleType

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from klipui.shrink import Budget, Hint, shrink
from klipui.shrink.plan import Keep, Summary
from klipui.shrink.text import split_lines
from tests.conftest import design_cases, fitted_strategy

KINDS = ("tests", "build", "lint", "stacktrace", "gitlog", "install", "log")
REDUCERS: dict[str, ModuleType] = {
    kind: importlib.import_module(f"klipui.shrink.reducers.{kind}") for kind in KINDS
}


def _case(path: Path) -> tuple[str, dict]:
    return path.joinpath("output.txt").read_text(encoding="utf-8"), json.loads(
        path.joinpath("meta.json").read_text(encoding="utf-8")
    )


CASES = [(p, *_case(p)) for p in design_cases()]
OWN = [c for c in CASES if c[2]["kind"] in KINDS]


def _hint(meta: dict) -> Hint:
    return Hint(tool=meta["tool"], command=meta["command"])


# ---------------------------------------------------------------------------------------------
# Real outputs from the corpus


@pytest.mark.parametrize(("path", "text", "meta"), OWN, ids=[c[0].name for c in OWN])
def test_corpus_case_is_detected_and_keeps_what_matters(path: Path, text: str, meta: dict) -> None:
    kind = meta["kind"]
    assert REDUCERS[kind].detect(text, _hint(meta))
    budget = Budget(max_chars=meta["budget_chars"])
    out = shrink(text, _hint(meta), budget, only=[kind])
    assert out.strategy == fitted_strategy(kind)
    assert len(out.content) <= budget.max_chars
    missing = [s for s in meta["must_keep"] if s not in out.content]
    assert not missing


@pytest.mark.parametrize(("path", "text", "meta"), OWN, ids=[c[0].name for c in OWN])
def test_full_chain_routes_case_to_its_reducer(path: Path, text: str, meta: dict) -> None:
    out = shrink(text, _hint(meta), Budget(max_chars=meta["budget_chars"]))
    # `<kind>+salience`: the reducer's plan was challenged and its top pieces kept (pipeline)
    assert out.strategy in (fitted_strategy(meta["kind"]), f"{meta['kind']}+salience")


@pytest.mark.parametrize(("path", "text", "meta"), OWN, ids=[c[0].name for c in OWN])
def test_corpus_case_detected_without_a_command(path: Path, text: str, meta: dict) -> None:
    assert REDUCERS[meta["kind"]].detect(text, Hint(tool=meta["tool"]))


@pytest.mark.parametrize("kind", KINDS)
def test_detector_rejects_other_shapes(kind: str) -> None:
    module = REDUCERS[kind]
    wrongly = [
        path.name
        for path, text, meta in CASES
        if meta["kind"] != kind and module.detect(text, _hint(meta))
    ]
    assert wrongly == []


@pytest.mark.parametrize(("path", "text", "meta"), OWN, ids=[c[0].name for c in OWN])
def test_plan_is_ordered_and_in_range(path: Path, text: str, meta: dict) -> None:
    plan = REDUCERS[meta["kind"]].reduce(text, _hint(meta), Budget(max_chars=meta["budget_chars"]))
    assert plan
    n = len(text.splitlines())
    last = 0
    for piece in plan:
        assert isinstance(piece, Keep | Summary)
        assert last <= piece.start <= piece.end <= n
        last = piece.end


def _kept_lines(plan: list | None) -> set[int]:
    return {i for p in plan or [] if isinstance(p, Keep) for i in range(p.start, p.end)}


@pytest.mark.parametrize(("path", "text", "meta"), OWN, ids=[c[0].name for c in OWN])
def test_crlf_input_keeps_the_same_lines(path: Path, text: str, meta: dict) -> None:
    """CRLF input: the same lines are found (without a budget, where costs do not differ) and
    what matters is still kept within the budget (where each `\\r` counts)."""
    unlimited = Budget(max_chars=0, max_lines=0)
    reducer = REDUCERS[meta["kind"]]
    lf = reducer.reduce(text, _hint(meta), unlimited)
    crlf = reducer.reduce(text.replace("\n", "\r\n"), _hint(meta), unlimited)
    differ = sorted(_kept_lines(lf) ^ _kept_lines(crlf))
    # Only the filling of small gaps (shown rather than a marker when cheaper) may differ.
    runs: list[list[int]] = []
    for i in differ:
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    assert all(len(run) <= 3 for run in runs)
    budget = Budget(max_chars=meta["budget_chars"])
    out = shrink(text.replace("\n", "\r\n"), _hint(meta), budget, only=[meta["kind"]])
    assert len(out.content) <= budget.max_chars
    assert "\r" not in out.content.replace("\r\n", "")
    assert all(s in out.content for s in meta["must_keep"])


@pytest.mark.parametrize("kind", KINDS)
def test_reduce_survives_every_corpus_text(kind: str) -> None:
    """Any reducer may be forced on any text (`only=[...]`): a plan or None, never a crash."""
    for _path, text, meta in CASES:
        budget = Budget(max_chars=meta["budget_chars"])
        out = shrink(text, _hint(meta), budget, only=[kind])
        assert len(out.content) <= budget.max_chars


def test_large_input_keeps_failures_from_the_middle_and_the_end() -> None:
    """Failures far past the first 400 lines (where the reference stops looking) are kept."""
    rows = ["=== RUN   TestWarmup", "--- PASS: TestWarmup (0.00s)"]
    for k in range(6_000):
        rows += [f"=== RUN   TestCase{k:04d}", f"--- PASS: TestCase{k:04d} (0.00s)"]
        if k in (2_500, 5_990):
            rows[-1:] = [
                f"    store_test.go:{100 + k % 7}: lookup({k}) = nil, want record {k}",
                f"--- FAIL: TestCase{k:04d} (0.01s)",
            ]
    rows += ["FAIL", "FAIL\texample.com/store\t0.412s", "FAIL"]
    text = "\n".join(rows) + "\n"
    out = shrink(text, Hint(tool="bash", command="go test -v ./..."), Budget(max_chars=1_500))
    assert out.strategy == "tests"
    for k in (2_500, 5_990):
        assert f"--- FAIL: TestCase{k:04d}" in out.content
        assert f"lookup({k}) = nil, want record {k}" in out.content
    assert "FAIL\texample.com/store\t0.412s" in out.content
    assert len(out.content) <= 1_500


# ---------------------------------------------------------------------------------------------
# Hand-built outputs for formats without a corpus case


def _keeps(kind: str, text: str, hint: Hint, max_chars: int, must: list[str]) -> str:
    assert len(text) > max_chars, "the sample must be over budget to test anything"
    assert REDUCERS[kind].detect(text, hint)
    out = shrink(text, hint, Budget(max_chars=max_chars), only=[kind])
    assert out.strategy == fitted_strategy(kind)
    assert len(out.content) <= max_chars
    missing = [s for s in must if s not in out.content]
    assert not missing, out.content
    return out.content


def test_jest_bullet_blocks() -> None:
    passing = [f"    ✓ formats amount #{k} ({k % 7 + 1} ms)" for k in range(300)]
    text = "\n".join(
        [
            " PASS  src/utils/format.test.ts",
            "  format",
            *passing,
            " FAIL  src/cart/total.test.ts",
            "  cart total",
            "    ✓ sums line items (2 ms)",
            "    ✕ applies percentage discount before tax (4 ms)",
            "",
            "  ● cart total › applies percentage discount before tax",
            "",
            "    expect(received).toBe(expected) // Object.is equality",
            "",
            "    Expected: 90",
            "    Received: 99",
            "",
            "      12 |   it('applies percentage discount before tax', () => {",
            "      13 |     const cart = makeCart([{ price: 100, qty: 1 }]);",
            "    > 14 |     expect(total(cart, { discount: 0.1, tax: 0 })).toBe(90);",
            "         |                                                   ^",
            "      15 |   });",
            "",
            "      at Object.<anonymous> (src/cart/total.test.ts:14:51)",
            "",
            "Test Suites: 1 failed, 41 passed, 42 total",
            "Tests:       1 failed, 301 passed, 302 total",
            "Snapshots:   0 total",
            "Time:        6.213 s",
            "Ran all test suites.",
        ]
    )
    _keeps(
        "tests",
        text,
        Hint(tool="bash", command="npx jest"),
        1_200,
        [
            "● cart total › applies percentage discount before tax",
            "Expected: 90",
            "Received: 99",
            "src/cart/total.test.ts:14:51",
            "Tests:       1 failed, 301 passed, 302 total",
        ],
    )


def test_vitest_failed_test_block() -> None:
    files = [f" ✓ src/module{k:02d}.test.ts ({k + 3} tests) {k * 3 % 40 + 2}ms" for k in range(120)]
    text = "\n".join(
        [
            *files,
            " ❯ src/cart.test.ts (12 tests | 1 failed) 18ms",
            "   × cart > applies discount 5ms",
            "     → expected 99 to be 90 // Object.is equality",
            "",
            "⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯",
            "",
            " FAIL  src/cart.test.ts > cart > applies discount",
            "AssertionError: expected 99 to be 90 // Object.is equality",
            "",
            "- Expected",
            "+ Received",
            "",
            "- 90",
            "+ 99",
            "",
            " ❯ src/cart.test.ts:14:51",
            "     12|   it('applies discount', () => {",
            "     14|     expect(total(cart, { discount: 0.1 })).toBe(90);",
            "       |                                                   ^",
            "",
            " Test Files  1 failed | 120 passed (121)",
            "      Tests  1 failed | 519 passed (520)",
            "   Start at  10:14:03",
            "   Duration  2.31s",
        ]
    )
    _keeps(
        "tests",
        text,
        Hint(tool="bash", command="npx vitest run"),
        1_000,
        [
            "FAIL  src/cart.test.ts > cart > applies discount",
            "AssertionError: expected 99 to be 90",
            "Tests  1 failed | 519 passed (520)",
        ],
    )


def test_go_test_failures_and_package_lines() -> None:
    rows: list[str] = []
    for k in range(150):
        rows += [f"=== RUN   TestParse{k:03d}", f"--- PASS: TestParse{k:03d} (0.00s)"]
    rows += [
        "=== RUN   TestRetryBackoff",
        "    retry_test.go:42: backoff after 3 attempts = 800ms, want 400ms",
        "    retry_test.go:43: jitter not applied",
        "--- FAIL: TestRetryBackoff (0.00s)",
        "FAIL",
        "FAIL\texample.com/netkit/retry\t0.015s",
        "ok  \texample.com/netkit/dns\t0.004s",
        "FAIL",
    ]
    _keeps(
        "tests",
        "\n".join(rows),
        Hint(tool="bash", command="go test -v ./..."),
        800,
        [
            "--- FAIL: TestRetryBackoff (0.00s)",
            "retry_test.go:42: backoff after 3 attempts = 800ms, want 400ms",
            "FAIL\texample.com/netkit/retry\t0.015s",
        ],
    )


def test_node_test_runner_tap_yaml_block() -> None:
    rows = ["TAP version 13"]
    for k in range(1, 200):
        rows += [
            f"# Subtest: parses case {k}",
            f"ok {k} - parses case {k}",
            "  ---",
            f"  duration_ms: 0.{k % 90 + 10}",
            "  ...",
        ]
    rows += [
        "# Subtest: rejects trailing comma",
        "not ok 200 - rejects trailing comma",
        "  ---",
        "  duration_ms: 0.77",
        "  location: '/home/dev/jsonish/test/parse.test.mjs:18:1'",
        "  failureType: 'testCodeFailure'",
        "  error: 'Expected values to be strictly equal:\\n\\n1 !== 2\\n'",
        "  code: 'ERR_ASSERTION'",
        "  name: 'AssertionError'",
        "  expected: 2",
        "  actual: 1",
        "  operator: 'strictEqual'",
        "  stack: |-",
        "    TestContext.<anonymous> (file:///home/dev/jsonish/test/parse.test.mjs:20:10)",
        "    Test.runInAsyncScope (node:async_hooks:206:9)",
        "    Test.run (node:internal/test_runner/test:639:25)",
        "  ...",
        "1..200",
        "# tests 200",
        "# suites 0",
        "# pass 199",
        "# fail 1",
        "# cancelled 0",
        "# skipped 0",
        "# todo 0",
        "# duration_ms 412.5",
    ]
    _keeps(
        "tests",
        "\n".join(rows),
        Hint(tool="bash", command="node --test"),
        1_000,
        [
            "not ok 200 - rejects trailing comma",
            "error: 'Expected values to be strictly equal:",
            "location: '/home/dev/jsonish/test/parse.test.mjs:18:1'",
            "# fail 1",
        ],
    )


def test_pytest_short_summary_only() -> None:
    dots = ["." * 72 + f" [{k:3d}%]" for k in range(1, 60)]
    dots[30] = "." * 30 + "F" + "." * 41 + " [ 51%]"
    text = "\n".join(
        [
            *dots,
            "=========================== short test summary info ============================",
            "FAILED tests/test_api.py::test_create_user_conflict - AssertionError: assert 201 == 4",
            "FAILED tests/test_api.py::test_delete_requires_auth - assert 200 == 401",
            "2 failed, 4246 passed, 1 skipped in 14.21s",
        ]
    )
    _keeps(
        "tests",
        text,
        Hint(tool="bash", command="pytest -q --tb=no"),
        600,
        [
            "FAILED tests/test_api.py::test_create_user_conflict - AssertionError: assert 201",
            "FAILED tests/test_api.py::test_delete_requires_auth",
            "2 failed, 4246 passed, 1 skipped in 14.21s",
        ],
    )


_CRATES = ("serde", "syn", "quote", "proc-macro2", "libc", "memchr", "regex", "tokio", "bytes")


def test_cargo_build_errors() -> None:
    compiling = [f"   Compiling {_CRATES[k % 9]}-{k} v1.{k}.0" for k in range(120)]
    text = "\n".join(
        [
            *compiling,
            "   Compiling ledger-core v0.3.0 (/home/dev/ledger/core)",
            "error[E0382]: borrow of moved value: `entries`",
            "  --> core/src/journal.rs:88:22",
            "   |",
            "84 |     let entries = load(&path)?;",
            "   |         ------- move occurs because `entries` has type `Vec<Entry>`",
            "85 |     let totals = summarize(entries);",
            "   |                            ------- value moved here",
            "...",
            "88 |     for entry in entries.iter() {",
            "   |                  ^^^^^^^ value borrowed here after move",
            "",
            "error[E0425]: cannot find value `ledger_path` in this scope",
            "  --> core/src/main.rs:14:29",
            "   |",
            "14 |     let journal = open_ledger(ledger_path)?;",
            "   |                               ^^^^^^^^^^^ not found in this scope",
            "",
            "warning: unused import: `std::collections::HashMap`",
            " --> core/src/report.rs:3:5",
            "  |",
            "3 | use std::collections::HashMap;",
            "  |     ^^^^^^^^^^^^^^^^^^^^^^^^^",
            "  |",
            "  = note: `#[warn(unused_imports)]` on by default",
            "",
            "Some errors have detailed explanations: E0382, E0425.",
            "For more information about an error, try `rustc --explain E0382`.",
            'warning: `ledger-core` (bin "ledger") generated 1 warning',
            'error: could not compile `ledger-core` (bin "ledger") due to 2 previous errors',
        ]
    )
    _keeps(
        "build",
        text,
        Hint(tool="bash", command="cargo build"),
        1_500,
        [
            "error[E0382]: borrow of moved value: `entries`",
            "--> core/src/journal.rs:88:22",
            "error[E0425]: cannot find value `ledger_path` in this scope",
            "--> core/src/main.rs:14:29",
            "error: could not compile `ledger-core`",
        ],
    )


def test_javac_errors_among_repeated_deprecation_warnings() -> None:
    rows: list[str] = []
    for k in range(60):
        rows += [
            f"src/main/java/com/acme/legacy/Util{k:02d}.java:{10 + k}: warning: [deprecation] "
            "Date(String) in Date has been deprecated",
            "        Date parsed = new Date(raw);",
            "                      ^",
        ]
    rows += [
        "src/main/java/com/acme/billing/InvoiceService.java:42: error: cannot find symbol",
        "        return repository.findByCustomerId(customerId).stream()",
        "                         ^",
        "  symbol:   method findByCustomerId(long)",
        "  location: variable repository of type InvoiceRepository",
        "src/main/java/com/acme/billing/TaxTable.java:17: error: incompatible types: possible "
        "lossy conversion from double to int",
        "        int rate = base * 1.2;",
        "                        ^",
        "Note: Some input files use unchecked or unsafe operations.",
        "2 errors",
        "60 warnings",
    ]
    out = _keeps(
        "build",
        "\n".join(rows),
        Hint(tool="bash", command="javac -d out $(find src -name '*.java')"),
        1_500,
        [
            "InvoiceService.java:42: error: cannot find symbol",
            "symbol:   method findByCustomerId(long)",
            "TaxTable.java:17: error: incompatible types",
            "2 errors",
        ],
    )
    assert "[x60] warning: [deprecation] Date(String) in Date has been deprecated" in out


def test_esbuild_error() -> None:
    warnings = []
    for k in range(40):
        warnings += [
            '▲ [WARNING] Comparison using the "==" operator here is always false [equals-nan]',
            "",
            f"    src/stats/mean{k}.ts:{k + 3}:12:",
            f"      {k + 3} │   if (value == NaN) return 0;",
            "        ╵             ~~",
            "",
        ]
    text = "\n".join(
        [
            *warnings,
            '✘ [ERROR] Could not resolve "lodash-es"',
            "",
            "    src/utils/debounce.ts:1:25:",
            '      1 │ import { debounce } from "lodash-es";',
            "        ╵                          ~~~~~~~~~~~",
            "",
            '  You can mark the path "lodash-es" as external to exclude it from the bundle.',
            "",
            "40 warnings and 1 error",
        ]
    )
    _keeps(
        "build",
        text,
        Hint(tool="bash", command="esbuild src/index.ts --bundle --outfile=dist/app.js"),
        1_000,
        ['✘ [ERROR] Could not resolve "lodash-es"', "src/utils/debounce.ts:1:25:"],
    )


def test_mypy_and_flake8_shapes() -> None:
    rows = [
        f"src/app/views/page{k:02d}.py:{k + 10}: error: Function is missing a return type "
        "annotation  [no-untyped-def]"
        for k in range(80)
    ]
    rows.insert(
        37,
        'src/app/models.py:12: error: Incompatible types in assignment (expression has type "str",'
        ' variable has type "int")  [assignment]',
    )
    rows.append("Found 81 errors in 12 files (checked 120 source files)")
    _keeps(
        "lint",
        "\n".join(rows),
        Hint(tool="bash", command="mypy src"),
        1_000,
        [
            "src/app/models.py:12: error: Incompatible types in assignment",
            "Found 81 errors in 12 files (checked 120 source files)",
            "[no-untyped-def]",
        ],
    )
    flake = [
        f"./pkg/module{k:02d}.py:{k + 1}:80: E501 line too long (97 > 79 characters)"
        for k in range(90)
    ]
    flake.insert(50, "./pkg/loader.py:7:1: F401 'os' imported but unused")
    out = _keeps(
        "lint",
        "\n".join(flake),
        Hint(tool="bash", command="flake8 pkg"),
        700,
        ["./pkg/loader.py:7:1: F401 'os' imported but unused"],
    )
    assert "E501 x90" in out


def test_java_stack_trace_with_caused_by() -> None:
    jackson = [
        f"\tat com.fasterxml.jackson.databind.deser.BeanDeserializer.step{k}"
        f"(BeanDeserializer.java:{100 + k})"
        for k in range(40)
    ]
    text = "\n".join(
        [
            'Exception in thread "main" java.lang.IllegalStateException: Failed to load '
            "configuration from /etc/acme/app.yaml",
            "\tat com.acme.config.ConfigLoader.load(ConfigLoader.java:58)",
            "\tat com.acme.App.main(App.java:23)",
            "Caused by: com.fasterxml.jackson.databind.exc.MismatchedInputException: Cannot "
            'deserialize value of type `int` from String "eighty": not a valid `int` value',
            "\tat com.fasterxml.jackson.databind.exc.MismatchedInputException.from"
            "(MismatchedInputException.java:63)",
            *jackson,
            "\tat com.acme.config.ConfigLoader.load(ConfigLoader.java:52)",
            "\t... 1 more",
        ]
    )
    _keeps(
        "stacktrace",
        text,
        Hint(tool="bash", command="java -jar app.jar"),
        1_200,
        [
            "java.lang.IllegalStateException: Failed to load configuration from /etc/acme/app.yaml",
            "at com.acme.config.ConfigLoader.load(ConfigLoader.java:58)",
            "Caused by: com.fasterxml.jackson.databind.exc.MismatchedInputException: Cannot "
            'deserialize value of type `int` from String "eighty"',
            "at com.acme.config.ConfigLoader.load(ConfigLoader.java:52)",
        ],
    )


def test_go_panic() -> None:
    idle: list[str] = []
    for g in range(2, 40):
        idle += [
            "",
            f"goroutine {g} [chan receive]:",
            "runtime.gopark(0x0?, 0x0?, 0x0?, 0x0?, 0x0?)",
            "\t/usr/local/go/src/runtime/proc.go:398 +0xce",
            "runtime.chanrecv(0xc0000a2060, 0x0, 0x1)",
            "\t/usr/local/go/src/runtime/chan.go:583 +0x3cd",
        ]
    text = "\n".join(
        [
            "panic: runtime error: index out of range [5] with length 5",
            "",
            "goroutine 1 [running]:",
            "main.(*Ring).At(...)",
            "\t/home/dev/ring/ring.go:41",
            "main.sumLast(0xc000012345, 0x6)",
            "\t/home/dev/ring/main.go:27 +0x1d4",
            "main.main()",
            "\t/home/dev/ring/main.go:12 +0x85",
            *idle,
            "exit status 2",
        ]
    )
    _keeps(
        "stacktrace",
        text,
        Hint(tool="bash", command="go run ."),
        900,
        [
            "panic: runtime error: index out of range [5] with length 5",
            "/home/dev/ring/ring.go:41",
            "/home/dev/ring/main.go:12 +0x85",
            "exit status 2",
        ],
    )


def test_ruby_backtrace() -> None:
    gems = [
        f"\tfrom /usr/lib/ruby/gems/3.2.0/gems/rack-3.0.8/lib/rack/middleware{k}.rb:{20 + k}:in "
        "`call'"
        for k in range(40)
    ]
    text = "\n".join(
        [
            "/home/dev/shop/app/models/cart.rb:27:in `block in total': undefined method `price' "
            "for nil:NilClass (NoMethodError)",
            "\tfrom /home/dev/shop/app/models/cart.rb:27:in `each'",
            "\tfrom /home/dev/shop/app/models/cart.rb:27:in `sum'",
            "\tfrom /home/dev/shop/lib/checkout.rb:14:in `charge'",
            *gems,
            "\tfrom bin/checkout:5:in `<main>'",
        ]
    )
    _keeps(
        "stacktrace",
        text,
        Hint(tool="bash", command="ruby bin/checkout"),
        900,
        [
            "undefined method `price' for nil:NilClass (NoMethodError)",
            "/home/dev/shop/app/models/cart.rb:27:in `each'",
            "bin/checkout:5:in `<main>'",
        ],
    )


def test_oneline_git_log() -> None:
    rows = [f"{k:07x}a Tidy module {k} docs" for k in range(0x1000, 0x1000 + 300)]
    rows[120] = "4f9c2e1 Release v2.1.0"
    rows[200] = '9ab31c7 Revert "Cache parsed headers"'
    rows[-1] = "0000001 Initial commit"
    out = _keeps(
        "gitlog",
        "\n".join(rows),
        Hint(tool="bash", command="git log --oneline"),
        900,
        [rows[0], "4f9c2e1 Release v2.1.0", '9ab31c7 Revert "Cache parsed headers"', rows[-1]],
    )
    assert "routine commits" in out


def test_crlf_log_with_a_traceback() -> None:
    rows = [
        f"2026-03-01 10:00:{k % 60:02d},{k:03d} INFO  web: GET /items/{k} 200" for k in range(400)
    ]
    rows[250:250] = [
        "2026-03-01 10:04:10,250 ERROR web: unhandled error in /checkout",
        "Traceback (most recent call last):",
        '  File "/srv/shop/web/checkout.py", line 88, in post',
        "    total = cart.total(currency)",
        "KeyError: 'EUR'",
    ]
    text = "\r\n".join(rows) + "\r\n"
    _keeps(
        "log",
        text,
        Hint(tool="bash", command="tail -n 500 /var/log/shop/web.log"),
        1_000,
        [
            "ERROR web: unhandled error in /checkout",
            'File "/srv/shop/web/checkout.py", line 88, in post',
            "KeyError: 'EUR'",
            rows[-1],
        ],
    )


def test_yarn_and_pnpm_install() -> None:
    rows = ["yarn install v1.22.22", "[1/4] Resolving packages..."]
    rows += [f"[2/4] Fetching packages... ({k}/900)" for k in range(0, 900, 9)]
    rows += [
        'warning " > eslint-plugin-react@7.33.2" has unmet peer dependency "eslint@^8".',
        "[3/4] Linking dependencies...",
        "[4/4] Building fresh packages...",
        "success Saved lockfile.",
        "Done in 41.27s.",
    ]
    _keeps(
        "install",
        "\n".join(rows),
        Hint(tool="bash", command="yarn install"),
        700,
        ['has unmet peer dependency "eslint@^8"', "success Saved lockfile.", "Done in 41.27s."],
    )


# ---------------------------------------------------------------------------------------------
# Robustness on arbitrary text


_FRAGMENTS = (
    "FAILED tests/test_x.py::test_y - AssertionError: boom",
    "____ test_y ____",
    "E       assert 1 == 2",
    "tests/test_x.py:12: AssertionError",
    "=== 1 failed, 3 passed in 0.1s ===",
    "--- FAIL: TestX (0.00s)",
    "not ok 3 - parses",
    "  ---",
    "  ...",
    "  ● suite › case",
    "src/a.ts(3,4): error TS2339: Property 'x' does not exist on type 'Y'.",
    "error[E0308]: mismatched types",
    "  --> src/main.rs:3:5",
    "a.cpp:3:4: error: expected ';'",
    "make: *** [Makefile:7: a.o] Error 1",
    "F401 [*] `os` imported but unused",
    "  --> pkg/a.py:1:8",
    "pkg/a.py:1:0: C0114: Missing module docstring (missing-module-docstring)",
    "  12:5  error  'x' is defined but never used  no-unused-vars",
    "✖ 3 problems (3 errors, 0 warnings)",
    "Traceback (most recent call last):",
    '  File "/srv/app.py", line 3, in main',
    "ValueError: bad",
    "    at main (/srv/app.js:3:4)",
    "\tat com.acme.App.main(App.java:3)",
    "Caused by: java.lang.RuntimeException: x",
    "\t... 3 more",
    "panic: runtime error",
    "goroutine 1 [running]:",
    "commit 0123456789abcdef0123456789abcdef01234567",
    "Author: A B <a@b.c>",
    "Date:   Mon Jan 1 00:00:00 2024 +0000",
    "    Release 1.0",
    " src/a.py | 900 +++++",
    "npm warn ERESOLVE overriding peer dependency",
    "npm http fetch GET 200 https://registry.npmjs.org/x 12ms",
    "Collecting requests",
    "Successfully installed requests-2.0",
    "added 3 packages in 1s",
    "2024-01-01 00:00:00,000 ERROR app: failed",
    "2024-01-01 00:00:00,001 INFO app: ok",
    '127.0.0.1 - "GET / HTTP/1.1" 500 -',
    "",
    "   ",
    "\t",
    "é\u0301 combining",
    "😀 emoji line",
    "\r",
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(
        st.one_of(st.sampled_from(_FRAGMENTS), st.text(max_size=60)), min_size=1, max_size=120
    ),
    share=st.floats(min_value=0.05, max_value=0.9),
    crlf=st.booleans(),
)
def test_any_text_gives_a_valid_plan_within_budget(
    rows: list[str], share: float, crlf: bool
) -> None:
    text = ("\r\n" if crlf else "\n").join(r.replace("\n", " ") for r in rows)
    max_chars = max(80, int(len(text) * share))
    n = len(split_lines(text))
    budget = Budget(max_chars=max_chars)
    for kind, module in REDUCERS.items():
        module.detect(text, Hint())
        plan = module.reduce(text, Hint(), budget)
        last = 0
        for piece in plan or []:
            assert last <= piece.start <= piece.end <= n
            last = piece.end
        out = shrink(text, Hint(), budget, only=[kind])
        assert len(out.content) <= max_chars


def test_coloured_cargo_output_is_read_through_its_escape_codes() -> None:
    red, bold, blue, reset = "\x1b[1m\x1b[38;5;9m", "\x1b[1m", "\x1b[1m\x1b[38;5;12m", "\x1b[0m"
    green = "\x1b[1m\x1b[32m"
    compiling = [f"{green}   Compiling{reset} {_CRATES[k % 9]} v1.{k}.0" for k in range(150)]
    text = "\n".join(
        [
            *compiling,
            f"{red}error[E0425]{reset}{bold}: cannot find value `ledger_path` in this scope{reset}",
            f"  {blue}--> {reset}core/src/main.rs:14:29",
            f"   {blue}|{reset}",
            f"{blue}14{reset} {blue}|{reset}     let journal = open_ledger(ledger_path)?;",
            "",
            f"{red}error{reset}{bold}: could not compile `ledger-core` due to 1 error{reset}",
        ]
    )
    out = _keeps(
        "build",
        text,
        Hint(tool="bash", command="cargo build --color=always"),
        900,
        ["cannot find value `ledger_path` in this scope", "core/src/main.rs:14:29"],
    )
    assert "could not compile `ledger-core`" in out


def test_json_lines_and_logfmt_logs() -> None:
    rows = [
        json.dumps(
            {
                "time": f"2026-03-01T10:00:{k % 60:02d}Z",
                "level": "info",
                "msg": "request",
                "path": f"/items/{k}",
                "status": 200,
            }
        )
        for k in range(400)
    ]
    failure = json.dumps(
        {
            "time": "2026-03-01T10:03:20Z",
            "level": "error",
            "msg": "payment gateway timeout",
            "order": 4411,
            "err": "context deadline exceeded",
        }
    )
    rows.insert(200, failure)
    _keeps("log", "\n".join(rows), Hint(tool="bash"), 900, [failure, rows[-1]])
    logfmt = [
        f'time=2026-03-01T10:00:{k % 60:02d}Z level=info msg="request" path=/items/{k} status=200'
        for k in range(300)
    ]
    logfmt.insert(100, 'time=2026-03-01T10:01:40Z level=error msg="db connection refused" host=db1')
    out = _keeps("log", "\n".join(logfmt), Hint(tool="bash"), 700, [logfmt[100], logfmt[-1]])
    assert "[records by level: INFO 300, ERROR 1]" in out


def test_python_traceback_through_dependencies_keeps_user_frames_and_run_ends() -> None:
    rows = [
        "Traceback (most recent call last):",
        '  File "/home/dev/app/main.py", line 40, in <module>',
        "    run()",
    ]
    for k in range(60):
        rows += [
            '  File "/home/dev/.venv/lib/python3.11/site-packages/httpx/_client.py", '
            f"line {100 + k}, in send",
            "    return self._send_handling_auth(request)",
        ]
    rows += [
        '  File "/home/dev/app/api.py", line 12, in on_response',
        "    data = resp.json()['items']",
        "KeyError: 'items'",
    ]
    out = _keeps(
        "stacktrace",
        "\n".join(rows),
        Hint(tool="bash", command="python main.py"),
        900,
        [
            'File "/home/dev/app/main.py", line 40, in <module>',
            'File "/home/dev/app/api.py", line 12, in on_response',
            "KeyError: 'items'",
            '_client.py", line 100, in send',
            '_client.py", line 159, in send',
        ],
    )
    assert '_client.py", line 130, in send' not in out


def test_webpack_errors_with_their_messages() -> None:
    modules = [
        f"  ./src/components/Widget{k}.tsx 4.{k} KiB [built] [code generated]" for k in range(150)
    ]
    text = "\n".join(
        [
            "assets by status 1.2 MiB [cached] 12 assets",
            *modules,
            "",
            "ERROR in ./src/pages/Checkout.tsx 42:18-35",
            "Module not found: Error: Can't resolve './PaymentForm' in '/home/dev/shop/src/pages'",
            "",
            "webpack 5.91.0 compiled with 1 error in 8123 ms",
        ]
    )
    _keeps(
        "build",
        text,
        Hint(tool="bash", command="npm run build"),
        600,
        [
            "ERROR in ./src/pages/Checkout.tsx 42:18-35",
            "Module not found: Error: Can't resolve './PaymentForm'",
            "webpack 5.91.0 compiled with 1 error in 8123 ms",
        ],
    )


def test_pip_build_failure_keeps_the_compiler_error() -> None:
    rows = ["Collecting lxml==4.6.3"]
    rows += [f"  Downloading dep{k}-1.0.tar.gz ({k} kB)" for k in range(80)]
    rows += [
        "Building wheels for collected packages: lxml",
        "  Building wheel for lxml (setup.py) ... error",
        "  error: subprocess-exited-with-error",
        "  × python setup.py bdist_wheel did not run successfully.",
        "  │ exit code: 1",
        "  ╰─> [64 lines of output]",
    ]
    rows += [f"      gcc -pthread -c src/lxml/etree{k}.c -o build/etree{k}.o" for k in range(60)]
    rows += [
        "      src/lxml/includes/etree_defs.h:14:10: fatal error: libxml/xmlversion.h: No such "
        "file or directory",
        "      compilation terminated.",
        "      [end of output]",
        "  ERROR: Failed building wheel for lxml",
        "Failed to build lxml",
        "ERROR: Could not build wheels for lxml, which is required to install "
        "pyproject.toml-based projects",
    ]
    _keeps(
        "install",
        "\n".join(rows),
        Hint(tool="bash", command="pip install lxml==4.6.3"),
        1_000,
        [
            "fatal error: libxml/xmlversion.h: No such file or directory",
            "ERROR: Failed building wheel for lxml",
            "ERROR: Could not build wheels for lxml",
        ],
    )


def test_tsc_pretty_output_in_colour() -> None:
    cyan, yellow, red, grey, reset = "\x1b[96m", "\x1b[93m", "\x1b[91m", "\x1b[90m", "\x1b[0m"

    def error(path: str, line: int, code: str, message: str) -> str:
        return (
            f"{cyan}{path}{reset}:{yellow}{line}{reset}:{yellow}19{reset} - {red}error{reset}"
            f"{grey} {code}: {reset}{message}"
        )

    rows: list[str] = []
    for k in range(40):
        rows += [
            error(f"src/r{k}.ts", 5, "TS2339", "Property 'name' does not exist on type 'C'."),
            "",
            "\x1b[7m5\x1b[0m   return c.name;",
            "",
        ]
    rows += [
        error("src/util/x.ts", 15, "TS2307", "Cannot find module 'date-fns'."),
        "",
        "Found 41 errors in 41 files.",
    ]
    out = _keeps(
        "build",
        "\n".join(rows),
        Hint(tool="bash", command="npx tsc --pretty"),
        900,
        ["Cannot find module 'date-fns'.", "Found 41 errors in 41 files."],
    )
    assert "[x40] error TS2339: Property 'name' does not exist on type 'C'." in out


def test_go_test_build_failure() -> None:
    rows = [f"ok  \texample.com/app/pkg{k}\t0.0{k % 9 + 1}s" for k in range(60)]
    rows += [
        "# example.com/app/store",
        "store/db.go:41:12: undefined: sqlx.Connect",
        "FAIL\texample.com/app/store [build failed]",
        "FAIL",
    ]
    _keeps(
        "tests",
        "\n".join(rows),
        Hint(tool="bash", command="go test ./..."),
        400,
        [
            "store/db.go:41:12: undefined: sqlx.Connect",
            "FAIL\texample.com/app/store [build failed]",
        ],
    )


def test_msvc_diagnostics_group_without_columns() -> None:
    rows = [
        f"C:\\src\\mod{k}.cpp(12): warning C4996: 'strcpy': This function may be unsafe."
        for k in range(60)
    ]
    rows += ["C:\\src\\main.cpp(41,5): error C2065: 'cfg': undeclared identifier", "Build FAILED."]
    out = _keeps(
        "build",
        "\n".join(rows),
        Hint(tool="bash", command="msbuild app.sln"),
        500,
        ["C:\\src\\main.cpp(41,5): error C2065: 'cfg': undeclared identifier", "Build FAILED."],
    )
    assert "[x60] warning C4996: 'strcpy': This function may be unsafe." in out
