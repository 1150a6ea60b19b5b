"""Reviewing commits of real repositories in tests."""

from __future__ import annotations

from pathlib import Path

from landwatch.review import engine
from landwatch.review.report import Report
from repo_helpers import Repo


def write(repo: Repo, files: dict[str, bytes | str]) -> None:
    for name, content in files.items():
        path = repo.path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str):
            content = content.encode()
        path.write_bytes(content)
        repo.git("add", name)


def land(repo: Repo, files: dict[str, bytes | str], message: str = "change") -> str:
    write(repo, files)
    repo.git("commit", "-q", "-m", message, LANDWATCH="0")
    return repo.head()


def review(
    repo: Repo, revision: str = "HEAD", base: str | None = None, *, linters: bool = False
) -> Report:
    return engine.review(repo.git_dir, revision, base, run_linters=linters)


def found(
    report: Report, rule: str | None = None, *, ignore: tuple[str, ...] = ("C002",)
) -> list[tuple[str, str | None, int | None]]:
    """(rule, path, line) of the findings, optionally of one rule (by id or name).

    Tests of other rules leave out C002 (source changed without tests), which most of their
    one-file commits rightly earn.
    """
    return [
        (f.rule, f.path, f.line)
        for f in report.findings
        if (rule is None and f.rule not in ignore) or rule in (f.rule, f.name)
    ]


def new_repo(tmp_path: Path, name: str = "repo") -> Repo:
    return Repo(tmp_path / name)
