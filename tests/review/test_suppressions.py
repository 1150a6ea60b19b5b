"""What the person said not to report (review.suppressions), through the whole review: inline
markers naming a rule or all, the trailer, excluded paths."""

from __future__ import annotations

from support.changes import Changes
from support.repos import Repo
from support.review import found, review, reviewed
from support.timing import cpu_seconds
from support.tokens import github_token


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


def test_secret_scanners_markers_let_secrets_through_and_are_counted(repo: Repo) -> None:
    token = github_token("Zx8Q")  # built here, never whole in this file
    allow, nextline = "gitleaks" + ":allow", "pragma: allowlist " + "nextline secret"
    repo.land(
        "change",
        {
            "a.py": f'A = "{token}"  # {allow}\n'
            f'B = "{token}"  # pragma: allowlist secret\n'
            f"# {nextline}\n"
            f'C = "{token}"\n'
            f'D = "{token}"\n'
            f"E = 1  # {allow}  \n",  # a secret marker says nothing of other rules
        },
        hooks=False,
    )
    report = review(repo)
    assert found(report) == [("S002", "a.py", 5), ("P001", "a.py", 6)]
    assert [n for n in report.notes if "secret finding" in n] == [
        "3 secret findings left out as a `gitleaks:allow` or `pragma: allowlist secret` marker asks"
    ]


def test_a_file_of_many_findings_is_read_once(changes: Changes) -> None:
    """Each finding read its file again for the markers on its line: 30,000 lines of trailing
    whitespace took 100 s. Ten times the lines now take about ten times as long."""

    def review_of(lines: int) -> float:
        change = changes.change({"a.py": "x = 1  \n" * lines})
        return cpu_seconds(lambda: reviewed(change), tries=1)

    small, large = review_of(1_000), review_of(10_000)
    assert large / max(small, 1e-3) < 30, (small, large)
