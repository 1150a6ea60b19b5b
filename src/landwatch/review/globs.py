"""Path globs as the review reads them, the one list of lockfiles (generated files full of
hashes that no person wrote line by line), and the paths of test inputs by convention.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable

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
    parts = path.split("/")
    for pattern in patterns:
        if pattern.endswith("/**"):
            directory = pattern[:-3].strip("/")
            if "/" in directory:
                if fnmatch.fnmatchcase(path, directory + "/*"):
                    return True
            elif any(fnmatch.fnmatchcase(part, directory) for part in parts[:-1]):
                return True
        elif "/" in pattern.strip("/"):
            if fnmatch.fnmatchcase(path, pattern.lstrip("/")):
                return True
        elif fnmatch.fnmatchcase(parts[-1], pattern):
            return True
    return False
