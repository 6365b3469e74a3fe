"""The engines never import Textual (DESIGN.md: engines know nothing of the UI)."""

import ast
from pathlib import Path

import pytest

ENGINES = ("session", "shrink", "klip", "conversation", "archive", "usage", "search")
PACKAGE = Path(__file__).resolve().parent.parent / "klipui"


def _engine_modules() -> list[Path]:
    return sorted(p for engine in ENGINES for p in (PACKAGE / engine).rglob("*.py"))


@pytest.mark.parametrize("module", _engine_modules(), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_engine_does_not_import_textual(module: Path) -> None:
    tree = ast.parse(module.read_text(encoding="utf-8"))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert "textual" not in imported
