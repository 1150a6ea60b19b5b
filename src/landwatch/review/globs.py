"""Path globs as the review reads them, the one list of lockfiles (generated files full of
hashes that no person wrote line by line), and the paths of test inputs by convention.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Iterable
from typing import NamedTuple

# Each manifest's lockfiles: what a package manager rewrites when the manifest's dependencies
# change (the rule keeping lockfiles in step pairs them).
LOCKFILES_OF_MANIFEST: dict[str, tuple[str, ...]] = {
    # npm-shrinkwrap.json first: npm installs from it over package-lock.json.
    "package.json": ("npm-shrinkwrap.json", "package-lock.json", "yarn.lock", "pnpm-lock.yaml"),
    "pyproject.toml": ("poetry.lock", "uv.lock", "pdm.lock"),
    "Pipfile": ("Pipfile.lock",),
    "Cargo.toml": ("Cargo.lock",),
    "go.mod": ("go.sum",),
    "Gemfile": ("Gemfile.lock",),
    "composer.json": ("composer.lock",),
}
LOCKFILES: tuple[str, ...] = (
    *(lockfile for lockfiles in LOCKFILES_OF_MANIFEST.values() for lockfile in lockfiles),
    "*.lock",
)

# Paths whose files are test inputs by convention.
TEST_PATHS: tuple[str, ...] = (
    "test/**",
    "tests/**",
    "testdata/**",
    "test-data/**",
    "test_data/**",
    "fixtures/**",
    "__fixtures__/**",
    "__tests__/**",
    "spec/**",
    "*_test.go",
    "*_test.py",
    "test_*.py",
    "*.test.js",
    "*.test.ts",
    "*.spec.js",
    "*.spec.ts",
)


def matches_any(path: str, patterns: Iterable[str]) -> bool:
    """Path globs: `*.min.js` matches a file name at any depth; `vendor/**` everything under a
    directory of that name at any depth; a pattern with an inner `/` is anchored at the root."""
    globs = _compiled(tuple(patterns))
    parts = path.split("/")
    name = parts[-1]
    if name in globs.exact_names or name.endswith(globs.suffixes):
        return True
    if globs.names is not None and globs.names.match(name):
        return True
    if globs.anchored is not None and globs.anchored.match(path):
        return True
    if globs.exact_directories and not globs.exact_directories.isdisjoint(parts[:-1]):
        return True
    if globs.directories is not None:
        return any(globs.directories.match(part) for part in parts[:-1])
    return False


class _Globs(NamedTuple):
    """A list of globs by what each is matched against (a file's name, the name of each
    directory above it, the whole path from the root): plain names and `*.ext` compared as
    strings, the rest as one regular expression for each."""

    exact_names: frozenset[str]
    suffixes: tuple[str, ...]
    names: re.Pattern[str] | None
    exact_directories: frozenset[str]
    directories: re.Pattern[str] | None
    anchored: re.Pattern[str] | None


# What makes a glob more than its own text (fnmatch's wildcards; `/` places it in a path).
_SPECIAL = frozenset("*?[/")


@functools.lru_cache(maxsize=512)
def _compiled(patterns: tuple[str, ...]) -> _Globs:
    """The globs compiled once per list (the review asks of the same few lists for every file),
    each translated as fnmatch translates it, so a glob means what fnmatchcase says. Most are a
    plain name or `*.ext`, compared without a regular expression: compiling a review's ~130
    globs cost a one-line review by hand a tenth of its time."""
    names, directories, anchored = [], [], []
    exact_names, suffixes, exact_directories = set(), [], set()
    for pattern in patterns:
        if pattern.endswith("/**"):
            directory = pattern[:-3].strip("/")
            if "/" in directory:
                anchored.append(directory + "/*")
            elif _SPECIAL.isdisjoint(directory):
                exact_directories.add(directory)
            else:
                directories.append(directory)
        elif "/" in pattern.strip("/"):
            anchored.append(pattern.lstrip("/"))
        elif _SPECIAL.isdisjoint(pattern):
            exact_names.add(pattern)
        elif pattern.startswith("*") and _SPECIAL.isdisjoint(pattern[1:]):
            suffixes.append(pattern[1:])  # `*` takes any run of characters, none too
        else:
            names.append(pattern)
    return _Globs(
        frozenset(exact_names),
        tuple(suffixes),
        _alternatives(names),
        frozenset(exact_directories),
        _alternatives(directories),
        _alternatives(anchored),
    )


def _alternatives(globs: list[str]) -> re.Pattern[str] | None:
    # fnmatch.translate ends each with \Z: every alternative must match to the end.
    return re.compile("|".join(fnmatch.translate(glob) for glob in globs)) if globs else None
