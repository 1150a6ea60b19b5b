"""`.gitleaks.toml` and `.gitleaksignore` as gitleaks reads them (review.gitleaks): both
allowlist forms, conditions and targets, rule scopes, `[extend]`, and every way a file can be
wrong. The whole review honouring them from real commits: test_declarations.py."""

from __future__ import annotations

import pytest

from landwatch.review.gitleaks import (
    Allowlist,
    allowlist,
    default_allowlist,
    read_config,
    read_ignore,
    rules_of,
)
from landwatch.review.regexes import MOST_PATTERNS
from landwatch.review.rules import builtin_rules
from landwatch.review.rules.secrets import RULES
from landwatch.review.secrets.token_formats import FORMAT_LABELS

TOKEN = "ghp_" + "Zx8Q" * 9  # built here, never whole in this file
RULES_OF = rules_of(rule() for rule in builtin_rules())


def test_gitleaks_rules_map_to_the_landwatch_rules_that_find_those_secrets() -> None:
    for rule_id, targets in RULES_OF.items():
        for rule, label in targets:
            assert rule in {rule.id for rule in RULES}, rule_id
            assert label is None or label in FORMAT_LABELS, (rule_id, label)
    assert RULES_OF["github-app-token"] == {
        ("S002", "GitHub user-to-server token"),
        ("S002", "GitHub server-to-server token"),
    }
    assert RULES_OF["private-key"] == {("S001", None)}
    assert "generic-api-key" in RULES_OF and "age-secret-key" not in RULES_OF


def test_both_allowlist_forms_and_their_fields() -> None:
    found = read_config(
        b"""
[allowlist]
paths = ['''^docs/''']

[[allowlists]]
condition = "AND"
regexTarget = "line"
regexes = ['''(?i)fake''']
stopwords = ["Zx8Q"]
commits = ["ABC123"]
targetRules = ["github-pat", "jwt"]
""",
        lambda path: None,
        RULES_OF,
    )
    assert found.problems == [] and found.default is None
    old, new = found.allowlists
    assert old.allows("docs/a.py", TOKEN, "x", ()) and old.scope is None
    assert not old.allows("src/a.py", TOKEN, "x", ())
    assert new.all_of and new.on_line and new.commits == {"abc123"}
    assert new.scope == frozenset({*RULES_OF["github-pat"], *RULES_OF["jwt"]})
    assert new.allows("a.py", TOKEN, "x  # FAKE", {"abc123"})  # stopwords in any case
    assert not new.allows("a.py", TOKEN, "x  # FAKE", {"def456"})  # AND: every check holds


def test_an_allowlist_ors_its_checks_unless_told_otherwise() -> None:
    either = allowlist({"paths": ["^docs/"], "stopwords": ["zx8q"]}, "test")
    assert either.allows("src/a.py", TOKEN, None, ()) and either.allows("docs/a", "x", None, ())
    assert not either.allows("src/a.py", "other", None, ())
    # A value the finding does not know (a key's body) passes no value check.
    assert not allowlist({"regexes": ["."]}, "test").allows("a", None, "line", ())
    assert allowlist({"regexes": ["^T"], "regexTarget": "match"}, "test").allows(
        "a", None, "TOKEN = 1", ()
    )  # landwatch has no whole match: the line stands for it


def test_scoped_allowlists_apply_to_the_rules_that_find_those_secrets() -> None:
    github = Allowlist(stopwords=("x",), scope=frozenset(RULES_OF["github-pat"]))
    assert github.applies_to("S002", "GitHub personal access token")
    assert not github.applies_to("S002", "AWS access key ID")
    assert not github.applies_to("S003", "secret-looking literal")
    assert Allowlist(stopwords=("x",), scope=frozenset(RULES_OF["generic-api-key"])).applies_to(
        "S003", "secret-looking literal assigned to 'token'"
    )


def test_rule_allowlists_of_both_forms_and_rules_landwatch_lacks() -> None:
    found = read_config(
        b"""
[[rules]]
id = "private-key"
[rules.allowlist]
paths = ['''^testdata/''']

[[rules]]
id = "generic-api-key"
[[rules.allowlists]]
stopwords = ["example"]

[[rules]]
id = "age-secret-key"
[[rules.allowlists]]
paths = ['''.*''']

[[allowlists]]
targetRules = ["1password-secret-key"]
paths = ['''.*''']
""",
        lambda path: None,
        RULES_OF,
    )
    assert [a.scope for a in found.allowlists] == [
        frozenset({("S001", None)}),
        frozenset({("S003", None)}),
    ]
    assert found.unmapped == {"age-secret-key", "1password-secret-key"}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[allowlist\n", ".gitleaks.toml is not valid TOML"),
        ("[allowlist]\ndescription = 'nothing'\n", "no paths, regexes, stopwords nor commits"),
        ("[allowlist]\npaths = '^a'\n", "paths must be a list of strings"),
        ("[allowlist]\npaths = ['[']\n", "is not a regular expression landwatch can read"),
        ("[allowlist]\nregexes = ['(?=a)b']\n", "invalid perl operator"),  # RE2 has no look-around
        ("[allowlist]\ncondition = 'XOR'\npaths = ['a']\n", "unknown condition 'XOR'"),
        ("[allowlist]\nregexTarget = 'all'\npaths = ['a']\n", "unknown regexTarget 'all'"),
        ("[[allowlists]]\ntargetRules = 'jwt'\npaths = ['a']\n", "targetRules must be a list"),
        ("[extend]\nuseDefault = true\npath = 'x.toml'\n", "both path and useDefault"),
        ("[extend]\npath = '../outside.toml'\n", "is no file of this commit's tree"),
        ("[extend]\npath = 'missing.toml'\n", "is no file of this commit's tree"),
    ],
)
def test_what_cannot_be_used_is_a_problem_never_an_error(text: str, problem: str) -> None:
    found = read_config(text.encode(), lambda path: None, RULES_OF)
    assert found.allowlists == []
    [said] = found.problems
    assert problem in said


def test_a_broken_pattern_leaves_its_whole_allowlist_out() -> None:
    # Without its regex, an AND allowlist would let through every finding under docs/.
    found = read_config(
        b"[allowlist]\ncondition = 'AND'\npaths = ['^docs/']\nregexes = ['(x)\\1']\n",
        lambda path: None,
        RULES_OF,
    )
    assert found.allowlists == [] and len(found.problems) == 1


def test_allowlists_past_the_bound_are_left_out_whole() -> None:
    """A hostile tree's 100,000 allowlist regexes took 7 s to compile and search for 20
    secrets: past MOST_PATTERNS, an allowlist is left out (told more, never less) and said."""
    regexes = ", ".join(f"'zz{number}q'" for number in range(MOST_PATTERNS))
    text = f"[[allowlists]]\nregexes = [{regexes}]\n[[allowlists]]\nregexes = ['ghp_']\n"
    found = read_config(text.encode(), lambda path: None, RULES_OF)
    assert len(found.allowlists) == 1 and len(found.allowlists[0].regexes) == MOST_PATTERNS
    [said] = found.problems
    assert said.startswith(".gitleaks.toml: allowlist 2: past 2,000 paths and regexes")
    assert not found.allowlists[0].allows("a.py", TOKEN, None, ())


def test_extend_reads_committed_files_to_gitleaks_depth() -> None:
    files = {
        "base.toml": "[extend]\npath = 'deeper.toml'\n[allowlist]\npaths = ['^base/']\n",
        "deeper.toml": "[extend]\npath = 'deepest.toml'\n[allowlist]\npaths = ['^deeper/']\n",
        "deepest.toml": "[allowlist]\npaths = ['^deepest/']\n",
    }
    found = read_config(
        b"[extend]\npath = './base.toml'\n",
        lambda path: files[path].encode() if path in files else None,
        RULES_OF,
    )
    assert [a.paths[0].source for a in found.allowlists] == ["^base/", "^deeper/"]
    assert found.problems == []


def test_gitleaks_default_allowlist() -> None:
    assert default_allowlist().allows("assets/logo.PNG", TOKEN, None, ())
    assert default_allowlist().allows("src/a.py", "${GITHUB_TOKEN}", None, ())
    assert default_allowlist().allows("src/a.py", "${{ secrets.DEPLOY_KEY }}", None, ())
    assert default_allowlist().allows("/Users/Ada/x", "/Users/Ada/.config/token", None, ())
    assert not default_allowlist().allows("src/a.py", TOKEN, None, ())


def test_gitleaksignore_fingerprints() -> None:
    fingerprints, bad = read_ignore(
        b"# comment\n\n  src/a.py:github-pat:3  \nabc123:src\\win\\b.py:jwt:7\n"
        b"a:b\nsrc/c.py:rule:line\nx:y:z:w:9\n"
    )
    assert fingerprints == {(None, "src/a.py", 3), ("abc123", "src/win/b.py", 7)}
    assert bad == 3
