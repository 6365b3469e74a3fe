"""Building the command line imports no engine: `klipui hook` runs once per tool result."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

from klipui.cli import build_parser, command_names
from klipui.cli.compact import DEFAULT_MAX_CHARS
from klipui.klip import compact as compact_engine

HEAVY = ("klipui.klip", "klipui.shrink", "klipui.session", "klipui.conversation", "textual")


def _modules_after(code: str) -> list[str]:
    script = f"import sys, json\n{code}\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, check=True, text=True)
    return json.loads(out.stdout)


def test_the_full_parser_imports_no_engine() -> None:
    loaded = _modules_after("from klipui.cli import build_parser; build_parser()")
    assert "klipui.cli.compact" in loaded
    assert [m for m in loaded if m.startswith(HEAVY)] == []


def test_one_subcommand_imports_only_its_module() -> None:
    loaded = _modules_after("from klipui.cli import build_parser; build_parser('hook')")
    assert [m for m in loaded if m.startswith("klipui.cli.")] == ["klipui.cli.hook"]


def test_every_module_is_a_subcommand() -> None:
    _, commands = build_parser()
    assert set(commands) == set(command_names())
    assert {"ls", "show", "klip", "hook", "compact", "app"} <= set(commands)


def test_compact_default_is_the_engines() -> None:
    assert DEFAULT_MAX_CHARS == compact_engine.DEFAULT_MAX_CHARS


def test_hook_options_all_have_help() -> None:
    parser, _ = build_parser("hook")
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    hook = action.choices["hook"]
    assert [a.dest for a in hook._actions if not a.help] == []
