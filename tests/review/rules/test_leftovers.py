"""P016: a line its author marked not to be committed is told wherever it stands in code or
configuration; the words in prose, in a linter's list of markers, in a test of the rule or in
a sentence about the code are not. A marked print is P007's too."""

from __future__ import annotations

import pytest

from landwatch.review.diffs import Line
from landwatch.review.findings import Severity
from landwatch.review.rules.leftovers import marked, names_a_marker
from support.changes import Changes
from support.repos import Repo
from support.review import found, review, reviewed
from support.timing import cpu_seconds

MARKED = [
    "print(x)  # DO NOT COMMIT",
    "print(x)  # do not commit",
    "const url = 'http://localhost'; // NOCOMMIT",
    "// nocommit: local endpoint",
    "/* DONOTMERGE */",
    "<!-- do-not-merge -->",
    "-- DO_NOT_COMMIT",
    "x = 1 # TODO: remove this line",
    "x = 1 # TODO(bob): REMOVE THIS LINE before release",
    " * DO NOT MERGE",
    "; DO NOT COMMIT",
    "REM DO NOT COMMIT",
    "{# nocommit #}",
    "% DO NOT COMMIT",
    "color = '#fff'  # NOCOMMIT",
    "timeout: 1  # Do-Not-Merge",
    "    # Dependency bug, fixed on main - DO NOT MERGE",
    "x = 1  # temporary hack, DO NOT COMMIT!",
    "x = 1  # don't: DO NOT COMMIT",
]
NOT_MARKED = [
    "# Do not commit the transaction here",
    "# remove this line when v2 ships",
    "git merge --no-commit --no-ff",
    '"terms": ["nocommit", "fixme"]',
    "  keywords: [NOCOMMIT]",
    "# nocommit markers fail the hook",
    "# fail on nocommit",
    'assert finds("x = 1  # nocommit")',
    "nocommit = True",
    "def test_nocommit():",
    'echo "# DO NOT COMMIT"',
    "self.no_commit_hooks = []",
    "x = 1  # temporary hack, nocommit",
    'print("DO NOT COMMIT")',
]


@pytest.mark.parametrize("text", MARKED)
def test_a_marker_opening_a_comment_marks_the_line(text: str) -> None:
    assert marked(text.encode())


@pytest.mark.parametrize("text", NOT_MARKED)
def test_the_words_elsewhere_mark_nothing(text: str) -> None:
    assert not marked(text.encode())


def test_a_marker_outside_a_comment_names_it() -> None:
    assert names_a_marker(b'"terms": ["nocommit", "fixme"]')
    assert names_a_marker(b'assert finds("x = 1  # nocommit")')
    assert names_a_marker(b"  entry: NOCOMMIT")
    assert not names_a_marker(b"x = 1  # don't: DO NOT COMMIT")
    assert not names_a_marker(b"print(x)  # DO NOT COMMIT")


def test_marked_lines_are_told_at_warning_and_a_marked_print_is_a_debug_statement_too(
    changes: Changes,
) -> None:
    change = changes.change(
        {
            "app.py": "x = compute()\nprint(x)  # DO NOT COMMIT\n"
            "URL = 'http://localhost'  # nocommit\n",
            "web/app.js": "console.log(state); // REMOVE THIS LINE\n",
            "config.yaml": "debug: true  # DO_NOT_MERGE\n",
        }
    )
    report = reviewed(change)
    assert found(report, "P016") == [
        ("P016", "app.py", 2),
        ("P016", "app.py", 3),
        ("P016", "config.yaml", 1),
        ("P016", "web/app.js", 1),
    ]
    assert {f.severity for f in report.findings if f.rule == "P016"} == {Severity.WARNING}
    assert found(report, "P007") == [("P007", "app.py", 2), ("P007", "web/app.js", 1)]


def test_prose_a_linters_list_and_a_test_of_the_rule_are_not_told(changes: Changes) -> None:
    change = changes.change(
        {
            "docs/workflow.md": "Mark a line `# DO NOT COMMIT` and the hook refuses it.\n"
            "```python\nprint(x)  # DO NOT COMMIT\n```\n",
            "CHANGELOG": "- removed DO NOT COMMIT markers\n",
            ".eslintrc.json": '{"rules": {"no-warning-comments": '
            '["error", {"terms": ["nocommit"]}]}}\n',
            ".golangci.yml": "linters-settings:\n  godox:\n    keywords:\n      - NOCOMMIT\n",
            ".pre-commit-config.yaml": "- id: markers\n  # fail on NOCOMMIT\n  entry: NOCOMMIT\n",
            "tests/test_markers.py": 'CASES = ["nocommit"]\n'
            'sample = """\nx = 1  # DO NOT COMMIT\n"""\n',
            "db.py": "# Do not commit the transaction here: the caller does\n",
        }
    )
    assert found(reviewed(change), "P016") == []


def test_a_file_that_held_a_marked_line_is_told_at_info(changes: Changes) -> None:
    before = {"local.py": "HOST = 'dev'  # NOCOMMIT\n"}
    change = changes.change(
        {"local.py": "HOST = 'dev'  # NOCOMMIT\nPORT = 1  # NOCOMMIT\n"}, before=before
    )
    findings = [f for f in reviewed(change).findings if f.rule == "P016"]
    assert [(f.line, f.severity) for f in findings] == [(2, Severity.INFO)]


def test_through_git_a_marked_line_is_told(repo: Repo) -> None:
    repo.land("start", {"src/app.py": "x = 1\n"}, hooks=False)
    repo.land("debug", {"src/app.py": "x = 1\nprint(x)  # DO NOT COMMIT\n"}, hooks=False)
    report = review(repo)
    assert found(report, "P016") == [("P016", "src/app.py", 2)]
    assert found(report, "P007") == [("P007", "src/app.py", 2)]


def test_a_line_is_read_in_time_linear_in_it() -> None:
    def seconds(size: int) -> float:
        text = ("# " + "DO NOT " * (size // 7))[:size].encode()
        lines = [Line(1, b"'" * size + b" # NOCOMMIT", b"\n"), Line(2, text, b"\n")]
        return cpu_seconds(lambda: [marked(line.raw) for line in lines])

    small, large = seconds(100_000), seconds(1_000_000)
    assert large / max(small, 1e-4) < 30
