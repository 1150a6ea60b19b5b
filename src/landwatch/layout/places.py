"""Every file and directory landwatch keeps, per worktree, per repository and per user: each named
once, with its owner and purpose, and its path asked of it (`BOOT_TIME.path(git_dir)`).

The queue's own directories are work_item's (the seed contract); this module names the rest, the
person's own in layout.user_places.
githooks/hook.sh spells the ones it uses too, and tests/layout/test_layout.py keeps both equal.
"""

from __future__ import annotations

import enum
import os
import sys
from pathlib import Path
from typing import NamedTuple

from landwatch import user_dirs, work_item
from landwatch.git import common_dir

APP = "landwatch"
WORK_DIRECTORY = work_item.WORK_DIRECTORY
# Beside a hook landwatch replaced, in the hooks directory: the hook that was there, run first.
CHAINED_SUFFIX = ".before-landwatch"


class Scope(enum.Enum):
    USER = "per user"
    REPOSITORY = "per repository: <common-dir>/landwatch"
    WORKTREE = "per worktree: <git-dir>/landwatch"
    INSTALLATION = "per installation: the virtual environment landwatch runs in (sys.prefix)"


def user_root(root: str) -> Path:
    """The per-user directory `root` (`<config>`, ...) names, as user_dirs keeps it: platformdirs
    is imported only where it was never asked under this user and environment."""
    return Path(user_dirs.directory(root))


class Place(NamedTuple):
    name: str  # relative to its scope's directory; a per-user one starts <data>, <config>,
    # <state> or <cache>
    scope: Scope
    owner: str  # who writes it
    purpose: str
    directory: bool = False
    hooks: bool = False  # githooks/hook.sh reads or writes it too
    format: int = 0  # a JSON state file's format this release writes (layout.state); 0: none

    def path(self, git_dir: os.PathLike[str] | str | None = None) -> Path:
        """Where it is: in the work directory of the worktree whose git dir is `git_dir`, in
        its repository's, or (no `git_dir`) in the person's own directories or landwatch's
        installation."""
        if self.scope in (Scope.USER, Scope.INSTALLATION) and git_dir is not None:
            whose = "the person's own" if self.scope is Scope.USER else "landwatch's installation's"
            raise ValueError(f"{self.name} is {whose}, not a repository's")
        if self.scope is Scope.USER:
            root, _, rest = self.name.partition("/")
            return user_root(root) / rest
        if self.scope is Scope.INSTALLATION:
            return Path(sys.prefix) / self.name
        if git_dir is None:
            raise ValueError(f"{self.name} is {self.scope.value}: which repository?")
        if self.scope is Scope.WORKTREE:
            return work_dir(git_dir) / self.name
        return repository_dir(git_dir) / self.name


# --- per worktree: <git-dir>/landwatch ----------------------------------------------------------

_QUEUE = "work_item (docs/queue.md)"
BOOT_TIME = Place(
    "boot-time",
    Scope.WORKTREE,
    "the hooks",
    "`BOOT_ID BTIME`: the boot's start, so the hook tells time without a process",
    hooks=True,
)
LAST_STAMP = Place(
    "last-stamp",
    Scope.WORKTREE,
    "the hooks",
    "the newest stamp the hooks gave, so the next is later though the clock ticks 10 ms",
    hooks=True,
)
OLDEST_WAITING = Place(
    "oldest-waiting",
    Scope.WORKTREE,
    "the hooks",
    "the oldest stamp waiting when the hook last looked at each: no look again before it is old",
    hooks=True,
)
TOLD = Place(
    "told",
    Scope.WORKTREE,
    "notice, install",
    "the items given up the person was told of; its mtime is failed/'s when told",
    hooks=True,
)
REWRITE_PAIRS = Place(
    "rewrite-pairs",
    Scope.WORKTREE,
    "the hooks",
    "`old:new` of what a rewrite replaced whose line waits, the notice's stdin; gone once open",
    hooks=True,
)
SKIPPED = Place(
    "skipped",
    Scope.WORKTREE,
    "the hooks",
    "<oid>: a landing made with LANDWATCH=0, which the sweep leaves unreviewed",
    directory=True,
    hooks=True,
)
MADE = Place(
    "made",
    Scope.WORKTREE,
    "registry (install, the reviewer)",
    "the mark that landwatch made this work directory here: its inode signed with the key",
)
PUSH_STATE = Place(
    "push-state.json",
    Scope.WORKTREE,
    "kinds.push",
    "how pushing from this worktree has been failing, the pushes held back (status, the one line)",
)
HOOKS_WAITING = Place(
    "project-hooks-state.json",
    Scope.WORKTREE,
    "kinds.project_hooks",
    "how long the project hooks' environments have failed to build here (status, the one line)",
)
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
    BOOT_TIME,
    LAST_STAMP,
    OLDEST_WAITING,
    TOLD,
    REWRITE_PAIRS,
    SKIPPED,
    MADE,
    PUSH_STATE,
    HOOKS_WAITING,
)

# --- per repository: <common-dir>/landwatch, shared by its worktrees ----------------------------

SETTINGS_CACHE = Place(
    "settings",
    Scope.REPOSITORY,
    "the hooks",
    "`git config --get-regexp ^landwatch[.]` cached; asked again when a config is newer",
    hooks=True,
)
REPORTS = Place(
    "reports",
    Scope.REPOSITORY,
    "report_store",
    "<commit>.json: each review; <commit>.hooks.json: what the project's hooks said of it",
    directory=True,
    hooks=True,
)
BLOCKING = Place(
    "blocking",
    Scope.REPOSITORY,
    "report_store",
    "<commit>: a stored review holding what a push may be refused for, `secrets` (a secret or a "
    "conflict marker at error) or `errors` (other errors only), or `unchecked` (it did not read "
    "its whole change: the gate reads on); written before its report",
    directory=True,
    hooks=True,
)
AWAITING = Place(
    "awaiting",
    Scope.REPOSITORY,
    "report_store",
    "<commit>: a stored review whose project hooks have not said yet (queued, running, or waiting "
    "for their environments): under push.block = errors the gate waits, then says so",
    directory=True,
    hooks=True,
)
UNREAD = Place(
    "unread",
    Scope.REPOSITORY,
    "report_store",
    "<commit>: a marker per review with findings nobody was told of, what the line says of it",
    directory=True,
    hooks=True,
)
HELD = Place(
    "held",
    Scope.REPOSITORY,
    "report_store",
    "<commit>: what the line is to say of a review whose project hooks are still running (the "
    "fingerprints worth telling), told with the hooks' result as one line",
    directory=True,
    hooks=True,
)
REPLACED = Place(
    "replaced",
    Scope.REPOSITORY,
    "report_store",
    "<new>.<old>: an unread review's marker set aside when a rebase or amend replaced its commit "
    "by <new>; never told, and the review of <new> tells what of it nobody saw",
    directory=True,
)
MAINTENANCE_AFTER = Place(
    "maintenance-after",
    Scope.REPOSITORY,
    "kinds.maintenance, the hooks",
    "the µs stamp before which no landing asks for maintenance",
    hooks=True,
)
MAINTENANCE_RAN = Place(
    "maintenance-ran", Scope.REPOSITORY, "kinds.maintenance", "when it last ran (µs)"
)
STANDARDS = Place(
    "standards.json",
    Scope.REPOSITORY,
    "standards_store",
    "the standards learned from the repository's history (subject length, conventions)",
)
HOOK_STORE = Place(
    "hook-store",
    Scope.REPOSITORY,
    "kinds.project_hooks",
    "the random name of this repository's store of hook environments: none of another's",
)
HOOKS_DIR = Place(
    "hooks-dir",
    Scope.REPOSITORY,
    "install",
    "where install wrote the hooks, so uninstall takes them from there; in a repository their "
    "header does not name, the hooks record (and tell it moved) only while it is there: a "
    "shared directory's hooks leave alone one uninstalled with its data kept",
    hooks=True,
)
MAIN_WORKTREE = Place(
    "main-worktree",
    Scope.REPOSITORY,
    "install",
    "where install ran, for a git dir in no worktree (a submodule's, --separate-git-dir's): "
    "coverage looks there before any landing says where; removed by uninstall",
)
UNTRUSTED = Place(
    "untrusted",
    Scope.REPOSITORY,
    "trust",
    "the digest of committed linters held back, until the one line has said so",
    hooks=True,
)
UNTRUSTED_TOLD = Place(
    "untrusted-told", Scope.REPOSITORY, "trust", "the digest the one line last told of"
)
MOVED_TOLD = Place(
    "moved-told",
    Scope.REPOSITORY,
    "the hooks",
    "the line said once that the repository is not where landwatch was installed",
    hooks=True,
)
GONE_TOLD = Place(
    "gone-told",
    Scope.REPOSITORY,
    "the hooks",
    "the line said once that the entry point the hooks call is gone (landwatch removed)",
    hooks=True,
)
DISPLACED_TOLD = Place(
    "displaced-told",
    Scope.REPOSITORY,
    "the hooks",
    "the line said once that another hook manager moved landwatch's hooks aside",
    hooks=True,
)
HOOKS_PREPARED = Place(
    "hooks-prepared",
    Scope.REPOSITORY,
    "kinds.project_hooks",
    "the project hooks (tool and digest) whose environments were last built for this repository",
)
SWEEP_STATE = Place(
    "sweep.json",
    Scope.REPOSITORY,
    "daemon.sweep",
    "how far each reflog was read (inode, offset, time), so a pass reads only what is new",
    format=1,
)
SHARE_UNDO = Place(
    "share.json",
    Scope.REPOSITORY,
    "commands.share",
    "what `landwatch share` changed in the git config, so that `share --off` undoes exactly that",
    format=1,
)
SHARE_STATE = Place(
    "share-state.json",
    Scope.REPOSITORY,
    "kinds.share",
    "how the last push of the review notes went (when, to where, the error if it failed), and "
    "the notes held back for commits the remote does not hold yet",
)
SHARED_TAKEN = Place(
    "shared-taken",
    Scope.REPOSITORY,
    "sharing",
    "how many reviews were taken from teammates' notes instead of being made here (status)",
)
NOTES_LOCK = Place(
    "notes.lock",
    Scope.REPOSITORY,
    "sharing",
    "flock of every change to refs/notes/landwatch: a review's note written, the remote's merged",
)
ALLOWED = Place("allowed", Scope.REPOSITORY, "allowances", "a file per finding allowed", True)
REFUSED = Place(
    "refused.json",
    Scope.REPOSITORY,
    "push_gate",
    "the findings the last refused push named, so that `landwatch allow` takes a fingerprint "
    "the hook's own scan found in a commit not reviewed yet",
)
SAME_PLACE = Place(
    "same-place",
    Scope.REPOSITORY,
    "push_gate",
    "a line per remote whose fetch URL and push URL are spelled apart yet name one repository "
    "(push_remote.same_place said so), `NAME<tab>FETCH<tab>PUSH`: the pre-push hook's quick path "
    "reads its tracking refs without asking Python again",
    hooks=True,
)

REPOSITORY_PLACES = (
    SETTINGS_CACHE,
    REPORTS,
    BLOCKING,
    AWAITING,
    UNREAD,
    HELD,
    REPLACED,
    MAINTENANCE_AFTER,
    MAINTENANCE_RAN,
    STANDARDS,
    HOOK_STORE,
    HOOKS_DIR,
    MAIN_WORKTREE,
    UNTRUSTED,
    UNTRUSTED_TOLD,
    MOVED_TOLD,
    GONE_TOLD,
    DISPLACED_TOLD,
    HOOKS_PREPARED,
    SWEEP_STATE,
    SHARE_UNDO,
    SHARE_STATE,
    SHARED_TAKEN,
    NOTES_LOCK,
    ALLOWED,
    REFUSED,
    SAME_PLACE,
)

# --- the directories they are in ------------------------------------------------------------------


def work_dir(git_dir: os.PathLike[str] | str) -> Path:
    """The worktree's own directory: its queue and what is said about it."""
    return Path(git_dir) / WORK_DIRECTORY


def repository_dir(git_dir: os.PathLike[str] | str) -> Path:
    """The repository's directory, shared by its worktrees (the main worktree's work dir)."""
    return common_dir(git_dir) / WORK_DIRECTORY


def report_file(git_dir: os.PathLike[str] | str, commit: str) -> Path:
    """The stored review of `commit`."""
    return REPORTS.path(git_dir) / f"{commit}.json"


# How the name of what the project's hooks said of a commit ends, after the commit.
HOOKS_REPORT_SUFFIX = ".hooks.json"


def hooks_report_file(git_dir: os.PathLike[str] | str, commit: str) -> Path:
    """What the project's hooks said of `commit`, kept beside its review (report_store)."""
    return REPORTS.path(git_dir) / f"{commit}{HOOKS_REPORT_SUFFIX}"
