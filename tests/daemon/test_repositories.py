"""The registry as the reviewer sees it (daemon.repositories): a repository registered while it runs
is drained without a restart, one that cannot be drained is skipped with one line, and what was
registered goes on being drained while the registry cannot be read; a worktree entry whose
commondir is no pointer to the repository is passed over, said once."""

from __future__ import annotations

from pathlib import Path

import pytest

from landwatch import layout, registry
from landwatch.daemon.repositories import Repositories
from support.daemon import (
    done_ids,
    reviewer_env,
    run_reviewer,
    running,
    wait_for,
)
from support.handlers import Noop
from support.kinds import FakeClock, in_process, settle_down
from support.repos import FIFO, Repo, installed, planted_worktree


def test_registry_changes_are_picked_up_without_restart(tmp_path: Path, journal: Path) -> None:
    with running("--handler", "review=support.handlers:Noop", env=reviewer_env(journal)):
        repo = installed(tmp_path / "late")
        oid = repo.land("after the reviewer started")
        wait_for(lambda: done_ids(repo.git_dir) == [f"review-{oid}"], "the new repository")


def test_unusable_registered_repositories_are_skipped_with_one_line(
    tmp_path: Path, journal: Path
) -> None:
    (tmp_path / "plain").mkdir()
    (tmp_path / "gone").mkdir()
    registry.register(tmp_path / "gone")
    registry.register(tmp_path / "plain")
    (tmp_path / "gone").rmdir()
    repo = installed(tmp_path / "repo")
    oid = repo.land("still reviewed")
    result = run_reviewer("--once", "--handler", "review=support.handlers:Noop", journal=journal)
    assert result.returncode == 0
    assert done_ids(repo.git_dir) == [f"review-{oid}"]
    skipped = [line for line in result.stderr.splitlines() if "skipping" in line]
    assert len(skipped) == 2
    assert any("it vanished" in line for line in skipped)
    assert any("not a git repository" in line for line in skipped)


def test_a_registry_that_cannot_be_read_keeps_what_was_registered_with_one_line(
    repo: Repo,
    tmp_path: Path,
    journal: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LANDWATCH_TEST_JOURNAL", str(journal))
    clock = FakeClock()
    reviewer = in_process({"review": Noop(clock=clock)}, clock, tmp_path / "state.json")
    first = repo.land("before")
    settle_down(reviewer)
    registry_file = layout.REGISTRY.path()
    kept = tmp_path / "repositories.kept"
    registry_file.rename(kept)
    registry_file.symlink_to(kept)  # refused: the registry is never read through a link
    later = [repo.land(f"while it cannot be read {n}", f"f{n}") for n in range(2)]
    for _ in range(2):
        reviewer.request_reload()
        reviewer.poke(repo.git_dir)  # as the hook's file event would
        settle_down(reviewer)
    assert sorted(done_ids(repo.git_dir)) == sorted(f"review-{oid}" for oid in [first, *later])
    assert caplog.text.count("cannot read the registry") == 1
    registry_file.unlink()
    kept.rename(registry_file)
    reviewer.request_reload()
    settle_down(reviewer)
    assert reviewer.repositories == [repo.git_dir.resolve()]
    reviewer.shutdown()


def test_a_planted_worktree_entry_is_said_once_and_again_when_it_comes_back(
    repo: Repo, caplog: pytest.LogCaptureFixture
) -> None:
    # Read at every rescan: a line each time would drown the log, none would hide the entry.
    entry = planted_worktree(repo.git_dir.resolve(), "commondir", FIFO)
    drained = Repositories()
    for _ in range(2):
        drained.reload()
    assert drained.git_dirs == [repo.git_dir.resolve()]
    said = f"skipping the worktree {entry}: its commondir is no file git wrote"
    assert caplog.text.count(said) == 1
    (entry / "commondir").unlink()
    (entry / "commondir").write_text("../..\n")  # mended: a worktree (a stale one) again
    assert drained.reload() and drained.git_dirs == [repo.git_dir.resolve(), entry]
    (entry / "commondir").unlink()
    (entry / "commondir").symlink_to("/dev/zero")
    drained.reload()
    assert caplog.text.count(said) == 2
