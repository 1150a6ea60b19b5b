"""Rules from installed packages, through the landwatch.rules entry point group."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from support.repos import Repo
from support.review import found, review


def test_a_plugin_package_adds_a_rule_through_its_entry_point(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    (site / "landwatch_example_rules").mkdir(parents=True)
    (site / "landwatch_example_rules" / "__init__.py").write_text(
        textwrap.dedent("""\
        from landwatch.review.findings import Severity
        from landwatch.review.rules.base import LineRule

        class NoTodo(LineRule):
            '''An added line with TODO.'''
            id = "X900"
            name = "no-todo"
            severity = Severity.INFO

            def check_lines(self, file, lines):
                for line in lines:
                    if b"TODO" in line.raw:
                        yield self.finding("TODO left behind", path=file.path, line=line)
        """)
    )
    dist = site / "landwatch_example_rules-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: landwatch-example-rules\nVersion: 1.0\n"
    )
    (dist / "entry_points.txt").write_text(
        "[landwatch.rules]\nno-todo = landwatch_example_rules:NoTodo\n"
    )
    monkeypatch.syspath_prepend(str(site))
    repo.land("change", {"a.txt": "TODO later\n"}, hooks=False)
    report_ = review(repo)
    assert found(report_) == [("X900", "a.txt", 1)] and "X900" in report_.rules
