"""Round 11: the words and letters of trouble, each rule stated on crafted text."""

from __future__ import annotations

from klipui.shrink import Budget, Hint, shrink
from klipui.shrink.reducers import outline
from klipui.shrink.salience import STRONG, WEAK, Scores
from klipui.shrink.text import split


def _report(odd: dict[int, str]) -> str:
    """200 routine lines of a checker, with the lines of `odd` at their indices."""
    lines = [f"I: acme-agent: checked file {k:03d} in {k % 9} ms" for k in range(200)]
    for index, line in odd.items():
        lines[index] = line
    return "\n".join(lines) + "\n"


def test_a_line_led_by_an_error_letter_is_a_strong_signal() -> None:
    text = _report({100: "E: acme-agent: no-copyright-file", 140: "see section E: of the guide"})
    scores = Scores(split(text), Hint(tool="bash", command="lintian pkg.deb")).score
    assert scores[100] >= STRONG
    assert scores.get(140, 0) < WEAK


def test_a_line_led_by_a_warning_letter_is_a_weak_signal() -> None:
    text = _report({100: "W: acme-agent: script-not-executable [usr/lib/acme/helper.sh]"})
    scores = Scores(split(text), Hint(tool="bash", command="lintian pkg.deb")).score
    assert WEAK <= scores[100] < STRONG


def test_words_of_trouble_beyond_error_are_strong_signals() -> None:
    odd = {
        60: "Illegal division by zero at /usr/bin/tuner line 6024.",
        90: "config: malformed entry in section [cache]",
        120: "TLS: certificate expired on 2026-01-02",
        150: "STARTTLS: unexpected response from the server",
    }
    scores = Scores(split(_report(odd)), Hint(tool="bash", command="tuner")).score
    assert all(scores[i] >= STRONG for i in odd)


def _java_class(methods: int) -> str:
    """A `cat -n` read of a Java class: a licence header, then methods with bodies."""
    out = [" * licence text line, nothing to see here" for _ in range(40)]
    out.append("public class Pool extends AbstractExecutorService {")
    for k in range(methods):
        out.append(f"    private boolean addWorker{k}(Runnable task, boolean core) {{")
        out += [f"        int c{j} = ctl.get() + {j};" for j in range(12)]
        out.append("    }")
    out.append("}")
    return "".join(f"{n:6}\t{line}\n" for n, line in enumerate(out, 1))


def test_a_read_java_file_keeps_its_class_and_member_definitions() -> None:
    text = _java_class(30)
    out = shrink(text, Hint(tool="read", path="Pool.java"), Budget(max_chars=2500))
    assert out.strategy.startswith("outline")
    assert "public class Pool extends AbstractExecutorService {" in out.content
    kept = [k for k in range(30) if f"addWorker{k}(Runnable task" in out.content]
    assert len(kept) >= 15


def test_a_c_function_with_its_brace_on_the_next_line_is_a_definition() -> None:
    body = [
        "    size_t i;",
        "    long total = 0;",
        "    if (values == NULL)",
        "        return -1;",
        "    for (i = 0; i < n; i++)",
        "        total += values[i];",
        '    fprintf(stderr, "sum: %ld\\n", total);',
        "    return (int) total;",
    ]
    functions = ["#include <stdio.h>", ""]
    for k in range(20):
        functions += [f"static int sum_{k}(const int *values, size_t n)", "{", *body, "}", ""]
    text = "\n".join(functions) + "\n"
    out = shrink(text, Hint(tool="read", path="sum.c"), Budget(max_chars=1500))
    assert out.strategy.startswith("outline")
    assert sum(f"static int sum_{k}(const int *values" in out.content for k in range(20)) >= 8


def test_calls_and_control_statements_are_no_c_definitions() -> None:
    lines = ["import os", "PATHS = {}", ""]
    for k in range(30):
        lines += [f"def handler_{k}(event):", f"    raise TimeoutExpired(event, {k})", "    {}"]
    lines += ["    if (ready) {", "    } else if (retry(n)) {", "    while (more(x)) {", "    }"]
    text = "\n".join(lines) + "\n"
    split_text = split(text)
    top, members = outline._c_definitions(text, split_text.starts, len(split_text.lines))
    assert (top, members) == ([], [])
