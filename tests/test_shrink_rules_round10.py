"""Round 10: records and sections, each rule stated on crafted text."""

from __future__ import annotations

from klipui.shrink import Budget, Hint, shrink
from klipui.shrink.salience import HEADING, ODD_RECORD, Scores
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


def _device_report(faults: dict[tuple[int, int], int]) -> str:
    """An `iostat`-like report: a header row over one row per device, printed again for each
    interval; `faults[(interval, device)]` is that row's error count (0 elsewhere)."""
    out = []
    for k in range(30):
        out.append("Device        tps    rkB/s    wkB/s   errors")
        for d, name in enumerate(("sda", "sdb", "nvme0n1")):
            errors = faults.get((k, d), 0)
            out.append(f"{name:<10}{12 + k + d:>5}.0{100 + 3 * k:>8}.0{200 + d:>8}.0{errors:>9}")
        out.append("")
    return "\n".join(out) + "\n"


def test_header_rows_repeated_over_each_section_rank_once_at_each_end() -> None:
    lines = split(_device_report({}))
    scores = Scores(lines, Hint(tool="bash", command="iostat -d 1 30"), 2000)
    headers = [i for i, line in enumerate(lines.lines) if line.startswith("Device")]
    headings = [i for i in headers if scores.score.get(i, 0) >= HEADING]
    assert headings == [headers[0], headers[-1]]


def test_the_rows_that_differ_outrank_repeated_header_rows() -> None:
    text = _device_report({(11, 1): 3, (19, 2): 7})
    out = shrink(text, Hint(tool="bash", command="iostat -d 1 30"), Budget(max_chars=900))
    assert "sdb          24.0     133.0     201.0        3" in out.content
    assert "nvme0n1      33.0     157.0     202.0        7" in out.content


def _checker_passes(problems: list[str], late: list[str]) -> str:
    """An `xfs_repair`-like run: each pass reports the same `problems` again among routine
    progress lines; the last pass reports `late` problems of its own."""
    out = ["Phase 1 - find and verify superblock...", "        - reporting progress", ""]
    for phase in range(2, 5):
        out.append(f"Phase {phase} - checking the inodes of each group...")
        for group in range(8):
            out.append(f"        - agno = {group}")
            out += [problems[group]] if group < len(problems) else []
    out.append("Phase 5 - checking directory connectivity...")
    for k in range(30):
        out.append(f"        - traversing directory inode {300 + k}")
    out += late
    out += ["No modify flag set, skipping filesystem flush and exiting.", "exit=1"]
    return "\n".join(out) + "\n"


CHECKER_PROBLEMS = [
    "bad CRC for inode 101, would rewrite",
    "bad magic number 0x0 on inode 260",
    "UUID mismatch on inode 191",
    "would have cleared inode 296",
    "inode 257 - bad extent overflows - start 836, end 66111",
    "free inode 677 contains errors, would correct",
]
"""Problems a checker reports in each of its passes."""


def test_a_problem_reported_again_ranks_once() -> None:
    problems = CHECKER_PROBLEMS
    lines = split(_checker_passes(problems, ["would rebuild directory inode 173"]))
    scores = Scores(lines, Hint(tool="bash", command="xfs_repair -n disk.img"), 2000)
    for problem in problems:
        copies = [i for i, line in enumerate(lines.lines) if line == problem]
        assert len(copies) == 3
        assert len([i for i in copies if i in scores.score]) == 1


def test_a_late_problem_is_kept_before_copies_of_earlier_ones() -> None:
    problems = CHECKER_PROBLEMS
    late = [f"disconnected inode {655489 + k}, would move to lost+found" for k in range(21)]
    text = _checker_passes(problems, ["would rebuild directory inode 173", *late])
    out = shrink(text, Hint(tool="bash", command="xfs_repair -n disk.img"), Budget(max_chars=1000))
    assert "would rebuild directory inode 173" in out.content
