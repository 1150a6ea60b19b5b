"""Rules from installed packages, through the landwatch.rules entry point group."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from landwatch.review import engine
from landwatch.review.standards import Standards
from support.changes import Changes
from support.review import found, reviewed


def install(site: Path, package: str, source: str, entry_point: str) -> None:
    """A package of rules, as pip would have installed it: the module and its entry point."""
    (site / package).mkdir(parents=True)
    (site / package / "__init__.py").write_text(textwrap.dedent(source))
    dist = site / f"{package}-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[landwatch.rules]\n{entry_point}\n")


def test_a_plugin_package_adds_a_rule_through_its_entry_point(
    changes: Changes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    source = """\
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
        """
    install(site, "landwatch_example_rules", source, "no-todo = landwatch_example_rules:NoTodo")
    monkeypatch.syspath_prepend(str(site))
    report_ = reviewed(changes.change({"a.txt": "TODO later\n"}))
    assert found(report_) == [("X900", "a.txt", 1)] and "X900" in report_.rules


def test_a_plugin_rules_attributes_are_what_the_engine_reads(
    changes: Changes, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    source = """\
        from landwatch.review.findings import Severity
        from landwatch.review.rules.base import Learned, LineRule, MessageRule

        class Shouting(LineRule):
            '''An added line in capitals.'''
            id = "X901"
            name = "shouting"
            severity = Severity.INFO
            merged_past = 1

            def check_lines(self, file, lines):
                for line in lines:
                    if line.raw.isupper():
                        yield self.finding("shouting", path=file.path, line=line)

        class Unsigned(MessageRule):
            '''Every commit of a project that signs off.'''
            id = "X902"
            name = "unsigned"
            severity = Severity.OFF
            learned = Learned("signs_off", "sign-offs ({id}), as the project writes them")

            def check_message(self, message):
                yield self.finding("a sign-off is due", content="unsigned")

        RULES = [Shouting, Unsigned]
        """
    install(site, "landwatch_data_rules", source, "data = landwatch_data_rules:RULES")
    monkeypatch.syspath_prepend(str(site))
    change = changes.change({"a.txt": "ONE\nTWO\nthree\n"})
    plain = reviewed(change)
    assert [f.message for f in plain.findings if f.rule == "X901"] == ["shouting on 2 lines: 1-2"]
    assert found(plain, "X902") == []  # off, as it ships
    signing = Standards(commits=40, subject_p99=50, signed_off=1.0)
    learned = engine.review(changes.git_dir, str(change.commit.id), standards=signing)
    assert found(learned, "X902") == [("X902", None, None)]
    assert any("sign-offs (X902), as the project writes them" in note for note in learned.notes)
