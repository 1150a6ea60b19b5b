"""The push gate with real git and a bare remote: a refused push leaves the remote as it was and
says what, how to take it out and how to go on; a clean one passes (with no Python started when
every review is kept); unreviewed commits are waited for within the bound, else scanned in the
hook; `--no-verify` and a broken landwatch let a push go on, with one line."""

from __future__ import annotations

import io
import os
import re
import subprocess
from pathlib import Path

import pytest

from landwatch import layout, push_gate, push_heard, report_store
from landwatch.commands.pre_push import REFUSED, pre_push
from landwatch.daemon.lock import InstanceLock, LockHolder
from landwatch.kinds.review import ReviewHandler
from landwatch.work_item import WorkItem, WorkKind
from support.daemon import run_reviewer
from support.history import Commit, write_history
from support.kinds import (
    FakeClock,
    bare_remote,
    entry_point_logging,
    origin,
    pushed_by_the_hook_alone,
    remote_head,
    reporter,
)
from support.project_hooks import TODO_CHECK, committed_and_trusted, drained, local_hooks, tools
from support.queue import fill, git, git_env, tmpfs
from support.remotes import fake_ssh
from support.repos import Repo, installed
from support.secret_examples import AWS_KEY_ID, AWS_SECRET_KEY, pem
from support.tokens import GITHUB_TOKEN, github_token

# A line that adds a token at the end of big_dump's rows.
LAST = f'-- another = "{github_token("Z9x8")}"\n'
CREDENTIALS = f'aws_access_key_id = "{AWS_KEY_ID}"\naws_secret_access_key = "{AWS_SECRET_KEY}"\n'
# A cap of 10 added lines, committed before the commits it cuts: a commit lowering it for itself
# is read to the cap it came to (review.rules_came_to).
CAPPED = {".landwatch.toml": "max_added_lines = 10\n"}
# A commit whose line checks stop at that cap, its secret in the file past them (files are read
# in path order), as 20,000 lines of data before a settings file would.
PAST_THE_CAP = {
    "data.csv": "".join(f"{n},{n * n}\n" for n in range(30)),
    "settings.py": f'token = "{GITHUB_TOKEN}"\n',
}


def big_dump(first: str = "", last: str = "") -> str:
    """A database dump past the 8 MB the review reads the lines of (90,000 rows), its first and
    last lines given."""
    rows = "".join(f"({n}, '{'x' * 90}'),\n" for n in range(90_000))
    return first + rows + last


@pytest.fixture
def remote(repo: Repo, tmp_path: Path) -> Path:
    return origin(repo, tmp_path / "remote.git")


def push(repo: Repo, *args: str) -> subprocess.CompletedProcess[str]:
    return repo.run("push", "origin", *(args or ("main",)))


def reviewed(repo: Repo) -> None:
    done = run_reviewer("--once")
    assert done.returncode == 0, done.stderr


def test_a_clean_push_passes_with_no_python_started(
    repo: Repo, remote: Path, tmp_path: Path
) -> None:
    repo.land("clean", {"a.py": "x = 1\n"})
    repo.land("cleaner", {"b.py": "y = 2\n"})
    reviewed(repo)
    # Both reviews kept and clean: the hook alone lets it go, and says nothing.
    assert "landwatch" not in pushed_by_the_hook_alone(repo, remote, tmp_path / "calls")


@pytest.mark.parametrize("how", ["pushurl", "pushInsteadOf"])
def test_a_push_url_spelled_apart_from_the_fetch_url_starts_no_python_once_known(
    repo: Repo, remote: Path, tmp_path: Path, how: str
) -> None:
    """Fetching over one spelling and pushing over another (https and ssh, a path and its
    file:// URL) is one place: once the Python side has said so, a clean push starts none."""
    if how == "pushurl":
        repo.git("config", "remote.origin.pushurl", f"file://{remote}")
    else:
        repo.git("config", f"url.file://{remote}.pushInsteadOf", str(remote))
    repo.land("clean", {"a.py": "x = 1\n"})
    reviewed(repo)
    assert push(repo).returncode == 0  # the Python side asked, and remembered the place
    repo.land("cleaner", {"b.py": "y = 2\n"})
    reviewed(repo)
    log = tmp_path / "calls"
    pushed_by_the_hook_alone(repo, remote, log)
    # Pushed elsewhere since: the place remembered is not that one's, and Python is asked.
    other = bare_remote(tmp_path / "other.git")
    repo.git("config", "remote.origin.pushurl", str(other))
    repo.land("more", {"c.py": "z = 3\n"})
    reviewed(repo)
    push(repo)
    assert log.exists()


def test_a_reviewed_secret_refuses_the_push_and_leaves_the_remote_as_it_was(
    repo: Repo, remote: Path
) -> None:
    before = remote_head(remote)
    leaked = repo.land("add credentials", {"creds.py": CREDENTIALS})
    repo.land("more", {"a.py": "x = 1\n"})
    reviewed(repo)
    result = push(repo)
    assert result.returncode != 0
    assert remote_head(remote) == before
    said = result.stderr
    assert "push refused: 2 findings in 1 commit" in said
    assert f"{leaked[:10]} creds.py:1  S002" in said and "creds.py:2" in said
    assert AWS_KEY_ID not in said and AWS_SECRET_KEY not in said  # redacted everywhere
    assert AWS_KEY_ID[:4] in said
    # The exact rebase: from the parent of the commit holding it.
    assert f"git rebase -i {before[:12]}" in said and f"mark `edit` on {leaked[:10]}" in said
    assert "must be rotated" in said
    fingerprints = re.findall(r"landwatch allow ([0-9a-f]{20})", said)
    assert len(fingerprints) == 2
    assert "--reason false-positive|used-in-tests|fix-later" in said and "--no-verify" in said


def test_a_secret_in_the_last_commit_is_taken_out_by_an_amend(repo: Repo, remote: Path) -> None:
    repo.land("add credentials", {"creds.py": CREDENTIALS})
    reviewed(repo)
    said = push(repo).stderr
    assert "git commit --amend -a" in said and "git rebase" not in said
    repo.land("drop them", {"creds.py": None})
    # Still in the commit before: the push sends it, so it is still refused, by a rebase now.
    reviewed(repo)
    assert "git rebase -i" in push(repo).stderr


def test_a_flagged_commit_past_the_newest_thousand_sent_refuses_the_push(
    repo: Repo, remote: Path
) -> None:
    """An audit: a key flagged in an old commit, removed in the next, then 1,000 commits on top
    (a first push to a mirror): the gate read the newest 1,000 alone and the key went out."""
    before = remote_head(remote)
    leaked = repo.land("add credentials", {"creds.py": CREDENTIALS})
    repo.land("drop them", {"creds.py": None})
    reviewed(repo)
    write_history(repo, [Commit(f"{n}\n", {f"n/{n}": "x\n"}) for n in range(push_gate.MOST)])
    result = push(repo)
    assert result.returncode != 0 and remote_head(remote) == before, result.stderr
    assert leaked[:10] in result.stderr and AWS_KEY_ID not in result.stderr
    assert "and any older a review flagged" in result.stderr


def test_without_a_reviewer_the_hook_scans_what_was_never_reviewed(
    repo: Repo, remote: Path
) -> None:
    before = remote_head(remote)
    repo.land("add credentials", {"config/settings.py": CREDENTIALS})
    result = push(repo)
    assert result.returncode != 0 and remote_head(remote) == before
    assert "config/settings.py:1" in result.stderr and "waiting" not in result.stderr
    repo.git("reset", "-q", "--hard", before)
    repo.land("clean", {"a.py": "x = 1\n"})
    result = push(repo)
    assert result.returncode == 0, result.stderr
    assert remote_head(remote) == repo.head()


def test_waiting_for_no_reviewer_still_scans_in_the_hook(repo: Repo, remote: Path) -> None:
    """`landwatch.push.wait = 0` is no wait for the reviewer; it gave the hook's own scan no time
    either, and a token nobody had reviewed went out "unchecked"."""
    repo.git("config", "landwatch.push.wait", "0")
    before = remote_head(remote)
    repo.land("add credentials", {"config/settings.py": CREDENTIALS})
    result = push(repo)
    assert result.returncode != 0 and remote_head(remote) == before, result.stderr
    assert "config/settings.py:1  S002" in result.stderr and "unchecked" not in result.stderr


@pytest.mark.parametrize("reviewer", [True, False], ids=["reviewed", "scanned-in-the-hook"])
def test_a_commit_s_own_trailer_waves_no_secret_through_the_gate(
    repo: Repo, remote: Path, reviewer: bool
) -> None:
    """Attack 47: a stranger's commit (fetched, fast-forwarded, pushed on) naming the secret rules
    in a `Landwatch-Ignore:` trailer: its review and the hook's own scan honoured it, and its
    token went out with no word, though the gate obeys only what `landwatch allow` recorded."""
    before = remote_head(remote)
    message = "Add deploy helper\n\nLandwatch-Ignore: S002, S001, P001"
    leaked = repo.land(message, {"deploy.py": f'token = "{GITHUB_TOKEN}"  \n'})
    if reviewer:
        reviewed(repo)
        shown = repo.landwatch("show", leaked).stdout
        assert "S002" in shown and "P001" not in shown  # other rules' findings: waived
        assert "its commit's Landwatch-Ignore trailer, which waives no secret" in shown
    result = push(repo)
    assert result.returncode != 0 and remote_head(remote) == before, result.stderr
    assert f"{leaked[:10]} deploy.py:1  S002" in result.stderr


@pytest.mark.parametrize("target", ["origin", "its URL"])
def test_a_replace_ref_hiding_a_marked_commit_refuses_the_push_all_the_same(
    repo: Repo, remote: Path, target: str
) -> None:
    """Gate audit: `git replace --graft` of the secret's child onto the secret's parent hid the
    marked commit from the gate's walks (rev-list follows replace refs), while the pack git
    sends holds it: the push went through, with no word. By name (the quick path) and by URL."""
    before = remote_head(remote)
    leaked = repo.land("add credentials", {"creds.py": CREDENTIALS})
    child = repo.land("more", {"a.py": "x = 1\n"})
    reviewed(repo)
    repo.git("replace", "--graft", child, before)
    result = repo.run("push", "origin" if target == "origin" else str(remote), "main")
    assert result.returncode != 0, result.stderr
    assert f"{leaked[:10]} creds.py:1  S002" in result.stderr
    assert remote_head(remote) == before


@pytest.mark.parametrize("reviewer", [True, False], ids=["reviewed", "scanned-in-the-hook"])
@pytest.mark.parametrize(
    "loosening",
    ['exclude = ["deploy/**"]\n', '[rules]\nS002 = "off"\n'],
    ids=["excluded", "turned-off"],
)
def test_a_commit_s_own_configuration_waves_no_secret_of_its_own_through_the_gate(
    repo: Repo, remote: Path, tmp_path: Path, reviewer: bool, loosening: str
) -> None:
    """A commit whose own `.landwatch.toml` excludes deploy/ (or turns S002 off) beside a token
    in deploy/settings.py (a copied or fetched repository's, pushed on): its review said "no
    findings", no marker was made, and the hook's quick path sent it with no Python; the hook's
    own scan read the commit's configuration too. `landwatch ci` told the token."""
    before = remote_head(remote)
    files = {".landwatch.toml": loosening, "deploy/settings.py": f'token = "{GITHUB_TOKEN}"\n'}
    leaked = repo.land("Deploy settings", files)
    if reviewer:
        reviewed(repo)
        assert (layout.BLOCKING.path(repo.git_dir) / leaked).read_text() == "secrets\n"
    result = push(repo)
    assert result.returncode != 0 and remote_head(remote) == before, result.stderr
    assert f"{leaked[:10]} deploy/settings.py:1  S002" in result.stderr
    assert GITHUB_TOKEN not in result.stderr
    # Once it is on the remote's branch (an allowance here lets it go), the commits after it
    # come to the rules it brought: a token in deploy/ is the project's own to leave out.
    fingerprint = re.search(r"landwatch allow (\w+)", result.stderr)
    assert fingerprint is not None
    repo.landwatch("allow", fingerprint[1], "--reason", "used-in-tests")
    assert push(repo).returncode == 0
    repo.land("More settings", {"deploy/more.py": f'token = "{github_token("Mx2d")}"\n'})
    if reviewer:
        reviewed(repo)
        assert "landwatch" not in pushed_by_the_hook_alone(repo, remote, tmp_path / "calls")
    else:
        assert push(repo).returncode == 0


@pytest.mark.parametrize("reviewer", [True, False], ids=["reviewed", "scanned-in-the-hook"])
def test_a_secret_copied_out_of_where_no_rule_reads_refuses_the_push(
    repo: Repo, remote: Path, reviewer: bool
) -> None:
    """A token committed first in vendor/lib/conf.py (excluded by default: no finding), then
    copied into settings.py: told at info as "copied, not new", and both commits went out,
    though no review ever told the token where it was before."""
    before = remote_head(remote)
    repo.land("Vendor a library", {"vendor/lib/conf.py": f'token = "{GITHUB_TOKEN}"\n'})
    leaked = repo.land("Settings", {"settings.py": f'TOKEN = "{GITHUB_TOKEN}"\n'})
    if reviewer:
        reviewed(repo)
    result = push(repo)
    assert result.returncode != 0 and remote_head(remote) == before, result.stderr
    assert f"{leaked[:10]} settings.py:1  S002" in result.stderr
    assert "vendor/lib/conf.py" not in result.stderr


@pytest.mark.parametrize("reviewer", [True, False], ids=["reviewed", "scanned-in-the-hook"])
def test_an_evil_merge_s_own_secret_refuses_the_push_under_merges_skip(
    repo: Repo, remote: Path, reviewer: bool
) -> None:
    """Attack 36: with `merges = "skip"` (what a merge brings in is its commits' to answer for),
    credentials added in the merge itself, in neither parent, were neither reviewed nor scanned:
    the push went. What none of a merge's parents has is its own, and reviewed."""
    repo.land("review no merge", {".landwatch.toml": 'merges = "skip"\n'})
    repo.git("switch", "-q", "-c", "topic")
    repo.land("topic", {"a.py": "a = 1\n"})
    repo.git("switch", "-q", "main")
    repo.land("main", {"b.py": "b = 1\n"})
    repo.git("merge", "-q", "--no-commit", "topic")
    repo.stage({"creds.py": CREDENTIALS})
    merge = repo.land("Merge branch 'topic'", {})  # the hooks record the merge's landing
    if reviewer:
        reviewed(repo)
    result = push(repo)
    assert result.returncode != 0, result.stderr
    assert f"{merge[:10]} creds.py:1  S002" in result.stderr
    assert "a.py" not in result.stderr and "b.py" not in result.stderr


def main_holding_credentials(repo: Repo, remote: Path, how: str) -> str:
    """main with credentials the remote holds, pushed once allowed or with the gate off, and a
    branch `topic` from before them, checked out; the commit that added them."""
    repo.git("switch", "-q", "-c", "topic")
    repo.land("topic", {"a.py": "a = 1\n"})
    repo.git("switch", "-q", "main")
    leaked = repo.land("add credentials", {"creds.py": CREDENTIALS})
    if how == "allowed":
        reviewed(repo)
        assert push(repo).returncode != 0
        assert repo.landwatch("allow", leaked, "--reason", "used-in-tests").returncode == 0
    else:
        repo.git("config", "--global", "landwatch.push.block", "off")  # the person's own word
    assert push(repo).returncode == 0
    repo.run("config", "--global", "--unset-all", "landwatch.push.block")
    assert remote_head(remote) == leaked
    repo.git("switch", "-q", "topic")
    return leaked


@pytest.mark.parametrize("reviewer", [True, False], ids=["reviewed", "scanned-in-the-hook"])
@pytest.mark.parametrize("how", ["allowed", "gate-off"])
def test_a_merge_is_not_refused_for_what_it_brought_in_from_a_branch_the_remote_holds(
    repo: Repo, remote: Path, tmp_path: Path, reviewer: bool, how: str
) -> None:
    """A merge of main into a topic branch was judged against its first parent, all it brought
    in: main's credentials, on the remote already (allowed, or pushed with the gate off), refused
    the push of the topic branch, which sends none of the commits that brought them. A merge is
    judged for what none of its parents has; what its other side sends is judged on its own."""
    main_holding_credentials(repo, remote, how)
    repo.git("merge", "-q", "--no-edit", "main")  # landed as git merge lands it: a range
    merge = repo.head()
    if reviewer:
        reviewed(repo)
        # Nothing to say, and said by the Python side too, from the review kept.
        err = io.StringIO()
        line = f"refs/heads/topic {merge} refs/heads/topic {'0' * 40}\n"
        assert pre_push(repo.path, "origin", str(remote), line, err=err) == 0
        assert err.getvalue() == ""
        # So the hook alone lets it go: the merge has no blocking marker, nor one install makes.
        report_store.mark_every_blocking(repo.git_dir)
        assert not (layout.BLOCKING.path(repo.git_dir) / merge).exists()
        # (Where the remote's topic holds what the merge brought in: one the push creates is the
        # Python side's, to ask the remote what it holds, and so is a commit with a blocking
        # marker, main's credentials, that only origin/main would hold.)
        assert repo.run("push", "--no-verify", "origin", "main:refs/heads/topic").returncode == 0
        entry_point_logging(tmp_path / "calls")
    result = repo.run("push", "origin", "topic")
    assert result.returncode == 0, result.stderr
    assert "landwatch" not in result.stderr and not (tmp_path / "calls").exists()
    assert repo.git("--git-dir", str(remote), "rev-parse", "topic") == merge


@pytest.mark.parametrize("reviewer", [True, False], ids=["reviewed", "scanned-in-the-hook"])
def test_an_evil_merge_s_own_secret_refuses_the_push_and_nothing_it_brought_in_does(
    repo: Repo, remote: Path, reviewer: bool
) -> None:
    """By default (a merge's review reads all it brought in), a key added in the merge itself
    refuses the push, and only it: main's credentials, which the remote holds, are not named."""
    main_holding_credentials(repo, remote, "gate-off")
    repo.git("merge", "-q", "--no-commit", "main")
    repo.stage({"deploy.py": f'token = "{GITHUB_TOKEN}"\n'})
    merge = repo.land("Merge branch 'main' into topic", {})
    if reviewer:
        reviewed(repo)
    result = repo.run("push", "origin", "topic")
    assert result.returncode != 0, result.stderr
    assert "push refused: 1 finding in 1 commit" in result.stderr
    assert f"{merge[:10]} deploy.py:1  S002" in result.stderr and "creds.py" not in result.stderr


def test_a_review_the_reviewer_is_working_on_is_waited_for_within_the_bound(
    repo: Repo, remote: Path
) -> None:
    repo.land("add credentials", {"creds.py": CREDENTIALS})
    repo.git("config", "landwatch.push.wait", "7")
    lock = InstanceLock()
    lock.acquire(LockHolder(os.getpid(), "test", "0", "-"))  # a reviewer runs, but never gets to it
    try:
        clock, err = FakeClock(), io.StringIO()
        started = clock.monotonic()
        lines = f"refs/heads/main {repo.head()} refs/heads/main {remote_head(remote)}\n"
        code = pre_push(repo.path, "origin", str(remote), lines, clock=clock, err=err)
    finally:
        lock.release()
    assert code == REFUSED
    assert "waiting up to 7 s for the reviewer to finish 1 review" in err.getvalue()
    assert clock.monotonic() - started == pytest.approx(
        7.0, abs=0.15
    )  # the bound, then the hook's scan decided
    assert "creds.py:1" in err.getvalue()


def test_a_review_finished_while_waiting_decides(repo: Repo, remote: Path) -> None:
    head = repo.land("clean", {"a.py": "x = 1\n"})
    lock = InstanceLock()
    lock.acquire(LockHolder(os.getpid(), "test", "0", "-"))

    class Finishing(FakeClock):
        def sleep(self, seconds: float) -> None:
            super().sleep(seconds)
            if not self.mono > 1000.1:
                lock.release()  # the reviewer finishes the review at the first look
                reviewed(repo)
                lock.acquire(LockHolder(os.getpid(), "test", "0", "-"))

    try:
        clock, err = Finishing(), io.StringIO()
        lines = f"refs/heads/main {head} refs/heads/main {remote_head(remote)}\n"
        assert pre_push(repo.path, "origin", str(remote), lines, clock=clock, err=err) == 0
    finally:
        lock.release()
    assert clock.monotonic() == pytest.approx(1000.1)
    assert layout.report_file(repo.git_dir, head).exists()


def reviewed_before_its_hooks(repo: Repo, message: str, files: dict[str, str]) -> str:
    """A commit landed and its review kept, its project hooks queued and not run yet."""
    oid = repo.land(message, files)
    ReviewHandler().handle(WorkItem(WorkKind.REVIEW, oid, repo.git_dir), reporter())
    assert (layout.AWAITING.path(repo.git_dir) / oid).is_file()
    return oid


def test_under_errors_the_gate_waits_for_the_project_hooks_or_says_they_have_not_run(
    tmp_path: Path, repo: Repo
) -> None:
    """Left open at stop 62: under push.block = errors, a commit whose review was kept while its
    project hooks had not run went out with no Python started, and the error they found was
    told after the push. Now the gate waits for them while the reviewer runs, and else says
    they have not run; under the default policy, which they cannot refuse for, nothing starts."""
    committed_and_trusted(repo, {".pre-commit-config.yaml": local_hooks(TODO_CHECK)})
    remote = origin(repo, tmp_path / "remote.git")
    reviewed_before_its_hooks(repo, "one", {"a.py": "x = 1  # TODO\n"})
    entry = layout.ENTRY_POINT.path()
    kept = entry.read_bytes()
    assert "landwatch" not in pushed_by_the_hook_alone(repo, remote, tmp_path / "calls")
    entry.write_bytes(kept)
    repo.git("config", "landwatch.push.block", "errors")
    second = reviewed_before_its_hooks(repo, "two", {"b.py": "y = 2  # TODO\n"})
    result = repo.run("push", "origin", "main")  # no reviewer runs: nothing to wait for
    assert result.returncode == 0 and remote_head(remote) == second, result.stderr
    assert (
        f"landwatch: the project's hooks have not run yet on 1 commit of this push (the first "
        f"{second[:12]}): an error of theirs cannot refuse it (landwatch.push.block = errors)"
    ) in result.stderr
    third = reviewed_before_its_hooks(repo, "three", {"c.py": "z = 3  # TODO\n"})
    lock = InstanceLock()
    lock.acquire(LockHolder(os.getpid(), "test", "0", "-"))

    class Running(FakeClock):
        def sleep(self, seconds: float) -> None:
            super().sleep(seconds)
            lock.release()  # the reviewer runs the hooks at the first look
            drained(tools(tmp_path, "pre-commit"))
            lock.acquire(LockHolder(os.getpid(), "test", "0", "-"))

    try:
        clock, err = Running(), io.StringIO()
        lines = f"refs/heads/main {third} refs/heads/main {second}\n"
        assert pre_push(repo.path, "origin", str(remote), lines, clock=clock, err=err) == REFUSED
    finally:
        lock.release()
    said = err.getvalue()
    assert (
        "waiting up to 10 s for the reviewer to finish the project's hooks on 1 commit of this "
        "push" in said
    )
    assert f"{third[:10]} c.py:1  hook:no-todo" in said and "have not run yet" not in said


def test_no_verify_is_git_s_own_escape(repo: Repo, remote: Path) -> None:
    repo.land("add credentials", {"creds.py": CREDENTIALS})
    result = push(repo, "--no-verify", "main")
    assert result.returncode == 0 and remote_head(remote) == repo.head()


@pytest.mark.parametrize(
    ("policy", "refused"), [("secrets", False), ("errors", True), ("off", False), ("bogus", False)]
)
def test_the_policy_says_what_refuses(repo: Repo, remote: Path, policy: str, refused: bool) -> None:
    repo.land("a config that does not parse", {".landwatch.toml": "[rules\n"})
    reviewed(repo)
    repo.git("config", "landwatch.push.block", policy)
    result = push(repo)
    assert (result.returncode != 0) is refused, result.stderr


@pytest.mark.parametrize("instead", ["file", "link"])
def test_a_file_where_landwatch_s_directory_was_is_said_as_the_push_goes_on(
    repo: Repo, remote: Path, tmp_path: Path, instead: str
) -> None:
    """An audit: with `.git/landwatch` replaced by a file, the hook took the repository for one
    landwatch is not installed in, and a reviewed key went out without a word."""
    repo.land("add credentials", {"creds.py": CREDENTIALS})
    reviewed(repo)
    place = repo.git_dir / "landwatch"
    place.rename(tmp_path / "aside")
    if instead == "file":
        place.write_text("x\n")
    else:
        place.symlink_to(tmp_path / "aside")
    result = push(repo)
    assert result.returncode == 0  # landwatch broken never refuses a push
    assert "is not landwatch's directory; the push goes on unjudged" in result.stderr


def test_a_copied_repository_s_own_configuration_does_not_turn_the_gate_off(
    repo: Repo, remote: Path
) -> None:
    """Attack 48: `[landwatch] push.block = off` in the .git/config an archive brought turned the
    gate off for whoever unpacked it, with no word; only the person's own configuration does,
    and install and doctor say what the repository's asked."""
    repo.git("config", "landwatch.push.block", "off")
    said = "git config landwatch.push.block = 'off' is not your own configuration"
    assert said in repo.install()
    doctor = repo.landwatch("doctor")
    assert said in doctor.stdout and "landwatch uses secrets" in doctor.stdout
    before = remote_head(remote)
    repo.land("add credentials", {"creds.py": CREDENTIALS})
    result = push(repo)
    assert result.returncode != 0 and remote_head(remote) == before, result.stderr
    assert "(landwatch.push.block = secrets)" in result.stderr
    repo.git("config", "--global", "landwatch.push.block", "off")  # the person's own word
    assert push(repo).returncode == 0 and remote_head(remote) == repo.head()


def test_conflict_markers_refuse_by_default_and_off_lets_a_secret_go(
    repo: Repo, remote: Path
) -> None:
    repo.land("merge leftovers", {"a.txt": "<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> topic\n"})
    reviewed(repo)
    result = push(repo)
    assert result.returncode != 0 and "P004" in result.stderr
    repo.git("config", "--global", "landwatch.push.block", "off")
    assert push(repo).returncode == 0


def test_only_what_the_remote_lacks_is_judged(repo: Repo, remote: Path) -> None:
    repo.git("config", "--global", "landwatch.push.block", "off")
    repo.land("add credentials", {"creds.py": CREDENTIALS})
    assert push(repo).returncode == 0  # pushed while the gate was off
    repo.git("config", "--global", "--unset", "landwatch.push.block")
    repo.git("switch", "-q", "-c", "topic")
    repo.land("clean", {"a.py": "x = 1\n"})
    # A new branch: its commits on origin/main are the remote's already.
    result = push(repo, "topic")
    assert result.returncode == 0, result.stderr
    # A deletion sends nothing.
    assert push(repo, ":topic").returncode == 0


@pytest.mark.parametrize("moved", ["set-url", "push-url"])
def test_tracking_refs_of_another_place_are_not_taken_for_the_destination(
    repo: Repo, remote: Path, tmp_path: Path, moved: str
) -> None:
    """A private history pushed to a new public repository: origin's tracking refs say what the
    old remote holds, not the new one, and the secret already on the old one is refused."""
    repo.git("config", "--global", "landwatch.push.block", "off")
    repo.land("add credentials", {"creds.py": CREDENTIALS})
    assert push(repo).returncode == 0  # the private remote holds it
    repo.git("config", "--global", "--unset", "landwatch.push.block")
    repo.land("clean", {"a.py": "x = 1\n"})
    reviewed(repo)
    public = bare_remote(tmp_path / "public.git")
    repo.git(
        "remote", "set-url", *(["--push"] if moved == "push-url" else []), "origin", str(public)
    )
    result = push(repo)
    assert result.returncode != 0 and "creds.py:1" in result.stderr
    listed = subprocess.run(
        ["git", "--git-dir", str(public), "rev-parse", "-q", "--verify", "main"]
    )
    assert listed.returncode != 0  # nothing reached it


@pytest.mark.parametrize("stale", ["set-url", "deleted-there"])
@pytest.mark.parametrize("reviewer", [True, False], ids=["reviewed", "scanned-in-the-hook"])
def test_a_new_branch_is_judged_by_what_the_remote_holds_not_by_stale_tracking_refs(
    repo: Repo, remote: Path, tmp_path: Path, stale: str, reviewer: bool
) -> None:
    """A secret on the old remote (pushed with the gate off, fetched), then `git remote set-url
    origin` to a new one, or a branch deleted there: origin's tracking refs still held it, and a
    new branch took it where it was not, unjudged. A push creating a ref asks the remote."""
    repo.land("add credentials", {"creds.py": CREDENTIALS}, hooks=False)
    assert push(repo, "--no-verify", "main:leak").returncode == 0
    repo.git("fetch", "-q", "origin")
    if stale == "set-url":
        remote = bare_remote(tmp_path / "public.git")
        repo.git("remote", "set-url", "origin", str(remote))
    else:  # deleted by a teammate's push: this clone's origin/leak stays until a pruning fetch
        subprocess.run(["git", "--git-dir", str(remote), "branch", "-D", "leak"], check=True)
    repo.git("switch", "-q", "-c", "topic")
    repo.land("clean", {"a.py": "x = 1\n"})
    if reviewer:
        reviewed(repo)
    result = push(repo, "topic")
    assert result.returncode != 0 and "creds.py:1" in result.stderr, result.stderr
    assert repo.run("--git-dir", str(remote), "rev-parse", "-q", "--verify", "topic").returncode


def test_the_remote_is_asked_through_the_person_s_own_ssh(
    repo: Repo, remote: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attack 58 through core.sshCommand (a key, a jump host: `ssh -F ~/.ssh/work_config`): the
    person's push reached the new remote through it, the gate's `git ls-remote` ran plain ssh,
    which reached nothing, and the stale tracking refs stood in: the secret went there unjudged.
    The gate asks through the person's own ssh, in batch mode."""
    for name in ("GIT_SSH_COMMAND", "GIT_SSH", "GIT_SSH_VARIANT"):
        monkeypatch.delenv(name, raising=False)
    ssh = fake_ssh(tmp_path / "bin")
    repo.git("config", "core.sshCommand", f"{ssh.program} -F work_config")
    repo.land("add credentials", {"creds.py": CREDENTIALS}, hooks=False)
    assert push(repo, "--no-verify", "main:leak").returncode == 0
    repo.git("fetch", "-q", "origin")
    public = bare_remote(tmp_path / "public.git")
    repo.git("remote", "set-url", "origin", f"fakehost:{public}")
    repo.git("switch", "-q", "-c", "topic")
    repo.land("clean", {"a.py": "x = 1\n"})
    reviewed(repo)
    result = push(repo, "topic")
    assert result.returncode != 0 and "creds.py:1" in result.stderr, result.stderr
    assert "did not say what it holds" not in result.stderr
    asked = [call for call in ssh.connections() if "git-upload-pack" in call]
    batch = "-F work_config -o BatchMode=yes -o SendEnv=GIT_PROTOCOL"
    assert asked == [f"{batch} fakehost git-upload-pack '{public}'"]
    assert repo.run("--git-dir", str(public), "rev-parse", "-q", "--verify", "topic").returncode


@pytest.mark.parametrize("fetch", ["works", "fails"])
def test_a_new_branch_from_a_clone_its_remote_moved_on_from_is_judged_for_its_own_commits(
    repo: Repo, remote: Path, tmp_path: Path, fetch: str
) -> None:
    """A teammate pushed to main since this clone's last fetch, and the history both hold has a
    secret pushed with the gate off: a new branch sends none of it. The remote names a tip this
    clone lacks, which is fetched (objects alone): that history is the remote's, as before the
    gate asked. Where it cannot be fetched, the history is judged too, and a line says so."""
    repo.land("add credentials", {"creds.py": CREDENTIALS}, hooks=False)
    assert push(repo, "--no-verify", "main").returncode == 0
    teammate = tmp_path / "teammate"
    git("clone", "-q", str(remote), str(teammate), cwd=tmp_path)
    git("commit", "-q", "--allow-empty", "-m", "a teammate's", cwd=teammate)
    if fetch == "fails":  # a commit git's fsck refuses, which a clone checking what it fetches
        # (fetch.fsckObjects) never takes: ls-remote and a push are not checked
        made = "tree {}\nparent {}\nauthor T <t@example.com> no date +0000\n\nbad\n".format(
            git("rev-parse", "HEAD^{tree}", cwd=teammate), git("rev-parse", "HEAD", cwd=teammate)
        )
        bad = subprocess.run(
            ["git", "hash-object", "-t", "commit", "--literally", "-w", "--stdin"],
            cwd=teammate,
            env=git_env(),
            input=made,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        git("update-ref", "refs/heads/main", bad, cwd=teammate)
        repo.git("config", "fetch.fsckObjects", "true")
    git("push", "-q", "origin", "main", cwd=teammate)
    tracked = repo.git("rev-parse", "origin/main")
    repo.git("switch", "-q", "-c", "topic")
    repo.land("clean", {"a.py": "x = 1\n"})
    result = push(repo, "topic")
    if fetch == "works":
        assert result.returncode == 0 and "landwatch" not in result.stderr, result.stderr
    else:
        assert result.returncode != 0 and "creds.py:1" in result.stderr
        assert "landwatch: origin moved on since the last fetch" in result.stderr
        assert "(git fetch origin first spares that)" in result.stderr
    assert repo.git("rev-parse", "origin/main") == tracked  # nothing but objects fetched
    assert not (repo.git_dir / "FETCH_HEAD").exists()


def out_of_reach(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, asked: str
) -> tuple[str, str]:
    """origin set to a remote that cannot be asked: "gone", or "silent" past the bound (1 s
    here); its URL, and the words the gate's one line then holds."""
    if asked == "gone":
        url, why = str(tmp_path / "gone.git"), "fatal: '"
    else:
        repo.git("config", "protocol.ext.allow", "always")
        url, why = "ext::sleep 30", "no answer"
        monkeypatch.setattr(push_heard, "ASK_SECONDS", 1.0)
    repo.git("remote", "set-url", "origin", url)
    return url, why


@pytest.mark.parametrize("asked", ["gone", "silent"])
def test_a_remote_that_cannot_be_asked_is_judged_by_its_tracking_refs_in_one_line(
    repo: Repo, remote: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, asked: str
) -> None:
    """The gate never stops a push because the remote would not answer it (gone, out of reach,
    slower than the bound): its tracking refs stand in, as before, and one line says so. A push
    creating no ref asks nothing of it."""
    repo.land("add credentials", {"creds.py": CREDENTIALS}, hooks=False)
    assert push(repo, "--no-verify", "main").returncode == 0
    url, why = out_of_reach(repo, tmp_path, monkeypatch, asked)
    held = repo.head()
    repo.land("clean", {"a.py": "x = 1\n"})
    zero = "0" * 40
    for lines, said in (
        (f"refs/heads/topic {repo.head()} refs/heads/topic {zero}\n", 1),
        (f"refs/heads/main {repo.head()} refs/heads/main {held}\n", 0),
    ):
        err = io.StringIO()
        assert pre_push(repo.path, "origin", url, lines, err=err) == 0
        told = err.getvalue().splitlines()
        assert len(told) == said, told
        start = f"landwatch: origin did not say what it holds ({why}"
        assert all(line.startswith(start) for line in told), told
        assert all(line.endswith("as last fetched") for line in told)


def feature_pushed_unjudged(repo: Repo) -> str:
    """A branch `feature` whose commit adds credentials (reviewed: its blocking marker kept),
    pushed with the gate skipped (`--no-verify`), so origin/feature holds it; main checked out
    again, and feature merged into it (a merge commit, reviewed and clean). The credentials'."""
    repo.git("switch", "-q", "-c", "feature")
    leaked = repo.land("add credentials", {"creds.py": CREDENTIALS})
    reviewed(repo)
    assert (layout.BLOCKING.path(repo.git_dir) / leaked).exists()
    assert push(repo, "--no-verify", "feature").returncode == 0
    repo.git("switch", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "--no-edit", "feature")
    reviewed(repo)
    assert not (layout.BLOCKING.path(repo.git_dir) / repo.head()).exists()
    return leaked


@pytest.mark.parametrize("stale", ["deleted-there", "set-url"])
def test_a_push_updating_a_branch_is_judged_by_what_the_remote_holds_not_by_stale_tracking_refs(
    repo: Repo, remote: Path, tmp_path: Path, stale: str
) -> None:
    """A branch holding a secret pushed with the gate skipped, then deleted on the remote by a
    teammate (origin/feature never pruned here), or the remote moved to a new one where main
    already is: `git push origin main` after merging it sent the secret unjudged, its tracking
    ref taken for the remote's. A commit with a blocking marker only they hold: the remote asked."""
    leaked = feature_pushed_unjudged(repo)
    if stale == "deleted-there":
        subprocess.run(["git", "--git-dir", str(remote), "branch", "-qD", "feature"], check=True)
    else:  # the new remote holds main as origin/main says: only origin/feature is the old one's
        remote = bare_remote(tmp_path / "public.git")
        repo.git("push", "-q", "--no-verify", str(remote), "origin/main:refs/heads/main")
        repo.git("remote", "set-url", "origin", str(remote))
    result = push(repo)
    assert result.returncode != 0, result.stderr
    assert f"{leaked[:10]} creds.py:1" in result.stderr
    assert remote_head(remote) != repo.head()


def test_a_secret_the_remote_holds_on_another_branch_is_not_judged_again(
    repo: Repo, remote: Path
) -> None:
    """The same merge pushed while the remote still holds feature: the gate asks the remote
    (the quick path hands the push to the Python side), which names feature, and the push goes
    with no word."""
    feature_pushed_unjudged(repo)
    result = push(repo)
    assert result.returncode == 0 and "landwatch" not in result.stderr, result.stderr
    assert remote_head(remote) == repo.head()


def test_a_teammate_s_commits_merged_from_a_branch_the_remote_holds_start_no_python(
    repo: Repo, remote: Path, tmp_path: Path
) -> None:
    """Commits no review here holds (a teammate's, fetched) and no blocking marker, on a branch
    the remote holds: the quick path passes them by its tracking refs, as before, with no Python
    started, while a commit with a marker elsewhere in the repository changes nothing."""
    teammate = tmp_path / "teammate"
    git("clone", "-q", str(remote), str(teammate), cwd=tmp_path)
    git("switch", "-q", "-c", "theirs", cwd=teammate)
    git("commit", "-q", "--allow-empty", "-m", "a teammate's", cwd=teammate)
    git("push", "-q", "origin", "theirs", cwd=teammate)
    repo.git("fetch", "-q", "origin")
    repo.git("switch", "-q", "-c", "scratch")
    repo.land("add credentials", {"creds.py": CREDENTIALS})  # never pushed: a marker, aside
    repo.git("switch", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "--no-edit", "origin/theirs")
    reviewed(repo)
    assert "landwatch" not in pushed_by_the_hook_alone(repo, remote, tmp_path / "calls")


@pytest.mark.parametrize("asked", ["gone", "silent"])
def test_a_remote_that_cannot_be_asked_of_a_marked_commit_is_judged_by_its_tracking_refs(
    repo: Repo, remote: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, asked: str
) -> None:
    """A push updating a branch, sending past what the remote holds there a commit with a
    blocking marker that its tracking refs alone hold, asks the remote; where it does not answer
    (gone, slower than the bound), its tracking refs stand in, as before, said in one line."""
    feature_pushed_unjudged(repo)
    url, why = out_of_reach(repo, tmp_path, monkeypatch, asked)
    lines = f"refs/heads/main {repo.head()} refs/heads/main {repo.git('rev-parse', 'HEAD^')}\n"
    err = io.StringIO()
    assert pre_push(repo.path, "origin", url, lines, err=err) == 0
    told = err.getvalue().splitlines()
    assert len(told) == 1, told
    assert told[0].startswith(f"landwatch: origin did not say what it holds ({why}"), told
    assert told[0].endswith("as last fetched")


@pytest.mark.parametrize(
    ("private", "branch", "public"),
    [("pub/internal", "main", "pub"), ("corp", "public/leak", "corp/public")],
)
def test_what_a_remote_named_within_another_s_holds_is_not_taken_for_that_one_s(
    repo: Repo, tmp_path: Path, private: str, branch: str, public: str
) -> None:
    """`--remotes=pub` took refs/remotes/pub/internal/* too: a token on the private remote
    pub/internal went to the new public remote pub unjudged. Under corp/public beside corp,
    corp's branch public/leak is the very ref corp/public's own leak would be."""
    for name in (private, public):
        repo.git("remote", "add", name, str(bare_remote(tmp_path / f"{name}.git")))
    repo.land("add credentials", {"creds.py": CREDENTIALS}, hooks=False)
    assert repo.run("push", "--no-verify", private, f"main:{branch}").returncode == 0
    result = repo.run("push", public, "main")
    assert result.returncode != 0 and "creds.py:1" in result.stderr
    assert repo.run("--git-dir", str(tmp_path / f"{public}.git"), "rev-parse", "main").returncode


def test_a_push_to_a_url_judges_what_that_remote_lacks(repo: Repo, remote: Path) -> None:
    repo.land("add credentials", {"creds.py": CREDENTIALS})
    result = repo.run("push", str(remote), "main")
    assert result.returncode != 0 and "creds.py:1" in result.stderr
    repo.git("reset", "-q", "--hard", "HEAD~")
    repo.land("clean", {"a.py": "x = 1\n"})
    assert repo.run("push", str(remote), "main").returncode == 0


@pytest.mark.parametrize("broken", ["gone", "crashes", "not-a-repository"])
def test_a_broken_landwatch_never_refuses_a_push(
    repo: Repo, remote: Path, tmp_path: Path, broken: str
) -> None:
    repo.land("add credentials", {"creds.py": CREDENTIALS})
    if broken == "gone":
        layout.ENTRY_POINT.path().unlink()
    elif broken == "crashes":
        entry_point_logging(tmp_path / "calls", status=1)
    else:
        err = io.StringIO()
        assert pre_push(tmp_path, "origin", "x", "", err=err) == 0
        assert err.getvalue().startswith("landwatch: the push gate could not decide (")
        return
    result = push(repo)
    assert result.returncode == 0 and remote_head(remote) == repo.head()
    [line] = [line for line in result.stderr.splitlines() if line.startswith("landwatch:")]
    assert "the push gate could not decide" in line and "the push goes on" in line


def test_a_refusal_stands_when_its_findings_cannot_be_kept(tmp_path: Path) -> None:
    """A full disk fails only the note `landwatch allow` reads, never the verdict it follows."""
    disk = tmp_path / "disk"
    with tmpfs(disk, "4m"):
        repo = installed(disk / "repo")
        remote = origin(repo, tmp_path / "remote.git")
        before = remote_head(remote)
        repo.land("add credentials", {"creds.py": CREDENTIALS})
        reviewed(repo)
        filler = fill(disk)
        try:
            result = push(repo)
        finally:
            filler.unlink()
    assert result.returncode != 0 and remote_head(remote) == before
    said = result.stderr
    assert "push refused: 2 findings in 1 commit" in said
    assert "the refused findings could not be kept" in said and "could not decide" not in said


def test_a_corrupt_review_is_judged_again_in_the_hook(repo: Repo, remote: Path) -> None:
    leaked = repo.land("add credentials", {"creds.py": CREDENTIALS})
    reviewed(repo)
    layout.report_file(repo.git_dir, leaked).write_text("{")  # its marker says to look
    result = push(repo)
    assert result.returncode != 0 and "creds.py:1" in result.stderr


def test_a_hook_it_replaced_runs_first_with_git_s_stdin(
    repo: Repo, remote: Path, tmp_path: Path
) -> None:
    log = tmp_path / "theirs"
    hooks = repo.git_dir / "hooks"
    (hooks / "pre-push").unlink()
    (hooks / "pre-push").write_text(f'#!/bin/sh\necho "$@" >> "{log}"\ncat >> "{log}"\n')
    (hooks / "pre-push").chmod(0o755)
    repo.install()
    head = repo.land("clean", {"a.py": "x = 1\n"})
    before = remote_head(remote)
    assert push(repo).returncode == 0
    assert log.read_text() == f"origin {remote}\nrefs/heads/main {head} refs/heads/main {before}\n"
    # Refused by it: the push stops there, and the gate adds nothing.
    (hooks / "pre-push.before-landwatch").write_text("#!/bin/sh\nexit 1\n")
    repo.land("more", {"a.py": "x = 2\n"})
    result = push(repo)
    assert result.returncode != 0 and "landwatch" not in result.stderr


@pytest.mark.parametrize("reason", ["false-positive", "used-in-tests", "fix-later"])
def test_an_allowed_finding_lets_the_next_push_pass_and_says_so(
    repo: Repo, remote: Path, reason: str
) -> None:
    repo.land("add credentials", {"creds.py": CREDENTIALS})
    reviewed(repo)
    said = push(repo).stderr
    for fingerprint in re.findall(r"landwatch allow ([0-9a-f]{20})", said):
        allowed = repo.landwatch("allow", fingerprint, "--reason", reason)
        assert allowed.returncode == 0, allowed.stderr
    result = push(repo)
    assert result.returncode == 0, result.stderr
    assert remote_head(remote) == repo.head()
    assert f"landwatch: pushing what was allowed: S002 in {repo.head()[:10]} ({reason}" in (
        result.stderr
    )
    assert "and 1 more" in result.stderr and AWS_KEY_ID not in result.stderr


@pytest.mark.parametrize("reviewed_first", [True, False], ids=["reviewed", "scanned"])
@pytest.mark.parametrize("where", ["tests/fixture.py", "deploy/id_rsa"])
def test_an_allowed_secret_lets_no_other_through_where_it_was(
    repo: Repo, remote: Path, where: str, reviewed_first: bool
) -> None:
    """A fingerprint is the redacted line's: every token written on it, every key's BEGIN line,
    has the allowed one's. The allowance holds to the secret it was given for; a real one
    written where a test one was allowed refuses the push, reviewed or scanned by the hook."""

    def secret(seed: int) -> str:
        if where.endswith("id_rsa"):
            return "\n".join(pem("RSA PRIVATE KEY", seed)) + "\n"
        return f'TOKEN = "{github_token(f"seed{seed}")}"\n'

    repo.land("a test secret", {where: secret(1)})
    if reviewed_first:
        reviewed(repo)
    said = push(repo).stderr
    [fingerprint] = set(re.findall(r"landwatch allow ([0-9a-f]{20})", said))
    assert repo.landwatch("allow", fingerprint, "--reason", "used-in-tests").returncode == 0
    assert push(repo).returncode == 0
    before = remote_head(remote)
    repo.land("taken out", {where: None})  # a key's header added again, not a key rotated
    repo.land("the real one", {where: secret(2)})
    if reviewed_first:
        reviewed(repo)
    result = push(repo)
    assert result.returncode != 0, result.stderr
    assert remote_head(remote) == before
    assert f"landwatch allow {fingerprint}" in result.stderr  # the same place, another secret
    # Allowed again, the new one is allowed too, and the first still is.
    assert repo.landwatch("allow", fingerprint, "--reason", "used-in-tests").returncode == 0
    assert push(repo).returncode == 0


def test_a_commit_allowed_whole_passes_and_a_finding_the_hook_s_scan_found_can_be_allowed(
    repo: Repo, remote: Path
) -> None:
    first = repo.land("add credentials", {"creds.py": CREDENTIALS})
    assert repo.landwatch("allow", "HEAD", "--reason", "used-in-tests").returncode == 0
    second = repo.land("a token for the fixtures", {"keys.py": f'token = "{GITHUB_TOKEN}"\n'})
    # No reviewer: the hook's own scan found it; its fingerprint, as the refusal named it, is
    # known to `landwatch allow` though no review of it is kept.
    said = push(repo).stderr
    assert f"{second[:10]} keys.py:1" in said and f"{first[:10]} " not in said
    [fingerprint] = re.findall(r"landwatch allow ([0-9a-f]{20})", said)
    allowed = repo.landwatch("allow", fingerprint, "--reason", "false-positive")
    assert allowed.returncode == 0, allowed.stderr
    result = push(repo)
    assert result.returncode == 0, result.stderr
    assert remote_head(remote) == second


def test_a_push_from_a_linked_worktree_is_judged_by_the_repository_s_reviews(
    repo: Repo, remote: Path
) -> None:
    repo.git("worktree", "add", "-q", "-b", "side", str(repo.path.parent / "side"))
    side = Repo.existing(repo.path.parent / "side")
    side.land("add credentials", {"creds.py": CREDENTIALS})
    reviewed(repo)
    result = side.run("push", "origin", "side")
    assert result.returncode != 0 and "creds.py:1" in result.stderr
    side.land("drop them", {"creds.py": None})
    side.git("reset", "-q", "--hard", "HEAD~2")
    side.land("clean", {"a.py": "x = 1\n"})
    reviewed(repo)
    result = side.run("push", "origin", "side")
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("given", ["absolute", "relative"])
def test_a_push_of_a_git_dir_named_from_elsewhere_is_judged(
    repo: Repo, remote: Path, tmp_path: Path, given: str
) -> None:
    """`git --git-dir=X push` run elsewhere (auto-push did, from the reviewer's `/`) runs the hook
    there, naming the repository in GIT_DIR alone: the gate could not decide, and the push went."""
    before = remote_head(remote)
    repo.land("add credentials", {"creds.py": CREDENTIALS})
    reviewed(repo)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    named = str(repo.git_dir) if given == "absolute" else os.path.relpath(repo.git_dir, elsewhere)
    result = subprocess.run(
        ["git", f"--git-dir={named}", "push", "origin", "main"],
        cwd=elsewhere,
        env=git_env(),
        capture_output=True,
        text=True,
    )
    assert result.returncode != 0 and "push refused: 2 findings" in result.stderr, result.stderr
    assert remote_head(remote) == before


@pytest.mark.parametrize("review", ["reviewed", "unreviewed"])
def test_a_secret_past_the_line_cap_refuses_the_push(
    repo: Repo, remote: Path, tmp_path: Path, review: str
) -> None:
    before = remote_head(remote)
    repo.land("Cap the review", CAPPED)
    cut = repo.land("import data and settings", PAST_THE_CAP)
    if review == "reviewed":
        reviewed(repo)
        assert "CUT" in repo.landwatch("show", cut).stdout  # the review stopped at the cap
        # Its marker sends the push to the gate's Python side, which reads on past the cap.
        assert (layout.BLOCKING.path(repo.git_dir) / cut).read_text() == "unchecked\n"
    result = push(repo)
    assert result.returncode != 0 and remote_head(remote) == before
    assert f"{cut[:10]} settings.py:1  S002" in result.stderr
    assert GITHUB_TOKEN not in result.stderr


@pytest.mark.parametrize("review", ["reviewed", "unreviewed"])
def test_a_secret_in_a_text_file_too_large_for_the_review_refuses_the_push(
    repo: Repo, remote: Path, review: str
) -> None:
    """Attack 49: a text file past 8 MB gets no line checks, and nothing marked its review as not
    read whole: a dump holding a token on its first line went out, reviewed or not."""
    before = remote_head(remote)
    leaked = repo.land("add the dump", {"dump.sql": big_dump(f'-- token = "{GITHUB_TOKEN}"\n')})
    if review == "reviewed":
        reviewed(repo)
        assert (layout.BLOCKING.path(repo.git_dir) / leaked).read_text() == "unchecked\n"
    result = push(repo)
    assert result.returncode != 0 and remote_head(remote) == before, result.stderr
    assert f"{leaked[:10]} dump.sql:1  S002" in result.stderr
    assert GITHUB_TOKEN not in result.stderr


@pytest.mark.parametrize("review", ["reviewed", "unreviewed"])
def test_a_secret_in_a_file_git_is_told_not_to_diff_refuses_the_push(
    repo: Repo, remote: Path, review: str
) -> None:
    """Attack 81: a notebook `.gitattributes` marks `-diff` was binary to libgit2, so its review
    read none of its lines and made no blocking marker, the hook let the push out with no Python,
    and unreviewed, the gate's own scan missed the token too."""
    repo.land("attributes", {".gitattributes": "*.ipynb -diff\n"})
    assert push(repo, "--no-verify", "main").returncode == 0
    before = remote_head(remote)
    notebook = '{"cells": [{"source": ["token = \\"' + GITHUB_TOKEN + '\\""]}]}\n'
    leaked = repo.land("notebook", {"nb.ipynb": notebook})
    if review == "reviewed":
        reviewed(repo)
        assert (layout.BLOCKING.path(repo.git_dir) / leaked).read_text() == "secrets\n"
    result = push(repo)
    assert result.returncode != 0 and remote_head(remote) == before, result.stderr
    assert f"{leaked[:10]} nb.ipynb:1  S002" in result.stderr
    assert GITHUB_TOKEN not in result.stderr


def test_a_large_file_git_is_told_not_to_diff_is_read_by_the_gate(repo: Repo, remote: Path) -> None:
    """Attack 81: past 8 MB, a file whose attributes say `binary` was taken for binary whatever
    it held, and its review was read whole; its text is the gate's to read, as any large text's."""
    repo.land("attributes", {".gitattributes": "*.sql binary\n"})
    assert push(repo, "--no-verify", "main").returncode == 0
    before = remote_head(remote)
    leaked = repo.land(
        "add the dump", {"dump.sql": big_dump(last=f'-- token = "{GITHUB_TOKEN}"\n')}
    )
    reviewed(repo)
    assert (layout.BLOCKING.path(repo.git_dir) / leaked).read_text() == "unchecked\n"
    result = push(repo)
    assert result.returncode != 0 and remote_head(remote) == before, result.stderr
    assert f"{leaked[:10]} dump.sql:90001  S002" in result.stderr


@pytest.mark.parametrize("review", ["reviewed", "unreviewed"])
def test_a_secret_in_a_utf16_file_refuses_the_push(repo: Repo, remote: Path, review: str) -> None:
    """Attack 82: a token in what Windows PowerShell 5's `>` writes (UTF-16 LE, a byte order mark)
    was binary to git's NUL test: its review read no line ("0 added lines checked"), and the push
    went out with no word, reviewed or not."""
    before = remote_head(remote)
    leaked = repo.land(
        "deploy env", {"deploy.env": f"GITHUB_TOKEN={GITHUB_TOKEN}\r\n".encode("utf-16")}
    )
    if review == "reviewed":
        reviewed(repo)
        assert (layout.BLOCKING.path(repo.git_dir) / leaked).read_text() == "secrets\n"
    result = push(repo)
    assert result.returncode != 0 and remote_head(remote) == before, result.stderr
    assert f"{leaked[:10]} deploy.env:1  S002" in result.stderr
    assert GITHUB_TOKEN not in result.stderr


def test_a_large_utf16_file_is_read_by_the_gate_decoded(repo: Repo, remote: Path) -> None:
    """Attack 82: past 8 MB, a UTF-16 file was binary by its first bytes and left unread; its
    text is the gate's to read, decoded a piece at a time, to its end."""
    before = remote_head(remote)
    dump = big_dump(last=f'-- token = "{GITHUB_TOKEN}"\n').encode("utf-16")
    leaked = repo.land("add the dump", {"dump.sql": dump})
    reviewed(repo)
    assert (layout.BLOCKING.path(repo.git_dir) / leaked).read_text() == "unchecked\n"
    result = push(repo)
    assert result.returncode != 0 and remote_head(remote) == before, result.stderr
    assert f"{leaked[:10]} dump.sql:90001  S002" in result.stderr


def test_of_a_large_text_file_changed_the_gate_reads_what_the_change_adds(
    repo: Repo, remote: Path
) -> None:
    """Its lines read from git a piece at a time, to its very end, and of a change to it only the
    lines the change adds: the token already on the remote is no new finding."""
    repo.land("add the dump", {"dump.sql": big_dump(f'-- token = "{GITHUB_TOKEN}"\n')})
    assert push(repo, "--no-verify", "main").returncode == 0
    leaked = repo.land("grow it", {"dump.sql": big_dump(f'-- token = "{GITHUB_TOKEN}"\n', LAST)})
    result = push(repo)
    assert result.returncode != 0, result.stderr
    assert re.findall(r"dump\.sql:\d+  S00\d", result.stderr) == ["dump.sql:90002  S002"]
    assert f"{leaked[:10]} dump.sql:90002" in result.stderr
    repo.git("reset", "-q", "--hard", "HEAD~")
    repo.land("end it", {"dump.sql": big_dump(f'-- token = "{GITHUB_TOKEN}"\n', "-- end\n")})
    repo.land("a large binary file", {"data.bin": b"\0" * (9 << 20)})
    reviewed(repo)
    assert not (layout.BLOCKING.path(repo.git_dir) / repo.head()).exists()  # read whole
    result = push(repo)
    assert result.returncode == 0 and remote_head(remote) == repo.head(), result.stderr


def past_twenty_lines(repo: Repo, remote: Path, cut: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """`cut` reviewed and pushed past the remote's main by a gate that reads 20 added lines: the
    push goes on, and the one line it says."""
    monkeypatch.setattr(push_gate, "LINES", 20)
    reviewed(repo)
    err = io.StringIO()
    lines = f"refs/heads/main {cut} refs/heads/main {remote_head(remote)}\n"
    assert pre_push(repo.path, "origin", str(remote), lines, clock=FakeClock(), err=err) == 0
    [said] = err.getvalue().splitlines()
    return said


def test_a_large_text_file_past_what_the_gate_reads_is_named_and_the_push_goes_on(
    repo: Repo, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cut = repo.land("add the dump", {"dump.sql": big_dump()})
    said = past_twenty_lines(repo, remote, cut, monkeypatch)
    assert said.startswith("landwatch: the push gate read only the first 20 added lines of 1 ")


def test_a_commit_cut_at_the_cap_that_holds_no_secret_passes_and_its_marker_costs_a_look(
    repo: Repo, remote: Path, tmp_path: Path
) -> None:
    repo.land("Cap the review", CAPPED)
    clean = repo.land("import data", {**PAST_THE_CAP, "settings.py": 'token = os.environ["T"]\n'})
    reviewed(repo)
    log = tmp_path / "calls"
    entry_point_logging(log)  # the hook asks the gate, here one that lets everything go
    assert push(repo).returncode == 0 and remote_head(remote) == clean
    assert log.read_text().startswith("pre-push -- origin ")


def test_a_commit_past_what_the_gate_reads_is_named_and_the_push_goes_on(
    repo: Repo, remote: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.land("Cap the review", CAPPED)
    cut = repo.land("import data and settings", PAST_THE_CAP)
    said = past_twenty_lines(repo, remote, cut, monkeypatch)
    assert said.startswith("landwatch: the push gate read only the first 20 added lines of 1 ")
    assert f"(the first {cut[:12]}); past them nothing is checked" in said


def test_a_commit_pushed_to_a_notes_ref_is_judged_as_a_commit(repo: Repo, remote: Path) -> None:
    leaked = repo.land("add credentials", {"creds.py": CREDENTIALS})
    reviewed(repo)
    result = push(repo, "HEAD:refs/notes/wip")
    assert result.returncode != 0 and f"{leaked[:10]} creds.py:1" in result.stderr
    assert repo.run("--git-dir", str(remote), "rev-parse", "refs/notes/wip").returncode != 0
    # Notes pushed as notes are git's data about commits: nothing to judge.
    repo.git("notes", "add", "-m", "a note", "HEAD~")
    assert push(repo, "refs/notes/commits").returncode == 0
    # But a notes ref set to the flagged commit, or to notes on top of it, sends that commit
    # (an audit: it went out with no word).
    repo.git("update-ref", "refs/notes/wip", leaked)
    result = push(repo, "refs/notes/wip")
    assert result.returncode != 0 and f"{leaked[:10]} creds.py:1" in result.stderr
    repo.git("notes", "--ref", "wip", "add", "-m", "on top of it", "HEAD~")
    assert push(repo, "refs/notes/wip").returncode != 0
    assert repo.run("--git-dir", str(remote), "rev-parse", "refs/notes/wip").returncode != 0


def test_an_annotated_tag_whose_message_holds_a_token_is_refused(
    repo: Repo, remote: Path, tmp_path: Path
) -> None:
    clean = repo.land("clean", {"a.py": "x = 1\n"})
    reviewed(repo)
    assert push(repo).returncode == 0
    repo.git("tag", "-a", "v1", "-m", f"release; CI token {GITHUB_TOKEN}", clean)
    result = push(repo, "v1")
    assert result.returncode != 0, result.stderr
    assert repo.run("--git-dir", str(remote), "rev-parse", "v1").returncode != 0
    said = result.stderr
    assert "push refused: 1 finding in 1 tag the remote lacks" in said
    assert "(tag message):1  S002" in said and GITHUB_TOKEN not in said
    assert "git tag -f -a v1 v1^{}" in said and "git rebase" not in said
    # Written again without it, it goes.
    repo.git("tag", "-f", "-a", "v1", "-m", "release", "v1^{}")
    assert push(repo, "v1").returncode == 0
    # A lightweight tag of reviewed commits is a commit pushed: no Python asked once the remote
    # has the tag (a new one asks it what it holds).
    repo.git("tag", "light", "HEAD~")
    assert push(repo, "light").returncode == 0
    log = tmp_path / "calls"
    entry_point_logging(log)
    repo.git("tag", "-f", "light", clean)
    assert push(repo, "--force", "light").returncode == 0 and not log.exists()


def token_blob(repo: Repo) -> str:
    return repo.run(
        "hash-object", "-w", "--stdin", stdin=f'key = "{GITHUB_TOKEN}"\n'
    ).stdout.strip()


@pytest.mark.parametrize("kind", ["blob", "tree"])
def test_a_secret_in_a_blob_or_tree_a_tag_pushes_is_refused(
    repo: Repo, remote: Path, kind: str
) -> None:
    """No commit holds a blob or tree a tag names: the hook asked the gate only of annotated
    tags, which judged their messages alone, so a token in them went with no word."""
    named = blob = token_blob(repo)
    if kind == "blob":
        repo.git("tag", "leak", blob)
    else:
        named = repo.run("mktree", stdin=f"100644 blob {blob}\tsettings.py\n").stdout.strip()
        repo.git("tag", "-a", "-m", "a tree", "leak", named)
    result = push(repo, "refs/tags/leak")
    assert result.returncode != 0
    assert repo.run("--git-dir", str(remote), "rev-parse", "leak").returncode != 0
    said = result.stderr
    assert f"push refused: 1 finding in 1 {kind} the remote lacks" in said
    where = "(blob)" if kind == "blob" else "settings.py"
    assert f"  {named[:10]} {where}:1  S002" in said and GITHUB_TOKEN not in said
    assert f"git tag -d leak  (it names {kind} {named[:10]})" in said and "rebase" not in said
    [fingerprint] = re.findall(r"landwatch allow ([0-9a-f]{20})", said)
    allowed = repo.landwatch("allow", fingerprint, "--reason", "used-in-tests")
    assert allowed.returncode == 0, allowed.stderr
    assert push(repo, "refs/tags/leak").returncode == 0


def test_a_blob_a_tag_pushes_that_could_not_be_read_in_time_is_named_and_goes(
    repo: Repo, remote: Path
) -> None:
    blob = token_blob(repo)

    class Late(FakeClock):
        def monotonic(self) -> float:
            self.mono += 100  # every look at the time finds it gone
            return self.mono

    err = io.StringIO()
    lines = f"refs/tags/leak {blob} refs/tags/leak {'0' * 40}\n"
    assert pre_push(repo.path, "origin", str(remote), lines, clock=Late(), err=err) == 0
    [said] = err.getvalue().splitlines()
    assert said == (
        f"landwatch: blob {blob[:12]}, which refs/tags/leak pushes, could not be read whole in "
        "time (the push gate scans for 60 s) and goes unchecked"
    )
