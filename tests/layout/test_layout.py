"""One layout of landwatch's files and settings, and the hooks (githooks/hook.sh) spell it as
layout does: every name, place and default, and each setting the hook reads taken by the table's
rule, from real git and through the hook's settings cache."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from landwatch import layout
from landwatch.layout import Scope
from landwatch.work_item import READY, WorkKind
from support import ROOT
from support.hook_script import HOOK, hook_functions
from support.queue import git_env
from support.repos import Repo

GATE = ROOT / "githooks" / "pre-push.sh"


def code(script: str) -> str:
    """A hook script without its comments (the map of its caches names them all)."""
    return "\n".join(line for line in script.splitlines() if not line.lstrip().startswith("#"))


def disagreements(hook: str, gate: str = "") -> list[str]:
    """Every way the landing hook's code, and the push gate's (`gate`: the places it uses),
    disagree with layout; empty when they agree."""
    hook, gate = code(hook), code(gate)
    problems = []
    if gate and re.findall(r"^\s*lw_repo=\$lw_common/(\S+)$", gate, re.MULTILINE) != [
        layout.WORK_DIRECTORY
    ]:
        problems.append(f"the gate's lw_repo is not $lw_common/{layout.WORK_DIRECTORY}")
    for variable, directory in (("lw_work", "lw_git_dir"), ("lw_repo", "lw_common")):
        assigned = re.findall(rf"^\s*{variable}=\${directory}/(\S+)$", hook, re.MULTILINE)
        if assigned != [layout.WORK_DIRECTORY]:
            problems.append(f"{variable} is ${directory}/{assigned}, not {layout.WORK_DIRECTORY}")
    for variable, scope in (("lw_work", Scope.WORKTREE), ("lw_repo", Scope.REPOSITORY)):
        used = set(re.findall(rf"\${variable}/([a-z][a-z.-]*)", hook + gate))
        places = layout.WORKTREE_PLACES if scope is Scope.WORKTREE else layout.REPOSITORY_PLACES
        expected = {place.name for place in places if place.hooks}
        for name in sorted(used - expected):
            problems.append(f"the hook uses ${variable}/{name}, which layout does not name")
        for name in sorted(expected - used):
            problems.append(f"layout says the hook uses ${variable}/{name}; it does not")
    for name, text in (("hook", hook), ("gate", gate)):
        if text and (
            f"\nlw_kept_as={layout.CHAINED_SUFFIX}\n" not in f"\n{text}\n"
            or '\nlw_chained="${0%/*}/$LANDWATCH_EVENT$lw_kept_as"\n' not in text
        ):
            problems.append(f"the {name} does not chain $LANDWATCH_EVENT{layout.CHAINED_SUFFIX}")
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
    assert disagreements(HOOK.read_text(), GATE.read_text()) == []


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('"$lw_work/boot-time"', '"$lw_work/boottime"'),  # a renamed file
        ("lw_default_stale_after=600", "lw_default_stale_after=300"),  # another default
        ("$lw_repo/unread/", "$lw_work/unread/"),  # the wrong directory
        ("landwatch.push.remote) lw_push_remote=$lw_value ;;", ""),  # a setting not read
        ("lw_kept_as=.before-landwatch", "lw_kept_as=.landwatch"),  # another kept hook's name
    ],
)
def test_a_disagreement_is_caught(old: str, new: str) -> None:
    hook = HOOK.read_text()
    assert old in hook
    assert disagreements(hook.replace(old, new), GATE.read_text()) != []


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('"$lw_repo/blocking/$lw_oid"', '"$lw_repo/blocked/$lw_oid"'),  # a renamed directory
        ("lw_repo=$lw_common/landwatch", "lw_repo=$lw_common/lw"),  # another work directory
        ("lw_kept_as=.before-landwatch", "lw_kept_as=.landwatch"),  # another kept hook's name
    ],
)
def test_a_disagreement_of_the_gate_is_caught(old: str, new: str) -> None:
    gate = GATE.read_text()
    assert old in gate
    assert disagreements(HOOK.read_text(), gate.replace(old, new)) != []


# Raw texts of every kind, each tried on every setting the hook reads.
RAW_TEXTS = (
    *(None, "", "600", "0", "59", "60", "999999999", "9999999999", "0600", "0800", "00"),
    *("90.5", "1e3", " 60", "60 ", "-5", "+5", "0x10", "\u0666\u0660"),
    *("YES", "off", "On", "FALSE", "1", "2", "maybe", "origin", "up stream"),
    # A copied repository's terminal escapes (7 and 8 bits), a byte not UTF-8: text.safe's.
    *("\x1b]0;PWNED\x07\x1b[2J", "\u009b2J\u00e9", "caf\udce9"),
    # A right-to-left override, a zero-width space, a line separator, a tag; a joiner kept.
    "\u202e006\u200b\u2028\U000e0041日\u200d本",
)
# Run in a repository by sh with the hook's functions as $1: the cache made anew as a landing
# makes it when the configuration changed (the line it says on stderr), then read back by the
# quick way's reader; the values each left, NUL-terminated.
READ_AS_THE_HOOK = r"""
. "$1"
lw_git_dir=.git
lw_places
mkdir -p "$lw_repo"
lw_cache=$lw_repo/settings
rm -f "$lw_cache"
lw_refresh_settings 3>&2
printf '%s\0' "$lw_bound" "$lw_push_remote" "$lw_maintenance" "$lw_interval"
lw_settings && printf '%s\0' "$lw_bound" "$lw_push_remote" "$lw_maintenance" "$lw_interval"
"""
# The hook's variable of each setting it reads, in READ_AS_THE_HOOK's order.
HOOK_VARIABLES: tuple[layout.Setting[Any], ...] = (
    layout.STALE_AFTER,
    layout.PUSH_REMOTE,
    layout.MAINTENANCE,
    layout.MAINTENANCE_INTERVAL,
)


def boolean(setting: layout.Setting[Any]) -> bool:
    return isinstance(setting.parse(None).value, bool)


def as_the_hook_holds(setting: layout.Setting[Any], value: object) -> str:
    """A value of the table as the hook's variable holds it: a number's digits, a name as it
    is, none as empty; a boolean as on or empty (the hook asks only whether it is empty)."""
    if boolean(setting):
        return "on" if value else ""
    return "" if value is None else str(value)


def read_as_the_hook(hook: str, repo: Path) -> tuple[list[str], list[str], str]:
    """What the hook's own code makes of the repository's settings: the values after making the
    cache, the values the quick way reads from it, and the line said."""
    functions = repo.parent / "hook-functions.sh"
    functions.write_text(hook_functions(hook))
    run = subprocess.run(
        ["sh", "-c", READ_AS_THE_HOOK, "read-as-the-hook", str(functions)],
        cwd=repo,
        env=git_env(LANDWATCH_EVENT="post-commit", LANDWATCH_HOST="test"),
        capture_output=True,
        text=True,
        errors="surrogateescape",  # a value's bytes as git gives them to Python
    )
    values = run.stdout.split("\0")[:-1]
    assert len(values) == 2 * len(HOOK_VARIABLES), run
    held = [
        ("on" if text else "") if boolean(setting) else text
        for setting, text in zip(HOOK_VARIABLES * 2, values, strict=True)
    ]
    return held[: len(HOOK_VARIABLES)], held[len(HOOK_VARIABLES) :], run.stderr


def settings_disagreements(
    hook: str, repo: Repo, setting: layout.Setting[Any], texts: Iterable[str | None]
) -> list[str]:
    """Each raw text of `setting` for which the hook, reading it from real git, uses a value or
    says a line other than the table's; empty when they agree."""
    problems = []
    for text in texts:
        if text is None:
            repo.run("config", "--unset-all", setting.name)
        else:
            repo.git("config", "--replace-all", setting.name, text)
        parsed = setting.parse(text)
        assert layout.read_git_settings(repo.path)[setting] == parsed.value
        expected = [as_the_hook_holds(each, each.parse(None).value) for each in HOOK_VARIABLES]
        expected[HOOK_VARIABLES.index(setting)] = as_the_hook_holds(setting, parsed.value)
        made, quick, said = read_as_the_hook(hook, repo.path)
        line = f"landwatch: {parsed.problem}\n" if parsed.problem else ""
        for what, values in (("makes the cache", made), ("reads the cache", quick)):
            if values != expected:
                problems.append(f"{text!r}: the hook {what} into {values}, not {expected}")
        if said != line:
            problems.append(f"{text!r}: the hook says {said!r}, not {line!r}")
    return problems


@pytest.fixture
def scratch(tmp_path: Path) -> Repo:
    """A repository without landwatch, and no landwatch.* setting of the user's."""
    (Path(os.environ["HOME"]) / ".gitconfig").write_text("")
    return Repo(tmp_path / "scratch", initial=False)


@pytest.mark.parametrize("setting", HOOK_VARIABLES, ids=lambda setting: setting.name)
def test_the_hook_uses_each_setting_it_reads_by_the_table_s_rule(
    scratch: Repo, setting: layout.Setting[Any]
) -> None:
    assert {each.key for each in HOOK_VARIABLES} == {each.key for each in layout.HOOK_SETTINGS}
    assert settings_disagreements(HOOK.read_text(), scratch, setting, RAW_TEXTS) == []


@pytest.mark.parametrize(
    ("old", "new", "setting", "text"),
    [
        ("0?* | ", "", layout.STALE_AFTER, "0600"),  # a leading zero taken (as octal)
        ("[Ff][Aa][Ll][Ss][Ee]", "[Ff]alse", layout.MAINTENANCE, "FALSE"),  # one case only
        ("lw_least_interval=60", "lw_least_interval=0", layout.MAINTENANCE_INTERVAL, "59"),
        ("keeps maintenance on", "keeps it on", layout.MAINTENANCE, "maybe"),  # other words
    ],
)
def test_a_hook_that_breaks_a_rule_is_caught(
    scratch: Repo, old: str, new: str, setting: layout.Setting[Any], text: str
) -> None:
    hook = HOOK.read_text()
    assert old in hook
    assert settings_disagreements(hook, scratch, setting, [text]) == []
    assert settings_disagreements(hook.replace(old, new), scratch, setting, [text]) != []


def test_a_key_without_a_value_is_true_on_both_sides(scratch: Repo) -> None:
    with (scratch.git_dir / "config").open("a") as config:
        config.write("[landwatch]\n\tmaintenance\n")  # which `git config` cannot write
    assert layout.read_git_settings(scratch.path)[layout.MAINTENANCE] is True
    hook = HOOK.read_text()
    made, quick, said = read_as_the_hook(hook, scratch.path)
    at = HOOK_VARIABLES.index(layout.MAINTENANCE)
    assert (made[at], quick[at], said) == ("on", "on", "")
    broken = hook.replace("lw_value=true\n", "lw_value=\n")  # a key alone read as empty
    assert read_as_the_hook(broken, scratch.path)[0][at] == ""


def test_a_landing_uses_the_interval_and_says_the_line_the_table_gives(repo: Repo) -> None:
    work = repo.git_dir / "landwatch"
    repo.git("config", "landwatch.maintenance", "on")
    for text in ("90.5", "59", "120"):
        repo.git("config", "landwatch.maintenance.interval", text)
        (work / "settings").unlink(missing_ok=True)  # as when the configuration changed
        (work / "maintenance-after").unlink(missing_ok=True)  # maintenance is due
        parsed = layout.MAINTENANCE_INTERVAL.parse(text)
        repo.land(f"interval {text}")
        assert repo.said == (f"landwatch: {parsed.problem}\n" if parsed.problem else "")
        (stamp,) = (
            int(name.rpartition(".")[2])
            for name in os.listdir(work / READY)
            if name.startswith(f"{WorkKind.MAINTENANCE}-")
        )
        after = int((work / "maintenance-after").read_text())
        assert round((after - stamp) / 1_000_000) == parsed.value
        repo.clear()
