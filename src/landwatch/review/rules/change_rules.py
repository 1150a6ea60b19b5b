"""Rules about the change as a whole: its size, tests that came with it, lockfiles kept in step.

Each says what it catches and what it deliberately lets through (the false positives others hit).
"""

from __future__ import annotations

import json
import posixpath
import re
import tomllib
from collections.abc import Callable, Iterator
from typing import Any

from landwatch.review.change import Change, FileChange, FileStatus
from landwatch.review.findings import Finding, Severity
from landwatch.review.globs import LOCKFILES_OF_MANIFEST, matches_any
from landwatch.review.rules.base import ChangeRule, Option


class ChangeTooLarge(ChangeRule):
    """A change adding more lines, or touching more files, than one review takes in (added lines
    only: deletions are quick to review). Binary files count as files, not lines."""

    id = "C001"
    name = "change-too-large"
    severity = Severity.INFO
    options = (
        Option("max_lines", 1000, "the most added lines in one change"),
        Option("max_files", 50, "the most files touched by one change"),
    )
    example = "1840 lines added across 63 files"

    def check_change(self, change: Change) -> Iterator[Finding]:
        lines = sum(len(file.added_lines) for file in change.files)
        files = len(change.files)
        max_lines, max_files = self.option("max_lines"), self.option("max_files")
        if lines <= max_lines and files <= max_files:
            return
        # Past the reviewer's line cap the count is only a floor.
        counted = f"at least {lines}" if change.truncated else str(lines)
        yield self.finding(
            f"large change: {counted} lines added (limit {max_lines}) "
            f"across {files} files (limit {max_files})",
            content="size",
        )


class SourceWithoutTests(ChangeRule):
    """Source files changed while no test file did. Test files are never source; files whose
    content did not change (pure renames, mode changes) and deleted files are not source changes;
    a Rust file whose added lines hold a `#[test]` or `#[cfg(test)]` carries its own tests."""

    id = "C002"
    name = "source-without-tests"
    severity = Severity.INFO
    options = (
        Option(
            "source",
            ("src/**", "lib/**", "app/**", "*.py", "*.go", "*.rs", "*.js", "*.ts"),
            "globs of source files",
        ),
        Option(
            "tests",
            (
                "tests/**",
                "test/**",
                "spec/**",
                "__tests__/**",
                "test_*",
                "*_test.*",
                "*.test.*",
                "*.spec.*",
            ),
            "globs of test files",
        ),
    )
    example = "src/parser.py changed, nothing under tests/"

    def check_change(self, change: Change) -> Iterator[Finding]:
        if all(file.deleted for file in change.files):
            return
        tests = self.option("tests")
        if any(matches_any(file.path, tests) for file in change.files):
            return
        source = sorted(
            file.path
            for file in change.files
            if not file.deleted
            and file.old_id != file.new_id
            and matches_any(file.path, self.option("source"))
        )
        if not source or any(self._inline_tests(file) for file in change.files):
            return
        shown = ", ".join(source[:3]) + (f" and {len(source) - 3} more" if len(source) > 3 else "")
        yield self.finding(
            f"source changed ({shown}) but no test file did", content="\n".join(source)
        )

    @staticmethod
    def _inline_tests(file: FileChange) -> bool:
        # Rust keeps unit tests in the source file; without this every Rust change is reported.
        if not file.path.endswith(".rs") or file.deleted:
            return False
        return any(
            b"#[test]" in line.raw or b"#[cfg(test)]" in line.raw for line in file.added_lines
        )


def _normal(value: Any) -> Any:
    """Dependencies as compared: whitespace-free strings, lists in any order, tables by key, and
    empty sections as absent ones, so `requests >= 2` for `requests>=2`, sorting a list, or an
    empty `devDependencies` is no change."""
    if isinstance(value, dict):
        table = {str(key): _normal(item) for key, item in value.items()}
        return {key: item for key, item in table.items() if item is not None} or None
    if isinstance(value, list):
        items = [_normal(item) for item in value]
        return sorted(items, key=lambda item: json.dumps(item, sort_keys=True, default=str)) or None
    if isinstance(value, str):
        return "".join(value.split())
    return value


def _json(content: bytes) -> dict[str, Any] | None:
    try:
        data = json.loads(content)
    except (ValueError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) else None


def _toml(content: bytes) -> dict[str, Any] | None:
    try:
        return tomllib.loads(content.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None


def _table(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _package_json(content: bytes) -> Any:
    data = _json(content)
    if data is None:
        return None
    sections = ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies")
    return {section: data.get(section) for section in sections}


def _composer_json(content: bytes) -> Any:
    data = _json(content)
    if data is None:
        return None
    return {section: data.get(section) for section in ("require", "require-dev")}


def _pyproject(content: bytes) -> Any:
    data = _toml(content)
    if data is None:
        return None
    poetry = _table(data, "tool", "poetry")
    groups = _table(poetry, "group")
    return {
        "project": _table(data, "project", "dependencies"),
        "optional": _table(data, "project", "optional-dependencies"),
        "groups": data.get("dependency-groups"),
        "poetry": {key: value for key, value in poetry.items() if "dependencies" in key}
        if isinstance(poetry, dict)
        else None,
        "poetry-groups": {name: _table(group, "dependencies") for name, group in groups.items()}
        if isinstance(groups, dict)
        else None,
        # uv and pdm lock their own development dependencies too.
        "uv": _table(data, "tool", "uv", "dev-dependencies"),
        "pdm": _table(data, "tool", "pdm", "dev-dependencies"),
    }


def _pipfile(content: bytes) -> Any:
    data = _toml(content)
    if data is None:
        return None
    # Every other table is a package category (pipenv allows custom ones beside dev-packages).
    return {
        key: value
        for key, value in data.items()
        if key not in ("source", "requires", "scripts", "pipenv")
    }


_CARGO_SECTIONS = (
    "dependencies",
    "dev-dependencies",
    "build-dependencies",
    "dev_dependencies",
    "build_dependencies",
)


def _cargo_toml(content: bytes) -> Any:
    data = _toml(content)
    if data is None:
        return None
    targets = data.get("target")
    return {
        "package": {section: data.get(section) for section in _CARGO_SECTIONS},
        "target": {
            name: {section: _table(target, section) for section in _CARGO_SECTIONS}
            for name, target in targets.items()
        }
        if isinstance(targets, dict)
        else None,
        # Members inherit these, and patches redirect resolution: both rewrite Cargo.lock.
        "workspace": _table(data, "workspace", "dependencies"),
        "patch": data.get("patch"),
    }


_GO_REQUIRE = re.compile(r"^require\s+(?:\((?P<block>.*?)^\s*\)|(?P<line>[^(\n].*?)$)", re.M | re.S)


def _go_mod(content: bytes) -> Any:
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        return None
    required = []
    for match in _GO_REQUIRE.finditer(text):
        for line in (match["block"] or match["line"] or "").splitlines():
            # `// indirect` moving on or off a requirement changes nothing in go.sum.
            requirement = line.split("//", 1)[0].split()
            if requirement:
                required.append(" ".join(requirement))
    return required


_GEM = re.compile(r"^\s*gem\s+(.*?)\s*(?:#[^'\"]*)?$", re.M)


def _gemfile(content: bytes) -> Any:
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return [match[1] for match in _GEM.finditer(text)]


# How to read each manifest's dependencies; its lockfiles are globs.LOCKFILES_OF_MANIFEST.
_DEPENDENCIES: dict[str, Callable[[bytes], Any]] = {
    "package.json": _package_json,
    "pyproject.toml": _pyproject,
    "Pipfile": _pipfile,
    "Cargo.toml": _cargo_toml,
    "go.mod": _go_mod,
    "Gemfile": _gemfile,
    "composer.json": _composer_json,
}
_MANIFEST_OF_LOCKFILE = {
    lockfile: manifest
    for manifest, lockfiles in LOCKFILES_OF_MANIFEST.items()
    for lockfile in lockfiles
}


class ManifestLockfile(ChangeRule):
    """A manifest whose dependencies changed while its lockfile, in the same directory of the
    landed tree, did not; or (`lockfile_alone`) a lockfile that changed while no manifest of its
    kind did.

    Lets through: a manifest whose scripts, version or other metadata changed but not its
    dependencies (compared parsed, ignoring whitespace and order); a manifest without a
    lockfile beside it; manifests that do not parse, old or new (syntax is another rule's); a
    lockfile whose manifest is absent, or which changed with a manifest of its kind in its
    directory or below (workspaces keep one lockfile at the root); and lockfiles added or
    deleted, which is done on purpose (a first lock, switching package managers, a library
    dropping its lock).
    """

    id = "C003"
    name = "manifest-lockfile"
    severity = Severity.WARNING
    options = (Option("lockfile_alone", True, "report a lockfile changed without its manifest"),)
    example = "package.json adds a dependency, package-lock.json is unchanged"

    def check_change(self, change: Change) -> Iterator[Finding]:
        changed = {file.path for file in change.files if not file.deleted}
        for file in change.files:
            if file.deleted:
                continue
            name = posixpath.basename(file.path)
            if name in _DEPENDENCIES:
                yield from self._manifest(change, file, changed)
            elif name in _MANIFEST_OF_LOCKFILE and self.option("lockfile_alone"):
                yield from self._lockfile(change, file, changed)

    def _manifest(self, change: Change, file: FileChange, changed: set[str]) -> Iterator[Finding]:
        directory, name = posixpath.split(file.path)
        parse, lockfiles = _DEPENDENCIES[name], LOCKFILES_OF_MANIFEST[name]
        present = [
            lockfile
            for lockfile in lockfiles
            if change.file_at(posixpath.join(directory, lockfile)) is not None
        ]
        if not present or any(posixpath.join(directory, lock) in changed for lock in present):
            return
        new = file.new_content()
        after = None if new is None else parse(new)
        if after is None:
            return
        if file.status in (FileStatus.ADDED, FileStatus.COPIED):
            # New at this path: before it, nothing here depended on anything.
            before = None
        else:
            old = file.old_content()
            before = None if old is None else parse(old)
            if before is None:
                return
        if _normal(before) == _normal(after):
            return
        yield self.finding(
            f"{name} dependencies changed but {' / '.join(present)} did not",
            path=file.path,
            content="dependencies",
        )

    def _lockfile(self, change: Change, file: FileChange, changed: set[str]) -> Iterator[Finding]:
        directory, name = posixpath.split(file.path)
        manifest = _MANIFEST_OF_LOCKFILE[name]
        # Added lockfiles are deliberate: the first lock committed, or a switch of package
        # manager (yarn.lock removed, package-lock.json added) that leaves the manifest alone.
        if file.status is not FileStatus.MODIFIED or file.old_id == file.new_id:
            return
        if change.file_at(posixpath.join(directory, manifest)) is None:
            return
        prefix = f"{directory}/" if directory else ""
        for path in changed:
            if posixpath.basename(path) == manifest and path.startswith(prefix):
                return
        yield self.finding(
            f"{name} changed but {manifest} did not", path=file.path, content="lockfile alone"
        )


RULES = [ChangeTooLarge, SourceWithoutTests, ManifestLockfile]
