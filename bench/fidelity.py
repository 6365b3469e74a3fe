"""The fidelity matrix: every child klipui makes of an accepted sample, resumed in its real agent.

For each sample its agent accepts as shipped (tests/fixtures/agent_acceptance.json) and each
selection of the matrix (`..`, `1`, `-1`, `1..2`, a middle range with `not`, cuts through
compaction and sidechains, and the `klipui compact` child), prints one row: accepted, prompts
expected / rebuilt (turn numbers of the parent), calls answered, ordering problems; then the
samples not accepted as shipped, with what klipui says about them, and the selections left out
because their child shows the agent no kept prompt (a row expecting none would prove nothing).
The samples include the sessions the agents wrote themselves (tests/fixtures/agent-written). Writes
bench/results/fidelity.json. Needs the agents (../shared/tools/install-agents.sh --with-dsh).

    python bench/fidelity.py [--agents claude,codex,pi,dsh] [--workers 2]
    python bench/fidelity.py --refresh-acceptance   # re-check the original samples first
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import fidelity_matrix as fm  # noqa: E402

RESULTS = ROOT / "bench" / "results" / "fidelity.json"


def turns_text(turns: list[int]) -> str:
    if not turns:
        return "-"
    if len(turns) > 6:
        return f"{turns[0]}…{turns[-1]} ({len(turns)})"
    return ",".join(str(t) for t in turns)


def refused_samples(agents: list[str]) -> list[dict[str, str]]:
    """What klipui says about the samples their agent refuses as shipped; a child klipui
    writes for one (after a repair) is resumed in the agent too."""
    import shutil
    import tempfile

    from klipui.klip.child import ClipError, plan_child, write_child

    checker = fm.resume_check()
    out = []
    for row in fm.acceptance():
        if row["accepted"]:
            continue
        entry = {"sample": row["sample"], "agent": row["agent"], "as_shipped": row["reason"]}
        try:
            plan = plan_child(fm.sample_path(row["sample"]), "..")
        except ClipError as error:
            entry["klipui"] = f"refused: {error}"
        else:
            said = plan.blockers or plan.notes
            entry["klipui"] = ("blocked: " if plan.blockers else "writes: ") + (
                "; ".join(said) if said else "no remark"
            )
            if not plan.blockers and row["agent"] in agents and checker is not None:
                folder = Path(tempfile.mkdtemp(prefix="klipui-refused-"))
                try:
                    child = plan_child(shutil.copy(fm.sample_path(row["sample"]), folder), "..")
                    write_child(child)
                    report = checker.check(row["agent"], child.path, timeout=fm.TIMEOUTS["dsh"])
                finally:
                    shutil.rmtree(folder, ignore_errors=True)
                accepted = bool(report.get("accepted"))
                entry["child_accepted"] = accepted
                if not accepted:
                    entry["child_error"] = str(report.get("error") or "")[-300:]
        out.append(entry)
    return out


def refresh_acceptance(agents: list[str], workers: int) -> None:
    """Resume every original sample in its agent; rewrite tests/fixtures/agent_acceptance.json
    (rows of agents not given are kept)."""
    from concurrent.futures import ThreadPoolExecutor

    checker = fm.resume_check()
    samples = [
        (fm.AGENT_OF_FOLDER[p.parent.name], p)
        for p in sorted(fm.SAMPLES.glob("*/*.jsonl"))
        if fm.AGENT_OF_FOLDER.get(p.parent.name) in agents
    ]
    samples += [(agent, p) for agent, p in fm.agent_written() if agent in agents]

    def row(item: tuple[str, Path]) -> dict:
        agent, path = item
        report = checker.check(agent, path, timeout=fm.TIMEOUTS[agent])
        out: dict = {"sample": f"{path.parent.name}/{path.name}", "agent": agent}
        out["accepted"] = bool(report.get("accepted"))
        if out["accepted"]:
            conversation = report["conversation"]
            check = checker.short(checker.DEFAULT_PROMPT)
            out.update(
                prompts=[p for p in conversation["user_prompts"] if p != check],
                messages=conversation["count"],
                tool_calls=conversation["tool_calls"],
                tool_results=conversation["tool_results"],
                all_calls_answered=conversation["all_calls_answered"],
                ordering_problems=len(conversation["problems"]),
            )
        elif (report.get("client") or {}).get("timed_out"):
            out["reason"] = "hang: no request before the timeout"
        else:
            error = str(report.get("error") or "").strip().splitlines() or ["no request"]
            out["reason"] = re.sub(r"/tmp/resume_check_\S+", "<installed copy>", error[-1])[:300]
        return out

    with ThreadPoolExecutor(max_workers=workers) as pool:
        rows = list(pool.map(row, samples))
    table = json.loads(fm.ACCEPTANCE.read_text(encoding="utf-8"))
    table["checked"] = time.strftime("%Y-%m-%d")
    kept = [r for r in table["samples"] if r["agent"] not in agents]
    table["samples"] = sorted(kept + rows, key=lambda r: r["sample"])
    fm.ACCEPTANCE.write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n")
    print(f"rewrote {fm.ACCEPTANCE.relative_to(ROOT)}", file=sys.stderr)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", default="claude,codex,pi,dsh,qwen")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--refresh-acceptance",
        action="store_true",
        help="first re-check which original samples each agent accepts as shipped",
    )
    args = parser.parse_args()
    wanted = [a for a in args.agents.split(",") if a]
    present = [a for a in wanted if fm.installed(a)]
    missing = sorted(set(wanted) - set(present))
    if missing:
        print(f"not installed (skipped): {', '.join(missing)}", file=sys.stderr)
    if not present:
        print("no agent installed: run ../shared/tools/install-agents.sh", file=sys.stderr)
        return 1
    if args.refresh_acceptance:
        refresh_acceptance(present, args.workers)
    cases = fm.cases(present)
    print(f"{len(cases)} children to resume in {', '.join(present)} …", file=sys.stderr)
    started = time.perf_counter()
    outcomes = fm.run_matrix(cases, workers=args.workers)
    elapsed = time.perf_counter() - started
    header = (
        f"{'sample':<46} {'selection':<40} {'agent':<6} {'ok':<4} {'acc':<4} "
        f"{'prompts expected':<18} {'rebuilt':<18} {'calls':<9} {'prob':<4} {'=parent':<7}"
    )
    print(header)
    print("-" * len(header))
    for o in outcomes:
        label = (
            o.label
            if o.label == "compact"
            else f"{o.selection} ({'/'.join([o.label, *o.aliases])})"
        )
        calls = f"{o.tool_results}/{o.tool_calls}" + ("" if o.all_calls_answered else "!")
        same = {None: "", True: "yes", False: "no"}[o.same_as_parent]
        shrunk = (
            f" {o.replaced} shrunk, {o.locators_sent} sent shrunk, {o.originals_sent} originals"
            if o.label == "compact"
            else ""
        )
        print(
            f"{o.sample[:46]:<46} {label[:40]:<40} {o.agent:<6} "
            f"{'yes' if o.passed else 'NO':<4} {'yes' if o.accepted else 'NO':<4} "
            f"{turns_text(o.expected_turns):<18} {turns_text(o.rebuilt_turns):<18} "
            f"{calls:<9} {len(o.problems):<4} {same:<7}{shrunk}"
        )
        if o.error:
            print(f"    error: {o.error[:200]}")
    passed = sum(o.passed for o in outcomes)
    print(f"\n{passed}/{len(outcomes)} children pass ({elapsed:.0f} s, {args.workers} at a time)")
    refused = refused_samples(present)
    print("\nsamples their agent refuses as shipped:")
    for entry in refused:
        print(f"  {entry['sample']}: {entry['as_shipped'][:70]}")
        print(f"    klipui {entry['klipui'][:150]}")
        if "child_accepted" in entry:
            verdict = "accepted" if entry["child_accepted"] else "refused: "
            error = entry.get("child_error", "")
            reason = error[error.find('"message"') :][:110] if error else ""
            print(f"    its child in {entry['agent']}: {verdict}{reason}")
    hollow = fm.hollow_cases(present)
    print("\nselections left out (their child shows the agent no kept prompt):")
    for entry in hollow:
        print(f"  {entry['sample']} {entry['label']}: {entry['why'][:150]}")
    not_clippable = fm.non_clippable()
    for entry in not_clippable:
        print(f"  (accepted, not clippable) {entry['sample']}: {entry['reason']}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "about": "bench/fidelity.py: children resumed in the real agents",
                "machine": platform.platform(),
                "python": platform.python_version(),
                "agents": present,
                "seconds": round(elapsed, 1),
                "passed": passed,
                "children": len(outcomes),
                "outcomes": [o.to_dict() for o in outcomes],
                "refused_as_shipped": refused,
                "left_out_expecting_no_prompt": hollow,
                "accepted_not_clippable": not_clippable,
            },
            indent=1,
            ensure_ascii=False,
        )
        + "\n"
    )
    print(f"wrote {RESULTS.relative_to(ROOT)}")
    return 0 if passed == len(outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
