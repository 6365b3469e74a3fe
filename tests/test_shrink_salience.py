"""The salience fallback and the fill of unused room: what they keep, and never worse than a
blind head+tail cut."""

from __future__ import annotations

import json
import random
import sys
from itertools import pairwise
from pathlib import Path

import pytest
from conftest import corpus_cases
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_shrink_properties import check_idempotent, check_rules

from klipui.shrink import Budget, Hint, Keep, reducer_chain, segments, shrink
from klipui.shrink.salience import (
    COLUMN_RARE,
    FLOOR_SHARE,
    HEAD_FLOOR_SHARE,
    HEADING,
    MAX_OUTLIERS,
    STRONG,
    SUBJECT,
    SUMMARY,
    WEAK,
    Ranking,
    Scores,
)
from klipui.shrink.text import split, split_lines

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
from corpus_folds import part_of
from shrink_quality import head_tail, hint_of, recall

CASES = corpus_cases()


def _routine(count: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    return [
        f"2026-12-03 10:{i // 60 % 60:02}:{i % 60:02} worker-{rng.randrange(8)} handled request"
        f" id={rng.getrandbits(40):010x} in {rng.randrange(1, 900)} ms"
        for i in range(count)
    ]


# never worse than a blind cut ----------------------------------------------------------------


KNOWN_BELOW_HEAD_TAIL = frozenset(
    {
        "51-npm-outdated-all-long",
        # cases 113-199, as measured when that batch was merged (now in the folds)
        "145-bandit-r-dulwich",
        "147-uv-pip-compile-no-solution",
        "163-sysctl-a-net-vm-fs",
        # the fresh batch 300-379 (bench/corpus_folds.py FRESH), as measured when it was merged
        "344-mariadb-analyze-format-json-joins",
        "357-callgrind-annotate-auto-source",
        # the fresh batch 400-479, as measured when it was merged
        "479-git-bisect-run-skips-ambiguous",
        # the fresh batch 500-579, as measured when it was merged
        "505-pip-install-dry-run-report-json",
        "510-cloc-by-file-by-lang-requests",
        "520-devel-cover-report-text-shipping",
        "532-shfmt-d-perf-test-scripts-parse-error",
        "537-java-ucve-then-javap-v-major-69",
        "545-dmesg-ext4-iget-checksum-invalid",
        "554-mariadb-admin-extended-status",
        "555-pgbadger-text-report-lock-waits",
        "562-csvstat-customers-23-columns",
        "569-sqlite3-analyzer-freelist-63pct",
        # the fresh batch 600-679, as measured when it was merged
        "609-cargo-clippy-workspace-deny-eq-op",
        "641-read-go-net-http-transport-go",
        "650-read-commander-readme-md",
        "654-grep-rn-A2-go-stdlib-deprecated",
        "663-find-as-nobody-conf-permission-denied",
        "678-man-ssh-config-5",
        # the fresh batch 700-779, as measured when it was merged
        "711-npm-ci-lockfile-out-of-sync-missing-invalid",
        "717-wget-d-r-l1-local-site-one-404",
        "734-erlang-supervisor-crash-reports-shutdown-intensity",
        "739-python-X-dev-tracemalloc-resourcewarnings-unclosed",
        "756-python-m-pydoc-sqlite3-connection",
        "761-git-bisect-run-fee-regression",
        "768-git-reflog-after-hard-reset",
        "772-npm-ci-lockfile-out-of-sync",
        # the fresh batch 800-879, as measured when it was merged
        # the fresh batch 900-979, as measured when it was merged
        "923-git-show-stat-p-itsdangerous-remove-jws",
        "931-java-stackoverflowerror-org-chart-cycle",
        "945-ld-debug-libs-symbols-stale-lib-lookup-error",
        "967-perf-report-stdio-callgraph-linear-find-strcmp",
        "977-gdb-batch-core-thread-apply-all-bt-full-deadlock",
        # the fresh batch 1000-1079, as measured when it was merged
        "1058-sqlite3-lint-expert-eqp-full-bytecode",
        "1067-isort-check-diff-force-single-line-pip-commands",
        "1075-unzip-v-wheel-duplicate-entry-stored-blob",
        "1078-free-w-s-sampling-while-process-grows",
        # the fresh batch 1100-1179, as measured when it was merged
        "1112-git-grep-p-isatty-function-context",
        "1117-vitest-run-ufo-trailing-slash-options-object",
        "1126-git-log-p-S-readascsv-pflag-pickaxe",
        "1131-coverage-run-pytest-report-skip-covered-sort",
        "1132-git-diff-word-diff-8.3.0-8.3.1-src",
        "1168-ocaml-toplevel-batch-type-errors",
        # the fresh batch 1200-1279, as measured when it was merged
        "1211-read-semver-range-js-testset",
        "1273-timeout-verbose-deadlocked-workers",
        # the fresh batch 1300-1379, as measured when it was merged
        "1324-mypy-stubtest-stub-drift-runtime-helpers",
        "1326-pytest-syrupy-snapshot-drift-two-failed-unused",
        "1346-lftp-d-mirror-ftp-550-not-enough-privileges",
        "1348-aide-check-after-deploy-setuid-tool-among-91-changes",
        "1367-php-i-config-dump-memory-limit-overridden",
        "1370-uv-tree-outdated-no-dedupe-urllib3-pin",
        "1375-mysqld-verbose-help-variables-packet-override",
        # the fresh batch 1400-1479, as measured when it was merged
        "1405-gcc-setup-build-ext-brotli-missing-include-werror",
        "1407-pip-install-requirements-python-ldap-missing-lber-h",
        "1441-read-axios-cjs-bundle-maxbodylength",
        "1454-grep-rnI-environ-site-packages-no-color",
        "1470-nginx-T-dump-conflicting-server-name-warn",
        # the fresh batch 1500-1579, as measured when it was merged
        "1524-pip-install-U-r-resolver-conflicts-sphinx-botocore-after",
        "1526-uv-lock-v-debug-resolver-furo-sphinx-unsatisfiable",
        "1539-webpack5-cli-invalid-configuration-object-webpack4-keys",
        "1574-premake4-gmake-make-k-core-warnings-net-missing-header",
        # the fresh batch 1600-1679, as measured when it was merged
        "1642-xenon-b-B-agate-babel-jwt-86-violations-three-rank-f",
        "1644-deadcode-agate-babel-jwt-137-unused-broken-symlink-errors",
        "1651-testssl-loopback-s-server-seclevel0-selfsigned-rsa1024",
        "1671-sed-i-context-to-ctx-rename-git-diff-then-ruff-f821",
        "1679-git-range-diff-rebased-series-v1-v2-dropped-and-reworked",
        # fell below head+tail with the line model (others rose above it; held-out ones by figures)
        "714-pipenv-lock-verbose-werkzeug-conflict",
        "646-read-tokio-ci-workflow-yaml",
        # fell below head+tail when the model was refitted with cases 1300-1379 in the folds
        "1221-git-diff-makefile-clobbered-and-header",
        # fell below head+tail when the model was refitted with cases 1600-1679 in the folds
        # fell below head+tail with dotted names as ids (round 12)
        # held out: fell below head+tail with round 10's record subjects (figures only)
        # cases 1700-1779, below head+tail once in the folds (refit, stack traces blended)
        "1708-git-blame-w-date-short-humanize-filesize-naturalsize",
        "1717-rg-heading-c2-stats-site-packages-shell-true-cert-none-audit",
        "1751-gdb-batch-core-thread-apply-all-bt-full-worker-pool-null-payload",
        "1779-git-bisect-start-run-unittest-verbose-first-bad-commit-brackets",
        # fell below head+tail with cases 1700-1779 in the folds (refit) and blended stack traces
        "741-ci-sh-set-x-json-tool-trailing-comma",
        # fell below head+tail with the line model fitted on pairs (round 13)
        "439-augtool-print-tree-parse-errors",
        # cases 1800-1879, below head+tail once in the folds (refit)
        "1810-pip-install-dry-run-report-json-requests-socks-urllib3-pin",
        "1811-git-rebase-verbose-status-diff-tabulate-crlf-whole-file-conflict",
        "1830-make-avr-gcc-atmega8-44-warnings-then-ld-data-region-overflowed",
        "1843-perf-record-g-then-perf-report-stdio-children-qsort-cmp-hot",
        "1861-make-r-p-database-dump-missing-source-parsr-from-objs-typo",
        # fell below head+tail when the model was refitted with cases 1800-1879 in the folds
        # cases 1900-1979, below head+tail once in the folds (refit)
        "1902-jest-ci-github-actions-summary-reporters-camelcase-acronym-split",
        "1914-git-merge-zdiff3-status-diff-log-merge-p-toolz-signature-conflicts",
        "1919-git-log-pickaxe-s-py3-p-stat-fuller-toolz-releases-history",
        "1926-ls-laR-axios-lib-adapters-sizes",
        "1928-grep-rc-warnings-werkzeug-sdist-per-file-counts",
        "1955-stryker-mocha-two-modules-26-survivors-score-65-under-break-75",
        "1973-psql-x-pg-stat-statements-select-star-n-plus-one-1500-calls",
        "1975-node-pg-migrate-up-verbose-12-migrations-unique-lower-email-duplicate-23505",
        "1976-psql-show-all-config-dump-work-mem-64kb-random-page-cost-40-statement-timeout",
        "1977-gunicorn-uvicorn-worker-debug-config-dump-three-workers-modulenotfound-pydantic-settings",
        # fell below head+tail when the model was refitted with cases 1900-1979 in the folds
        # cases 2000-2059, below head+tail once in the folds (refit)
        "2049-rscript-glm-binomial-churn-summary-vip-quasi-separation-se-537-sixteen-fisher-iterations",
        "2056-php-cli-info-dump-scan-dir-override-ini-memory-limit-16m",
        # fell below head+tail when the model was refitted with cases 2000-2059 in the folds
        # fresh batch 2100-2179, below head+tail when measured (engine of 0ec40d7)
        "2128-sysbench-lua-kv-2-threads-12s-histogram-two-second-stall-eps-zero-max-2300ms",
        "2133-llvm-mca-skylake-dot-loop-bottleneck-analysis-fp-divider-pressure-timeline-all-stats",
        # moved by the refit with 2100-2179 in the folds
        "1647-sslscan-loopback-s-server-seclevel0-rsa1024-sha1-weak-ciphers",
        "378-pidstat-durh-mixed-load",
        # fresh batch 2200-2279, below head+tail when measured (engine of cf5bb87)
        "2210-git-format-patch-stdout-two-patches-parse-ruff-autofix-then-int-convert-prefix-ge-2",
        "2263-git-diff-remove-quotes-fix-on-top-of-ruff-unsafe-fixes-in-eight-test-files",
        "2269-python-app-debug-log-migcheck-120-sqlparse-migrations-stopiteration-alter-system-0087",
        "2270-pytest-q-collection-errors-all-modules-importerror-remove-quotes-renamed-unquote-identifier",
        "2275-make-benchmark-uv-run-five-scaling-scripts-split-newlines-super-linear-ghsa-3r5h",
        "2277-read-cat-n-sqlparse-sql-py-get-real-name-first-name-unquote-identifier-call-sites",
        "2278-git-status-v-staged-bracket-change-buried-in-ruff-format-quote-rewrite-plus-untracked-dump",
        # moved by the refit with 2200-2279 in the folds
        # fresh batch 2300-2379, below head+tail when measured (engine of be4e7fa)
        "2301-mypy-strict-pretty-error-context-docopt-062-95-untyped-then-cli-typeddict-retries-object",
        "2302-gpp-cxx20-ranges-sort-on-std-list-concepts-diagnostics-depth-3-random-access-not-satisfied",
        "2309-ls-lar-long-iso-deploy-tree-current-points-at-missing-release-20261204-payments-py-absent-secrets-666",
        "2351-nmap-sV-sC-packet-trace-oX-stdout-nsock-trace-then-xml-unrecognised-6390",
        "2363-grep-rn-nodemodulespaths-callers-resolve-own-lib-plus-nested-node-modules-resolve-copy",
        "2364-npm-ls-all-resolve-devdeps-1465-line-tree-eslint-8-8-0-is-core-module-path-parse",
        "2365-git-log-p-follow-upstream-resolve-node-modules-paths-skip-removed-in-2016-refactor",
        "2377-npm-view-resolve-json-latest-1-22-14-versions-times-devdeps-eslint-10",
        # moved by the refit with 2300-2379 in the folds
        "1834-clojure-main-report-stderr-rows-then-npe-unknown-currency-edn-trace",
        "78-tree-pip-vendor",
        # fresh batch 2400-2479, below head+tail when measured (engine of ab2322f)
        "2402-git-log-pickaxe-on-dup-name-status-bidict-history",
        "2412-git-show-function-context-bidict-values-view-order-fix",
        "2426-ugrep-recursive-stats-pickle-loads-in-python-dist-packages",
        "2470-cprofile-sort-tottime-tomlkit-dumps-3000-tables-isinstance-dominates",
        "2474-pytest-collect-only-q-tomlkit-1485-test-ids-new-parametrised-escape-cases",
        # moved by the refit with 2400-2479 in the folds
        "1164-sgdisk-print-verify-gpt-crc-mismatch",
        "719-cachegrind-cache-sim-cg-annotate-matmul",
        # below head+tail after the compact marker (what it saves a gap changes which lines fit)
        "1107-git-stash-list-p-nine-wip-stashes",
        "1508-concurrently-group-eslint-unused-var-tsc-ok-vitest-verbose-ansi",
        "1702-go-vet-json-shipyard-120-packages-four-with-findings",
        "1862-lualatex-nonstop-luaotfload-main-missing-font-cascade-undefined-refs",
        "2265-grep-rn-get-real-name-remove-quotes-callers-with-binary-cache-matches",
        "2447-gdb-batch-ring-checksum-segv-null-entry-bt-full-registers-x-disassemble-mappings",
        "376-mariadb-dump-verbose-invalid-view",
        "476-gprof-flat-callgraph-with-blurbs",
        "568-unbound-d-v3-forward-noreply",
        # below head+tail after the sql cue and the refit with 2500-2579 (tuned and held-out)
        "1561-r-cmd-check-as-cran-tariffs-test-error-codoc-warnings",
        "2138-pg-upgrade-check-verbose-15-to-15-live-old-cluster-template1-encoding-utf8-vs-sql-ascii",
        "2511-git-log-graph-all-format-trunc-author-bidict-wip-branch-forked-before-values-order-fix",
        "2517-grep-rc-include-py-license-bsd-pygments-343-files-four-zero-counts-one-gpl-lexer",
        "2525-varnishstat-1-all-counters-one-backend-fail-econnrefused-api",
        "2533-pg-dumpall-as-non-superuser-orders-copied-then-permission-denied-audit-log",
        "2566-mypy-strict-test-more-and-new-chunked-props-299-errors-untyped-helpers",
        "2569-git-log-L-chunked-upstream-more-itertools-history-strict-none-negative",
        "2576-pyright-tests-test-more-100-errors-positional-strict-to-keyword-only-chunked",
        "939-uv-pip-install-help-offline-options",
        # below head+tail after the challenge of reducers' plans by salience (tuned and held-out)
        "1319-javac-module-source-path-not-visible-among-removal-warnings",
        # below head+tail: cases of 2600-2679 folded in (the line model not refitted with them)
        "2602-rg-vimgrep-os-environ-subscript-scratch-venv-site-packages-71-hits-few-writes",
        "2627-rpmlint-v-62-specfiles-routine-buildroot-url-warnings-mdview-version-dash-unparsable",
        "2631-docker-compose-config-twenty-shop-services-unset-db-password-worker-mem-port-8096-twice",
        "2637-redocly-lint-shop-openapi-36-security-4xx-problems-shipmentid-param-unresolved-refnud-ref",
        "2644-gcc-o2-q-help-optimizers-264-option-state-rows-strict-aliasing-off-wrapv-on-slp-off-very-cheap",
        "2645-perl-m-ledger-import-cant-locate-mojo-json-then-perl-v-config-dump-perl5lib-and-inc",
        # below head+tail after the refit with 2600-2679 (tuned and held-out)
        "123-apt-get-install-real",
        "1325-pyright-verifytypes-shipkit-partial-unknowns",
        "1337-yard-stats-list-undoc-unknown-tag-warning",
        "1854-mono-pinvoke-memcpy-null-native-crash-reporting-sigsegv",
        "1937-find-exec-grep-H-node-modules-package-json-license-one-bsd",
        "2179-sanic-debug-four-workers-banner-config-dump-then-before-server-start-db-connection-refused-18799",
        "2337-lldb-batch-run-bt-all-eight-threads-sigsegv-depth-of-null-left-left-in-index-worker",
        "411-redis-server-log-rdb-enospc-misconf",
        "753-python-m-cprofile-sort-tottime-list-scan",
    }
)
"""Cases where the engine keeps less than head+tail today: open gaps, listed so that each one
is seen (strict: a case that starts passing must leave the list)."""


def _case_param(case: Path) -> object:
    if case.name in KNOWN_BELOW_HEAD_TAIL:
        return pytest.param(case, marks=pytest.mark.xfail(strict=True, reason="known gap"))
    return case


@pytest.mark.parametrize("case", [_case_param(c) for c in CASES], ids=lambda p: p.name)
def test_recall_never_below_head_tail_at_the_case_budget(case: Path) -> None:
    meta = json.loads((case / "meta.json").read_text(encoding="utf-8"))
    text = (case / "output.txt").read_text(encoding="utf-8")
    budget = meta["budget_chars"]
    ours = recall(shrink(text, hint_of(meta), Budget(max_chars=budget)).content, meta["must_keep"])
    blind = recall(head_tail(text, budget), meta["must_keep"])
    # held-out cases: figures only, never their text
    assert ours >= blind, f"{part_of(case.name)} case: recall {ours:.2f} < head+tail {blind:.2f}"


def _floor_lines(text: str, max_chars: int) -> set[int]:
    """The lines entirely within `max_chars // HEAD_FLOOR_SHARE` characters of the start or
    `max_chars // FLOOR_SHARE` of the end."""
    lines = split(text)
    head, share = max_chars // HEAD_FLOOR_SHARE, max_chars // FLOOR_SHARE
    total = lines.starts[len(lines)]
    return {
        i
        for i in range(len(lines))
        if lines.starts[i + 1] <= head or lines.starts[i] >= total - share
    }


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    lines=st.lists(st.text(st.characters(blacklist_characters="\r\n"), max_size=60), max_size=300),
    max_chars=st.integers(100, 3000),
    tool=st.sampled_from([None, "bash", "read", "grep"]),
)
def test_fallback_keeps_the_ends_a_blind_cut_of_a_third_keeps(
    lines: list[str], max_chars: int, tool: str | None
) -> None:
    text = "\n".join(lines)
    budget = Budget(max_chars=max_chars, max_lines=0)
    result = shrink(text, Hint(tool=tool), budget, only=[])
    check_rules(text, result, budget)
    if not result.reduced:
        return
    shown = {span.start for span in result.kept if span.kind == "line"}
    assert _floor_lines(text, max_chars) <= shown


# what salience keeps -------------------------------------------------------------------------


def test_the_one_error_among_routine_lines_is_kept() -> None:
    lines = _routine(3000)
    lines[1711] = "2026-12-03 10:28:31 worker-3 ERROR could not write /var/lib/q/7.db: disk full"
    text = "\n".join(lines) + "\n"
    out = shrink(text, Hint(tool="bash"), Budget(max_chars=2000), only=[])
    assert out.strategy == "salience" and len(out.content) <= 2000
    assert lines[1711] in out.content
    assert lines[0] in out.content and lines[-1] in out.content


def test_last_error_outranks_the_first_of_a_repeated_kind() -> None:
    lines = _routine(2000)
    errors = [40 * k + 7 for k in range(1, 49)]
    for k, i in enumerate(errors):
        lines[i] = f"worker-2 ERROR upstream timeout after {k + 30} s (attempt {k + 1})"
    text = "\n".join(lines)
    out = shrink(text, Hint(tool="bash"), Budget(max_chars=1200), only=[])
    assert lines[errors[-1]] in out.content and lines[errors[0]] in out.content
    kept = [i for i in errors if lines[i] in out.content]
    assert len(kept) < len(errors)  # the middle repeats give way, not the last


def test_summary_in_unfamiliar_words_and_exit_status_are_kept() -> None:
    lines = _routine(1500)
    lines[700] = "linker emitted 211 warnings and 2 errors"
    lines.append("process exited with status 3")
    lines.extend(_routine(40, seed=9))
    out = shrink("\n".join(lines), Hint(tool="bash"), Budget(max_chars=1500), only=[])
    assert "211 warnings and 2 errors" in out.content
    assert "process exited with status 3" in out.content


def test_zero_counts_are_not_signals() -> None:
    lines = _routine(1200)
    for i in range(100, 1100, 50):
        lines[i] = f"batch {i}: 0 errors, 0 failures"
    lines[900] = "batch 900: checksum mismatch in shard 4"
    scores = Scores(split("\n".join(lines)), Hint(tool="bash"))
    assert scores.score[900] > max(scores.score.get(i, 0) for i in range(150, 850, 50))


def test_table_header_row_survives() -> None:
    rows = [f"pkg-{i:04}    {i % 7}.{i % 13}.{i % 5}    library number {i}" for i in range(900)]
    text = "Name        Version    Description\n----------  ---------  -----------\n"
    text += "\n".join(rows)
    out = shrink(text, Hint(tool="bash"), Budget(max_chars=800), only=[])
    assert out.content.startswith("Name        Version    Description\n")


def test_prose_mentions_rank_below_reported_errors() -> None:
    lines = _routine(60)
    lines[20] = "the command fails when the branch is missing, see below"
    lines[30] = "error: pathspec 'main' did not match any file(s) known to git"
    lines[40] = "ValueError: not an amount"
    scores = Scores(split("\n".join(lines)), Hint(tool="bash"))
    assert scores.score[30] > scores.score[20] < scores.score[40]


def test_repeated_template_keeps_first_and_last_with_an_exact_marker() -> None:
    head = ["build started", "compiling 400 units"]
    middle = [f"[{i:03}/400] CC src/unit_{i:03}.c" for i in range(1, 401)]
    tail = ["linking", "build finished: 400 units, 0 errors"]
    lines = head + middle + tail
    out = shrink("\n".join(lines), Hint(tool="bash"), Budget(max_chars=600), only=[])
    assert middle[0] in out.content and middle[-1] in out.content
    check_rules("\n".join(lines), out, Budget(max_chars=600))


# the fill of unused room ---------------------------------------------------------------------


class _KeepsOneLine:
    """A reducer that keeps only the last line, as a narrow recogniser would."""

    name = "narrow"

    @staticmethod
    def detect(text: str, hint: Hint) -> bool:
        return True

    @staticmethod
    def reduce(text: str, hint: Hint, budget: Budget) -> list[Keep]:
        n = len(split_lines(text))
        return [Keep(n - 1, n, 1)]


def test_room_a_plan_leaves_is_filled() -> None:
    lines = _routine(2000)
    lines[1200] = "worker-5 FATAL: segmentation fault in handler (core dumped)"
    text = "\n".join(lines)
    budget = Budget(max_chars=2000)
    out = shrink(text, Hint(tool="bash"), budget, only=["narrow"], extra=[_KeepsOneLine()])
    assert out.strategy == "narrow"
    assert len(out.content) > 1500 and lines[1200] in out.content and lines[0] in out.content
    assert "kept by salience in the room left" in out.note
    check_rules(text, out, budget)
    check_idempotent(out, Hint(tool="bash"), budget)


@pytest.mark.parametrize("case", [c for c in CASES if part_of(c.name) == "tuned"], ids=str)
def test_fallback_alone_keeps_the_rules_on_tuned_cases(case: Path) -> None:
    meta = json.loads((case / "meta.json").read_text(encoding="utf-8"))
    text = (case / "output.txt").read_text(encoding="utf-8")
    for budget in (Budget(max_chars=meta["budget_chars"]), Budget(meta["budget_chars"], 30, 100)):
        out = shrink(text, hint_of(meta), budget, only=[])
        check_rules(text, out, budget)
        check_idempotent(out, hint_of(meta), budget)


# segments ------------------------------------------------------------------------------------


def _http_json() -> str:
    body = {
        "items": [{"id": i, "name": f"item-{i}", "tags": ["a", "b"]} for i in range(300)],
        "total": 300,
        "next_page": "/api/items?page=2",
    }
    headers = ["HTTP/1.1 200 OK", "Content-Type: application/json", "X-Request-Id: 7f3a9c"]
    headers += [f"X-Trace-{i}: v{i}" for i in range(12)]
    return "\n".join(headers) + "\n\n" + json.dumps(body, indent=2) + "\n"


def test_headers_then_json_body_is_read_by_regions() -> None:
    text = _http_json()
    budget = Budget(max_chars=1500)
    out = shrink(text, Hint(tool="bash", command="curl -i https://x/api/items"), budget)
    assert out.strategy == "salience+json" and "regions read by json" in out.note
    for kept in ("HTTP/1.1 200 OK", "X-Request-Id: 7f3a9c", '"items": [', '"next_page"'):
        assert kept in out.content
    check_rules(text, out, budget)
    check_idempotent(out, Hint(tool="bash"), budget)


def test_regions_of_a_text_no_reducer_knows_are_left_to_salience() -> None:
    lines = split("\n".join(_routine(400)))
    assert segments.regions(lines, Hint(), Budget(2000), reducer_chain()) == []


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.sampled_from(["", "$ make test", "{", "plain words", "  indented", "==> step"]),
        max_size=400,
    )
)
def test_cut_covers_every_line_once_in_bounded_regions(rows: list[str]) -> None:
    lines = split("\n".join(rows) + ("\n" if rows else ""))
    parts = segments.cut(lines) if len(lines) else []
    if not len(lines):
        return
    assert parts[0][0] == 0 and parts[-1][1] == len(lines)
    assert all(a < b for a, b in parts)
    assert all(b == c for (_, b), (c, _) in pairwise(parts))
    assert len(parts) <= segments.MAX_REGIONS
    assert all(b - a >= segments.MIN_LINES for a, b in parts[:-1]) or len(parts) == 1


class _KeepsAlmostAll:
    """A reducer whose plan keeps all but one line at one priority: always over budget here."""

    name = "wide"

    @staticmethod
    def detect(text: str, hint: Hint) -> bool:
        return True

    @staticmethod
    def reduce(text: str, hint: Hint, budget: Budget) -> list[Keep]:
        n = len(split_lines(text))
        return [Keep(0, 1, 5), Keep(2, n, 5)]


def test_plan_over_budget_is_cut_by_salience_not_from_one_end() -> None:
    lines = ["run started", "noise", *_routine(1500)]
    lines[900] = "worker-1 ERROR: lost connection to db-2 (refused)"
    lines.append("== 3 failed, 40 passed in 12.1s ==")
    text = "\n".join(lines)
    budget = Budget(max_chars=1500)
    out = shrink(text, Hint(tool="bash"), budget, only=["wide"], extra=[_KeepsAlmostAll()])
    assert out.strategy == "wide+salience"
    for kept in ("run started", lines[900], "== 3 failed, 40 passed in 12.1s =="):
        assert kept in out.content
    check_rules(text, out, budget)


# false signals -------------------------------------------------------------------------------


def _score_of(lines: list[str], index: int) -> int:
    return Scores(split("\n".join(lines) + "\n"), Hint(tool="bash")).score.get(index, 0)


def test_a_denial_joined_to_its_word_is_no_signal() -> None:
    lines = _routine(200)
    lines[50] = ";; ->>HEADER<<- opcode: QUERY, status: NOERROR, id: 4120"
    lines[120] = ";; ->>HEADER<<- opcode: QUERY, status: REFUSED, id: 977"
    lines[150] = "compiled with no-error flags, nonfatal checks on"
    assert _score_of(lines, 50) < STRONG <= _score_of(lines, 120)
    assert _score_of(lines, 150) < STRONG


def test_only_a_one_letter_code_says_error() -> None:
    lines = _routine(200)
    lines[40] = "debug1: Server host key: ssh-ed25519 ED25519 SHA256:abcdef"
    lines[80] = "lib/geo.py:12:4: E1136: Value 'previous' is unsubscriptable"
    assert _score_of(lines, 40) < STRONG <= _score_of(lines, 80)


def test_numbered_lines_of_quoted_code_report_nothing() -> None:
    code = [
        ">> Issue: [B602:shell] subprocess call with shell=True identified, security issue.",
        "   Location: pkg/cli.py:955:37",
        "954\t            try:",
        "955\t                run(cmd, shell=True)",
        "956\t            except (OSError, SubprocessError):",
        "957\t                # failed to start, fall back to direct output",
        "958\t                raise RuntimeError(cmd)",
        "",
    ]
    lines = _routine(60) + code + _routine(60, seed=3)
    first = 60
    scores = Scores(split("\n".join(lines) + "\n"), Hint(tool="bash")).score
    for i in range(first + 2, first + 7):
        assert scores.get(i, 0) < HEADING, lines[i]
    traceback = [
        "Traceback (most recent call last):",
        '  File "app.py", line 3, in <module>',
        "    raise RuntimeError(cmd)",
        "RuntimeError: failed to start",
    ]
    lines = _routine(60) + traceback + _routine(60, seed=3)
    assert _score_of(lines, 63) >= STRONG


def test_a_short_line_that_names_a_directory_is_no_error() -> None:
    lines = [f"├── crate-{i} v0.{i}.0 (/ws/crate-{i})" for i in range(120)]
    lines[30] = "├── errors v0.3.0 (/ws/errors)"
    lines[90] = "error: failed to load manifest for errors"
    assert _score_of(lines, 30) < STRONG <= _score_of(lines, 90)


def test_the_subject_of_a_distinct_error_outranks_repeated_errors() -> None:
    lines: list[str] = []
    for k in range(40):
        lines += [f"k8s/svc-{k:02}.yaml", "  1:1  warning  missing document start"]
        lines += [f"  {k + 5}:3  error  trailing spaces  (trailing-spaces)"] * 3
        if k == 17:
            lines += ['  20:13  error  duplication of key "port" in mapping  (key-duplicates)']
        lines.append("")
    text = "\n".join(lines)
    subject = lines.index("k8s/svc-17.yaml")
    scores = Scores(split(text), Hint(tool="bash")).score
    error = subject + 5
    repeats = [i for i, line in enumerate(lines) if "trailing" in line and i != error - 1]
    assert scores[subject] > max(scores.get(i, 0) for i in repeats[3:-3])
    out = shrink(text, Hint(tool="bash"), Budget(max_chars=1200), only=[])
    assert "k8s/svc-17.yaml" in out.content and "duplication of key" in out.content
    check_rules(text, out, Budget(max_chars=1200))


def test_the_odd_one_among_repeated_errors_outranks_the_repeats() -> None:
    lines: list[str] = []
    for k in range(30):
        lines += [f"part{k:02}.cpp:6:15: error: call to deleted constructor", "    use(s);"]
        lines += [f'bundle: error: Could not resolve "./util/fmt{k % 3}.js"']
        lines.append("5 errors generated." if k == 11 else "2 errors generated.")
        if k == 20:
            lines.append('bundle: error: Could not resolve "lodash-es"')
    scores = Scores(split("\n".join(lines)), Hint(tool="bash")).score
    odd = [
        lines.index("5 errors generated."),
        lines.index('bundle: error: Could not resolve "lodash-es"'),
    ]
    repeats = [i for i, line in enumerate(lines) if "2 errors" in line or "fmt" in line]
    assert min(scores[i] for i in odd) > max(scores.get(i, 0) for i in repeats[4:-8])


def test_a_header_row_aligned_with_its_rows_is_kept() -> None:
    rng = random.Random(5)
    rows = [
        f"{rng.uniform(0, 1):9.2f}s {rng.uniform(0, 9):6.2f}% {rng.uniform(0, 99):6.2f}%"
        f" {rng.uniform(0, 2):9.2f}s {rng.uniform(0, 30):6.2f}%  pkg.func{i}"
        for i in range(400)
    ]
    header = "     flat   flat%   sum%        cum    cum%"
    lines = ["File: bench.test", "Type: cpu", *_routine(40), header, *rows]
    text = "\n".join(lines)
    assert Scores(split(text), Hint(tool="bash")).score.get(lines.index(header), 0) >= HEADING
    prose = [*_routine(40), "see the notes below   for details", *rows]
    assert Scores(split("\n".join(prose)), Hint(tool="bash")).score.get(40, 0) < HEADING
    out = shrink(text, Hint(tool="bash"), Budget(max_chars=1500), only=[])
    assert header in out.content


def test_the_location_under_a_distinct_error_is_its_subject() -> None:
    lines = _routine(300)
    lines[150:150] = [
        "",
        "error[E0425]: cannot find value `totl` in this scope",
        "   |",
        "  --> geo-cli/src/main.rs:16:21",
        "   |",
        "",
    ]
    assert _score_of(lines, 153) >= SUBJECT
    lines[151] = "note: the value `totl` is read in this scope"
    assert _score_of(lines, 153) < SUBJECT


def test_a_count_above_zero_in_a_template_of_zero_counts_is_a_signal() -> None:
    rows = [
        f"web{k:02}                      : ok=5    changed=2    unreachable=0    failed=0"
        "    skipped=1    rescued=0"
        for k in range(40)
    ]
    rows[23] = rows[23].replace("ok=5", "ok=3").replace("failed=0", "failed=1")
    lines = [*_routine(200), "PLAY RECAP ****", *rows, *_routine(30, seed=2)]
    text = "\n".join(lines)
    scores = Scores(split(text), Hint(tool="bash")).score
    failed = 201 + 23
    assert scores[failed] >= STRONG
    assert all(scores.get(i, 0) < STRONG for i in range(201, 241) if i != failed)
    out = shrink(text, Hint(tool="bash"), Budget(max_chars=1500), only=[])
    assert lines[failed] in out.content


def test_a_capitalised_file_name_in_a_path_is_no_error() -> None:
    lines = _routine(200)
    lines[60] = 'lib/Dpkg/ErrorHandling.pm: Subroutine "debug" does not end with "return" at line 9'
    lines[120] = "lib/Dpkg/Arch.pm: Error: cannot parse the architecture table at line 3"
    assert _score_of(lines, 60) < STRONG <= _score_of(lines, 120)


@pytest.mark.parametrize(
    "line",
    [
        "[3.801s][info][gc] GC(21) To-space exhausted",
        "ERROR: stack overflow in handler",
        "damaged.ts: corrupt input packet in stream 1",
        "Found one Java-level deadlock:",
        "write /var/lib/q/7.db: no space left on device",
    ],
)
def test_words_of_trouble_beyond_error_are_signals(line: str) -> None:
    lines = _routine(300)
    lines[150] = line
    assert _score_of(lines, 150) >= WEAK


def test_a_larger_budget_keeps_more_rare_rows_of_a_column_together() -> None:
    rng = random.Random(3)
    modes = ["-rwxr-xr-x"] * 700 + ["lrwxrwxrwx"] * 380 + ["-rwsr-xr-x"] * 14
    rng.shuffle(modes)
    lines = ["total 333356"] + [
        f"{mode}  1 root root {rng.randrange(1000, 90000):10} 2025-12-14 14:00 tool{i}"
        for i, mode in enumerate(modes)
    ]
    setuid = [i for i, line in enumerate(lines) if line.startswith("-rws")]
    small = Scores(split("\n".join(lines)), Hint(tool="bash"), 2000).score
    large = Scores(split("\n".join(lines)), Hint(tool="bash"), 4000).score
    assert not any(small.get(i, 0) >= COLUMN_RARE - MAX_OUTLIERS for i in setuid)
    assert all(large.get(i, 0) >= COLUMN_RARE - 2 * MAX_OUTLIERS for i in setuid)


def test_context_passes_over_a_line_kept_for_itself() -> None:
    lines = split("".join(f"line {i}\n" for i in range(10)))
    ranking = Ranking(lines, [], iter([(900, 5), (530, 6), (100, 0)]), iter(()))
    given: list[int] = []
    for i in ranking:
        given.append(i)
        ranking.kept(i)
        if len(given) == 4:
            break
    assert given == [5, 6, 4, 7]


def test_a_line_labelled_as_the_summary_or_result_is_a_summary() -> None:
    lines = _routine(300)
    lines[100] = "SUMMARY: AddressSanitizer: stack-buffer-overflow /tmp/ub.c:6 in main"
    lines[200] = "Result: PASS"
    lines[250] = "the summary of the result is below"
    scores = Scores(split("\n".join(lines)), Hint(tool="bash")).score
    assert scores[100] >= SUMMARY and scores[200] >= SUMMARY
    assert scores.get(250, 0) < SUMMARY


_SHAPES = st.sampled_from(
    [
        "",
        "  {n}│ raise ValueError(x)",
        "{n}\t    except OSError:",
        "web{n:02}   : ok={n}  unreachable=0  failed={z}",
        "status: NOERROR, id: {n}",
        "     flat  flat%   sum%",
        "  {n}.{z}s  {n}.0%  {z}.5%",
        "lib/Dpkg/ErrorHandling.pm: line {n}",
        "├── errors v0.{n}.0 (/ws/errors)",
        "SUMMARY: {n} leaks",
        'error: could not resolve "./util/fmt{z}.js"',
        "{n} errors generated.",
        "  --> src/main.rs:{n}:{z}",
        "ED25519 SHA256:{n}",
    ]
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rows=st.lists(
        st.tuples(_SHAPES, st.integers(0, 999), st.integers(0, 3)), min_size=1, max_size=250
    ),
    max_chars=st.integers(200, 3000),
)
def test_the_salience_rules_keep_the_four_rules_and_the_floor(
    rows: list[tuple[str, int, int]], max_chars: int
) -> None:
    text = "\n".join(shape.format(n=n, z=z) for shape, n, z in rows)
    budget = Budget(max_chars=max_chars, max_lines=0)
    scores = Scores(split(text), Hint(tool="bash"), max_chars).score
    assert all(0 < value <= 1000 for value in scores.values())
    result = shrink(text, Hint(tool="bash"), budget, only=[])
    check_rules(text, result, budget)
    check_idempotent(result, Hint(tool="bash"), budget)
    if result.reduced:
        shown = {span.start for span in result.kept if span.kind == "line"}
        assert _floor_lines(text, max_chars) <= shown
