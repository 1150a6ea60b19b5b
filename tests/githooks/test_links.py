"""The hooks and the reviewer follow no link planted in a repository's landwatch directory and
wait on no FIFO there: one line at most, the commit unaffected, nothing written elsewhere."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from landwatch import layout, line_markers
from support.daemon import run_reviewer
from support.queue import git_env
from support.repos import Repo


def commit(repo: Repo, message: str) -> subprocess.CompletedProcess[str]:
    """A commit that must end by itself: a hook waiting on a FIFO would hang it."""
    (repo.path / "file").write_text(message + "\n")
    repo.git("add", "file")
    return subprocess.run(
        ["git", "commit", "-q", "-m", message],
        cwd=repo.path,
        env={
            **os.environ,
            "GIT_AUTHOR_NAME": "T",
            "GIT_AUTHOR_EMAIL": "t@example.com",
            "GIT_COMMITTER_NAME": "T",
            "GIT_COMMITTER_EMAIL": "t@example.com",
        },
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("planted", ["", "ready", "known"])
def test_a_linked_work_directory_gets_nothing_written(
    repo: Repo, tmp_path: Path, planted: str
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    work = repo.git_dir / "landwatch"
    target = work / planted if planted else work
    if planted:
        shutil.rmtree(target)
    else:
        shutil.move(work, tmp_path / "moved")  # the real one, out of the way
    target.symlink_to(elsewhere)
    result = commit(repo, "through a link")
    assert result.returncode == 0
    assert result.stderr.count("\n") == 1 and "not following it" in result.stderr
    assert os.listdir(elsewhere) == []
    assert repo.git("log", "-1", "--format=%s") == "through a link"


@pytest.mark.parametrize("name", ["boot-time", "settings", "maintenance-after"])
def test_a_linked_file_is_never_written_through(repo: Repo, tmp_path: Path, name: str) -> None:
    repo.git("config", "landwatch.maintenance", "true")
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    planted = repo.git_dir / "landwatch" / name
    planted.unlink(missing_ok=True)
    planted.symlink_to(victim)
    result = commit(repo, "one")
    assert result.returncode == 0 and result.stderr.count("\n") <= 1
    assert victim.read_text() == "precious\n"
    assert repo.pending() == [(repo.head(), None)]  # still recorded


@pytest.mark.parametrize("name", ["boot-time", "settings", "maintenance-after", "untrusted"])
def test_a_fifo_never_holds_a_commit(repo: Repo, name: str) -> None:
    repo.git("config", "landwatch.maintenance", "true")
    fifo = repo.git_dir / "landwatch" / name
    fifo.unlink(missing_ok=True)
    os.mkfifo(fifo)  # nobody writes to it: a hook opening it would wait forever
    result = commit(repo, "not held")
    assert result.returncode == 0 and result.stderr.count("\n") <= 1
    assert repo.pending() == [(repo.head(), None)]


@pytest.mark.parametrize("planted", ["fifo", "link to a fifo"])
def test_a_fifo_at_the_record_a_landing_makes_never_holds_git(
    repo: Repo, tmp_path: Path, planted: str
) -> None:
    """The id a landing's record takes is foreseeable (a pulled tip's review): a FIFO planted
    there is never opened (a shell's `set -C` still opens one), said in one line, git goes on."""
    repo.git("switch", "-q", "-c", "topic")
    tip = repo.land("topic", {"t.txt": "t\n"}, hooks=False)
    repo.git("switch", "-q", "main")
    marker = repo.git_dir / "landwatch" / "known" / f"review-{tip}"
    fifo = tmp_path / "fifo" if planted != "fifo" else marker
    os.mkfifo(fifo)
    if fifo != marker:
        marker.symlink_to(fifo)
    merged = subprocess.run(
        ["git", "merge", "-q", "--ff-only", "topic"],
        cwd=repo.path,
        env=git_env(),
        capture_output=True,
        text=True,
        timeout=60,  # a hook waiting on the FIFO would hold git for ever
    )
    assert merged.returncode == 0, merged.stderr
    assert "is no file of landwatch's" in merged.stderr and merged.stderr.count("\n") == 1


@pytest.mark.parametrize("planted", ["directory", "fifo", "link", "link to a directory"])
def test_a_rewrite_s_pairs_reach_the_notice_through_whatever_was_left_in_their_place(
    repo: Repo, tmp_path: Path, planted: str
) -> None:
    """The file a rebase's hook hands its pairs to the notice in, `rewrite-pairs`, made
    exclusively: what is there already (a directory a crash or an archive left, a FIFO, a link)
    is removed as it is, never opened nor followed, and the pairs reach the notice, which sets
    their lines aside; the rebase is recorded, the hook silent. Before, anything there but a
    regular file turned the handing over off for every rewrite after it."""
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "kept").write_text("precious\n")
    pairs_file = repo.git_dir / "landwatch" / "rewrite-pairs"
    if planted == "directory":
        pairs_file.mkdir()
        (pairs_file / "inside").write_text("left\n")
    elif planted == "fifo":
        os.mkfifo(pairs_file)  # nobody writes to it: a hook opening it would wait forever
    else:
        pairs_file.symlink_to(victim / "kept" if planted == "link" else victim)
    pairs = [(f"{n:040x}", f"{n + 1_000_000:040x}") for n in range(3)]
    unread = layout.UNREAD.path(repo.git_dir)
    unread.mkdir(exist_ok=True)
    for old, _ in pairs:  # the lines of the commits it replaced wait
        (unread / old).touch()
    ran = subprocess.run(
        ["sh", ".git/hooks/post-rewrite", "rebase"],
        cwd=repo.path,
        input="".join(f"{old} {new}\n" for old, new in pairs),
        env=git_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0 and ran.stderr == ""
    assert os.listdir(victim) == ["kept"] and (victim / "kept").read_text() == "precious\n"
    assert [oid for oid, _ in repo.pending()] == [new for _, new in pairs]
    assert sorted(line_markers.set_aside_pairs(repo.git_dir)) == sorted(
        (new, old) for old, new in pairs
    )
    assert line_markers.unread(repo.git_dir) == []
    assert not os.path.lexists(pairs_file)


@pytest.mark.parametrize("name", ["reports", "unread"])
def test_the_reviewer_writes_nothing_through_a_linked_directory(
    repo: Repo, tmp_path: Path, name: str
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    planted = repo.git_dir / "landwatch" / name
    shutil.rmtree(planted, ignore_errors=True)
    planted.symlink_to(elsewhere)
    repo.land("findings", {"a.txt": "trailing  \n"})
    result = run_reviewer("--once", "--max-tries", "1")
    assert result.returncode == 65  # the review could not be kept: given up, said
    assert os.listdir(elsewhere) == []
    assert "not following it" in result.stderr
