"""What a manifest asks for and what its lockfile holds, for the rule keeping lockfiles in step
(manifest-lockfile): dependency names with the version each asks (where it is one the lockfile
must satisfy), and the versions locked.

Readers return None when they cannot read a file: the rule then says nothing (a syntax error
is another rule's). Versions are checked for npm and Cargo ranges and Go's exact ones; other
ecosystems are checked by name only.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from landwatch.review.documents import read_json, read_text, read_toml

Wanted = dict[str, str | None]  # dependency name -> version range to satisfy (None: any)
Locked = dict[str, set[str]]  # dependency name -> versions the lockfile holds


def _items(data: dict[str, Any], sections: tuple[str, ...]) -> Iterator[tuple[str, Any]]:
    """(name, value) from each of `sections` of `data` that is a table; any other is skipped."""
    for section in sections:
        table = data.get(section)
        if isinstance(table, dict):
            yield from table.items()


def python_name(name: str) -> str:
    """PEP 503's normal form: `Flask_SQLAlchemy` and `flask-sqlalchemy` are one project."""
    return re.sub(r"[-_.]+", "-", name).lower()


# --- manifests ----------------------------------------------------------------------------------

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
    for name, spec in _items(data, ("dependencies", "devDependencies", "optionalDependencies")):
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
    for name, _ in _items(data, ("require", "require-dev")):
        if name != "php" and not name.startswith(("ext-", "lib-")):
            wanted[name.lower()] = None
    return wanted


MANIFESTS: dict[str, Callable[[bytes], Wanted | None]] = {
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


# --- lockfiles ----------------------------------------------------------------------------------


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


_YARN_KEY = re.compile(r'^"?(@?[^@"\s,][^@"\s,]*)@')
_YARN_VERSION = re.compile(r'^\s+version:?\s+"?([^"\s]+)"?')


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


_PNPM_PACKAGE = re.compile(r"^\s{2}'?/?(@?[^@/\s']+(?:/[^@/\s']+)?)[@/](\d[^(:\s']*)")


def _line_by_line(pattern: re.Pattern[str], content: bytes) -> Locked | None:
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
    for name, entry in _items(data, ("default", "develop")):
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


_GEM_SPEC = re.compile(r"^ {4}([^\s(]+) \(([^)]+)\)")


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


LOCKFILES: dict[str, Callable[[bytes], Locked | None]] = {
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


# --- versions -----------------------------------------------------------------------------------

_VERSION = re.compile(
    r"^v?(\d+)(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-([0-9A-Za-z.-]+))?(?:\+\S*)?$"
)

Version = tuple[int, int, int]


def _version(text: str) -> tuple[Version, int, str | None] | None:
    """(major, minor, patch), how many parts were given (wildcards end it), prerelease."""
    match = _VERSION.match(text.strip())
    if match is None:
        return None
    parts = [match[1], match[2], match[3]]
    given = 0
    numbers = []
    for part in parts:
        if part is None or not part.isdigit():
            break
        numbers.append(int(part))
        given += 1
    numbers += [0] * (3 - len(numbers))
    return (numbers[0], numbers[1], numbers[2]), given, match[4]


def _caret(low: Version, given: int) -> tuple[Version, Version]:
    major, minor, patch = low
    if major > 0 or given == 1:
        return low, (major + 1, 0, 0)
    if minor > 0 or given == 2:
        return low, (0, minor + 1, 0)
    return low, (0, 0, patch + 1)


def _tilde(low: Version, given: int) -> tuple[Version, Version]:
    major, minor, _ = low
    return (low, (major + 1, 0, 0)) if given == 1 else (low, (major, minor + 1, 0))


def _comparator(term: str, version: Version, default: str) -> bool | None:
    match = re.match(r"^(\^|~|>=|<=|>|<|=)?\s*(.+)$", term)
    if match is None:
        return None
    operator, rest = match[1] or default, match[2]
    if rest in ("*", "x", "X", "latest"):
        return True
    parsed = _version(rest)
    if parsed is None:
        return None
    low, given, _ = parsed
    if operator == "^":
        lower, upper = _caret(low, given)
        return lower <= version < upper
    if operator == "~":
        lower, upper = _tilde(low, given)
        return lower <= version < upper
    if operator == "=":
        if given == 3:
            return version == low
        lower, upper = _tilde(low, given)  # a partial version is a range: =1.2 is ~1.2, 1.2.x
        return lower <= version < upper
    if operator == ">=":
        return version >= low
    if operator == ">":
        return version > low
    if operator == "<=":
        return version <= low
    return version < low


def satisfies(version: str, spec: str, ecosystem: str) -> bool | None:
    """Whether a locked `version` meets a manifest's `spec` (None: cannot tell)."""
    parsed = _version(version)
    if parsed is None:
        return None
    locked, _, _ = parsed
    if ecosystem == "go":
        return version == spec
    # npm: a bare version is exact, `a || b` alternatives, space-joined comparators, `a - b`;
    # Cargo: a bare version is a caret, comparators joined by commas.
    default = "=" if ecosystem == "npm" else "^"
    alternatives = spec.split("||") if ecosystem == "npm" else [spec]
    verdicts = []
    for alternative in alternatives:
        alternative = alternative.strip()
        if ecosystem == "npm" and " - " in alternative:
            low, _, high = alternative.partition(" - ")
            terms = [f">={low.strip()}", f"<={high.strip()}"]
        elif ecosystem == "cargo":
            terms = [term.strip() for term in alternative.split(",") if term.strip()]
        else:
            terms = re.sub(r"(>=|<=|>|<|=|\^|~)\s+", r"\1", alternative).split()
        results = [_comparator(term, locked, default) for term in terms or ["*"]]
        if any(result is None for result in results):
            return None
        verdicts.append(all(results))
    return any(verdicts)
