"""The project's standards, learned from its own history: how long the subjects it keeps are,
whether it writes Conventional Commits or signs off (DCO), from a bounded sample of the commits
before the one reviewed. A committed configuration always wins over what is learned.

Pure: pygit2 in, a `Standards` out (as a dict for whoever caches it).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, NamedTuple

import pygit2

from landwatch.lazy_re import lazy_compile
from landwatch.review.rules.message import (
    ConventionalCommits,
    SignedOffBy,
    SubjectLength,
    conventional_type,
    written_by_tools,
)
from landwatch.review.whose import app_login

# Commits read: the newest of the history before the reviewed commit, merges and bots' left
# out; at most VISITS looked at to find them. The subject limit is a spread, read from all of
# them: the 99th percentile of 300 subjects rests on their longest 3, and one burst of long
# subjects moved it (of 500, on 5). A convention is something a project adopts at a point in
# time, so whether it follows one now is read from the newest CONVENTION_SAMPLE alone.
SAMPLE = 500
CONVENTION_SAMPLE = 300
VISITS = 1500
# A cached sample serves while it was learned at one of this many first-parent ancestors, and
# in the way standards are learned now: LEARNING grows whenever what is learned changes.
REFRESH = 100
LEARNING = 3
# Fewer commits than this teach nothing: a young project keeps the defaults.
MIN_COMMITS = 30
# The subject limit learned is the project's 99th percentile, never below the usual 72: about
# 1% of the project's own subjects pass it, the rare one a maintainer notices (at the 98th, 9
# of 19 warnings on five unseen projects were 1-11 characters past it). There is no ceiling: a
# subject within what the project routinely writes is its standard, however long (a fixed
# ceiling of 100 told projects of their usual subjects). The 98th is kept beside it, so that
# bench/ can show both readings (`reading`).
SUBJECT_FLOOR = 72
READINGS = (98, 99)
# A convention is the project's when this share of the sample follows it.
ADOPTED = 0.9
# A type outside the specification's that a project writing Conventional Commits uses this
# many times in the whole sample is one of its own (fastify's `types:`, a few times a year): a
# vocabulary, unlike the adoption of the convention, is read from all of it.
ROUTINE = 2

_SIGNED_OFF = lazy_compile(r"^signed-off-by\s*:", re.IGNORECASE | re.MULTILINE)
# Subjects git made from another subject (a merge, a revert, an autosquash marker): their length
# is not the author's. A release subject's is, so it counts towards the subject limit.
_DERIVED_BY_GIT = lazy_compile(r"^(?:Merge |Revert \"|Reapply \"|fixup! |squash! |amend! )")


class Standards(NamedTuple):
    commits: int = 0  # how many commits the sample held
    subject_p98: int = 0
    subject_p99: int = 0
    subject_past: float = 0.0  # the share of the sample longer than the limit read at the 99th
    reading: int = 99  # the percentile the limit is read at, one of READINGS
    conventional: float = 0.0  # the share of subjects that are Conventional Commits
    signed_off: float = 0.0  # the share of messages with a Signed-off-by trailer
    # Types beyond the specification's the project uses routinely, most used first.
    own_types: tuple[str, ...] = ()
    learned_at: str = ""  # the commit whose history was learned: the landed one's first parent
    learning: int = LEARNING  # the way it was learned in (a cache of an older one is stale)

    @property
    def subject_limit(self) -> int | None:
        """The longest subject the project keeps, when there is enough history to tell."""
        if self.commits < MIN_COMMITS:
            return None
        return max(SUBJECT_FLOOR, self.subject_p99 if self.reading == 99 else self.subject_p98)

    @property
    def writes_conventional_commits(self) -> bool:
        return self.commits >= MIN_COMMITS and self.conventional >= ADOPTED

    @property
    def conventional_types(self) -> tuple[str, ...]:
        """The types the Conventional Commits rule also allows, where learning turned it on."""
        return self.own_types if self.writes_conventional_commits else ()

    @property
    def signs_off(self) -> bool:
        return self.commits >= MIN_COMMITS and self.signed_off >= ADOPTED

    def as_dict(self) -> dict[str, Any]:
        return self._asdict()

    def effective(self) -> dict[str, Any]:
        """What it sets for the rules: the subject limit, the conventions turned on."""
        return {
            "subject_limit": self.subject_limit,
            "conventional": self.writes_conventional_commits,
            "conventional_types": list(self.conventional_types),
            "signs_off": self.signs_off,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Standards:
        return cls(
            commits=int(data.get("commits", 0)),
            subject_p98=int(data.get("subject_p98", 0)),
            subject_p99=int(data.get("subject_p99", 0)),
            subject_past=float(data.get("subject_past", 0.0)),
            reading=int(data.get("reading", 99)),
            conventional=float(data.get("conventional", 0.0)),
            signed_off=float(data.get("signed_off", 0.0)),
            own_types=tuple(str(kind) for kind in data.get("own_types", ())),
            learned_at=str(data.get("learned_at", "")),
            learning=int(data.get("learning", 1)),
        )

    def explain(self) -> list[str]:
        """What was learned and what it changes, for `landwatch rules --explain`."""
        if self.commits < MIN_COMMITS:
            return [
                f"learned from {self.commits} commits: too few to tell ({MIN_COMMITS} needed); "
                "the defaults apply"
            ]
        limit = self.subject_limit
        # The rules what was learned tunes, named as the listing names them.
        subjects, convention, sign_off = SubjectLength.id, ConventionalCommits.id, SignedOffBy.id
        conventions = "as configured"
        if self.writes_conventional_commits:
            own = self.conventional_types
            conventions = "on (the project writes them" + (
                f"; its own types too: {', '.join(own)})" if own else ")"
            )
        return [
            f"learned from {self.commits} commits up to {self.learned_at[:12]}:",
            f"  subjects: 99% are at most {self.subject_p99} characters (98%: {self.subject_p98});"
            f" {subjects} reports past {limit} (never below {SUBJECT_FLOOR}), as "
            f"{self.subject_past:.1%} of these commits' subjects were",
            f"  Conventional Commits: {self.conventional:.0%} of the newest "
            f"{min(self.commits, CONVENTION_SAMPLE)} subjects (a tool's left out); {convention} "
            f"{conventions}",
            f"  Signed-off-by: {self.signed_off:.0%} of those messages; {sign_off} "
            + ("on (the project signs off)" if self.signs_off else "as configured"),
        ]


def learn(repo: pygit2.Repository, commit: pygit2.Commit, sample: int = SAMPLE) -> Standards:
    """The standards of the history before `commit`: its ancestors, newest first, merges left
    out (a first-parent line of merges alone would teach nothing), learned at its first parent,
    which still_fresh finds."""
    if not commit.parents:
        return Standards()
    walker = repo.walk(commit.parents[0].id, pygit2.enums.SortMode.TIME)
    lengths: list[int] = []
    conventional = judged = signed = 0
    types: Counter[str] = Counter()
    # Counted as ConventionalCommits with its default types would judge them: a project that
    # prefixes subjects with areas (`lib:`, `cmake:`, `deps:`) is not one to turn it on for.
    # Where it is turned on, a type the project uses routinely is one of its own (own_types).
    convention = ConventionalCommits()
    for seen, ancestor in enumerate(walker):
        if seen >= VISITS or len(lengths) >= sample:
            break
        if len(ancestor.parents) > 1:
            continue
        message = ancestor.raw_message.decode("utf-8", errors="replace")
        subject = message.split("\n", 1)[0].rstrip()
        if (
            not subject
            or _DERIVED_BY_GIT.match(subject)
            or app_login(ancestor.author.name, ancestor.author.email) is not None
        ):
            continue
        lengths.append(len(subject))
        # The share is of the subjects the rule would judge: a release tool's `v5.8.0`
        # neither follows the convention nor breaks it.
        judges = not written_by_tools(subject)
        if judges and (kind := conventional_type(subject)) is not None:
            types[kind] += 1
        if len(lengths) <= CONVENTION_SAMPLE:
            signed += bool(_SIGNED_OFF.search(message))
            if judges:
                judged += 1
                conventional += convention.problem(subject) is None
    if not lengths:
        return Standards()
    ordered = sorted(lengths)
    p99 = _percentile(ordered, 99)
    newest = min(len(lengths), CONVENTION_SAMPLE)
    return Standards(
        commits=len(lengths),
        subject_p98=_percentile(ordered, 98),
        subject_p99=p99,
        subject_past=sum(length > max(SUBJECT_FLOOR, p99) for length in lengths) / len(lengths),
        conventional=conventional / judged if judged else 0.0,
        signed_off=signed / newest,
        own_types=_own_types(types, convention),
        learned_at=str(commit.parents[0].id),
    )


def _percentile(ordered: list[int], percent: int) -> int:
    """The length `percent`% of the sorted `ordered` are at most: at most 100 - `percent`% pass
    it (fewer where lengths tie at it)."""
    return ordered[min(len(ordered) - 1, len(ordered) * percent // 100)]


def _own_types(types: Counter[str], convention: ConventionalCommits) -> tuple[str, ...]:
    """The types, beyond those the rule knows, that the sample used routinely."""
    known = {kind.lower() for kind in convention.option("types")}
    return tuple(
        kind for kind, uses in types.most_common() if kind not in known and uses >= ROUTINE
    )


def still_fresh(repo: pygit2.Repository, commit: pygit2.Commit, standards: Standards) -> bool:
    """Whether standards learned earlier still describe the history before `commit`: learned
    at one of its last REFRESH first-parent ancestors, in the way standards are learned now."""
    if not standards.learned_at or standards.learning != LEARNING:
        return False
    at = commit
    for _ in range(REFRESH):
        if not at.parents:
            return False
        at = at.parents[0]
        if str(at.id) == standards.learned_at:
            return True
    return False
