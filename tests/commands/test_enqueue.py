"""`landwatch enqueue`: a landed commit recorded by hand, once (a second time it is known), of
another kind and on a base when asked, one line for a revision that names no commit."""

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
