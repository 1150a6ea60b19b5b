"""`landwatch enqueue`: a landed commit recorded by hand, once (a second time it is known, but
the project's hooks run again once done), of another kind and on a base when asked, one line for
a revision that names no commit."""

from __future__ import annotations

from pathlib import Path

import pytest

from landwatch import work_item
from support.repos import Repo, run_cli


def test_enqueue_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = Repo(tmp_path / "repo")
    first = repo.head()
    second = repo.land("second", hooks=False)
    code, output = run_cli(repo, "enqueue", capsys=capsys)
    assert (code, output) == (0, f"added review-{second}\n")
    code, output = run_cli(repo, "enqueue", "HEAD", capsys=capsys)
    assert (code, output) == (0, f"known review-{second}\n")
    code, output = run_cli(repo, "enqueue", "--kind", "push", "--base", first, capsys=capsys)
    assert code == 0
    claimed = work_item.claim_next(repo.git_dir, ["push"])
    assert claimed is not None and claimed.item.base == first
    code, output = run_cli(repo, "enqueue", "no-such-rev", capsys=capsys)
    assert code == 1 and output.startswith("landwatch: ") and output.count("\n") == 1


def test_the_project_hooks_of_a_commit_run_again_once_done(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Issue 39: after `landwatch trust`, asking for the hooks of a held-back landing by hand
    # answered `known`: the item ran (and found them untrusted) and was done.
    repo = Repo(tmp_path / "repo")
    oid = repo.land("a change", hooks=False)
    hooks = f"project_hooks-{oid}"
    assert run_cli(repo, "enqueue", "--kind", "project_hooks", capsys=capsys) == (
        0,
        f"added {hooks}\n",
    )
    code, output = run_cli(repo, "enqueue", "--kind", "project_hooks", capsys=capsys)
    assert (code, output) == (0, f"known {hooks}\n")  # waiting: it runs once
    for kind in ("project_hooks", "review"):
        if kind == "review":
            run_cli(repo, "enqueue", capsys=capsys)
        claimed = work_item.claim_next(repo.git_dir, [kind])
        assert claimed is not None and work_item.settle(repo.git_dir, claimed)
    code, output = run_cli(repo, "enqueue", "--kind", "project_hooks", oid, capsys=capsys)
    assert (code, output) == (0, f"again {hooks}\n")
    assert [work_item.id_of_entry(name) for name in work_item.entries(repo.git_dir, "pending")] == [
        hooks
    ]
    assert run_cli(repo, "enqueue", capsys=capsys) == (0, f"known review-{oid}\n")  # done is done
