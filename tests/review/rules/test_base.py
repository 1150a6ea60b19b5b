"""What a rule is (review.rules.base): a rule that says only its id, name and scope gets the
defaults of every other attribute; its options take values of their default's type or say what
they expected; its severity can be set; its findings carry its id and a fingerprint; a rule set
gives each family its rules that are on."""

from __future__ import annotations

from typing import Any

import pytest

from landwatch.review.findings import Finding, Severity, fingerprint
from landwatch.review.rules.base import (
    ChangeRule,
    FileRule,
    LineRule,
    MessageRule,
    Option,
    Rule,
    RuleSet,
    Scope,
    TreeRule,
)


class Sparse(LineRule):
    """Reports what a plug-in's rule would, saying as little as a rule can.

    Its second paragraph is docs too."""

    id = "X001"
    name = "sparse"
    severity = Severity.WARNING


class Optioned(MessageRule):
    id = "X002"
    name = "optioned"
    severity = Severity.INFO
    applies_to = ("*.py", "docs/**")
    options = (
        Option("limit", 72, "how long"),
        Option("ratio", 0.5, "how much"),
        Option("strict", False, "whether"),
        Option("word", "fix", "which"),
        Option("types", ("feat", "fix"), "which ones"),
    )


def test_a_rule_that_says_little_gets_every_default() -> None:
    rule = Sparse()
    assert rule.scope is Scope.LINES and rule.active_severity is Severity.WARNING
    assert (rule.merged_past, rule.learned, rule.practice, rule.applies_to) == (None,) * 4
    assert not rule.secret and not rule.runs_on_fixups and rule.example == ""
    assert rule.settings == {} and rule.wants("any/path/at/all.bin")
    assert rule.doc().startswith("Reports what") and rule.doc().endswith("docs too.")


def test_each_family_checks_its_scope() -> None:
    families = {LineRule: Scope.LINES, FileRule: Scope.FILE, TreeRule: Scope.TREE}
    families |= {ChangeRule: Scope.CHANGE, MessageRule: Scope.MESSAGE}
    assert {family: family.scope for family in families} == families


def test_options_take_their_default_s_type() -> None:
    rule = Optioned(limit=100, ratio=1, strict=True, word="chore", types=["a", "b"])
    assert rule.settings == {
        "limit": 100,
        "ratio": 1.0,
        "strict": True,
        "word": "chore",
        "types": ("a", "b"),
    }
    assert Optioned().option("limit") == 72 and Optioned().option("types") == ("feat", "fix")


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("limit", 0, "expects a whole number of 1 or more, not 0"),
        ("limit", True, "expects an integer, not True"),
        ("limit", 7.5, "expects an integer, not 7.5"),
        ("ratio", -1, "expects a number of 0 or more, not -1"),
        ("ratio", float("nan"), "expects a number of 0 or more, not nan"),
        ("ratio", "half", "expects a number, not 'half'"),
        ("strict", "yes", "expects true or false, not 'yes'"),
        ("word", 5, "expects a string, not 5"),
        ("types", ["a", 1], "expects a list of strings, not ['a', 1]"),
        ("types", "a", "expects a list of strings, not 'a'"),
    ],
)
def test_a_value_of_another_type_says_what_was_expected(name: str, value: Any, said: str) -> None:
    with pytest.raises(ValueError) as refused:
        Optioned(**{name: value})
    assert str(refused.value) == said


def test_an_option_a_rule_does_not_have_is_refused_naming_the_ones_it_has() -> None:
    with pytest.raises(ValueError, match=r"X002 has no option 'limt' \(options: limit, ratio, "):
        Optioned(limt=80)
    with pytest.raises(ValueError) as refused:
        Sparse(limit=80)
    assert str(refused.value) == "X001 has no option 'limit'"


def test_a_rule_looks_at_the_paths_it_applies_to() -> None:
    rule = Optioned()
    assert rule.wants("src/app.py") and rule.wants("docs/deep/page.md")
    assert not rule.wants("src/app.js")


def test_a_finding_carries_the_rule_and_a_fingerprint_of_what_it_found() -> None:
    rule = Sparse(severity=Severity.ERROR)
    found = rule.finding("too loud", path="a.py", number=3, content=b"x = 1  ")
    assert found == Finding(
        "X001",
        "sparse",
        Severity.ERROR,
        "too loud",
        "a.py",
        3,
        None,
        None,
        fingerprint("X001", "a.py", b"x = 1  "),
    )
    # Without content, the message is what is identified.
    assert rule.finding("said", path="a.py").fingerprint == fingerprint("X001", "a.py", "said")


def test_a_rule_set_gives_each_family_its_rules_that_are_on() -> None:
    on, off, message = Sparse(), Sparse(severity=Severity.OFF), Optioned()
    rules = RuleSet([on, off, message])
    assert rules.of(LineRule) == [on]
    assert rules.of(MessageRule) == [message]
    assert rules.of(Rule) == [on, message]
    assert rules.of(FileRule) == []
