"""What takes what refused a push out of it, as the exact commands the refusal prints: an amend,
an interactive rebase from before the oldest commit holding it, a tag written again or dropped.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from landwatch import push_gate
from landwatch.git import git
from landwatch.text import safe


def how_to_fix(git_dir: Path, holding: list[str], lines: str) -> list[str]:
    """The exact commands that take what refuses the push out of every commit holding it: an
    amend when that is the commit checked out alone, else an interactive rebase from before the
    oldest (on the branch pushed, switched to when it is not the one checked out)."""
    head = git("rev-parse", "--verify", "--quiet", "HEAD", cwd=git_dir, check=False)
    if holding == [head]:
        return ["To take it out: fix the file, then  git commit --amend -a  and push again."]
    base = push_gate.parent_of(git_dir, holding[0])
    rebase = f"git rebase -i {base[:12]}" if base else "git rebase -i --root"
    said = []
    branch = _branch_holding(git_dir, holding[-1], lines)
    current = git("symbolic-ref", "-q", "--short", "HEAD", cwd=git_dir, check=False)
    if branch and branch != current:
        said.append(f"To take it out of every commit that holds it, on {safe(branch)}:")
        said.append(f"  git switch {safe(branch)}")
    else:
        said.append("To take it out of every commit that holds it:")
    said.append(
        f"  {rebase}   (mark `edit` on {_listed(holding)}; at each stop fix the file, "
        "git commit --amend -a, git rebase --continue)"
    )
    return said


def how_to_retag(tag: str, ref: str) -> str:
    """The exact command that writes annotated tag `tag`, pushed from `ref`, again with another
    message (on the same object, so a tag of a tag becomes one tag)."""
    if not ref.startswith("refs/tags/"):
        return f"To take it out of tag {tag[:10]}: tag what it names again, with another message."
    name = safe(ref.removeprefix("refs/tags/"))
    return f"To take it out of tag {name}:  git tag -f -a {name} {name}^{{}}  (another message)"


def how_to_drop(oid: str, kind: str, ref: str) -> str:
    """What takes the blob or tree `oid`, pushed by `ref`, out of the push: no commit holds it,
    so the tag (or the ref) that sends it goes instead."""
    if not ref.startswith("refs/tags/"):
        return f"To take it out: leave {safe(ref)} out of the push ({kind} {oid[:10]} holds it)."
    name = safe(ref.removeprefix("refs/tags/"))
    return f"To take it out of tag {name}:  git tag -d {name}  (it names {kind} {oid[:10]})"


def _listed(commits: Iterable[str]) -> str:
    return ", ".join(commit[:10] for commit in commits)


def _branch_holding(git_dir: Path, commit: str, lines: str) -> str | None:
    """The first local branch pushed whose tip, as pushed, holds `commit`, by its short name.
    One git for every branch at once: one per branch took seconds for a push of thousands."""
    holding = git(
        *("for-each-ref", f"--contains={commit}", "--format=%(refname) %(objectname)"),
        "refs/heads/",
        cwd=git_dir,
        check=False,
    )
    tips = set(holding.splitlines())
    for pushed in push_gate.parse(lines):
        if not pushed.deletion and f"{pushed.local_ref} {pushed.local}" in tips:
            return pushed.local_ref.removeprefix("refs/heads/")
    return None
