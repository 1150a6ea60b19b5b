"""What the project's hooks said of one landed commit, as findings: a failing hook (its id, its
output redacted and cut), a hook's `path:line:` placed on that line when the change added it, the
files a fixing hook changed (the change kept as a patch); and how that joins the commit's review
(one report: `joined`).

Stored beside the review's report by the `project_hooks` kind, never inside it: each kind writes
its own file, so neither waits for the other nor overwrites what the other found.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from landwatch.review.bursts import line_ranges
from landwatch.review.findings import (
    DECLARED,
    MAX_PLACED,
    Basis,
    Finding,
    Severity,
    content_lines,
    fingerprint,
    line_text,
)
from landwatch.review.project_hooks import fixed
from landwatch.review.project_hooks.output import HookOutcome, Located, located
from landwatch.review.report import Report
from landwatch.review.secrets.redaction import NONE_FOUND, Found, redact_secrets

FORMAT = 1
# How much of a hook's output a finding keeps.
MAX_OUTPUT_LINES = 20
MAX_OUTPUT_CHARS = 2000
MAX_MESSAGE = 300
# The rule of a finding the project's hooks made: `hook:<id>`.
PREFIX = "hook:"
# The status of a run that did not happen yet: their environments are not built (the first
# build needs the network), and the item is tried again later.
WAITING = "waiting"


@dataclass
class HooksResult:
    """The project hooks' run on one commit; `status` says whether they ran: ran, stopped (past
    their budget), untrusted, no-wall (no bubblewrap here, and landwatch.sandbox not false),
    waiting (their environments not built yet), missing (no tool), failed (the tool could not
    run them), none (nothing to run them on)."""

    commit: str
    status: str
    tools: list[str] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    hooks: list[dict[str, str]] = field(default_factory=list)  # id, status, each hook's
    patch: str = ""  # what fixing hooks changed, as `git apply` takes it (redacted)
    started: float = 0.0
    duration: float = 0.0
    # The digest of the hooks' configuration held back (status untrusted), so that trusting
    # that digest runs them: "" when not held back, or kept by a release that did not say.
    digest: str = ""

    @property
    def waiting(self) -> bool:
        """Whether they have not run yet, waiting for their environments (tried again later)."""
        return self.status == WAITING

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "commit": self.commit,
            "status": self.status,
            "tools": self.tools,
            "findings": [finding.as_dict() for finding in self.findings],
            "notes": self.notes,
            "hooks": self.hooks,
            "patch": self.patch,
            "started": self.started,
            "duration": self.duration,
            "digest": self.digest,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> HooksResult:
        return cls(
            commit=str(data["commit"]),
            status=str(data.get("status", "")),
            tools=[str(tool) for tool in data.get("tools", [])],
            findings=[Finding.from_dict(item) for item in data.get("findings", [])],
            notes=[str(note) for note in data.get("notes", [])],
            hooks=[{str(k): str(v) for k, v in item.items()} for item in data.get("hooks", [])],
            patch=str(data.get("patch", "")),
            started=float(data.get("started", 0.0)),
            duration=float(data.get("duration", 0.0)),
            digest=str(data.get("digest", "")),
        )


def joined(report: Report, hooks: HooksResult | None) -> Report:
    """The commit's review with what its project hooks said: one report, one summary, each
    problem told once."""
    if hooks is None or hooks.commit != report.commit:
        return report
    reviewed, kept = told_once(report.findings, hooks.findings)
    return dataclasses.replace(
        report, findings=[*reviewed, *kept], notes=[*report.notes, *hooks.notes]
    )


def told_once(review: list[Finding], hooks: list[Finding]) -> tuple[list[Finding], list[Finding]]:
    """A problem a rule of landwatch and a hook it stands for (a rule's `precommit_hooks`) both
    found on the same lines, told once: by the rule, whose words are landwatch's own, saying
    that the hook said so too, at the more severe of the two; the hooks' findings left."""
    if not review or not hooks:
        return review, hooks
    from landwatch.review.rules import all_rules  # only when there is something to compare

    stands_for = {rule.id: set(rule.precommit_hooks) for rule in all_rules()[0]}
    merged: dict[int, Finding] = {}
    left: list[Finding] = []
    for finding in hooks:
        ids = set(finding.rule.removeprefix(PREFIX).split("+"))
        same = [
            at
            for at, ours in enumerate(review)
            if ours.path is not None
            and ours.path == finding.path
            and ids <= stands_for.get(ours.rule, set())
            and _overlap(ours, finding)
        ]
        if not same:
            left.append(finding)
        for at in same:
            ours = merged.get(at, review[at])
            hook = ", ".join(sorted(ids))
            merged[at] = dataclasses.replace(
                ours,
                message=f"{ours.message} (the project's hook {hook} reports it too: "
                f"{finding.message})",
                severity=max(ours.severity, finding.severity),
                basis=finding.basis if finding.severity > ours.severity else ours.basis,
            )
    return [merged.get(at, finding) for at, finding in enumerate(review)], left


def _overlap(one: Finding, other: Finding) -> bool:
    """Whether two findings of a file are on a common line (one of no line: the whole file)."""
    if one.line is None or other.line is None:
        return True
    return one.line <= (other.end_line or other.line) and other.line <= (one.end_line or one.line)


@dataclass(frozen=True)
class Landed:
    """What the findings are placed against: the files given to the hooks, the lines the change
    added to each, each file's landed content (for a finding's line), what the fixing hooks
    changed in each, line by line (a later hook's line is read against their fix), and the
    values the secret rules found in the commit, hidden wherever the hooks' words show them."""

    added: dict[str, set[int]]
    content: Callable[[str], bytes | None]
    commit: str = "COMMIT"  # named in what a fix finding says to run
    fixes: Mapping[str, fixed.FileFix] = field(default_factory=dict)
    found: Found = NONE_FOUND
    # What lines() read of each path: a cache, not what the findings are placed against.
    read: dict[str, list[bytes] | None] = field(default_factory=dict, repr=False, compare=False)

    def lines(self, path: str) -> list[bytes] | None:
        """`path`'s landed content as lines, read once: a hook naming each of a file's 20,000
        lines made each finding read the file out of git again. None for a file the change
        did not bring: none of its content is landed here."""
        if path not in self.added:
            return None
        if path not in self.read:
            content = self.content(path)
            self.read[path] = content_lines(content) if content is not None else None
        return self.read[path]


def findings_of(
    outcomes: list[HookOutcome],
    landed: Landed,
    changed: list[str],
    declared_in: str = "",
    beside: Sequence[str] = (),
) -> tuple[list[Finding], list[str]]:
    """The findings of what the hooks said, and notes of what was left out: a failed hook's
    `path:line:` lines, read on the committed file, kept to the lines the change added; its
    output otherwise; each of the change's files the hooks changed (`changed`), in the name of
    the hooks that changed it, with what they said they fixed (the files they changed `beside`
    the change's are not the commit's, and a fixer's failure is the change it made). Each is
    the project's own standard, declared in `declared_in` (its configuration); MAX_PLACED of
    them in all. Linear in what the hooks said and the files they changed (each hook's sight of
    each file answered at once)."""
    findings: list[Finding] = []
    notes: list[str] = []
    fixers = fixed.fixers_of(outcomes, changed, beside)
    reaches = {path: fixed.reach_of(outcomes, each) for path, each in fixers.items()}
    for index, outcome in enumerate(outcomes):
        if outcome.status != "failed":
            continue
        placed, left_out, more = _placed(outcome, landed, _sights(reaches, index))
        findings += placed
        if more:
            notes.append(
                f"hook {outcome.id} named {more:,} more lines this change added than the "
                f"{MAX_PLACED:,} kept: run the hooks yourself to see every one"
            )
        if placed:
            continue
        if left_out:
            notes.append(
                f"hook {outcome.id} failed on lines this change did not add only "
                f"({left_out} left out)"
            )
        elif not (outcome.modified and (changed or beside)):
            # A fixing hook's failure is the change it made.
            findings.append(_failure(outcome, landed.found))
    found, more = _fixes(outcomes, changed, fixers, landed, MAX_PLACED)
    findings += found
    kept = _kept(findings)
    more += len(findings) - len(kept)
    findings = kept
    if more:
        notes.append(
            f"the project's hooks made {more:,} more finding{'' if more == 1 else 's'} than the "
            f"{MAX_PLACED:,} kept: run the hooks yourself to see every one"
        )
    basis = Basis(DECLARED, declared_in or None)
    for finding in findings:
        finding.basis = basis
    return findings, [redact_secrets(note, found=landed.found) for note in notes]


def _kept(findings: list[Finding]) -> list[Finding]:
    """MAX_PLACED of `findings`, in their order, each hook's first kept before any hook's
    second: a hook naming a thousand lines leaves room for a word of every other."""
    if len(findings) <= MAX_PLACED:
        return findings
    firsts: dict[str, int] = {}
    for at, each in enumerate(findings):
        firsts.setdefault(each.rule, at)
    chosen = set(list(firsts.values())[:MAX_PLACED])
    for at in range(len(findings)):
        if len(chosen) == MAX_PLACED:
            break
        chosen.add(at)
    return [each for at, each in enumerate(findings) if at in chosen]


def _sights(reaches: dict[str, fixed.Reach | None], index: int) -> Callable[[str], str]:
    """Which file the hook at `index` read each path as (a file no hook changed: committed)."""
    return lambda path: fixed.sight(reaches[path], index) if path in reaches else fixed.COMMITTED


def _fixes(
    outcomes: list[HookOutcome],
    changed: list[str],
    fixers: dict[str, list[int]],
    landed: Landed,
    room: int,
) -> tuple[list[Finding], int]:
    """The files the hooks changed, a finding for each hook that changed each (one in the name
    of the project's hooks when none said it did): on the first committed line it changed,
    with what it said it fixed; `room` of them at most, and how many more there were."""
    files_of = Counter(index for each in fixers.values() for index in each)
    said = {index: fixed.said_fixed(outcomes[index]) for index in files_of}
    found: list[Finding] = []
    more = 0
    for path in changed:
        if len(found) >= room:
            more += len(fixers[path]) or 1
            continue
        fix = landed.fixes.get(path)
        if not fixers[path]:
            lines = fixed.changed_lines(fix.changed) if fix is not None else []
            found.append(_fix(path, "fix", "the project's hooks", "", lines, landed))
        for index in fixers[path]:
            outcome = outcomes[index]
            lines = fixed.lines_fixed(fix, outcome.id, len(fixers[path]) > 1)
            # A count of errors fixed is this file's when the hook changed no other.
            what = said[index].of(path, files_of[index] == 1)
            found.append(_fix(path, outcome.id, outcome.name, what, lines, landed))
    more += max(len(found) - room, 0)
    return found[:room], more


def _fix(path: str, hook: str, name: str, what: str, lines: list[int], landed: Landed) -> Finding:
    """One hook's fix of a file: what it said it fixed, the lines it changed."""
    file_lines = landed.lines(path) if lines else None
    snippet = line_text(file_lines, lines[0]) if file_lines is not None else None
    where = f"line{'s' if len(lines) > 1 else ''} {line_ranges(lines)}" if lines else ""
    run = f"`landwatch show {landed.commit[:7]} --patch`"
    if what:
        message = f"{what}: {where} changed ({run})" if where else f"{what} ({run})"
    else:
        message = f"the hook changes {where or 'this file'} ({run})"
    return Finding(
        rule=PREFIX + hook,
        name=name,
        severity=Severity.WARNING,
        message=redact_secrets(message, found=landed.found)[:MAX_MESSAGE],
        path=redact_secrets(path),
        line=lines[0] if lines else None,
        end_line=lines[-1] if len(lines) > 1 else None,
        snippet=redact_secrets(snippet, found=landed.found) if snippet is not None else None,
        fingerprint=fingerprint(PREFIX + "fix", path, name),
    )


def _placed(
    outcome: HookOutcome, landed: Landed, sight: Callable[[str], str]
) -> tuple[list[Finding], int, int]:
    """Findings of the `path:line:` lines of a hook's output, read on the committed file, on
    added lines, the first MAX_PLACED of them; how many such lines named a line the change did
    not add, and how many past MAX_PLACED were not kept."""
    found: list[Finding] = []
    left_out = more = 0
    before = ""
    for text in outcome.output:
        place = located(text, landed.added, before)
        before = text if text.strip() else before
        if place is None:
            continue
        number, remark = _committed(place, landed, sight(place.path))
        if number is not None and number not in landed.added[place.path]:
            left_out += 1
            continue
        if len(found) == MAX_PLACED:
            more += 1
            continue
        file_lines = landed.lines(place.path) if number is not None else None
        snippet = line_text(file_lines, number) if file_lines is not None else None
        said = (place.message or "(no message)") + remark
        message = redact_secrets(said, found=landed.found)[:MAX_MESSAGE]
        found.append(
            Finding(
                rule=PREFIX + outcome.id,
                name=outcome.name,
                severity=Severity.ERROR,
                message=message,
                path=redact_secrets(place.path),
                line=number,
                snippet=(
                    redact_secrets(snippet, found=landed.found) if snippet is not None else None
                ),
                fingerprint=fingerprint(
                    PREFIX + outcome.id, place.path, snippet or message, len(found), landed.found
                ),
            )
        )
    return found, left_out, more


def _committed(place: Located, landed: Landed, sight: str) -> tuple[int | None, str]:
    """The committed line a hook's place names, and what to say of it: a line the hooks before
    it changed, or (None) a line of a file that fixers before and after it changed."""
    fix = landed.fixes.get(place.path)
    if sight == fixed.COMMITTED:
        return place.line, ""
    if sight == fixed.AT_END and fix is not None:
        number, changed = fixed.committed_line(fix.moved, place.line)
        if not changed:
            return number, ""
        return (
            number,
            f" (said of line {place.line} as the hooks before it left it: they changed it)",
        )
    return None, (
        f" (said of line {place.line} as the hooks before it left the file; hooks after it "
        "changed the file too: which committed line that is cannot be told)"
    )


def _failure(outcome: HookOutcome, secrets: Found) -> Finding:
    code = f" (exit code {outcome.exit_code})" if outcome.exit_code is not None else ""
    output = shortened(outcome.output)
    return Finding(
        rule=PREFIX + outcome.id,
        name=outcome.name,
        severity=Severity.ERROR,
        message=f"the hook failed{code}" + ("" if output else ", saying nothing"),
        snippet=redact_secrets(output, found=secrets) if output else None,
        fingerprint=fingerprint(PREFIX + outcome.id, None, output or outcome.id, found=secrets),
    )


def shortened(lines: list[str]) -> str:
    """A hook's output cut to MAX_OUTPUT_LINES lines and MAX_OUTPUT_CHARS characters, saying
    how much more there was."""
    kept = [line[:MAX_MESSAGE] for line in lines[:MAX_OUTPUT_LINES]]
    text = "\n".join(kept)[:MAX_OUTPUT_CHARS]
    more = len(lines) - text.count("\n") - 1 if lines else 0
    return text + (f"\n({more} more lines)" if more > 0 else "")
