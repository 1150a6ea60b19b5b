"""A team's reviews travel with its commits: three developers on one machine (three homes, three
clones, one bare remote), each with their own real reviewer. A reviews and shares; B pulls and
takes A's reviews instead of reviewing; notes pushed at once by two arrive both; a remote out of
reach keeps them waiting; a 1,000-commit pull reviews nothing; a flood nobody shared is one
range, never cut silently. (`landwatch share` itself: tests/commands/test_share.py.)"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from landwatch import report_store, work_item
from landwatch.kinds.base import ItemHandler
from landwatch.kinds.review import ReviewHandler
from landwatch.kinds.share import ShareHandler
from landwatch.work_item import DONE, PENDING, WorkKind
from support.kinds import FakeClock, in_process, settle_down
from support.team import (
    Developer,
    build_commits,
    developer,
    push_notes,
    remote_notes,
    seeded_remote,
    share_reviews,
)


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return seeded_remote(tmp_path)


@pytest.fixture
def team(tmp_path: Path, remote: Path) -> dict[str, Developer]:
    """A, B and C, each sharing through the remote."""
    people = {name: developer(tmp_path, name, remote) for name in ("a", "b", "c")}
    for person in people.values():
        shared = person.landwatch("share")
        assert shared.returncode == 0, shared.stderr
    return people


def reviews_run(person: Developer, commits: list[str]) -> list[str]:
    """Of `commits`, those whose stored review was made by this developer's reviewer."""
    made = []
    for commit in commits:
        report = report_store.read(person.git_dir, commit)
        assert report is not None, f"{commit[:12]} not covered"
        if report.reviewed_by is None:
            made.append(commit)
    return made


def test_a_pull_of_shared_reviews_runs_no_review_and_show_names_the_reviewer(
    team: dict[str, Developer], remote: Path
) -> None:
    a, b = team["a"], team["b"]
    first = a.commit("Add the cart", {"cart.py": "total = 0  \n"})
    second = a.commit("Add the docs", {"README.md": "the cart\n"})
    a.reviewer()
    assert remote_notes(remote, first) == []  # held back: the remote does not hold the commits
    a.git("push", "-q", "origin", "main")
    a.reviewer()  # the push moved origin/main: the notes held back for it go
    assert len(remote_notes(remote, first)) == 1 and len(remote_notes(remote, second)) == 1
    b.git("pull", "-q")
    b.reviewer()
    assert reviews_run(b, [first, second]) == []
    taken = report_store.read(b.git_dir, first)
    assert taken is not None and taken.reviewed_by == a.email
    assert [f.rule for f in taken.findings if f.rule == "P001"] == ["P001"]
    shown = b.landwatch("show", first)
    assert f"shared by {a.email}" in shown.stdout and "P001" in shown.stdout
    data = json.loads(b.landwatch("show", first, "--json").stdout)
    assert data["shared"] is True and data["reviewed_by"] == a.email
    status = b.landwatch("status", "--json")
    sharing = json.loads(status.stdout)["repositories"][0]["sharing"]
    assert sharing["remote"] == "origin" and sharing["taken"] == 2
    assert "sharing reviews with origin" in b.landwatch("status").stdout
    # B's own commit is B's to review, and to share.
    own = b.commit("Fix the cart", {"cart.py": "total = 0\n"})
    b.reviewer()
    assert reviews_run(b, [own]) == [own]
    b.git("push", "-q", "origin", "main")
    b.reviewer()
    assert [json.loads(line)["reviewed_by"] for line in remote_notes(remote, own)] == [b.email]


def test_two_developers_pushing_notes_at_once_lose_nothing(
    team: dict[str, Developer], remote: Path
) -> None:
    a, b, c = team["a"], team["b"], team["c"]
    c.landwatch("share", "--off", check=True)  # C shares nothing: A and B both review C's commit
    theirs = c.commit("Add the ledger", {"ledger.txt": "one\n"})
    c.git("push", "-q", "origin", "main")
    for person in (a, b):
        person.git("pull", "-q")
        person.commit(f"{person.name}'s own", {f"{person.name}.txt": "mine\n"})
    failures: list[BaseException] = []

    def drained(person: Developer) -> None:
        try:
            person.reviewer()
        except BaseException as failure:  # a thread's exception would only be a warning
            failures.append(failure)

    threads = [threading.Thread(target=drained, args=(person,)) for person in (a, b)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    for person in (a, b):  # a push refused while the other's went first is fetched, merged, again
        person.reviewer()
    both = {json.loads(line)["reviewed_by"] for line in remote_notes(remote, theirs)}
    assert both == {a.email, b.email}
    for person in (a, b):  # their own commits are on no remote branch: their notes stay home
        assert remote_notes(remote, person.git("rev-parse", "HEAD")) == []


def test_notes_meeting_the_remote_s_ref_locked_by_another_push_are_pushed_again(
    team: dict[str, Developer], remote: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A loaded run of the test above: two reviewers' notes pushed at once, one met the other's
    lock on the remote's ref (`[remote rejected] (failed to update ref)`), and its share item
    was given up at its first try, told as a failure to mend by hand. A teammate's push going
    first, as `fetch first` is: fetched, merged and pushed again, later if it still fails."""
    a = team["a"]
    for name, value in a.env().items():
        monkeypatch.setenv(name, value)  # the in-process reviewer is A's
    oid = a.commit("Add the ledger", {"ledger.txt": "one\n"})
    a.git("push", "-q", "origin", "main")
    lock = remote / "refs" / "notes" / "landwatch.lock"  # as another push holds it
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.touch()
    ran = a.landwatch("reviewer", "--once", "--wait", "0")
    assert ran.returncode == 75 and "left for the next run: 1 share item(s)" in ran.stderr, ran
    lock.unlink()
    clock = FakeClock()
    reviewer = in_process({WorkKind.SHARE: ShareHandler(clock=clock)}, clock, tmp_path / "s.json")
    clock.advance(61)
    settle_down(reviewer)
    reviewer.shutdown()
    assert [json.loads(line)["reviewed_by"] for line in remote_notes(remote, oid)] == [a.email]


def test_notes_wait_while_the_remote_is_away_then_go(
    team: dict[str, Developer], remote: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = team["a"]
    for name, value in a.env().items():
        monkeypatch.setenv(name, value)  # the in-process reviewer is A's
    oid = a.commit("Add the ledger", {"ledger.txt": "one\n"})
    a.git("push", "-q", "origin", "main")
    away = tmp_path / "away.git"
    remote.rename(away)
    # The review is made and its note written; its push waits, left at once (--wait 0).
    ran = a.landwatch("reviewer", "--once", "--wait", "0")
    assert ran.returncode == 75 and "left for the next run: 1 share item(s)" in ran.stderr
    assert [work_item.id_of_entry(n) for n in work_item.entries(a.git_dir, PENDING)] == [
        f"share-{oid}"
    ]
    status = json.loads(a.landwatch("status", "--json").stdout)["repositories"][0]
    assert status["sharing"]["notes_waiting"] == 1
    assert status["sharing"]["failing_since"] is not None
    assert "sharing reviews with origin has failed" in a.landwatch("status").stdout
    clock = FakeClock()  # the reviewer again, on a clock the test moves
    kind = ShareHandler(clock=clock)
    reviewer = in_process({WorkKind.SHARE: kind}, clock, tmp_path / "state.json")
    settle_down(reviewer)
    assert remote_notes(away, oid) == []
    away.rename(remote)
    clock.advance(61)
    settle_down(reviewer)
    reviewer.shutdown()
    assert [json.loads(line)["reviewed_by"] for line in remote_notes(remote, oid)] == [a.email]
    assert f"share-{oid}" in {work_item.id_of_entry(n) for n in work_item.entries(a.git_dir, DONE)}
    after = json.loads(a.landwatch("status", "--json").stdout)["repositories"][0]["sharing"]
    assert after["notes_waiting"] == 0 and after["failing_since"] is None
    assert after["last_pushed_at"] == clock.time()


def test_the_review_that_queues_a_share_has_it_pushed_before_a_once_reviewer_ends(
    team: dict[str, Developer], remote: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under load, `reviewer --once` ended before its watcher saw the `share` item the review
    had queued, and the note waited for the next run. The review says it queued one: with no
    watcher at all, the reviewer still looks again and pushes it before it is drained."""
    a = team["a"]
    for name, value in a.env().items():
        monkeypatch.setenv(name, value)  # the in-process reviewer is A's
    oid = a.commit("Add the ledger", {"ledger.txt": "one\n"})
    a.git("push", "-q", "origin", "main")
    clock = FakeClock()
    handlers: dict[str, ItemHandler[Any]] = {
        WorkKind.REVIEW: ReviewHandler(clock=clock),
        WorkKind.SHARE: ShareHandler(clock=clock),
    }
    reviewer = in_process(handlers, clock, tmp_path / "state.json")  # no file events
    try:
        settle_down(reviewer)
    finally:
        reviewer.shutdown()
    assert [json.loads(line)["reviewed_by"] for line in remote_notes(remote, oid)] == [a.email]
    assert f"share-{oid}" in {work_item.id_of_entry(n) for n in work_item.entries(a.git_dir, DONE)}


def test_a_thousand_commit_pull_with_shared_reviews_runs_no_review(
    team: dict[str, Developer], remote: Path
) -> None:
    a, b = team["a"], team["b"]
    commits = build_commits(a, 1000)
    share_reviews(a, commits)
    a.git("push", "-q", "origin", "main", "refs/notes/landwatch")
    b.git("pull", "-q")
    assert len(b.git("notes", "--ref=refs/notes/remotes/origin/landwatch", "list").split()) == 2000
    b.reviewer()
    assert reviews_run(b, commits) == []
    assert report_store.read(b.git_dir, commits[500]).reviewed_by == a.email  # type: ignore[union-attr]
    done = [work_item.id_of_entry(n) for n in work_item.entries(b.git_dir, DONE)]
    assert done == [f"review-{commits[-1]}"]  # the pull's one item; nothing queued besides
    assert (
        json.loads(b.landwatch("status", "--json").stdout)["repositories"][0]["sharing"]["taken"]
        == 1000
    )


def test_commits_nobody_shared_are_each_reviewed(team: dict[str, Developer]) -> None:
    a, b = team["a"], team["b"]
    commits = build_commits(a, 6)
    share_reviews(a, commits[:3])
    a.git("push", "-q", "origin", "main", "refs/notes/landwatch")
    b.git("pull", "-q")
    b.reviewer()
    assert reviews_run(b, commits) == commits[3:]
    for commit in commits[3:]:
        report = report_store.read(b.git_dir, commit)
        assert report is not None and report.base is None  # each on its own, not as a range


def test_a_flood_nobody_shared_is_one_range_never_cut_silently(team: dict[str, Developer]) -> None:
    a, b = team["a"], team["b"]
    a.commit("Check few lines", {".landwatch.toml": "max_added_lines = 10\n"})
    a.git("push", "-q", "origin", "main")
    a.reviewer()  # A's review shared: B takes it, and pushes no note of its own
    b.git("pull", "-q")
    b.reviewer()
    commits = build_commits(a, 30)
    share_reviews(a, commits[:4])
    push_notes(a)
    b.git("pull", "-q")
    b.reviewer()
    assert reviews_run(b, commits[:4]) == []  # taken
    # The rest is covered by the range's review, not each by one of its own.
    assert [c for c in commits[4:-1] if report_store.stored(b.git_dir, c)] == []
    report = report_store.read(b.git_dir, commits[-1])
    assert report is not None and report.base is not None and report.truncated
    assert "4 commits of this range carried a teammate's review, taken" in " ".join(report.notes)
    [cut] = [f for f in report.findings if f.rule == "CUT"]
    assert f"landwatch ci {report.base[:12]}..{commits[-1][:12]}" in cut.message
    # A teammate's range is told only at error, but a review cut short is told all the same.
    said = b.run("git", "commit", "-q", "--allow-empty", "-m", "Next").stderr
    assert "CUT line checks stopped after 10 added lines" in said
    shown = b.landwatch("show", commits[-1]).stdout
    assert "lines-unchecked" in shown and "landwatch ci" in shown


def test_an_allowance_travels_in_the_note_to_a_teammate_and_to_ci(
    team: dict[str, Developer], remote: Path
) -> None:
    a, b = team["a"], team["b"]
    start = a.git("rev-parse", "HEAD")
    broken = a.commit("Merge badly", {"till.txt": "<<<<<<< HEAD\nthe till\n"})
    a.reviewer()
    # Past the push gate (its own tests: allowing lets a push through): here, the note's way.
    a.git("push", "-q", "--no-verify", "origin", "main")
    a.reviewer()  # the note goes, without the allowance yet
    [before] = remote_notes(remote, broken)
    [conflict] = [f for f in json.loads(before)["findings"] if f["severity"] == "error"]
    allowed = a.landwatch("allow", conflict["fingerprint"], "--reason", "used-in-tests")
    assert allowed.returncode == 0 and "the 1 note of its commits carry it" in allowed.stdout
    assert [json.loads(line).get("allowed") for line in remote_notes(remote, broken)] == [None]
    a.reviewer()  # the share item `allow` queued pushes the rewritten note
    # The line written before is merged back from the remote's notes (cat_sort_uniq keeps
    # every line): readers take what any line of the note allowed.
    lines = [json.loads(line) for line in remote_notes(remote, broken)]
    assert [line.get("allowed") is None for line in lines] == [False, True]
    [allowance] = lines[0]["allowed"]
    assert allowance["who"] == f"a <{a.email}>" and allowance["reason"] == "used-in-tests"
    assert allowance["fingerprint"] == conflict["fingerprint"]
    b.git("pull", "-q")
    b.reviewer()
    taken = report_store.read(b.git_dir, broken)
    assert taken is not None and taken.reviewed_by == a.email
    assert [one.as_dict() for one in taken.allowed] == [allowance]
    shown = b.landwatch("show", broken, "--json")
    assert json.loads(shown.stdout)["allowed"] == [allowance]
    assert f"(allowed: used-in-tests, by a <{a.email}>" in b.landwatch("show", broken).stdout
    # CI: a note is a teammate's claim, shown as allowed, trusted only when asked.
    untrusted = b.landwatch("ci", f"{start}..HEAD")
    assert untrusted.returncode == 1, untrusted.stdout + untrusted.stderr
    assert "(allowed: used-in-tests, by a <" in untrusted.stdout
    assert "1 finding allowed by teammates' notes, not trusted" in untrusted.stdout
    trusted = b.landwatch("ci", f"{start}..HEAD", "--trust-notes")
    assert trusted.returncode == 0, trusted.stdout + trusted.stderr
    assert "not trusted" not in trusted.stdout and "(1 allowed: landwatch allow)" in trusted.stdout
    # Where it was allowed, it is the person's own decision: CI there lets it through.
    mine = a.landwatch("ci", f"{start}..HEAD")
    assert mine.returncode == 0 and "not trusted" not in mine.stdout


def test_show_of_a_teammate_s_commit_that_never_landed_here_shows_what_they_shared(
    team: dict[str, Developer], remote: Path
) -> None:
    a, b = team["a"], team["b"]
    a.git("switch", "-q", "-c", "topic")
    theirs = a.commit("Add the cart", {"cart.py": "total = 0  \n"})
    a.git("push", "-q", "origin", "topic")
    a.reviewer()  # the review and its note pushed: the remote holds the commit
    assert len(remote_notes(remote, theirs)) == 1
    b.git("fetch", "-q", "origin")  # fetched, never landed here: no review of b's own
    b.reviewer()  # merges the remote's notes
    assert report_store.read(b.git_dir, theirs) is None
    shown = b.landwatch("show", theirs)
    assert shown.returncode == 0, shown.stderr
    assert f"this is the one {a.email} shared" in shown.stderr
    assert f"shared by {a.email}" in shown.stdout and "P001" in shown.stdout
    data = json.loads(b.landwatch("show", theirs, "--json").stdout)
    assert data["reviewed_by"] == a.email and data["commit"] == theirs
    # Nothing shared of it: said, as before.
    unshared = a.commit("More", {"more.py": "x = 1\n"})
    a.git("push", "-q", "origin", "topic")
    b.git("fetch", "-q", "origin")
    assert b.landwatch("show", unshared).returncode == 1
