"""Issue 37, attack 10: a shared note can add, never hide. Three developers (three homes, one bare
remote, real git and real reviewers); mallory can push notes. Lines forged to sort first, or a
copy of a real review's reviewer and time, no longer displace it; a forged "no findings" taken
still has the private key told, by the reviewer that took it; and the note of a commit on a
local-only branch stays home until the branch is pushed."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from landwatch import report_store
from support.secret_examples import pem
from support.team import (
    Developer,
    developer,
    push_notes,
    remote_notes,
    seeded_remote,
    share_reviews,
)

KEY = "\n".join(pem("OPENSSH PRIVATE KEY", 4)) + "\n"


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return seeded_remote(tmp_path)


@pytest.fixture
def team(tmp_path: Path, remote: Path) -> dict[str, Developer]:
    """A, B and mallory, each sharing through the remote."""
    people = {name: developer(tmp_path, name, remote) for name in ("a", "b", "mallory")}
    for person in people.values():
        assert person.landwatch("share").returncode == 0
    return people


def forged(real: str, **changes: Any) -> str:
    """`real` (a document) with `changes`, written as landwatch writes a document."""
    data = {**json.loads(real), **changes}
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def push_note(person: Developer, oid: str, lines: list[str]) -> None:
    """`lines` as the note of `oid`, sorted (as git's cat_sort_uniq leaves them), pushed to the
    remote's notes on top of what it holds."""
    person.git("fetch", "-q", "origin")
    tracking = "refs/notes/remotes/origin/landwatch"
    person.git("notes", "--ref=landwatch", "merge", "-q", "--strategy=cat_sort_uniq", tracking)
    note = person.home / "note"
    note.write_text("\n".join(sorted(lines)) + "\n")
    person.git("notes", "--ref=landwatch", "add", "-f", "-F", str(note), oid)
    person.git("push", "-q", "origin", "refs/notes/landwatch")


def logged(person: Developer) -> str:
    return (person.home / ".local/state/landwatch/reviewer.log").read_text()


def told(person: Developer) -> str:
    """What the one line tells at the developer's next landing."""
    return person.run("git", "commit", "-q", "--allow-empty", "-m", "Next").stderr


def test_thirty_two_forged_lines_that_sort_first_hide_no_review(
    team: dict[str, Developer], remote: Path
) -> None:
    a, b, mallory = team["a"], team["b"], team["mallory"]
    oid = a.commit("Add the cart", {"cart.py": "total = 0  \n"})
    a.git("push", "-q", "origin", "main")
    a.reviewer()
    [real] = remote_notes(remote, oid)
    assert '"rule":"P001"' in real
    clean = [forged(real, findings=[], reviewed_by=f"x{n}@team.example") for n in range(32)]
    assert max(clean) < real  # all 32 sort before the real review
    mallory.git("pull", "-q")
    push_note(mallory, oid, [real, *clean])
    b.git("pull", "-q")
    b.reviewer()
    report = report_store.read(b.git_dir, oid)
    assert report is not None and report.reviewed_by is None  # reviewed here, not taken
    assert "P001" in {f.rule for f in report.findings}
    assert f"the shared reviews of {oid[:12]} disagree: reviewed here" in logged(b)


def test_a_forged_line_with_the_real_reviewer_and_time_still_has_the_key_told(
    team: dict[str, Developer], remote: Path
) -> None:
    a, b, mallory = team["a"], team["b"], team["mallory"]
    oid = a.commit("Add the deploy key", {"deploy/id_ed25519": KEY})
    a.git("push", "-q", "--no-verify", "origin", "main")  # past the gate, on purpose
    a.reviewer()
    [real] = remote_notes(remote, oid)
    assert '"rule":"S001"' in real
    twin = forged(real, findings=[])  # the same reviewed_by and reviewed_at: read as one before
    assert twin < real
    mallory.git("pull", "-q")
    push_note(mallory, oid, [real, twin])
    b.git("pull", "-q")
    b.reviewer()
    report = report_store.read(b.git_dir, oid)
    assert report is not None and "S001" in {f.rule for f in report.findings}
    assert "S001" in told(b)


def test_a_forged_clean_review_taken_has_the_key_told_as_the_reviewer_s_own(
    team: dict[str, Developer],
) -> None:
    b, mallory = team["b"], team["mallory"]
    oid = mallory.commit("Add the deploy key", {"deploy/id_ed25519": KEY})
    share_reviews(mallory, [oid])  # "no findings", made as a landwatch makes a review
    push_notes(mallory)
    b.git("pull", "-q")
    b.reviewer()
    report = report_store.read(b.git_dir, oid)
    assert report is not None and report.reviewed_by == mallory.email  # taken
    [key] = [f for f in report.findings if f.rule == "S001"]
    assert report.found_here == [key.fingerprint]
    assert any(
        "the rules a push is refused for" in note and "this reviewer's own" in note
        for note in report.notes
    )
    assert "S001" in told(b)
    shown = b.landwatch("show", oid).stdout
    assert f"shared by {mallory.email}" in shown and "found here, not in the shared review" in shown


def test_the_note_of_a_local_only_commit_stays_home_until_its_branch_is_pushed(
    team: dict[str, Developer], remote: Path
) -> None:
    a = team["a"]
    a.git("switch", "-q", "-c", "private")
    hidden = a.commit("Add the staging notes", {"staging.txt": "db = staging-7  \n"})
    a.reviewer()
    note = a.git("notes", "--ref=landwatch", "list", hidden)
    assert remote_notes(remote, hidden) == []
    a.git("switch", "-q", "main")
    shared = a.commit("Add the ledger", {"ledger.txt": "one\n"})
    a.git("push", "-q", "origin", "main")
    a.reviewer()  # the ledger's note goes; the private branch's stays, in no form
    assert [json.loads(line)["reviewed_by"] for line in remote_notes(remote, shared)] == [a.email]
    assert remote_notes(remote, hidden) == []
    missing = subprocess.run(["git", f"--git-dir={remote}", "cat-file", "-e", note])
    assert missing.returncode != 0  # not in the remote's objects either: no history carried it
    a.git("push", "-q", "origin", "private")
    a.reviewer()  # origin/private moved: the note held back for it goes now
    [line] = remote_notes(remote, hidden)
    assert json.loads(line)["reviewed_by"] == a.email and "staging.txt" in line


def test_show_of_a_fetched_commit_never_shows_a_forged_newer_clean_review_over_the_key(
    team: dict[str, Developer], remote: Path
) -> None:
    """An audit: `landwatch show` of a teammate's commit that never landed here showed the review
    whose own reviewed_at was newest: a clean copy dated 2100 hid the review that found a key.
    It shows the one that found the most, and says the reviews disagree."""
    a, b, mallory = team["a"], team["b"], team["mallory"]
    a.git("switch", "-q", "-c", "deploy")
    oid = a.commit("Add the deploy key", {"deploy/id_ed25519": KEY})
    a.git("push", "-q", "--no-verify", "origin", "deploy")  # past the gate, on purpose
    a.reviewer()
    [real] = remote_notes(remote, oid)
    assert '"rule":"S001"' in real
    clean = forged(real, findings=[], reviewed_by=mallory.email, reviewed_at=4102444800)
    push_note(mallory, oid, [real, clean])
    b.git("fetch", "-q", "origin")  # looked at, never landed here: no review of b's own
    assert report_store.read(b.git_dir, oid) is None
    shown = b.landwatch("show", "origin/deploy")
    assert shown.returncode == 0, shown.stderr
    assert f"shared by {a.email}" in shown.stdout and "S001" in shown.stdout
    assert (
        f"landwatch: the 2 shared reviews of {oid[:12]} disagree: this is the one that found "
        "the most\n"
    ) in shown.stderr
    data = json.loads(b.landwatch("show", "origin/deploy", "--json").stdout)
    assert data["reviewed_by"] == a.email and "S001" in {f["rule"] for f in data["findings"]}
