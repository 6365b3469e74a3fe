"""Checks on an `-o PATH` before any work: a usable name, and a folder that exists.

Like `cp`, the commands create no missing folder unless asked (`--parents`).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path


def add_parents_flag(parser: argparse.ArgumentParser) -> None:
    """The `--parents` option of a command with `-o`."""
    parser.add_argument(
        "--parents",
        action="store_true",
        help="create the missing folders of -o PATH (default: refuse, as cp does)",
    )


def output_problem(out: str, parents: bool) -> str | None:
    """Why `-o out` cannot be used, in one line, or None. A path ending with a separator names
    a folder to write into; any other path names the file itself (or an existing folder)."""
    try:
        os.stat(out)
    except FileNotFoundError:
        pass
    except OSError as error:
        return f"{out}: {error.strerror or error}"
    else:
        return None
    folder = Path(out) if out.endswith(("/", os.sep)) else Path(out).parent
    if parents or not str(folder) or folder.is_dir():
        return None
    return f"{out}: no such folder {str(folder)!r} (--parents creates it)"
