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
        # commitlint's own TypeScript example: the level as its enum (an audit: read as none).
        {
            "commitlint.config.ts": "import { RuleConfigSeverity } from '@commitlint/types';\n"
            "export default { rules: "
            "{ 'header-max-length': [RuleConfigSeverity.Error, 'always', 120] } };\n"
        },
        {
            "commitlint.config.ts": "export default { rules: "
            "{ 'header-max-length': [RuleConfigSeverity.Disabled, 'always', 50] } };\n"
        },  # off
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


def conventional_findings(repo: Repo, files: dict[str, str], subject: str) -> list[str]:
    repo.land("configure", files, hooks=False)
    repo.land(subject, {"b.txt": subject}, hooks=False)
    return [f.message for f in review(repo).findings if f.rule == "M005"]


@pytest.mark.parametrize(
    "files",
    [
        {".commitlintrc.json": json.dumps({"extends": ["@commitlint/config-conventional"]})},
        {"commitlint.config.js": "module.exports = {extends: ['@commitlint/config-conventional']}"},
        {".gitlint": "[general]\ncontrib=contrib-title-conventional-commits\n"},
    ],
)
def test_a_declared_convention_turns_conventional_commits_on(
    repo: Repo, files: dict[str, str]
) -> None:
    assert conventional_findings(repo, files, "Fixed the login redirect") == [
        "subject is not a conventional commit (type(scope): description)"
    ]
    report = review(repo)
    (finding,) = (f for f in report.findings if f.rule == "M005")
    assert finding.basis is not None and finding.basis.standard == "declared"


TYPES_LITERAL = "[2, 'always', ['feat', 'fix', 'deps']]"
GITLINT_TYPES = "types=feat,fix,deps\n"


@pytest.mark.parametrize(
    "files",
    [
        {".commitlintrc.yml": "rules:\n  type-enum: [2, always, [feat, fix, deps]]\n"},
        {"commitlint.config.ts": "export default {rules: {'type-enum': " + TYPES_LITERAL + "}}"},
        {
            "commitlint.config.ts": "export default {rules: {'type-enum': "
            + TYPES_LITERAL.replace("2", "RuleConfigSeverity.Error")
            + "}}"
        },
        {
            ".gitlint": "[general]\ncontrib=CT1\n[contrib-title-conventional-commits]\n"
            + GITLINT_TYPES
        },
    ],
)
def test_the_declared_types_are_the_ones_allowed(repo: Repo, files: dict[str, str]) -> None:
    assert conventional_findings(repo, files, "deps: bump click") == []
    repo.land("chore: tidy", {"c.txt": "c"}, hooks=False)
    assert [f.message for f in review(repo).findings if f.rule == "M005"] == [
        "unknown conventional commit type 'chore' (feat, fix, deps)"
    ]


def test_a_type_check_turned_off_requires_no_convention(repo: Repo) -> None:
    settings = {"extends": ["@commitlint/config-conventional"], "rules": {"type-enum": [0]}}
    files = {".commitlintrc.json": json.dumps(settings)}
    assert conventional_findings(repo, files, "Fixed the login redirect") == []
