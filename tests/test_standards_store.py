"""Where the standards learned from a repository's history are kept (standards_store): the cache
serves until the history grows past what it was learned from."""

from __future__ import annotations

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
    assert later.learned_at != first.learned_at and later.subject_p98 > first.subject_p98
