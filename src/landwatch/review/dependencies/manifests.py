"""What a manifest asks for (package.json, pyproject.toml, Pipfile, Cargo.toml, go.mod, Gemfile,
composer.json): its dependencies by name, each with the version range it asks where the lockfile
must satisfy one; path, git and workspace dependencies ask nothing of the lockfile.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from landwatch.lazy_re import lazy_compile
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


_PEP508_NAME = lazy_compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


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
    names = [name for items in _requirement_lists(data) for name in _requirements(items)]
    for table in _poetry_tables(_table(_table(data, "tool"), "poetry")):
        for name, spec in table.items() if isinstance(table, dict) else ():
            local = isinstance(spec, dict) and ("path" in spec or "git" in spec or "url" in spec)
            if name.lower() != "python" and not local:
                names.append(python_name(name))
    return dict.fromkeys(names)


def _requirement_lists(data: dict[str, Any]) -> list[Any]:
    """pyproject.toml's lists of PEP 508 requirements: the project's dependencies and its
    extras', the dependency groups, uv's and pdm's dev-dependencies."""
    project, tool = _table(data, "project"), _table(data, "tool")
    return [
        project.get("dependencies"),
        *_table(project, "optional-dependencies").values(),
        *_table(data, "dependency-groups").values(),
        *(_table(tool, manager).get("dev-dependencies") for manager in ("uv", "pdm")),
    ]


def _table(data: Any, key: str) -> dict[str, Any]:
    """`data[key]` where both are tables; an empty one otherwise."""
    table = data.get(key) if isinstance(data, dict) else None
    return table if isinstance(table, dict) else {}


def _poetry_tables(poetry: dict[str, Any]) -> list[Any]:
    """Poetry's dependency tables: the main one, the old dev one and every group's."""
    groups = _table(poetry, "group").values()
    return [
        poetry.get("dependencies"),
        poetry.get("dev-dependencies"),
        *(group.get("dependencies") for group in groups if isinstance(group, dict)),
    ]


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


_GO_REQUIRE = lazy_compile(
    r"^require\s+(?:\((?P<block>.*?)^\s*\)|(?P<line>[^(\n].*?)$)", re.M | re.S
)


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


_GEM = lazy_compile(r"""^\s*gem\s+["']([^"']+)["'](?P<rest>.*)$""", re.M)


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


# The lockfiles whose completeness is checked (`declared`): each locks every dependency of every
# group its manifest declares, whatever platform it was made on. Gemfile.lock (its specs hold
# the locked platforms' gems only), pdm.lock (it may lock some groups), Pipfile.lock and
# composer.lock are left out.
WHOLE_LOCKS = (
    "poetry.lock",
    "uv.lock",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "pnpm-lock.yaml",
    "yarn.lock",
    "Cargo.lock",
    "go.sum",
)


def declared(manifest: str, content: bytes) -> set[str] | None:
    """What a manifest declares that its whole lockfile must lock, in every group: all it asks
    for but what a lock may rightly leave out (a requirement under an environment marker, an
    extra naming the project itself, a Go module replaced); None when it does not parse."""
    wanted = READERS[manifest](content)
    if wanted is None:
        return None
    names = set(wanted)
    if manifest == "pyproject.toml":
        names -= _python_exempt(read_toml(content))
    elif manifest == "go.mod":
        text = read_text(content) or ""
        names -= {match[1] for match in _GO_REPLACED.finditer(text)}
    return names


# `replace a => ../a`, `replace a v1.2.3 => b v1.0.0`, or such a line in a `replace (...)` block.
_GO_REPLACED = lazy_compile(r"^(?:replace[ \t]+|[ \t]+)(\S+)(?:[ \t]+v\S+)?[ \t]+=>", re.M)


def _python_exempt(data: Any) -> set[str]:
    """The project's own name, and requirements a lock may leave out: under a PEP 508 marker
    (`; python_version < '3.8'`) or poetry's `markers`, `python` or `platform` keys."""
    if not isinstance(data, dict):
        return set()
    project, poetry = _table(data, "project"), _table(_table(data, "tool"), "poetry")
    exempt = {python_name(str(own)) for own in (project.get("name"), poetry.get("name")) if own}
    for items in _requirement_lists(data):
        for item in items if isinstance(items, list) else ():
            if isinstance(item, str) and ";" in item:
                exempt.update(_requirements([item]))
    for table in _poetry_tables(poetry):
        for name, spec in table.items() if isinstance(table, dict) else ():
            specs = spec if isinstance(spec, list) else [spec]
            if any(
                isinstance(one, dict) and {"markers", "python", "platform"} & one.keys()
                for one in specs
            ):
                exempt.add(python_name(name))
    return exempt
