"""`landwatch review [REV | A..B]`: review a commit, or what B adds on top of A, now and as the
reviewer would (its configuration, learned standards and trusted linters), without the queue.

Exit status 1 when a finding is at or above `fail_level` ("none": never).
"""

from __future__ import annotations

import sys
from pathlib import Path

from landwatch.git import git_dir_of, toplevel
from landwatch.review.findings import Severity
from landwatch.review.linters import LinterPolicy
from landwatch.review.output import print_reports
from landwatch.review_landing import review_landing

NO_LINTERS = "linters not run (--no-linters)"


def review(cwd: Path, *, revision: str, fail_level: str, linters: bool, form: str) -> int:
    git_dir = git_dir_of(cwd)
    if "..." in revision:
        print("landwatch: review a range as A..B (what B adds on top of A)", file=sys.stderr)
        return 1
    base, _, tip = revision.rpartition("..") if ".." in revision else ("", "", revision)
    # The configuration reviewed is the revision's own (a fetched branch's, say): its linters
    # run only if exactly they were trusted here.
    policy = None if linters else LinterPolicy(vet=lambda digest: NO_LINTERS)
    report = review_landing(git_dir, tip or "HEAD", base or None, linters=policy)
    print_reports([report], form=form, repository=lambda: toplevel(cwd) or git_dir)
    if fail_level == "none":
        return 0
    return 1 if report.worst() >= Severity[fail_level.upper()] else 0
