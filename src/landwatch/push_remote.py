"""What a push's remote holds, as this repository can tell without asking it: the remotes at a
URL, their own tracking refs, and whether those stand for the push's destination (fetched from
the same place, agreeing with what it says it holds); the same place remembered for the hook;
the commits at a remote's own tracking refs where they stand for it (the share kind's notes);
where a push of a branch goes, as the person's own `git push` would send it (auto-push's).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Collection, Mapping
from typing import NamedTuple

from landwatch import layout
from landwatch.files import read_file, write_atomic
from landwatch.git import GitError, git, run_git

# The remotes remembered as one place under two spellings (fetch and push URL), at most.
MOST_REMEMBERED = 64


def tracking_ref(remote: str, target: str) -> str | None:
    """The tracking ref of `remote`'s branch `target` (refs/heads/X), where git keeps it; none
    where that is no ref's name: a URL or a path pushed to, of which git keeps none
    (`refs/remotes/https://h/x/main`, which git refused at every question)."""
    ref = f"refs/remotes/{remote}/{target.removeprefix('refs/heads/')}"
    return ref if layout.is_ref_name(ref) else None


def is_url(remote: str) -> bool:
    """Whether `remote` is a URL or a path git pushes to, not a remote's name; never one that
    starts with `-`, which git would read as an option."""
    if remote.startswith("-"):
        return False
    return any(mark in remote for mark in (":", "/", "\\")) or remote in (".", "..")


def push_urls(git_dir: os.PathLike[str] | str, remote: str) -> list[str]:
    """Each place `git push remote` sends to, each asked what it holds: the remote's push URLs,
    else its URL (`get-url --push --all`); a URL is its own; none where git names none."""
    if is_url(remote):
        return [rewritten(git_dir, remote, push=True)]
    said = run_git("remote", "get-url", "--push", "--all", "--", remote, cwd=git_dir)
    return said.stdout.splitlines() if said.ok else []


def rewritten(git_dir: os.PathLike[str] | str, url: str, *, push: bool) -> str:
    """`url` as git sends to it (remote.c): a push, by the longest `url.<base>.pushInsteadOf` it
    starts with, else as any asking, by the longest `insteadOf` (audits: a URL redirected to a
    public mirror was asked as itself, and the mirror sent what the other held). A tie goes to
    the base the configuration names first, as git's list of rewrites holds them."""
    rewrites = r"^url\..*\.(pushinsteadof|insteadof)$"
    said = run_git("config", "-z", "--get-regexp", rewrites, cwd=git_dir)
    bases: dict[str, int] = {}
    rules: dict[str, list[tuple[int, str, str]]] = {"pushinsteadof": [], "insteadof": []}
    for entry in said.stdout.split("\0") if said.ok else []:
        key, _, prefix = entry.partition("\n")
        base, _, kind = key.removeprefix("url.").rpartition(".")
        if key.startswith("url.") and kind in rules and prefix:
            rules[kind].append((bases.setdefault(base, len(bases)), prefix, base))
    for kind in ("pushinsteadof", "insteadof")[0 if push else 1 :]:
        matching = [rule for rule in rules[kind] if url.startswith(rule[1])]
        if matching:
            _, prefix, base = min(matching, key=lambda rule: (-len(rule[1]), rule[0]))
            return base + url[len(prefix) :]
    return url


def remotes_at(git_dir: os.PathLike[str] | str, url: str) -> list[str]:
    """The remotes named in the configuration whose URL is `url` (a push given a URL)."""
    listing = git("config", "--get-regexp", r"^remote\..*\.url$", cwd=git_dir, check=False)
    names = []
    for line in listing.splitlines():
        key, _, value = line.partition(" ")
        if value == url:
            names.append(key.removeprefix("remote.").removesuffix(".url"))
    return names


def own_tracking(name: str, remotes: list[str]) -> list[str]:
    """rev-list's arguments naming remote `name`'s own tracking refs, of the configured `remotes`:
    `--remotes=pub` takes a remote pub/internal's too, excluded here (relative to refs/remotes/,
    as git matches them there); none for corp/public beside corp, whose public/* are there too."""
    if any(name.startswith(f"{other}/") for other in remotes):
        return []
    nested = [f"--exclude={other}/*" for other in remotes if other.startswith(f"{name}/")]
    return [*nested, f"--remotes={name}"]


def tracking_stands(
    git_dir: os.PathLike[str] | str, name: str, destination: str, held_at: Mapping[str, str]
) -> bool:
    """Whether remote `name`'s tracking refs can stand for what the push's `destination` holds:
    they are fetched from there, and agree with what it says it holds at each branch pushed
    (`held_at`: the commit at each remote ref, as pre-push's stdin says it). A
    push URL elsewhere, a `git remote set-url` since the last fetch (a private history pushed to
    a new public repository), a branch deleted there: they are another place's, and unread."""
    fetched = git("remote", "get-url", "--", name, cwd=git_dir, check=False)
    if not fetched or not same_place(fetched, destination):
        return False
    prefix = f"refs/remotes/{name}/"
    listing = git("for-each-ref", "--format=%(refname) %(objectname)", prefix, cwd=git_dir)
    tracking = dict(line.partition(" ")[::2] for line in listing.splitlines())
    for ref, held in held_at.items():
        if ref.startswith("refs/heads/"):
            said = tracking.get(prefix + ref.removeprefix("refs/heads/"))
            if said is not None and said != held:
                return False
    if fetched != destination:
        with contextlib.suppress(OSError):  # remembered for speed alone: Python is asked again
            remember_same_place(git_dir, name, fetched, destination)
    return True


def own_tips(git_dir: os.PathLike[str] | str, name: str) -> list[str]:
    """The commits at remote `name`'s own tracking refs (own_tracking), where they stand for where
    it is pushed to (tracking_stands, nothing pushed to agree with); none else, nor for a URL."""
    remotes = git("remote", cwd=git_dir, check=False).splitlines()
    own = own_tracking(name, remotes) if name in remotes else []
    if not own:
        return []
    destination = git("remote", "get-url", "--push", "--", name, cwd=git_dir, check=False)
    try:
        if not destination or not tracking_stands(git_dir, name, destination, {}):
            return []
    except GitError:  # tracking refs unreadable tell nothing of what the remote holds
        return []
    listed = run_git("rev-parse", *own, cwd=git_dir)
    return sorted(set(listed.stdout.split())) if listed.ok else []


def remember_same_place(
    git_dir: os.PathLike[str] | str, name: str, fetched: str, pushed_to: str
) -> None:
    """Remote `name` fetched from `fetched` and pushed to `pushed_to`, one place (same_place),
    written where the pre-push hook's quick path reads it: a push URL spelled apart from the
    fetch URL (pushurl, pushInsteadOf) then starts no Python when there is nothing to say."""
    line = f"{name}\t{fetched}\t{pushed_to}"
    if any(char in line for char in "\n\0") or not same_place(fetched, pushed_to):
        return
    common = layout.common_dir(git_dir)
    place = layout.SAME_PLACE.path(git_dir)
    try:
        known = read_file(place, trusted=common).decode("utf-8", "replace").splitlines()
    except FileNotFoundError:
        known = []
    if line in known:
        return
    kept = [*known, line][-MOST_REMEMBERED:]
    write_atomic(place, "".join(f"{each}\n" for each in kept), trusted=common)


def same_place(one: str, other: str) -> bool:
    """Whether two URLs name one repository, as git writes them either way (`git@host:a/b.git`,
    `ssh://git@host:22/a/b`, `https://host/a/b/`; a path and its `file://` URL)."""
    return _place(one) == _place(other)


# The port each scheme git speaks reaches when a URL names none: naming it is naming none.
_DEFAULT_PORTS = {"ssh": 22, "git+ssh": 22, "ssh+git": 22, "https": 443, "http": 80, "git": 9418}


def _place(url: str) -> tuple[str, str]:
    """(host, path) of a URL, the host with a port other than its scheme's own, the path without
    a trailing `/` or `.git` (hosts serve both); a local one's host empty, its path resolved and
    kept whole: `/srv/p` and `/srv/p.git` are two directories."""
    from urllib.parse import urlsplit

    host, path = "", url
    if "://" in url:
        split = urlsplit(url)
        host, path = (split.hostname or "").lower(), split.path
        try:
            port = split.port
        except ValueError:  # no number: kept as written, one place with that spelling alone
            host = split.netloc.rpartition("@")[2].lower()
            port = None
        if port is not None and port != _DEFAULT_PORTS.get(split.scheme.lower()):
            host = f"{host}:{port}"
        if split.scheme == "file":
            host = ""
    elif ":" in url.partition("/")[0]:  # scp's `[user@]host:path`, always ssh's own port
        login, _, path = url.partition(":")
        host = login.rpartition("@")[2].lower()
    if not host:
        return host, os.path.realpath(path)
    return host, path.rstrip("/").removesuffix(".git").lstrip("/")


class Destination(NamedTuple):
    """Where auto-push sends a branch: `ref`, a branch of the remote; or nowhere, `what` saying why,
    `how` what to do, `setting` the remote, branch and configuration that decided (said once)."""

    ref: str | None
    what: str = ""
    how: str = ""
    setting: str = ""


def destination(
    git_dir: os.PathLike[str] | str, remote: str, branch: str, head: str | None
) -> Destination:
    """Where auto-push sends `branch`: where the person's own `git push` sends it. With
    remote.REMOTE.push set, where git 2.39's `git push REMOTE` (no refspec) sends it (sent_to;
    `head`, the branch HEAD stands for); with none, to its own name, as `git push REMOTE BRANCH`
    does. Nowhere where that is no branch (Gerrit's refs/for/*), no place or two, or under
    push.default = upstream an upstream of another name (a feature branch made from origin/main:
    work in progress published to main)."""
    source = f"refs/heads/{branch}"
    # A URL names no remote, nor its configuration: git pushes to it as push.default says.
    tracking = tracking_ref(remote, source)
    config = "" if tracking is None else f"remote.{remote}.push"
    mapping = git("config", "--get-all", config, cwd=git_dir, check=False) if config else ""
    if mapping and tracking is not None:
        refspecs = mapping.splitlines()
        matching = any(refspec.removeprefix("+") == ":" for refspec in refspecs)
        held = matching and run_git("rev-parse", "-q", "--verify", tracking, cwd=git_dir).ok
        refs = _refs_among(git_dir, refspecs)
        sent = sent_to(refspecs, source, head=head, refs=refs, held=held)
        return _mapped(remote, branch, sent, f"{remote} {branch}\nremote.{remote}.push {mapping}")
    # `tracking` is git's older name for `upstream`.
    if (default := git("config", "push.default", cwd=git_dir, check=False)) in _UPSTREAM:
        merged = git("config", "--get-all", f"branch.{branch}.merge", cwd=git_dir, check=False)
        if len(merged.splitlines()) == 1 and merged != source:
            return Destination(
                None,
                f"push.default = {default} sends {branch} to {merged}, its upstream",
                "auto-push publishes no work in progress to another branch: push it by hand, "
                f"or once to its own name (git push -u {remote} {branch})",
                f"{remote} {branch}\npush.default {default}\nbranch.{branch}.merge {merged}",
            )
    return Destination(source)


_UPSTREAM = ("upstream", "tracking")


def _mapped(remote: str, branch: str, sent: list[str], setting: str) -> Destination:
    """Where remote.REMOTE.push sends `branch` (`sent`, as sent_to tells), if to one branch;
    else nowhere, saying why (`setting` the configuration that decided)."""
    if not sent:
        what = f"remote.{remote}.push names no branch {branch} goes to"
        how = f"push it by hand where you mean it to go, or map it in remote.{remote}.push"
    elif len(sent) > 1:
        what = f"remote.{remote}.push sends {branch} to {' and '.join(sent)}"
        how = "auto-push sends a branch to one place: push it by hand"
    elif not sent[0].startswith("refs/heads/"):
        what = f"remote.{remote}.push sends {branch} to {sent[0]}, no branch"
        how = "auto-push updates branches alone: push it by hand"
    else:
        return Destination(sent[0])
    return Destination(None, what, how, setting)


def sent_to(
    refspecs: list[str], source: str, *, head: str | None, refs: Collection[str], held: bool
) -> list[str]:
    """Where `git push REMOTE` with no refspec sends the branch `source` by the push refspecs
    `refspecs` (git 2.39's match_push_refs): where each explicit one naming it sends it, its own
    name where it names none (`HEAD`: `head`'s; a short name as _named takes it among `refs`);
    and where the first pattern taking it sends it, else a matching `:` to its own name if the
    remote holds it (`held`). Nowhere where a negative one takes it, as the person meant (git
    2.39 still sends one a negative pattern takes, `^refs/heads/m*`)."""
    sent: list[str] = []
    patterned, matching = None, False
    for refspec in refspecs:
        refspec = refspec.removeprefix("+")
        if refspec.startswith("^"):
            if _taken(refspec[1:], source) is not None:
                return []
            continue
        src, colon, dst = refspec.partition(":")
        if not src:
            matching = matching or refspec == ":"  # `:dst` deletes dst
        elif "*" in src:
            star = _taken(src, source)
            if patterned is None and star is not None:
                patterned = (dst or src).replace("*", star, 1)
        elif (dst or not colon) and _named(src, refs, head) == source:
            if not dst:
                dst = source
            elif not dst.startswith("refs/"):
                # The branch git makes of a short name for a branch; a tag of that name the
                # remote holds it takes first, which only the remote knows.
                dst = f"refs/heads/{dst}"
            sent.append(dst)
    if patterned is None and matching and held:
        patterned = source
    if patterned is not None and patterned not in sent:  # git sends to a ref once
        sent.append(patterned)
    return sent


def _spellings(src: str) -> list[str]:
    """The refs a short name in a refspec may name, as git's ref_rev_parse_rules spell them."""
    spelled = (f"refs/{src}", f"refs/tags/{src}", f"refs/heads/{src}", f"refs/remotes/{src}")
    return [src, *spelled, f"refs/remotes/{src}/HEAD"]


def _refs_among(git_dir: os.PathLike[str] | str, refspecs: list[str]) -> set[str]:
    """The refs the explicit refspecs of `refspecs` may name (_spellings) that are here."""
    sources = [refspec.removeprefix("+").partition(":")[0] for refspec in refspecs]
    spelled = [
        spelling
        for src in sources
        if src and not src.startswith("^") and "*" not in src
        for spelling in _spellings(src)
    ]
    if not spelled:
        return set()
    listing = git("for-each-ref", "--format=%(refname)", "--", *spelled, cwd=git_dir, check=False)
    return set(listing.splitlines()) & set(spelled)


def _named(src: str, refs: Collection[str], head: str | None) -> str | None:
    """The ref an explicit refspec's source `src` names (git 2.39's count_refspec_match): of its
    spellings among `refs`, the one in refs/heads/ or refs/tags/ or spelled whole (or from refs/
    on), or else the one other; none where two are; else `HEAD` (`@`) the branch `head`."""
    src = "HEAD" if src == "@" else src
    found = [ref for ref in _spellings(src) if ref in refs]
    strong = [
        ref
        for ref in found
        if ref in (src, f"refs/{src}") or ref.startswith(("refs/heads/", "refs/tags/"))
    ]
    chosen = strong or found
    if chosen:
        return chosen[0] if len(chosen) == 1 else None
    return f"refs/heads/{head}" if src == "HEAD" and head else None


def _taken(pattern: str, name: str) -> str | None:
    """What the `*` of `pattern` stands for in `name` ("" when `pattern` is `name` itself), or
    None when `pattern` does not take `name`."""
    if "*" not in pattern:
        return "" if pattern == name else None
    head, _, tail = pattern.partition("*")
    if len(name) >= len(head) + len(tail) and name.startswith(head) and name.endswith(tail):
        return name[len(head) : len(name) - len(tail)]
    return None
