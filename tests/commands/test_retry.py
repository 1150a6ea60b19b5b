"""`landwatch retry`: an item given up started again from no tries, which `enqueue` points to, and
the reviewer then settles."""

from __future__ import annotations

from support.repos import Repo


def test_retry_gives_an_item_given_up_another_start(repo: Repo) -> None:
    from landwatch import work_item
    from support.daemon import run_reviewer
    from support.queue import tries_of

    oid = repo.land("given up")
    for _ in range(2):
        claimed = work_item.claim_next(repo.git_dir, ["review"])
        assert claimed is not None
        work_item.requeue(repo.git_dir, claimed, max_tries=2)
    assert [work_item.id_of_entry(n) for n in work_item.entries(repo.git_dir, "failed")] == [
        f"review-{oid}"
    ]
    again = repo.landwatch("enqueue", "HEAD")
    assert again.returncode == 1
    assert again.stderr == (
        f"landwatch: review-{oid} was given up; to try it again: landwatch retry HEAD\n"
    )
    retried = repo.landwatch("retry", "HEAD")
    assert retried.returncode == 0, retried.stderr
    assert retried.stdout == f"landwatch: review-{oid} is pending again, tries from 0\n"
    assert work_item.entries(repo.git_dir, "failed") == []
    assert tries_of(repo.git_dir, f"review-{oid}") == 0
    nothing = repo.landwatch("retry", "--all")
    assert nothing.returncode == 1 and "nothing given up" in nothing.stderr
    assert run_reviewer("--once").returncode == 0
    assert f"review-{oid}" in [
        work_item.id_of_entry(n) for n in work_item.entries(repo.git_dir, "done")
    ]
