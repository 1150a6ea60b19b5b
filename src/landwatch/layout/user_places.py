"""Every file and directory landwatch keeps per user, in the person's own directories
(platformdirs: XDG on Linux, ~/Library on macOS): each a `Place` (layout.places) named once, with
its owner and purpose, and the one per installation; the worktree's and the repository's are in
layout.places.
"""

from __future__ import annotations

from pathlib import Path

from landwatch import user_dirs
from landwatch.layout.places import Place, Scope, user_root

# The stable per-user command the hooks call when they have something to say.
ENTRY_POINT = Place("<data>/bin/landwatch", Scope.USER, "install", "the entry point the hooks call")
REGISTRY = Place("<config>/repositories", Scope.USER, "registry", "the repositories drained")
REGISTRY_LOCK = Place(
    "<config>/repositories.lock", Scope.USER, "registry", "flock of registry changes"
)
# Here, not only in $XDG_RUNTIME_DIR (daemon.lock takes that one first): an environment without
# it (cron, some GUI sessions) would find no reviewer there and start a second one.
REVIEWER_LOCK = Place(
    "<state>/run/reviewer.lock", Scope.USER, "daemon", "flock held by the running reviewer"
)
REVIEWER_STATE = Place(
    "<state>/run/reviewer.json", Scope.USER, "daemon", "what the reviewer is doing"
)
REVIEWER_LOG = Place("<state>/reviewer.log", Scope.USER, "daemon", "the reviewer's log (rotated)")
OWN_CONFIG = Place("<config>/config.toml", Scope.USER, "the person", "their own linters, trusted")
TRUST = Place("<state>/trust.json", Scope.USER, "trust", "approvals of committed linters", format=1)
NOTIFIED = Place(
    "<state>/notified.json", Scope.USER, "notify", "when the last notifications were sent"
)
TRUST_LOCK = Place("<state>/trust.lock", Scope.USER, "trust", "flock of trust changes")
INSTALL_LOCK = Place(
    "<state>/install.lock",
    Scope.USER,
    "install, uninstall",
    "flock held by each install and uninstall while it changes a repository: one at a time",
)
WORK_KEY = Place(
    "<state>/work-key", Scope.USER, "registry", "the key of the marks on work directories"
)
# A linter looks for its configuration in the directories above its own too: above these, only
# the person's directories, never a /tmp other users write to.
LINTING = Place(
    "<state>/run/linting", Scope.USER, "wall.workspace", "the linters' workspaces", True
)
# The landed commits' content the project's hooks run on, one private repository per run.
HOOK_RUNS = Place(
    "<state>/run/hooks",
    Scope.USER,
    "kinds.project_hooks",
    "where the project's hooks run: a sparse checkout of each landed commit, removed after",
    True,
)
# The environments the project's hooks are built into, behind the wall: one store per repository
# (what one repository's build writes, no other's hooks run), never the person's own store,
# which their own pre-commit and prek run from outside it.
HOOK_ENVS = Place(
    "<cache>/hook-envs",
    Scope.USER,
    "kinds.project_hooks",
    "the project hooks' environments, a store per repository, apart from your own",
    True,
)
# Not kingfisher's own cache (~/.cache/kingfisher): a repository's environment build could write
# there. The front door hands the review this path (review.secrets.rule_cache).
SECRET_RULES = Place(
    "<state>/secret-rules",
    Scope.USER,
    "review.secrets.rule_cache",
    "kingfisher's compiled secret rules and the SHA-256 of each file, recorded when compiled",
    True,
)
USER_PLACES = (
    ENTRY_POINT,
    REGISTRY,
    REGISTRY_LOCK,
    REVIEWER_LOCK,
    REVIEWER_STATE,
    REVIEWER_LOG,
    OWN_CONFIG,
    TRUST,
    NOTIFIED,
    TRUST_LOCK,
    INSTALL_LOCK,
    WORK_KEY,
    LINTING,
    HOOK_RUNS,
    HOOK_ENVS,
    SECRET_RULES,
)

# --- per installation: sys.prefix, where no repository reaches ---------------------------------

USER_DIRECTORIES = Place(
    user_dirs.KEPT,
    Scope.INSTALLATION,
    "user_dirs",
    "`<crc32>`: the person's landwatch directories (data, configuration, state, cache) as "
    "platformdirs resolved them, after the uid, platform, release, HOME and XDG directories they "
    "came from (whose CRC-32 names the file); kept only in a virtual environment the person owns",
    directory=True,
)
INSTALLATION_PLACES = (USER_DIRECTORIES,)


def data_dir() -> Path:
    return user_root("<data>")


def config_dir() -> Path:
    return user_root("<config>")


def state_dir() -> Path:
    return user_root("<state>")


def cache_dir() -> Path:
    return user_root("<cache>")
