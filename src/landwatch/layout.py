"""Every file and directory landwatch keeps, per user, per repository and per worktree, with
owner and purpose: one home for the names githooks/hook.sh uses too (a test keeps both equal).

The queue's own directories are work_item's (the seed contract); this module names the rest.
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from landwatch import work_item

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


@dataclass(frozen=True)
class HookSetting:
    key: str  # as `git config --get-regexp` prints it: lower case
    default: str
    meaning: str


# The git config keys the hooks read from `settings`, with the defaults both sides use.
HOOK_SETTINGS = (
    HookSetting("landwatch.staleafter", "600", "seconds an item may wait before the line says so"),
    HookSetting("landwatch.push.remote", "", "the remote each landing is pushed to (off: empty)"),
    HookSetting("landwatch.maintenance", "true", "git's maintenance after landings"),
    HookSetting("landwatch.maintenance.interval", "3600", "seconds between maintenance runs"),
)
DEFAULT_STALE_AFTER = float(HOOK_SETTINGS[0].default)
DEFAULT_MAINTENANCE_INTERVAL = float(HOOK_SETTINGS[3].default)


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
