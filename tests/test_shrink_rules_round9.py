"""Round 9: rules found on the tuned cases of the batch 400–479, each stated on crafted text."""

from __future__ import annotations

from klipui.shrink import Budget, Hint, shrink

UNITS = [
    f"example.org/shop/{area}/{name}"
    for area in ("core", "edge")
    for name in "abcdefghijklmnopqrst"
]


def _unit_results(failing: dict[int, list[str]]) -> str:
    """`go test ./...`-like output: one result line per package, the failing packages' own
    output printed just before their `FAIL` line."""
    out: list[str] = []
    for k, unit in enumerate(UNITS):
        if k in failing:
            out += failing[k]
            out.append(f"FAIL\t{unit}\t0.00{k % 10}s")
        else:
            out.append(f"ok  \t{unit}\t0.0{k % 10}1s")
    out += ["FAIL", "exit=1"]
    return "\n".join(out) + "\n"


def test_what_a_failing_unit_printed_ranks_above_the_passing_units() -> None:
    text = _unit_results(
        {
            5: ["inventory: STOCK_DSN not set, cannot open the fixture database"],
            23: [
                "--- FAIL: TestRound (0.00s)",
                "panic: index out of range [3] with length 3 [recovered]",
                "goroutine 7 [running]:",
                "testing.tRunner.func1()",
                "\t/usr/lib/go/src/testing/testing.go:1399 +0x39f",
                "example.org/shop/edge/d.TestRound(0x0?)",
                "\t/src/shop/edge/d/round_test.go:21 +0x1d",
            ],
        }
    )
    out = shrink(text, Hint(tool="bash", command="go test ./..."), Budget(max_chars=900))
    assert out.strategy.startswith("tests")
    assert "inventory: STOCK_DSN not set, cannot open the fixture database" in out.content
    assert "\t/src/shop/edge/d/round_test.go:21 +0x1d" in out.content
    assert "panic: index out of range [3] with length 3 [recovered]" in out.content
