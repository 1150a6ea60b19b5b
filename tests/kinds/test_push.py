"""The push kind with real remotes: pushing, idempotence, coalescing while offline, backoff on an
injected clock, a rejected push, a remote that asks for credentials, the one line."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from landwatch import layout, push_gate, report_store, work_item
from landwatch.daemon.lock import InstanceLock, LockHolder
from landwatch.kinds.base import GiveUp, RetryLater
from landwatch.kinds.push import HOOKS_WAIT, REVIEW_WAIT, HeldBack, PushHandler, push_backoff
from landwatch.kinds.push_holds import held_back, holds_in
from landwatch.kinds.review import ReviewHandler
from landwatch.review.project_hooks.results import HooksResult
from landwatch.work_item import DONE, FAILED, PENDING, WorkItem, WorkKind
from support.daemon import process_gone, run_reviewer
from support.kinds import (
    FakeClock,
    bare_remote,
    in_process,
    persons_pre_push,
    pushes,
    remote_head,
    reporter,
    settle_down,
)
from support.project_hooks import TODO_CHECK, committed_and_trusted, drained, local_hooks, tools
from support.queue import git
from support.remotes import asking_for_credentials, fake_ssh
from support.repos import Repo
from support.secret_examples import AWS_KEY_ID
from support.tokens import GITHUB_TOKEN, random_text


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    return bare_remote(tmp_path / "remote.git")


@pytest.fixture(autouse=True)
def _pushing(repo: Repo, remote: Path) -> None:
    """Every repository here pushes each landing to `remote`, which holds its main already."""
    repo.git("remote", "add", "origin", str(remote))
    repo.git("push", "-q", "-u", "origin", "main")
    repo.git("config", "landwatch.push.remote", "origin")
    (remote / "pushes.log").unlink()


def push_items(repo: Repo, state: str = PENDING) -> list[str]:
    return sorted(n for n in work_item.entries(repo.git_dir, state) if n.startswith("push-"))


def test_a_landing_is_pushed_by_the_reviewer(repo: Repo, remote: Path) -> None:
    oid = repo.land("backed up")
    assert repo.pending(kind=WorkKind.PUSH) == [(oid, None)]
    result = run_reviewer("--once")
    assert result.returncode == 0, result.stderr
    assert remote_head(remote) == oid
    assert len(pushes(remote)) == 1
    assert [work_item.id_of_entry(n) for n in push_items(repo, DONE)] == [f"push-{oid}"]


def test_running_an_item_twice_pushes_once(repo: Repo, remote: Path) -> None:
    oid = repo.land("once")
    item = WorkItem(WorkKind.PUSH, oid, repo.git_dir)
    kind = PushHandler()
    first = kind.handle(item, reporter())
    second = kind.handle(item, reporter())
    assert (first.pushed, second.pushed, second.up_to_date) == (["main"], [], ["main"])
    assert len(pushes(remote)) == 1


def test_ten_landings_while_offline_are_one_push(repo: Repo, remote: Path, tmp_path: Path) -> None:
    hidden = tmp_path / "away.git"
    remote.rename(hidden)  # offline
    oids = [repo.land(f"offline {n}", f"f{n}") for n in range(10)]
    clock = FakeClock()
    kind = PushHandler(clock=clock)
    reviewer = in_process({WorkKind.PUSH: kind}, clock, tmp_path / "state.json")
    settle_down(reviewer)
    assert len(push_items(repo)) == 10  # handed back, uncounted
    assert all(
        work_item.read_entry(repo.git_dir, PENDING, n).tries == 0  # type: ignore[union-attr]
        for n in push_items(repo)
    )
    failing = layout.PUSH_STATE.path(repo.git_dir)
    assert failing.exists() and "origin" in failing.read_text()
    hidden.rename(remote)  # online again, but the backoff is not over
    clock.advance(push_backoff(1) - 1)
    settle_down(reviewer)
    assert len(push_items(repo)) == 10 and pushes(remote) == []
    clock.advance(2)
    settle_down(reviewer)
    assert push_items(repo) == [] and len(push_items(repo, DONE)) == 10
    assert len(pushes(remote)) == 1 and remote_head(remote) == oids[-1]
    assert not failing.exists()
    reviewer.shutdown()


def test_backoff_doubles_from_a_minute_up_to_an_hour() -> None:
    assert [push_backoff(n) for n in range(1, 9)] == [60, 120, 240, 480, 960, 1920, 3600, 3600]


def test_an_unreachable_remote_is_a_retry_not_a_failure(repo: Repo, tmp_path: Path) -> None:
    repo.git("remote", "set-url", "origin", str(tmp_path / "nowhere.git"))
    oid = repo.land("nowhere to go")
    kind = PushHandler()
    with pytest.raises(RetryLater) as raised:
        kind.handle(WorkItem(WorkKind.PUSH, oid, repo.git_dir), reporter())
    assert raised.value.after == 60
    with pytest.raises(RetryLater) as again:
        kind.handle(WorkItem(WorkKind.PUSH, oid, repo.git_dir), reporter())
    assert again.value.after == 120


def test_a_rejected_push_fails_with_the_remotes_words(
    repo: Repo, remote: Path, tmp_path: Path
) -> None:
    other = tmp_path / "other"
    subprocess.run(["git", "clone", "-q", str(remote), str(other)], check=True)
    elsewhere = Repo.existing(other)
    elsewhere.land("pushed from elsewhere", "x", hooks=False)
    elsewhere.git("push", "-q", "origin", "main")
    oid = repo.land("diverged")
    with pytest.raises(GiveUp, match=r"origin rejected main: \[rejected\] \(fetch first\)"):
        PushHandler().handle(WorkItem(WorkKind.PUSH, oid, repo.git_dir), reporter())
    result = run_reviewer("--once")
    assert "rejected main" in result.stderr
    assert [work_item.id_of_entry(n) for n in push_items(repo, FAILED)] == [f"push-{oid}"]
    told = repo.run("commit", "-q", "--allow-empty", "-m", "next").stderr
    assert f"gave up the push of {oid[:7]}" in told


def test_force_pushes_with_lease_only_when_asked(repo: Repo, remote: Path) -> None:
    repo.land("first")
    repo.git("push", "-q", "origin", "main")
    repo.git("commit", "-q", "--amend", "-m", "rewritten", LANDWATCH="0")
    rewritten = repo.head()
    item = WorkItem(WorkKind.PUSH, rewritten, repo.git_dir)
    with pytest.raises(GiveUp, match="non-fast-forward"):
        PushHandler().handle(item, reporter())
    repo.git("config", "landwatch.push.force", "true")
    assert PushHandler().handle(item, reporter()).pushed == ["main"]
    assert remote_head(remote) == rewritten


def test_a_forced_push_never_overwrites_a_teammate_s_commit_only_fetched(
    repo: Repo, remote: Path, tmp_path: Path
) -> None:
    """The lease alone took the tracking ref for what the amended commit was made on: once a
    fetch (the person's, their editor's) brought a teammate's commit nobody merged, the forced
    push of the amended commit threw the teammate's away."""
    repo.git("config", "landwatch.push.force", "true")
    teammate = Repo(tmp_path / "teammate", clone_of=remote)
    theirs = teammate.land("the teammate's work", "t", hooks=False)
    teammate.git("push", "-q", "origin", "main")
    repo.git("fetch", "-q", "origin")
    repo.git("commit", "-q", "--amend", "-m", "mine, amended", LANDWATCH="0")
    item = WorkItem(WorkKind.PUSH, repo.head(), repo.git_dir)
    with pytest.raises(GiveUp, match=r"origin rejected main: .*remote ref updated since checkout"):
        PushHandler().handle(item, reporter())
    assert remote_head(remote) == theirs


def test_only_the_branches_asked_for_are_pushed(repo: Repo, remote: Path) -> None:
    repo.git("config", "landwatch.push.branches", "release/*")
    on_main = repo.land("main is not pushed")
    report = PushHandler().handle(WorkItem(WorkKind.PUSH, on_main, repo.git_dir), reporter())
    assert report.pushed == [] and "no branch" in report.note
    repo.git("switch", "-q", "-c", "release/1")
    on_release = repo.land("release is")
    report = PushHandler().handle(WorkItem(WorkKind.PUSH, on_release, repo.git_dir), reporter())
    assert report.pushed == ["release/1"] and remote_head(remote, "release/1") == on_release


@pytest.mark.parametrize("hooks_path", [None, ".husky/_"])
def test_the_person_s_pre_push_hook_runs_in_the_worktree(
    repo: Repo,
    remote: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    hooks_path: str | None,
) -> None:
    """As their own git push runs it, wherever the reviewer works: `/` (detached, launchd), which
    `git --git-dir` took for the work tree (pre-commit's pre-push found no configuration: five
    failures, blamed on the gate), and where a relative core.hooksPath named no hook at all."""
    log = tmp_path / "ran"
    persons_pre_push(repo, log, hooks_path)
    oid = repo.land("pushed through the person's hook")
    monkeypatch.chdir("/")
    report = PushHandler().handle(WorkItem(WorkKind.PUSH, oid, repo.git_dir), reporter())
    assert report.pushed == ["main"] and remote_head(remote) == oid
    assert log.read_text().splitlines() == [str(repo.path)]


def test_a_pre_push_hook_that_leaves_a_job_running_does_not_hold_the_push(
    repo: Repo, remote: Path, tmp_path: Path
) -> None:
    """The person's hook starting `notifier &`, which keeps git's pipes open: their own push
    returns at once; the reviewer's waited for the job, up to PUSH_TIMEOUT, then killed it and
    told the push, which the remote held, as failed (`no answer`). Now it is pushed as git
    exits; the job is theirs, left running."""
    job = tmp_path / "job"
    hook = repo.git_dir / "hooks" / "pre-push"
    hook.write_text(f"#!/bin/sh\ncat > /dev/null\nsleep 30 &\necho $! > {job}\nexit 0\n")
    hook.chmod(0o755)
    assert repo.landwatch("install").returncode == 0
    oid = repo.land("pushed past the person's job")
    report = PushHandler().handle(WorkItem(WorkKind.PUSH, oid, repo.git_dir), reporter())
    pid = int(job.read_text())
    try:
        assert report.pushed == ["main"] and remote_head(remote) == oid
        assert not process_gone(pid)  # not waited for
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def test_a_pre_push_hook_that_refuses_is_told_in_its_own_words(
    repo: Repo, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pre-commit runs the gate first (its legacy hook), then its own pre-push hooks: the push
    failed in the words of the gate's first line, which had let it go, not the hook's."""
    pre_commit = Path(sys.executable).parent / "pre-commit"
    if not pre_commit.exists():
        pytest.skip("pre-commit is not installed")
    repo.land(
        "the project's pre-push checks",
        {
            ".pre-commit-config.yaml": "repos:\n- repo: local\n  hooks:\n  - id: tests\n"
            "    name: tests\n    entry: sh -c 'echo two tests failed; exit 1'\n"
            "    language: system\n    pass_filenames: false\n    always_run: true\n"
            "    stages: [pre-push]\n"
        },
    )
    subprocess.run([pre_commit, "install", "-t", "pre-push"], cwd=repo.path, check=True)
    leaked = repo.land("a key for the tests", {"creds.py": f'key = "{AWS_KEY_ID}"\n'})
    assert repo.landwatch("allow", leaked, "--reason", "used-in-tests").returncode == 0
    monkeypatch.chdir("/")
    with pytest.raises(HeldBack, match=r"held back the push of main: tests\.+Failed \(a pre-push"):
        PushHandler().handle(WorkItem(WorkKind.PUSH, leaked, repo.git_dir), reporter())
    assert remote_head(remote) != leaked


def test_a_refusal_by_the_person_s_own_pre_push_hook_holds_the_push_back_at_once(
    repo: Repo, remote: Path, tmp_path: Path
) -> None:
    """The person's hook (kept beside the gate) refusing is an answer: the push was tried five
    times over minutes as a fault, then given up as one (`gave up the push`), its words unsaid."""
    refusing = tmp_path / "refusing"
    refusing.touch()
    hook = repo.git_dir / "hooks" / "pre-push"
    hook.write_text(
        f'#!/bin/sh\ncat > /dev/null\n[ -f "{refusing}" ] || exit 0\n'
        'echo "2 of 40 tests failed" >&2\nexit 1\n'
    )
    hook.chmod(0o755)
    installed = repo.landwatch("install")
    assert "kept your pre-push hook" in installed.stdout + installed.stderr
    landed = repo.land("the tests fail")
    with pytest.raises(HeldBack, match="held back the push of main: 2 of 40 tests failed"):
        PushHandler().handle(WorkItem(WorkKind.PUSH, landed, repo.git_dir), reporter())
    held = held_back(repo.git_dir)
    assert held is not None and (held["commit"], held["what"]) == (landed, "2 of 40 tests failed")
    # The reviewer gives it up at its first try, and the one line says it once, in its words.
    assert run_reviewer("--once").returncode == 65
    assert [work_item.id_of_entry(n) for n in push_items(repo, FAILED)] == [f"push-{landed}"]
    said = repo.landwatch("notice", "--git-dir", str(repo.git_dir)).stderr
    assert f"held back the push of {landed[:7]}: 2 of 40 tests failed in repo" in said, said
    assert "held back" not in repo.landwatch("notice", "--git-dir", str(repo.git_dir)).stderr
    assert pushes(remote) == []
    # The next landing pushes as usual.
    refusing.unlink()
    later = repo.land("the tests pass", "g")
    assert run_reviewer("--once").returncode == 0
    assert remote_head(remote) == later and held_back(repo.git_dir) is None


def test_the_words_of_a_pre_push_hook_that_refuses_are_kept_and_shown_redacted(
    repo: Repo, remote: Path
) -> None:
    """An audit: the person's own secret scanner refused the push naming the token it found, and
    its words went everywhere whole: the push state, the reviewer's log and state file, status,
    the prompt's line and the hooks'."""
    token = "glpat-" + random_text("deploy", 20)
    hook = repo.git_dir / "hooks" / "pre-push"
    hook.write_text(
        "#!/bin/sh\ncat > /dev/null\n"
        f'echo "secret scan: deploy.env:2: DEPLOY_TOKEN={token} found; push refused"\nexit 1\n'
    )
    hook.chmod(0o755)
    assert repo.landwatch("install").returncode == 0
    landed = repo.land("the deploy settings")
    assert run_reviewer("--once").returncode == 65
    redacted = "secret scan: deploy.env:2: DEPLOY_TOKEN=glpa… found; push refused"
    held = held_back(repo.git_dir)
    assert held is not None and held["what"] == redacted, held
    shown = {
        "prompt": repo.landwatch("prompt").stdout,
        "status": repo.landwatch("status").stdout,
        "hooks' line": repo.landwatch("notice", "--git-dir", str(repo.git_dir)).stderr,
    }
    assert all(redacted in said for said in shown.values()), shown
    log, state = layout.REVIEWER_LOG.path(), layout.REVIEWER_STATE.path()
    kept = {
        str(path): path.read_text() for path in (layout.PUSH_STATE.path(repo.git_dir), log, state)
    }
    assert redacted in kept[str(log)]
    assert [where for where, said in {**shown, **kept}.items() if token[6:] in said] == []
    assert remote_head(remote) != landed


def test_a_push_held_back_by_an_older_release_is_shown_and_written_again_redacted(
    repo: Repo, tmp_path: Path
) -> None:
    """An audit after attack 55: a push state an older release wrote kept a refusing hook's
    words whole until a push went through, and status, the prompt and the hooks' line showed
    them from it; the next failure to reach the remote wrote them back whole."""
    token = "glpat-" + random_text("older", 20)
    hook = repo.git_dir / "hooks" / "pre-push"
    hook.write_text("#!/bin/sh\ncat > /dev/null\necho 'secret scan: push refused'\nexit 1\n")
    hook.chmod(0o755)
    assert repo.landwatch("install").returncode == 0
    landed = repo.land("the deploy settings")
    assert run_reviewer("--once").returncode == 65  # given up, held back
    words = f"secret scan: deploy.env:2: DEPLOY_TOKEN={token} found; push refused"
    state = layout.PUSH_STATE.path(repo.git_dir)
    [hold] = json.loads(state.read_text())["holds"]  # as the older release wrote it: one, whole
    hold |= {"what": words, "why": f"{words} (a pre-push hook refused it)"}
    state.write_text(json.dumps({"held_back": hold}))
    redacted = "secret scan: deploy.env:2: DEPLOY_TOKEN=glpa… found; push refused"
    shown = {
        "prompt": repo.landwatch("prompt").stdout,
        "status": repo.landwatch("status").stdout,
        "status --json": repo.landwatch("status", "--json").stdout,
        "hooks' line": repo.landwatch("notice", "--git-dir", str(repo.git_dir)).stderr,
    }
    assert all(redacted in said for where, said in shown.items() if "json" not in where), shown
    assert [where for where, said in shown.items() if token[6:] in said] == []
    # Written again (the remote out of reach, the hold kept): redacted on the disk too.
    repo.git("remote", "set-url", "origin", str(tmp_path / "nowhere.git"))
    later = repo.land("while the remote is away")
    with pytest.raises(RetryLater):
        PushHandler().handle(WorkItem(WorkKind.PUSH, later, repo.git_dir), reporter())
    [kept] = holds_in(json.loads(state.read_text()))
    assert kept["commit"] == landed and kept["what"] == redacted
    assert token[6:] not in state.read_text()


def test_a_remote_s_url_credentials_are_never_kept_or_shown_whole(repo: Repo) -> None:
    """An audit: `landwatch.push.remote` a URL with a token as its password, out of reach: what
    status said was failing ("pushing to https://ci:TOKEN@...") and the job's error in the
    reviewer's state file ("cannot push to https://ci:TOKEN@...") held it whole."""
    token = random_text("url", 24)
    url = f"https://ci:{token}@127.0.0.1:9/app.git"
    repo.git("config", "landwatch.push.remote", url)
    repo.land("while the remote is away")
    assert run_reviewer("--once", "--wait", "0").returncode == 75  # left to back off
    kept = layout.REVIEWER_STATE.path().read_text()
    [job] = [job for job in json.loads(kept)["lines"]["push"] if job["error"]]
    shown = f"https://ci:{token[0]}…@127.0.0.1:9/app.git"  # its user info's first four characters
    assert f"cannot push to {shown}" in job["error"], job
    status = repo.landwatch("status").stdout
    assert f"pushing to {shown} has failed for" in status, status
    assert token not in kept + status + layout.REVIEWER_LOG.path().read_text()
    # The push state names the remote as configured, the person's own setting it pushes to.
    assert json.loads(layout.PUSH_STATE.path(repo.git_dir).read_text())["remote"] == url


def test_a_branch_goes_where_the_remote_s_push_refspec_maps_it(
    repo: Repo, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`remote.origin.push = refs/heads/*:refs/heads/alice/*`: the person's pushes go to
    alice/main, and so does auto-push's (it pushed to main, the team's), judged and found there
    as pushed to that branch."""
    shared = remote_head(remote)
    repo.git("config", "remote.origin.push", "refs/heads/*:refs/heads/alice/*")
    oid = repo.land("work in progress")
    monkeypatch.chdir("/")
    kind = PushHandler()
    assert kind.handle(WorkItem(WorkKind.PUSH, oid, repo.git_dir), reporter()).pushed == ["main"]
    assert remote_head(remote, "alice/main") == oid and remote_head(remote) == shared
    again = kind.handle(WorkItem(WorkKind.PUSH, oid, repo.git_dir), reporter())
    assert again.up_to_date == ["main"] and len(pushes(remote)) == 1


@pytest.mark.parametrize(
    ("config", "said"),
    [
        (
            {"remote.origin.push": "refs/heads/*:refs/for/*"},
            "sends main to refs/for/main, no branch",
        ),
        ({"remote.origin.push": "HEAD:refs/for/main"}, "sends main to refs/for/main, no branch"),
        ({"remote.origin.push": "refs/heads/dev"}, "names no branch main goes to"),
        (
            {"push.default": "upstream", "branch.main.merge": "refs/heads/trunk"},
            "push.default = upstream sends main to refs/heads/trunk, its upstream",
        ),
        (
            {"push.default": "tracking", "branch.main.merge": "refs/heads/trunk"},
            "push.default = tracking sends main to refs/heads/trunk, its upstream",
        ),
    ],
    ids=["gerrit", "head-for-review", "unmapped", "upstream", "tracking"],
)
def test_a_push_git_would_send_elsewhere_than_a_branch_of_its_own_is_held_back(
    repo: Repo, remote: Path, monkeypatch: pytest.MonkeyPatch, config: dict[str, str], said: str
) -> None:
    """Where the person's git sends the branch for review (Gerrit's refs/for/*), where their push
    sends it nowhere (the push refspec names dev alone), or to an upstream of another name:
    auto-push pushed to main, and work in progress landed on the team's branch."""
    shared = remote_head(remote)
    for key, value in config.items():
        repo.git("config", key, value)
    oid = repo.land("work in progress")
    monkeypatch.chdir("/")
    with pytest.raises(HeldBack, match=re.escape(said)):
        PushHandler().handle(WorkItem(WorkKind.PUSH, oid, repo.git_dir), reporter())
    assert remote_head(remote) == shared and pushes(remote) == []
    held = held_back(repo.git_dir)
    assert held is not None and held["what"].endswith(said) and "push it by hand" in held["why"]


@pytest.mark.parametrize("refspec", ["HEAD", "+HEAD", "refs/heads/*", "refs/heads/main", ":"])
def test_a_push_refspec_without_a_destination_sends_the_branch_to_its_own_name(
    repo: Repo, remote: Path, monkeypatch: pytest.MonkeyPatch, refspec: str
) -> None:
    """`remote.origin.push = HEAD` (or another refspec naming no destination): the person's `git
    push` sends main to main, but auto-push held it back for good ("names no branch main goes
    to"): `git push origin main`, which it followed, passes such refspecs by."""
    repo.git("config", "remote.origin.push", refspec)
    oid = repo.land("work")
    monkeypatch.chdir("/")
    pushed = PushHandler().handle(WorkItem(WorkKind.PUSH, oid, repo.git_dir), reporter()).pushed
    assert pushed == ["main"] and remote_head(remote) == oid


def test_a_branch_the_person_s_push_leaves_is_held_back_and_head_is_the_landing_s(
    repo: Repo, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`:` sends the branches the remote holds: a new one is held back, as the person's push
    leaves it. `HEAD` stands for the branch a commit landed on, though the worktree has switched
    to another since (the push the person would have made then)."""
    repo.git("config", "remote.origin.push", ":")
    repo.git("switch", "-q", "-c", "feature")
    oid = repo.land("new work", "f")
    monkeypatch.chdir("/")
    with pytest.raises(HeldBack, match=r"remote\.origin\.push names no branch feature goes to"):
        PushHandler().handle(WorkItem(WorkKind.PUSH, oid, repo.git_dir), reporter())
    repo.git("config", "remote.origin.push", "HEAD")
    repo.git("switch", "-q", "main")
    landed = repo.land("on main", "m")
    repo.git("switch", "-q", "feature")
    kind = PushHandler()
    assert kind.handle(WorkItem(WorkKind.PUSH, landed, repo.git_dir), reporter()).pushed == ["main"]
    assert remote_head(remote) == landed and len(pushes(remote)) == 1  # main alone


def remote_branches(remote: Path) -> list[str]:
    return git("--git-dir", str(remote), "for-each-ref", "--format=%(refname)", cwd=remote).split()


def test_the_branch_pushed_is_the_one_the_commit_landed_on_not_one_made_since(
    repo: Repo, remote: Path
) -> None:
    """A commit landed on main, then `git switch -c spike` before the reviewer got to its push
    (offline, backed off, not running): spike, a local experiment, was published and main not."""
    oid = repo.land("landed on main")
    repo.git("switch", "-q", "-c", "spike")
    kind = PushHandler()
    assert kind.handle(WorkItem(WorkKind.PUSH, oid, repo.git_dir), reporter()).pushed == ["main"]
    assert remote_head(remote) == oid and remote_branches(remote) == ["refs/heads/main"]
    # HEAD's branch when it landed is preferred to another whose reflog took it since.
    repo.git("switch", "-q", "-c", "topic", "main")
    on_topic = repo.land("on topic", "t")
    repo.git("branch", "-f", "spike", "topic")
    repo.git("switch", "-q", "spike")
    pushed = kind.handle(WorkItem(WorkKind.PUSH, on_topic, repo.git_dir), reporter()).pushed
    assert pushed == ["topic"] and remote_branches(remote) == [
        "refs/heads/main",
        "refs/heads/topic",
    ]


def test_a_landing_whose_branch_cannot_be_told_is_held_back_not_pushed_where_head_is(
    repo: Repo, remote: Path
) -> None:
    """A commit made on a detached HEAD, a branch made at it since: that branch is one made after
    the landing, never published; held back, saying so, for status."""
    repo.git("switch", "-q", "--detach")
    oid = repo.land("detached", "d")
    repo.git("switch", "-q", "-c", "kept")
    with pytest.raises(HeldBack, match=r"which branch \w+ landed on cannot be told .*\(kept\)"):
        PushHandler().handle(WorkItem(WorkKind.PUSH, oid, repo.git_dir), reporter())
    assert remote_branches(remote) == ["refs/heads/main"]
    held = held_back(repo.git_dir)
    assert held is not None and "git push origin BRANCH by hand" in held["why"]


def test_a_landing_whose_branch_cannot_be_told_is_said_once_and_shown_until_pushed(
    repo: Repo, remote: Path, tmp_path: Path
) -> None:
    """Commits made on a detached HEAD, branches a and b moved to each (a tool stacking them):
    each landing was held back and said again, a line at every commit. Said once for a and b,
    as the other holds are; status shows it until a push of either goes through."""
    clock = FakeClock()
    reviewer = in_process({WorkKind.PUSH: PushHandler(clock=clock)}, clock, tmp_path / "state")
    for branch in ("a", "b", "c"):
        repo.git("branch", branch)
    repo.git("switch", "-q", "--detach")

    def told_after(message: str, *moved: str) -> tuple[str, str]:
        landed = repo.land(message, message.replace(" ", "-"))
        for branch in moved:
            repo.git("branch", "-f", branch, landed)
        reviewer.poke(repo.git_dir)  # as the hook's file event would
        settle_down(reviewer)
        return landed, repo.landwatch("notice", "--git-dir", str(repo.git_dir)).stderr

    first, said = told_after("stacked", "a", "b")
    assert f"held back the push of {first[:7]}: which branch {first[:10]} landed" in said, said
    second, said = told_after("stacked again", "a", "b")
    assert "the push of" not in said, said
    assert [work_item.id_of_entry(n) for n in push_items(repo, DONE)] == [f"push-{second}"]
    assert f"push held back: which branch {first[:10]} landed" in repo.landwatch("status").stdout
    third, said = told_after("stacked on three", "a", "b", "c")  # among other branches: said
    assert f"held back the push of {third[:7]}: which branch" in said, said
    repo.git("switch", "-q", "a")
    on_a, _ = told_after("on a")
    assert remote_head(remote, "a") == on_a and held_back(repo.git_dir) is None  # both sent
    reviewer.shutdown()


@pytest.mark.parametrize("globs", [(), ("st*",)])
def test_a_branch_a_tag_shares_its_name_with_is_pushed(
    repo: Repo, remote: Path, globs: tuple[str, ...]
) -> None:
    """Branch `stable` and tag `stable`: `%(refname:short)` says `heads/stable`, whose push
    (`refs/heads/heads/stable`) failed, told as a pre-push hook's refusal; never pushed."""
    for glob in globs:
        repo.git("config", "--add", "landwatch.push.branches", glob)
    repo.git("switch", "-q", "-c", "stable")
    repo.git("push", "-q", "-u", "origin", "stable")
    repo.git("tag", "stable")
    oid = repo.land("fix on stable", "s")
    report = PushHandler().handle(WorkItem(WorkKind.PUSH, oid, repo.git_dir), reporter())
    assert report.pushed == ["stable"] and remote_head(remote, "stable") == oid


def test_a_destination_held_back_is_said_once_per_branch_and_configuration(
    repo: Repo, remote: Path, tmp_path: Path
) -> None:
    """Every landing on a branch git sends to Gerrit's refs/for/* was held back, and said again:
    a line at each commit until the configuration changed. Said once, and again when it does."""
    clock = FakeClock()
    reviewer = in_process({WorkKind.PUSH: PushHandler(clock=clock)}, clock, tmp_path / "state")

    def told_after(message: str) -> tuple[str, str]:
        landed = repo.land(message, message.replace(" ", "-"))
        reviewer.poke(repo.git_dir)  # as the hook's file event would
        settle_down(reviewer)
        return landed, repo.landwatch("notice", "--git-dir", str(repo.git_dir)).stderr

    repo.git("config", "remote.origin.push", "refs/heads/*:refs/for/*")
    first, said = told_after("for review")
    assert f"held back the push of {first[:7]}: remote.origin.push sends main to" in said, said
    second, said = told_after("more for review")
    assert "the push of" not in said and push_items(repo, FAILED) != []
    assert [work_item.id_of_entry(n) for n in push_items(repo, DONE)] == [f"push-{second}"]
    assert "push held back:" in repo.landwatch("status").stdout
    repo.git("config", "remote.origin.push", "refs/heads/dev")  # another configuration
    third, said = told_after("under another mapping")
    assert f"held back the push of {third[:7]}: remote.origin.push names no branch" in said, said
    # A branch pushed between, or failing to reach the remote, leaves the other's hold said.
    repo.git("config", "--unset", "remote.origin.push")
    repo.git("config", "push.default", "upstream")
    repo.git("switch", "-q", "-c", "feature", "--track", "origin/main")
    _, said = told_after("work in progress")
    assert "push.default = upstream sends feature to refs/heads/main" in said, said
    repo.git("switch", "-q", "main")
    on_main, _ = told_after("on main")
    assert remote_head(remote) == on_main
    remote.rename(tmp_path / "away.git")
    told_after("offline")
    assert PushHandler.failing(repo.git_dir, clock.time()) is not None
    repo.git("switch", "-q", "feature")
    clock.advance(push_backoff(1) + 1)
    still, said = told_after("still in progress")
    (tmp_path / "away.git").rename(remote)
    assert "the push of" not in said and remote_head(remote) == on_main
    assert f"push-{still}" in [work_item.id_of_entry(n) for n in push_items(repo, DONE)]
    assert PushHandler.failing(repo.git_dir, clock.time()) is not None  # and still failing
    assert repo.run("--git-dir", str(remote), "rev-parse", "-q", "--verify", "feature").stdout == ""
    reviewer.shutdown()


@pytest.fixture
def asking_server() -> Iterator[str]:
    with asking_for_credentials() as url:
        yield url


def test_a_remote_that_asks_for_credentials_never_prompts(
    repo: Repo, asking_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GIT_ASKPASS", raising=False)
    monkeypatch.delenv("SSH_ASKPASS", raising=False)
    repo.git("remote", "set-url", "origin", asking_server)
    oid = repo.land("private")
    started = time.monotonic()
    with pytest.raises(RetryLater, match=r"terminal prompts disabled|Authentication failed"):
        PushHandler().handle(WorkItem(WorkKind.PUSH, oid, repo.git_dir), reporter())
    assert time.monotonic() - started < 30  # failed at once, never waited for a person


ASKED = '#!/bin/sh\necho "$GCM_INTERACTIVE $*" >> "$0.log"\n'


@pytest.mark.parametrize("how", ["GIT_ASKPASS", "SSH_ASKPASS", "core.askPass"])
def test_the_reviewer_s_push_opens_no_password_window_and_still_asks_credential_helpers(
    repo: Repo, asking_server: str, tmp_path: Path, how: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A desktop session's askpass (KDE's SSH_ASKPASS, an editor's GIT_ASKPASS; core.askPass):
    git runs it for a password even with terminal prompts off, so an auto-push of the reviewer's
    opened a password window at any moment. Now it runs none; the credential helper is still
    asked, told never to ask the person itself (Git Credential Manager's GCM_INTERACTIVE), and
    the push waits to be tried again."""
    askpass, helper = tmp_path / "askpass", tmp_path / "helper"
    for program in (askpass, helper):
        program.write_text(ASKED + "echo password=guessed\n")
        program.chmod(0o755)
    repo.git("remote", "set-url", "origin", asking_server)
    repo.git("config", "credential.helper", str(helper))
    if how == "core.askPass":
        repo.git("config", how, str(askpass))
    else:
        monkeypatch.setenv(how, str(askpass))
    oid = repo.land("private")
    result = run_reviewer("--once", "--wait", "0")
    assert result.returncode == 75, result.stderr  # the push left to be tried again
    assert not Path(f"{askpass}.log").exists()  # before: "Username for 'http://127.0.0.1..."
    assert Path(f"{helper}.log").read_text().startswith("never get")
    assert [work_item.id_of_entry(n) for n in push_items(repo)] == [f"push-{oid}"]


def test_auto_push_goes_through_the_person_s_own_ssh_in_batch_mode(
    repo: Repo, remote: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """core.sshCommand naming the person's key (`ssh -i ~/.ssh/work_key`): their own pushes went
    through it, and the reviewer's ran plain ssh, which failed, retried for ever. It runs theirs,
    in batch mode, as the pre-push hook's own question does."""
    for name in ("GIT_SSH_COMMAND", "GIT_SSH", "GIT_SSH_VARIANT"):
        monkeypatch.delenv(name, raising=False)
    ssh = fake_ssh(tmp_path / "bin")
    repo.git("config", "core.sshCommand", f"{ssh.program} -i work_key")
    repo.git("remote", "set-url", "origin", f"fakehost:{remote}")
    oid = repo.land("backed up")
    result = run_reviewer("--once")
    assert result.returncode == 0, result.stderr
    assert remote_head(remote) == oid
    batch = "-i work_key -o BatchMode=yes "  # then git's own options of OpenSSH, if any
    assert f"{batch}fakehost git-receive-pack '{remote}'" in ssh.connections(), ssh.calls()
    assert all(call.startswith(batch) for call in ssh.connections()), ssh.calls()


def test_the_one_line_says_when_pushing_has_failed_too_long(repo: Repo, tmp_path: Path) -> None:
    repo.git("remote", "set-url", "origin", str(tmp_path / "nowhere.git"))
    oid = repo.land("waiting to be pushed")
    with pytest.raises(RetryLater):
        PushHandler().handle(WorkItem(WorkKind.PUSH, oid, repo.git_dir), reporter())
    lock = InstanceLock()
    lock.acquire(LockHolder(os.getpid(), "test", "0", "-"))  # a reviewer is running
    try:
        work_item.publish_ready(repo.git_dir)  # as the running reviewer would have
        pending = repo.git_dir / "landwatch" / PENDING
        old = int((time.time() - 7200) * 1_000_000)
        for name in os.listdir(pending):
            os.rename(pending / name, pending / f"{work_item.id_of_entry(name)}.{old}")
        assert repo.run("commit", "-q", "--allow-empty", "-m", "soon").stderr == ""
        state = layout.PUSH_STATE.path(repo.git_dir)
        failing = json.loads(state.read_text())
        failing["failing_since"] = time.time() - 7200  # back-dated, as git's tests do
        state.write_text(json.dumps(failing))
        told = repo.run("commit", "-q", "--allow-empty", "-m", "later").stderr
    finally:
        lock.release()
    assert told.startswith("landwatch: pushing to origin has failed for 2 h")
    assert told.count("\n") == 1


def test_a_remote_that_does_not_exist_is_given_up_at_once(repo: Repo) -> None:
    repo.git("config", "landwatch.push.remote", "nosuchremote")
    oid = repo.land("to a remote nobody made")
    with pytest.raises(GiveUp, match=r"no remote named 'nosuchremote'.*git remote -v"):
        PushHandler().handle(WorkItem(WorkKind.PUSH, oid, repo.git_dir), reporter())
    result = run_reviewer("--once")
    assert result.returncode == 65, result.stderr
    assert [work_item.id_of_entry(n) for n in push_items(repo, FAILED)] == [f"push-{oid}"]
    assert not layout.PUSH_STATE.path(repo.git_dir).exists()
    assert "has failed for" not in repo.landwatch("status").stdout


def test_a_push_remote_starting_with_a_dash_never_reaches_git_as_an_option(
    repo: Repo, remote: Path, tmp_path: Path
) -> None:
    """landwatch.push.remote = `--exec=touch FILE` (a copy's .git/config may say it): `git push
    --porcelain --exec=... refs/heads/main:refs/heads/main` ran the command. It names no remote;
    and a remote named `-x` (git takes one) is pushed to as the remote it is."""
    ran = tmp_path / "ran-by-push"
    repo.git("config", "landwatch.push.remote", f"--exec=touch {ran}")
    landed = repo.land("landed")
    with pytest.raises(GiveUp, match=r"no remote named '--exec=touch "):
        PushHandler().handle(WorkItem(WorkKind.PUSH, landed, repo.git_dir), reporter())
    assert not ran.exists()
    repo.git("remote", "add", "--", "-x", str(remote))
    repo.git("config", "landwatch.push.remote", "-x")
    report = PushHandler().handle(WorkItem(WorkKind.PUSH, landed, repo.git_dir), reporter())
    assert report.pushed == ["main"] and remote_head(remote) == landed


def test_push_state_is_forgotten_once_push_is_turned_off(repo: Repo, tmp_path: Path) -> None:
    repo.git("remote", "set-url", "origin", str(tmp_path / "nowhere.git"))
    oid = repo.land("while the remote is away")
    kind = PushHandler()
    with pytest.raises(RetryLater):
        kind.handle(WorkItem(WorkKind.PUSH, oid, repo.git_dir), reporter())
    assert layout.PUSH_STATE.path(repo.git_dir).exists()
    assert "pushing to origin has failed for" in repo.landwatch("status").stdout
    repo.git("config", "--unset", "landwatch.push.remote")
    report = kind.handle(WorkItem(WorkKind.PUSH, oid, repo.git_dir), reporter())
    assert report.remote is None and "not configured" in report.note
    assert not layout.PUSH_STATE.path(repo.git_dir).exists()
    assert "has failed for" not in repo.landwatch("status").stdout


def test_a_failure_told_only_while_a_push_waits(repo: Repo, tmp_path: Path) -> None:
    repo.git("remote", "set-url", "origin", str(tmp_path / "nowhere.git"))
    oid = repo.land("while the remote is away")
    with pytest.raises(RetryLater):
        PushHandler().handle(WorkItem(WorkKind.PUSH, oid, repo.git_dir), reporter())
    assert "pushing to origin has failed for" in repo.landwatch("status").stdout
    repo.clear()  # the push item gone (done or given up) by other hands: nothing is failing now
    assert "has failed for" not in repo.landwatch("status").stdout


def test_a_failing_push_never_shows_a_password_its_error_holds(repo: Repo, tmp_path: Path) -> None:
    repo.git("remote", "set-url", "origin", str(tmp_path / "nowhere.git"))
    oid = repo.land("waiting to be pushed")
    with pytest.raises(RetryLater):
        PushHandler().handle(WorkItem(WorkKind.PUSH, oid, repo.git_dir), reporter())
    password = "Tr0ub4dor" + "99xq"
    state = layout.PUSH_STATE.path(repo.git_dir)
    failing = json.loads(state.read_text())
    failing["last_error"] = f"unable to access 'https://bob:{password}@git.example/app.git/'"
    state.write_text(json.dumps(failing))
    said = PushHandler.failing(repo.git_dir, time.time())
    assert said is not None and "https://bob:…@git.example" in said.error
    shown = repo.landwatch("status")
    assert "has failed for" in shown.stdout and password not in shown.stdout


def test_auto_push_holds_back_a_secret_and_pushes_once_it_is_amended_away(
    repo: Repo, remote: Path
) -> None:
    before = remote_head(remote)
    leaked = repo.land("add credentials", {"creds.py": f'key = "{AWS_KEY_ID}"\n'})
    with pytest.raises(HeldBack, match=rf"{leaked[:10]} holds S00\d .* at creds.py:1"):
        PushHandler().handle(WorkItem(WorkKind.PUSH, leaked, repo.git_dir), reporter())
    assert remote_head(remote) == before and pushes(remote) == []
    held = held_back(repo.git_dir)
    assert held is not None and held["commit"] == leaked and AWS_KEY_ID not in held["why"]
    # The reviewer gives it up; the one line and status say it was held back, and why.
    result = run_reviewer("--once")
    assert result.returncode == 65, result.stderr
    assert push_items(repo, FAILED) and remote_head(remote) == before
    said = repo.landwatch("notice", "--git-dir", str(repo.git_dir)).stderr
    assert f"held back the push of {leaked[:7]}: {leaked[:10]} holds S00" in said, said
    status = repo.landwatch("status").stdout
    assert "push held back:" in status and AWS_KEY_ID not in status + said
    # Amended away: the next landing's push goes, and the hold is forgotten.
    repo.stage({"creds.py": 'key = os.environ["AWS_ACCESS_KEY_ID"]\n'})
    repo.git("commit", "-q", "--amend", "-m", "credentials from the environment")
    amended = repo.head()
    result = run_reviewer("--once")
    assert result.returncode == 0, result.stderr
    assert remote_head(remote) == amended
    assert held_back(repo.git_dir) is None


def test_a_tag_push_follow_tags_takes_along_is_held_back_by_the_gate_in_the_hook(
    repo: Repo, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With push.followTags, auto-push's git push sends an annotated tag beside the branch, which
    only the gate in the pre-push hook judges. Run from the reviewer's `/`, the gate found no
    repository and the tag's token was published; its refusal, in the worktree, was retried as
    a failure in the words of its first line, and nobody was told the push was held back."""
    repo.git("config", "push.followTags", "true")
    landed = repo.land("released")
    repo.git("tag", "-a", "v1", "-m", f"release; CI token {GITHUB_TOKEN}")
    monkeypatch.chdir("/")
    with pytest.raises(HeldBack, match=r"main: tag v1 holds S002 .* at message"):
        PushHandler().handle(WorkItem(WorkKind.PUSH, landed, repo.git_dir), reporter())
    assert repo.run("--git-dir", str(remote), "rev-parse", "-q", "--verify", "v1").stdout == ""
    assert remote_head(remote) != landed
    held = held_back(repo.git_dir)
    assert held is not None and held["commit"] == landed and GITHUB_TOKEN not in str(held)
    assert "which git push origin main sends" in held["why"]
    assert run_reviewer("--once").returncode == 65
    assert [work_item.id_of_entry(n) for n in push_items(repo, FAILED)] == [f"push-{landed}"]
    said = repo.landwatch("notice", "--git-dir", str(repo.git_dir)).stderr
    assert f"held back the push of {landed[:7]}: " in said and "holds S002" in said, said
    assert "push held back:" in repo.landwatch("status").stdout


@pytest.mark.parametrize("how", ["another tool's", "landwatch's, not executable"])
def test_follow_tags_takes_nothing_along_where_the_pre_push_hook_is_not_the_gate(
    repo: Repo, remote: Path, how: str
) -> None:
    """Attack 85: another tool's reinstall left its own pre-push hook, the landing hooks still
    landwatch's. Auto-push judged the branch's commits only, and push.followTags took along an
    annotated tag whose message holds a token, which no gate judged; now such a push takes no
    tag along (the person's own push does, through whatever hook they run). So too where
    landwatch's hook lost its executable bit, which git then skips."""
    repo.git("config", "push.followTags", "true")
    slot = repo.git_dir / "hooks" / "pre-push"
    if how == "another tool's":
        slot.write_text("#!/bin/sh\nexit 0\n")
    else:
        slot.chmod(0o644)
    repo.git("tag", "-a", "v1", "-m", f"release; CI token {GITHUB_TOKEN}")
    landed = repo.land("after the tag")
    assert run_reviewer("--once").returncode == 0
    assert remote_head(remote) == landed
    assert repo.run("--git-dir", str(remote), "rev-parse", "-q", "--verify", "v1").stdout == ""


@pytest.mark.parametrize(
    "how",
    [
        "the remote set anew",
        "the branch deleted there",
        "a second push URL",
        "a URL pushInsteadOf sends elsewhere",
    ],
)
def test_auto_push_asks_the_remote_what_it_holds_not_a_stale_tracking_ref(
    repo: Repo, remote: Path, tmp_path: Path, how: str
) -> None:
    """An audit: auto-push's own gate (the one that judges where the pre-push hook is another
    tool's, attack 85) took the remote-tracking ref for what the remote holds, and left out all
    it reaches as sent already. After `git remote set-url` to a new repository, or a branch
    deleted and purged there but not pruned here, a reviewed commit holding a token was pushed
    there again, unjudged. What the remote holds is asked of it, as for a ref a push creates;
    every place it pushes to (a later audit: a public mirror added as a second push URL was
    sent it, as the first URL held it already)."""
    (repo.git_dir / "hooks" / "pre-push").write_text("#!/bin/sh\nexit 0\n")
    leaked = repo.land("add settings", {"settings.py": f'GITHUB_TOKEN = "{GITHUB_TOKEN}"\n'})
    assert run_reviewer("--once").returncode == 65  # held back; pushed below by hand, unjudged
    repo.git("push", "-q", "--no-verify", "origin", "main")
    assert repo.run("rev-parse", "origin/main").stdout.strip() == leaked
    if how == "the remote set anew":
        public = tmp_path / "public.git"
        git("init", "-q", "--bare", "-b", "main", str(public), cwd=tmp_path)
        repo.git("remote", "set-url", "origin", str(public))
    elif how == "a URL pushInsteadOf sends elsewhere":  # a round-1 audit of the above
        public = tmp_path / "public.git"
        git("init", "-q", "--bare", "-b", "main", str(public), cwd=tmp_path)
        repo.git("config", "landwatch.push.remote", str(remote))
        repo.git("config", f"url.{public}.pushInsteadOf", str(remote))
    elif how == "a second push URL":
        public = tmp_path / "public.git"
        git("init", "-q", "--bare", "-b", "main", str(public), cwd=tmp_path)
        repo.git("remote", "set-url", "--add", "--push", "origin", str(remote))
        repo.git("remote", "set-url", "--add", "--push", "origin", str(public))
    else:
        public = remote
        git("--git-dir", str(remote), "update-ref", "-d", "refs/heads/main", cwd=tmp_path)
    landed = repo.land("clean follow-up", {"README.md": "more\n"})
    with pytest.raises(HeldBack, match=rf"{leaked[:10]} holds S002"):
        PushHandler().handle(WorkItem(WorkKind.PUSH, landed, repo.git_dir), reporter())
    assert repo.run("--git-dir", str(public), "rev-parse", "-q", "--verify", "main").stdout == ""


@pytest.mark.parametrize("named", [True, False])
def test_auto_push_asks_no_place_a_fetch_s_rewriting_sends_elsewhere(
    repo: Repo, tmp_path: Path, named: bool
) -> None:
    """A round-2 audit: fetched from a private mirror, pushed to the public place itself
    (`url.MIRROR.insteadOf = PUBLIC`, `url.PUBLIC.pushInsteadOf = PUBLIC`), the gate's
    `ls-remote PUBLIC` heard the mirror, which held the token commit, and the push sent it to
    PUBLIC unjudged. Such a place cannot be asked: the push waits, as one out of reach."""
    mirror, public = tmp_path / "mirror.git", tmp_path / "public.git"
    for place in (mirror, public):
        git("init", "-q", "--bare", "-b", "main", str(place), cwd=tmp_path)
    repo.git("push", "-q", str(public), "main")
    (repo.git_dir / "hooks" / "pre-push").write_text("#!/bin/sh\nexit 0\n")  # another tool's
    leaked = repo.land("add settings", {"settings.py": f'GITHUB_TOKEN = "{GITHUB_TOKEN}"\n'})
    repo.git("push", "-q", "--no-verify", str(mirror), "main")
    repo.git("config", f"url.{mirror}.insteadOf", str(public))
    repo.git("config", f"url.{public}.pushInsteadOf", str(public))
    repo.git("remote", "add", "public", str(public))
    repo.git("config", "landwatch.push.remote", "public" if named else str(public))
    landed = repo.land("clean follow-up", {"README.md": "more\n"})
    with pytest.raises(RetryLater, match="cannot be asked what it holds"):
        PushHandler().handle(WorkItem(WorkKind.PUSH, landed, repo.git_dir), reporter())
    assert repo.run("--git-dir", str(public), "cat-file", "-e", leaked).returncode != 0


def test_auto_push_offline_waits_for_the_remote_never_holds_back_what_it_holds(
    repo: Repo, remote: Path, tmp_path: Path
) -> None:
    """Asked what it holds (above) and not answering (offline), the remote's history would all
    be judged, and a key it has held for years held the push back, the item given up. The
    push waits for the remote, as its git push would have failed there anyway."""
    old = repo.land("a key for the tests", {"creds.py": f'key = "{AWS_KEY_ID}"\n'}, hooks=False)
    repo.git("push", "-q", "--no-verify", "origin", "main")
    repo.git("remote", "set-url", "origin", str(tmp_path / "nowhere.git"))
    landed = repo.land("clean follow-up", {"README.md": "more\n"})
    with pytest.raises(RetryLater, match="cannot push to origin"):
        PushHandler().handle(WorkItem(WorkKind.PUSH, landed, repo.git_dir), reporter())
    assert held_back(repo.git_dir) is None and remote_head(remote) == old


class LandingMeanwhile(PushHandler):
    """Auto-push with a commit holding a token landing on the branch right after the gate judged
    it, before its git push (a commit by hand, or a pull, at that moment)."""

    def __init__(self, repo: Repo) -> None:
        super().__init__()
        self.repo = repo

    def _gate(self, at: Any, reporter: Any, remote: str, branch: str, *rest: Any) -> str:
        judged = super()._gate(at, reporter, remote, branch, *rest)
        self.repo.land("meanwhile", {"ci.txt": f"token {GITHUB_TOKEN}\n"}, hooks=False)
        return judged


def test_auto_push_sends_the_commit_it_judged_not_what_the_branch_became_since(
    repo: Repo, remote: Path
) -> None:
    """Attack 91: auto-push judged the commits of the branch's tip, then pushed the branch by its
    name. A commit landing in between went out unjudged where the pre-push hook is not the gate
    (another tool's); now the commit judged is the one sent, the later one left to its own push."""
    (repo.git_dir / "hooks" / "pre-push").write_text("#!/bin/sh\nexit 0\n")
    landed = repo.land("judged")
    report = LandingMeanwhile(repo).handle(
        WorkItem(WorkKind.PUSH, landed, repo.git_dir), reporter()
    )
    assert report.pushed == ["main"] and remote_head(remote) == landed
    meanwhile = repo.head()
    assert meanwhile != landed
    with pytest.raises(HeldBack, match="holds S002"):
        PushHandler().handle(WorkItem(WorkKind.PUSH, meanwhile, repo.git_dir), reporter())
    assert remote_head(remote) == landed


def topic_merging_main_with_a_key(repo: Repo) -> None:
    """A topic branch, checked out, about to merge main, whose key the remote holds already."""
    repo.git("switch", "-q", "-c", "topic")
    repo.land("topic", {"a.py": "a = 1\n"}, hooks=False)
    repo.git("switch", "-q", "main")
    repo.land("a key for the tests", {"creds.py": f'key = "{AWS_KEY_ID}"\n'}, hooks=False)
    repo.git("push", "-q", "--no-verify", "origin", "main")
    repo.git("switch", "-q", "topic")


@pytest.mark.parametrize("reviewer", [True, False], ids=["reviewed", "scanned"])
def test_auto_push_of_a_merge_is_not_held_back_for_what_it_brought_in(
    repo: Repo, remote: Path, reviewer: bool
) -> None:
    """Auto-push judges as the gate in the hook does: a merge of main into a topic branch was
    held back for main's key, which the remote held already."""
    topic_merging_main_with_a_key(repo)
    repo.git("merge", "-q", "--no-edit", "main")
    merge = repo.head()
    if reviewer:
        assert run_reviewer("--once").returncode == 0  # the merge reviewed, and pushed
    else:
        report = PushHandler().handle(WorkItem(WorkKind.PUSH, merge, repo.git_dir), reporter())
        assert report.pushed == ["topic"]
    assert remote_head(remote, "topic") == merge and held_back(repo.git_dir) is None


def test_auto_push_holds_back_an_evil_merge_for_its_own_key_alone(repo: Repo, remote: Path) -> None:
    topic_merging_main_with_a_key(repo)
    repo.git("merge", "-q", "--no-commit", "main")
    repo.stage({"deploy.py": f'token = "{GITHUB_TOKEN}"\n'})
    evil = repo.land("Merge branch 'main' into topic", {})
    with pytest.raises(HeldBack, match=rf"{evil[:10]} holds S002 [^(]* at deploy.py:1 \("):
        PushHandler().handle(WorkItem(WorkKind.PUSH, evil, repo.git_dir), reporter())
    assert "creds.py" not in str(held_back(repo.git_dir))


def test_under_errors_auto_push_waits_for_the_review(repo: Repo, remote: Path) -> None:
    repo.git("config", "landwatch.push.block", "errors")
    landed = repo.land("a config that does not parse", {".landwatch.toml": "[rules\n"})
    kind = PushHandler()
    waiting = "waiting for the review or the project's hooks of 1 commit"
    with pytest.raises(RetryLater, match=waiting):
        kind.handle(WorkItem(WorkKind.PUSH, landed, repo.git_dir), reporter())
    # Reviewed: CFG at error; its push held back, so given up (65).
    assert run_reviewer("--once").returncode == 65
    assert remote_head(remote) != landed
    with pytest.raises(HeldBack, match="CFG"):
        kind.handle(WorkItem(WorkKind.PUSH, landed, repo.git_dir), reporter())


def test_under_errors_auto_push_waits_for_the_project_hooks(
    tmp_path: Path, repo: Repo, remote: Path
) -> None:
    """Left open at stop 62: under errors, auto-push sent a commit whose review was kept while
    its project hooks had not run; what they found could no longer hold it back."""
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(TODO_CHECK)})
    repo.git("config", "landwatch.push.block", "errors")
    landed = repo.land("a TODO", {"a.py": "x = 1  # TODO\n"})
    ReviewHandler().handle(WorkItem(WorkKind.REVIEW, landed, repo.git_dir), reporter())
    kind = PushHandler()
    with pytest.raises(RetryLater, match="the project's hooks of 1 commit") as queued:
        kind.handle(WorkItem(WorkKind.PUSH, landed, repo.git_dir), reporter())
    assert queued.value.after == REVIEW_WAIT
    drained(tools(tmp_path, "pre-commit"), 65)  # the hooks ran; the push held back for them
    assert remote_head(remote) != landed
    with pytest.raises(HeldBack, match="hook:no-todo"):
        kind.handle(WorkItem(WorkKind.PUSH, landed, repo.git_dir), reporter())
    # Hooks whose environments wait to be built (tried again 5 minutes on): the push waits at
    # their pace, not every 5 seconds as an audit found.
    then = repo.land("another", {"b.py": "y = 2\n"})
    ReviewHandler().handle(WorkItem(WorkKind.REVIEW, then, repo.git_dir), reporter())
    waiting = HooksResult(then, "waiting", notes=["pre-commit could not build them"])
    report_store.write_hooks(repo.git_dir, waiting)
    with pytest.raises(RetryLater, match="the project's hooks of 1 commit") as building:
        kind.handle(WorkItem(WorkKind.PUSH, then, repo.git_dir), reporter())
    assert building.value.after == HOOKS_WAIT


def test_a_held_back_push_goes_once_what_held_it_is_allowed(repo: Repo, remote: Path) -> None:
    leaked = repo.land("add a key for the tests", {"creds.py": f'key = "{AWS_KEY_ID}"\n'})
    assert run_reviewer("--once").returncode == 65
    assert held_back(repo.git_dir) is not None and remote_head(remote) != leaked
    allowed = repo.landwatch("allow", leaked, "--reason", "used-in-tests")
    assert allowed.returncode == 0, allowed.stderr
    assert "the push held back of main is tried again" in allowed.stdout
    assert run_reviewer("--once").returncode == 0
    assert remote_head(remote) == leaked and held_back(repo.git_dir) is None


def test_auto_push_holds_back_a_commit_past_what_the_gate_reads(
    repo: Repo, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(push_gate, "LINES", 20)
    data = "".join(f"{n}\n" for n in range(30))
    landed = repo.land(
        "a lot of data", {".landwatch.toml": "max_added_lines = 10\n", "d.csv": data}
    )
    # Nobody is there to be told that what lies past them went unchecked: it waits for a person.
    with pytest.raises(HeldBack, match=f"{landed[:10]} was read only to 20 added lines"):
        PushHandler().handle(WorkItem(WorkKind.PUSH, landed, repo.git_dir), reporter())
    assert remote_head(remote) != landed
    held = held_back(repo.git_dir)
    assert held is not None and "git push origin main" in held["why"]


def test_auto_push_holds_back_a_commit_the_gate_cannot_read(repo: Repo, remote: Path) -> None:
    """A commit naming a blob this clone lacks (its configuration's, here) fails the gate's scan:
    once that failed the whole gate, now the gate passes it by, so auto-push holds it back."""
    tree = repo.run("mktree", "--missing", stdin=f"100644 blob {'1' * 40}\t.landwatch.toml\n")
    landed = repo.git("commit-tree", "-p", "HEAD", "-m", "unreadable", tree.stdout.strip())
    repo.git("update-ref", "refs/heads/main", landed)
    with pytest.raises(HeldBack, match=f"{landed[:10]} could not be read \\(KeyError: "):
        PushHandler().handle(WorkItem(WorkKind.PUSH, landed, repo.git_dir), reporter())
    assert remote_head(remote) != landed
    held = held_back(repo.git_dir)
    assert held is not None and "git push origin main" in held["why"]


def held_for(repo: Repo, how: str) -> tuple[str, str]:
    """main's push held back `how`: for a key it holds, or where which branch the landing was on
    cannot be told (made on a detached HEAD, main and spike moved to it, HEAD left there). The
    landing, and the branch whose push lets its hold go."""
    if how == "finding":
        return repo.land("a key", {"creds.py": f'key = "{AWS_KEY_ID}"\n'}), "main"
    repo.git("branch", "spike")
    repo.git("switch", "-q", "--detach")
    landed = repo.land("made detached", "d")
    repo.git("branch", "-f", "main", landed)
    repo.git("branch", "-f", "spike", landed)
    return landed, "spike"


@pytest.mark.parametrize("how", ["finding", "untold"])
def test_a_hold_stands_until_its_own_branch_s_push_goes_through(
    repo: Repo, remote: Path, tmp_path: Path, how: str
) -> None:
    """main's push held back, then topic's rejected by the remote (a teammate pushed first), a
    landing on no branch, or topic's held back: main's hold was forgotten, no longer said by
    status, and nothing was left for `landwatch allow` to try again. It stands until main's own
    push goes through (where the branch cannot be told, one it may have landed on)."""
    repo.git("switch", "-q", "-c", "topic")
    repo.git("push", "-q", "-u", "origin", "topic")
    repo.git("switch", "-q", "main")
    held, releasing = held_for(repo, how)
    kind = PushHandler()
    with pytest.raises(HeldBack):
        kind.handle(WorkItem(WorkKind.PUSH, held, repo.git_dir), reporter())
    theirs = Repo(tmp_path / "theirs", clone_of=remote)
    theirs.git("switch", "-q", "topic")
    theirs.land("theirs first", "x", hooks=False)
    theirs.git("push", "-q", "origin", "topic")
    repo.git("switch", "-q", "topic")
    ours = repo.land("ours on topic", "t")
    with pytest.raises(GiveUp, match="origin rejected topic"):
        kind.handle(WorkItem(WorkKind.PUSH, ours, repo.git_dir), reporter())
    repo.git("switch", "-q", "--detach")
    detached = repo.land("on no branch", "n")
    report = kind.handle(WorkItem(WorkKind.PUSH, detached, repo.git_dir), reporter())
    assert "on no branch" in report.note
    # Nor another branch's hold.
    repo.git("switch", "-q", "topic")
    keyed = repo.land("topic's token", {"t.py": f'token = "{GITHUB_TOKEN}"\n'})
    with pytest.raises(HeldBack):
        kind.handle(WorkItem(WorkKind.PUSH, keyed, repo.git_dir), reporter())
    hold = held_back(repo.git_dir, held)
    assert hold is not None, layout.PUSH_STATE.path(repo.git_dir).read_text()
    status = repo.landwatch("status").stdout
    assert f"push held back: {hold['why'][:40]}" in status and status.count("held back:") == 2
    # Its own branch's push lets it go.
    repo.git("switch", "-q", releasing)
    if how == "finding":
        repo.stage({"creds.py": 'key = os.environ["AWS_ACCESS_KEY_ID"]\n'})
        repo.git("commit", "-q", "--amend", "-m", "a key from the environment")
    pushed = repo.land("pushed", "p")
    assert kind.handle(WorkItem(WorkKind.PUSH, pushed, repo.git_dir), reporter()).pushed
    assert held_back(repo.git_dir, held) is None and held_back(repo.git_dir, keyed) is not None
    assert repo.landwatch("status").stdout.count("held back:") == 1
