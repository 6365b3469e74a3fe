"""Round 10: records and sections, each rule stated on crafted text."""

from __future__ import annotations

from klipui.shrink import Budget, Hint, shrink
from klipui.shrink.salience import ODD_RECORD, Scores
from klipui.shrink.text import split


def _thread_dump(stuck: dict[int, str]) -> str:
    """An `eu-stack`-like dump: one record per thread headed `TID n:`, no blank lines between
    records; the threads in `stuck` wait in their own function."""
    out = ["PID 4100 - process"]
    for k in range(24):
        tid = 4101 + k
        out.append(f"TID {tid}:")
        waits = stuck.get(k)
        frames = (
            ["futex_wait", "__lll_lock_wait", waits, "start_thread", "__clone3"]
            if waits
            else ["__futex_wait_common64", "__pthread_cond_wait", "worker", "start_thread"]
        )
        for depth, name in enumerate(frames):
            out.append(f"#{depth}  0x00007f89591{depth:02d}f16 - 1 {name} - /usr/lib/libc.so.6")
            out.append(f"    ./nptl/{name}.c:{40 + depth}:{depth + 3}")
    return "\n".join(out) + "\n"


def test_a_kept_line_in_a_middle_record_brings_the_record_name() -> None:
    text = _thread_dump({11: "update_routes", 12: "update_peers"})
    out = shrink(text, Hint(tool="bash", command="eu-stack -p 4100"), Budget(max_chars=1800))
    assert "update_routes - /usr/lib/libc.so.6" in out.content
    assert "TID 4112:" in out.content
    assert "TID 4113:" in out.content


def test_record_subjects_stop_at_a_blank_line() -> None:
    blocks = []
    for k in range(12):
        body = ["Lines executed:66.67% of 9", "Calls executed:0.00% of 1"]
        blocks.append("\n".join([f"File 'mod{k:02d}.c'", *body, f"Creating 'mod{k:02d}.c.gcov'"]))
    blocks[6] += "\n\nsomething odd happened here, once"
    lines = split("\n\n".join(blocks) + "\n")
    scores = Scores(lines, Hint(tool="bash", command="gcov *.c"), 600)
    odd = lines.lines.index("something odd happened here, once")
    assert odd not in scores.subjects  # a block of its own, not a line of mod06's record
    kept = [i for i, start in scores.subjects.items() if lines.lines[start] == "File 'mod06.c'"]
    assert kept == []


def _coverage_report(untested: set[int]) -> str:
    """A `gcov -b`-like report: one block per source file, the `untested` ones at 0.00%."""
    blocks = []
    for k in range(30):
        lines, branches = (
            ("0.00", "0.00") if k in untested else (("66.67", "60.00"), ("100.00", "100.00"))[k % 2]
        )
        blocks.append(
            "\n".join(
                [
                    f"File 'mod{k:02d}.c'",
                    f"Lines executed:{lines}% of 9",
                    f"Branches executed:{branches}% of 10",
                    "Calls executed:0.00% of 1",
                    f"Creating 'mod{k:02d}.c.gcov'",
                ]
            )
        )
    return "\n\n".join(blocks) + "\n"


def test_the_record_whose_fields_few_records_share_ranks_with_its_name() -> None:
    text = _coverage_report({13, 21})
    out = shrink(text, Hint(tool="bash", command="gcov -b *.c"), Budget(max_chars=1200))
    for name in ("mod13.c", "mod21.c"):
        assert f"File '{name}'\nLines executed:0.00% of 9" in out.content


def test_a_field_every_record_shares_makes_no_record_unusual() -> None:
    lines = split(_coverage_report(set()))
    scores = Scores(lines, Hint(tool="bash", command="gcov -b *.c"), 1200)
    middle = lines.lines.index("File 'mod13.c'")
    assert scores.score.get(middle + 1, 0) < ODD_RECORD - 50
