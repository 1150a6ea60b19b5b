"""`landwatch allow`: a finding allowed by its fingerprint (in every commit that holds it) or every
finding of a commit, with each reason, recorded with who and when; `show` and `status` say so;
what names neither is refused in one line and records nothing; nothing printed holds a secret
whole; a store that cannot be read is one line, never a crash."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from landwatch import allowances, layout
from landwatch.commands.allow import allow
from landwatch.review.allowed import REASONS, Allowance
from support.daemon import run_reviewer
from support.repos import Repo
from support.tokens import github_token

CONFLICT = "<<<<<<< HEAD\nthe till\n"  # one conflict marker: one error
AT = 1_700_000_000.0  # 2023-11-14, UTC
WHO = "Ann Lee <ann@example.com>"


def allowed(repo: Repo, target: str, reason: str) -> tuple[int, str]:
    """`landwatch allow TARGET --reason REASON` in `repo`, at AT: its status and its line."""
    out = io.StringIO()
    code = allow(repo.path, target, reason=reason, clock=lambda: AT, out=out)
    return code, out.getvalue()


def fingerprints(repo: Repo, commit: str, rule: str) -> list[str]:
    shown = json.loads(repo.landwatch("show", commit, "--json").stdout)
    return [f["fingerprint"] for f in shown["findings"] if f["rule"] == rule]


@pytest.fixture
def named(repo: Repo) -> Repo:
    repo.git("config", "user.name", "Ann Lee")
    repo.git("config", "user.email", "ann@example.com")
    return repo


@pytest.mark.parametrize("reason", REASONS)
def test_a_finding_allowed_by_its_fingerprint_is_allowed_in_every_commit_holding_it(
    named: Repo, reason: str
) -> None:
    base = named.head()
    first = named.land("Add the till", {"till.py": "total = 0  \n"})
    named.git("switch", "-q", "-c", "again", base)
    second = named.land("Add the till again", {"till.py": "total = 0  \n"})
    assert run_reviewer("--once").returncode == 0
    [fingerprint] = fingerprints(named, first, "P001")
    assert fingerprints(named, second, "P001") == [fingerprint]
    code, said = allowed(named, fingerprint.upper(), reason)
    short = [first[:12], second[:12]]
    assert code == 0
    assert said == (
        f"landwatch: allowed P001 trailing-whitespace in till.py:1 ({reason}, by {WHO} on "
        f"2023-11-14) wherever it is: found in 2 commits ({', '.join(sorted(short))})\n"
    )
    allowance = Allowance(reason, WHO, AT, fingerprint, None)
    assert allowances.recorded(named.git_dir) == [allowance]
    for commit in (first, second):
        assert json.loads(named.landwatch("show", commit, "--json").stdout)["allowed"] == [
            allowance.as_dict()
        ]
    shown = named.landwatch("show", first).stdout
    assert "P001 trailing-whitespace: trailing whitespace" in shown
    assert f"(allowed: {reason}, by {WHO} on 2023-11-14)" in shown


def test_a_commit_allowed_covers_every_finding_of_it_and_no_other(named: Repo) -> None:
    broken = named.land("Merge badly", {"till.txt": CONFLICT, "notes.txt": "x  \n"})
    other = named.land("More", {"more.txt": "y  \n"})
    assert run_reviewer("--once").returncode == 0
    code, said = allowed(named, "HEAD~1", "used-in-tests")
    assert code == 0
    assert said == (
        f"landwatch: allowed every finding of {broken[:12]} (used-in-tests, by {WHO} on "
        "2023-11-14): 1 error, 1 warning\n"
    )
    shown = json.loads(named.landwatch("show", broken, "--json").stdout)
    assert len(shown["findings"]) == 2
    assert shown["allowed"] == [Allowance("used-in-tests", WHO, AT, None, broken).as_dict()]
    assert json.loads(named.landwatch("show", other, "--json").stdout)["allowed"] == []
    text = named.landwatch("show", broken).stdout
    assert text.count("(allowed: used-in-tests, by Ann Lee") == 2
    # A commit nobody reviewed yet can be allowed too: whatever is found in it.
    unreviewed = named.land("Later", {"later.txt": "z\n"})
    code, said = allowed(named, unreviewed, "fix-later")
    assert code == 0 and said.endswith(
        f"{unreviewed[:12]} (fix-later, by {WHO} on 2023-11-14): no review of it here yet\n"
    )


def test_who_is_the_person_the_system_knows_when_git_does_not(repo: Repo) -> None:
    import getpass

    repo.land("Change", {"a.txt": "a\n"})
    assert allowed(repo, "HEAD", "fix-later")[0] == 0
    [allowance] = allowances.recorded(repo.git_dir)
    assert allowance.who == getpass.getuser()


def test_what_names_neither_a_finding_nor_a_commit_is_refused_and_records_nothing(
    repo: Repo, capsys: pytest.CaptureFixture[str]
) -> None:
    token = github_token("Q7w2")
    tree = repo.git("rev-parse", "HEAD^{tree}")
    for target in ("0123456789abcdef0123", "nosuchrev", tree, token):
        code, said = allowed(repo, target, "false-positive")
        refused = capsys.readouterr().err
        assert code == 1 and said == "" and refused.count("\n") == 1
        assert "is neither the fingerprint of a finding a review here holds nor a commit" in refused
        assert "landwatch show REV --json" in refused and token not in refused
    assert "'ghp_…'" in refused
    assert not layout.ALLOWED.path(repo.git_dir).exists()
    wrong = repo.landwatch("allow", "HEAD", "--reason", "because")
    assert wrong.returncode == 2 and "invalid choice: 'because'" in wrong.stderr
    assert repo.landwatch("allow", "HEAD").returncode == 2  # no reason: none is assumed


def test_what_is_printed_never_holds_a_secret_whole(named: Repo) -> None:
    token = github_token("Q7w2")  # built here: this file holds no token whole
    oid = named.land("change", {f"keys/{token}.txt": "x  \n"})
    assert run_reviewer("--once").returncode == 0
    [fingerprint] = fingerprints(named, oid, "P001")
    code, said = allowed(named, fingerprint, "fix-later")
    assert code == 0 and token not in said and "keys/ghp_….txt:1" in said
    for form in ((), ("--json",)):
        shown = named.landwatch("show", oid, *form)
        assert token not in shown.stdout and "allowed" in shown.stdout


def test_status_says_what_was_allowed_the_newest_few_counted(named: Repo) -> None:
    commits = [named.land(f"Change {n}", {f"{n}.txt": f"{n}\n"}) for n in range(4)]
    for number, commit in enumerate(commits):
        out = io.StringIO()
        clock = (AT + number).__float__  # each allowed a second after the one before
        assert allow(named.path, commit, reason="fix-later", clock=clock, out=out) == 0
    data = json.loads(named.landwatch("status", "--json").stdout)
    [repository] = data["repositories"]
    assert repository["allowed"]["count"] == 4 and repository["allowed"]["problem"] is None
    assert [one["commit"] for one in repository["allowed"]["newest"]] == commits[:0:-1]
    text = named.landwatch("status").stdout
    assert "4 allowances (landwatch allow), the newest:\n  every finding of " in text
    assert f"every finding of {commits[3][:12]} (fix-later, by {WHO} on 2023-11-14)" in text
    assert commits[0][:12] not in text


def test_a_corrupt_store_is_one_line_and_nothing_is_allowed_by_it(named: Repo) -> None:
    oid = named.land("Merge badly", {"till.txt": CONFLICT})
    assert run_reviewer("--once").returncode == 0
    assert allowed(named, oid, "false-positive")[0] == 0
    [kept] = layout.ALLOWED.path(named.git_dir).iterdir()
    kept.write_text('{"reason": "false-positive", "who": "Ann", "wh')
    shown = named.landwatch("show", oid, "--json")
    assert shown.returncode == 0 and json.loads(shown.stdout)["allowed"] == []
    assert (
        shown.stderr.count("\n") == 1 and "cannot be read as allowances (corrupt)" in shown.stderr
    )
    status = named.landwatch("status")
    assert status.returncode == 0 and "cannot be read as allowances (corrupt)" in status.stdout
    # Allowing it again mends it.
    assert allowed(named, oid, "false-positive")[0] == 0
    assert named.landwatch("show", oid, "--json").stderr == ""


def test_a_note_of_the_commit_carries_the_allowance(named: Repo) -> None:
    named.git("config", "landwatch.notes", "true")
    oid = named.land("Merge badly", {"till.txt": CONFLICT})
    assert run_reviewer("--once").returncode == 0
    before = named.git("notes", "--ref=landwatch", "show", oid)
    assert '"allowed"' not in before
    code, said = allowed(named, oid, "used-in-tests")
    assert code == 0 and said.rstrip().endswith("; the 1 note of its commits carry it")
    [line] = named.git("notes", "--ref=landwatch", "show", oid).splitlines()
    document = json.loads(line)
    assert document["allowed"] == [Allowance("used-in-tests", WHO, AT, None, oid).as_dict()]
    assert {k: v for k, v in document.items() if k != "allowed"} == json.loads(before)
    # No remote shares them: no share item is queued.
    assert named.pending(kind="share") == []


def test_the_store_is_the_repositorys_for_every_worktree(named: Repo, tmp_path: Path) -> None:
    oid = named.land("Change", {"a.txt": "a\n"})
    named.git("worktree", "add", "-q", str(tmp_path / "other"), "-b", "other")
    other = Repo.existing(tmp_path / "other")
    assert allowed(other, oid, "fix-later")[0] == 0
    assert [one.commit for one in allowances.recorded(named.git_dir)] == [oid]


def test_a_review_made_after_the_allowance_writes_it_into_its_note(named: Repo) -> None:
    named.git("config", "landwatch.notes", "true")
    oid = named.land("Merge badly", {"till.txt": CONFLICT})
    assert allowed(named, oid, "false-positive")[0] == 0  # before the reviewer reached it
    assert run_reviewer("--once").returncode == 0
    [line] = named.git("notes", "--ref=landwatch", "show", oid).splitlines()
    assert json.loads(line)["allowed"] == [
        Allowance("false-positive", WHO, AT, None, oid).as_dict()
    ]
