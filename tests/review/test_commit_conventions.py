"""What a project declared to its commit linters (review.commit_conventions), read from the
landed tree and never run: commitlint's header limit as data, as a literal in code, through a
known shared configuration; gitlint's; each outranking what history taught, and landwatch's
own configuration outranking them."""

from __future__ import annotations

import json

import pytest

from support.repos import Repo
from support.review import found, review

SUBJECT = "Add " + "x" * 96  # 100 characters: over the default 72


def subject_findings(repo: Repo, files: dict[str, str]) -> list[tuple[str, str | None, int | None]]:
    repo.land("configure", files, hooks=False)
    repo.land(SUBJECT, {"a.txt": "a\n"}, hooks=False)
    return [f for f in found(review(repo)) if f[0] == "M001"]


@pytest.mark.parametrize(
    "files",
    [
        {".commitlintrc.json": json.dumps({"rules": {"header-max-length": [2, "always", 130]}})},
        {".commitlintrc.yml": "rules:\n  header-max-length: [2, always, 120]\n"},
        {
            "package.json": json.dumps(
                {"commitlint": {"extends": ["@commitlint/config-conventional"]}}
            )
        },
        {
            "commitlint.config.js": "module.exports = { rules: "
            "{ 'header-max-length': [2, 'always', 110] } }\n"
        },
        {
            "commitlint.config.mjs": "export default "
            "{ extends: ['@commitlint/config-conventional'] };\n"
        },
        {".gitlint": "[title-max-length]\nline-length=120\n"},
        {
            ".commitlintrc.json": json.dumps({"rules": {"header-max-length": [0, "always", 50]}})
        },  # off
        {".gitlint": "[general]\nignore=T1,body-is-missing\n"},  # off
    ],
)
def test_a_declared_limit_outranks_the_default(repo: Repo, files: dict[str, str]) -> None:
    assert subject_findings(repo, files) == []


def test_a_stricter_declared_limit_is_kept_and_named(repo: Repo) -> None:
    files = {".commitlintrc.json": json.dumps({"rules": {"header-max-length": [2, "always", 90]}})}
    assert subject_findings(repo, files) == [("M001", None, 1)]
    report = review(repo)
    assert (
        "declared by the project: .commitlintrc.json declares max_length 90 for M001"
        in report.notes
    )


def test_landwatch_s_own_configuration_outranks_the_declaration(repo: Repo) -> None:
    files = {
        ".commitlintrc.json": json.dumps({"rules": {"header-max-length": [2, "always", 130]}}),
        ".landwatch.toml": "[rules]\nM001 = { max_length = 72 }\n",
    }
    assert subject_findings(repo, files) == [("M001", None, 1)]


def test_code_is_read_only_where_the_limit_is_a_literal(repo: Repo) -> None:
    computed = (
        "const n = 130;\nmodule.exports = { rules: { 'header-max-length': [2, 'always', n] } }\n"
    )
    assert subject_findings(repo, {"commitlint.config.js": computed}) == [("M001", None, 1)]


def test_a_configuration_nested_past_the_stack_is_no_declaration(repo: Repo) -> None:
    deep = "[" * 50_000 + "]" * 50_000
    assert subject_findings(repo, {"package.json": deep, ".commitlintrc": deep}) == [
        ("M001", None, 1)
    ]
