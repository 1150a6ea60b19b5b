"""Imports flow one way (docs/architecture.md): cli -> commands -> daemon -> kinds -> the
libraries -> wall -> review -> the foundations. work_item, job_queue and the other foundations
import nothing of ours; review knows nothing of queues, kinds or where its reports are kept.
Imports inside functions count too. Only the wall's door starts a program with a repository in
reach; the few others that start programs say what they start."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from support import ROOT

SRC = ROOT / "src" / "landwatch"

# The rooms from the top down: a room imports only from rooms below it (within itself freely);
# rooms of one layer are peers and import none of each other.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("__main__",),
    ("cli",),
    ("usage", "front"),
    ("commands",),
    ("daemon",),
    ("kinds",),
    ("review_landing", "sharing", "push_gate"),
    ("push_heard",),
    ("trust", "report_store", "standards_store", "notify", "push_remote"),
    ("telling",),
    ("allowances", "line_markers"),
    ("coverage",),
    ("hook_slots", "lfs_slots"),
    ("hooks", "registry"),
    ("layout",),
    ("git", "one_line"),
    ("wall",),
    ("review",),
    ("styled", "json_out"),
    ("user_dirs",),
    (
        "work_item",
        "job_queue",
        "files",
        "text",
        "errors",
        "processes",
        "pager",
        "closed_pipe",
        "plugins",
        "lazy_re",
        "git_ssh",
        "programs",
    ),
)
# Rooms that import nothing of ours outside themselves.
ALONE = LAYERS[-1]
# Below it, yet none of its business: the review knows nothing of queues or of landwatch's files.
UNKNOWN_TO = {"review": ("work_item", "job_queue", "files")}
LAYER_OF = {room: depth for depth, rooms in enumerate(LAYERS) for room in rooms}


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
    bad = []
    for name in sorted(imported):
        target = name.split(".")[0]
        if name == "__version__" or target == room:
            continue  # the version, or within its own room
        below = LAYER_OF.get(target, -1) > LAYER_OF[room]
        if room in ALONE or not below or target in UNKNOWN_TO.get(room, ()):
            bad.append(f"{module} imports {name}")
    return bad


MODULES = sorted(SRC.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=[module_name(p) or "landwatch" for p in MODULES])
def test_imports_flow_one_way(path: Path) -> None:
    module = module_name(path)
    if module == "":
        return  # the package's own __init__: the version
    assert violations(module, imports_of(path)) == []


def test_every_room_is_in_a_layer() -> None:
    rooms = {module_name(path).split(".")[0] for path in MODULES} - {""}
    assert rooms <= set(LAYER_OF), sorted(rooms - set(LAYER_OF))


def test_the_check_catches_an_import_against_the_flow() -> None:
    assert violations("work_item", {"layout"}) == ["work_item imports layout"]
    assert violations("review.engine", {"work_item"}) == ["review.engine imports work_item"]
    assert violations("review.engine", {"layout"}) == ["review.engine imports layout"]
    assert violations("kinds.push", {"daemon.lock"}) == ["kinds.push imports daemon.lock"]
    assert violations("daemon.loop", {"commands.status"}) == ["daemon.loop imports commands.status"]
    assert violations("layout", {"registry"}) == ["layout imports registry"]
    assert violations("review.engine", {"review.change"}) == []
    assert violations("commands.doctor", {"commands.install", "daemon.lock"}) == []
    assert violations("work_item.claims", {"work_item.names"}) == []
    assert violations("files", {"text"}) == ["files imports text"]
    assert violations("trust", {"report_store"}) == ["trust imports report_store"]


def named_on(page: str, module: str) -> bool:
    """Whether docs/architecture.md names `module`: as `a.b.c`, or as `c` in the list of modules
    after its package (`a.b` (`c`, `d`)). The package's own `__init__` is the package's name."""
    if f"`{module}`" in page:
        return True
    package, _, name = module.rpartition(".")
    for listed in re.findall(rf"`{re.escape(package)}` \(([^)]*)\)", page):
        if f"`{name}`" in listed:
            return True
    return False


def test_every_module_is_named_in_the_architecture_page() -> None:
    page = (ROOT / "docs" / "architecture.md").read_text()
    modules = [module_name(path) or "__init__" for path in MODULES]
    assert [module for module in modules if not named_on(page, module)] == []


def test_the_page_check_reads_both_spellings() -> None:
    page = "`commands.install` and `review.secrets` (`redaction`, `detectors`)"
    assert named_on(page, "commands.install") and named_on(page, "review.secrets.redaction")
    assert not named_on(page, "review.secrets.tokens") and not named_on(page, "commands.show")


# What starts a program, wherever it is called from: the standard library's ways, and ours.
_STARTS = {
    "subprocess": {"run", "Popen", "call", "check_call", "check_output", "getoutput"},
    "os": {"system", "popen", "posix_spawn", "posix_spawnp", "fork", "forkpty"}
    | {f"exec{suffix}" for suffix in ("l", "le", "lp", "lpe", "v", "ve", "vp", "vpe")}
    | {f"spawn{suffix}" for suffix in ("l", "le", "lp", "lpe", "v", "ve", "vp", "vpe")},
    "processes": {"run_command", "run_program"},
}
# The modules that start programs, and what: nothing of a repository's runs in any of them but
# the door (wall.door), which is the wall's.
STARTERS = {
    "processes": "defines run_command and run_program: the one way a process is started",
    "wall.door": "the one door: a repository's code behind the wall; the person's tools asked a "
    "question in an empty directory; git making the checkout, with no configuration but ours",
    "git": "landwatch's own git, on objects and refs: it reads no repository file as code, "
    "runs no hook of a repository and no fsmonitor",
    "notify": "notify-send or osascript, with the review's counts",
    "commands.service": "systemctl and launchctl, for the reviewer's service",
    "daemon.process": "the reviewer detaching itself: a fork of landwatch",
    "pager": "the person's pager, on what `landwatch trust` shows, and `git var GIT_PAGER` "
    "asked in an empty directory outside every repository (a repository names no pager)",
}


def starts(path: Path) -> set[str]:
    """The ways `path` starts a program: `subprocess.run`, `os.execv`, `run_command`, ..."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Call):
            continue
        function = node.func
        if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name):
            owner, name = function.value.id, function.attr
        elif isinstance(function, ast.Name):
            owner, name = "processes", function.id
        else:
            continue
        if name in _STARTS.get(owner, set()):
            found.add(f"{owner}.{name}")
    return found


@pytest.mark.parametrize("path", MODULES, ids=[module_name(p) or "landwatch" for p in MODULES])
def test_only_the_door_starts_a_program_with_a_repository_in_reach(path: Path) -> None:
    module = module_name(path)
    if starts(path):
        assert module in STARTERS, f"{module} starts {sorted(starts(path))}"


def test_every_starter_starts_something() -> None:
    by_module = {module_name(path): starts(path) for path in MODULES}
    assert [module for module in STARTERS if not by_module.get(module)] == []


def test_the_check_catches_a_program_started_outside_the_door(tmp_path: Path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text(
        "import os, subprocess\nfrom landwatch.processes import run_program\n"
        "subprocess.run(['x'])\nos.execvp('x', ['x'])\nrun_program(['x'], input=b'', timeout=1)\n"
    )
    assert starts(planted) == {"subprocess.run", "os.execvp", "processes.run_program"}
