"""What a manifest asks for (package.json, pyproject.toml, Pipfile, Cargo.toml, go.mod, Gemfile,
composer.json): its dependencies by name, each with the version range it asks where the lockfile
must satisfy one; path, git and workspace dependencies ask nothing of the lockfile.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from landwatch.review.dependencies import Wanted, entries, python_name
from landwatch.review.documents import read_json, read_text, read_toml

_NPM_LOCAL = (
    "file:",
    "link:",
    "workspace:",
    "portal:",
    "git",
    "http:",
    "https:",
    "github:",
    "npm:",
)


def package_json(content: bytes) -> Wanted | None:
    data = read_json(content)
    if not isinstance(data, dict):
        return None
    wanted: Wanted = {}
    for name, spec in entries(data, ("dependencies", "devDependencies", "optionalDependencies")):
        local = not isinstance(spec, str) or spec.startswith(_NPM_LOCAL) or "/" in spec
        wanted[str(name)] = None if local else spec
    return wanted


_PEP508_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def _requirements(items: Any) -> list[str]:
    names = []
    for item in items if isinstance(items, list) else []:
        match = _PEP508_NAME.match(item) if isinstance(item, str) else None
        if match is not None:
            names.append(python_name(match[1]))
    return names


def pyproject(content: bytes) -> Wanted | None:
    data = read_toml(content)
    if not isinstance(data, dict):
        return None
    names: list[str] = []
    project: dict[str, Any] = data["project"] if isinstance(data.get("project"), dict) else {}
    names += _requirements(project.get("dependencies"))
    optional = project.get("optional-dependencies")
    for group in optional.values() if isinstance(optional, dict) else ():
        names += _requirements(group)
    groups = data.get("dependency-groups")
    for group in groups.values() if isinstance(groups, dict) else ():
        names += _requirements(group)
    tool: dict[str, Any] = data["tool"] if isinstance(data.get("tool"), dict) else {}
    for manager in ("uv", "pdm"):
        table = tool.get(manager)
        if isinstance(table, dict):
            names += _requirements(table.get("dev-dependencies"))
    poetry = tool.get("poetry")
    if isinstance(poetry, dict):
        tables = [poetry.get("dependencies"), poetry.get("dev-dependencies")]
        group = poetry.get("group")
        tables += (
            [g.get("dependencies") for g in group.values() if isinstance(g, dict)]
            if isinstance(group, dict)
            else []
        )
        for table in tables:
            for name, spec in table.items() if isinstance(table, dict) else ():
                local = isinstance(spec, dict) and (
                    "path" in spec or "git" in spec or "url" in spec
                )
                if name.lower() != "python" and not local:
                    names.append(python_name(name))
    return dict.fromkeys(names)


def pipfile(content: bytes) -> Wanted | None:
    data = read_toml(content)
    if not isinstance(data, dict):
        return None
    wanted: Wanted = {}
    for key, table in data.items():
        if key in ("source", "requires", "scripts", "pipenv") or not isinstance(table, dict):
            continue
        for name, spec in table.items():
            if not (isinstance(spec, dict) and ("path" in spec or "git" in spec or "file" in spec)):
                wanted[python_name(name)] = None
    return wanted


_CARGO_SECTIONS = ("dependencies", "dev-dependencies", "build-dependencies")


def cargo_toml(content: bytes) -> Wanted | None:
    data = read_toml(content)
    if not isinstance(data, dict):
        return None
    tables = [data.get(section) for section in _CARGO_SECTIONS]
    targets = data.get("target")
    for target in targets.values() if isinstance(targets, dict) else ():
        if isinstance(target, dict):
            tables += [target.get(section) for section in _CARGO_SECTIONS]
    workspace = data.get("workspace")
    if isinstance(workspace, dict):
        tables.append(workspace.get("dependencies"))
    wanted: Wanted = {}
    for table in tables:
        for name, spec in table.items() if isinstance(table, dict) else ():
            if isinstance(spec, str):
                wanted[name] = spec
            elif isinstance(spec, dict):
                real = spec.get("package", name)
                local = any(key in spec for key in ("path", "git", "workspace"))
                version = spec.get("version")
                wanted[str(real)] = None if local or not isinstance(version, str) else version
    return wanted


_GO_REQUIRE = re.compile(r"^require\s+(?:\((?P<block>.*?)^\s*\)|(?P<line>[^(\n].*?)$)", re.M | re.S)


def go_mod(content: bytes) -> Wanted | None:
    text = read_text(content)
    if text is None:
        return None
    wanted: Wanted = {}
    for match in _GO_REQUIRE.finditer(text):
        for line in (match["block"] or match["line"] or "").splitlines():
            parts = line.split("//", 1)[0].split()
            if len(parts) >= 2:
                wanted[parts[0]] = parts[1]
    return wanted


_GEM = re.compile(r"""^\s*gem\s+["']([^"']+)["'](?P<rest>.*)$""", re.M)


def gemfile(content: bytes) -> Wanted | None:
    text = read_text(content)
    if text is None:
        return None
    return {
        match[1]: None
        for match in _GEM.finditer(text)
        if not re.search(r"\b(?:path|git|github)\s*[:=]", match["rest"])
    }


def composer_json(content: bytes) -> Wanted | None:
    data = read_json(content)
    if not isinstance(data, dict):
        return None
    wanted: Wanted = {}
    for name, _ in entries(data, ("require", "require-dev")):
        if name != "php" and not name.startswith(("ext-", "lib-")):
            wanted[name.lower()] = None
    return wanted


# The reader of each manifest, by its file name.
READERS: dict[str, Callable[[bytes], Wanted | None]] = {
    "package.json": package_json,
    "pyproject.toml": pyproject,
    "Pipfile": pipfile,
    "Cargo.toml": cargo_toml,
    "go.mod": go_mod,
    "Gemfile": gemfile,
    "composer.json": composer_json,
}
# How versions are read for each manifest: npm and Cargo ranges, Go exact versions.
ECOSYSTEM = {"package.json": "npm", "Cargo.toml": "cargo", "go.mod": "go"}
