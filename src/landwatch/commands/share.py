"""`landwatch share [REMOTE]`, `landwatch share --off`: a repository's reviews shared with the team
through a remote, as git notes (landwatch.sharing), and that undone exactly.

Sharing is three lines of the repository's git config: `landwatch.share.remote`, a fetch
refspec that brings the remote's notes into a remote-tracking notes ref, and a negative one that
leaves out the refs below them (sharing.fetch_refspecs). What `share` changed is recorded (the
config file's bytes before and after), so `--off` puts the file back byte for byte when nothing
else changed it since, and otherwise removes exactly those lines.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from landwatch import layout, registry, sharing, work_item
from landwatch.errors import UsageError, UserError
from landwatch.files import remove
from landwatch.git import common_dir_of, git, git_dir_of, run_git
from landwatch.git import version as git_version
from landwatch.review.notes import NOTES_REF
from landwatch.text import safe
from landwatch.work_item import WorkItem, WorkKind

SHARE_KEY = layout.SHARE_REMOTE.name


def default_remote(cwd: Path) -> str:
    """The remote of the branch's upstream, else origin."""
    branch = git("symbolic-ref", "-q", "--short", "HEAD", cwd=cwd, check=False)
    if branch:
        remote = git("config", "--get", f"branch.{branch}.remote", cwd=cwd, check=False)
        if remote and remote != ".":
            return remote
    return "origin"


def share(cwd: Path, *, remote: str | None, off: bool, out: TextIO | None = None) -> int:
    out = sys.stdout if out is None else out
    common = common_dir_of(cwd)
    if off:
        if remote is not None:
            raise UsageError("--off takes no REMOTE")
        return _off(cwd, common, out)
    if not layout.repository_dir(common).is_dir() or common.resolve() not in registry.registered():
        raise UserError("landwatch is not installed here: landwatch install, then landwatch share")
    return _on(cwd, common, remote or default_remote(cwd), out)


def _on(cwd: Path, common: Path, remote: str, out: TextIO) -> int:
    if not run_git("remote", "get-url", "--", remote, cwd=cwd).ok:
        raise UserError(f"no remote named {safe(remote)!r} here (git remote -v lists them)")
    tracking = sharing.tracking_ref(remote)
    if not run_git("check-ref-format", tracking, cwd=cwd).ok:
        raise UserError(f"{safe(remote)!r} cannot name a notes ref ({safe(tracking)})")
    record = _record(common, "sharing was not turned on")
    if record is not None:
        shared_with = str(record.get("remote"))
        if shared_with != remote:
            raise UserError(
                f"sharing with {safe(shared_with)} already: landwatch share --off first"
            )
        mended = _mended(cwd, common, remote, record)
        print(f"landwatch: sharing with {safe(remote)} already{mended}", file=out)
        return 0
    config = _config_file(common)
    before = config.read_bytes()
    previous = git("config", "--get-all", SHARE_KEY, cwd=cwd, check=False)
    tracked = git("rev-parse", "-q", "--verify", tracking, cwd=cwd, check=False)
    git("config", "--replace-all", SHARE_KEY, remote, cwd=cwd)
    refspecs = sharing.fetch_refspecs(remote)
    added = _add_refspecs(cwd, remote)
    record = {
        "remote": remote,
        "before": base64.b64encode(before).decode(),
        "after": _digest(config),
        "previous": previous.splitlines(),
        "refspec_added": refspecs[0] in added,
        "exclusion_added": sharing.EXCLUDED in added,
        "tracking_before": tracked or None,
    }
    layout.write_state(layout.SHARE_UNDO, record, common)
    _push_what_is_there(cwd)
    print(
        f"landwatch: sharing reviews with {safe(remote)}: each review is a note under "
        f"{NOTES_REF}, pushed there in the background, and every fetch of {safe(remote)} "
        f"brings its notes ({safe(tracking)}); landwatch share --off undoes it"
        f"{_unguarded(refspecs)}",
        file=out,
    )
    return 0


def _unguarded(refspecs: tuple[str, ...]) -> str:
    """What a git too old for sharing's negative refspec leaves open, said; "" where it is in."""
    if sharing.EXCLUDED in refspecs:
        return ""
    here = ".".join(str(part) for part in git_version()) or "here"
    return (
        f"; git {here} reads no negative refspec, so a ref pushed below {NOTES_REF} can fail "
        f"a fetch of it (git {'.'.join(map(str, sharing.NEGATIVE_REFSPECS))} leaves them out)"
    )


def _mended(cwd: Path, common: Path, remote: str, record: dict[str, Any]) -> str:
    """What of sharing's lines went missing since share put back (doctor's mends): the setting
    (unset by hand, a config restored: nothing was shared), a fetch refspec, or the
    negative one a share before it did not add; each recorded as share's, for --off. Said."""
    config = _config_file(common)
    as_left = _digest(config) == record.get("after")  # nothing else changed since share
    said = []
    setting = git("config", "--get", SHARE_KEY, cwd=cwd, check=False)
    if setting != remote:
        git("config", "--replace-all", SHARE_KEY, remote, cwd=cwd)
        was = f"was {safe(setting)!r}" if setting else "was not set"
        said.append(f"{SHARE_KEY} {was}, set to {safe(remote)} again")
    pattern = sharing.fetch_refspecs(remote)[0]
    added = _add_refspecs(cwd, remote)
    if pattern in added:
        said.append(f"its fetch refspec was missing, added again: {pattern}")
    if sharing.EXCLUDED in added:
        said.append(f"added {sharing.EXCLUDED}: a ref pushed below {NOTES_REF} fails no fetch")
    if not said:
        return ""
    record["refspec_added"] = bool(record.get("refspec_added")) or pattern in added
    record["exclusion_added"] = bool(record.get("exclusion_added")) or sharing.EXCLUDED in added
    if as_left:
        record["after"] = _digest(config)  # --off can still put the file back byte for byte
    layout.write_state(layout.SHARE_UNDO, record, common)
    return "; " + "; ".join(said)


def _add_refspecs(cwd: Path, remote: str) -> list[str]:
    """Sharing's fetch refspecs added to `remote`'s where they are not; those added."""
    fetched = git("config", "--get-all", f"remote.{remote}.fetch", cwd=cwd, check=False)
    added = [r for r in sharing.fetch_refspecs(remote) if r not in fetched.splitlines()]
    for refspec in added:
        git("config", "--add", f"remote.{remote}.fetch", refspec, cwd=cwd)
    return added


def _digest(config: Path) -> str:
    return hashlib.sha256(config.read_bytes()).hexdigest()


def _push_what_is_there(cwd: Path) -> None:
    """Notes written before sharing was on go with the first push: one share item now."""
    head = git("rev-parse", "-q", "--verify", "HEAD^{commit}", cwd=cwd, check=False)
    if head and run_git("rev-parse", "-q", "--verify", NOTES_REF, cwd=cwd).ok:
        work_item.enqueue(WorkItem(WorkKind.SHARE, head, git_dir_of(cwd)))


def _off(cwd: Path, common: Path, out: TextIO) -> int:
    record = _record(common, "sharing was not turned off")
    if record is None:
        if git("config", "--get", SHARE_KEY, cwd=cwd, check=False):
            raise UserError(
                f"{SHARE_KEY} was not set by landwatch share: git config --unset {SHARE_KEY}"
            )
        print("landwatch: sharing is not on here", file=out)
        return 0
    remote = str(record["remote"])
    config = _config_file(common)
    if _digest(config) == record.get("after"):
        _restore(config, base64.b64decode(str(record["before"])))
        how = "the git config is back as it was, byte for byte"
    else:
        _unset(cwd, remote, record)
        how = (
            "the git config changed since share, so only what share added was taken out "
            f"({SHARE_KEY}, the fetch refspecs)"
        )
    if not record.get("tracking_before"):
        run_git("update-ref", "-d", sharing.tracking_ref(remote), cwd=cwd)
    for place in (layout.SHARE_UNDO, layout.SHARE_STATE):
        with contextlib.suppress(OSError):
            remove(place.path(common), trusted=common)
    print(
        f"landwatch: sharing with {safe(remote)} is off: {how}; the notes written here stay "
        f"under {NOTES_REF} (git update-ref -d {NOTES_REF} removes them)",
        file=out,
    )
    return 0


def _unset(cwd: Path, remote: str, record: dict[str, Any]) -> None:
    """What share added taken out line by line, what it replaced put back."""
    run_git("config", "--unset-all", SHARE_KEY, cwd=cwd)
    for value in record.get("previous") or []:
        git("config", "--add", SHARE_KEY, str(value), cwd=cwd)
    pattern = sharing.fetch_refspecs(remote)[0]
    for refspec, added in ((pattern, "refspec_added"), (sharing.EXCLUDED, "exclusion_added")):
        if record.get(added):
            key = f"remote.{remote}.fetch"
            run_git("config", "--fixed-value", "--unset", key, refspec, cwd=cwd)


def _restore(config: Path, before: bytes) -> None:
    """`before` written over the config file as git writes it: through config.lock, created
    exclusively (a git writing the config now makes this fail, and nothing is lost), renamed."""
    lock = config.with_name(config.name + ".lock")
    mode = config.stat().st_mode & 0o7777
    try:
        fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode)
    except FileExistsError:
        raise UserError(f"{lock} exists: git is writing the config; try again") from None
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(before)
            file.flush()
            os.fsync(file.fileno())
        os.chmod(lock, mode)
        os.replace(lock, config)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(lock)
        raise


def _config_file(common: Path) -> Path:
    return common / "config"


def _record(common: Path, doing: str) -> dict[str, Any] | None:
    """What share changed, as it recorded it; None when sharing was not turned on by it. A
    record this release cannot read, or a newer one wrote, refuses `doing` (StateError): what it
    holds is what undoes sharing."""
    try:
        data = layout.read_state(layout.SHARE_UNDO, common)
    except layout.StateError as error:
        raise error.refusing(doing) from None
    if data is not None and "remote" not in data:
        why = "cannot be read (it names no remote)"
        raise layout.StateError(layout.SHARE_UNDO.path(common), why).refusing(doing)
    return data


def shared_remote(common: Path) -> str | None:
    """The remote sharing was turned on with here (uninstall, doctor), if it was; None too where its
    record cannot be read (doctor names it)."""
    try:
        record = _record(common, "")
    except layout.StateError:
        return None
    return str(record["remote"]) if record is not None else None
