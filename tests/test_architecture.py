"""Imports flow one way (docs/architecture.md): cli -> commands -> daemon -> kinds -> review,
job_queue, work_item; work_item and job_queue import nothing of ours; review knows nothing of
queues, kinds or where its reports are kept. Imports inside functions count too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from support import ROOT

SRC = ROOT / "src" / "landwatch"
COMMANDS = ("install", "service", "status", "notice", "doctor", "removal")

# What each room may not import (prefixes of module names under landwatch).
FORBIDDEN = {
    "work_item": ("",),
    "job_queue": ("",),
    "errors": ("",),
    "text": ("",),
    "files": ("",),
    "parent_death": ("",),
    "layout": ("review", "kinds", "daemon", "job_queue", "cli", *COMMANDS),
    "review": (
        "work_item",
        "job_queue",
        "kinds",
        "daemon",
        "layout",
        "files",
        "registry",
        "report_store",
        "cli",
        *COMMANDS,
    ),
    "report_store": ("kinds", "daemon", "job_queue", "work_item", "cli", *COMMANDS),
    "notify": ("kinds", "daemon", "job_queue", "work_item", "cli", *COMMANDS),
    "standards_store": ("kinds", "daemon", "job_queue", "work_item", "cli", *COMMANDS),
    "trust": ("kinds", "daemon", "job_queue", "work_item", "registry", "cli", *COMMANDS),
    "hooks": ("review", "kinds", "daemon", "job_queue", "work_item", "cli", *COMMANDS),
    "hook_slots": ("review", "kinds", "daemon", "job_queue", "work_item", "cli", *COMMANDS),
    "coverage": ("review", "kinds", "daemon", "job_queue", "cli", *COMMANDS),
    "registry": ("review", "kinds", "daemon", "job_queue", "cli", *COMMANDS),
    "kinds": ("daemon", "cli", *COMMANDS),
    "daemon": ("cli", *COMMANDS),
    **{command: ("cli",) for command in COMMANDS},
}


def module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(part for part in parts if part != "__init__")


def imports_of(path: Path) -> set[str]:
    """Every landwatch module `path` imports, without the `landwatch.` prefix."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
        else:
            continue
        for name in names:
            if name == "landwatch" or name.startswith("landwatch."):
                found.add(name.removeprefix("landwatch").removeprefix("."))
    return found - {""}


def violations(module: str, imported: set[str]) -> list[str]:
    room = module.split(".")[0]
    banned = FORBIDDEN.get(room, ())
    bad = []
    for name in sorted(imported):
        if name.split(".")[0] == room and "" not in banned:
            continue  # within its own room
        if name == "__version__":
            continue
        if any(
            prefix == "" or name == prefix or name.startswith(prefix + ".") for prefix in banned
        ):
            bad.append(f"{module} imports {name}")
    return bad


MODULES = sorted(SRC.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=[module_name(p) or "landwatch" for p in MODULES])
def test_imports_flow_one_way(path: Path) -> None:
    module = module_name(path)
    if module in ("", "__main__", "cli"):
        return  # the front door imports everything it runs
    assert violations(module, imports_of(path)) == []


def test_the_check_catches_an_import_against_the_flow() -> None:
    assert violations("work_item", {"layout"}) == ["work_item imports layout"]
    assert violations("review.engine", {"work_item"}) == ["review.engine imports work_item"]
    assert violations("kinds.push", {"daemon.lock"}) == ["kinds.push imports daemon.lock"]
    assert violations("review.engine", {"review.change"}) == []
