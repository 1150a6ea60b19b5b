"""Desktop notifications: off by default, at the level asked for, one per review and a few a
minute, through a stand-in notify-send that records what it was given; none without a desktop."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from landwatch import notify
from landwatch.review.findings import Finding, Severity
from landwatch.review.report import Report
from support.daemon import run_reviewer
from support.repos import Repo


def stand_in(tmp_path: Path) -> tuple[Path, Path]:
    """A notify-send that appends its arguments to a log, on a PATH of its own."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "notified.log"
    sender = bin_dir / "notify-send"
    sender.write_text(f'#!/bin/sh\nprintf "%s|" "$@" >> {log}\necho >> {log}\n')
    sender.chmod(0o755)
    return bin_dir, log


def sent(log: Path) -> list[str]:
    return log.read_text().splitlines() if log.exists() else []


def review_on_a_desktop(bin_dir: Path) -> int:
    """`landwatch reviewer --once` in a session with a D-Bus address and the stand-in first."""
    return run_reviewer(
        "--once", PATH=f"{bin_dir}:{os.environ['PATH']}", DBUS_SESSION_BUS_ADDRESS="unix:path=/x"
    ).returncode


def test_a_review_at_the_level_asked_for_is_told_once(repo: Repo, tmp_path: Path) -> None:
    bin_dir, log = stand_in(tmp_path)
    repo.land("a warning only", {"a.txt": "trailing  \n"})
    assert review_on_a_desktop(bin_dir) == 0
    assert sent(log) == []  # off by default
    repo.git("config", "landwatch.notify", "errors")
    repo.land("still a warning", {"b.txt": "trailing  \n"})
    oid = repo.land("an error", {"c.txt": "<<<<<<< HEAD\nx\n=======\ny\n>>>>>>> topic\n"})
    assert review_on_a_desktop(bin_dir) == 0
    assert sent(log) == [
        f"--app-name=landwatch|landwatch: repo|{oid[:7]} — 3 errors · landwatch show {oid[:7]}|"
    ]


def test_findings_level_and_the_rate_limit(repo: Repo, tmp_path: Path) -> None:
    bin_dir, log = stand_in(tmp_path)
    repo.git("config", "landwatch.notify", "findings")
    for n in range(5):
        repo.land(f"warning {n}", {f"w{n}.txt": "trailing  \n"})
    assert review_on_a_desktop(bin_dir) == 0
    assert len(sent(log)) == notify.RATE_LIMIT


def test_no_desktop_no_notification(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_dir, log = stand_in(tmp_path)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "no-session"))  # an SSH login
    report = Report("a" * 40, None, "commit", "a" * 12)
    report.findings.append(Finding("P004", "conflict-markers", Severity.ERROR, "marker"))
    assert notify.tell(tmp_path / ".git", report, Severity.ERROR) is False
    assert sent(log) == []
