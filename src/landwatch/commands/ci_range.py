"""What `landwatch ci` reviews: the range RANGE names (else pre-commit's pre-push refs, else
HEAD's commits not on the remote's default branch) and its commits, oldest first.

Apart from commands.ci for its size: ci asks here what to review, then reviews it.
"""

from __future__ import annotations

import os
from pathlib import Path

from landwatch.errors import UsageError, UserError
from landwatch.git import GitError, commit_of, git, run_git
from landwatch.text import safe


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
        raise GitError(f"no commit {safe(revision)!r} in this repository")
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


def commits_of(cwd: Path, base: str | None, tip: str) -> tuple[list[str], int]:
    """The commits of the range, oldest first, merges left out (their commits are reviewed, as
    commits of the range); and how many merges there were."""
    if base is None:
        return [tip], 0
    listed = git("rev-list", "--reverse", "--topo-order", "--no-merges", tip, f"^{base}", cwd=cwd)
    merges = git("rev-list", "--count", "--merges", tip, f"^{base}", cwd=cwd)
    return listed.split(), int(merges or 0)
