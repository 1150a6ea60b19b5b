"""The push gate on a push of many refs, with real git and the real hook: past lw_most_refs the
quick path hands the push to `landwatch pre-push` (its loop grows strings, quadratic), which still
refuses a secret among them; a branch pushed is checked against its own tracking ref alone."""

from __future__ import annotations

import io
import os
import re
import shutil
from pathlib import Path

import pytest

from landwatch.commands.pre_push import REFUSED, pre_push
from support.daemon import run_reviewer
from support.kinds import entry_point_logging, origin
from support.repos import Repo
from support.secret_examples import AWS_KEY_ID

# Past the quick path's bound of 1,000 refs (githooks/pre-push.sh's lw_most_refs).
MANY = 3000


def tags_at(repo: Repo, commit: str, count: int, prefix: str = "t") -> None:
    """`count` lightweight tags at `commit`, made in one git."""
    lines = "".join(f"create refs/tags/{prefix}{n} {commit}\n" for n in range(count))
    made = repo.run("update-ref", "--stdin", stdin=lines)
    assert made.returncode == 0, made.stderr


def reviewed(repo: Repo) -> None:
    done = run_reviewer("--once")
    assert done.returncode == 0, done.stderr


def test_a_secret_among_thousands_of_pushed_tags_is_still_refused(
    repo: Repo, tmp_path: Path
) -> None:
    remote = origin(repo, tmp_path / "remote.git")
    clean = repo.land("clean", {"a.py": "x = 1\n"})
    repo.git("switch", "-q", "-c", "leak")
    leaked = repo.land("creds", {"creds.py": f'aws_access_key_id = "{AWS_KEY_ID}"\n'})
    repo.git("switch", "-q", "main")
    reviewed(repo)
    tags_at(repo, clean, MANY)
    repo.git("tag", "zz-leak", leaked)
    result = repo.run("push", "origin", "--tags")
    assert result.returncode != 0 and f"{leaked[:10]} creds.py:1" in result.stderr
    assert repo.run("--git-dir", str(remote), "tag").stdout == ""
    # Without it, the thousands go.
    repo.git("tag", "-d", "zz-leak")
    result = repo.run("push", "origin", "--tags")
    assert result.returncode == 0, result.stderr
    assert len(repo.run("--git-dir", str(remote), "tag").stdout.split()) == MANY


def test_a_push_of_more_refs_than_the_quick_path_reads_is_decided_by_the_python_gate(
    repo: Repo, tmp_path: Path
) -> None:
    """Every commit reviewed and clean: a few tags go with no Python started; thousands are
    `landwatch pre-push`'s (the entry point logs its call), not the quadratic shell loop's."""
    origin(repo, tmp_path / "remote.git")
    # Its first commit too, made before install: a tag's whole history is read.
    assert repo.landwatch("enqueue").returncode == 0
    clean = repo.land("clean", {"a.py": "x = 1\n"})
    reviewed(repo)
    log = tmp_path / "calls"
    entry_point_logging(log)
    tags_at(repo, clean, 10, "few")
    assert repo.run("push", "origin", "--tags").returncode == 0 and not log.exists()
    tags_at(repo, clean, MANY)
    assert repo.run("push", "origin", "--tags").returncode == 0
    assert log.read_text().startswith("pre-push -- origin ")


def test_a_branch_pushed_is_checked_against_its_own_tracking_ref_alone(
    repo: Repo, tmp_path: Path
) -> None:
    """The quick path asks git only of the tracking refs of the branches pushed, never a listing
    of every one searched once per branch (4,000 branches beside 4,000 tracked took 5 s); a
    tracking ref saying other than git does of the remote still sends the push to Python."""
    origin(repo, tmp_path / "remote.git")
    base = repo.head()
    branches = "".join(f"create refs/heads/b{n} {base}\n" for n in range(50))
    assert repo.run("update-ref", "--stdin", stdin=branches).returncode == 0
    assert repo.run("push", "-q", "--no-verify", "origin", "--all").returncode == 0
    repo.land("clean", {"a.py": "x = 1\n"})
    reviewed(repo)
    log, trace = tmp_path / "calls", tmp_path / "trace"
    entry_point_logging(log)
    result = repo.run("push", "origin", "main", GIT_TRACE=str(trace))
    assert result.returncode == 0 and not log.exists()
    traced = trace.read_text().splitlines()
    assert not [line for line in traced if re.search(r"refs/remotes/origin/'?\s*$", line)]
    # Its tracking ref stale (the remote moved since the last fetch): Python asks.
    repo.git("update-ref", "refs/remotes/origin/main", base)
    repo.land("cleaner", {"b.py": "y = 2\n"})
    reviewed(repo)
    assert repo.run("push", "origin", "main").returncode == 0
    assert log.exists()


def test_a_secret_in_a_push_of_more_refs_than_a_command_line_holds_is_refused(
    repo: Repo, tmp_path: Path
) -> None:
    """30,000 branches moved (a `git push --mirror`): their oids, two each, were rev-list's
    arguments, past what a command line holds (E2BIG), and the gate, unable to decide, let the
    secret go. They go on its stdin."""
    remote = origin(repo, tmp_path / "remote.git")
    base = repo.head()
    leaked = repo.land("creds", {"creds.py": f'aws_access_key_id = "{AWS_KEY_ID}"\n'})
    lines = "".join(f"refs/heads/b{n} {leaked} refs/heads/b{n} {base}\n" for n in range(30_000))
    err = io.StringIO()
    assert pre_push(repo.path, "origin", str(remote), lines, err=err) == REFUSED, err.getvalue()
    assert f"{leaked[:10]} creds.py:1" in err.getvalue()


def test_the_branch_to_mend_a_refused_push_on_is_found_in_one_git_of_any_number_pushed(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A push of 300 new branches whose last alone holds a key: the refusal names that branch
    to mend it on, asking git once for every branch pushed, not once each (with 4,000 branches
    the refusal took 5-7 s). A `git` on PATH before git's own counts what is asked."""
    remote = origin(repo, tmp_path / "remote.git")
    clean = repo.head()
    repo.git("switch", "-q", "-c", "leaky")
    leaked = repo.land("creds", {"creds.py": f'aws_access_key_id = "{AWS_KEY_ID}"\n'})
    repo.git("switch", "-q", "main")
    zero = "0" * len(clean)
    lines = "".join(f"refs/heads/b{n} {clean} refs/heads/b{n} {zero}\n" for n in range(300))
    made = "".join(f"create refs/heads/b{n} {clean}\n" for n in range(300))
    assert repo.run("update-ref", "--stdin", stdin=made).returncode == 0
    lines += f"refs/heads/leaky {leaked} refs/heads/leaky {zero}\n"
    asked, bin_dir = tmp_path / "asked", tmp_path / "bin"
    bin_dir.mkdir()
    real = shutil.which("git")
    (bin_dir / "git").write_text(f'#!/bin/sh\necho "$*" >> "{asked}"\nexec "{real}" "$@"\n')
    (bin_dir / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    err = io.StringIO()
    assert pre_push(repo.path, "origin", str(remote), lines, err=err) == REFUSED, err.getvalue()
    assert "git switch leaky" in err.getvalue()
    ancestry = [line for line in asked.read_text().splitlines() if "--is-ancestor" in line]
    assert len(ancestry) < 10, len(ancestry)  # before: one for each branch pushed, 301
