"""What a change does to the rules a review runs by (review.declared_changes), read from real
commits: what lets more through is an error-worthy difference, any other change a warning-worthy
one, and a change outside them (pyproject.toml's own tables) none. The whole review tells them as
C004 only where it takes its rules from elsewhere (`landwatch ci`), never for the commit's own."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Mapping
from pathlib import Path

import pytest

from landwatch.review import engine
from landwatch.review.change import open_repository, resolve
from landwatch.review.config import RulesAt
from landwatch.review.declared_changes import differences
from landwatch.review.rules import all_rules
from support.repos import Repo
from support.review import found


def toml(text: str) -> str:
    return textwrap.dedent(text).lstrip()


def changes(
    tmp_path: Path, before: Mapping[str, str], after: Mapping[str, str]
) -> list[tuple[str, str, bool]]:
    """(path, what changed, lets more through) from a commit of `before` to one of `after`."""
    repo = Repo(tmp_path / "repo")
    first = repo.land("before", before, hooks=False) if before else repo.head()
    second = repo.land("after", after, hooks=False)
    git = open_repository(repo.git_dir)
    trees = resolve(git, first).tree, resolve(git, second).tree
    return [(d.path, d.said, d.relaxes) for d in differences(git, *trees, all_rules()[0])]


PAST_IT = " (no line past it is looked at, for secrets either)"
KNOWN = "(known: exclude, skip_authors, merges, max_added_lines, rules, linters, secrets)"
LETTING_MORE_THROUGH = [
    ("", '[rules]\nprivate-key = "warning"\n', "lowers S001 private-key from error to warning"),
    (
        "",
        "[rules]\nS003 = { min_entropy = 5.0 }\n",
        "changes what S003 generic-secret looks for (min_entropy)",
    ),
    ("", '[rules]\nC004 = "off"\n', "turns C004 review-rules-changed off"),
    ("", '[secrets]\nallow = ["^test-"]\n', "lets through secrets matching '^test-'"),
    ("", '[secrets]\nallow_paths = ["keys/**"]\n', "lets through secrets in 'keys/**'"),
    ("", 'exclude = ["keys/**"]\n', "excludes 'keys/**' from the review, its secrets too"),
    ("", "max_added_lines = 10\n", "lowers max_added_lines from 20000 to 10" + PAST_IT),
]
OTHER_CHANGES = [
    ("", '[rules]\nP001 = "off"\n', "turns P001 trailing-whitespace off"),
    ("", '[rules]\nM005 = "warning"\n', "turns M005 conventional-commits on at warning"),
    ('exclude = ["a/**"]\n', "", "no longer excludes 'a/**' from the review, its secrets too"),
    ("max_added_lines = 10\n", "", "raises max_added_lines from 10 to 20000"),
    ("", 'skip_authors = ["mallory"]\n', "takes 'mallory' for bots"),
    ("", 'merges = "skip"\n', "reviews merges as 'skip', not 'first-parent'"),
    ("", "# said again\n", "changes, but no setting of it"),
    ("", "nosuch = 1\n", f"holds what cannot be used: unknown key 'nosuch' {KNOWN}"),
]


@pytest.mark.parametrize(
    ("before", "after", "said", "relaxes"),
    [(*case, True) for case in LETTING_MORE_THROUGH] + [(*case, False) for case in OTHER_CHANGES],
)
def test_each_change_to_the_configuration(
    tmp_path: Path, before: str, after: str, said: str, relaxes: bool
) -> None:
    [(path, words, lets_more)] = changes(
        tmp_path, {".landwatch.toml": before}, {".landwatch.toml": after}
    )
    assert (path, lets_more) == (".landwatch.toml", relaxes)
    assert words == f".landwatch.toml {said}"


def test_pyproject_counts_only_by_its_landwatch_table(tmp_path: Path) -> None:
    table = '[project]\nname = "shop"\n\n[tool.landwatch.rules]\nS002 = "off"\n'
    bumped = '[project]\nname = "shop"\nversion = "2"\n\n[tool.landwatch.rules]\nS002 = "off"\n'
    assert changes(tmp_path, {"pyproject.toml": table}, {"pyproject.toml": bumped}) == []
    assert changes(tmp_path / "b", {}, {"pyproject.toml": table}) == [
        (
            "pyproject.toml",
            "pyproject.toml [tool.landwatch] turns S002 token-format off",
            True,
        )
    ]


def test_a_configuration_that_cannot_be_read_is_said(tmp_path: Path) -> None:
    [(path, said, relaxes)] = changes(tmp_path, {}, {".landwatch.toml": "[rules\n"})
    assert path == ".landwatch.toml" and not relaxes
    assert said.startswith(".landwatch.toml: not valid TOML") and "cannot be used" in said


def test_gitleaks_allowlists_what_they_let_through_compared(tmp_path: Path) -> None:
    before = toml("""
        [allowlist]
        paths = ['''^docs/''']
        stopwords = ["fake"]
        """)
    after = toml("""
        [[allowlists]]
        paths = ['''^docs/''']
        regexTarget = "line"
        regexes = ['''# test$''']
        targetRules = ["private-key"]

        [[allowlists]]
        condition = "AND"
        paths = ['''^a/''']
        commits = ["abc123"]

        [extend]
        useDefault = true
        """)
    assert changes(tmp_path, {".gitleaks.toml": before}, {".gitleaks.toml": after}) == [
        (
            ".gitleaks.toml",
            ".gitleaks.toml lets more through: a line regex '# test$' (for S001), a list of "
            "checks all of which must hold, a path '^docs/' (for S001) and 1 more",
            True,
        ),
        (
            ".gitleaks.toml",
            ".gitleaks.toml lets less through: a path '^docs/', a stopword 'fake'",
            False,
        ),
    ]


def test_what_gitleaks_extends_is_compared_and_a_comment_is_a_change(tmp_path: Path) -> None:
    shared = toml("""
        [allowlist]
        paths = ['''^docs/''']
        """)
    extending = '[extend]\npath = "config/gitleaks.toml"\n'
    before = {".gitleaks.toml": extending, "config/gitleaks.toml": shared}
    widened = shared.replace("'''^docs/'''", "'''^docs/''', '''^keys/'''")
    assert changes(tmp_path, before, {"config/gitleaks.toml": widened}) == [
        (".gitleaks.toml", ".gitleaks.toml lets more through: a path '^keys/'", True)
    ]
    commented = {".gitleaks.toml": "# ours\n" + extending}
    assert changes(tmp_path / "b", before, commented) == [
        (".gitleaks.toml", ".gitleaks.toml changes, not what it lets through", False)
    ]
    assert changes(tmp_path / "c", before, {"README.md": "the shop\n"}) == []


def test_gitleaksignore_fingerprints_added_and_removed(tmp_path: Path) -> None:
    before = {".gitleaksignore": "a.py:generic-api-key:3\n"}
    after = {".gitleaksignore": "abc123:keys/id:private-key:1\n"}
    assert changes(tmp_path, before, after) == [
        (".gitleaksignore", ".gitleaksignore lets more through: abc123:keys/id:1", True),
        (".gitleaksignore", ".gitleaksignore lets less through: a.py:3", False),
    ]


def baseline(hashes: dict[str, bool], generated: str, *excluded: str) -> str:
    results = [{"hashed_secret": digest, "is_secret": real} for digest, real in hashes.items()]
    filters = [
        {"path": "detect_secrets.filters.regex.should_exclude_file", "pattern": list(excluded)}
    ]
    document = {"generated_at": generated, "results": {"app.py": results}, "filters_used": filters}
    return json.dumps(document)


def test_baseline_entries_and_exclusions(tmp_path: Path) -> None:
    known, real = "a" * 40, "b" * 40
    before = {".secrets.baseline": baseline({known: False}, "2024-01-01")}
    regenerated = {".secrets.baseline": baseline({known: False}, "2024-06-01")}
    assert changes(tmp_path, before, regenerated) == [
        (".secrets.baseline", ".secrets.baseline changes, not what it lets through", False)
    ]
    widened = {".secrets.baseline": baseline({known: False, real: False}, "2024", "^keys/")}
    assert changes(tmp_path / "b", before, widened) == [
        (
            ".secrets.baseline",
            ".secrets.baseline lets more through: a secret in 'app.py' (bbbbbbbb), files "
            "matching '^keys/'",
            True,
        )
    ]
    audited = {".secrets.baseline": baseline({known: True}, "2024-01-01")}
    assert changes(tmp_path / "c", before, audited) == [
        (
            ".secrets.baseline",
            ".secrets.baseline lets less through: a secret in 'app.py' (aaaaaaaa)",
            False,
        )
    ]


def test_c004_only_where_the_review_takes_its_rules_from_elsewhere(tmp_path: Path) -> None:
    repo = Repo(tmp_path / "repo")
    base = repo.head()
    repo.land(
        "Waive the secrets\n\nLandwatch-Ignore: C004, S002, P001",
        {".landwatch.toml": '[rules]\nS002 = "warning"\n', "a.txt": "x  \n"},
        hooks=False,
    )
    own = engine.review(repo.git_dir, "HEAD")
    assert found(own) == [] and "C004" not in own.rules
    by_base = engine.review(repo.git_dir, "HEAD", rules_at=RulesAt(base))
    # Neither the commit's configuration nor its trailer waives C004; P001's finding it does.
    assert found(by_base) == [("C004", ".landwatch.toml", None)]
    [finding] = by_base.findings
    assert finding.severity.name == "ERROR"
    assert finding.message == ".landwatch.toml lowers S002 token-format from error to warning"
    assert by_base.notes[0].startswith(
        f"reviewed by the configuration and secret scanners' declarations of {base[:12]}"
    )
    defaults = engine.review(repo.git_dir, "HEAD", rules_at=RulesAt(None))
    assert defaults.notes[0] == (
        "reviewed by landwatch's defaults, not by the configuration it brings"
    )
