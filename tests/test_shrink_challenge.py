"""A reducer's plan checked against salience's ranking by the line model (`pipeline._challenge`)."""

from __future__ import annotations

import re

from conftest import corpus_case

from klipui.shrink import Budget, Hint, shrink
from klipui.shrink.pipeline import CHALLENGED

JAVAC_THEN_JAVA = "2550-javac-xlint-all-warnings-then-java-ledger-import-caused-by-datetimeparse"


def _shrunk(name: str, **options: object):  # type: ignore[no-untyped-def]
    text, meta = corpus_case(name)
    hint = Hint(tool=meta["tool"], command=meta["command"])
    return shrink(text, hint, Budget(max_chars=meta["budget_chars"]), **options), meta


def test_a_build_plan_that_drops_the_run_after_it_gives_way() -> None:
    """javac's warnings, then the program's run dying with a chained exception: the build plan
    kept only the warnings; salience's ranking keeps the warning, the cause and the frame."""
    out, meta = _shrunk(JAVAC_THEN_JAVA)
    assert out.strategy in ("salience", "build+salience")
    assert "plan set aside" in out.note
    assert not [s for s in meta["must_keep"] if s not in out.content]
    assert len(out.content) <= meta["budget_chars"]


def test_a_reducer_named_alone_is_never_challenged() -> None:
    out, _ = _shrunk(JAVAC_THEN_JAVA, only=["build"])
    assert out.strategy == "build"
    assert "Caused by: java.lang.IllegalArgumentException" not in out.content


def test_a_query_keeps_the_reducers_plan() -> None:
    text, meta = corpus_case(JAVAC_THEN_JAVA)
    hint = Hint(tool="bash", command=meta["command"], query="deprecated warning")
    out = shrink(text, hint, Budget(max_chars=meta["budget_chars"]))
    assert not out.strategy.startswith("salience")


def test_summaries_survive_the_challenge() -> None:
    """A build's flood of one warning still shows as one exact count when salience ranks the
    rest (`[x60] warning: …`)."""
    parts = ["-- configuring"] * 3
    for i in range(60):
        parts += [f"[{i + 1}/61] Building CXX object src/f{i}.cpp.o"]
        parts += [f"src/f{i}.cpp:2:9: warning: unused variable ‘v{i}’ [-Wunused-variable]"]
        parts += [f"    2 | int v{i} = {i};"]
    parts += ["main.cpp:(.text+0x1f): undefined reference to `go()'", "ninja: build stopped."]
    out = shrink("\n".join(parts) + "\n", Hint(command="ninja"), Budget(max_chars=2_000))
    assert out.strategy.startswith("build")
    assert re.search(r"^\[x60\] warning: unused variable", out.content, re.M)
    assert "undefined reference to `go()'" in out.content


def test_structure_first_reducers_are_not_challenged() -> None:
    assert {"gitlog", "diff", "tree", "grep", "outline", "json", "sql", "log", "lint"}.isdisjoint(
        CHALLENGED
    )
