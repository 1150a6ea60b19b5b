"""Every landwatch.* git setting has one rule (layout.settings): what each raw text gives and when
it is a problem, said in one line; a default its rule takes; a repository's settings read from git
as git reads them; docs/configuration.md lists each with its default."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from landwatch import layout
from support import ROOT
from support.repos import Repo


@pytest.mark.parametrize(
    ("setting", "text", "value", "told"),
    [
        (layout.STALE_AFTER, None, 600, False),
        (layout.STALE_AFTER, "0", 0, False),
        (layout.STALE_AFTER, "999999999", 999_999_999, False),
        (layout.STALE_AFTER, "9999999999", 600, True),  # 10 digits: 317 years, too many
        (layout.STALE_AFTER, "0800", 600, True),  # octal to the shell's arithmetic
        (layout.STALE_AFTER, "90.5", 600, True),
        (layout.STALE_AFTER, "", 600, True),
        (layout.MAINTENANCE_INTERVAL, "90", 90, False),
        (layout.MAINTENANCE_INTERVAL, "59", 60, True),  # the floor
        (layout.MAINTENANCE_INTERVAL, "90.5", 3600, True),
        (layout.MAINTENANCE, "oFf", False, False),
        (layout.MAINTENANCE, "", False, False),  # git reads an empty value as false
        (layout.MAINTENANCE, "2", True, True),  # git would take any number; landwatch does not
        (layout.NOTES, None, False, False),
        (layout.NOTES, "YES", True, False),
        (layout.PUSH_FORCE, "maybe", False, True),
        (layout.PUSH_REMOTE, None, None, False),
        (layout.PUSH_REMOTE, "", None, False),
        (layout.PUSH_REMOTE, "up stream", "up stream", False),
        (layout.PUSH_REMOTE, "https://h.example/app.git", "https://h.example/app.git", False),
        (layout.SHARE_REMOTE, "corp/public", "corp/public", False),
        (layout.SHARE_REMOTE, "-x", "-x", False),  # a remote git takes, passed after `--`
        (layout.SHARE_REMOTE, "https://h.example/app.git", None, True),  # no remote's name
        (layout.SHARE_REMOTE, "../app.git", None, True),
        (layout.PUSH_BRANCHES, None, (), False),
        (layout.PUSH_BRANCHES, "main\nrelease/* hot*", ("main", "release/*", "hot*"), False),
        (layout.NOTIFY, None, "off", False),
        (layout.NOTIFY, "Errors", "errors", False),
        (layout.NOTIFY, "loud", "off", True),
    ],
)
def test_each_setting_has_one_rule(
    setting: layout.Setting[Any], text: str | None, value: object, told: bool
) -> None:
    parsed = setting.parse(text)
    assert parsed.value == value
    assert (parsed.problem is not None) == told
    if told:  # one line, naming the setting and its text as the person wrote them
        assert parsed.problem is not None and "\n" not in parsed.problem
        assert parsed.problem.startswith(f"git config {setting.name} = '{text}' is ")


ESCAPES = "\x1b]0;PWNED\x07\x1b[2J\u009b2J"  # a title set, the screen cleared, by 7 and 8 bits


@pytest.mark.parametrize("setting", layout.SETTINGS, ids=lambda setting: setting.name)
def test_a_problem_shows_the_text_escaped_where_it_is_made(setting: layout.Setting[Any]) -> None:
    """A repository's config (one copied with it) drives no terminal through a problem's line,
    whoever prints it (reviewer, doctor, the hooks): escaped as text.safe shows it."""
    problem = setting.parse(ESCAPES).problem
    if problem is not None:
        assert "= '\\x1b]0;PWNED\\x07\\x1b[2J\\x9b2J' is " in problem
        assert problem.isprintable()


def test_a_default_is_a_value_its_rule_takes() -> None:
    for setting in layout.SETTINGS:
        assert setting.parse(setting.default) == setting.parse(None)
        assert setting.parse(None).problem is None


def test_the_settings_of_a_repository_are_read_from_git(repo: Repo) -> None:
    home_config = Path(os.environ["HOME"]) / ".gitconfig"
    home_config.write_text('[landwatch]\n\tstaleAfter = 120\n\tnotify = "findings"\n')
    for name, value in (
        ("landwatch.staleAfter", "900"),  # the repository's own wins
        ("landwatch.maintenance.interval", " 60"),  # the raw text, its space kept
        ("landwatch.push.remote", "origin"),
    ):
        repo.git("config", name, value)
    for glob in ("main", "release/*"):
        repo.git("config", "--add", "landwatch.push.branches", glob)
    with (repo.git_dir / "config").open("a") as config:
        config.write("[landwatch]\n\tnotes\n")  # a key alone: git's true
    settings = layout.read_git_settings(repo.git_dir)
    assert settings[layout.STALE_AFTER] == 900
    assert settings[layout.NOTIFY] == "findings"
    assert settings[layout.MAINTENANCE_INTERVAL] == 3600
    assert settings[layout.PUSH_REMOTE] == "origin"
    assert settings[layout.PUSH_BRANCHES] == ("main", "release/*")
    assert settings[layout.NOTES] is True
    assert settings[layout.PUSH_FORCE] is False
    assert settings.problems == (layout.MAINTENANCE_INTERVAL.parse(" 60").problem,)
    assert layout.read_git_settings(repo.path) == settings  # from the worktree, the same


@pytest.mark.parametrize(
    ("own", "repository", "walled"),
    [
        (None, "false", True),  # a copied repository's .git/config: its word, not the person's
        ("true", "false", True),
        ("false", None, False),  # the person's own: the wall taken away
        ("false", "true", True),  # a repository may ask for the wall
        (None, None, True),
    ],
)
def test_only_the_person_s_own_configuration_takes_the_wall_away(
    repo: Repo, own: str | None, repository: str | None, walled: bool
) -> None:
    home_config = Path(os.environ["HOME"]) / ".gitconfig"
    home_config.write_text(f"[landwatch]\n\tsandbox = {own}\n" if own else "")
    if repository is not None:
        repo.git("config", "landwatch.sandbox", repository)
    assert layout.sandbox_asked(layout.read_git_settings(repo.git_dir)) is walled


def test_the_configuration_page_lists_every_setting_with_its_default() -> None:
    page = (ROOT / "docs" / "configuration.md").read_text()
    section = page[page.index("\n## git config\n") :]
    section = section[: section.index("\n## ", 1)]
    rows = dict(re.findall(r"^\| `(landwatch\.[A-Za-z.]+)` \| ([^|]*?) \|", section, re.MULTILINE))
    assert rows == {setting.name: setting.default or "unset" for setting in layout.SETTINGS}


def test_what_sends_the_person_s_work_away_is_said_with_the_file_that_turns_it_on(
    repo: Repo, tmp_path: Path
) -> None:
    """Auto-push and sharing, each said with the file git took it from (a copy's .git/config, or
    a file it includes), and how sharing stops: one place says both, for install and doctor."""
    assert layout.turned_on(repo.path, layout.read_git_settings(repo.git_dir)) == []
    included = tmp_path / "team.gitconfig"
    included.write_text('[landwatch "share"]\n\tremote = collect\n')
    repo.git("config", "landwatch.push.remote", "origin")
    repo.git("config", "include.path", str(included))
    settings = layout.read_git_settings(repo.git_dir)
    assert layout.turned_on(repo.path, settings) == [
        "auto-push is on: each landing's branch is pushed to 'origin', through the push gate "
        f"(landwatch.push.remote, set in {repo.path / '.git' / 'config'})",
        "sharing is on: each review, with your user.email, is pushed to 'collect' as a git note "
        f"(landwatch.share.remote, set in {included}; `landwatch share --off` stops it)",
    ]
