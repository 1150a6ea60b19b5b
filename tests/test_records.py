"""A record nothing changes once made is a typing.NamedTuple (docs/architecture.md): a frozen
dataclass is kept only where it needs what a NamedTuple cannot give, since making its class
costs every process that imports it about ten times a NamedTuple's (issue 40)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from support import ROOT

SRC = ROOT / "src" / "landwatch"


def needless_frozen_dataclasses(source: str) -> list[str]:
    """The frozen dataclasses of `source` that a NamedTuple would do: none is checked or
    converted as it is made, holds a mutable default, caches an attribute or is indexed."""
    needless = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.ClassDef):
            continue
        if "dataclass(frozen=True)" not in {ast.unparse(d) for d in node.decorator_list}:
            continue
        needs = [
            statement
            for statement in node.body
            if (
                isinstance(statement, ast.FunctionDef)
                and (
                    statement.name in ("__post_init__", "__getitem__")
                    or any("cached_property" in ast.unparse(d) for d in statement.decorator_list)
                )
            )
            or (
                isinstance(statement, ast.AnnAssign)
                and statement.value is not None
                and "default_factory" in ast.unparse(statement.value)
            )
        ]
        if not needs:
            needless.append(node.name)
    return needless


@pytest.mark.parametrize("path", sorted(SRC.rglob("*.py")), ids=lambda p: str(p.relative_to(SRC)))
def test_every_frozen_dataclass_needs_what_only_a_dataclass_gives(path: Path) -> None:
    assert needless_frozen_dataclasses(path.read_text()) == []


def test_the_check_tells_a_plain_record_from_one_that_needs_a_dataclass() -> None:
    plain = "@dataclass(frozen=True)\nclass Plain:\n    name: str\n    size: int = 0\n"
    checked = (
        "@dataclass(frozen=True)\nclass Checked:\n    name: str\n"
        "    def __post_init__(self) -> None:\n        pass\n"
    )
    holding = (
        "@dataclass(frozen=True)\nclass Holding:\n    seen: list = field(default_factory=list)\n"
    )
    caching = (
        "@dataclass(frozen=True)\nclass Caching:\n    raw: bytes\n"
        "    @cached_property\n    def text(self) -> str:\n        return ''\n"
    )
    mutable = "@dataclass\nclass Mutable:\n    name: str\n"
    assert needless_frozen_dataclasses(plain) == ["Plain"]
    assert needless_frozen_dataclasses(checked + holding + caching + mutable) == []
