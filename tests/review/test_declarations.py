"""What a project declared to its secret scanners (review.declarations), each read from a real
file of a real commit and honoured by the whole review: what it lets through is counted in the
notes, what it does not is still reported, and a broken file is one note.

Every token is built here at run time; this file holds none whole.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import textwrap

from landwatch.review import engine
from landwatch.review.config import RulesAt
from landwatch.review.regexes import MOST_PATTERNS
from landwatch.review.report import Report
from support.repos import Repo
from support.review import KEY_ID, found, review
from support.tokens import github_token


def token(seed: str) -> str:
    """A well-formed GitHub token (S002) whose characters start with `seed`."""
    return github_token(seed, start=seed)


ONE, TWO, THREE, FOUR = token("Zx8Q"), token("Mk3W"), token("Rt5Y"), token("Pq7L")


def line(value: str, comment: str = "") -> str:
    return f'TOKEN = "{value}"{comment}\n'


def sha1(value: str) -> str:
    return hashlib.sha1(value.encode(), usedforsecurity=False).hexdigest()


def secret_notes(report: Report) -> list[str]:
    return [note for note in report.notes if "secret finding" in note or "honoured" in note]


def toml(text: str) -> str:
    return textwrap.dedent(text).lstrip()


def test_gitleaks_older_allowlist_paths_regexes_and_stopwords(repo: Repo) -> None:
    repo.land(
        "gitleaks",
        {
            ".gitleaks.toml": toml("""
                [allowlist]
                description = "known fakes"
                paths = ['''^docs/''']
                regexes = ['''^ghp_Mk3W[A-Za-z0-9]{32}$''']
                stopwords = ["RT5Y"]
                """),
        },
        hooks=False,
    )
    repo.land(
        "change",
        {
            "docs/setup.py": line(ONE),
            "src/a.py": line(TWO),
            "src/b.py": line(THREE),
            "src/c.py": line(FOUR),
        },
        hooks=False,
    )
    report = review(repo)
    assert found(report) == [("S002", "src/c.py", 1)]
    assert secret_notes(report) == ["3 secret findings left out as .gitleaks.toml's allowlists ask"]


def test_gitleaks_allowlists_with_a_condition_a_target_and_rules(repo: Repo) -> None:
    repo.land(
        "gitleaks",
        {
            ".gitleaks.toml": toml("""
                [[allowlists]]
                condition = "AND"
                paths = ['''^docs/''']
                regexTarget = "line"
                regexes = ['''# fake$''']
                targetRules = ["github-pat"]

                [[rules]]
                id = "aws-access-token"
                regex = '''AKIA[A-Z2-7]{16}'''
                [[rules.allowlists]]
                paths = ['''^examples/''']

                [[rules]]
                id = "our-own-rule"
                regex = '''x'''
                [rules.allowlist]
                paths = ['''.*''']
                """),
        },
        hooks=False,
    )
    repo.land(
        "change",
        {
            "docs/a.py": line(ONE, "  # fake"),  # all three: let through
            "docs/b.py": line(TWO),  # not the line the AND asks for
            "src/c.py": line(THREE, "  # fake"),  # not the path
            "docs/d.py": line(KEY_ID, "  # fake"),  # an AWS key: not a rule it names
            "examples/e.py": line(KEY_ID),  # the AWS rule's own allowlist
            "examples/f.py": line(FOUR),  # ... for AWS keys only
        },
        hooks=False,
    )
    report = review(repo)
    assert found(report) == [
        ("S002", "docs/b.py", 1),
        ("S002", "docs/d.py", 1),
        ("S002", "examples/f.py", 1),
        ("S002", "src/c.py", 1),
    ]
    assert secret_notes(report) == [
        ".gitleaks.toml: the allowlists of gitleaks rules landwatch has no rule for are not "
        "honoured: our-own-rule",
        "2 secret findings left out as .gitleaks.toml's allowlists ask",
    ]


def test_gitleaks_default_allowlist_only_where_the_project_extends_it(repo: Repo) -> None:
    repo.land(
        "change",
        {".gitleaks.toml": "[extend]\nuseDefault = false\n", "assets/logo.svg": line(ONE)},
        hooks=False,
    )
    assert found(review(repo)) == [("S002", "assets/logo.svg", 1)]
    repo.land("extend", {".gitleaks.toml": "[extend]\nuseDefault = true\n"}, hooks=False)
    repo.land("change", {"assets/icon.svg": line(TWO)}, hooks=False)
    report = review(repo)
    assert found(report) == []
    assert secret_notes(report) == [
        "1 secret finding left out as gitleaks' default allowlist asks (.gitleaks.toml "
        "extends it: useDefault)"
    ]


def test_gitleaks_extends_another_committed_file(repo: Repo) -> None:
    repo.land(
        "extend",
        {
            ".gitleaks.toml": '[extend]\npath = "config/base.toml"\n',
            "config/base.toml": "[allowlist]\npaths = ['''^vendored-keys/''']\n",
        },
        hooks=False,
    )
    repo.land("change", {"vendored-keys/a.py": line(ONE), "src/b.py": line(TWO)}, hooks=False)
    assert found(review(repo)) == [("S002", "src/b.py", 1)]


def test_gitleaksignore_fingerprints_by_path_and_line(repo: Repo) -> None:
    # gitleaks' rule names are not landwatch's: the place is what counts.
    ignored = "# reviewed\nsrc/a.py:generic-api-key:1\nnot a fingerprint\n"
    repo.land("ignore", {".gitleaksignore": ignored}, hooks=False)
    repo.land("change", {"src/a.py": line(ONE) + line(TWO)}, hooks=False)
    report = review(repo)
    assert found(report) == [("S002", "src/a.py", 2)]
    assert secret_notes(report) == [
        ".gitleaksignore: 1 line(s) are no fingerprint (COMMIT:PATH:RULE:LINE or "
        "PATH:RULE:LINE): not honoured",
        "1 secret finding left out as .gitleaksignore lists it (by path and line)",
    ]


def test_gitleaksignore_commit_fingerprints_name_a_commit_of_the_range(repo: Repo) -> None:
    first = repo.land("secret", {"src/a.py": line(ONE), "src/b.py": line(TWO)}, hooks=False)
    repo.land(
        "ignore",
        {".gitleaksignore": f"{first}:src/a.py:github-pat:1\n{'0' * 40}:src/b.py:jwt:1\n"},
        hooks=False,
    )
    # By the rules of HEAD, which lists them: the range brings them, and by the rules it came
    # to (review.rules_came_to) a fingerprint it adds lets nothing through.
    report = engine.review(repo.git_dir, "HEAD", f"{first}~1", rules_at=RulesAt("HEAD"))
    assert found(report, "S002") == [("S002", "src/b.py", 1)]
    assert secret_notes(report) == [
        "1 secret finding left out as .gitleaksignore lists it (by path and line)"
    ]


def baseline(results: dict[str, list[dict[str, object]]], **more: object) -> str:
    document = {"version": "1.5.0", "plugins_used": [], "results": results, **more}
    return json.dumps(document, indent=2) + "\n"


def test_detect_secrets_baseline_lists_hashed_secrets_of_a_file(repo: Repo) -> None:
    listed = {"type": "GitHub Token", "filename": "src/a.py", "is_verified": False}
    repo.land(
        "baseline",
        {
            ".secrets.baseline": baseline(
                {
                    "src/a.py": [
                        {**listed, "hashed_secret": sha1(ONE), "line_number": 1},
                        {**listed, "hashed_secret": sha1(TWO), "is_secret": True},
                    ],
                    "src/b.py": [{**listed, "hashed_secret": sha1(THREE), "is_secret": False}],
                }
            ),
        },
        hooks=False,
    )
    repo.land(
        "change",
        {
            "src/a.py": line(ONE) + line(TWO) + line(THREE),
            "src/b.py": "\n\n" + line(THREE),  # moved lines: a baseline names no line
            "src/c.py": line(ONE),  # listed for another file only
        },
        hooks=False,
    )
    report = review(repo)
    assert found(report) == [
        ("S002", "src/a.py", 2),  # audited: a real secret
        ("S002", "src/a.py", 3),
        ("S002", "src/c.py", 1),
    ]
    assert secret_notes(report) == ["2 secret findings left out as .secrets.baseline lists them"]


def test_detect_secrets_exclude_patterns_old_and_new(repo: Repo) -> None:
    filters = [
        {"path": "detect_secrets.filters.heuristic.is_sequential_string"},
        {"path": "detect_secrets.filters.regex.should_exclude_file", "pattern": ["^fixtures/"]},
        {"path": "detect_secrets.filters.regex.should_exclude_line", "pattern": ["DUMMY"]},
        {"path": "detect_secrets.filters.regex.should_exclude_secret", "pattern": ["^ghp_Rt5Y"]},
    ]
    repo.land("baseline", {".secrets.baseline": baseline({}, filters_used=filters)}, hooks=False)
    repo.land(
        "change",
        {
            "fixtures/a.py": line(ONE),
            "src/b.py": line(TWO, "  # DUMMY"),
            "src/c.py": line(THREE),
            "src/d.py": line(FOUR),
        },
        hooks=False,
    )
    report = review(repo)
    assert found(report) == [("S002", "src/d.py", 1)]
    assert secret_notes(report) == [
        "3 secret findings left out as .secrets.baseline's exclude patterns ask"
    ]
    old = {"exclude": {"files": "^legacy/", "lines": None}}
    repo.land("baseline", {".secrets.baseline": baseline({}, **old)}, hooks=False)
    repo.land("change", {"legacy/e.py": line(ONE), "f.py": line(TWO)}, hooks=False)
    assert found(review(repo)) == [("S002", "f.py", 1)]


def test_past_the_patterns_read_a_baselines_exclusions_are_said_and_not_used(repo: Repo) -> None:
    """Each exclusion is a search of every secret finding's path, line or value; a hostile
    baseline's 100,000 were each compiled and searched. Past MOST_PATTERNS none is used (so more
    is told, never less), and a note says so."""
    many = [f"^generated{number}/" for number in range(MOST_PATTERNS)]
    filters = [
        {"path": "detect_secrets.filters.regex.should_exclude_file", "pattern": many},
        {"path": "detect_secrets.filters.regex.should_exclude_line", "pattern": ["DUMMY"]},
    ]
    repo.land(
        "change",
        {
            ".secrets.baseline": baseline({}, filters_used=filters),
            "src/b.py": line(TWO, "  # DUMMY"),
        },
        hooks=False,
    )
    report = review(repo)
    assert found(report, "S002") == [("S002", "src/b.py", 1)]
    assert secret_notes(report) == [
        f".secrets.baseline: past {MOST_PATTERNS:,} exclude patterns: none of them honoured"
    ]


def test_landwatch_own_allow_list_by_value_and_path(repo: Repo) -> None:
    repo.land(
        "allow",
        {
            ".landwatch.toml": toml("""
                [secrets]
                allow = ["^ghp_Zx8Q"]
                allow_paths = ["examples/**"]
                """),
        },
        hooks=False,
    )
    repo.land(
        "change",
        {
            "src/a.py": line(ONE) + line(TWO),
            "examples/b.py": line(THREE),
        },
        hooks=False,
    )
    report = review(repo)
    assert found(report) == [("S002", "src/a.py", 2)]
    assert secret_notes(report) == [
        "2 secret findings left out as the [secrets] allow-list of .landwatch.toml asks"
    ]


def key_file(seed: int) -> str:
    """A private key (S001) of the test's own making."""
    body = base64.b64encode(random.Random(seed).randbytes(300)).decode()
    lines = [body[at : at + 64] for at in range(0, len(body), 64)]
    label = "OPENSSH " + "PRIVATE KEY"
    return "\n".join([f"-----BEGIN {label}-----", *lines, f"-----END {label}-----"]) + "\n"


def test_declarations_drop_secret_findings_only(repo: Repo) -> None:
    repo.land("change", {"keys/id": key_file(1)}, hooks=False)
    assert found(review(repo)) == [("S001", "keys/id", 1)]
    repo.land("allow", {".gitleaks.toml": "[allowlist]\npaths = ['''^keys/''']\n"}, hooks=False)
    repo.land(
        "change",
        {
            "keys/deploy/id": key_file(2),  # a key has no value to test: its path is enough
            "keys/notes.txt": "trailing  \n",
        },
        hooks=False,
    )
    assert found(review(repo)) == [("P001", "keys/notes.txt", 1)]


def test_broken_declarations_are_one_note_each_and_the_rest_still_holds(repo: Repo) -> None:
    repo.land(
        "declare",
        {
            ".gitleaks.toml": toml("""
                [[allowlists]]
                paths = ['''(?<!x)docs/''']
                [[allowlists]]
                paths = ['''^docs/''']
                """),
            ".secrets.baseline": "{not json\n",
        },
        hooks=False,
    )
    repo.land(
        "change",
        {
            "docs/a.py": line(ONE),
            "src/b.py": line(TWO),
        },
        hooks=False,
    )
    report = review(repo)
    assert found(report) == [("S002", "src/b.py", 1)]
    assert secret_notes(report) == [
        ".gitleaks.toml: allowlist 1: '(?<!x)docs/' is not a regular expression landwatch can "
        "read (invalid perl operator: (?<!): that allowlist is not honoured",
        ".secrets.baseline is not valid JSON (Expecting property name enclosed in double "
        "quotes: line 1 column 2 (char 1)): none of it is honoured",
        "1 secret finding left out as .gitleaks.toml's allowlists ask",
    ]
    # A broken file is told when it lands, with no secret to ask about it.
    repo.land(
        "change",
        {".gitleaks.toml": "[allowlist\n", ".secrets.baseline": baseline({}), "x.txt": "x\n"},
        hooks=False,
    )
    [note] = secret_notes(review(repo))
    assert note.startswith(".gitleaks.toml is not valid TOML (") and "none of it" in note


def test_a_bad_pattern_in_landwatch_own_allow_list_is_a_configuration_finding(repo: Repo) -> None:
    repo.land(
        "change",
        {".landwatch.toml": '[secrets]\nallow = ["(x)\\\\1"]\n', "src/a.py": line(ONE)},
        hooks=False,
    )
    report = review(repo)
    assert found(report) == [("CFG", None, None), ("S002", "src/a.py", 1)]
    assert "secrets.allow: '(x)\\\\1' is not a regular expression" in report.findings[0].message


def test_declarations_come_from_the_landed_commit_not_the_working_tree(repo: Repo) -> None:
    repo.land("change", {".gitleaks.toml": "[allowlist]\npaths = ['''^docs/''']\n"}, hooks=False)
    repo.land("change", {"docs/a.py": line(ONE), "src/b.py": line(TWO)}, hooks=False)
    (repo.path / ".gitleaks.toml").write_text("[allowlist]\npaths = ['''.*''']\n")
    (repo.path / ".secrets.baseline").write_text("{broken")
    report = review(repo)
    assert found(report) == [("S002", "src/b.py", 1)]
    assert secret_notes(report) == ["1 secret finding left out as .gitleaks.toml's allowlists ask"]
