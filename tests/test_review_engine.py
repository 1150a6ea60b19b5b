"""The review as a whole: configuration, suppressions, linters, plug-ins, outputs, commands, and
the review kind drained by the real reviewer."""

from __future__ import annotations

from repo_helpers import Repo
from review_helpers import found, review

# --- configuration ---------------------------------------------------------------------------


# --- suppressions and excludes ---------------------------------------------------------------


def test_inline_trailer_and_path_suppressions(repo: Repo) -> None:
    repo.land(
        "change",
        {
            "a.py": "x = 1  # landwatch: ignore[P001]  \ny = 2  # landwatch: ignore  \n"
            "z = 3  # landwatch: ignore[P007]  \n",
            "vendor/lib.js": "var a = 1;  \n",
            "app.min.js": "var b;  \n",
            "package-lock.json": '{"a": 1}  \n',
        },
        hooks=False,
    )
    assert found(review(repo)) == [("P001", "a.py", 3)]
    repo.land(
        "change",
        {
            ".landwatch.toml": 'exclude = ["generated/**"]\n',
            "generated/x.txt": "g  \n",
            "kept.txt": "k  \n",
        },
        hooks=False,
    )
    assert found(review(repo)) == [("P001", "kept.txt", 1)]
    repo.stage({"b.txt": "b  \n", "c.py": "import pdb\n"})
    repo.git(
        "commit",
        "-q",
        "-m",
        "subject\n\nbody\n\nLandwatch-Ignore: P001, debug-statement",
        LANDWATCH="0",
    )
    assert found(review(repo)) == []


# --- linters ---------------------------------------------------------------------------------


# --- plug-ins --------------------------------------------------------------------------------


# --- outputs ---------------------------------------------------------------------------------


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
