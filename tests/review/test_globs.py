"""Path globs as the review reads them (review.globs): a name's glob matches at any depth, `dir/**`
everything under a directory of that name at any depth, a pattern with an inner `/` is anchored at
the root; and every manifest's lockfiles are lockfiles."""

from __future__ import annotations

import fnmatch

import pytest
from hypothesis import given
from hypothesis import strategies as st

from landwatch.review.globs import LOCKFILES, LOCKFILES_OF_MANIFEST, matches_any


@pytest.mark.parametrize(
    ("pattern", "path", "matched"),
    [
        ("*.min.js", "app.min.js", True),
        ("*.min.js", "web/static/app.min.js", True),
        ("*.min.js", "app.min.js.map", False),
        ("vendor/**", "vendor/lib.js", True),
        ("vendor/**", "src/vendor/deep/lib.js", True),
        ("vendor/**", "vendor.js", False),
        ("vendor/**", "src/vendors/lib.js", False),
        ("vendor/**", "lib/vendor", False),  # a file named vendor is not under it
        ("docs/api/**", "docs/api/index.md", True),
        ("docs/api/**", "src/docs/api/index.md", False),  # an inner `/`: from the root
        ("src/*.py", "src/app.py", True),
        ("src/*.py", "lib/src/app.py", False),
        ("/src/*.py", "src/app.py", True),  # a leading `/` says the root too
        ("Makefile", "tools/Makefile", True),
        ("[Mm]akefile", "makefile", True),
        ("*.PY", "app.py", False),  # case counts
    ],
)
def test_a_glob_matches_as_the_review_reads_it(pattern: str, path: str, matched: bool) -> None:
    assert matches_any(path, [pattern]) is matched


def test_any_of_the_patterns_is_enough() -> None:
    assert matches_any("vendor/x.js", ["*.py", "vendor/**"])
    assert not matches_any("x.js", [])


def test_every_manifest_s_lockfiles_are_lockfiles_wherever_they_sit() -> None:
    for lockfiles in LOCKFILES_OF_MANIFEST.values():
        for lockfile in lockfiles:
            assert matches_any(f"web/{lockfile}", LOCKFILES), lockfile
    assert matches_any("flake.lock", LOCKFILES)  # any *.lock
    assert LOCKFILES_OF_MANIFEST["package.json"][0] == "npm-shrinkwrap.json"  # npm's first
    assert not matches_any("package.json", LOCKFILES)


def _one_by_one(path: str, patterns: list[str]) -> bool:
    """The rule matches_any states, a glob at a time through fnmatchcase: the oracle."""
    parts = path.split("/")
    for pattern in patterns:
        if pattern.endswith("/**"):
            directory = pattern[:-3].strip("/")
            if "/" in directory:
                matched = fnmatch.fnmatchcase(path, directory + "/*")
            else:
                matched = any(fnmatch.fnmatchcase(part, directory) for part in parts[:-1])
        elif "/" in pattern.strip("/"):
            matched = fnmatch.fnmatchcase(path, pattern.lstrip("/"))
        else:
            matched = fnmatch.fnmatchcase(parts[-1], pattern)
        if matched:
            return True
    return False


_PIECES = st.sampled_from(["a", "b", ".", "*", "?", "[ab]", "[!a]", "/", "**"])
_NAMES = st.sampled_from(["a", "b", "ab", ".a", "a.b", "ba"])


@given(
    patterns=st.lists(st.lists(_PIECES, min_size=1, max_size=6).map("".join), max_size=4),
    path=st.lists(_NAMES, min_size=1, max_size=4).map("/".join),
)
def test_the_globs_compiled_together_match_as_each_one_alone(
    patterns: list[str], path: str
) -> None:
    assert matches_any(path, patterns) is _one_by_one(path, patterns)
