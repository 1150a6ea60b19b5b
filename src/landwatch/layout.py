"""Every file and directory landwatch keeps, per user, per repository and per worktree, with
owner and purpose, and every landwatch.* git setting with its one rule: one home for the names,
defaults and rules githooks/hook.sh uses too (tests/test_layout.py keeps both equal).

The queue's own directories are work_item's (the seed contract); this module names the rest.
"""

from __future__ import annotations

import enum
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar, cast

import platformdirs

from landwatch import work_item
from landwatch.git import git

APP = "landwatch"
WORK_DIRECTORY = work_item.WORK_DIRECTORY


class Scope(enum.Enum):
    USER = "per user"
    REPOSITORY = "per repository: <common-dir>/landwatch"
    WORKTREE = "per worktree: <git-dir>/landwatch"


@dataclass(frozen=True)
class Place:
    name: str
    scope: Scope
    owner: str  # who writes it
    purpose: str
    directory: bool = False
    hooks: bool = False  # githooks/hook.sh reads or writes it too


_QUEUE = "work_item (docs/queue.md)"

WORKTREE_PLACES = (
    Place(work_item.TMP, Scope.WORKTREE, _QUEUE, "producers' temp files, prune intents", True),
    Place(work_item.KNOWN, Scope.WORKTREE, _QUEUE, "one dedup marker per id", True, True),
    Place(work_item.READY, Scope.WORKTREE, _QUEUE, "the hooks' markers, to publish", True, True),
    Place(work_item.PENDING, Scope.WORKTREE, _QUEUE, "items waiting, oldest first", True, True),
    Place(work_item.CLAIMED, Scope.WORKTREE, _QUEUE, "items a consumer holds", True),
    Place(work_item.RECOVERING, Scope.WORKTREE, _QUEUE, "items on their way back", True),
    Place(work_item.DONE, Scope.WORKTREE, _QUEUE, "items finished; pruned after a while", True),
    Place(work_item.FAILED, Scope.WORKTREE, _QUEUE, "items given up, kept", True, True),
    Place(work_item.RECOVERY_LOCK, Scope.WORKTREE, _QUEUE, "flock of recovery and pruning"),
    Place(
        "boot-time",
        Scope.WORKTREE,
        "the hooks",
        "`BOOT_ID BTIME`: the boot's start, so the hook tells time without a process",
        hooks=True,
    ),
    Place(
        "last-stamp",
        Scope.WORKTREE,
        "the hooks",
        "the newest stamp the hooks gave, so the next is later though the clock ticks 10 ms",
        hooks=True,
    ),
    Place(
        "told",
        Scope.WORKTREE,
        "notice, install",
        "the items given up the person was told of; its mtime is failed/'s when told",
        hooks=True,
    ),
    Place(
        "skipped",
        Scope.WORKTREE,
        "the hooks",
        "<oid>: a landing made with LANDWATCH=0, which the sweep leaves unreviewed",
        True,
        True,
    ),
    Place(
        "push-state.json",
        Scope.WORKTREE,
        "kinds.push",
        "how pushing from this worktree has been failing (status, the one line)",
    ),
)

REPOSITORY_PLACES = (
    Place(
        "settings",
        Scope.REPOSITORY,
        "the hooks",
        "`git config --get-regexp ^landwatch[.]` cached; asked again when a config is newer",
        hooks=True,
    ),
    Place("reports", Scope.REPOSITORY, "report_store", "<commit>.json: each review", True),
    Place(
        "unread",
        Scope.REPOSITORY,
        "report_store",
        "<commit>: an empty marker per review with findings nobody was told of",
        True,
        True,
    ),
    Place(
        "maintenance-after",
        Scope.REPOSITORY,
        "kinds.maintenance, the hooks",
        "the µs stamp before which no landing asks for maintenance",
        hooks=True,
    ),
    Place("maintenance-ran", Scope.REPOSITORY, "kinds.maintenance", "when it last ran (µs)"),
    Place(
        "standards.json",
        Scope.REPOSITORY,
        "standards_store",
        "the standards learned from the repository's history (subject length, conventions)",
    ),
    Place(
        "hooks-dir",
        Scope.REPOSITORY,
        "install",
        "where install wrote the hooks, so uninstall takes them from there",
    ),
    Place(
        "untrusted",
        Scope.REPOSITORY,
        "trust",
        "the digest of committed linters held back, until the one line has said so",
        hooks=True,
    ),
    Place("untrusted-told", Scope.REPOSITORY, "trust", "the digest the one line last told of"),
    Place(
        "moved-told",
        Scope.REPOSITORY,
        "the hooks",
        "the line said once that the repository is not where landwatch was installed",
        hooks=True,
    ),
    Place(
        "gone-told",
        Scope.REPOSITORY,
        "the hooks",
        "the line said once that the entry point the hooks call is gone (landwatch removed)",
        hooks=True,
    ),
    Place(
        "displaced-told",
        Scope.REPOSITORY,
        "the hooks",
        "the line said once that another hook manager moved landwatch's hooks aside",
        hooks=True,
    ),
    Place(
        "sweep.json",
        Scope.REPOSITORY,
        "daemon.sweep",
        "how far each reflog was read (inode, offset, time), so a pass reads only what is new",
    ),
)

USER_PLACES = (
    Place("<data>/bin/landwatch", Scope.USER, "install", "the entry point the hooks call"),
    Place("<config>/repositories", Scope.USER, "registry", "the repositories drained"),
    Place("<config>/repositories.lock", Scope.USER, "registry", "flock of registry changes"),
    Place("<state>/run/reviewer.lock", Scope.USER, "daemon", "flock held by the running reviewer"),
    Place("<state>/run/reviewer.json", Scope.USER, "daemon", "what the reviewer is doing"),
    Place("<state>/reviewer.log", Scope.USER, "daemon", "the reviewer's log (rotated)"),
    Place("<config>/config.toml", Scope.USER, "the person", "their own linters, trusted"),
    Place("<state>/trust.json", Scope.USER, "trust", "approvals of committed linters"),
    Place("<state>/notified.json", Scope.USER, "notify", "when the last notifications were sent"),
    Place("<state>/trust.lock", Scope.USER, "trust", "flock of trust changes"),
)

# Beside a hook landwatch replaced, in the hooks directory: the hook that was there, run first.
CHAINED_SUFFIX = ".before-landwatch"


# --- git config: every landwatch.* setting, each with its one rule -----------------------------

T = TypeVar("T")


@dataclass(frozen=True)
class Parsed(Generic[T]):
    """A setting's value as landwatch uses it, and the one line saying why its text could not be
    used (None when it could): the hooks say it once per change of the configuration."""

    value: T
    problem: str | None = None


# (the setting's name, its raw text, its default's text): what landwatch makes of the text.
Rule = Callable[[str, str, str], Parsed[T]]


@dataclass(frozen=True)
class Setting(Generic[T]):
    name: str  # as a person writes it and the one line says it: landwatch.staleAfter
    default: str  # the text an unset key stands for; "" is shown as unset
    meaning: str
    hooks: bool  # githooks/hook.sh reads it from `settings`, by the same rule
    rule: Rule[T]
    multiple: bool = False  # every value counts (git config --get-all), given one a line

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


_SECONDS = re.compile(r"0|[1-9][0-9]{0,8}")
_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0", "")  # git reads an empty value as false


def _seconds(least: int = 0) -> Rule[int]:
    """Whole seconds, at least `least`: 1 to 9 decimal digits (as µs they fit the hook's
    arithmetic) and no leading zero (which the shell's arithmetic reads as octal)."""

    def rule(name: str, text: str, default: str) -> Parsed[int]:
        if _SECONDS.fullmatch(text) is None:
            return Parsed(
                int(default),
                f"git config {name} = '{text}' is not a whole number of seconds "
                f"(1 to 9 digits, no leading zero); landwatch uses {default}",
            )
        if int(text) < least:
            return Parsed(
                least,
                f"git config {name} = '{text}' is less than {least} seconds; "
                f"landwatch uses {least}",
            )
        return Parsed(int(text))

    return rule


def _boolean(otherwise: str) -> Rule[bool]:
    """A boolean as git spells one, in any case (true, yes, on, 1; false, no, off, 0, empty);
    anything else is the default, and `otherwise` says what landwatch then does."""

    def rule(name: str, text: str, default: str) -> Parsed[bool]:
        word = text.lower() if text.isascii() else text
        if word in _TRUE or word in _FALSE:
            return Parsed(word in _TRUE)
        return Parsed(
            default in _TRUE, f"git config {name} = '{text}' is not true or false; {otherwise}"
        )

    return rule


def _word(words: tuple[str, ...], otherwise: str) -> Rule[str]:
    """One of `words` in any case, given in lower case; empty is the default, and anything else
    is too, `otherwise` saying what landwatch then does."""

    def rule(name: str, text: str, default: str) -> Parsed[str]:
        word = text.lower() if text.isascii() else text
        if word in words or not text:
            return Parsed(word or default)
        listed = f"{', '.join(words[:-1])} or {words[-1]}"
        return Parsed(default, f"git config {name} = '{text}' is not {listed}; {otherwise}")

    return rule


def _text(name: str, text: str, default: str) -> Parsed[str | None]:
    """The text as it is; empty is none."""
    return Parsed(text or None)


def _globs(name: str, text: str, default: str) -> Parsed[tuple[str, ...]]:
    """Globs split at white space, every value's."""
    return Parsed(tuple(text.split()))


STALE_AFTER = Setting(
    "landwatch.staleAfter",
    "600",
    "seconds an item may wait before the hooks' one line says nobody drains the queue",
    hooks=True,
    rule=_seconds(),
)
PUSH_REMOTE = Setting(
    "landwatch.push.remote",
    "",
    "the remote each landing's branch is pushed to",
    hooks=True,
    rule=_text,
)
PUSH_BRANCHES = Setting(
    "landwatch.push.branches",
    "",
    "globs of the branches to push (every value counts); unset: the branch that landed",
    hooks=False,
    rule=_globs,
    multiple=True,
)
PUSH_FORCE = Setting(
    "landwatch.push.force",
    "false",
    "push rewritten history with --force-with-lease",
    hooks=False,
    rule=_boolean("landwatch pushes without --force-with-lease"),
)
MAINTENANCE = Setting(
    "landwatch.maintenance",
    "true",
    "git's maintenance after landings",
    hooks=True,
    rule=_boolean("landwatch keeps maintenance on"),
)
MAINTENANCE_INTERVAL = Setting(
    "landwatch.maintenance.interval",
    "3600",
    "seconds between two maintenance runs",
    hooks=True,
    rule=_seconds(least=60),
)
NOTES = Setting(
    "landwatch.notes",
    "false",
    "each review's summary also as a git note under refs/notes/landwatch",
    hooks=False,
    rule=_boolean("landwatch writes no notes"),
)
NOTIFY = Setting(
    "landwatch.notify",
    "off",
    "a desktop notification of each review with errors, or with findings (warnings too)",
    hooks=False,
    rule=_word(("off", "errors", "findings"), "landwatch sends no notification"),
)

# Every landwatch.* git setting, in the order their problems are told.
SETTINGS: tuple[Setting[Any], ...] = (
    STALE_AFTER,
    PUSH_REMOTE,
    PUSH_BRANCHES,
    PUSH_FORCE,
    MAINTENANCE,
    MAINTENANCE_INTERVAL,
    NOTES,
    NOTIFY,
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
    parsed = [(setting.key, setting.parse(raw.get(setting.key))) for setting in SETTINGS]
    return GitSettings(
        {key: each.value for key, each in parsed},
        tuple(each.problem for _, each in parsed if each.problem is not None),
    )


# --- per worktree and per repository ----------------------------------------------------------


def common_dir(git_dir: os.PathLike[str] | str) -> Path:
    """The repository's common git dir, from any worktree's git dir."""
    path = Path(git_dir)
    try:
        pointer = (path / "commondir").read_text().strip()
    except OSError:
        return path
    return (path / pointer).resolve() if pointer else path


def work_dir(git_dir: os.PathLike[str] | str) -> Path:
    """The worktree's own directory: its queue and what is said about it."""
    return Path(git_dir) / WORK_DIRECTORY


def repository_dir(git_dir: os.PathLike[str] | str) -> Path:
    """The repository's directory, shared by its worktrees (the main worktree's work dir)."""
    return common_dir(git_dir) / WORK_DIRECTORY


def boot_time_file(git_dir: os.PathLike[str] | str) -> Path:
    return work_dir(git_dir) / "boot-time"


def told_file(git_dir: os.PathLike[str] | str) -> Path:
    return work_dir(git_dir) / "told"


def push_state_file(git_dir: os.PathLike[str] | str) -> Path:
    return work_dir(git_dir) / "push-state.json"


def reports_dir(git_dir: os.PathLike[str] | str) -> Path:
    return repository_dir(git_dir) / "reports"


def report_file(git_dir: os.PathLike[str] | str, commit: str) -> Path:
    return reports_dir(git_dir) / f"{commit}.json"


def unread_dir(git_dir: os.PathLike[str] | str) -> Path:
    return repository_dir(git_dir) / "unread"


def standards_file(git_dir: os.PathLike[str] | str) -> Path:
    return repository_dir(git_dir) / "standards.json"


def hooks_dir_file(git_dir: os.PathLike[str] | str) -> Path:
    return repository_dir(git_dir) / "hooks-dir"


def maintenance_after_file(git_dir: os.PathLike[str] | str) -> Path:
    return repository_dir(git_dir) / "maintenance-after"


def maintenance_ran_file(git_dir: os.PathLike[str] | str) -> Path:
    return repository_dir(git_dir) / "maintenance-ran"


def skipped_dir(git_dir: os.PathLike[str] | str) -> Path:
    return work_dir(git_dir) / "skipped"


def moved_told_file(git_dir: os.PathLike[str] | str) -> Path:
    return repository_dir(git_dir) / "moved-told"


def gone_told_file(git_dir: os.PathLike[str] | str) -> Path:
    return repository_dir(git_dir) / "gone-told"


def displaced_told_file(git_dir: os.PathLike[str] | str) -> Path:
    return repository_dir(git_dir) / "displaced-told"


def sweep_state_file(git_dir: os.PathLike[str] | str) -> Path:
    return repository_dir(git_dir) / "sweep.json"


def untrusted_file(git_dir: os.PathLike[str] | str) -> Path:
    return repository_dir(git_dir) / "untrusted"


def untrusted_told_file(git_dir: os.PathLike[str] | str) -> Path:
    return repository_dir(git_dir) / "untrusted-told"


# --- per user (platformdirs: XDG on Linux, ~/Library on macOS) ----------------------------------


def data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP))


def config_dir() -> Path:
    return Path(platformdirs.user_config_dir(APP))


def state_dir() -> Path:
    return Path(platformdirs.user_state_dir(APP))


def entry_point() -> Path:
    """The stable per-user command the hooks call when they have something to say."""
    return data_dir() / "bin" / "landwatch"


def registry_file() -> Path:
    """The repositories the reviewer drains, one real path of a common git dir per line."""
    return config_dir() / "repositories"


def registry_lock() -> Path:
    return config_dir() / "repositories.lock"


def own_config_file() -> Path:
    """The person's own settings: linters of theirs, run in every repository (trusted)."""
    return config_dir() / "config.toml"


def notified_file() -> Path:
    """When the last desktop notifications were sent (their rate is limited)."""
    return state_dir() / "notified.json"


def trust_file() -> Path:
    """The person's approvals of linters committed in repositories (`landwatch trust`)."""
    return state_dir() / "trust.json"


def trust_lock() -> Path:
    return state_dir() / "trust.lock"


def run_dir() -> Path:
    """The running reviewer's lock and state file. Not $XDG_RUNTIME_DIR: an environment without
    it (cron, some GUI sessions) would find no reviewer there and start a second one."""
    return state_dir() / "run"


def reviewer_lock() -> Path:
    """The reviewer's per-user lock (flock), holding who runs."""
    return run_dir() / "reviewer.lock"


def reviewer_state() -> Path:
    """What the running reviewer is doing, for `landwatch status`."""
    return run_dir() / "reviewer.json"


def reviewer_log() -> Path:
    return state_dir() / "reviewer.log"
