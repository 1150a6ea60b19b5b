"""What a push's remote holds, asked (push_heard), with real git and a bare remote: what a place
names, or why it did not answer."""

from __future__ import annotations

import os
from pathlib import Path

from landwatch import push_heard
from support.kinds import origin
from support.repos import Repo


def test_a_place_asked_says_its_branches_and_tags_or_why_not(repo: Repo, tmp_path: Path) -> None:
    """`git ls-remote` of the place, where the person's git runs (a relative URL from there),
    as the share kind and the push gate ask it; a place that does not answer, why not."""
    remote = origin(repo, tmp_path / "remote.git")
    repo.git("tag", "-a", "v1", "-m", "release")
    repo.git("push", "-q", "--no-verify", "origin", "v1")
    tag = repo.git("rev-parse", "v1")
    relative = os.path.relpath(remote, repo.path)
    tips, why = push_heard.heard_tips(relative, cwd=repo.path, git_dir=repo.git_dir, timeout=30)
    assert tips == sorted({repo.head(), tag}) and why == ""  # the tag and the commit it names
    tips, why = push_heard.heard_tips(
        str(tmp_path / "gone.git"), cwd=repo.path, git_dir=repo.git_dir, timeout=30
    )
    # git's first line, the reason (its last is advice: "and the repository exists.").
    assert tips is None and why.startswith("fatal: '") and "does not appear to be a git" in why
