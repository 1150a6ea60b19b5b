"""What a `git push` of the push and share kinds answered when it failed: the remote's no
(`Rejected`), a pre-push hook's refusal (`RefusedInHook`: the push gate's, or one of the person's
in its own words), or a line saying why, and whether the remote was out of reach.

Every word of theirs is redacted here, before it is kept (the push state, the reviewer's state
file) or shown (status, the hooks' line, the log): a secret scanner's hook that refuses a push
names the token it found, a remote's URL can hold a password.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from landwatch.git import git
from landwatch.kinds.base import GiveUp
from landwatch.lazy_re import lazy_compile
from landwatch.review.secrets.redaction import redact_secrets, redact_words
from landwatch.text import safe

if TYPE_CHECKING:
    from landwatch.review.findings import Finding

# A remote out of reach, or credentials not at hand yet (an ssh agent that starts after login):
# both mend themselves, so they are retried, and told only when they have lasted too long. Told
# by git's own lines alone (and ssh's, which git runs), each from its start: a pre-push hook's
# words are its own, the person's tests failing to reach their database ("Connection refused").
_UNREACHABLE = lazy_compile(
    r"fatal: (unable to access |Could not read from remote|could not read (Username|Password) |"
    r"Authentication failed |unable to connect |unable to look up |.* does not appear to be a "
    r"git repository|early EOF)|ssh: (connect to host |Could not resolve hostname )|"
    r"Host key verification failed|\S+: Permission denied \(|"
    r"(kex|ssh)_exchange_identification: |Connection (closed|reset) by |Connection timed out"
)
# git-lfs's pre-push hook, whose upload fails to reach its server in Go's words, on its lines.
_LFS_UNREACHABLE = lazy_compile(
    r"(batch response: |LFS: |.*/info/lfs).*(no such host|i/o timeout|connection reset|"
    r"connection refused|network is unreachable|no route to host)",
    re.IGNORECASE,
)
# git refusing what it was asked before it runs any pre-push hook (match_push_refs; a refspec
# it cannot read, an option it does not know): its own words, never a hook's.
_GITS_OWN = lazy_compile(
    r"error: (src refspec |dst refspec |dst ref |unable to delete '|The destination you |"
    r"unable to push to unqualified destination|unknown (switch|option) )|fatal: invalid refspec "
)
# git's last line when a push failed, whoever refused it; and the lines --porcelain writes.
_FAILED_TO_PUSH = "error: failed to push some refs"
_PORCELAIN = lazy_compile(r"To |Done$|[ +*=!-]\t")


# What a remote says when another push went first: its ref moved (`fetch first`, a forced one's
# `non-fast-forward`), or was being moved at that moment (`failed to update ref`: another push
# held its lock; seen with two reviewers sharing notes at once, given up at its first try).
_BEHIND = ("fetch first", "non-fast-forward", "failed to update ref")


class Rejected(GiveUp):
    """The remote answered no to a push; `behind` when only because it holds what was not
    fetched yet, or was taking another push (a teammate pushed first)."""

    def __init__(self, message: str, *, behind: bool) -> None:
        super().__init__(message)
        self.behind = behind


class RefusedInHook(GiveUp):
    """A pre-push hook refused the push, an answer rather than a fault: the push gate's (`gate`,
    which judges all it sends), or the person's (their tests); `said`, what it said."""

    def __init__(self, message: str, said: str, *, gate: bool = True, words: str = "") -> None:
        super().__init__(message)
        self.said = said
        self.gate = gate
        self.words = words  # the person's hook's, a line: what the push is held back with


class Failed(NamedTuple):
    """Why a push failed, in a line; `unreachable`: the remote was out of reach (or said nothing
    in time), which mends itself."""

    message: str
    unreachable: bool


def _remote_said(err: str) -> str:
    """The remote's own words, in a line (a pre-receive hook's reason, the ref in the way; an
    audit: only git's `pre-receive hook declined` was kept)."""
    said = (line[7:].strip() for line in err.splitlines() if line.startswith("remote:"))
    return " ".join(line for line in said if line)[:300]


def failed(remote: str, what: str, code: int, out: str, err: str, timed_out: bool) -> Failed:
    """Why `git push --porcelain` of `what` to `remote` failed (its exit `code`, `out`, `err`):
    Rejected when the remote said no, RefusedInHook when a pre-push hook (the gate's, or one of
    the person's) refused it."""
    rejected = [line for line in out.splitlines() if line.startswith("!")]
    if rejected:
        reason = rejected[0].split("\t")[-1].strip()
        hints = " ".join(
            line[6:].strip() for line in err.splitlines() if line.startswith("hint: ")
        )[:300]
        there = _remote_said(err)
        raise Rejected(
            redact_secrets(
                f"{remote} rejected {what}: {reason}"
                + (f": {there}" if there else "")
                + (f" ({hints})" if hints else "")
            ),
            behind=any(why in reason for why in _BEHIND),
        )
    if code != 0 and not timed_out:
        from landwatch.push_gate import REFUSAL  # only here: status asks the kinds (kinds.failing)

        if any(line.startswith(REFUSAL) for line in err.splitlines()):
            raise RefusedInHook(f"the push gate refused the push of {what}", err)
    said = [line.strip() for line in err.splitlines() if line.strip()]
    # A pre-push hook's own words (on either stream: git 2.39 gives it the push's stdout), not
    # the gate's that let the push go, nor git's last line.
    hooks = [line.strip() for line in out.splitlines() if not _PORCELAIN.match(line)]
    gits = [line for line in said if _GITS_OWN.match(line)]
    theirs = [
        line
        for line in [*said, *hooks]
        if line and not line.startswith(("landwatch:", _FAILED_TO_PUSH))
    ]
    message = (
        "no answer" if timed_out else next(iter(gits + theirs + said), f"git push exit {code}")
    )
    # Said at every try while the remote is out of reach: redacted by the detectors at hand
    # (a URL's password among them), the maintained rule set not loaded for it.
    message = redact_words(message)
    # git runs pre-push once it heard what the remote holds and before it sends: refused there,
    # git exits 1 with no `To` line of its own, and had reached the remote. Retried, the same
    # hook says the same.
    began = any(line.startswith("To ") for line in out.split("\n"))
    in_hook = code == 1 and not gits and not began
    unreachable = (
        timed_out
        or any(_LFS_UNREACHABLE.match(line) for line in [*said, *hooks])
        or (not in_hook and any(_UNREACHABLE.match(line) for line in said))
    )
    if in_hook and not unreachable:
        words = (
            redact_secrets(theirs[0]) if theirs else "a pre-push hook refused it, saying nothing"
        )
        raise RefusedInHook(
            f"a pre-push hook refused the push of {what}: {words}", err, gate=False, words=words
        )
    return Failed(message, unreachable)


def redacted_state(state: dict[str, object]) -> dict[str, object]:
    """A push state (the push or share kind's) with the words landwatch did not write redacted
    (the last error, what holds each push back and why): as kept, and as read, an older one's."""
    # An older release kept a refusal's words whole until a push went through. The remote named
    # is the person's own setting, kept as configured (it is pushed to), redacted where shown.
    kept = dict(state)
    if isinstance(error := kept.get("last_error"), str):
        kept["last_error"] = redact_words(error)
    # The push kind's holds; an older release's one, by the name the share kind's notes have.
    if isinstance(held := kept.get("held_back"), dict) and "why" in held:
        kept["held_back"] = _redacted_hold(held)
    if isinstance(holds := kept.get("holds"), list):
        kept["holds"] = [_redacted_hold(hold) if isinstance(hold, dict) else hold for hold in holds]
    return kept


def _redacted_hold(held: dict[str, object]) -> dict[str, object]:
    """A hold with what holds it and why redacted (push_holds)."""
    return {
        key: redact_words(value) if key in ("what", "why") and isinstance(value, str) else value
        for key, value in held.items()
    }


def holding(refused: Sequence[tuple[str, Finding]], git_dir: Path | None = None) -> str:
    """What refuses a push, in a few words: the first finding, where it is, how many more; what
    holds it by its id, an annotated tag of `git_dir` by its name, as the person knows it."""
    oid, finding = refused[0]
    where = finding.path or "message"
    if finding.path and finding.line:
        where += f":{finding.line}"
    more = f" and {len(refused) - 1} more" if len(refused) > 1 else ""
    named = (_tag_name(git_dir, oid) if git_dir is not None else None) or oid[:10]
    return f"{named} holds {finding.rule} {finding.message} at {where}{more}"


def _tag_name(git_dir: Path, oid: str) -> str | None:
    """`tag NAME` where the annotated tag `oid` is refs/tags/NAME here, escaped (repository text);
    None where none is."""
    listed = git(
        "for-each-ref",
        f"--points-at={oid}",
        "--format=%(objectname) %(objecttype) %(refname)",
        "refs/tags/",
        cwd=git_dir,
        check=False,
    )
    for line in listed.splitlines():
        named, kind, ref = line.split(" ", 2)
        if named == oid and kind == "tag":
            return f"tag {safe(ref.removeprefix('refs/tags/'))}"
    return None
