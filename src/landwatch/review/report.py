"""A review's report: what was reviewed, by which rules, what was found, written durably into
the repository's work directory before its item is settled (a repeat run overwrites it).

Unread markers let the hooks' one line announce a review with findings once.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from landwatch.review.rules.base import Finding, Severity

FORMAT = 1
REPORTS = "reports"
UNREAD = "unread"


@dataclass
class Report:
    commit: str
    base: str | None
    kind: str
    label: str
    rules: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    truncated: bool = False
    lines_checked: int = 0
    config: str = "defaults"
    notes: list[str] = field(default_factory=list)
    linters: list[dict[str, str]] = field(default_factory=list)
    started: float = 0.0
    duration: float = 0.0

    def counts(self) -> dict[str, int]:
        counts = {severity.name.lower(): 0 for severity in Severity if severity}
        for finding in self.findings:
            counts[finding.severity.name.lower()] += 1
        return counts

    def worst(self) -> Severity:
        return max((finding.severity for finding in self.findings), default=Severity.OFF)

    def summary(self) -> str:
        """`2 errors, 1 warning` (or `no findings`)."""
        parts = []
        for name, count in reversed(list(self.counts().items())):
            if count:
                parts.append(f"{count} {name}{'' if count == 1 else 's'}")
        return ", ".join(parts) or "no findings"

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "commit": self.commit,
            "base": self.base,
            "kind": self.kind,
            "label": self.label,
            "rules": self.rules,
            "findings": [finding.as_dict() for finding in self.findings],
            "counts": self.counts(),
            "truncated": self.truncated,
            "lines_checked": self.lines_checked,
            "config": self.config,
            "notes": self.notes,
            "linters": self.linters,
            "started": self.started,
            "duration": self.duration,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Report:
        return cls(
            data["commit"],
            data.get("base"),
            data.get("kind", "commit"),
            data.get("label", ""),
            list(data.get("rules", [])),
            [Finding.from_dict(item) for item in data.get("findings", [])],
            bool(data.get("truncated")),
            int(data.get("lines_checked", 0)),
            data.get("config", "defaults"),
            list(data.get("notes", [])),
            list(data.get("linters", [])),
            float(data.get("started", 0.0)),
            float(data.get("duration", 0.0)),
        )


def common_dir(git_dir: os.PathLike[str] | str) -> Path:
    """The repository's common git dir, from any worktree's git dir."""
    path = Path(git_dir)
    try:
        pointer = (path / "commondir").read_text().strip()
    except OSError:
        return path
    return (path / pointer).resolve() if pointer else path


def reports_dir(git_dir: os.PathLike[str] | str) -> Path:
    return common_dir(git_dir) / "landwatch" / REPORTS


def report_path(git_dir: os.PathLike[str] | str, commit: str) -> Path:
    return reports_dir(git_dir) / f"{commit}.json"


def write(git_dir: os.PathLike[str] | str, report: Report) -> Path:
    """Durably: written to a temp file, fsynced, renamed over the old one, directory fsynced."""
    target = report_path(git_dir, report.commit)
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    temporary = target.with_name(f".{target.name}.{os.getpid()}")
    data = json.dumps(report.as_dict(), indent=1).encode()
    fd = os.open(
        temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600
    )
    try:
        os.write(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(temporary, target)
    directory = os.open(target.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)
    if report.worst() >= Severity.WARNING:
        mark_unread(git_dir, report.commit)
    return target


def read(git_dir: os.PathLike[str] | str, commit: str) -> Report | None:
    try:
        data = json.loads(report_path(git_dir, commit).read_text())
    except (OSError, ValueError):
        return None
    try:
        return Report.from_dict(data)
    except (KeyError, ValueError, TypeError):
        return None


def mark_unread(git_dir: os.PathLike[str] | str, commit: str) -> None:
    directory = common_dir(git_dir) / "landwatch" / UNREAD
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    (directory / commit).touch()


def unread(git_dir: os.PathLike[str] | str) -> list[str]:
    """Commits whose reviews have findings nobody was told about, newest first."""
    directory = common_dir(git_dir) / "landwatch" / UNREAD
    try:
        entries = [(entry.stat().st_mtime, entry.name) for entry in os.scandir(directory)]
    except OSError:
        return []
    return [name for _, name in sorted(entries, reverse=True)]


def mark_read(git_dir: os.PathLike[str] | str, commit: str) -> None:
    with contextlib.suppress(OSError):
        (common_dir(git_dir) / "landwatch" / UNREAD / commit).unlink()
