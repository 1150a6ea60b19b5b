"""layout.rules: what each kind of rule makes of a setting's text, and the one line, its text
escaped, where the text cannot be used (test_settings holds each setting to its rule)."""

from __future__ import annotations

import pytest

from landwatch.layout.rules import (
    Parsed,
    any_text,
    boolean,
    globs,
    is_ref_name,
    niceness,
    problem,
    remote_name,
    seconds,
    word,
)
from support.repos import Repo


def test_a_problem_is_one_line_its_text_escaped() -> None:
    said = problem("landwatch.x", "\x1b[2Jmine", "not usable; landwatch uses none")
    assert said == "git config landwatch.x = '\\x1b[2Jmine' is not usable; landwatch uses none"


def test_seconds_are_whole_and_at_least_the_floor() -> None:
    rule = seconds(least=60)
    assert rule("s", "90", "600") == Parsed(90)
    assert rule("s", "59", "600").value == 60 and rule("s", "59", "600").problem is not None
    assert rule("s", "0600", "600").value == 600  # the shell's arithmetic reads it as octal


def test_words_booleans_and_niceness_take_what_git_spells_and_nothing_else() -> None:
    assert boolean("off")("b", "On", "false") == Parsed(True)
    assert boolean("landwatch keeps it")("b", "2", "true").problem is not None
    assert word(("off", "on"), "off")("w", "ON", "off") == Parsed("on")
    assert word(("off", "on"), "off")("w", "", "off") == Parsed("off")
    assert niceness("n", "19", "10") == Parsed(19) and niceness("n", "20", "10").value == 10


def test_text_and_globs_are_taken_as_written() -> None:
    assert any_text("t", "", "") == Parsed(None) and any_text("t", "up stream", "").value
    assert globs("g", "main\nrelease/* hot*", "") == Parsed(("main", "release/*", "hot*"))


NAMES = (
    *("refs/remotes/origin/main", "refs/remotes/corp/public/main", "refs/remotes/-x/main"),
    *("refs/heads/caf\u00e9", "refs/tags/v1.0", "refs/remotes/a@b/c", "refs/heads/x.lock2"),
    *("refs/remotes/https://h/x.git/main", "refs/remotes/git@h:acme/app/main"),
    *("refs/remotes/../app.git/main", "refs/remotes/./main", "refs/remotes//abs/main"),
    *("refs/heads/a b", "refs/heads/a~1", "refs/heads/a^", "refs/heads/a?", "refs/heads/a*"),
    *("refs/heads/a[", "refs/heads/a\\b", "refs/heads/a@{1}", "refs/heads/.hidden"),
    *("refs/heads/a.lock", "refs/heads/a.lock/b", "refs/heads/a/", "refs/heads/a.", "@", "main"),
    *("refs/heads/a\x7f", "refs/heads/a\tb", "/refs/heads/a"),
)


@pytest.mark.parametrize("name", NAMES)
def test_a_ref_s_name_is_what_git_takes_for_one(repo: Repo, name: str) -> None:
    """As `git check-ref-format` says (no option), with no process: tracking refs named after a
    URL (`refs/remotes/https://h/x.git/main`) were handed to git at every auto-push."""
    assert is_ref_name(name) is (repo.run("check-ref-format", name).returncode == 0)


def test_a_share_remote_is_a_remote_s_name_a_url_s_password_unshown() -> None:
    assert remote_name("landwatch.share.remote", "corp/public", "") == Parsed("corp/public")
    refused = remote_name("landwatch.share.remote", "https://ci:s3cr3tT0ken@h/x.git", "")
    assert refused.value is None and refused.problem is not None
    assert "s3cr3tT0ken" not in refused.problem and "shares nothing" in refused.problem
