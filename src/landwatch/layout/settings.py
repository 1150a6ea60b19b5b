"""Every landwatch.* git setting: its key, default, meaning, whether the hooks read it, and its
one rule; and one reading of them all for a repository. githooks/hook.sh follows the same rule
for what it reads (tests/layout/test_layout.py runs both on the same values).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, NamedTuple, TypeVar, cast

from landwatch.git import git
from landwatch.layout.rules import (
    Parsed,
    Rule,
    any_text,
    boolean,
    globs,
    niceness,
    problem,
    remote_name,
    seconds,
    word,
)
from landwatch.review.budget import DEFAULT_REVIEW_BUDGET

T = TypeVar("T")


class Setting(NamedTuple, Generic[T]):
    name: str  # as a person writes it and the one line says it: landwatch.staleAfter
    default: str  # the text an unset key stands for; "" is shown as unset
    meaning: str
    hooks: bool  # githooks/hook.sh reads it from `settings`, by the same rule
    rule: Rule[T]
    multiple: bool = False  # every value counts (git config --get-all), given one a line
    # Its values from the least landwatch guards to the most (a wall, what refuses a push): one
    # below the default is obeyed only from the person's own configuration (obeyed).
    guards: tuple[T, ...] = ()

    @property
    def key(self) -> str:
        """The key as `git config --get-regexp` prints it: the section and the variable in lower
        case, a subsection as written (git's own rule)."""
        section, _, rest = self.name.partition(".")
        subsection, dot, variable = rest.rpartition(".")
        return f"{section.lower()}.{subsection}{dot}{variable.lower()}"

    def parse(self, text: str | None) -> Parsed[T]:
        """The value landwatch uses for the raw text of this setting (None: unset), and the
        line saying why when the text is not usable: the one parser of this setting."""
        return self.rule(self.name, self.default if text is None else text, self.default)


STALE_AFTER = Setting(
    "landwatch.staleAfter",
    "600",
    "seconds an item may wait before the hooks' one line says nobody drains the queue",
    hooks=True,
    rule=seconds(),
)
PUSH_REMOTE = Setting(
    "landwatch.push.remote",
    "",
    "the remote each landing's branch is pushed to",
    hooks=True,
    rule=any_text,
)
PUSH_BRANCHES = Setting(
    "landwatch.push.branches",
    "",
    "globs of the branches to push (every value counts); unset: the branch that landed",
    hooks=False,
    rule=globs,
    multiple=True,
)
PUSH_FORCE = Setting(
    "landwatch.push.force",
    "false",
    "push rewritten history with --force-with-lease --force-if-includes (git 2.30)",
    hooks=False,
    rule=boolean("landwatch pushes without --force-with-lease"),
)
PUSH_BLOCK = Setting(
    "landwatch.push.block",
    "secrets",
    "what a push is refused for: secrets (a secret or a conflict marker at error), errors (any "
    "error), off. Only your own configuration (--global) turns it off; a repository's may only "
    "ask for more",
    hooks=False,
    rule=word(("secrets", "errors", "off"), "landwatch refuses pushes of secrets"),
    guards=("off", "secrets", "errors"),
)
PUSH_WAIT = Setting(
    "landwatch.push.wait",
    "10",
    "seconds a push waits for the reviewer to finish the reviews of what it sends; past them the "
    "secret rules run in the hook",
    hooks=False,
    rule=seconds(),
)
MAINTENANCE = Setting(
    "landwatch.maintenance",
    "true",
    "git's maintenance after landings",
    hooks=True,
    rule=boolean("landwatch keeps maintenance on"),
)
MAINTENANCE_INTERVAL = Setting(
    "landwatch.maintenance.interval",
    "3600",
    "seconds between two maintenance runs",
    hooks=True,
    rule=seconds(least=60),
)
NOTES = Setting(
    "landwatch.notes",
    "false",
    "each review also as a git note under refs/notes/landwatch (a JSON document; on while shared)",
    hooks=False,
    rule=boolean("landwatch writes no notes"),
)
SHARE_REMOTE = Setting(
    "landwatch.share.remote",
    "",
    "the remote reviews are shared through as git notes (set by `landwatch share`)",
    hooks=False,
    rule=remote_name,
)
NOTIFY = Setting(
    "landwatch.notify",
    "off",
    "a desktop notification of each review with errors, or with findings (warnings too)",
    hooks=False,
    rule=word(("off", "errors", "findings"), "landwatch sends no notification"),
)
SANDBOX = Setting(
    "landwatch.sandbox",
    "true",
    "a repository's code runs only behind the wall (bubblewrap); false: as you, without it. "
    "Only your own configuration (--global) takes the wall away; a repository's may only ask "
    "for it",
    hooks=False,
    rule=boolean("a repository's code runs only behind the wall"),
    guards=(False, True),
)
REVIEW_BUDGET = Setting(
    "landwatch.review.budget",
    f"{DEFAULT_REVIEW_BUDGET:g}",
    "seconds one review may take (rules and linters); past them it is stored with what it found",
    hooks=False,
    rule=seconds(least=1),
)
PROJECT_HOOKS = Setting(
    "landwatch.projectHooks",
    "true",
    "the project's own pre-commit (or prek) and lefthook hooks run on each landing, once trusted",
    hooks=False,
    rule=boolean("landwatch runs the project's hooks once they are trusted"),
)
PROJECT_HOOKS_BUDGET = Setting(
    "landwatch.projectHooks.budget",
    "120",
    "seconds the project's hooks may run on one landing; past them they are stopped, and noted",
    hooks=False,
    rule=seconds(least=1),
)
REVIEWER_NICENESS = Setting(
    "landwatch.reviewer.niceness",
    "10",
    "how far the reviewer, and all it starts, yields the processor to your other work: 0 (not at "
    "all) to 19; read from your own configuration (--global) when the reviewer starts",
    hooks=False,
    rule=niceness,
)

# Every landwatch.* git setting, in the order their problems are told.
SETTINGS: tuple[Setting[Any], ...] = (
    STALE_AFTER,
    PUSH_REMOTE,
    PUSH_BRANCHES,
    PUSH_FORCE,
    PUSH_BLOCK,
    PUSH_WAIT,
    MAINTENANCE,
    MAINTENANCE_INTERVAL,
    NOTES,
    SHARE_REMOTE,
    NOTIFY,
    SANDBOX,
    REVIEW_BUDGET,
    PROJECT_HOOKS,
    PROJECT_HOOKS_BUDGET,
    REVIEWER_NICENESS,
)
# The ones the hooks read from `settings`, with the defaults both sides use.
HOOK_SETTINGS = tuple(setting for setting in SETTINGS if setting.hooks)
DEFAULT_STALE_AFTER = float(STALE_AFTER.parse(None).value)
DEFAULT_MAINTENANCE_INTERVAL = float(MAINTENANCE_INTERVAL.parse(None).value)


@dataclass(frozen=True)
class GitSettings:
    """Every setting of SETTINGS for one repository as landwatch uses it, `settings[STALE_AFTER]`,
    and the line for each value that was not usable, in the order of SETTINGS."""

    values: Mapping[str, object]  # by key
    problems: tuple[str, ...]
    unusable: tuple[str, ...] = ()  # the names of the settings the problems are about

    def __getitem__(self, setting: Setting[T]) -> T:
        return cast("T", self.values[setting.key])


def raw_settings(listing: str) -> dict[str, str]:
    """The raw text of each key in `git config --get-regexp` output, read as the hooks read
    their cache of it: one `KEY VALUE` line a value, the last one winning (every one, a line
    each, for a setting of many), a key without a value git's implicit true."""
    many = {setting.key for setting in SETTINGS if setting.multiple}
    raw: dict[str, str] = {}
    for line in filter(None, listing.split("\n")):
        key, space, value = line.partition(" ")
        value = value if space else "true"
        raw[key] = f"{raw[key]}\n{value}" if key in many and key in raw else value
    return raw


def read_git_settings(repository: os.PathLike[str] | str) -> GitSettings:
    """Every landwatch.* setting of the repository `repository` is in (a worktree or a git dir),
    from one `git config` call; a config git cannot read gives the defaults, as in the hooks."""
    raw = raw_settings(git("config", "--get-regexp", "^landwatch[.]", cwd=repository, check=False))
    parsed = [(setting, obeyed(setting, raw.get(setting.key))) for setting in SETTINGS]
    unusable = [(setting, each.problem) for setting, each in parsed if each.problem is not None]
    return GitSettings(
        {setting.key: each.value for setting, each in parsed},
        tuple(problem for _, problem in unusable),
        tuple(setting.name for setting, _ in unusable),
    )


def read_own_config(name: str, *, every: bool = False) -> str:
    """The text of the git setting `name` in the person's own configuration (git config --global,
    with what it includes), read where no repository is; with `every`, each value, a line each."""
    get = "--get-all" if every else "--get"
    return git("config", "--global", "--includes", get, name, cwd="/", check=False)


def read_own_setting(setting: Setting[T]) -> Parsed[T]:
    """`setting` as the person's own configuration says it (read_own_config): one no
    repository's configuration changes."""
    return setting.parse(read_own_config(setting.name) or None)


def obeyed(setting: Setting[T], text: str | None) -> Parsed[T]:
    """`setting` as landwatch obeys the text git gave (None: unset): one that `guards` below its
    default only as far as the person's own configuration says, with a line saying so. A
    copied repository's .git/config is its maker's word: it may ask for more, never for less."""
    parsed = setting.parse(text)
    if not setting.guards or parsed.problem is not None or text is None:
        return parsed
    order = setting.guards.index
    if order(parsed.value) >= order(setting.parse(None).value):
        return parsed
    own = read_own_setting(setting).value
    if order(own) <= order(parsed.value):
        return parsed
    return Parsed(
        own,
        problem(
            setting.name,
            text,
            f"not your own configuration: only yours (git config --global) asks for less than "
            f"{setting.default}, a repository's (a copy's .git/config) only for more; landwatch "
            f"uses {_shown(own)}",
        ),
    )


def set_in(where: os.PathLike[str] | str, name: str) -> str:
    """The file git took the value of `name` from, read in `where` (the last one it read)."""
    listing = git("config", "--show-origin", "--get-all", name, cwd=where, check=False)
    origin = listing.splitlines()[-1].partition("\t")[0] if listing else ""
    path = origin.removeprefix("file:")
    # The repository's own config is shown as git opened it: relative to where it ran.
    return os.path.join(where, path) if path and origin.startswith("file:") else origin


def turned_on(where: os.PathLike[str] | str, settings: GitSettings) -> list[str]:
    """What the settings of the repository at `where` turn on that sends the person's work to a
    remote, each with the file that says so: a copy's .git/config may turn auto-push or sharing
    on (attacks 48 and 69), so install and doctor say both."""
    said = []
    if push := settings[PUSH_REMOTE]:
        said.append(
            f"auto-push is on: each landing's branch is pushed to {push!r}, through the push "
            f"gate (landwatch.push.remote, set in {set_in(where, PUSH_REMOTE.name)})"
        )
    if share := settings[SHARE_REMOTE]:
        said.append(
            f"sharing is on: each review, with your user.email, is pushed to {share!r} as a git "
            f"note (landwatch.share.remote, set in {set_in(where, SHARE_REMOTE.name)}; "
            "`landwatch share --off` stops it)"
        )
    return said


def _shown(value: object) -> str:
    """A value as git config spells it (true, not True)."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def sandbox_asked(settings: GitSettings) -> bool:
    """Whether a repository's code runs only behind the wall: yes unless the person's own
    configuration (--global) says not (obeyed; attack 17)."""
    return settings[SANDBOX]
