"""One layout of landwatch's files and settings: the hooks (githooks/hook.sh) spell every name and
default as layout.py does, every git setting has one rule, docs/queue.md lists every place, and a
linked worktree finds its repository."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from landwatch import layout
from landwatch.layout import Scope
from support import ROOT
from support.repos import Repo

HOOK = ROOT / "githooks" / "hook.sh"


def disagreements(hook: str) -> list[str]:
    """Every way the hook's text disagrees with layout.py; empty when they agree."""
    problems = []
    for variable, directory in (("lw_work", "lw_git_dir"), ("lw_repo", "lw_common")):
        assigned = re.findall(rf"^\s*{variable}=\${directory}/(\S+)$", hook, re.MULTILINE)
        if assigned != [layout.WORK_DIRECTORY]:
            problems.append(f"{variable} is ${directory}/{assigned}, not {layout.WORK_DIRECTORY}")
    for variable, scope in (("lw_work", Scope.WORKTREE), ("lw_repo", Scope.REPOSITORY)):
        used = set(re.findall(rf"\${variable}/([a-z][a-z.-]*)", hook))
        places = layout.WORKTREE_PLACES if scope is Scope.WORKTREE else layout.REPOSITORY_PLACES
        expected = {place.name for place in places if place.hooks}
        for name in sorted(used - expected):
            problems.append(f"the hook uses ${variable}/{name}, which layout.py does not name")
        for name in sorted(expected - used):
            problems.append(f"layout.py says the hook uses ${variable}/{name}; it does not")
    if f"$LANDWATCH_EVENT{layout.CHAINED_SUFFIX}" not in hook:
        problems.append(f"the hook does not chain $LANDWATCH_EVENT{layout.CHAINED_SUFFIX}")
    defaults: dict[str, str] = dict(re.findall(r"^(lw_default_\w+)=(\S*)$", hook, re.MULTILINE))
    arms: dict[str, str] = dict(
        re.findall(r"^\s*(landwatch\.[a-z.]+)\) (lw_\w+)=\$lw_value ;;$", hook, re.MULTILINE)
    )
    for setting in layout.HOOK_SETTINGS:
        read_into = arms.get(setting.key)
        if read_into is None:
            problems.append(f"the hook does not read {setting.key}")
            continue
        first = re.search(rf"^\s*{read_into}=(\S*)$", hook, re.MULTILINE)
        value: str | None = first[1] if first else None
        if value is not None and value.startswith("$"):
            value = defaults.get(value[1:])
        if value != setting.default:
            problems.append(f"{setting.key} defaults to {value!r}, not {setting.default!r}")
    for key in set(arms) - {setting.key for setting in layout.HOOK_SETTINGS}:
        problems.append(f"the hook reads {key}, which layout.HOOK_SETTINGS does not name")
    return problems


def test_the_hook_and_layout_agree() -> None:
    assert disagreements(HOOK.read_text()) == []


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('"$lw_work/boot-time"', '"$lw_work/boottime"'),  # a renamed file
        ("lw_default_stale_after=600", "lw_default_stale_after=300"),  # another default
        ("$lw_repo/unread/", "$lw_work/unread/"),  # the wrong directory
        ("landwatch.push.remote) lw_push_remote=$lw_value ;;", ""),  # a setting not read
    ],
)
def test_a_disagreement_is_caught(old: str, new: str) -> None:
    hook = HOOK.read_text()
    assert old in hook
    assert disagreements(hook.replace(old, new)) != []


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


def test_docs_list_every_place() -> None:
    queue_md = (ROOT / "docs" / "queue.md").read_text()
    places = (*layout.USER_PLACES, *layout.REPOSITORY_PLACES, *layout.WORKTREE_PLACES)
    # Named in a table (`name`) or in the listing of the work directory (indented).
    missing = [
        place.name
        for place in places
        if not re.search(rf"(`|^ +){re.escape(place.name)}\b", queue_md, re.MULTILINE)
    ]
    assert missing == []
    for setting in layout.HOOK_SETTINGS:
        assert setting.key in queue_md.lower()


def test_a_linked_worktree_keeps_its_queue_and_shares_the_repository(
    repo: Repo, tmp_path: Path
) -> None:
    repo.git("worktree", "add", "-q", str(tmp_path / "linked"))
    git_dir = Path(repo.git("-C", str(tmp_path / "linked"), "rev-parse", "--absolute-git-dir"))
    assert layout.work_dir(git_dir) == git_dir / "landwatch" != layout.work_dir(repo.git_dir)
    assert layout.common_dir(git_dir) == repo.git_dir.resolve()
    assert layout.reports_dir(git_dir) == layout.reports_dir(repo.git_dir)
