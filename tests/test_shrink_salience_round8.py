"""Salience, round 8: names quoted in an error link the lines that name them again, `key=value`
fields with a value of their own, and exceptions among repeated errors."""

from __future__ import annotations

from klipui.shrink import Budget, Hint, shrink
from klipui.shrink.salience import (
    ECHO,
    ODD_VALUE,
    RED,
    SUBJECT,
    WEAK,
    WEAK_WHERE,
    Scores,
    _by_score,
    _novel,
)
from klipui.shrink.text import split

BASH = Hint(tool="bash")
MODULES = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
]


def _submodules(broken: str) -> str:
    """A submodule update where one module's fetch fails, then the status of every module."""
    out = [f"Submodule path 'libs/{m}': checked out 'abc{k}'" for k, m in enumerate(MODULES)]
    out.append(f"fatal: Fetched in submodule path 'libs/{broken}', but it did not contain 123abc.")
    out += [
        f"{'+' if m == broken else ' '}deadbeef{k} libs/{m} (heads/main)"
        for k, m in enumerate(MODULES)
    ]
    return "\n".join(out)


def test_a_name_quoted_in_an_error_lifts_the_lines_that_name_it_again() -> None:
    text = _submodules("delta")
    lines = split(text)
    score = Scores(lines, BASH).score
    status = len(MODULES) + 1 + MODULES.index("delta")
    assert lines.lines[status].startswith("+")
    assert score.get(status, 0) >= ECHO
    assert score.get(status - 2, 0) < ECHO and score.get(status + 2, 0) < ECHO


def test_the_status_line_of_the_failed_module_survives_a_tight_budget() -> None:
    text = _submodules("delta")
    out = shrink(text, BASH, Budget(max_chars=len(text) * 2 // 3)).content
    assert "+deadbeef3 libs/delta (heads/main)" in out


def _scan(open_ports: dict[int, str]) -> str:
    """A port scan: a refused connection on every port but the open ones (port: service)."""
    return "\n".join(
        f"Connection to 10.0.0.1 {port} port [tcp/{open_ports[port]}] succeeded!"
        if port in open_ports
        else f"scan: connect to 10.0.0.1 port {port} (tcp) failed: Connection refused"
        for port in range(1, 120)
    )


def test_an_exception_among_errors_that_are_most_of_the_output_outranks_their_middle() -> None:
    lines = split(_scan({37: "time", 81: "web"}))
    score = Scores(lines, BASH).score
    refused_middle = max(score.get(i, 0) for i in range(20, 100) if i not in (36, 80))
    assert min(score[36], score[80]) > refused_middle


def test_the_open_ports_survive_the_salience_fallback() -> None:
    text = _scan({37: "time", 81: "web"})
    out = shrink(text, BASH, Budget(max_chars=2000), only=[]).content
    assert "10.0.0.1 37 port" in out and "10.0.0.1 81 port" in out


def _requests(odd: dict[int, str]) -> list[str]:
    """Access records in `key=value` fields, every status 200 but the `odd` ones (line: status)."""
    paths = ["/", "/cart", "/login", "/items", "/search", "/about"]
    return [
        f"at=info method=GET path={paths[k % len(paths)]} id=r{k:04} status={odd.get(k, '200')}"
        f" bytes={300 + 37 * k}"
        for k in range(40)
    ]


def test_a_key_value_field_with_an_answer_of_its_own_ranks() -> None:
    lines = split("\n".join(_requests({17: "503"})))
    score = Scores(lines, BASH).score
    assert score.get(17, 0) >= ODD_VALUE
    assert all(score.get(i, 0) < ODD_VALUE for i in range(5, 35) if i != 17)


def test_no_field_is_odd_when_the_answers_do_not_agree() -> None:
    statuses = {k: str(200 + k % 5) for k in range(40)}
    lines = split("\n".join(_requests(statuses)))
    score = Scores(lines, BASH).score
    assert all(score.get(i, 0) < ODD_VALUE for i in range(5, 35))


def _lint(sudo_in: set[int]) -> list[str]:
    """A linter over 12 files: warnings of two kinds in each, an error in the `sudo_in` ones."""
    out: list[str] = []
    for k, name in enumerate(MODULES[:12]):
        out.append(f"svc/{name}/Dockerfile:1 warning: Pin versions in apt get install")
        if k in sudo_in:
            out.append(f"svc/{name}/Dockerfile:{k + 2} error: Do not use sudo")
        out.append(f"svc/{name}/Dockerfile:{k + 3} warning: Use WORKDIR to switch to a directory")
    return out


def test_the_middle_of_a_few_repeated_errors_outranks_warnings() -> None:
    lines = split("\n".join(_lint({2, 5, 8, 11})))
    score = Scores(lines, BASH).score
    errors = [i for i, line in enumerate(lines.lines) if "error:" in line]
    warnings = [i for i, line in enumerate(lines.lines) if "warning:" in line]
    assert len(errors) == 4
    assert min(score[i] for i in errors) > max(score.get(i, 0) for i in warnings[3:-6])


def test_the_middle_of_many_repeated_errors_stays_below_warnings() -> None:
    lines = split("\n".join(_lint(set(range(1, 11)))))
    score = Scores(lines, BASH).score
    errors = [i for i, line in enumerate(lines.lines) if "error:" in line]
    assert max(score[i] for i in errors[1:-1]) < WEAK


def test_where_a_distinct_error_is_outranks_the_last_warnings() -> None:
    warnings = [
        f"warning: unused variable `{name}`\n  |\n  = note: on by default\n" for name in MODULES
    ]
    errors = [
        "error: mismatched types\n  |\n  at src/main.rs:16:21\n  = expected u32\n",
        "error: no method named `ceil` found\n  |\n  at src/geo.rs:7:3\n  = in this scope\n",
    ]
    text = "\n".join([*warnings, *errors, "build failed"])
    lines = split(text)
    score = Scores(lines, BASH).score
    where = [i for i, line in enumerate(lines.lines) if "  at src/" in line]
    told = [i for i, line in enumerate(lines.lines) if line.startswith("warning:")]
    assert min(score[i] for i in where) > max(score.get(i, 0) for i in told[1:])


def _hits_log(failed: set[int]) -> str:
    """A load test's hits, blue, but the `failed` ones red (the same words but the status)."""
    out = []
    for k in range(200):
        colour, status = ("31", 500) if k in failed else ("34", 200)
        out.append(f"\x1b[0;{colour}mHTTP/1.1 {status}  0.{k % 10}0 secs: GET /r?n={k}\x1b[0m")
    return "\n".join(out)


FAILED = {52, 90, 120, 140, 160}


def test_a_line_the_tool_coloured_red_ranks() -> None:
    lines = split(_hits_log(FAILED))
    score = Scores(lines, BASH).score
    assert min(score.get(i, 0) for i in FAILED) >= RED
    assert all(score.get(i, 0) < RED for i in range(20, 180) if i not in FAILED)


def test_red_is_no_signal_when_most_coloured_lines_are_red() -> None:
    lines = split(_hits_log(set(range(30, 170))))
    score = Scores(lines, BASH).score
    assert all(score.get(i, 0) < RED for i in range(20, 180))


def test_among_equal_scores_a_line_that_says_something_said_nowhere_else_comes_first() -> None:
    lines = split(
        "\n".join(
            [
                "step 1 of the build done",
                "step 2 of the build done",
                "step 3: the cache was stale",
                "step 4 of the build done",
            ]
        )
    )
    score = {0: 400, 1: 400, 2: 400, 3: 400}
    novel = _novel(lines)
    assert novel == {2}
    assert next(i for _, i in _by_score(score, novel)) == 2
    assert next(i for _, i in _by_score(score)) == 3  # without: the last first


def _ldd(missing_in: str) -> str:
    """Shared libraries of three programs, one library of `missing_in` not found (no blank
    line between the programs)."""
    out = []
    for program in ("build/bin/kvtool", "build/bin/kvtool-ext", "/usr/bin/curl"):
        out.append(f"== {program}")
        out += [
            f"\tlib{name}.so.1 => /lib/lib{name}.so.1 (0x7f00{k:04x})"
            for k, name in enumerate(MODULES[:8])
        ]
        if program == missing_in:
            out.append("\tlibkvext.so.2 => not found")
        out += [
            f"\t\tlib{name}.so.1 (GLIBC_2.{k}) => /lib/lib{name}.so.1"
            for k, name in enumerate(MODULES[:8])
        ]
    return "\n".join(out)


def test_the_outdented_line_above_a_distinct_error_is_its_subject() -> None:
    lines = split(_ldd("build/bin/kvtool-ext"))
    score = Scores(lines, BASH).score
    header = lines.lines.index("== build/bin/kvtool-ext")
    assert score.get(header, 0) >= SUBJECT
    assert score.get(lines.lines.index("== /usr/bin/curl"), 0) < SUBJECT


def test_the_location_under_a_warning_seen_once_ranks_even_in_colour() -> None:
    blocks = [
        f"\x1b[33mwarning[name]\x1b[0m: task {name} should be named\n"
        f"\x1b[35mroles/{name}/tasks/main.yml\x1b[0m:{k + 2}\n"
        for k, name in enumerate(MODULES)
    ]
    blocks.insert(
        6,
        "\x1b[33msyntax-check[unknown-module]\x1b[0m: no module copyy\n"
        "\x1b[35mroles/backup/tasks/main.yml\x1b[0m:40:3\n",
    )
    lines = split("\n".join(blocks))
    score = Scores(lines, BASH).score
    where = next(i for i, line in enumerate(lines.lines) if "backup/tasks" in line)
    assert score.get(where, 0) >= WEAK_WHERE


def test_an_unscored_line_with_a_word_said_nowhere_else_is_kept_before_blind_ends() -> None:
    words = MODULES
    rows = [f"{words[k % 13]} {words[(k // 13) % 13]} {words[(k // 169) % 13]}" for k in range(150)]
    rows.insert(75, "bravo quokka alpha")
    text = "\n".join(rows)
    out = shrink(text, BASH, Budget(max_chars=len(text) // 3), only=[]).content
    assert "bravo quokka alpha" in out
