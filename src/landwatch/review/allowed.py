"""A finding someone allowed, with a reason: who, when, why, and what it covers (one finding's
fingerprint in every commit that holds it, or every finding of one commit).

The vocabulary of `landwatch allow` and of the push gate; where allowances are kept is not the
review's business (landwatch.allowances).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any, NamedTuple

from landwatch.lazy_re import LazyPattern, lazy_compile
from landwatch.review.findings import Finding
from landwatch.review.secrets.redaction import printable

REASONS = ("false-positive", "used-in-tests", "fix-later")
# What a fingerprint and a commit id look like (findings.fingerprint; SHA-1 or SHA-256).
_FINGERPRINT = lazy_compile(r"[0-9a-f]{1,64}")
_COMMIT = lazy_compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
# The longest `who` kept: `user.name <user.email>`, each of git's bounded by people, not git.
MOST_WHO = 320
# The most secrets one allowance of a finding names (those its fingerprint held when allowed).
MOST_SECRETS = 64
_DIGEST = lazy_compile(r"[0-9a-f]{16}")


class Allowance(NamedTuple):
    """One decision: `reason` (one of REASONS), by `who`, at `when` (epoch seconds), covering
    the finding `fingerprint` wherever it is (where it holds secrets, only for those whose
    digests are `secrets`), or every finding of `commit` (one of the two)."""

    reason: str
    who: str
    when: float
    fingerprint: str | None
    commit: str | None
    secrets: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "reason": self.reason,
            "who": self.who,
            "when": self.when,
            "fingerprint": self.fingerprint,
            "commit": self.commit,
            **({"secrets": list(self.secrets)} if self.secrets else {}),
        }

    @classmethod
    def from_dict(cls, data: Any) -> Allowance | None:
        """The allowance `data` holds; None for anything else (a store or a note is data)."""
        if not isinstance(data, dict):
            return None
        reason, who, when = data.get("reason"), data.get("who"), data.get("when")
        fingerprint, commit = data.get("fingerprint"), data.get("commit")
        secrets = data.get("secrets", [])
        if (
            reason not in REASONS
            or not isinstance(who, str)
            or len(who) > MOST_WHO
            or not isinstance(when, int | float)
            or isinstance(when, bool)
            or not 0 <= when < 1 << 53
            or (fingerprint is None) == (commit is None)
            or not (fingerprint is None or _matches(_FINGERPRINT, fingerprint))
            or not (commit is None or _matches(_COMMIT, commit))
            or not isinstance(secrets, list)
            or len(secrets) > MOST_SECRETS
            or (secrets and fingerprint is None)
            or not all(_matches(_DIGEST, digest) for digest in secrets)
        ):
            return None
        return cls(str(reason), who, float(when), fingerprint, commit, tuple(secrets))

    def what(self) -> str:
        """What it covers: `finding 3f2a9c…` or `every finding of 9c1e2b3a4d5f`."""
        if self.fingerprint is not None:
            return f"finding {self.fingerprint}"
        return f"every finding of {(self.commit or '')[:12]}"

    def described(self) -> str:
        """Why, by whom and when, for a person: `fix-later, by Ann <ann@example.com> on
        2024-05-01` (who as git knew them, redacted and escaped: repository data; the day UTC)."""
        day = time.strftime("%Y-%m-%d", time.gmtime(self.when))
        return f"{self.reason}, by {printable(self.who)} on {day}"


def _matches(pattern: LazyPattern[str], value: Any) -> bool:
    return isinstance(value, str) and pattern.fullmatch(value) is not None


def covers(allowance: Allowance, commit: str, finding: Finding) -> bool:
    """Whether `allowance` covers `finding` of `commit`: the commit, or its fingerprint and,
    where the allowance names secrets, one of them: another token written on an allowed
    token's line has its fingerprint, never its digest."""
    if allowance.commit is not None:
        return allowance.commit == commit
    if not finding.fingerprint or allowance.fingerprint != finding.fingerprint:
        return False
    return not allowance.secrets or finding.secret_digest in allowance.secrets


def secrets_of(fingerprint: str, findings: Iterable[Finding]) -> tuple[str, ...]:
    """The digests of the secrets the findings `fingerprint` names hold, for an allowance of
    it; none (any covered, as before digests were kept) where one of those findings has none."""
    digests = {f.secret_digest for f in findings if f.fingerprint == fingerprint}
    return () if "" in digests else tuple(sorted(digests)[:MOST_SECRETS])


def allowing(allowances: Iterable[Allowance], commit: str, finding: Finding) -> Allowance | None:
    """The first of `allowances` that covers `finding` of `commit`; None when none does."""
    return next((one for one in allowances if covers(one, commit, finding)), None)


def covering(
    allowances: Iterable[Allowance], commit: str, findings: Iterable[Finding]
) -> list[Allowance]:
    """Those of `allowances` that cover some of `findings` of `commit`, once each, in order."""
    held = list(findings)
    kept: dict[Allowance, None] = {}
    for one in allowances:
        if any(covers(one, commit, finding) for finding in held):
            kept.setdefault(one)
    return list(kept)
