"""The demo conversation: four turns of work on "ledgerline", independent of any file format.

`demo_script(seed)` gives the turns; each step is what the assistant said and the commands it
ran, with their (procedurally generated, deterministic) outputs. The format writers in
`klipui.demo.build` turn the same script into each agent's native lines.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from klipui.demo import outputs


@dataclass(slots=True)
class Call:
    """One tool call: a shell command (or a file read) and what it printed."""

    id: str
    command: str
    output: str
    exit_code: int
    read_path: str | None = None
    """Set when the call reads a file rather than running a command."""

    @property
    def failed(self) -> bool:
        return self.exit_code != 0


@dataclass(slots=True)
class Step:
    """One model response: optional reasoning and text, then zero or more tool calls."""

    text: str
    thinking: str = ""
    calls: list[Call] = field(default_factory=list)


@dataclass(slots=True)
class Turn:
    prompt: str
    steps: list[Step]


Maker = Callable[[random.Random], tuple[str, int]]


def demo_script(seed: int, call_prefix: str) -> list[Turn]:
    """The four demo turns; call ids are `<call_prefix><n>` (the formats differ in id style)."""
    rng = random.Random(seed)
    counter = iter(range(1, 1000))

    def call(command: str, maker: Maker, read_path: str | None = None) -> Call:
        output, code = maker(rng)
        return Call(
            f"{call_prefix}{next(counter):02d}{rng.getrandbits(32):08x}",
            command,
            output,
            code,
            read_path,
        )

    return [
        Turn(
            "The CI run on main is red. Can you find out which tests fail and why?",
            [
                Step(
                    "I'll run the whole suite verbosely to see exactly which tests fail.",
                    "Start with the full test run; the CI log only shows the summary.",
                    [call("python -m pytest -v", outputs.pytest_run)],
                ),
                Step(
                    "Five failures, all totals off by a cent or so. They all go through the "
                    "posting module, so let me read how it rounds.",
                    "Every failure is a Decimal total off by a small amount: rounding, not logic.",
                    [call("cat src/posting/mod.rs", outputs.source_file, "src/posting/mod.rs")],
                ),
                Step(
                    "The failing tests all post batches whose totals are rounded per entry with "
                    "half-up rounding, while the expected values round the batch total half-even. "
                    "Rounding once, at the batch total, with `MidpointNearestEven` fixes all five."
                ),
            ],
        ),
        Turn(
            "Go ahead and fix it, then check that the release build still compiles.",
            [
                Step(
                    "Applied the change to round at the batch level. Building in release mode.",
                    "The signature of `lookup` changes; the build will tell me where.",
                    [call("cargo build --release", outputs.cargo_build)],
                ),
                Step(
                    "Three type errors where callers still expect the old return type, plus "
                    "warnings that were already there. Fixed the callers; here is the diff.",
                    "",
                    [call("git diff", outputs.git_diff)],
                ),
                Step(
                    "The build is fixed: the three callers now take the new `Decimal` totals. The "
                    "warnings are old unused variables and imports; I left them alone."
                ),
            ],
        ),
        Turn(
            "Ops says the server crashed last night around midnight. What happened?",
            [
                Step(
                    "Looking at the end of the application log first.",
                    "",
                    [call("tail -n 800 logs/app.log", outputs.app_log)],
                ),
                Step(
                    "A reconcile job hit a KeyError for an account id and the worker restarted. "
                    "Let me check the live status for that account.",
                    "The KeyError names an account id: is it still in the status document?",
                    [call("curl -s localhost:8080/api/status | jq .", outputs.json_status)],
                ),
                Step(
                    "The crash came from the reconcile job: an entry referenced an account that "
                    "was closed during the run, so the index lookup raised KeyError and took "
                    "worker-3 down. It restarted cleanly. The job should skip closed accounts."
                ),
            ],
        ),
        Turn(
            "Last thing: what is taking all the space in data/?",
            [
                Step(
                    "Listing the data folder recursively.",
                    "",
                    [call("ls -laR data", outputs.dir_listing)],
                ),
                Step(
                    "Most of the space is monthly parquet and gzip exports in the importer and "
                    "reports folders; the csv files are small. Archiving exports older than a "
                    "year would free most of it."
                ),
            ],
        ),
    ]
