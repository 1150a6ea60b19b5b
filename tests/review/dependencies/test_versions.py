"""Whether a locked version satisfies what a manifest asks (review.dependencies.versions): npm's
ranges, Cargo's (a bare version is a caret), Go's exact versions, and "cannot tell" (None) for
what is no version or no range it reads."""

from __future__ import annotations

import pytest

from landwatch.review.dependencies.versions import satisfies


@pytest.mark.parametrize(
    ("locked", "asked", "verdict"),
    [
        ("1.4.1", "^1.4.0", True),
        ("2.0.0", "^1.4.0", False),
        ("0.2.5", "^0.2.3", True),
        ("0.3.0", "^0.2.3", False),  # below 1.0 the caret holds the minor
        ("0.0.4", "^0.0.3", False),  # and below 0.1 the patch
        ("1.2.9", "~1.2.3", True),
        ("1.3.0", "~1.2.3", False),
        ("1.9.0", "~1", True),
        ("1.2.3", "1.2.3", True),
        ("1.2.4", "1.2.3", False),  # a bare version is exact in npm
        ("1.9.0", "1.x", True),
        ("2.0.0", "1.x", False),
        ("1.2.7", "=1.2", True),
        ("1.5.0", "1.0.0 - 2.0.0", True),
        ("2.0.1", "1.0.0 - 2.0.0", False),
        ("3.1.0", "^1 || ^3", True),
        ("2.1.0", "^1 || ^3", False),
        ("1.5.0", ">= 1.2 < 2", True),
        ("2.0.0", ">=1.2 <2", False),
        ("1.2.0", ">1.2.0", False),
        ("1.2.0", "<=1.2.0", True),
        ("4.0.0", "*", True),
        ("4.0.0", "latest", True),
        ("v1.4.1", "^1.4.0", True),  # a leading v is read
        ("1.4.1+build.5", "^1.4.0", True),  # build metadata is not the version
    ],
)
def test_npm_ranges(locked: str, asked: str, verdict: bool) -> None:
    assert satisfies(locked, asked, "npm") is verdict


@pytest.mark.parametrize(
    ("locked", "asked", "verdict"),
    [
        ("1.4.1", "1.4.0", True),  # a bare version is a caret in Cargo
        ("1.5.0", "1.4", True),
        ("1.3.9", "1.4", False),
        ("2.0.0", "1", False),
        ("1.4.0", ">= 1.2, < 1.5", True),
        ("1.5.0", ">=1.2, <1.5", False),
        ("1.2.3", "=1.2.3", True),
        ("1.2.4", "=1.2.3", False),
    ],
)
def test_cargo_ranges(locked: str, asked: str, verdict: bool) -> None:
    assert satisfies(locked, asked, "cargo") is verdict


def test_go_versions_are_exact() -> None:
    assert satisfies("v0.14.0", "v0.14.0", "go") is True
    assert satisfies("v0.14.0", "v0.15.0", "go") is False


@pytest.mark.parametrize(
    ("locked", "asked"),
    [
        ("not-a-version", "^1.0.0"),
        ("1.0.0", "github:user/repo"),
        ("1.0.0", "file:../local"),
        ("1.0.0", "^one"),
    ],
)
def test_what_cannot_be_read_cannot_be_told(locked: str, asked: str) -> None:
    assert satisfies(locked, asked, "npm") is None
