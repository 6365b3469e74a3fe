"""docker: container image builds, pulls and compose runs (docker, podman, buildah).

Keeps the step headers (`STEP 3/7: RUN ...`, `Step 3/7 : RUN ...`, BuildKit `#7 [build 3/7] RUN
...`), the failing step with the end of its output and the error (`Error: building at STEP`,
`failed to solve`, `returned a non-zero code`), the final image (`COMMIT`, `Successfully built`,
`Successfully tagged`, `writing image`, the image id), and the lines of a step's output that
say something went wrong. Layer and progress noise (`--> 1a2b3c`, `Using cache`, `Copying blob`,
`Pull complete`, `#5 DONE 0.3s`) goes first; the routine output of each step keeps its first and
last lines longest. Declines on output with no build, pull or compose structure.
"""

from __future__ import annotations

import itertools
import re

from klipui.shrink.plan import Budget, Hint, Plan
from klipui.shrink.reducers._patterns import (
    FLOOR,
    HIGH,
    LOW,
    MID,
    TOP,
    Fitter,
    Lines,
    Mark,
    Marks,
    finish,
    line_regex,
    named_union,
    sample,
    template,
)

name = "docker"
describe = "build steps, the failing step and its error, the final image kept; layer noise dropped"
overflow = "tail"

_STEP = line_regex(
    r"^(?:\[\d+/\d+\] )?STEP \d+(?:/\d+)?: \S.*"
    r"|^Step \d+/\d+ : \S.*"
    r"|^#\d+ \[[^\]]*\d+/\d+\] \S.*"
    r"|^ ?=> \[[^\]]*\d+/\d+\] \S.*"
)
"""A build step header: podman/buildah, the legacy docker builder, BuildKit (plain and tty)."""
_FINAL = line_regex(
    r"^(?:(?:\[\d+/\d+\] )?COMMIT\b.*"
    r"|Successfully (?:built|tagged) \S+.*"
    r"|#\d+ (?:writing image|naming to|exporting to image)\b.*"
    r"| ?=> (?:=> )?(?:writing image|naming to)\b.*"
    r"|[0-9a-f]{64}"
    r"|Loaded image(?:\(s\))?: .*"
    r"|Status: (?:Downloaded newer image|Image is up to date) .*"
    r"|Digest: sha256:[0-9a-f]{64})$"
)
_ERROR = line_regex(
    r"^(?:#\d+ )?(?:[\d.]+ )?(?:Error(?: response from daemon)?:|ERROR(?: \[[^\]]*\])?:?|error:"
    r"|failed to solve\b|executor failed running\b|The command .* returned a non-zero code"
    r"|subprocess exited with status|.*\b(?:exited with code [1-9]\d*|exit status [1-9]\d*"
    r"|exit code: [1-9]\d*|unhealthy|[Nn]o such file or directory|[Pp]ermission denied"
    r"|not found|[Ff]ailed\b|[Ff]atal\b))"
)
_NOISE = line_regex(
    r"^(?:--> [0-9a-f]{6,}|---> (?:[0-9a-f]{6,}|Running in \S+|Using cache)|Using cache"
    r"|Removing intermediate container \S+|Getting image source signatures"
    r"|Copying (?:blob|config)\b"
    r"|Writing manifest to image destination|Storing signatures|Trying to pull \S+"
    r"|[0-9a-f]{12}: (?:Pulling fs layer|Waiting|Downloading|Verifying Checksum|Download complete"
    r"|Extracting|Pull complete|Already exists)"
    r"|#\d+ (?:DONE [\d.]+s|CACHED|sha256:\S+ .*|resolve \S+.*|extracting sha256:.*"
    r"|transferring (?:context|dockerfile):.*|load (?:build definition|metadata|\.dockerignore).*)"
    r"|\s*[✔⠿✓] (?:Container|Network|Volume|Image) \S+ +(?:Created|Started|Running|Healthy"
    r"|Pulled|Built|Stopped|Removed|Recreated|Waiting)\b.*)"
)
_COMPOSE = line_regex(
    r"^(?:\[\+\] (?:Running|Building|Pulling) \d+/\d+"
    r"|\s*[✔⠿✓] (?:Container|Network|Volume|Image) \S+"
    r"|[\w.-]+(?:-\d+)? +\| \S.*)"
)
_SCAN = named_union(step=_STEP, final=_FINAL, error=_ERROR, noise=_NOISE, compose=_COMPOSE)
_FROM = re.compile(r"(?i)[: \]]FROM \S")
_METADATA = re.compile(
    r"(?i)(?:STEP \d+(?:/\d+)?:|Step \d+/\d+ :|\d+/\d+\]) +(?:ENV|LABEL|USER|WORKDIR|EXPOSE|ARG"
    r"|VOLUME|STOPSIGNAL|HEALTHCHECK|SHELL|MAINTAINER|ONBUILD)\b"
)
"""A step that only sets image metadata."""
_RUN = re.compile(r"(?i)(?:STEP \d+(?:/\d+)?:|Step \d+/\d+ :|\d+/\d+\]) +RUN\b")
_COMMAND = re.compile(r"\b(?:docker|podman|buildah|nerdctl)\b|\bcompose\b")
_KEEP_TAIL = 6
"""Output lines at the end of the failing step kept with its error."""


def detect(text: str, hint: Hint) -> bool:
    """Step headers, or pull/compose structure, make the output a build or container run."""
    lines = sample(text)
    steps = finals = structure = 0
    for line in lines:
        m = _SCAN.match(line)
        if m is None:
            continue
        kind = m.lastgroup
        if kind == "step":
            steps += 1
        elif kind == "final":
            finals += 1
        elif kind in ("noise", "compose"):
            structure += 1
    if steps >= 2 or (steps and finals):
        return True
    commanded = hint.command is not None and _COMMAND.search(hint.command) is not None
    return structure >= 3 and (commanded or structure >= 0.3 * len(lines))


def reduce(text: str, hint: Hint, budget: Budget) -> Plan | None:
    """Errors and the final image first, then the failing step, the step headers, then output."""
    lines = Lines(text)
    n = len(lines)
    if n == 0:
        return None
    text_lines = lines.lines
    priority = Marks()
    mark = priority.mark
    steps: list[int] = []
    errors: list[int] = []
    finals: list[int] = []
    noise: set[int] = set()
    for i, m in lines.scan(_SCAN):
        kind = m.lastgroup
        if kind == "step":
            steps.append(i)
        elif kind == "final":
            finals.append(i)
        elif kind == "error":
            errors.append(i)
        elif kind == "noise":
            noise.add(i)
    if not steps and not finals and not noise:
        return None

    for k, i in enumerate(steps):
        # the first steps and every `FROM` name the base images; the last ones are where it
        # ended; `RUN` steps do the work, `COPY` ones move files, and steps that only set
        # metadata (`ENV`, `LABEL`, `USER`) print nothing and matter least
        first = k in (0, 1, len(steps) - 2, len(steps) - 1)
        if first or _FROM.search(text_lines[i]) is not None:
            mark(i, MID + 5)
        elif _METADATA.search(text_lines[i]) is not None:
            mark(i, LOW + 5)
        else:
            mark(i, MID if _RUN.search(text_lines[i]) else MID - 3)
    for i in finals:
        mark(i, TOP)
    seen: set[str] = set()
    for i in reversed(errors):
        key = template(text_lines[i])
        mark(i, TOP if key not in seen else LOW)
        seen.add(key)
    if errors:
        _mark_failing_step(text_lines, steps, errors[-1], mark)
    _mark_step_output(text_lines, steps, noise, mark)
    if n:
        mark(n - 1, HIGH)
    fitter = Fitter(lines, budget)
    fitter.add_marks(priority)
    return finish(fitter.plan(), n)


def _mark_failing_step(lines: list[str], steps: list[int], error: int, mark: Mark) -> None:
    """The header of the step the last error belongs to and the end of that step's output."""
    header = max((i for i in steps if i <= error), default=-1)
    if header >= 0:
        mark(header, HIGH + 5)
    for j in range(max(header + 1, error - _KEEP_TAIL), error):
        if lines[j].strip():
            mark(j, HIGH)


def _mark_step_output(
    lines: list[str],
    steps: list[int],
    noise: set[int],
    mark: Mark,
) -> None:
    """Each step's own output: its last line (its result) above routine step headers, its
    first line before the middle; noise last."""
    bounds = [*steps, len(lines)]
    if not steps or steps[0] > 0:
        bounds = [-1, *bounds]
    for start, end in itertools.pairwise(bounds):
        body = [j for j in range(start + 1, end) if j not in noise and lines[j].strip()]
        for k, j in enumerate(body):
            # the last line a step prints is most often its result (`10984 bundle.js`)
            mark(j, MID - 2 if k == len(body) - 1 else LOW + 2 if k == 0 else FLOOR + 1)
    for j in noise:
        mark(j, FLOOR - 1)
