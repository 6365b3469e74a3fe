"""Round 6 of the reducers: each rule on crafted text, checked to fail without the rule.

A reducer either reads an output's shape right or declines; where a shape is a reducer's own (a
located diagnostic with a rule tag is lint), the reducer understands it.
"""

from __future__ import annotations

import random

from klipui.shrink import Budget, Hint, detect_shape, shrink

_RULES = ("FinalParameters", "LeftCurly", "MagicNumber", "DesignForExtension")


def _tagged_lint(seed: int = 7) -> tuple[str, list[str]]:
    """Hundreds of frequent rule hits around a few rare ones, each `[SEV] path:l:c: msg [Rule]`."""
    rng = random.Random(seed)
    lines = ["Starting audit..."]
    rare = [
        "[ERROR] src/a/Pump.java:9:5: Definition of 'equals()' without 'hashCode()'. [EqualsHash]",
        '[WARN] src/b/Valve.java:19:13: switch without "default" clause. [MissingDefault]',
        "[ERROR] src/c/Gauge.java:3:17: Using the '.*' form of import. [AvoidStarImport]",
    ]
    spots = sorted(rng.sample(range(50, 550), len(rare)))
    for i in range(600):
        if spots and i == spots[0]:
            spots.pop(0)
            lines.append(rare.pop(0))
            continue
        rule = rng.choice(_RULES)
        lines.append(
            f"[ERROR] src/pkg{i % 9}/Class{i % 31}.java:{i % 80 + 1}:{i % 40 + 3}: "
            f"Finding number {i} of this frequent kind. [{rule}]"
        )
    lines += ["Audit done.", "Checkstyle ends with 603 errors."]
    must = [
        "Definition of 'equals()' without 'hashCode()'. [EqualsHash]",
        'switch without "default" clause. [MissingDefault]',
        "Using the '.*' form of import. [AvoidStarImport]",
        "Checkstyle ends with 603 errors.",
    ]
    return "\n".join(lines) + "\n", must


def test_tagged_diagnostics_are_lint_and_keep_every_rare_rule() -> None:
    """`[SEV] path:line:col: message [Rule]` lines are lint diagnostics: the rare rules survive
    whole among hundreds of frequent ones, with the per-rule counts."""
    text, must = _tagged_lint()
    assert detect_shape(text) == "lint"
    out = shrink(text, Hint(tool="bash", command="java -jar audit.jar src"), Budget(2_500))
    assert out.strategy == "lint"
    assert len(out.content) <= 2_500
    for needle in must:
        assert needle in out.content
    assert "FinalParameters x" in out.content


def test_tagged_lint_without_severity_prefix() -> None:
    """The severity prefix is optional; the rule tag must start with a letter (gcc's `[-Wx]` is
    a compiler's, not a linter's)."""
    text, _ = _tagged_lint(3)
    bare = "\n".join(
        line.split("] ", 1)[1] if line.startswith("[") else line for line in text.split("\n")
    )
    assert detect_shape(bare) == "lint"
    gcc = "\n".join(f"src/f{i}.c:{i + 1}:5: note: value {i} is odd [-Wodd]" for i in range(40))
    assert detect_shape(gcc + "\n") != "lint"


def _doctest_run() -> str:
    """A `cargo test --doc` run: doctest names hold spaces, so do their failure block headers."""
    names = [f"src/m{i % 4}.rs - m{i % 4}::item_{i} (line {7 * i + 3})" for i in range(140)]
    failed = {names[37], names[101]}
    lines = ["   Doc-tests crate", "", f"running {len(names)} tests"]
    lines += [f"test {n} ... {'FAILED' if n in failed else 'ok'}" for n in names]
    lines += ["", "failures:", ""]
    lines += [
        f"---- {names[37]} stdout ----",
        "Test executable succeeded, but it's marked `should_panic`.",
        f"---- {names[101]} stdout ----",
        "Test executable failed (exit status: 101).",
        "",
        "stderr:",
        "",
        "thread 'main' panicked at src/m1.rs:5:1:",
        "assertion `left == right` failed",
        "  left: 4126",
        " right: 4127",
        "stack backtrace:",
    ]
    for k in range(14):
        lines += [
            f"  {k:2}: core::panicking::frame_{k}",
            f"      at /rustc/abc/library/core/x{k}.rs:1:1",
        ]
    lines += ["", "", "failures:", *(f"    {n}" for n in sorted(failed)), ""]
    lines.append(
        "test result: FAILED. 138 passed; 2 failed; 0 ignored; 0 measured; 0 filtered out; "
        "finished in 3.10s"
    )
    return "\n".join(lines) + "\n"


def test_doctest_failure_blocks_are_failure_blocks() -> None:
    """A cargo failure header names a doctest as `path - item (line N)`: its block (the panic's
    left/right values, the should_panic verdict) is kept like any failing test's."""
    text = _doctest_run()
    out = shrink(text, Hint(tool="bash", command="cargo test --doc"), Budget(1_000))
    assert out.strategy in ("tests", "tests+salience")  # +salience: the plan was challenged
    assert len(out.content) <= 1_000
    for needle in (
        "Test executable succeeded, but it's marked `should_panic`.",
        "  left: 4126",
        " right: 4127",
        "test result: FAILED. 138 passed; 2 failed",
    ):
        assert needle in out.content


def _sampled_table(rows: int = 60) -> str:
    """Time-led rows of numbers under time-led column headers (what activity reporters print)."""
    lines: list[str] = []
    for block in range(3):
        lines.append(f"10:00:{block:02}        DEV       tps     rkB/s     wkB/s    %util")
        for r in range(rows):
            lines.append(
                f"10:00:{block + 1:02}      dev{r:<3} {r * 3.5:9.2f} {r * 1.25:9.2f} "
                f"{(r * 7) % 500:9.2f} {r % 100:8.2f}"
            )
        lines.append("")
    return "\n".join(lines) + "\n"


def test_time_led_rows_of_numbers_are_not_log_records() -> None:
    """A log record is a time and a message; a time and columns of numbers is a sample of a
    table, which the log reducer declines."""
    assert detect_shape(_sampled_table()) != "log"


def test_log_records_that_hold_numbers_stay_logs() -> None:
    lines = [
        f"10:00:{i % 60:02} INFO served request {i} in {i % 40} ms with status 200"
        for i in range(80)
    ]
    lines[41] = "10:00:41 ERROR upstream refused connection after 3 retries"
    assert detect_shape("\n".join(lines) + "\n") == "log"


def _sectioned(body: list[list[str]]) -> str:
    """Blank-line-separated sections, each under a `name:` header line."""
    out: list[str] = []
    for k, lines in enumerate(body):
        out += [f"part{k}/unit{k}.d:", *lines, ""]
    return "\n".join(out) + "\n"


def test_sections_of_prose_are_not_a_recursive_listing() -> None:
    """`name:` headers over lines of prose (a runner's report grouped by file) are no `ls -R`:
    the tree reducer declines."""
    body = [
        [f"(pass) group {k} > case number {i} works [0.{i}ms]" for i in range(20)] for k in range(4)
    ]
    assert detect_shape(_sectioned(body)) != "tree"


def test_recursive_listings_stay_trees() -> None:
    """One name a line, columns of names, and `ls -lR` rows are entries."""
    plain = [[f"file_{k}_{i}.txt" for i in range(12)] for k in range(4)]
    columns = [[f"a{i}.c  b{i}.h  c{i}.o" for i in range(6)] for k in range(4)]
    long_rows = [
        [
            "total 24",
            *(f"-rw-r--r-- 1 me me {100 + i} Dec  3 10:0{i % 10} f{i}.py" for i in range(8)),
        ]
        for k in range(4)
    ]
    for body in (plain, columns, long_rows):
        assert detect_shape(_sectioned(body)) == "tree"


def _spec_run(distinct: list[tuple[str, list[str]]], copies: int = 8) -> str:
    """A spec runner's report: distinct failures (a name and body lines), then copies of one
    failure's shape that differ only in their numbers, then the totals."""
    lines = ["." * 300 + "F" * (len(distinct) + copies), "", "Failures:", ""]
    for k, (name, body) in enumerate(distinct, 1):
        lines += [f"  {k}) {name}", *body, f"     # ./spec/ledger_spec.rb:{30 + k}", ""]
    for c in range(copies):
        k = len(distinct) + c + 1
        batch = 11 + 100 * c
        lines += [
            f"  {k}) Ledger with batch {batch} totals batch {batch}",
            f'     Failure/Error: it "totals batch {batch}" do expect(t).to eq({batch * 3}) end',
            "",
            f"       expected: {batch * 3}",
            f"            got: {batch * 3 - 7}",
            "",
            "       (compared using ==)",
            f"     # ./spec/ledger_spec.rb:{400 + c}",
            "",
        ]
    lines += ["Finished in 1.2 seconds", f"{300 + k} examples, {k} failures", ""]
    return "\n".join(lines) + "\n"


def test_the_line_after_the_failing_source_is_the_message() -> None:
    """`Failure/Error: <source>` heads a failure; the line after it says what went wrong, in
    words no vocabulary lists."""
    messages = [
        "nothing was raised where a RangeError was wanted",
        "the header row went missing from the export",
        "the filter dropped entries that share the prefix",
    ]
    distinct = [
        (f"Ledger case {name}", [f'     Failure/Error: it "{name}" do run end', f"       {m}"])
        for name, m in zip("abc", messages, strict=True)
    ]
    out = shrink(_spec_run(distinct), Hint(tool="bash", command="rspec"), Budget(1_300))
    assert out.strategy == "tests"
    for message in messages:
        assert message in out.content


def test_distinct_failures_outrank_copies_of_one_failure() -> None:
    """Failures that repeat one shape (numbers aside) keep their first and last in full; the
    copies between rank below every distinct failure."""
    distinct = [
        (
            f"Ledger {what}",
            [
                f'     Failure/Error: it "{what}" do check end',
                "",
                f"       expected: {want}",
                f"            got: {got}",
            ],
        )
        for what, want, got in (
            ("rounds half up", "2.5", "2.4"),
            ("sorts by sku", '["a", "b"]', '["b", "a"]'),
            ("names the currency", '"EUR"', "nil"),
        )
    ]
    text = _spec_run(distinct)
    out = shrink(text, Hint(tool="bash", command="rspec"), Budget(1_500))
    assert out.strategy == "tests"
    for needle in ("expected: 2.5", 'expected: ["a", "b"]', 'expected: "EUR"'):
        assert needle in out.content
    assert "expected: 33" in out.content and "expected: 2133" in out.content  # first, last copy


def _steps_then_crash() -> str:
    """Routine INFO records of steps, the last one running when a Python traceback ends it."""
    lines = [
        f"INFO  [runner.step] Running step {k:03} -> {k + 1:03}, task number {k}" for k in range(40)
    ]
    lines.append("Traceback (most recent call last):")
    for k in range(30):
        lines += [
            f'  File "/opt/lib/site-packages/engine/layer{k}.py", line {k + 10}, in call',
            f"    return self.inner{k}(value)",
        ]
    lines.append("engine.errors.StepFailed: the unique index could not be built: duplicates")
    return "\n".join(lines) + "\n"


def test_the_record_a_trace_follows_is_kept() -> None:
    """The routine record just before a trace names the step that was running when it died."""
    text = _steps_then_crash()
    out = shrink(text, Hint(tool="bash", command="runner upgrade"), Budget(1_500))
    assert out.strategy == "stacktrace+salience"
    assert "Running step 039 -> 040, task number 39" in out.content
    assert "StepFailed: the unique index could not be built" in out.content


def test_a_failure_repeated_once_keeps_both_in_full() -> None:
    """Two failures of one shape are its first and last: neither is a copy to rank down."""
    distinct = [("Ledger rounds half up", ['     Failure/Error: it "rounds" do check end'])]
    text = _spec_run(distinct, copies=2)
    out = shrink(text, Hint(tool="bash", command="rspec"), Budget(len(text) - 200))
    assert out.strategy == "tests"
    for needle in ("expected: 33", "got: 26", "expected: 333", "got: 326"):
        assert needle in out.content


def test_a_middle_copy_is_still_named_when_there_is_room() -> None:
    """The copies between the first and last keep their header line (which test failed)."""
    distinct = [("Ledger rounds half up", ['     Failure/Error: it "rounds" do check end'])]
    text = _spec_run(distinct, copies=6)
    out = shrink(text, Hint(tool="bash", command="rspec"), Budget(2_400))
    for c in range(6):
        batch = 11 + 100 * c
        assert f"Ledger with batch {batch} totals batch {batch}" in out.content


def test_a_listing_with_some_spaced_names_stays_a_tree() -> None:
    """A few names with one space (`My Notes.txt`) do not turn a listing into prose."""
    body = [[f"file_{k}_{i}.txt" for i in range(10)] + ["My Notes.txt"] for k in range(4)]
    assert detect_shape(_sectioned(body)) == "tree"


def test_short_time_led_records_are_records() -> None:
    """A time and one or two words is a record (too few columns to be a table row)."""
    lines = [f"10:00:{i % 60:02} tick {i}" for i in range(60)]
    assert detect_shape("\n".join(lines) + "\n") == "log"


def _config_dump() -> str:
    """A checker's warnings, then every file it read under a heading naming the file."""
    lines = [
        "checker: [warn] value out of range in /srv/app/conf/billing.conf:7",
        "checker: the configuration is valid",
    ]
    for name in ("main", "audit", "billing", "ledger", "search", "worker"):
        lines.append(f"# configuration file /srv/app/conf/{name}.conf:")
        for k in range(1, 26):
            value = "rate 9000%;" if (name, k) == ("billing", 7) else f"set_{k} {name}_value_{k};"
            lines.append(f"    {value}")
        lines.append("")
    return "\n".join(lines) + "\n"


def test_a_dumped_line_a_message_points_at_is_kept() -> None:
    """Under headings that name files, `path:N` in a message points at the N-th line under that
    file's heading: both are kept."""
    text = _config_dump()
    out = shrink(text, Hint(tool="bash", command="checker -T"), Budget(900))
    assert out.strategy == "outline"
    assert "    rate 9000%;" in out.content
    assert "value out of range in /srv/app/conf/billing.conf:7" in out.content
