"""Every rule on its scope, each kept apart and within the budget (review.checking): a rule that
raises costs only its own findings, with a note; past the budget, the files not reached are
named and what was found stands."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from landwatch.review import engine
from landwatch.review.budget import Budget
from landwatch.review.change import FileChange
from landwatch.review.diffs import Line
from landwatch.review.findings import Finding, Severity
from landwatch.review.rules import all_rules
from landwatch.review.rules.base import LineRule
from support.repos import Repo
from support.review import found, review
from support.tokens import github_token

TOKEN = github_token("Q7w2")


class Exploding(LineRule):
    """A rule that fails as a parser does on hostile content."""

    id = "X900"
    name = "exploding"
    severity = Severity.WARNING
    failure: type[BaseException] = RecursionError

    def check_lines(self, file: FileChange, lines: list[Line]) -> Iterator[Finding]:
        yield self.finding("found before failing", path=file.path, number=1, content="x")
        raise self.failure("maximum recursion depth exceeded")


@pytest.fixture
def exploding(monkeypatch: pytest.MonkeyPatch) -> None:
    """The built-in rules and Exploding, as a plug-in rule would be added."""
    classes, problems = all_rules()
    monkeypatch.setattr(engine, "all_rules", lambda: ([*classes, Exploding], problems))


@pytest.mark.usefixtures("exploding")
@pytest.mark.parametrize("failure", [RecursionError, MemoryError, KeyError])
def test_a_rule_that_raises_costs_only_its_own_findings(
    repo: Repo, monkeypatch: pytest.MonkeyPatch, failure: type[BaseException]
) -> None:
    monkeypatch.setattr(Exploding, "failure", failure)
    repo.land("change", {"a.py": f'GITHUB = "{TOKEN}"\nx = 1  \n'}, hooks=False)
    report_ = review(repo)
    assert ("S002", "a.py", 1) in found(report_) and ("P001", "a.py", 2) in found(report_)
    assert not [f for f in report_.findings if f.rule == "X900"]
    [note] = [note for note in report_.notes if note.startswith("X900")]
    assert note.startswith(f"X900 exploding could not finish on a.py ({failure.__name__}")
    assert note.endswith("the other rules' findings stand")


def test_deep_nesting_is_reviewed_and_a_secret_beside_it_found(repo: Repo) -> None:
    deep = "x = a" + ".b" * 200_000 + "\n"
    repo.land("deep", {"deep.py": deep, "conf.py": f'TOKEN = "{TOKEN}"\n'}, hooks=False)
    reviewed = repo.landwatch("review", "HEAD")
    assert reviewed.returncode == 1 and "Traceback" not in reviewed.stderr
    assert "conf.py" in reviewed.stdout and "S002" in reviewed.stdout
    assert TOKEN not in reviewed.stdout


class StepClock:
    """A monotonic clock that moves `step` seconds each time it is read."""

    def __init__(self, step: float) -> None:
        self.now, self.step = 0.0, step

    def __call__(self) -> float:
        self.now += self.step
        return self.now


def test_past_the_budget_the_files_not_reached_are_named(repo: Repo) -> None:
    files = {f"f{n:02}.py": f"x{n} = 1  \n" for n in range(12)}
    repo.land("many files", files, hooks=False)
    report_ = engine.review(repo.git_dir, "HEAD", budget=Budget(10, StepClock(1.0)))
    reached = {path for rule, path, _ in found(report_) if rule == "P001"}
    assert reached and report_.truncated
    [note] = [note for note in report_.notes if "did not reach" in note]
    match = re.fullmatch(
        r"line and file checks did not reach (\d+) files \(([^()]*?)(?: and (\d+) more)?\): "
        r"this review's 10 s ran out",
        note,
    )
    assert match is not None, note
    named = match[2].split(", ")
    assert len(named) == 5 and int(match[3]) == int(match[1]) - 5
    assert not set(named) & reached and named == sorted(named)
    # A file whose line rules the budget stopped part way may have findings of the first ones.
    stopped = "line checks stopped in "
    cut_short = {
        n.removeprefix(stopped).partition(":")[0] for n in report_.notes if n.startswith(stopped)
    }
    assert len(reached | cut_short) + int(match[1]) == len(files)


def test_a_review_within_its_budget_says_nothing_of_it(repo: Repo) -> None:
    repo.land("change", {"a.py": "x = 1  \n"}, hooks=False)
    report_ = engine.review(repo.git_dir, "HEAD", budget=Budget(10, StepClock(0.0)))
    assert not report_.truncated and not [n for n in report_.notes if "ran out" in n]
    assert ("P001", "a.py", 1) in found(report_)
