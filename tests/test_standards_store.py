"""Where the standards learned from a repository's history are kept (standards_store): read back
as kept, serving until the history grows past what it was learned from, learned again when the
file holds none, and never written where landwatch keeps nothing."""

from __future__ import annotations

from pathlib import Path

from landwatch import layout, standards_store
from landwatch.review.change import open_repository, resolve
from support.history import history
from support.repos import Repo


def test_the_cache_serves_until_the_history_grows(repo: Repo) -> None:
    history(repo, [f"Change {n}" for n in range(35)])
    git_repo = open_repository(repo.git_dir)
    first = standards_store.current(repo.git_dir, git_repo, resolve(git_repo, "HEAD"))
    assert layout.STANDARDS.path(repo.git_dir).is_file()
    repo.land("one more", hooks=False)
    again = standards_store.current(repo.git_dir, git_repo, resolve(git_repo, "HEAD"))
    assert again == first  # learned at an ancestor a step back: still fresh
    history(
        repo, [f"Later change {n} with a much longer subject line than before" for n in range(101)]
    )
    later = standards_store.current(repo.git_dir, git_repo, resolve(git_repo, "HEAD"))
    assert later.learned_at != first.learned_at and later.subject_p99 > first.subject_p99


def test_what_was_learned_is_read_back_as_it_was_kept(repo: Repo) -> None:
    history(repo, [f"feat: change {n}" for n in range(35)])
    git_repo = open_repository(repo.git_dir)
    learned = standards_store.current(repo.git_dir, git_repo, resolve(git_repo, "HEAD"))
    assert learned.commits == 35 and standards_store.read(repo.git_dir) == learned


def test_a_cache_that_holds_no_standards_is_learned_again(repo: Repo) -> None:
    history(repo, [f"Change {n}" for n in range(35)])
    git_repo = open_repository(repo.git_dir)
    cache = layout.STANDARDS.path(repo.git_dir)
    for garbage in (b"", b"{not json", b"[1, 2]", b'"text"'):
        cache.write_bytes(garbage)
        assert standards_store.read(repo.git_dir) is None
        learned = standards_store.current(repo.git_dir, git_repo, resolve(git_repo, "HEAD"))
        assert learned.commits == 35 and standards_store.read(repo.git_dir) == learned


def test_a_repository_landwatch_keeps_nothing_in_is_left_without_a_trace(tmp_path: Path) -> None:
    plain = Repo(tmp_path / "plain")  # landwatch never installed: `landwatch review` there
    history(plain, [f"Change {n}" for n in range(35)])
    git_repo = open_repository(plain.git_dir)
    learned = standards_store.current(plain.git_dir, git_repo, resolve(git_repo, "HEAD"))
    assert learned.commits == 35
    assert not layout.repository_dir(plain.git_dir).exists()
    # Kept in the process instead: the next commit (`landwatch ci` going through a range) is
    # reviewed with what was learned one step back, as the reviewer would.
    plain.land("one more", hooks=False)
    again = standards_store.current(plain.git_dir, git_repo, resolve(git_repo, "HEAD"))
    assert again == learned and not layout.repository_dir(plain.git_dir).exists()
