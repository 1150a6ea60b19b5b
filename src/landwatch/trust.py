"""Which commands from repositories the person allowed: approvals of exact linter configurations
and the configuration files they are given (review.pinned), and of exact project hooks and the
files they execute (review.project_hooks.pin), kept per user (0600) and never in a repository, as
direnv's `allow` and mise's `trust` are.

A review runs under `policy(git_dir)`: the person's own linters always (given the repository's
configuration files only once approved), a repository's committed ones only once approved; a
changed configuration (a pull, a fetched branch) is a new one. The project's hooks run only when
`is_trusted` says their digest was approved.

Every write keeps what it cannot read as it was written (an approval of another shape, a newer
release's key); a file this release cannot read, or a newer one wrote, trusts nothing and is never
written over (layout.state): approving and withdrawing are refused in one line saying what to do.
"""

from __future__ import annotations

import contextlib
import functools
import os
import shlex
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from landwatch import layout, one_line
from landwatch.files import exclusive, private_directory, read_file, remove, write_atomic
from landwatch.one_line import HOOKS as HOOKS
from landwatch.one_line import LINTERS as LINTERS
from landwatch.one_line import TRUST_COMMAND, held_back_subject, held_back_tokens

if TYPE_CHECKING:  # the review (and pygit2) is imported only where it runs: the one line is light
    from collections.abc import Callable

    from landwatch.review.config import LinterConfig
    from landwatch.review.linters import LinterPolicy
    from landwatch.review.pinned import Pinned, PinnedFile
    from landwatch.review.project_hooks.pin import HooksPinned

# What an approval is of, a repository's committed linters or its project hooks, and the
# command that approves: spelled in one_line, whose lines a shell prompt prints without this.
COMMAND = TRUST_COMMAND
HOOKS_NOT_TRUSTED = (
    "the project's hooks did not run: the hooks this configuration runs, or the files they "
    f"execute, were not allowed here; `{COMMAND}` shows them and what changed, and allows them"
)


class Approval(NamedTuple):
    repository: str  # the real path of the repository's common git dir
    digest: str  # review.pinned's digest of what was approved
    commands: tuple[str, ...]  # what it runs, as shown when approved
    approved: float
    # The configuration files approved, (path, blob id or None when absent): to show what
    # changed since. Approvals written before files were pinned have none.
    files: tuple[tuple[str, str | None], ...] = ()
    subject: str = LINTERS  # what was approved: LINTERS or HOOKS
    # Each remote hook repository's rev as written, and the commit it named when approved
    # (landwatch.wall.project_hooks.revs): what runs, whatever the name points at later.
    revs: tuple[tuple[str, str, str], ...] = ()


def repository_key(git_dir: os.PathLike[str] | str) -> str:
    return str(layout.common_dir(git_dir).resolve())


def approvals() -> list[Approval]:
    """Every approval this release can read; none from a file it cannot read, or a newer one
    wrote (the safe side: nothing is trusted; doctor names the file)."""
    try:
        return [found for entry in _entries()[1] if (found := _approval(entry)) is not None]
    except layout.StateError:
        return []


def problem() -> layout.StateError | None:
    """What keeps this release from reading trust.json whole, or from writing it (a newer
    release's): doctor and `landwatch trust` name it; None when nothing does."""
    try:
        _entries()
    except layout.StateError as error:
        return error
    return None


def writable(doing: str) -> None:
    """StateError refusing `doing` where trust.json must not be written over: asked before the
    person is, so that no yes is lost."""
    if (found := problem()) is not None:
        raise found.refusing(doing)


def _entries() -> tuple[dict[str, Any], list[Any]]:
    """trust.json as kept, and its approvals as written, those this release cannot read among
    them: a write carries them over unchanged. StateError: not a file this release can write."""
    data = layout.read_state(layout.TRUST) or {}
    entries = data.get("approvals", [])
    if not isinstance(entries, list):
        raise layout.StateError(layout.TRUST.path(), "cannot be read (its approvals are no list)")
    return data, entries


def _approval(entry: Any) -> Approval | None:
    """One approval as kept; None for one this release cannot read (another's shape)."""
    try:
        return Approval(
            str(entry["repository"]),
            str(entry["digest"]),
            tuple(str(command) for command in entry["commands"]),
            float(entry["approved"]),
            tuple(_pinned_file(item) for item in entry.get("files", [])),
            str(entry.get("subject", LINTERS)),
            tuple(_rev(item) for item in entry.get("revs", [])),
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        return None


def _pinned_file(item: Any) -> tuple[str, str | None]:
    path, oid = item
    if not isinstance(path, str) or not (oid is None or isinstance(oid, str)):
        raise ValueError(f"not a pinned file: {item!r}")
    return path, oid


def _rev(item: Any) -> tuple[str, str, str]:
    url, rev, commit = item
    if not all(isinstance(part, str) for part in (url, rev, commit)):
        raise ValueError(f"not a resolved rev: {item!r}")
    return url, rev, commit


def _of(entry: Any, repository: str) -> bool:
    """Whether a kept approval, readable or not, is one of `repository`'s."""
    return isinstance(entry, dict) and entry.get("repository") == repository


def _changed(doing: str, change: Callable[[list[Any]], list[Any]]) -> int:
    """trust.json's approvals changed by `change` under its lock, every other entry and key kept
    as written; how many fewer there are. One this release cannot read or write is left as it
    is, and `doing` refused in one line (StateError) naming it and what to do."""
    with exclusive(layout.TRUST_LOCK.path()):
        try:
            data, entries = _entries()
        except layout.StateError as error:
            raise error.refusing(doing) from None
        kept = change(entries)
        if kept != entries:
            layout.write_state(layout.TRUST, {**data, "approvals": kept})
    return len(entries) - len(kept)


def is_trusted(git_dir: os.PathLike[str] | str, digest: str) -> bool:
    return approval_of(git_dir, digest) is not None


def approval_of(git_dir: os.PathLike[str] | str, digest: str) -> Approval | None:
    """The approval of `digest` in this repository, if the person gave one."""
    key = repository_key(git_dir)
    return next((a for a in approvals() if a.repository == key and a.digest == digest), None)


def describe(linters: list[LinterConfig]) -> tuple[str, ...]:
    """What each linter runs, on which files, for how long, and what else it reads: a line each,
    as `landwatch trust` shows it and an approval keeps it."""
    return tuple(
        f"{linter.name}: {shlex.join(linter.command)}  [on {' '.join(linter.files)}; at most "
        f"{linter.timeout:g} s"
        + (f"; reads {', '.join(linter.config)}" if linter.config else "")
        + "]"
        for linter in linters
    )


def last_approval(git_dir: os.PathLike[str] | str, subject: str = LINTERS) -> Approval | None:
    """The latest approval of `subject` given in this repository: what a new one is shown
    against."""
    key = repository_key(git_dir)
    mine = [a for a in approvals() if a.repository == key and a.subject == subject]
    return max(mine, key=lambda approval: approval.approved, default=None)


def approve(git_dir: os.PathLike[str] | str, pinned: Pinned) -> Approval:
    """Trust exactly these linters and configuration files in this repository (kept beside
    earlier approvals, so a configuration trusted before that comes back is trusted)."""
    commands = describe(list(pinned.linters))
    return _approve(git_dir, LINTERS, pinned.digest, commands, pinned.files)


def approve_hooks(
    git_dir: os.PathLike[str] | str,
    pinned: HooksPinned,
    revs: tuple[tuple[str, str, str], ...] = (),
) -> Approval:
    """Trust exactly these project hooks and the files pinned with them in this repository,
    each remote's rev held to the commit `revs` resolved it to."""
    return _approve(git_dir, HOOKS, pinned.digest, pinned.commands(), pinned.files, revs)


def _approve(
    git_dir: os.PathLike[str] | str,
    subject: str,
    digest: str,
    commands: tuple[str, ...],
    pinned_files: tuple[PinnedFile, ...],
    revs: tuple[tuple[str, str, str], ...] = (),
) -> Approval:
    key = repository_key(git_dir)
    files = tuple((file.path, file.oid) for file in pinned_files)
    approval = Approval(key, digest, commands, time.time(), files, subject, revs)

    def approving(entries: list[Any]) -> list[Any]:
        kept = [e for e in entries if not (_of(e, key) and e.get("digest") == approval.digest)]
        return [*kept, approval._asdict()]

    _changed("nothing was approved", approving)
    with contextlib.suppress(OSError):
        remove(layout.UNTRUSTED.path(git_dir), trusted=layout.common_dir(git_dir))
    return approval


def revoke(git_dir: os.PathLike[str] | str) -> int:
    """Withdraw every approval of this repository; how many there were."""
    key = repository_key(git_dir)
    doing = "nothing trusted here was withdrawn"
    return _changed(doing, lambda entries: [e for e in entries if not _of(e, key)])


def own_linters() -> tuple[tuple[LinterConfig, ...], tuple[str, ...]]:
    """The person's own linters (<config>/config.toml), and what is wrong with that file."""
    from landwatch.review.config import ConfigError, parse_linters

    path = layout.OWN_CONFIG.path()
    try:
        data = read_file(path, trusted=None)
    except FileNotFoundError:
        return (), ()
    except OSError as error:
        return (), (f"{path}: {error}",)
    import tomllib  # 3 ms: only where the person has a configuration

    try:
        document = tomllib.loads(data.decode("utf-8"))
        return tuple(parse_linters(document, str(path))), ()
    except (UnicodeDecodeError, tomllib.TOMLDecodeError, ConfigError) as error:
        return (), (f"{path}: {error}",)


def policy(git_dir: os.PathLike[str] | str) -> LinterPolicy:
    """What a review of this repository may run; its wall is chosen (`walled`) only when a
    linter is to run, once however many commits the policy serves."""
    from landwatch.review.linters import LinterPolicy

    own, problems = own_linters()

    def vet(digest: str) -> str | None:
        if is_trusted(git_dir, digest):
            return None
        return (
            "linters not run: the commands this configuration asks to run, or the "
            f"configuration files they are given, were not allowed here; `{COMMAND}` shows "
            "them and what changed, and allows them"
        )

    undecided = LinterPolicy(own=own, vet=vet, problems=problems)
    return undecided._replace(decide=functools.cache(lambda: walled(git_dir, undecided)))


def walled(git_dir: os.PathLike[str] | str, undecided: LinterPolicy) -> LinterPolicy:
    """`undecided` with the wall `landwatch.sandbox` and PATH give, its runner, and the private
    place linters' workspaces are made in."""
    from landwatch.wall.door import Wall, choose
    from landwatch.wall.linters import runner

    try:
        scratch: Path | None = private_directory(layout.LINTING.path(), trusted=None)
    except OSError:
        scratch = None  # the system's temporary directory, rather than no review
    wall, said = choose(
        layout.sandbox_asked(layout.read_git_settings(git_dir)), os.environ.get("PATH")
    )
    # With no wall, the person's own linters still run, given nothing of the repository but
    # the file they lint: what the repository wrote (its linters, their configuration) does not.
    walled_off = None if wall is not None else f"linters of this repository not run: {said}"
    return undecided._replace(
        scratch=scratch,
        sandboxed=wall is not None and wall.sandbox is not None,
        runner=runner(wall or Wall(None, said)),
        walled_off=walled_off,
    )


def held_back(git_dir: os.PathLike[str] | str, digest: str, subject: str = LINTERS) -> None:
    """A review held back these committed linters (or the project's hooks, `subject`): have
    the one line say so, once per digest."""
    common = layout.common_dir(git_dir)
    token = _token(subject, digest)
    with exclusive(layout.TRUST_LOCK.path()):
        if token in held_back_tokens(layout.UNTRUSTED_TOLD.path(git_dir), trusted=common):
            return
        waiting = held_back_tokens(layout.UNTRUSTED.path(git_dir), trusted=common)
        kept = [each for each in waiting if held_back_subject(each) != subject]
        text = "".join(f"{each}\n" for each in [*kept, token])
        write_atomic(layout.UNTRUSTED.path(git_dir), text, trusted=common, durable=False)


def held_back_subjects(git_dir: os.PathLike[str] | str) -> list[str]:
    """What the one line has to tell was held back for want of trust: LINTERS, HOOKS."""
    waiting = held_back_tokens(layout.UNTRUSTED.path(git_dir), trusted=layout.common_dir(git_dir))
    return one_line.held_back_subjects(waiting)


def mark_told(git_dir: os.PathLike[str] | str) -> None:
    """The one line told of what was held back: not again until it changes."""
    common = layout.common_dir(git_dir)
    with exclusive(layout.TRUST_LOCK.path()):
        waiting = held_back_tokens(layout.UNTRUSTED.path(git_dir), trusted=common)
        if not waiting:
            return
        told = held_back_tokens(layout.UNTRUSTED_TOLD.path(git_dir), trusted=common)
        subjects = {held_back_subject(each) for each in waiting}
        kept = [each for each in told if held_back_subject(each) not in subjects]
        text = "".join(f"{each}\n" for each in [*kept, *waiting])
        write_atomic(layout.UNTRUSTED_TOLD.path(git_dir), text, trusted=common)
        remove(layout.UNTRUSTED.path(git_dir), trusted=common)


def _token(subject: str, digest: str) -> str:
    """A held-back digest as its file keeps it: a linters' alone (as before hooks were), a
    hooks' after its subject."""
    return digest if subject == LINTERS else f"{subject} {digest}"


def forget(git_dir: os.PathLike[str] | str) -> int:
    """Nothing left to tell, and everything trusted here withdrawn (uninstall; StateError where
    trust.json must not be written over)."""
    common = layout.common_dir(git_dir)
    for path in (layout.UNTRUSTED.path(git_dir), layout.UNTRUSTED_TOLD.path(git_dir)):
        with contextlib.suppress(OSError):
            remove(path, trusted=common)
    return revoke(git_dir)


def committed_hooks(git_dir: Path) -> HooksPinned | None:
    """What trusting the project hooks declared at HEAD would pin; None when it declares none."""
    from landwatch.review.change import open_repository, resolve
    from landwatch.review.project_hooks.pin import pin_hooks

    repo = open_repository(git_dir)
    return pin_hooks(repo, resolve(repo, "HEAD").tree)


def committed(git_dir: Path) -> tuple[str, Pinned]:
    """(where the linters are configured, what trust would pin) at HEAD."""
    from landwatch.review.change import open_repository, resolve
    from landwatch.review.config import read_config
    from landwatch.review.pinned import pin

    repo = open_repository(git_dir)
    tree = resolve(repo, "HEAD").tree
    config = read_config(tree, repo)
    return config.source, pin(repo, tree, config.linters)
