"""The fidelity matrix: clip and compact every sample its agent accepts, resume each child in the
real agent, and compare what the agent rebuilt with what the child should hold.

Shared by `tests/test_real_agents.py` and `bench/fidelity.py`. The agents are driven by
`resume_check.py` from `../shared/tools` (relative to the repository root; `KLIPUI_SHARED_TOOLS`
overrides), which installs a session where its agent looks for it, resumes it offline against a
loopback stand-in API and reports the request the agent sent. The agents are the ones
`install-agents.sh` puts under `$KLIPUI_AGENTS` (default `~/.cache/klipui-agents` of the real
user, whatever `HOME` says).

Expected prompts. A child must make its agent send the prompts of the kept turns, in order,
minus those the agent itself hides, following each agent's documented rules:

- Claude Code sends the `parentUuid` chain from the last main-chain line (so a compact boundary,
  a root, ends it, and sidechains never show);
- pi sends, after a kept `compaction` entry, only the entries from its first kept entry on;
- dsh sends every kept turn but those whose prompt a kept compaction checkpoint replaces (klip
  keeps a compaction block when all it shadows is kept, else drops it whole);
- Codex sends every kept turn.

A selection whose child shows the agent none of its kept prompts (a Claude Code file whose
lines are off the `parentUuid` chain, a child a kept compaction stands in for) is left out of
the matrix, with the reason (`hollow_cases`): a row that expects no prompt proves nothing.
The samples are tests/fixtures/samples and the sessions the agents wrote themselves
(tests/fixtures/agent-written, rows named `agent-written/<file>`).

Texts the agent adds (compaction summaries, "Continue from where you left off.") match no turn
prompt and are ignored; a rebuilt prompt that matches a turn must match the expected turn at its
position, so a dropped turn leaking back in, or a kept one missing, fails.
"""

from __future__ import annotations

import importlib.util
import json
import os
import pwd
import shutil
import tempfile
import uuid
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
SAMPLES = FIXTURES / "samples"
AGENT_WRITTEN = FIXTURES / "agent-written"
"""Sessions the real agents wrote themselves; their acceptance rows name them
`agent-written/<file>`."""
ACCEPTANCE = REPO / "tests" / "fixtures" / "agent_acceptance.json"
AGENT_OF_FOLDER = {"claude-code": "claude", "codex": "codex", "pi": "pi", "dsh": "dsh"}
TIMEOUTS = {"claude": 40.0, "codex": 40.0, "pi": 40.0, "dsh": 60.0, "qwen": 60.0}
COMPACT_MAX_CHARS = {"claude": 1_000, "codex": 1_000, "pi": 1_000, "dsh": 400, "qwen": 1_000}
QWEN_RESUME = REPO / "tests" / "tools" / "qwen_resume.py"
"""Qwen Code's setup for resume_check.py (the shared checker knows the other four agents)."""
"""Budget of the compact children in the matrix: small, so that the samples' results shrink."""


def agents_home() -> Path:
    """Where install-agents.sh put the agents (the real user's cache unless KLIPUI_AGENTS)."""
    configured = os.environ.get("KLIPUI_AGENTS")
    if configured:
        return Path(configured)
    return Path(pwd.getpwuid(os.getuid()).pw_dir) / ".cache" / "klipui-agents"


def tools_dir() -> Path:
    """The folder holding resume_check.py."""
    configured = os.environ.get("KLIPUI_SHARED_TOOLS")
    return Path(configured) if configured else REPO.parent / "shared" / "tools"


_checker: ModuleType | None = None


def resume_check() -> ModuleType | None:
    """The resume_check module (None when it is not there)."""
    global _checker
    if _checker is not None:
        return _checker
    script = tools_dir() / "resume_check.py"
    if not script.is_file():
        return None
    os.environ.setdefault("KLIPUI_AGENTS", str(agents_home()))
    spec = importlib.util.spec_from_file_location("klipui_resume_check", script)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    _register_qwen(module)
    _checker = module
    return module


def _register_qwen(checker: ModuleType) -> None:
    """Teach the loaded checker to resume Qwen Code sessions (when qwen is installed)."""
    spec = importlib.util.spec_from_file_location("klipui_qwen_resume", QWEN_RESUME)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.register(checker)


def installed(agent: str) -> bool:
    """True when the agent's CLI (and, for dsh, Node >= 22.15) is installed."""
    checker = resume_check()
    if checker is None:
        return False
    home = agents_home()
    if agent == "dsh":
        return (home / "dsh/node_modules/.bin/dsh").exists() and checker.find_node22() is not None
    if agent == "qwen":
        return "qwen" in checker.SETUP
    return (home / "node_modules/.bin" / agent).exists()


def sample_path(sample: str) -> Path:
    """The file of an acceptance row: `agent-written/…` under tests/fixtures, else a sample."""
    if sample.startswith(f"{AGENT_WRITTEN.name}/"):
        return FIXTURES / sample
    return SAMPLES / sample


def agent_written() -> list[tuple[str, Path]]:
    """(agent, file) of every agent-written session."""
    prefixes = {
        "claude_": "claude",
        "rollout-": "codex",
        "pi_": "pi",
        "dsh_": "dsh",
        "qwen_": "qwen",
    }
    out = []
    for path in sorted(AGENT_WRITTEN.glob("*.jsonl")):
        agent = next((a for p, a in prefixes.items() if path.name.startswith(p)), None)
        if agent is not None:
            out.append((agent, path))
    return out


def acceptance() -> list[dict[str, Any]]:
    """The rows of tests/fixtures/agent_acceptance.json."""
    return json.loads(ACCEPTANCE.read_text(encoding="utf-8"))["samples"]


@dataclass(slots=True)
class Case:
    """One child to make and resume."""

    sample: str
    """Path under tests/fixtures/samples."""
    agent: str
    label: str
    selection: str
    """The KInterval text ("" for a compact child)."""
    turns: tuple[int, ...] = ()
    """The parent's turns the selection keeps."""
    aliases: list[str] = field(default_factory=list)
    """Other labels whose selection keeps the same turns."""
    unfinished: bool = False
    """Clipped with `include_unfinished` (the last, never-ended turn selectable)."""

    @property
    def key(self) -> str:
        return f"{self.sample}::{self.label}"


def _turn_count(session: Any) -> int:
    for event in reversed(session.events):
        if event.type == "turn/end":
            turn = event.data.get("turn")
            return turn if isinstance(turn, int) else 0
    return 0


def _compaction_turns(session: Any) -> list[int]:
    """Turns holding a compaction (summary, block, boundary)."""
    found: list[int] = []
    for turn in session.turns:
        events = session.events[turn.start : turn.end]
        if any(e.type.startswith("compaction/") for e in events):
            found.append(turn.number)
    return found


def _sidechain_turns(session: Any) -> list[int]:
    found: list[int] = []
    for turn in session.turns:
        events = session.events[turn.start : turn.end]
        if any(isinstance(e.data, dict) and e.data.get("sidechain") for e in events):
            found.append(turn.number)
    return found


def selections(session: Any) -> list[tuple[str, str]]:
    """(label, text) of every selection the matrix makes of `session`: the fixed ones, cuts
    before, across and from its last compaction, through sidechains, and one ending at its first
    turn that ended without completing (the child must keep how it ended)."""
    n = _turn_count(session)
    out = [("all", ".."), ("first", "1"), ("last", "-1"), ("first-two", "1..2")]
    if n >= 4:
        out.append(("middle-not", f"2..-2, not {max(3, n // 2)}"))
    else:
        out.append(("middle-not", "1..3, not 2"))
    compaction = _compaction_turns(session)
    if compaction and n > 1:
        last = compaction[-1]
        out.append(("without-compaction", ", ".join(f"not {c}" for c in compaction) + ", .."))
        out.append(("from-compaction", f"{last}.."))
        if last > 2:
            out.append(("across-compaction", f"{last - 2}..{last}, not {last - 1}"))
            out.append(("before-compaction", f"{last - 1}"))
            out.append(("until-compaction", f"..{last - 1}"))
            out.append(("up-to-compaction", f"2..{last - 1}"))
    stopped = [t.number for t in session.turns[:n] if not t.completed]
    if stopped:
        out.append(("ending-unfinished", f"..{stopped[0]}"))
    sidechains = _sidechain_turns(session)
    if sidechains and n > 1:
        out.append(("sidechain-turns", ",".join(str(t) for t in sidechains)))
        out.append(("without-sidechains", ", ".join(f"not {t}" for t in sidechains) + ", .."))
    return out


def cases(agents: Iterable[str] | None = None) -> list[Case]:
    """Every case of the matrix that expects at least one prompt, for the samples their agent
    accepts as shipped (see `hollow_cases` for those left out)."""
    return _all_cases(agents)[0]


def hollow_cases(agents: Iterable[str] | None = None) -> list[dict[str, str]]:
    """The selections left out of the matrix because their child shows no kept prompt in the
    agent (a row that expects no prompt proves nothing), with what klipui says about them."""
    return _all_cases(agents)[1]


_CASES: dict[frozenset[str] | None, tuple[list[Case], list[dict[str, str]]]] = {}


def _all_cases(agents: Iterable[str] | None) -> tuple[list[Case], list[dict[str, str]]]:
    key = frozenset(agents) if agents is not None else None
    if key not in _CASES:
        candidates = _candidates(key)
        good: list[Case] = []
        hollow: list[dict[str, str]] = []
        for case in candidates:
            why = _hollow_reason(case)
            if why is None:
                good.append(case)
            else:
                hollow.append({"sample": case.sample, "label": case.label, "why": why})
        _CASES[key] = (good, hollow)
    return _CASES[key]


def _hollow_reason(case: Case) -> str | None:
    """Why the child of `case` shows the agent none of its kept prompts (None: it shows some)."""
    from klipui.klip.child import ClipError, plan_child
    from klipui.session import open_session

    checker = resume_check()
    if checker is None:
        return None
    session = open_session(sample_path(case.sample))
    try:
        plan = plan_child(
            session,
            case.selection or "..",
            include_unfinished=case.unfinished or case.label == "compact",
        )
    except ClipError:
        return None
    prompts = {t.number: turn_prompt(checker, session, t)[1] for t in session.turns}
    with tempfile.TemporaryDirectory(prefix="klipui-expect-") as folder:
        child = Path(folder) / plan.path.name.removesuffix(".zstd")
        child.write_bytes(b"".join(line + b"\n" for line in plan.lines))
        if visible_turns(case.agent, session, plan, child, prompts):
            return None
    if plan.warnings:
        return "; ".join(plan.warnings)
    return "the agent shows none of the kept prompts (a kept compaction stands in for them)"


def _candidates(wanted: frozenset[str] | None) -> list[Case]:
    from klipui.klip.interval import parse_interval
    from klipui.session import open_session

    out: list[Case] = []
    for row in acceptance():
        if not row["accepted"]:
            continue
        agent = row["agent"]
        if wanted is not None and agent not in wanted:
            continue
        session = open_session(sample_path(row["sample"]))
        n = _turn_count(session)
        every = tuple(t.number for t in session.turns)
        if every and n < len(every):
            out.append(Case(row["sample"], agent, "all+unfinished", "..", every, unfinished=True))
        if n <= 0:
            if every:
                out.append(Case(row["sample"], agent, "compact", "", every))
            continue
        seen: dict[tuple[int, ...], Case] = {}
        for label, text in selections(session):
            turns = tuple(parse_interval(text).turns(n))
            if not turns:
                continue
            if turns in seen:
                seen[turns].aliases.append(label)
                continue
            case = Case(row["sample"], agent, label, text, turns)
            seen[turns] = case
            out.append(case)
        out.append(Case(row["sample"], agent, "compact", "", every))
    return out


def non_clippable() -> list[dict[str, str]]:
    """Accepted samples the matrix clips only with `include_unfinished`, with the reason."""
    from klipui.session import open_session

    out = []
    for row in acceptance():
        if row["accepted"] and _turn_count(open_session(sample_path(row["sample"]))) <= 0:
            out.append(
                {
                    "sample": row["sample"],
                    "reason": "no turn ever ended: clipped only with --include-unfinished "
                    "(all+unfinished) and compacted",
                }
            )
    return out


# --------------------------------------------------------------------------- expected prompts


def normal(text: str) -> str:
    """Whitespace runs as one space, trimmed."""
    return " ".join(text.split())


def turn_prompt(checker: ModuleType, session: Any, turn: Any) -> tuple[str, Any]:
    """A turn's prompt as the agent would send it (its first text that is not injected
    context; compaction summaries excluded), whitespace-normalised, and its event."""
    from klipui.session.blocks import iter_block_texts

    for event in session.events[turn.start : turn.end]:
        if event.type != "user/message":
            continue
        source = event.data.get("source")
        if isinstance(source, dict) and source.get("kind") == "compaction":
            continue
        for text in iter_block_texts(event.data.get("content")):
            if text.strip() and not checker._is_injected(text):
                return normal(text), event
    return "", None


def request_prompts(checker: ModuleType, body: dict[str, Any]) -> list[str]:
    """Every user text the agent sent (each block on its own, untruncated, normalised), minus
    injected context and the check prompt."""
    out: list[str] = []
    if isinstance(body.get("input"), list):
        items = [i for i in body["input"] if i.get("type", "message") == "message"]
    else:
        items = body.get("messages") or []
    for item in items:
        if item.get("role") != "user":
            continue
        content = item.get("content")
        blocks = [content] if isinstance(content, str) else content or []
        for block in blocks:
            text = block if isinstance(block, str) else None
            if isinstance(block, dict) and block.get("type") in ("text", "input_text"):
                text = block.get("text")
            if (
                isinstance(text, str)
                and text.strip()
                and not checker._is_injected(text)
                and normal(text) != checker.DEFAULT_PROMPT
            ):
                out.append(normal(text))
    return out


def matched_turns(
    rebuilt: list[str], prompts: dict[int, str], kept: Iterable[int]
) -> tuple[list[int], list[str]]:
    """The turns the rebuilt prompts are the prompts of, in order, and the texts of no turn.

    A text matches a turn when it is the turn's prompt, or starts with it (agents that send a
    message's text blocks as one string, joined by a space or by nothing). Among turns with the
    same prompt, the next kept turn wins, then the next one at all, so that a dropped turn
    shows only when nothing kept fits.
    """
    kept_set = set(kept)
    turns: list[int] = []
    extra: list[str] = []
    for text in rebuilt:
        hit = [t for t, p in prompts.items() if p and (text == p or _leads(text, p))]
        if not hit:
            extra.append(text)
            continue
        later = [t for t in hit if not turns or t > turns[-1]]
        choice = [t for t in later if t in kept_set] or later or hit
        turns.append(choice[0])
    return turns, extra


def _leads(text: str, prompt: str) -> bool:
    return len(prompt) >= 8 and text.startswith(prompt)


def visible_turns(
    agent: str, session: Any, plan: Any, child: Path, prompts: dict[int, Any]
) -> list[int]:
    """The kept turns (parent numbers) whose prompts the agent should send, in order."""
    kept = sorted(plan.turns)
    if agent == "claude":
        return _claude_visible(session, plan, child, kept, prompts)
    if agent == "pi":
        return _pi_visible(session, kept, prompts)
    if agent == "dsh":
        return _dsh_visible(plan, child, kept)
    return kept


def _dsh_visible(plan: Any, child: Path, kept: list[int]) -> list[int]:
    """Kept turns whose prompt no kept checkpoint (`surfaceOp` replace) stands in for."""
    from klipui.session import open_session

    session = open_session(child)
    hidden: list[tuple[int, int]] = []
    for event in session.events:
        op = event.surface_op
        if isinstance(op, dict) and op.get("op") == "replace":
            hidden.append((op["start"], op["end"]))
    old_of = {new: old for old, new in plan.turns.items()}
    out = []
    for turn in session.turns:
        first = next(
            (
                e
                for e in session.events[turn.start : turn.end]
                if e.type == "user/message"
                and (e.data.get("source") or {}).get("kind") not in ("compaction", "plugin")
            ),
            None,
        )
        if first is not None and any(a <= first.seq <= b for a, b in hidden):
            continue
        out.append(old_of[turn.number])
    return [t for t in kept if t in out]


def _claude_visible(
    session: Any, plan: Any, child: Path, kept: list[int], prompts: dict[int, Any]
) -> list[int]:
    rows = [
        json.loads(line) for line in child.read_text(encoding="utf-8").splitlines() if line.strip()
    ]
    by_uuid = {r["uuid"]: r for r in rows if isinstance(r.get("uuid"), str)}
    leaf = next(
        (
            r
            for r in reversed(rows)
            if r.get("type") in ("user", "assistant")
            and not r.get("isSidechain")
            and isinstance(r.get("uuid"), str)
        ),
        None,
    )
    chain: set[str] = set()
    node = leaf
    while node is not None and node["uuid"] not in chain:
        chain.add(node["uuid"])
        parent = node.get("parentUuid")
        node = by_uuid.get(parent) if isinstance(parent, str) else None
    namespace = uuid.UUID(plan.child_id)
    out = []
    for turn in kept:
        event = prompts.get(turn)
        if event is None or event.origin is None:
            continue
        old = session.records[event.origin].value.get("uuid")
        if isinstance(old, str) and str(uuid.uuid5(namespace, old)) in chain:
            out.append(turn)
    return out


def _pi_visible(session: Any, kept: list[int], prompts: dict[int, Any]) -> list[int]:
    records = session.records
    compaction = None
    for turn in kept:
        t = session.turns[turn - 1]
        for event in session.events[t.start : t.end]:
            if event.origin is not None and records[event.origin].value.get("type") == "compaction":
                compaction = event.origin
    if compaction is None:
        return kept
    value = records[compaction].value
    first = value.get("firstKeptEntryIndex")
    if not isinstance(first, int):
        ids = {r.value.get("id"): i for i, r in enumerate(records)}
        first = ids.get(value.get("firstKeptEntryId"), compaction)
    return [
        t
        for t in kept
        if prompts.get(t) is not None
        and prompts[t].origin is not None
        and prompts[t].origin >= first
    ]


# --------------------------------------------------------------------------------- running


@dataclass(slots=True)
class Outcome:
    """What happened to one case."""

    sample: str
    agent: str
    label: str
    selection: str
    aliases: list[str]
    kept_turns: list[int]
    accepted: bool = False
    error: str = ""
    expected: list[str] = field(default_factory=list)
    rebuilt: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    expected_turns: list[int] = field(default_factory=list)
    rebuilt_turns: list[int] = field(default_factory=list)
    tool_calls: int = 0
    tool_results: int = 0
    all_calls_answered: bool = False
    problems: list[str] = field(default_factory=list)
    same_as_parent: bool | None = None
    """For `..`: the agent rebuilt the same prompts as from the parent (None elsewhere)."""
    replaced: int = 0
    """Compact children: tool results shrunk."""
    locators_sent: int = 0
    """Compact children: spill locators of shrunk results found in what the agent sent (results
    the agent hides, in sidechains or before a compaction, are not sent at all)."""
    originals_sent: int = 0
    """Compact children: replaced results whose full original the agent still sent."""
    parent_compacted: bool = False
    """The parent holds a compaction."""
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def prompts_ok(self) -> bool:
        return self.rebuilt_turns == self.expected_turns

    @property
    def passed(self) -> bool:
        return (
            self.accepted
            and bool(self.expected_turns)
            and self.prompts_ok
            and self.all_calls_answered
            and not self.problems
        )

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "prompts_ok": self.prompts_ok, "passed": self.passed}


def run_case(case: Case, work: Path) -> Outcome:
    """Make the case's child from a copy of its sample and resume it in the real agent."""
    from klipui.klip.child import ClipError, plan_child, write_child
    from klipui.klip.compact import plan_compact
    from klipui.session import open_session
    from klipui.session.blocks import event_text
    from klipui.shrink import FileSpillStore

    checker = resume_check()
    outcome = Outcome(
        case.sample, case.agent, case.label, case.selection, case.aliases, list(case.turns)
    )
    if checker is None:
        outcome.error = f"resume_check.py not found in {tools_dir()}"
        return outcome
    folder = Path(tempfile.mkdtemp(prefix="case-", dir=work))
    copy = folder / Path(case.sample).name
    shutil.copyfile(sample_path(case.sample), copy)
    session = open_session(copy)
    locators: list[str] = []
    originals: list[str] = []
    try:
        if case.label == "compact":
            compacted = plan_compact(
                session,
                max_chars=COMPACT_MAX_CHARS[case.agent],
                spill=FileSpillStore(folder / "spill"),
            )
            plan = compacted.plan
            outcome.replaced = len(compacted.replaced)
            locators = [r.locator for r in compacted.replaced if r.locator]
            by_seq = {e.seq: e for e in session.events}
            originals = [event_text(by_seq[r.seq]) for r in compacted.replaced]
        else:
            plan = plan_child(session, case.selection, include_unfinished=case.unfinished)
        write_child(plan)
    except ClipError as error:
        outcome.error = f"not written: {error}"
        return outcome
    outcome.notes = list(plan.notes)
    outcome.parent_compacted = bool(_compaction_turns(session))
    prompts: dict[int, str] = {}
    prompt_events: dict[int, Any] = {}
    for turn in session.turns:
        prompts[turn.number], prompt_events[turn.number] = turn_prompt(checker, session, turn)
    outcome.expected_turns = visible_turns(case.agent, session, plan, plan.path, prompt_events)
    outcome.expected = [checker.short(prompts[t]) for t in outcome.expected_turns]
    report = checker.check(case.agent, plan.path, timeout=TIMEOUTS[case.agent], keep=True)
    try:
        body = _sent_body(report)
    finally:
        shutil.rmtree(report.get("kept_dir") or folder / "none", ignore_errors=True)
    outcome.seconds = float((report.get("client") or {}).get("seconds") or 0.0)
    outcome.accepted = bool(report.get("accepted"))
    if not outcome.accepted or body is None:
        outcome.error = str(report.get("error") or "not accepted")[-400:]
        return outcome
    conversation = report["conversation"]
    if case.label == "compact":
        sent = json.dumps(body, ensure_ascii=False)
        outcome.locators_sent = sum(locator in sent for locator in locators)
        outcome.originals_sent = sum(
            json.dumps(text, ensure_ascii=False)[1:-1] in sent for text in originals
        )
    rebuilt = request_prompts(checker, body)
    outcome.rebuilt = [checker.short(p) for p in rebuilt]
    turns, extra = matched_turns(rebuilt, prompts, plan.turns)
    outcome.rebuilt_turns = turns
    outcome.extra = [checker.short(p) for p in extra]
    outcome.tool_calls = conversation["tool_calls"]
    outcome.tool_results = conversation["tool_results"]
    outcome.all_calls_answered = bool(conversation["all_calls_answered"])
    outcome.problems = list(conversation["problems"])
    whole = sorted(plan.turns) == [t.number for t in session.turns]
    if whole and (case.label in ("all", "all+unfinished") or "all" in case.aliases):
        parent = next(r for r in acceptance() if r["sample"] == case.sample)
        sent = [
            p for p in conversation["user_prompts"] if p != checker.short(checker.DEFAULT_PROMPT)
        ]
        outcome.same_as_parent = sent == parent.get("prompts", [])
    return outcome


def _sent_body(report: dict[str, Any]) -> dict[str, Any] | None:
    """The request body the agent sent with the check prompt (None when it sent none)."""
    kept = report.get("kept_dir")
    name = report.get("request")
    if not kept or not name:
        return None
    return json.loads((Path(kept) / "api_log" / name).read_text(encoding="utf-8"))


def run_matrix(selected: list[Case], workers: int = 2) -> list[Outcome]:
    """Run every case (in a thread pool; each case runs its own agent process)."""
    work = Path(tempfile.mkdtemp(prefix="klipui-fidelity-"))
    try:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(lambda case: run_case(case, work), selected))
    finally:
        shutil.rmtree(work, ignore_errors=True)
