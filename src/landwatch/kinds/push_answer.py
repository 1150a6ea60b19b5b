"""What a `git push` of the push and share kinds answered when it failed: the remote's no
(`Rejected`), the push gate's refusal from the pre-push hook (`RefusedInHook`), or a line saying
why, in a hook's own words where one refused, and whether the remote was out of reach.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from landwatch.kinds.base import GiveUp
from landwatch.lazy_re import lazy_compile

# A remote out of reach, or credentials not at hand yet (an ssh agent that starts after login):
# both mend themselves, so they are retried, and told only when they have lasted too long.
_UNREACHABLE = lazy_compile(
    r"Could not resolve host|Could not resolve hostname|unable to access|Connection refused|"
    r"Connection timed out|Network is unreachable|No route to host|Could not read from remote|"
    r"does not appear to be a git repository|Operation timed out|early EOF|"
    r"terminal prompts disabled|Authentication failed|Permission denied|Host key verification",
    re.IGNORECASE,
)
# git's last line when a push failed, whoever refused it; and the lines --porcelain writes.
_FAILED_TO_PUSH = "error: failed to push some refs"
_PORCELAIN = lazy_compile(r"To |Done$|[ +*=!-]\t")


class Rejected(GiveUp):
    """The remote answered no to a push; `behind` when only because it holds what was not
    fetched yet (a teammate pushed first)."""

    def __init__(self, message: str, *, behind: bool) -> None:
        super().__init__(message)
        self.behind = behind


class RefusedInHook(GiveUp):
    """The push gate refused the push from the pre-push hook, which judges all it sends (a tag
    push.followTags takes along too); `said` is what the hook said."""

    def __init__(self, message: str, said: str) -> None:
        super().__init__(message)
        self.said = said


@dataclass(frozen=True)
class Failed:
    """Why a push failed, in a line; `unreachable`: the remote was out of reach (or said nothing
    in time), which mends itself."""

    message: str
    unreachable: bool


def failed(remote: str, what: str, code: int, out: str, err: str, timed_out: bool) -> Failed:
    """Why `git push --porcelain` of `what` to `remote` failed (its exit `code`, `out`, `err`):
    Rejected when the remote said no, RefusedInHook when the gate refused it in the hook."""
    rejected = [line for line in out.splitlines() if line.startswith("!")]
    if rejected:
        reason = rejected[0].split("\t")[-1].strip()
        hints = " ".join(
            line[6:].strip() for line in err.splitlines() if line.startswith("hint: ")
        )[:300]
        raise Rejected(
            f"{remote} rejected {what}: {reason}" + (f" ({hints})" if hints else ""),
            behind="fetch first" in reason or "non-fast-forward" in reason,
        )
    if code != 0 and not timed_out:
        from landwatch.push_gate import REFUSAL  # only here: status asks the kinds (kinds.failing)

        if any(line.startswith(REFUSAL) for line in err.splitlines()):
            raise RefusedInHook(f"the push gate refused the push of {what}", err)
    said = [line.strip() for line in err.splitlines() if line.strip()]
    # A pre-push hook's own words (on either stream: git 2.39 gives it the push's stdout), not
    # the gate's that let the push go, nor git's last line.
    hooks = [line.strip() for line in out.splitlines() if not _PORCELAIN.match(line)]
    theirs = [
        line
        for line in [*said, *hooks]
        if line and not line.startswith(("landwatch:", _FAILED_TO_PUSH))
    ]
    message = "no answer" if timed_out else next(iter(theirs + said), f"git push exit {code}")
    return Failed(message, timed_out or _UNREACHABLE.search(err) is not None)
