"""A review's report: what was reviewed, by which rules, what was found; as a dict for JSON.

Where reports are kept is not the review's business (landwatch.report_store).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from landwatch.json_out import typed, typed_list
from landwatch.review.allowed import Allowance
from landwatch.review.findings import Finding, Severity, in_order

FORMAT = 1


def severity_counts(findings: list[Finding]) -> dict[str, int]:
    """How many findings of each severity, the least first: {"info": 1, "warning": 2, ...}."""
    counted = {severity.name.lower(): 0 for severity in Severity if severity}
    for finding in findings:
        counted[finding.severity.name.lower()] += 1
    return counted


def summary_of(findings: list[Finding]) -> str:
    """`2 errors, 1 warning`, the worst first; "" for none."""
    parts = []
    for name, count in reversed(list(severity_counts(findings).items())):
        if count:
            parts.append(f"{count} {name}{'' if count == 1 else 's'}")
    return ", ".join(parts)


@dataclass
class Report:
    commit: str
    base: str | None
    shape: str  # what landed: commit, root, merge or range (change.ChangeShape); tag at a push
    label: str
    rules: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    truncated: bool = False
    lines_checked: int = 0
    config: str = "defaults"
    notes: list[str] = field(default_factory=list)
    linters: list[dict[str, str]] = field(default_factory=list)
    # The digest of the committed linters not run because nobody trusted them (None: none held).
    linters_held_back: str | None = None
    # The commit a rebase or amend replaced by this one, whose review this is, carried over.
    carried_from: str | None = None
    # Whose review this is when a teammate made it and it was taken from their git note (their
    # user.email); None: reviewed here.
    reviewed_by: str | None = None
    # Of a teammate's review taken, the fingerprints of the findings this reviewer made itself:
    # the secret rules run here on every commit taken (landwatch.sharing).
    found_here: list[str] = field(default_factory=list)
    # The allowances (`landwatch allow`) that cover findings of this review, carried wherever
    # the report goes (`show --json`, a note, a teammate's taken review).
    allowed: list[Allowance] = field(default_factory=list)
    started: float = 0.0
    duration: float = 0.0

    def counts(self) -> dict[str, int]:
        return severity_counts(self.findings)

    def worst(self) -> Severity:
        return max((finding.severity for finding in self.findings), default=Severity.OFF)

    def summary(self) -> str:
        """`2 errors, 1 warning` (or `no findings`)."""
        return summary_of(self.findings) or "no findings"

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "commit": self.commit,
            "base": self.base,
            "shape": self.shape,
            "label": self.label,
            "rules": self.rules,
            "findings": [finding.as_dict() for finding in self.findings],
            "counts": self.counts(),
            "truncated": self.truncated,
            "lines_checked": self.lines_checked,
            "config": self.config,
            "notes": self.notes,
            "linters": self.linters,
            "linters_held_back": self.linters_held_back,
            "carried_from": self.carried_from,
            "shared": self.reviewed_by is not None,
            "reviewed_by": self.reviewed_by,
            "found_here": self.found_here,
            "allowed": [allowance.as_dict() for allowance in self.allowed],
            "started": self.started,
            "duration": self.duration,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Report:
        """A report kept, each field of its type; ValueError (or KeyError) for anything else:
        what is kept is data (a file truncated, hand-edited, or planted in an unpacked repo)."""
        allowed, found_here = data.get("allowed"), data.get("found_here")
        return cls(
            commit=typed(data["commit"], str, "commit"),
            base=typed(data.get("base"), str | None, "base"),
            # Reports written before the rename call the shape "kind".
            shape=typed(data.get("shape", data.get("kind", "commit")), str, "shape"),
            label=typed(data.get("label", ""), str, "label"),
            rules=typed_list(data.get("rules", []), str, "rules"),
            findings=[
                Finding.from_dict(item)
                for item in typed(data.get("findings", []), list, "findings")
            ],
            truncated=bool(data.get("truncated")),
            lines_checked=typed(data.get("lines_checked", 0), int, "lines_checked"),
            config=typed(data.get("config", "defaults"), str, "config"),
            notes=typed_list(data.get("notes", []), str, "notes"),
            linters=[_linter_run(run) for run in typed(data.get("linters", []), list, "linters")],
            linters_held_back=_text_or_none(data.get("linters_held_back")),
            carried_from=_text_or_none(data.get("carried_from")),
            reviewed_by=_text_or_none(data.get("reviewed_by")),
            found_here=[f for f in found_here if isinstance(f, str)]
            if isinstance(found_here, list)
            else [],
            allowed=[one for item in allowed if (one := Allowance.from_dict(item)) is not None]
            if isinstance(allowed, list)
            else [],
            started=float(typed(data.get("started", 0.0), int | float, "started")),
            duration=float(typed(data.get("duration", 0.0), int | float, "duration")),
        )


def _text_or_none(value: Any) -> str | None:
    """A text kept where an older report may hold none, or another landwatch's something else."""
    return value if isinstance(value, str) else None


def _linter_run(run: Any) -> dict[str, str]:
    """One linter's run as a report keeps it: texts by name, its linter, path and status among
    them."""
    if not isinstance(run, dict) or not all(isinstance(v, str) for v in run.values()):
        raise ValueError("malformed linters")
    if not {"linter", "path", "status"} <= run.keys():
        raise ValueError("malformed linters")
    return dict(run)


def with_found_here(shared: Report, here: Report) -> Report:
    """The teammate's review `shared`, with what the rules a push is refused for found here
    (`here`, a review of the same commit by them alone) that it lacks added, as this reviewer's
    own (`found_here`); where both found one thing at another severity, this one's stands."""
    ran = set(here.rules)
    theirs = {(f.rule, f.fingerprint, f.severity) for f in shared.findings}
    added = [
        f
        for f in here.findings
        if f.rule in ran and (f.rule, f.fingerprint, f.severity) not in theirs
    ]
    replaced = {(f.rule, f.fingerprint) for f in added}
    kept = [f for f in shared.findings if (f.rule, f.fingerprint) not in replaced]
    rules = ", ".join(here.rules) or "none"
    if added:
        named = ", ".join(
            f"{f.rule} {f.path}:{f.line}" if f.path and f.line else f.rule for f in added[:3]
        )
        said = (
            f"the rules a push is refused for ({rules}) ran here too: {len(added)} finding"
            f"{'' if len(added) == 1 else 's'} the shared review lacks, this reviewer's own "
            f"({named}{' and more' if len(added) > 3 else ''})"
        )
    else:
        said = (
            f"the rules a push is refused for ({rules}) ran here too: nothing the shared review "
            "lacks"
        )
    return dataclasses.replace(
        shared,
        findings=sorted([*kept, *added], key=in_order),
        notes=[*shared.notes, said],
        found_here=[f.fingerprint for f in added],
    )
