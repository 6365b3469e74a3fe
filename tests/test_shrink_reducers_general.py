"""Shape reducers on variants they were not written for: general rules, on crafted text.

Each test states one rule a reducer follows whatever tool printed the text: a summary never
hides a rare kind of line, repeats are grouped, a reducer declines what is mostly not its shape.
"""

from __future__ import annotations

from klipui.shrink import Budget, Hint, shrink


def _reflog() -> tuple[str, list[str]]:
    """A reflog-like one-line log: a long run of one kind of entry, a few rare entries inside."""
    rows = ["9f1c2d3 HEAD@{0}: checkout: moving from main to topic"]
    rare = {
        5: "4b7e9a1 HEAD@{5}: reset: moving to HEAD~12",
        31: "c0ffee7 HEAD@{31}: merge feature/x: Fast-forward",
        58: "d15ea5e HEAD@{58}: commit: Quick experiment with the pool size",
    }
    for k in range(1, 90):
        routine = f"{k:07x} HEAD@{{{k}}}: rebase (pick): Adjust knob {k % 17} step {k}"
        rows.append(rare.get(k, routine))
    rows.append("1234567 HEAD@{90}: clone: from https://example.test/repo.git")
    return "\n".join(rows) + "\n", list(rare.values())


def test_gitlog_summary_never_hides_a_rare_kind_of_entry() -> None:
    text, rare = _reflog()
    out = shrink(text, Hint(tool="bash", command="git reflog"), Budget(max_chars=1_500))
    assert out.strategy.startswith("gitlog")
    assert len(out.content) <= 1_500
    for line in rare:
        assert line in out.content
    lines = text.splitlines()
    # the run of routine entries shows its newest and its oldest entry
    assert lines[1] in out.content and lines[89] in out.content


def test_gitlog_without_repeats_has_no_rare_kind() -> None:
    """In a log where every subject differs, no commit is rare: the plan keeps the newest ones
    and summarises the rest, as before."""
    words = [
        "parser",
        "lexer",
        "cache",
        "pool",
        "router",
        "store",
        "index",
        "shard",
        "queue",
        "codec",
    ]
    rows = [
        f"{k:07x} {verb} the {noun} for the {other} path"
        for k, (verb, noun, other) in enumerate(
            (v, n, o) for v in ("Fix", "Add", "Drop", "Speed up") for n in words for o in words[:3]
        )
    ]
    text = "\n".join(rows) + "\n"
    out = shrink(text, Hint(tool="bash", command="git log --oneline"), Budget(max_chars=1_200))
    assert out.strategy.startswith("gitlog")
    kept = [row for row in rows if row in out.content]
    assert rows[0] in kept and rows[-1] in kept
    assert len(kept) < len(rows) // 4
