"""Where `landwatch ci` keeps the compiled secret rules for a CI cache step to keep between jobs,
and where it must not: a place the repository commits files in, or reaches through its links."""

from __future__ import annotations

import os
from pathlib import Path

from landwatch.git import toplevel, tracked_in
from landwatch.text import safe


def secret_rules_kept(cwd: Path) -> str:
    """Where the compiled secret rules are kept, said for a CI cache step. A place in the checkout
    holding files the repository commits is its to forge, digests and all: not used, said why."""
    from landwatch.review.secrets import rule_cache

    where = rule_cache.directory()
    if where is None:
        return ""
    why = ""
    if tracked_in(Path(where), cwd=cwd) or tracked_in(Path(where).resolve(), cwd=cwd):
        why = "holds files this repository commits"
    elif _through_a_link(Path(where), toplevel(cwd)):
        why = "is reached through a link in the checkout, which the repository may commit"
    elif (cannot := rule_cache.unusable(where)) is not None:  # said once, here (an audit)
        why = f"cannot keep the secret rules ({cannot})"
    if why:
        os.environ[rule_cache.DIRECTORY_VARIABLE] = ""  # compiled in memory
        return f"landwatch ci: {safe(where)} {why}: not used"
    return f"landwatch ci: secret rules cached in {where} (keep it between jobs)"


def _through_a_link(where: Path, top: Path | None) -> bool:
    """Whether the way to `where` goes through a link in the checkout `top`: each link met is
    read and followed, its own target's links too, and one whose directory is in the checkout
    counts (audits: `git ls-files` sees nothing past a committed link, nor did a comparison of
    paths as spelt, nor a runner's link leading into the checkout, nor a `//` spelling)."""
    if top is None:
        return False
    root = Path("/")  # `//` is `/` to Linux, never to a comparison of paths
    checkout = root.joinpath(*top.resolve().parts[1:])
    at, ahead, hops = root, list(where.parts[1:]), 0
    while ahead:
        part = ahead.pop(0)
        if part == "..":
            at = at.parent
            continue
        try:
            linked = (at / part).is_symlink()
        except OSError:  # a name too long: the cache is refused where it is made (unusable)
            return False
        if not linked:
            at = at / part  # no link on the way to `at`: its spelling is its place
            continue
        hops += 1
        if hops > 40 or at == checkout or checkout in at.parents:
            return True  # a loop, or a link in the checkout
        target = Path(os.readlink(at / part))
        if target.is_absolute():
            at, ahead = root, list(target.parts[1:]) + ahead
        else:
            ahead = list(target.parts) + ahead
    return False
