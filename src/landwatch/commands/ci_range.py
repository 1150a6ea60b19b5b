"""What `landwatch ci` reviews: the range RANGE names (else pre-commit's pre-push refs, else
HEAD's commits not on the remote's default branch) and its commits, oldest first; never a part
of it that a shallow clone holds, as if it were the whole.

Apart from commands.ci for its size: ci asks here what to review, then reviews it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pygit2

from landwatch.errors import UsageError, UserError
from landwatch.git import GitError, commit_of, git, run_git
from landwatch.review.change import open_repository
from landwatch.text import safe

# What to do where the clone lacks part of the range, said in the settings of the CIs that
# clone shallow by default.
FETCH_WHOLE = (
    "fetch the whole history (actions/checkout's fetch-depth: 0, GitLab's GIT_DEPTH: 0, or git "
    "fetch --unshallow)"
)


def range_of(cwd: Path, given: str | None, remote: str) -> tuple[str | None, str, str]:
    """(base, tip, label): what RANGE asks for; pre-commit's pre-push refs when it gives them;
    else HEAD's commits not on the remote's default branch. UsageError for a RANGE that is no
    range (exit 2), UserError for one that cannot be read here (exit 1)."""
    if (
        given is None
        and os.environ.get("PRE_COMMIT_FROM_REF")
        and os.environ.get("PRE_COMMIT_TO_REF")
    ):
        given = f"{os.environ['PRE_COMMIT_FROM_REF']}..{os.environ['PRE_COMMIT_TO_REF']}"
    if given is None:
        default = default_branch(cwd, remote)
        return _commit(cwd, default), _commit(cwd, "HEAD"), f"{default}..HEAD"
    if "..." in given:
        raise UsageError(f"{safe(given)!r}: a range is A..B (what B adds on top of A)")
    if ".." in given:
        base, _, tip = given.partition("..")
        if not base or not tip:
            raise UsageError(f"{safe(given)!r}: a range is A..B, both named")
        return _commit(cwd, base), _commit(cwd, tip), given
    return None, _commit(cwd, given), given


def _commit(cwd: Path, revision: str) -> str:
    found = commit_of(revision, cwd=cwd)
    if found is None:
        shallow = git("rev-parse", "--is-shallow-repository", cwd=cwd, check=False) == "true"
        said = f" (a shallow clone: {FETCH_WHOLE})" if shallow else ""
        raise GitError(f"no commit {safe(revision)!r} in this repository{said}")
    return found


def default_branch(cwd: Path, remote: str) -> str:
    """The remote's default branch as a remote-tracking ref at hand: its HEAD as the clone set
    it, else as the remote says, else main or master."""
    head = git("symbolic-ref", "-q", f"refs/remotes/{remote}/HEAD", cwd=cwd, check=False)
    names = [head] if head else []
    said = run_git("ls-remote", "--symref", "--", remote, "HEAD", cwd=cwd, timeout=30, network=True)
    for line in said.stdout.splitlines() if said.ok else []:
        if line.startswith("ref: refs/heads/") and line.endswith("\tHEAD"):
            branch = line[len("ref: refs/heads/") : -len("\tHEAD")]
            names.append(f"refs/remotes/{remote}/{branch}")
    names += [f"refs/remotes/{remote}/main", f"refs/remotes/{remote}/master"]
    for name in names:
        if commit_of(name, cwd=cwd) is not None:
            return name.removeprefix("refs/remotes/")
    raise UserError(
        f"cannot tell {safe(remote)}'s default branch here (fetch it, or name the range: "
        f"landwatch ci {safe(remote)}/main..HEAD)"
    )


def commits_of(git_dir: Path, base: str | None, tip: str) -> list[str]:
    """The commits of the range, oldest first, merges among them (each reviewed for what none
    of its parents has: what it brought in are commits of the range, or of the base). UserError
    when the clone lacks part of it (`_held_whole`)."""
    if base is None:
        listed = [tip]
    else:
        listing = ("rev-list", "--reverse", "--topo-order", tip, f"^{base}")
        listed = git(*listing, cwd=git_dir).split()
    _held_whole(git_dir, listed)
    return listed


def _held_whole(git_dir: Path, commits: list[str]) -> None:
    """UserError when one of `commits` is at a shallow clone's edge: git reads it as a root (the
    commit names parents it lacks), so it lists none of the range beyond, and the review reads
    the edge's whole tree as added by it."""
    repo = open_repository(git_dir)
    for oid in commits if repo.is_shallow else []:
        commit = repo[oid].peel(pygit2.Commit)
        if not commit.parent_ids and b"\nparent " in commit.read_raw().partition(b"\n\n")[0]:
            raise UserError(
                f"the range reaches past this shallow clone's history at {oid[:12]} (its parents "
                f"were not fetched): {FETCH_WHOLE}"
            )
