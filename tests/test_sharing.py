"""Which teammate's review stands for one's own: a complete one, made under the same rules and
configuration, not contradicted by another; garbage in a note is ignored with one line, and the
reviewer then reviews the commit itself. A review taken still has the secret rules run here: what
they find that it lacks is added, as this reviewer's own."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest

from landwatch import layout, report_store, sharing, standards_store
from landwatch.review import blocking, engine, notes, provenance
from landwatch.review.budget import Budget
from landwatch.review.change import open_repository, resolve
from landwatch.review.config import LinterConfig
from landwatch.review.findings import Finding, Severity
from landwatch.review.linters import LinterPolicy
from landwatch.review.report import Report
from support.daemon import run_reviewer
from support.repos import Repo
from support.secret_examples import pem

FOUND = Finding(
    "P001",
    "trailing-whitespace",
    Severity.WARNING,
    "trailing whitespace",
    "a.txt",
    1,
    fingerprint="aa",
)


def shared(
    repo: Repo,
    oid: str,
    *findings: Finding,
    by: str = "a@team.example",
    rules: str | None = None,
    linters: LinterPolicy | None = None,
    truncated: bool = False,
) -> str:
    """A teammate's document for `oid`, added to its note."""
    opened = open_repository(repo.git_dir)
    learned = standards_store.current(repo.git_dir, opened, resolve(opened, oid))
    report = Report(
        oid, None, "commit", oid[:12], rules=["P001"], findings=list(findings), truncated=truncated
    )
    line = notes.document(
        report,
        reviewed_by=by,
        rules_version=rules or provenance.rules_version(),
        config_hash=provenance.config_hash(opened, resolve(opened, oid), linters or LinterPolicy()),
        at=time.time(),
        learned=learned.effective(),
    )
    held = repo.run("notes", "--ref=landwatch", "show", oid).stdout
    repo.git("notes", "--ref=landwatch", "add", "-f", "-m", (held + line).strip(), oid)
    return line


def finder(repo: Repo) -> sharing.Finder:
    return sharing.Finder(repo.git_dir, open_repository(repo.git_dir), LinterPolicy())


def test_a_complete_review_under_the_same_rules_and_configuration_is_taken(repo: Repo) -> None:
    oid = repo.land("Add a", {"a.txt": "x  \n"}, hooks=False)
    shared(repo, oid, FOUND)
    taken = finder(repo).matching(oid)
    assert taken is not None and taken.report.findings == [FOUND]
    assert taken.report.reviewed_by == "a@team.example"


@pytest.mark.parametrize("kind", ["another rules version", "cut short", "another configuration"])
def test_a_review_made_otherwise_is_not_taken(repo: Repo, kind: str) -> None:
    oid = repo.land("Add a", {"a.txt": "x  \n"}, hooks=False)
    if kind == "another rules version":
        shared(repo, oid, FOUND, rules="0" * 64)
    elif kind == "cut short":
        shared(repo, oid, FOUND, truncated=True)
    else:
        # A teammate whose own linters ran: their configuration is not this one.
        theirs = LinterPolicy(own=(LinterConfig("mine", ("true",), "ruff-json"),))
        shared(repo, oid, FOUND, linters=theirs)
    assert finder(repo).matching(oid) is None


KEY = "\n".join(pem("OPENSSH PRIVATE KEY", 4)) + "\n"


def test_a_review_that_found_more_is_never_overruled_by_a_cleaner_matching_one(
    repo: Repo,
) -> None:
    """Issue 37, attack 10: a forged clean review made to match stood for the commit although
    another review of it (one not taken: another rules version) found what it lacks."""
    oid = repo.land("Add a", {"a.txt": "x  \n"}, hooks=False)
    shared(repo, oid, FOUND, by="a@team.example", rules="0" * 64)
    shared(repo, oid, by="mallory@team.example")  # matches, and says there is nothing
    found = finder(repo)
    assert found.matching(oid) is None
    assert found.ignored == [f"the shared reviews of {oid[:12]} disagree: reviewed here"]


def test_a_note_of_more_lines_than_are_read_stands_for_no_review(repo: Repo) -> None:
    oid = repo.land("Add a", {"a.txt": "x  \n"}, hooks=False)
    line = shared(repo, oid, by="mallory@team.example")
    junk = "\n".join(f"{{{n}" for n in range(notes.MAX_LINES))
    repo.git("notes", "--ref=landwatch", "add", "-f", "-m", f"{line}\n{junk}", oid)
    assert finder(repo).reviews(oid) == []
    found = finder(repo)
    assert found.matching(oid) is None
    assert found.ignored == [
        f"the note of {oid[:12]} in refs/notes/landwatch: a note of 257 lines, over 256: not read"
    ]


def test_a_review_taken_has_the_secrets_it_lacks_added_as_the_reviewer_s_own(repo: Repo) -> None:
    oid = repo.land("Add the key", {"deploy/id_ed25519": KEY}, hooks=False)
    here = engine.review(repo.git_dir, oid, secrets_only=True)
    [key] = here.findings
    assert here.rules == ["S001", "S002", "S003", "S004"] and key.rule == "S001"
    lowered = Finding(key.rule, key.name, Severity.INFO, "a test key", key.path, key.line)
    lowered.fingerprint = key.fingerprint
    shared(repo, oid, lowered, by="mallory@team.example")  # the key claimed, at info
    taken = finder(repo).take(oid)
    assert taken is not None and taken.reviewed_by == "mallory@team.example"
    assert [(f.rule, f.severity) for f in taken.findings] == [("S001", Severity.ERROR)]
    assert taken.found_here == [key.fingerprint]
    assert "1 finding the shared review lacks, this reviewer's own" in taken.notes[-1]


def test_a_review_taken_whose_secrets_agree_is_the_teammate_s_alone(repo: Repo) -> None:
    oid = repo.land("Add the key", {"deploy/id_ed25519": KEY}, hooks=False)
    [key] = engine.review(repo.git_dir, oid, secrets_only=True).findings
    shared(repo, oid, key, by="a@team.example")
    taken = finder(repo).take(oid)
    assert taken is not None and taken.findings == [key] and taken.found_here == []
    assert taken.notes[-1].endswith("ran here too: nothing the shared review lacks")


def test_a_forged_clean_review_cannot_take_a_conflict_marker_past_the_gate(repo: Repo) -> None:
    """Attack 86: a note saying "no findings" of a commit holding a merge conflict's markers was
    taken with only the secret rules run here, so the review had no P004 error and no blocking
    marker, and the gate's quick path let it out under the default `secrets`. Every rule a push
    is refused for runs here now."""
    conflicted = "<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> topic\n"
    oid = repo.land("Resolve", {"till.txt": conflicted}, hooks=False)
    shared(repo, oid, by="mallory@team.example")
    taken = finder(repo).take(oid)
    assert taken is not None and taken.reviewed_by == "mallory@team.example"
    assert {(f.rule, f.severity) for f in taken.findings} == {("P004", Severity.ERROR)}
    assert blocking.level(taken.findings) == blocking.SECRETS
    assert (
        "the rules a push is refused for (P004, S001, S002, S003, S004) ran here too"
        in (taken.notes[-1])
    )


def test_no_review_is_taken_once_the_secret_rules_ran_out_of_time(repo: Repo) -> None:
    first = repo.land("Add a", {"a.txt": "x\n"}, hooks=False)
    second = repo.land("Add b", {"b.txt": "y\n"}, hooks=False)
    for oid in (first, second):
        shared(repo, oid)
    found = finder(repo)
    found.budget = Budget(0)
    assert found.take(first) is None and found.take(second) is None
    assert found.ignored == [
        "the rules a push is refused for ran out of time on the commits taken: the rest "
        "reviewed here"
    ]
    assert finder(repo).take(first) is not None  # with time, taken


def test_two_matching_reviews_that_disagree_are_reviewed_here(repo: Repo) -> None:
    oid = repo.land("Add a", {"a.txt": "x  \n"}, hooks=False)
    shared(repo, oid, FOUND, by="a@team.example")
    shared(repo, oid, by="mallory@team.example")  # says there is nothing
    found = finder(repo)
    assert found.matching(oid) is None
    assert found.ignored == [f"the shared reviews of {oid[:12]} disagree: reviewed here"]


@pytest.fixture
def sharing_repo(repo: Repo, tmp_path: Path) -> Repo:
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    repo.git("remote", "add", "origin", str(remote))
    assert repo.landwatch("share").returncode == 0
    return repo


def test_garbage_notes_are_one_line_in_the_log_and_the_commit_is_reviewed(
    sharing_repo: Repo,
) -> None:
    repo = sharing_repo
    repo.land("Add a", {"a.txt": "x  \n"}, hooks=False)
    oid = repo.land("Add b", {"b.txt": "y  \n"}, hooks=False)
    repo.git("notes", "--ref=landwatch", "add", "-m", "\x1b]0;pwned\x07 {not json", oid)
    repo.landwatch("enqueue", oid)
    assert run_reviewer("--once").returncode == 0
    report = report_store.read(repo.git_dir, oid)
    assert report is not None and report.reviewed_by is None  # reviewed here
    log = layout.REVIEWER_LOG.path().read_text()
    assert f"the note of {oid[:12]} in refs/notes/landwatch: 1 line ignored (not JSON)" in log
    assert "\x1b" not in log and "\x07" not in log


def test_a_forged_note_is_taken_by_a_reviewer_that_trusts_its_team(sharing_repo: Repo) -> None:
    """What sharing trusts, shown: a teammate's "no findings" for a trailing space stands for the
    review here (docs/security.md; a secret would be told all the same); `landwatch ci` is where
    a forged note is caught."""
    repo = sharing_repo
    oid = repo.land("Add a", {"a.txt": "x  \n"}, hooks=False)
    shared(repo, oid, by="mallory@team.example")
    repo.landwatch("enqueue", oid)
    assert run_reviewer("--once").returncode == 0
    report = report_store.read(repo.git_dir, oid)
    assert report is not None and report.reviewed_by == "mallory@team.example"
    assert report.findings == []
