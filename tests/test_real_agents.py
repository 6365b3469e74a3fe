"""Fidelity in the real agents: every child klipui writes is resumed by the agent that owns its
format (Claude Code, Codex, pi, DeepSeek Harness), offline against a loopback stand-in API.

For every sample its agent accepts as shipped (tests/fixtures/agent_acceptance.json), clipped
with `..`, `1`, `-1`, `1..2`, a middle range with a `not`, and selections cutting through
compaction or sidechains where the sample has them, plus its `klipui compact` child: the agent
accepts the child, rebuilds exactly the prompts of the kept turns it should show, in order,
answers every tool call, and reports no ordering problem. A `..` child is rebuilt exactly as
the parent. The whole matrix runs once per module, two agents at a time.

Skipped when the agents (`../shared/tools/install-agents.sh [--with-dsh]`) or resume_check.py
are not there; see tests/fidelity_matrix.py for how expectations are made.
"""

from __future__ import annotations

import fidelity_matrix as fm
import pytest

pytestmark = pytest.mark.real_agents

AGENTS = [agent for agent in ("claude", "codex", "pi", "dsh") if fm.installed(agent)]
if not AGENTS:
    pytest.skip(
        "the real agents are not installed (../shared/tools/install-agents.sh)",
        allow_module_level=True,
    )
CASES = fm.cases(AGENTS)

DSH_COMPACTION = "klip's dsh rules drop compaction blocks whole (research/klip.md §3)"


@pytest.fixture(scope="module")
def outcomes() -> dict[str, fm.Outcome]:
    return {case.key: outcome for case, outcome in zip(CASES, fm.run_matrix(CASES), strict=True)}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.key)
def test_the_agent_resumes_the_child_with_the_kept_turns(case: fm.Case, outcomes):
    outcome = outcomes[case.key]
    assert outcome.accepted, outcome.error
    assert outcome.rebuilt_turns == outcome.expected_turns, (
        f"expected {outcome.expected}, the agent sent {outcome.rebuilt}"
    )
    assert outcome.all_calls_answered, outcome.problems
    assert outcome.problems == []
    if case.label == "compact":
        assert outcome.originals_sent == 0, "the agent still sent a full original"
        assert outcome.locators_sent or not outcome.replaced, "no shrunk result reached the agent"


def test_compact_children_shrank_something_for_every_agent(outcomes):
    compacted = [o for o in outcomes.values() if o.label == "compact"]
    shrunk = {o.agent for o in compacted if o.replaced}
    assert shrunk >= {o.agent for o in compacted} - {"codex"}, "codex samples hold no big result"


def test_a_child_of_everything_is_rebuilt_as_its_parent(outcomes):
    checked = 0
    for outcome in outcomes.values():
        if outcome.label != "all" or outcome.same_as_parent is None:
            continue
        if outcome.agent == "dsh" and outcome.parent_compacted:
            # The child shows the history the parent's compaction had replaced.
            assert outcome.same_as_parent is False, DSH_COMPACTION
            continue
        assert outcome.same_as_parent, (outcome.sample, outcome.rebuilt)
        checked += 1
    assert checked >= 1
