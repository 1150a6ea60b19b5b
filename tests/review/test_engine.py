"""The review as a whole (review.engine): a file too large for line work is still reported, and
the secret rules read the commit message too."""

from __future__ import annotations

from support.repos import Repo
from support.review import found, review


def test_a_huge_file_gets_no_line_work_but_is_reported_large(repo: Repo) -> None:
    repo.land(
        "change", {"dump.sql": b"INSERT INTO t VALUES (1);  \n" * 400_000}, hooks=False
    )  # ~11 MB
    report_ = review(repo)
    assert found(report_) == [("P005", "dump.sql", None)]
    assert report_.lines_checked == 0
    assert any("dump.sql: larger than 8 MB" in note for note in report_.notes)


def test_secret_rules_read_the_commit_message_too(repo: Repo) -> None:
    token = "ghp_" + "Q7w2" * 9
    repo.land(f"Fix the deploy\n\nUse {token} until Monday.\n", {"a.txt": "a\n"}, hooks=False)
    report_ = review(repo)
    [finding] = [f for f in report_.findings if f.rule == "S002"]
    assert (finding.path, finding.line) == (None, 3)
    assert finding.snippet == "Use ghp_… until Monday." and token not in finding.message
