"""What a lockfile holds (npm, yarn, pnpm, Cargo, uv, poetry, pdm, Pipenv, Go, Bundler,
Composer): every package it locks by name, with the versions it locks it at.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from landwatch.lazy_re import LazyPattern, lazy_compile
from landwatch.review.dependencies import Locked, entries, python_name
from landwatch.review.documents import read_json, read_text, read_toml


def _add(locked: Locked, name: str, version: Any) -> None:
    locked.setdefault(name, set()).add(str(version) if version is not None else "")


def package_lock(content: bytes) -> Locked | None:
    data = read_json(content)
    if not isinstance(data, dict):
        return None
    locked: Locked = {}
    packages = data.get("packages")
    for path, entry in packages.items() if isinstance(packages, dict) else ():
        if "node_modules/" in path and isinstance(entry, dict):
            _add(locked, path.rsplit("node_modules/", 1)[1], entry.get("version"))
    stack = [data.get("dependencies")]
    while stack:
        table = stack.pop()
        for name, entry in table.items() if isinstance(table, dict) else ():
            if isinstance(entry, dict):
                _add(locked, name, entry.get("version"))
                stack.append(entry.get("dependencies"))
    return locked


_YARN_KEY = lazy_compile(r'^"?(@?[^@"\s,][^@"\s,]*)@')
_YARN_VERSION = lazy_compile(r'^\s+version:?\s+"?([^"\s]+)"?')


def yarn_lock(content: bytes) -> Locked | None:
    text = read_text(content)
    if text is None:
        return None
    locked: Locked = {}
    names: list[str] = []
    for line in text.splitlines():
        if line and not line.startswith((" ", "#")):
            names = [
                m[1] for part in line.rstrip(":").split(",") if (m := _YARN_KEY.match(part.strip()))
            ]
        elif names and (version := _YARN_VERSION.match(line)) is not None:
            for name in names:
                _add(locked, name, version[1])
            names = []
    return locked


_PNPM_PACKAGE = lazy_compile(r"^\s{2}'?/?(@?[^@/\s']+(?:/[^@/\s']+)?)[@/](\d[^(:\s']*)")


def _line_by_line(pattern: LazyPattern[str], content: bytes) -> Locked | None:
    """A lockfile whose packages are lines `pattern` matches: (name, version) its groups 1, 2."""
    text = read_text(content)
    if text is None:
        return None
    locked: Locked = {}
    for line in text.splitlines():
        match = pattern.match(line)
        if match is not None:
            _add(locked, match[1], match[2])
    return locked


def pnpm_lock(content: bytes) -> Locked | None:
    return _line_by_line(_PNPM_PACKAGE, content)


def toml_packages(content: bytes, *, python: bool = False) -> Locked | None:
    """Cargo.lock, uv.lock, poetry.lock, pdm.lock: [[package]] tables of name and version."""
    data = read_toml(content)
    if not isinstance(data, dict):
        return None
    locked: Locked = {}
    for package in data.get("package", []) if isinstance(data.get("package"), list) else []:
        if isinstance(package, dict) and isinstance(package.get("name"), str):
            name = python_name(package["name"]) if python else package["name"]
            _add(locked, name, package.get("version"))
    return locked


def pipfile_lock(content: bytes) -> Locked | None:
    data = read_json(content)
    if not isinstance(data, dict):
        return None
    locked: Locked = {}
    for name, entry in entries(data, ("default", "develop")):
        version = entry.get("version") if isinstance(entry, dict) else None
        _add(locked, python_name(name), version.lstrip("=") if isinstance(version, str) else "")
    return locked


def go_sum(content: bytes) -> Locked | None:
    text = read_text(content)
    if text is None:
        return None
    locked: Locked = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 2:
            _add(locked, parts[0], parts[1].removesuffix("/go.mod"))
    return locked


_GEM_SPEC = lazy_compile(r"^ {4}([^\s(]+) \(([^)]+)\)")


def gemfile_lock(content: bytes) -> Locked | None:
    return _line_by_line(_GEM_SPEC, content)


def composer_lock(content: bytes) -> Locked | None:
    data = read_json(content)
    if not isinstance(data, dict):
        return None
    locked: Locked = {}
    for section in ("packages", "packages-dev"):
        packages = data.get(section)
        for package in packages if isinstance(packages, list) else ():
            if isinstance(package, dict) and isinstance(package.get("name"), str):
                _add(locked, package["name"].lower(), package.get("version"))
    return locked


# The reader of each lockfile, by its file name.
READERS: dict[str, Callable[[bytes], Locked | None]] = {
    "package-lock.json": package_lock,
    "npm-shrinkwrap.json": package_lock,
    "yarn.lock": yarn_lock,
    "pnpm-lock.yaml": pnpm_lock,
    "Cargo.lock": toml_packages,
    "uv.lock": lambda content: toml_packages(content, python=True),
    "poetry.lock": lambda content: toml_packages(content, python=True),
    "pdm.lock": lambda content: toml_packages(content, python=True),
    "Pipfile.lock": pipfile_lock,
    "go.sum": go_sum,
    "Gemfile.lock": gemfile_lock,
    "composer.lock": composer_lock,
}
