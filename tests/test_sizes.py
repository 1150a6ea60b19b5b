"""No module under src/ over 400 lines and no function over 60 (from its `def` to its last line,
docstring included), except where the module's docstring says why in a sentence beginning
"Kept whole because": the size at which a newcomer still reads a room whole."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from support import ROOT

SRC = ROOT / "src" / "landwatch"
MODULE_LINES = 400
FUNCTION_LINES = 60
EXCUSE = "Kept whole because"


def oversized(text: str) -> list[str]:
    """What in a module's `text` is over the limits, unless its docstring says why."""
    tree = ast.parse(text)
    if EXCUSE in (ast.get_docstring(tree) or ""):
        return []
    found = []
    lines = text.count("\n")
    if lines > MODULE_LINES:
        found.append(f"{lines} lines")
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > FUNCTION_LINES:
                found.append(f"{node.name}: {length} lines")
    return found


MODULES = sorted(SRC.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=[str(p.relative_to(SRC)) for p in MODULES])
def test_no_module_or_function_is_too_long_to_read_whole(path: Path) -> None:
    assert oversized(path.read_text()) == []


def test_the_check_counts_what_it_says() -> None:
    long_function = "def f():\n" + "    x = 1\n" * FUNCTION_LINES
    assert oversized(long_function) == [f"f: {FUNCTION_LINES + 1} lines"]
    assert oversized("x = 1\n" * (MODULE_LINES + 1)) == [f"{MODULE_LINES + 1} lines"]
    assert oversized(f'"""Big. {EXCUSE} it is one table."""\n' + "x = 1\n" * 500) == []
    assert oversized("def f():\n    return 1\n") == []
