"""`landwatch ci [RANGE]`: every commit of a range reviewed (a merge for what none of its parents
has), for a CI job or a pre-push hook, in a fresh clone with nothing installed, no reviewer and
nothing trusted. Each is reviewed by the rules it came to (the configuration and secret scanners'
declarations of the range's base), never by those it brings; a change to them is a finding of
its own (C004).

The remote's shared reviews are fetched and each is compared with the review made here: a note
is a teammate's claim, never a reason to skip a check (`--trust-notes` takes the matching ones,
trusting the teammates, and still runs the secret rules on each commit). Exit 1 when a finding
at or above `--fail-level` is in RANGE or the range cannot be read (a commit not here, no default
branch to start from, a shallow clone's part of it), 2 for a RANGE that is no range, 0
otherwise; a finding allowed here (`landwatch allow`), or by a note with `--trust-notes`, does
not count.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, TextIO

import pygit2

from landwatch import __version__, allowances, sharing, trust
from landwatch.commands import ci_cache, ci_output, ci_range
from landwatch.commands.share import default_remote
from landwatch.files import write_atomic
from landwatch.git import git_dir_of, run_git, toplevel
from landwatch.json_out import strict_json
from landwatch.review import allowed, output
from landwatch.review.allowed import Allowance
from landwatch.review.change import ITS_OWN, ChangeShape, open_repository
from landwatch.review.config import RulesAt
from landwatch.review.declared_changes import differences
from landwatch.review.findings import Finding, Severity
from landwatch.review.notes import NOTES_REF, SharedReview
from landwatch.review.output import print_reports
from landwatch.review.report import Report, severity_counts, summary_of
from landwatch.review.rules import all_rules
from landwatch.review_landing import review_landing
from landwatch.text import plural, safe


class Options(NamedTuple):
    range: str | None = None
    remote: str | None = None
    fail_level: str = "error"
    json: Path | None = None
    sarif: Path | None = None
    trust_notes: bool = False
    fetch: bool = True

    @classmethod
    def of(cls, args: argparse.Namespace) -> Options:
        return cls(
            args.range,
            args.remote,
            args.fail_level,
            args.json,
            args.sarif,
            args.trust_notes,
            not args.no_fetch,
        )


@dataclass
class Checked:
    """One commit of the range: its review (made here, or taken), the shared reviews its notes
    held, and where each differs from the one made here."""

    report: Report
    taken: bool = False
    shared: list[SharedReview] = field(default_factory=list)
    differences: list[dict[str, Any]] = field(default_factory=list)
    # What the notes of the commit allowed (`landwatch allow`): a teammate's claim, trusted only
    # with --trust-notes.
    from_notes: list[Allowance] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "commit": self.report.commit,
            "reviewed": not self.taken,
            "taken_from": self.report.reviewed_by if self.taken else None,
            "shared_reviews": [
                {
                    "reviewed_by": s.reviewed_by,
                    "reviewed_at": s.reviewed_at,
                    "landwatch": s.landwatch,
                }
                for s in self.shared
            ],
            "differences": self.differences,
            "review": self.report.as_dict(),
        }


def ci(cwd: Path, options: Options, out: TextIO | None = None) -> int:
    """The range reviewed, all said inside a CI runner's switch where one reads commands in what
    a step prints (GitHub Actions): a repository's text issues none (commands.ci_output)."""
    return ci_output.inside_switch(lambda: _ci(cwd, options, sys.stdout if out is None else out))


def _ci(cwd: Path, options: Options, out: TextIO) -> int:
    git_dir = git_dir_of(cwd)
    kept = ci_cache.secret_rules_kept(cwd)  # before any review loads them
    remote = options.remote or os.environ.get("PRE_COMMIT_REMOTE_NAME") or default_remote(cwd)
    base, tip, label = ci_range.range_of(cwd, options.range, remote)
    if options.fetch:
        fetched = _fetch_notes(cwd, remote)
        if fetched:
            print(f"landwatch ci: {safe(fetched)}; comparing with the notes at hand", file=out)
    here, problem = allowances.read(git_dir)
    if problem is not None:
        print(f"landwatch ci: {safe(problem)}", file=out)
    commits = ci_range.commits_of(git_dir, base, tip)
    checked = _check_all(git_dir, remote, base, commits, options, out, here)
    _write(options, checked, label, tip, toplevel(cwd) or git_dir)
    counted = [f for c in checked for f in _counted(c, here, trust_notes=options.trust_notes)]
    untrusted = 0 if options.trust_notes else sum(_untrusted(c, here) for c in checked)
    if untrusted:
        print(
            f"landwatch ci: {plural(untrusted, 'finding')} allowed by teammates' notes, not "
            "trusted: counted as found (--trust-notes trusts them)",
            file=out,
        )
    print(_summary(label, checked), file=out)
    if kept:
        print(kept, file=out)
    if options.fail_level == "none":
        return 0
    worst = max((f.severity for f in counted), default=Severity.OFF)
    return 1 if worst >= Severity[options.fail_level.upper()] else 0


def _fetch_notes(cwd: Path, remote: str) -> str | None:
    """The remote's notes into their remote-tracking ref; None when fetched, else why not."""
    if not run_git("remote", "get-url", "--", remote, cwd=cwd).ok:
        return f"no remote {remote!r} to fetch shared reviews from"
    fetching = ("fetch", "--quiet", "--no-tags", remote, *sharing.fetch_refspecs(remote))
    result = run_git(*fetching, cwd=cwd, timeout=120, network=True)
    if result.ok:
        return None
    said = [line.strip() for line in result.stderr.splitlines() if line.strip()]
    return f"could not fetch {remote}'s notes: {said[-1] if said else 'no answer'}"


def _check_all(
    git_dir: Path,
    remote: str,
    base: str | None,
    commits: list[str],
    options: Options,
    out: TextIO,
    here: list[Allowance],
) -> list[Checked]:
    """Each commit reviewed by the rules it came to: the range's base's, or with no base (one
    commit named) its parent's, and a root's landwatch's defaults."""
    policy = trust.policy(git_dir)
    refs = (NOTES_REF, sharing.tracking_ref(remote))
    repo = open_repository(git_dir)
    came_to = base if base is not None else _parent(repo, commits[0])  # no base: one commit
    # The secret rules run on a review taken are by the rules it came to as well: a trailer of
    # the commit leaves out no secret, as in a review made here.
    finder = sharing.Finder(git_dir, repo, policy, refs, rules_at=RulesAt(came_to))
    checked = []
    for commit in commits:
        # A merge is reviewed for what none of its parents has, as no teammate's reviewer reads
        # it: its shared reviews are neither taken nor compared.
        merge = len(repo[commit].peel(pygit2.Commit).parent_ids) > 1
        shared = [] if merge else finder.reviews(commit)
        own = bool(shared) and _own_rules_are_those(finder, commit, came_to)
        # A review is taken only where the commit's own rules are those it came to.
        taken = finder.take(commit, shared) if options.trust_notes and own else None
        if taken is not None:
            one = Checked(taken, taken=True, shared=shared)
        else:
            merges = ITS_OWN if merge else None
            report = review_landing(
                git_dir, commit, linters=policy, rules_at=finder.rules_at, merges=merges
            )
            one = Checked(report, shared=shared)
            one.differences = [
                d for s in shared if (d := _difference(one.report, s, finder, own=own))
            ]
        _with_allowed(one, here)
        checked.append(one)
        if one.report.findings or one.report.truncated:
            print_reports([one.report], form="text", repository=lambda: git_dir)
        for difference in one.differences:
            print(f"landwatch ci: {difference['said']}", file=out)
    for line in finder.ignored:
        print(f"landwatch ci: {safe(line)}", file=out)
    return checked


def _with_allowed(one: Checked, here: list[Allowance]) -> None:
    """What was allowed of `one`'s findings, here (`landwatch allow`) or by its notes, put in
    its report (shown as allowed: who, why), and what its notes allowed kept apart."""
    report = one.report
    one.from_notes = [a for s in one.shared for a in s.report.allowed] + report.allowed
    report.allowed = allowed.covering([*here, *one.from_notes], report.commit, report.findings)


def _counted(one: Checked, here: list[Allowance], *, trust_notes: bool) -> list[Finding]:
    """The findings of one commit that count toward the exit status: all but those allowed here
    and, with --trust-notes only, those its notes allow (a note is a teammate's claim)."""
    trusted = [*here, *one.from_notes] if trust_notes else here
    commit = one.report.commit
    return [f for f in one.report.findings if allowed.allowing(trusted, commit, f) is None]


def _untrusted(one: Checked, here: list[Allowance]) -> int:
    """How many of one commit's findings only its notes allow: counted, unless --trust-notes."""
    commit = one.report.commit
    counted = _counted(one, here, trust_notes=False)
    return sum(1 for f in counted if allowed.allowing(one.from_notes, commit, f) is not None)


def _parent(repo: pygit2.Repository, commit: str) -> str | None:
    parents = repo[commit].peel(pygit2.Commit).parent_ids
    return str(parents[0]) if parents else None


def _own_rules_are_those(finder: sharing.Finder, commit: str, came_to: str | None) -> bool:
    """Whether the configuration and declarations `commit` brings are those it came to: only
    then may a review made by its own (a teammate's reviewer's) stand for the one made here."""
    if came_to is None:
        return False  # a root, reviewed here by the defaults
    repo = finder.repo
    rules, _ = all_rules()
    if differences(repo, repo[came_to].peel(pygit2.Tree), repo[commit].peel(pygit2.Tree), rules):
        return False
    return finder.config_hash(came_to) == finder.config_hash(commit)


def _difference(
    report: Report, shared: SharedReview, finder: sharing.Finder, *, own: bool = True
) -> dict[str, Any] | None:
    """Where `shared` differs from the review made here, on the rules both ran: what it lacks
    (a note claiming less than there is: forged, or made before a fix) and what only it has;
    and why it may, when it was made otherwise (another landwatch, another configuration, or
    the rules the commit brings where this review is by those it came to: not `own`)."""
    both = set(report.rules) & set(shared.report.rules)
    ours = {_key(f): f for f in report.findings if f.rule in both}
    theirs = {_key(f): f for f in shared.report.findings if f.rule in both}
    lacks = [ours[key] for key in ours.keys() - theirs.keys()]
    only = [theirs[key] for key in theirs.keys() - ours.keys()]
    if not lacks and not only:
        return None
    who = safe(shared.reviewed_by or "someone")
    why = ""
    if shared.landwatch != __version__:
        why = f" (made with landwatch {safe(shared.landwatch)})"
    elif not shared.complete:
        why = " (its line checks had stopped)"
    elif not own:
        why = " (made by the rules this commit brings; this review is by the rules it came to)"
    elif shared.config_hash != finder.config_hash(report.commit):
        why = " (made under another configuration: its linters, or the reviewer's own)"
    elif shared.learned is not None and shared.learned != (here := finder.learned(report.commit)):
        taught = ", ".join(f"{k} {v}" for k, v in shared.learned.items() if here.get(k) != v)
        why = f" (its reviewer had learned other standards from the history: {safe(taught)})"
    said = (
        f"{report.commit[:12]}: the review shared by {who} differs{why}: "
        f"{_listed(lacks)} it does not have, {_listed(only)} this review does not find"
    )
    return {
        "commit": report.commit,
        "reviewed_by": shared.reviewed_by,
        "missing_from_note": [f.as_dict() for f in lacks],
        "only_in_note": [f.as_dict() for f in only],
        "said": said,
    }


def _key(finding: Finding) -> tuple[str, str, str]:
    # Its severity too, as the reviewer's sharing.disagree compares (a round-1 audit: a note
    # telling a warning as info was counted "matching").
    return (finding.rule, finding.severity.name, finding.fingerprint)


def _listed(findings: list[Finding]) -> str:
    if not findings:
        return "no finding"
    named = ", ".join(
        safe(
            f"{f.rule} {f.path}:{f.line}" if f.path and f.line else f"{f.rule} {f.path or ''}"
        ).strip()
        for f in findings[:3]
    )
    more = f" and {len(findings) - 3} more" if len(findings) > 3 else ""
    return f"{plural(len(findings), 'finding')} ({named}{more})"


def _summary(label: str, checked: list[Checked]) -> str:
    findings = [f for c in checked for f in c.report.findings]
    merges = sum(1 for c in checked if c.report.shape == ChangeShape.MERGE)
    shared = sum(1 for c in checked if c.shared)
    differing = sum(1 for c in checked if c.differences)
    taken = sum(1 for c in checked if c.taken)
    cut = sum(1 for c in checked if c.report.truncated)
    parts = [
        f"landwatch ci: {safe(label)}: {plural(len(checked), 'commit')}"
        + (
            f" ({plural(merges, 'merge')}, each reviewed for what none of its parents has)"
            if merges
            else ""
        ),
        f"{len(checked) - taken} reviewed"
        + (f", {taken} taken from shared reviews" if taken else ""),
        f"{plural(shared, 'shared review')} found, {shared - differing} matching"
        + (f", {differing} differing" if differing else ""),
        f"findings: {summary_of(findings) or 'none'}",
    ]
    let_through = sum(
        1
        for c in checked
        for f in c.report.findings
        if allowed.allowing(c.report.allowed, c.report.commit, f) is not None
    )
    if let_through:
        parts[-1] += f" ({let_through} allowed: landwatch allow)"
    if cut:
        parts.append(f"{plural(cut, 'review')} whose line checks stopped (see its notes)")
    return "; ".join(parts)


def _write(options: Options, checked: list[Checked], label: str, tip: str, top: Path) -> None:
    if options.json is not None:
        data = {
            "range": label,
            "tip": tip,
            "commits": [c.as_dict() for c in checked],
            "counts": severity_counts([f for c in checked for f in c.report.findings]),
        }
        _written(options.json, strict_json(data, indent=1) + "\n", top)
    if options.sarif is not None:
        sarif = output.as_sarif_range([c.report for c in checked], top, label, tip)
        _written(options.sarif, strict_json(sarif, indent=1) + "\n", top)


def _written(path: Path, text: str, top: Path) -> None:
    """`text` as the file `path`, 0600, replacing what is there: a link the range under review
    commits at that name, or at a directory of the checkout (`top`) on the way, is not followed."""
    place = Path(os.path.abspath(path))  # `..` taken as written, not through a link before it
    trusted = top if place.is_relative_to(top) else None  # elsewhere, the person's own places
    # Not synced: the job's next step reads it, and no power cut leaves a job to go on.
    write_atomic(place, text, trusted=trusted, durable=False, make_directory=False)
