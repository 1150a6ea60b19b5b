"""The share kind with real remotes: the notes pushed; a push refused because a teammate's went
first fetched, merged and pushed again in one job; a remote that says no for another reason is
a failure told with its words; nothing to do without sharing or without notes; the note of a
commit the remote lacks held back, and queued once a push takes the commit there; what another
remote holds, or the place fetched from when pushed elsewhere, never taken for the remote's."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from landwatch import layout, work_item
from landwatch.kinds.base import GiveUp, RetryLater
from landwatch.kinds.push_holds import read_state
from landwatch.kinds.share import ShareHandler, queue_held
from landwatch.work_item import PENDING, WorkItem, WorkKind
from support.daemon import run_reviewer
from support.kinds import bare_remote, persons_pre_push, pushes, reporter
from support.repos import Repo
from support.tokens import random_text


@pytest.fixture
def remote(tmp_path: Path, repo: Repo) -> Path:
    remote = bare_remote(tmp_path / "remote.git")
    repo.git("remote", "add", "origin", str(remote))
    repo.git("push", "-q", "-u", "origin", "main")
    assert repo.landwatch("share").returncode == 0
    (remote / "pushes.log").unlink()
    return remote


def note(repo: Repo, oid: str, text: str) -> None:
    repo.git("notes", "--ref=landwatch", "add", "-f", "-m", text, oid)


def remote_note(remote: Path, oid: str) -> str:
    return subprocess.run(
        ["git", f"--git-dir={remote}", "notes", "--ref=landwatch", "show", oid],
        capture_output=True,
        text=True,
    ).stdout


def test_the_notes_are_pushed_once(repo: Repo, remote: Path) -> None:
    oid = repo.head()
    note(repo, oid, '{"mine": 1}')
    item = WorkItem(WorkKind.SHARE, oid, repo.git_dir)
    kind = ShareHandler()
    first, second = kind.handle(item, reporter()), kind.handle(item, reporter())
    assert first.pushed == ["refs/notes/landwatch"] and second.up_to_date == [
        "refs/notes/landwatch"
    ]
    assert remote_note(remote, oid) == '{"mine": 1}\n' and len(pushes(remote)) == 1


def test_the_notes_are_pushed_through_the_person_s_pre_push_hook_in_the_worktree(
    repo: Repo, remote: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Wherever the reviewer works (`/`), the notes' push runs the person's pre-push hook as
    their git push does, in the worktree (pre-commit's found no configuration in `/`)."""
    log = tmp_path / "ran"
    persons_pre_push(repo, log)
    repo.git("push", "-q", "origin", "main")
    oid = repo.head()
    note(repo, oid, '{"mine": 1}')
    monkeypatch.chdir("/")
    result = ShareHandler().handle(WorkItem(WorkKind.SHARE, oid, repo.git_dir), reporter())
    assert result.pushed == ["refs/notes/landwatch"] and remote_note(remote, oid)
    assert log.read_text().splitlines() == [str(repo.path)] * 2  # the branch's push, the notes'


def teammate_noted(remote: Path, oid: str, tmp_path: Path) -> None:
    """A teammate's note of `oid` (`{"theirs": 1}`), pushed to `remote` before ours."""
    teammate = tmp_path / "teammate"
    subprocess.run(["git", "clone", "-q", str(remote), str(teammate)], check=True)
    other = Repo.existing(teammate)
    other.git("notes", "--ref=landwatch", "add", "-m", '{"theirs": 1}', oid)
    other.git("push", "-q", "origin", "refs/notes/landwatch")


def test_a_teammate_s_notes_pushed_first_are_merged_not_overwritten(
    repo: Repo, remote: Path, tmp_path: Path
) -> None:
    oid = repo.head()
    teammate_noted(remote, oid, tmp_path)
    note(repo, oid, '{"mine": 1}')
    result = ShareHandler().handle(WorkItem(WorkKind.SHARE, oid, repo.git_dir), reporter())
    assert result.pushed == ["refs/notes/landwatch"]
    assert remote_note(remote, oid) == '{"mine": 1}\n{"theirs": 1}\n'  # both, nothing forced


def test_a_remote_that_refuses_the_notes_is_a_failure_in_its_words(
    repo: Repo, remote: Path
) -> None:
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'notes are not welcome here' >&2\nexit 1\n")
    hook.chmod(0o755)
    oid = repo.head()
    note(repo, oid, '{"mine": 1}')
    # In the remote's words, not git's alone (`pre-receive hook declined`: an audit).
    with pytest.raises(GiveUp, match=r"origin rejected the review notes: .*not welcome here"):
        ShareHandler().handle(WorkItem(WorkKind.SHARE, oid, repo.git_dir), reporter())


def test_a_remote_that_refuses_the_notes_ref_for_good_is_backed_off_and_said(
    repo: Repo, remote: Path
) -> None:
    """An audit: a lock a crashed server left on the notes ref (or a ref in its way) refuses
    every push with `failed to update ref`, which is also a teammate's race: three rounds,
    then a retry a minute later, never counted, never backed off, told nowhere. It is backed
    off as a remote out of reach is, and status says it is failing, in the remote's words."""
    (remote / "refs" / "notes").mkdir(parents=True, exist_ok=True)
    (remote / "refs" / "notes" / "landwatch.lock").write_text("")
    oid = repo.head()
    note(repo, oid, '{"mine": 1}')
    handler, item = ShareHandler(), WorkItem(WorkKind.SHARE, oid, repo.git_dir)
    waits = []
    for _ in range(3):
        with pytest.raises(RetryLater, match="kept moving under 3 pushes") as retried:
            handler.handle(item, reporter())
        waits.append(retried.value.after)
    assert waits == [60.0, 120.0, 240.0]
    state = read_state(repo.git_dir, layout.SHARE_STATE) or {}
    assert "failed to update ref" in str(state["last_error"]) and state["failing_since"]


def test_a_remote_helper_s_words_naming_a_token_are_kept_and_shown_redacted(
    repo: Repo, remote: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An audit: origin reached through a remote helper (`vault::https://ci:TOKEN@...`), which
    said it could not reach that URL, credentials and all: its words were kept whole as the
    sharing's last error in share-state.json, and `landwatch status` showed them."""
    token = random_text("helper", 24)
    helpers = tmp_path / "helpers"
    helpers.mkdir()
    (helpers / "git-remote-vault").write_text(
        '#!/bin/sh\necho "fatal: cannot reach $2" >&2\nexit 128\n'
    )
    (helpers / "git-remote-vault").chmod(0o755)
    monkeypatch.setenv("PATH", f"{helpers}{os.pathsep}{os.environ['PATH']}")
    repo.git("remote", "set-url", "origin", f"vault::https://ci:{token}@vault.example/app.git")
    note(repo, repo.head(), '{"mine": 1}')
    with pytest.raises(RetryLater, match="cannot reach"):
        ShareHandler().handle(WorkItem(WorkKind.SHARE, repo.head(), repo.git_dir), reporter())
    kept = layout.SHARE_STATE.path(repo.git_dir).read_text()
    shown = f"fatal: cannot reach https://ci:{token[0]}…@vault.example/app.git"
    assert json.loads(kept)["last_error"] == shown, kept
    status = repo.landwatch("status").stdout
    assert "pushing has failed for" in status and token not in kept + status, status


def test_nothing_is_pushed_without_sharing_or_without_notes(repo: Repo, remote: Path) -> None:
    item = WorkItem(WorkKind.SHARE, repo.head(), repo.git_dir)
    assert ShareHandler().handle(item, reporter()).up_to_date == ["refs/notes/landwatch"]
    assert repo.landwatch("share", "--off").returncode == 0
    note(repo, repo.head(), '{"mine": 1}')
    off = ShareHandler().handle(item, reporter())
    assert off.remote is None and "sharing is off" in off.note
    assert pushes(remote) == []


def test_a_remote_that_is_gone_from_the_config_is_given_up(repo: Repo, remote: Path) -> None:
    repo.git("config", "landwatch.share.remote", "nowhere")
    with pytest.raises(GiveUp, match="no remote named 'nowhere'"):
        ShareHandler().handle(WorkItem(WorkKind.SHARE, repo.head(), repo.git_dir), reporter())


def test_the_note_of_a_commit_the_remote_lacks_is_held_back_until_a_push_takes_it_there(
    repo: Repo, remote: Path
) -> None:
    """Issue 37, attack 10: the notes ref was pushed whole, the notes of a private branch's
    commits (their snippets) with it. Only notes of commits the remote holds go now, in a notes
    commit of their own; the rest wait in the share state until the remote's branches move."""
    shared = repo.head()
    repo.git("switch", "-q", "-c", "private")
    private = repo.land("Add the staging notes", {"staging.txt": "staging\n"}, hooks=False)
    note(repo, shared, '{"mine": 1}')
    note(repo, private, '{"private": 1}')
    blob = repo.git("notes", "--ref=landwatch", "list", private)
    item = WorkItem(WorkKind.SHARE, shared, repo.git_dir)
    assert ShareHandler().handle(item, reporter()).pushed == ["refs/notes/landwatch"]
    assert remote_note(remote, shared) == '{"mine": 1}\n' and remote_note(remote, private) == ""
    gone = subprocess.run(["git", f"--git-dir={remote}", "cat-file", "-e", blob])
    assert gone.returncode != 0  # in no history the push carried
    state = read_state(repo.git_dir, layout.SHARE_STATE)
    assert state is not None and state["held_back"] == {private: blob}
    seen: dict[Path, str] = {}
    assert not queue_held(repo.git_dir, seen)  # the remote's branches hold it not
    repo.git("push", "-q", "origin", "private")
    assert queue_held(repo.git_dir, seen) and not queue_held(repo.git_dir, seen)  # asked once
    [queued] = work_item.entries(repo.git_dir, PENDING)
    assert work_item.id_of_entry(queued) == f"share-{blob}"  # named by the note
    later = WorkItem(WorkKind.SHARE, blob, repo.git_dir)
    assert ShareHandler().handle(later, reporter()).pushed == ["refs/notes/landwatch"]
    assert remote_note(remote, private) == '{"private": 1}\n'
    after = read_state(repo.git_dir, layout.SHARE_STATE)
    assert after is not None and after["held_back"] == {}


@pytest.mark.parametrize(
    ("private", "branch", "public"),
    [("pub/internal", "plan", "pub"), ("corp", "public/plan", "corp/public")],
)
def test_the_note_of_a_commit_a_remote_named_within_another_holds_stays_off_that_one(
    repo: Repo, tmp_path: Path, private: str, branch: str, public: str
) -> None:
    """An audit: refs/remotes/pub/ took the private pub/internal's branches for pub's, and the
    note of a commit pushed to pub/internal alone (its line of code, its path) went to the public
    pub. Beside corp, corp's branch public/plan is the very ref corp/public's own plan would be.
    What the public one holds is asked of it, so only the note of its own commit goes."""
    for name in (private, public):
        repo.git("remote", "add", name, str(bare_remote(tmp_path / f"{name}.git")))
    repo.git("push", "-q", public, "main")
    assert repo.landwatch("share", public).returncode == 0
    shared = repo.head()
    repo.git("switch", "-q", "-c", "plan")
    secret = repo.land("Plan the acquisition", {"plan.py": "buy('ACME')\n"}, hooks=False)
    repo.git("push", "-q", private, f"plan:{branch}")
    note(repo, shared, '{"mine": 1}')
    note(repo, secret, '{"private": 1}')
    blobs = {oid: repo.git("notes", "--ref=landwatch", "list", oid) for oid in (shared, secret)}
    result = ShareHandler().handle(WorkItem(WorkKind.SHARE, secret, repo.git_dir), reporter())
    published = tmp_path / f"{public}.git"
    assert remote_note(published, secret) == ""
    assert remote_note(published, shared) == '{"mine": 1}\n'
    assert result.pushed == ["refs/notes/landwatch"]
    state = read_state(repo.git_dir, layout.SHARE_STATE)
    assert state is not None and state["held_back"] == {secret: blobs[secret]}
    assert not queue_held(repo.git_dir, {})  # nor queued later: pub's branches hold it not


def test_the_notes_wait_while_the_remote_is_pushed_elsewhere_than_it_is_fetched_from(
    repo: Repo, remote: Path, tmp_path: Path
) -> None:
    """Tracking refs say what the place fetched from holds. Fetched from a private repository
    and pushed to a public one (a push URL), they stand for nothing there, as for the push gate:
    the note of a commit the private one holds waits; the same place spelled otherwise is one."""
    repo.git("switch", "-q", "-c", "plan")
    secret = repo.land("Plan the acquisition", {"plan.py": "buy('ACME')\n"}, hooks=False)
    repo.git("push", "-q", "origin", "plan")
    public = bare_remote(tmp_path / "public.git")
    repo.git("config", "remote.origin.pushurl", str(public))
    note(repo, secret, '{"private": 1}')
    item = WorkItem(WorkKind.SHARE, secret, repo.git_dir)
    assert ShareHandler().handle(item, reporter()).up_to_date == ["refs/notes/landwatch"]
    assert remote_note(public, secret) == "" and pushes(public) == []
    assert not queue_held(repo.git_dir, {})
    repo.git("config", "remote.origin.pushurl", f"file://{remote}")
    assert ShareHandler().handle(item, reporter()).pushed == ["refs/notes/landwatch"]
    assert remote_note(remote, secret) == '{"private": 1}\n'


def test_a_note_goes_only_where_the_remote_holds_its_commit_after_a_set_url(
    repo: Repo, remote: Path, tmp_path: Path
) -> None:
    """A helper's finding: after `git remote set-url` to another repository and a fetch, the
    tracking refs of the first (a fetch prunes none) still stood, and the note of a commit only
    the first holds went to the new one. What the new one holds is asked of it."""
    repo.git("switch", "-q", "-c", "plan")
    secret = repo.land("Plan the acquisition", {"plan.py": "buy('ACME')\n"}, hooks=False)
    repo.git("push", "-q", "origin", "plan")
    public = bare_remote(tmp_path / "public.git")
    repo.git("remote", "set-url", "origin", str(public))
    repo.git("fetch", "-q", "origin")
    assert repo.git("rev-parse", "refs/remotes/origin/plan") == secret  # still standing
    note(repo, secret, '{"private": 1}')
    note_blob = repo.git("notes", "--ref=landwatch", "list", secret)
    ShareHandler().handle(WorkItem(WorkKind.SHARE, secret, repo.git_dir), reporter())
    assert remote_note(public, secret) == ""
    state = read_state(repo.git_dir, layout.SHARE_STATE)
    assert state is not None and state["held_back"] == {secret: note_blob}
    repo.git("push", "-q", "origin", "plan")  # now it holds it: the note goes
    ShareHandler().handle(WorkItem(WorkKind.SHARE, secret, repo.git_dir), reporter())
    assert remote_note(public, secret) == '{"private": 1}\n'


def test_the_notes_pushed_are_no_work_for_the_push_gate_and_leave_no_ref(
    repo: Repo, remote: Path, tmp_path: Path
) -> None:
    log = tmp_path / "calls"
    entry = layout.ENTRY_POINT.path()
    entry.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\ncat > /dev/null\nexit 0\n')
    oid = repo.head()
    note(repo, oid, '{"snippet": "-----BEGIN OPENSSH PRIVATE KEY-----"}')
    result = ShareHandler().handle(WorkItem(WorkKind.SHARE, oid, repo.git_dir), reporter())
    assert result.pushed == ["refs/notes/landwatch"] and "PRIVATE KEY" in remote_note(remote, oid)
    # Pushed from a notes ref to one: the hook let it go without asking the gate.
    assert not log.exists()
    assert repo.git("for-each-ref", "refs/notes/landwatch-outgoing") == ""


@pytest.mark.parametrize("moved", ["set-url", "pushurl"])
def test_a_teammate_s_notes_of_private_commits_stay_off_the_remote_the_notes_now_go_to(
    repo: Repo, remote: Path, tmp_path: Path, moved: str
) -> None:
    """Attack 68: the notes commit pushed was built on the notes tracking ref, what the fetch URL
    had: after `git remote set-url` to a new public repository, or with a push URL elsewhere, a
    teammate's review of a private commit (and that ref's whole history) went there. It is built
    on what the destination holds now, and carries only ours of commits it holds."""
    teammate = tmp_path / "teammate"
    subprocess.run(["git", "clone", "-q", str(remote), str(teammate)], check=True)
    other = Repo.existing(teammate)
    other.git("switch", "-q", "-c", "acquisition")
    private = other.land("Plan the ACME acquisition", {"plan": "buy ACME at 40\n"}, hooks=False)
    other.git("notes", "--ref=landwatch", "add", "-m", '{"review": "plan:1"}', private)
    other.git("push", "-q", "origin", "acquisition", "refs/notes/landwatch")
    repo.git("fetch", "-q", "origin")
    fetched = repo.git("rev-list", "refs/notes/remotes/origin/landwatch").split()
    public = bare_remote(tmp_path / "public.git")
    if moved == "set-url":
        repo.git("remote", "set-url", "origin", str(public))
    else:
        repo.git("config", "remote.origin.pushurl", str(public))
    repo.git("push", "-q", "origin", "main")
    shared = repo.land("Public work", {"c": "y\n"}, hooks=False)
    repo.git("push", "-q", "origin", "main")
    note(repo, shared, '{"mine": 1}')
    result = ShareHandler().handle(WorkItem(WorkKind.SHARE, shared, repo.git_dir), reporter())
    assert result.pushed == ["refs/notes/landwatch"]
    assert remote_note(public, shared) == '{"mine": 1}\n' and remote_note(public, private) == ""
    history = git_in(public, "rev-list", "refs/notes/landwatch").split()
    assert not set(history) & set(fetched)  # none of the notes history the fetch brought
    assert git_in(repo.git_dir, "for-each-ref", "refs/notes/landwatch-destination/") == ""
    blob = other.git("notes", "--ref=landwatch", "list", private)
    gone = subprocess.run(["git", f"--git-dir={public}", "cat-file", "-e", blob])
    assert gone.returncode != 0  # in no form


def test_notes_a_teammate_pushed_to_the_destination_first_are_kept_when_it_is_not_fetched_from(
    repo: Repo, remote: Path, tmp_path: Path
) -> None:
    """Pushed elsewhere than fetched from, the notes are built on what the push URL holds, and
    a teammate's note pushed there first, never fetched here, is kept beside ours."""
    public = bare_remote(tmp_path / "public.git")
    repo.git("config", "remote.origin.pushurl", str(public))
    repo.git("push", "-q", "origin", "main")
    oid = repo.head()
    teammate_noted(public, oid, tmp_path)
    note(repo, oid, '{"mine": 1}')
    result = ShareHandler().handle(WorkItem(WorkKind.SHARE, oid, repo.git_dir), reporter())
    assert result.pushed == ["refs/notes/landwatch"]
    assert remote_note(public, oid) == '{"mine": 1}\n{"theirs": 1}\n'


def git_in(git_dir: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", f"--git-dir={git_dir}", *args], capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def test_a_share_remote_given_as_a_url_is_refused_in_one_line(repo: Repo, tmp_path: Path) -> None:
    """landwatch.share.remote set to a URL by hand (`landwatch share` takes a remote's name): the
    reviews went there, looked for in `refs/notes/remotes/file:///...`, no ref's name, while
    status said they were shared and doctor that it was no remote. It is no remote: sharing is
    off, and status and doctor say why in one line."""
    remote = bare_remote(tmp_path / "remote.git")
    repo.git("remote", "add", "origin", str(remote))
    repo.git("push", "-q", "-u", "origin", "main")
    url = f"file://{remote}"
    repo.git("config", "landwatch.share.remote", url)
    landed = repo.land("reviewed", "r")
    repo.git("push", "-q", "origin", "main")
    assert run_reviewer("--once").returncode == 0
    assert remote_note(remote, landed) == ""
    said = f"git config landwatch.share.remote = '{url}' is no remote's name (a URL or a path"
    status = repo.landwatch("status").stdout
    assert said in status and "sharing reviews with" not in status, status
    doctor = repo.landwatch("doctor")
    assert (doctor.stdout + doctor.stderr).count(said) == 1, doctor
