"""The review's configuration: read from the committed tree, every bad key a finding."""

from __future__ import annotations

import pytest

from landwatch.review.config import (
    DEFAULT_EXCLUDE,
    MAX_CONFIG_BYTES,
    ConfigError,
    parse,
    parse_linters,
)
from landwatch.review.engine import CONFIG_RULE
from landwatch.review.regexes import MOST_PATTERNS
from support import ROOT
from support.repos import Repo
from support.review import found, review


def test_configuration_comes_from_the_committed_tree(repo: Repo) -> None:
    repo.land(
        "change", {".landwatch.toml": '[rules]\nP001 = "off"\nP005 = { max_kb = 1 }\n'}, hooks=False
    )
    repo.land("change", {"a.txt": "x  \n", "big.txt": "y" * 2000 + "\n"}, hooks=False)
    (repo.path / ".landwatch.toml").write_text("")  # the working tree does not count
    report_ = review(repo)
    assert found(report_) == [("P005", "big.txt", None)]
    assert report_.config == ".landwatch.toml"
    assert "P001" not in report_.rules


def test_pyproject_table_and_severity_by_name(repo: Repo) -> None:
    repo.land(
        "change",
        {
            "pyproject.toml": '[project]\nname = "x"\n\n[tool.landwatch.rules]\n'
            'trailing-whitespace = "error"\n'
        },
        hooks=False,
    )
    repo.land("change", {"a.txt": "x  \n"}, hooks=False)
    [finding] = review(repo).findings
    assert (finding.rule, finding.severity.name) == ("P001", "ERROR")


@pytest.mark.parametrize(
    ("config", "complaint"),
    [
        ("colour = 1\n", "unknown key 'colour'"),
        ('[rules]\nP001 = "loud"\n', "rules.P001.severity: not a severity: 'loud'"),
        ('[rules]\nNOPE = "error"\n', "rules.NOPE: no rule has this id or name"),
        ('[rules]\nP005 = { max_kb = "big" }\n', "rules.P005: expects an integer"),
        ("[rules]\nP005 = { max_kb = -5 }\n", "rules.P005: expects a whole number of 1 or more"),
        ('merges = "sometimes"\n', "merges must be one of first-parent, skip"),
        ('[[linters]]\nname = "x"\n', "linters[1]: command is required"),
        (
            '[[linters]]\nname = "x"\ncommand = ["x"]\nformat = "sarif"\nconfig = ["../up"]\n',
            "linters[1].config: '../up' must be a file's path from the root",
        ),
        ("this is not toml\n", "not valid TOML"),
        ("secrets = 1\n", "secrets must be a table ([secrets])"),
        ('[secrets]\nallow = "x"\n', "secrets.allow must be a list of strings"),
        ('[secrets]\nallow = ["["]\n', "secrets.allow: '[' is not a regular expression"),
        ('[secrets]\nallow = ["(?=a)b"]\n', "secrets.allow: '(?=a)b' is not a regular expression"),
        ("[secrets]\nallow_paths = [1]\n", "secrets.allow_paths must be a list of strings"),
        ("[secrets]\nallowlist = []\n", "secrets: unknown key 'allowlist'"),
        ("x = " + "[" * 50_000 + "]" * 50_000 + "\n", "nested too deeply to read"),
    ],
)
def test_a_broken_configuration_is_a_finding_not_a_crash(
    repo: Repo, config: str, complaint: str
) -> None:
    repo.land("change", {".landwatch.toml": config, "a.txt": "x  \n"}, hooks=False)
    report_ = review(repo)
    configuration = [f for f in report_.findings if f.rule == CONFIG_RULE]
    assert len(configuration) == 1 and complaint in configuration[0].message
    assert ("P001", "a.txt", 1) in found(report_)  # the defaults still reviewed the change


def test_a_configuration_committed_as_a_symbolic_link_is_said_to_be_one(repo: Repo) -> None:
    (repo.path / "shared.toml").write_text('[rules]\nP001 = "off"\n')
    (repo.path / ".landwatch.toml").symlink_to("shared.toml")
    repo.git("add", "shared.toml", ".landwatch.toml")
    repo.land("change", {"a.txt": "x  \n"}, hooks=False)
    report_ = review(repo)
    [configuration] = [f for f in report_.findings if f.rule == CONFIG_RULE]
    assert configuration.message.endswith(
        ".landwatch.toml: a symbolic link, which landwatch does not read (commit the file itself)"
    )
    assert ("P001", "a.txt", 1) in found(report_)  # not read: the defaults apply


def test_a_configuration_too_large_to_read_is_said_and_not_read(repo: Repo) -> None:
    """A hostile tree's 1 GB pyproject.toml was read and parsed at every review: minutes of
    TOML (tomllib reads about 4 MB a second) holding up every repository's reviews."""
    padding = "# " + "x" * 100 + "\n"
    big = '[tool.landwatch.rules]\nP001 = "off"\n' + padding * (
        MAX_CONFIG_BYTES // len(padding) + 1
    )
    repo.land("change", {"pyproject.toml": big}, hooks=False)
    repo.land("change", {"a.txt": "x  \n"}, hooks=False)
    report_ = review(repo)
    [configuration] = [f for f in report_.findings if f.rule == CONFIG_RULE]
    assert configuration.message.endswith(
        f"pyproject.toml: {len(big):,} bytes, larger than the 8 MB landwatch reads"
    )
    assert ("P001", "a.txt", 1) in found(report_)  # not read: the defaults apply


def test_the_configuration_example_in_the_docs_is_accepted() -> None:
    import tomllib

    from landwatch.review.config import parse

    page = (ROOT / "docs" / "configuration.md").read_text()
    example = page.split("```toml\n", 1)[1].split("```", 1)[0]
    config = parse(tomllib.loads(example), ".landwatch.toml")
    assert [linter.name for linter in config.linters] == ["ruff", "shellcheck"]
    assert config.rules["large-file"]["max_kb"] == 2048


def test_every_bad_key_is_told_at_once_and_the_rest_applies(repo: Repo) -> None:
    config = (
        'colour = 1\nmerges = "sometimes"\nexclude = ["data/**"]\n\n[rules]\n'
        'P001 = "loud"\nP002 = "off"\nP005 = { max_kb = 0 }\n\n'
        '[[linters]]\nname = "x"\n'
    )
    repo.land(
        "change", {".landwatch.toml": config, "a.txt": "x  ", "data/b.txt": "y  \n"}, hooks=False
    )
    report_ = review(repo)
    told = sorted(f.message for f in report_.findings if f.rule == CONFIG_RULE)
    assert len(told) == 5, told
    wanted = (
        "linters[1]: command",
        "merges must",
        "rules.P001.severity",
        "rules.P005:",
        "unknown key",
    )
    assert [m.split(": ", 1)[1].startswith(w) for m, w in zip(told, wanted, strict=True)] == [
        True
    ] * 5, told
    # What could be used was: P002 is off, data/ is excluded.
    assert [f for f in found(report_) if f[0] != CONFIG_RULE] == [("P001", "a.txt", 1)]


def test_your_own_linters_cannot_name_a_repositorys_files() -> None:
    """What a repository gives your linters is what you trusted there (review.pinned)."""
    own = {"linters": [{"name": "x", "command": ["x"], "format": "sarif", "config": ["a.cfg"]}]}
    with pytest.raises(ConfigError, match=r"linters\[1\]\.config: only a repository's own"):
        parse_linters(own, "config.toml")
    committed = parse({"linters": own["linters"]}, ".landwatch.toml")
    assert committed.problems == [] and committed.linters[0].config == ("a.cfg",)


def test_the_secrets_allow_list() -> None:
    table = {"secrets": {"allow": ["^AKIA.*TEST$"], "allow_paths": ["docs/**"], "other": 1}}
    config = parse(table, ".landwatch.toml")
    assert (config.secrets_allow, config.secrets_allow_paths) == (("^AKIA.*TEST$",), ("docs/**",))
    assert config.problems == [
        ".landwatch.toml: secrets: unknown key 'other' (known: allow, allow_paths)"
    ]


def test_past_the_patterns_landwatch_reads_a_list_is_said_and_not_used() -> None:
    """Each glob and regex is a search of every changed path or secret: a hostile tree's 200,000
    `exclude` globs took 17 s and 886 MB at every review. Past MOST_PATTERNS in all the lists
    together, a list that would pass it is left out whole (so more is told, never less)."""
    globs = [f"dir{number}/**" for number in range(MOST_PATTERNS - 4)]
    table = {
        "exclude": globs,
        "secrets": {"allow": ["^AKIA.*TEST$"], "allow_paths": ["docs/**", "examples/**"]},
        "rules": {"P001": {"markdown": ["*.md"]}, "S003": {"lockfiles": ["*.lock", "a", "b"]}},
    }
    config = parse(table, ".landwatch.toml")
    assert config.exclude == DEFAULT_EXCLUDE + tuple(globs)
    assert config.secrets_allow == ("^AKIA.*TEST$",)
    assert config.secrets_allow_paths == ("docs/**", "examples/**")
    assert config.rules == {"P001": {"markdown": ["*.md"]}, "S003": {}}  # the 2,000th, then past
    past = f"past the {MOST_PATTERNS:,} globs and regexes landwatch reads of a configuration"
    assert config.problems == [
        f".landwatch.toml: rules.S003.lockfiles: 3 patterns {past}; not used"
    ]
    one_list = parse({"exclude": [*globs, *"abcde"]}, "pyproject.toml [tool.landwatch]")
    assert one_list.exclude == DEFAULT_EXCLUDE
    assert one_list.problems == [
        f"pyproject.toml [tool.landwatch]: exclude: {MOST_PATTERNS + 1:,} patterns {past}; not used"
    ]
