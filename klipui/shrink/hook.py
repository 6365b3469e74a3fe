"""The agent hook: shrink a tool result before the model sees it, keeping the original on disk.

`on_tool_result(result, config)` follows the truncation-plugin contract of the seed design:

1. `config.truncation` false: the result is returned untouched.
2. `result.truncated` already set (the tool handled it): untouched.
3. `result.is_error`: untouched, unless `config.shrink_errors` (then shrunk as a failed command,
   which keeps both ends and the failure lines).
4. Only text parts are measured and shrunk; image (and any other) parts pass through.
5. Text within the limits (`<=` on characters and lines): not shrunk, `truncated=False`.
6. Over: shrunk, the original spilled, `truncated=True`, `output_path` = the spilled file.
7. The spill folder is created when missing; a failed write is logged and the shrunk text is
   returned without `output_path`. Without a saved original, a line longer than the budget is
   never dropped whole: its head is kept with a ` ... +N characters` marker.
8. A lone surrogate (what `JSON.stringify` writes for a cut emoji) is shown and spilled as
   U+FFFD; a record that is not shrunk keeps it, written back as `\\udXXX`.

`reply(line, config)` is the whole round trip of one JSON line (`klipui hook`); it raises
`RecordError` (or any error of a record it cannot handle) and never writes anything but spills.

Configuration comes from `~/.config/klipui/config.toml`, then a project `.klipui.toml`, then
arguments, each overriding the one before; keys live in a `[shrink]` table (a top-level
`truncation = false` is honoured too).
"""

from __future__ import annotations

import json
import logging
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from klipui.shrink.pipeline import MIN_CHARS, Shrunk, load_reducers, shrink
from klipui.shrink.plan import Budget, Hint, Reducer
from klipui.shrink.spill import FileSpillStore

log = logging.getLogger("klipui.shrink.hook")

PROJECT_FILE = ".klipui.toml"


@dataclass(frozen=True, slots=True)
class HookConfig:
    """The hook's settings (keys of the `[shrink]` table, `-` or `_` alike)."""

    truncation: bool = True
    max_chars: int = 50_000
    max_lines: int = 2_000
    max_line_chars: int = 0
    shrink_errors: bool = False
    spill: bool = True
    spill_dir: str | None = None
    """Where originals go (default: `<user data dir>/spill`)."""
    spill_max_age_hours: float = 24.0
    only: tuple[str, ...] | None = None
    disable: tuple[str, ...] = ()
    reducers: str | None = None
    """A folder of extra reducer modules."""
    query: str | None = None
    redact: bool = False
    """Replace secrets in the result's text by placeholders (`klipui.redact`) before anything."""


@dataclass(slots=True)
class ToolResult:
    """What a tool returns to the agent (field names as in the seed design)."""

    llm_content: str | list[dict[str, Any]]
    is_error: bool = False
    truncated: bool | None = None
    output_path: str | None = None
    tool: str | None = None
    command: str | None = None
    path: str | None = None
    query: str | None = None
    exit_code: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    """Other fields of the record, passed through unchanged."""


class ConfigError(ValueError):
    """A configuration file or value that cannot be used."""


class RecordError(ValueError):
    """A JSON line that is not a tool result the hook can handle."""


_SURROGATE = re.compile("[\ud800-\udfff]")


def _clean(text: str) -> str:
    """`text` with lone surrogates (never valid in UTF-8) as U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)


def _longest_line(text: str) -> int:
    longest = start = 0
    while (end := text.find("\n", start)) != -1:
        longest = max(longest, end - start)
        start = end + 1
    return max(longest, len(text) - start)


def user_config_file() -> Path:
    """`~/.config/klipui/config.toml` (honours XDG_CONFIG_HOME)."""
    import platformdirs

    return Path(platformdirs.user_config_dir("klipui", appauthor=False)) / "config.toml"


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: {error}") from error
    except OSError as error:
        raise ConfigError(f"{path}: {error.strerror or error}") from error
    table = dict(data.get("shrink", {})) if isinstance(data.get("shrink", {}), dict) else {}
    if "truncation" in data and "truncation" not in table:
        table["truncation"] = data["truncation"]
    return table


def _apply(config: HookConfig, values: Mapping[str, Any], origin: str) -> HookConfig:
    known = {f.name: f for f in fields(HookConfig)}
    changes: dict[str, Any] = {}
    for key, value in values.items():
        name = key.replace("-", "_")
        if name not in known:
            raise ConfigError(f"{origin}: unknown key {key!r} (known: {', '.join(sorted(known))})")
        if value is None:
            continue
        default = getattr(HookConfig(), name)
        if name in ("only", "disable"):
            if isinstance(value, str):
                value = [v.strip() for v in value.split(",") if v.strip()]
            if not isinstance(value, list | tuple) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{origin}: {key} must be a list of reducer names")
            value = tuple(value)
        elif isinstance(default, bool):
            if not isinstance(value, bool):
                raise ConfigError(f"{origin}: {key} must be true or false")
        elif isinstance(default, int) and not isinstance(default, bool):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(f"{origin}: {key} must be a whole number >= 0")
            if name == "max_chars" and 0 < value < MIN_CHARS:
                raise ConfigError(
                    f"{origin}: {key} = {value}: must be 0 (no limit) or at least {MIN_CHARS}"
                )
        elif isinstance(default, float):
            if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
                raise ConfigError(f"{origin}: {key} must be a positive number")
            value = float(value)
        elif not isinstance(value, str):
            raise ConfigError(f"{origin}: {key} must be a string")
        changes[name] = value
    return replace(config, **changes)


def load_config(
    project_dir: str | Path | None = None,
    overrides: Mapping[str, Any] | None = None,
    user_file: Path | None = None,
) -> HookConfig:
    """User file, then `<project_dir>/.klipui.toml` (default: working folder), then overrides."""
    config = HookConfig()
    user = user_file or user_config_file()
    if user.is_file():
        config = _apply(config, _read_toml(user), str(user))
    project = Path(project_dir or Path.cwd()) / PROJECT_FILE
    if project.is_file():
        config = _apply(config, _read_toml(project), str(project))
    if overrides:
        config = _apply(config, overrides, "arguments")
    return config


def _text_parts(content: str | list[dict[str, Any]]) -> list[tuple[int | None, str]]:
    if isinstance(content, str):
        return [(None, content)]
    return [
        (i, part["text"])
        for i, part in enumerate(content)
        if isinstance(part, dict)
        and part.get("type") == "text"
        and isinstance(part.get("text"), str)
    ]


def _shares(sizes: Sequence[int], total: int) -> list[int]:
    """Split `total` over parts of these sizes: small parts keep their size, big ones share."""
    if not total:
        return [0] * len(sizes)
    shares = [0] * len(sizes)
    pending = sorted(range(len(sizes)), key=lambda i: sizes[i])
    left = total
    while pending:
        fair = left // len(pending)
        i = pending[0]
        if sizes[i] <= fair:
            shares[i] = sizes[i]
            left -= sizes[i]
            pending.pop(0)
            continue
        for j in pending:
            shares[j] = max(1, fair)
        break
    return shares


def on_tool_result(result: ToolResult, config: HookConfig | None = None) -> ToolResult:
    """Shrink `result` when it is over the limits (see the module docstring for the rules)."""
    config = config or HookConfig()
    if not config.truncation or result.truncated is not None:
        return result
    if result.is_error and not config.shrink_errors:
        return result
    parts = _text_parts(result.llm_content)
    if not parts:
        return result
    texts = [_clean(text) for _, text in parts]
    if not _over_limits(texts, config):
        return replace(result, truncated=False)
    store = None
    if config.spill:
        store = FileSpillStore(config.spill_dir, max_age=config.spill_max_age_hours * 3600)
    extra = load_reducers(config.reducers) if config.reducers else ()
    hint = _hint_of(result, config)
    char_shares = _shares([len(t) for t in texts], config.max_chars)
    line_shares = _shares([t.count("\n") + 1 for t in texts], config.max_lines)
    new_texts: list[str] = []
    output_path: str | None = None
    reduced = False
    for text, chars, lines in zip(texts, char_shares, line_shares, strict=True):
        budget = Budget(
            max(chars, 80) if chars else 0, max(lines, 2) if lines else 0, config.max_line_chars
        )
        out = _shrink_part(text, hint, budget, store, config, extra)
        if out.locator and store is not None and output_path is None:
            output_path = str(store.path_for(out.locator))
        new_texts.append(out.content)
        reduced = reduced or out.reduced
    if not reduced:
        return replace(result, truncated=False)
    content = _with_texts(result.llm_content, parts, new_texts)
    return replace(result, llm_content=content, truncated=True, output_path=output_path)


def _over_limits(texts: Sequence[str], config: HookConfig) -> bool:
    """True when the text parts together (joined by a newline) exceed a limit (`>`)."""
    total_chars = sum(len(t) for t in texts) + max(0, len(texts) - 1)
    total_lines = sum(t.count("\n") + (0 if t.endswith("\n") else 1) for t in texts if t)
    over_chars = bool(config.max_chars) and total_chars > config.max_chars
    over_lines = bool(config.max_lines) and total_lines > config.max_lines
    return over_chars or over_lines


def _hint_of(result: ToolResult, config: HookConfig) -> Hint:
    """What the result says about itself, cleaned; a failed result without a failing exit code
    counts as exit code 1."""
    exit_code = result.exit_code
    if result.is_error and exit_code in (None, 0):
        exit_code = 1
    query = result.query or config.query
    return Hint(
        tool=_clean(result.tool) if result.tool else None,
        command=_clean(result.command) if result.command else None,
        path=_clean(result.path) if result.path else None,
        query=_clean(query) if query else None,
        exit_code=exit_code,
    )


def _shrink_part(
    text: str,
    hint: Hint,
    budget: Budget,
    store: FileSpillStore | None,
    config: HookConfig,
    extra: Sequence[Reducer],
) -> Shrunk:
    """One text part shrunk to `budget`; without a saved original, an over-long line keeps its
    head (a line cap) rather than only a marker."""
    out = shrink(
        text, hint, budget, spill=store, only=config.only, disable=config.disable, extra=extra
    )
    cap = max(budget.max_chars // 2, MIN_CHARS) if budget.max_chars else 0
    if (
        out.reduced
        and out.locator is None
        and cap
        and not 0 < config.max_line_chars <= cap
        and _longest_line(text) > budget.max_chars
    ):
        capped = Budget(budget.max_chars, budget.max_lines, cap)
        error = out.spill_error
        out = shrink(text, hint, capped, only=config.only, disable=config.disable, extra=extra)
        out = replace(out, spill_error=error)
    if out.spill_error and store is not None:
        log.warning("could not save the full output in %s: %s", store.dir, out.spill_error)
    return out


def _with_texts(
    content: str | list[dict[str, Any]],
    parts: Sequence[tuple[int | None, str]],
    texts: Sequence[str],
) -> str | list[dict[str, Any]]:
    """`content` with its text parts replaced by `texts` (other parts as they were)."""
    if isinstance(content, str):
        return texts[0]
    replaced = list(content)
    for (index, _), text in zip(parts, texts, strict=True):
        assert index is not None
        replaced[index] = {**replaced[index], "text": text}
    return replaced


_ALIASES = {
    "llmContent": "llm_content",
    "isError": "is_error",
    "outputPath": "output_path",
    "exitCode": "exit_code",
    "toolName": "tool",
    "tool_name": "tool",
}


def result_from_record(record: Mapping[str, Any]) -> tuple[ToolResult, bool]:
    """A ToolResult from a JSON record (snake_case or camelCase keys); True when camelCase."""
    camel = any(key in record for key in ("llmContent", "isError", "outputPath"))
    values: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    known = {f.name for f in fields(ToolResult)} - {"extra"}
    for key, value in record.items():
        name = _ALIASES.get(key, key)
        if name in known:
            values[name] = value
        else:
            extra[key] = value
    content = values.get("llm_content", values.pop("content", None))
    if not isinstance(content, str | list):
        raise RecordError("a tool result needs llm_content: a string or a list of parts")
    values["llm_content"] = content
    for name, kind in _FIELD_TYPES.items():
        value = values.get(name)
        if value is not None and not _is(value, kind):
            raise RecordError(f"{name} must be {_KIND_WORDS[kind]}, not {type(value).__name__}")
    found = extra.get("args")
    arguments: dict[str, Any] = found if isinstance(found, dict) else {}
    command = arguments.get("command")
    path = arguments.get("file_path") or arguments.get("path")
    values.setdefault("command", command if isinstance(command, str) else None)
    values.setdefault("path", path if isinstance(path, str) else None)
    return ToolResult(**values, extra=extra), camel


_FIELD_TYPES: dict[str, type] = {
    "is_error": bool,
    "truncated": bool,
    "output_path": str,
    "tool": str,
    "command": str,
    "path": str,
    "query": str,
    "exit_code": int,
}
_KIND_WORDS = {bool: "true or false", str: "a string", int: "a whole number"}


def _is(value: object, kind: type) -> bool:
    """`isinstance`, except that a bool is not an int."""
    return isinstance(value, kind) and (kind is bool or not isinstance(value, bool))


def apply_to_record(record: Mapping[str, Any], result: ToolResult, camel: bool) -> dict[str, Any]:
    """`record` with the fields the hook may change taken from `result`, keys in its style."""
    updated = dict(record)
    content_key = "llmContent" if camel else ("llm_content" if "llm_content" in record else None)
    if content_key is None:
        content_key = "content" if "content" in record else "llm_content"
    updated[content_key] = result.llm_content
    if result.truncated is not None:
        updated["truncated"] = result.truncated
    if result.output_path is not None:
        updated["outputPath" if camel else "output_path"] = result.output_path
    return updated


def reply(line: str, config: HookConfig) -> bytes:
    """The reply to one JSON line (without its newline), as UTF-8 bytes without a newline.

    Raises RecordError for a line that is not a JSON object holding a tool result; any other
    error (a nesting too deep for the decoder, for one) propagates too.
    """
    record = json.loads(line)
    if not isinstance(record, dict):
        raise RecordError(f"not a JSON object but a {type(record).__name__}")
    result, camel = result_from_record(record)
    updated = apply_to_record(record, on_tool_result(result, config), camel)
    text = json.dumps(updated, ensure_ascii=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        # Lone surrogates came in as \\uXXXX escapes: write them back the same way.
        return json.dumps(updated).encode("ascii")
