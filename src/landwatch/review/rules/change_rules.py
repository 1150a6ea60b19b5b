"""Rules about the change as a whole: its size, tests that came with it, lockfiles kept in step.

Each says what it catches and what it deliberately lets through (the false positives others hit).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator

from landwatch.lazy_re import lazy_compile
from landwatch.review.change import Change, FileChange, FileStatus
from landwatch.review.declared_changes import brought
from landwatch.review.dependencies import Wanted, lockfiles, manifests, versions
from landwatch.review.findings import Finding, Severity
from landwatch.review.globs import LOCKFILES_OF_MANIFEST, matches_any
from landwatch.review.rules.base import ChangeRule, Option
from landwatch.text import listed


class ChangeTooLarge(ChangeRule):
    """A change adding more lines, or touching more files, than one review takes in (added lines
    only: deletions are quick to review). Binary files count as files, not lines."""

    id = "C001"
    name = "change-too-large"
    severity = Severity.INFO
    options = (
        Option("max_lines", 1000, "the most added lines in one change"),
        Option("max_files", 50, "the most files touched by one change"),
    )
    example = "1840 lines added across 63 files"

    def check_change(self, change: Change) -> Iterator[Finding]:
        lines = sum(len(file.added_lines) for file in change.files)
        files = len(change.files)
        max_lines, max_files = self.option("max_lines"), self.option("max_files")
        if lines <= max_lines and files <= max_files:
            return
        # Past the reviewer's line cap the count is only a floor.
        counted = f"at least {lines}" if change.truncated else str(lines)
        yield self.finding(
            f"large change: {counted} lines added (limit {max_lines}) "
            f"across {files} files (limit {max_files})",
            content="size",
        )


_NOT_BEHAVIOUR = lazy_compile(
    rb"""^\s*(?:$|#|//|/\*|\*|--|[rRbBuU]?(?:\"\"\"|\'\'\')|__version__\s*=|version\s*=\s*["'])"""
)


def _holds_no_behaviour(file: FileChange) -> bool:
    """Whether `file` is binary (an image under src/), or every line the change added to it is
    a comment, a docstring quote, blank or a version (a docs or release change). A change that
    only deleted lines does change behaviour, and so may a file whose lines were not read (too
    large, past the line cap)."""
    added = file.added_lines  # read first: reading them is what finds a file binary
    if file.binary:
        return True
    return (
        file.unchecked_lines is None
        and bool(added)
        and all(_NOT_BEHAVIOUR.match(line.raw) for line in added)
    )


class SourceWithoutTests(ChangeRule):
    """Source files changed while no test file did. Test files are never source; files whose
    content did not change (pure renames, mode changes) and deleted files are not source changes;
    a Rust file whose added lines hold a `#[test]` or `#[cfg(test)]` carries its own tests.
    Neither is a change whose added lines are all comments, docstring quotes, blank or a version
    string (a docs or release commit), a binary file, nor files under `not_source` (docs/conf.py,
    setup.py); lines only deleted from a source file are a source change.

    Off unless the project turns it on: on five projects nobody had tuned on, it was most of
    the info findings sampled, and few were worth telling (refactors, typing, CI, docs)."""

    id = "C002"
    name = "source-without-tests"
    severity = Severity.OFF
    options = (
        Option(
            "source",
            ("src/**", "lib/**", "app/**", "*.py", "*.go", "*.rs", "*.js", "*.ts"),
            "globs of source files",
        ),
        Option(
            "tests",
            (
                "tests/**",
                "test/**",
                "spec/**",
                "__tests__/**",
                "test_*",
                "*_test.*",
                "*.test.*",
                "*.spec.*",
            ),
            "globs of test files",
        ),
        Option(
            "not_source",
            ("docs/**", "doc/**", "examples/**", "setup.py", "noxfile.py", "conftest.py"),
            "globs of files that match `source` but hold no behaviour to test",
        ),
    )
    example = "src/parser.py changed, nothing under tests/"

    def check_change(self, change: Change) -> Iterator[Finding]:
        if all(file.deleted for file in change.files):
            return
        tests = self.option("tests")
        if any(matches_any(file.path, tests) for file in change.files):
            return
        source = sorted(
            file.path
            for file in change.files
            if not file.deleted
            and file.old_id != file.new_id
            and matches_any(file.path, self.option("source"))
            and not matches_any(file.path, self.option("not_source"))
            and not _holds_no_behaviour(file)
        )
        if not source or any(self._inline_tests(file) for file in change.files):
            return
        yield self.finding(
            f"source changed ({listed(source, 3)}) but no test file did", content="\n".join(source)
        )

    @staticmethod
    def _inline_tests(file: FileChange) -> bool:
        # Rust keeps unit tests in the source file; without this every Rust change is reported.
        if not file.path.endswith(".rs") or file.deleted:
            return False
        return any(
            b"#[test]" in line.raw or b"#[cfg(test)]" in line.raw for line in file.added_lines
        )


_MANIFEST_OF_LOCKFILE = {
    lockfile: manifest for manifest, names in LOCKFILES_OF_MANIFEST.items() for lockfile in names
}


class ManifestLockfile(ChangeRule):
    """A manifest asking for what its lockfile, unchanged, does not hold: a dependency added
    that the lockfile does not lock, or a version range (npm, Cargo; Go's exact versions) that
    no locked version satisfies; a lockfile changed, with its manifest or alone, that no longer
    locks a dependency its manifest declares in any group (poetry, uv, npm, pnpm, yarn, Cargo,
    Go: `poetry lock` run without the dev group); or a lockfile deleted while its manifest
    still has dependencies and no other lockfile of it is left.

    Lets through: a lockfile refreshed alone that still locks all (`uv lock --upgrade`, `cargo
    update`, `npm update`: normal upkeep), a manifest change the lockfile already satisfies
    (1.4.0 asked, 1.4.1 locked), path, git and workspace dependencies, a requirement under an
    environment marker, ranges it cannot read, manifests or lockfiles that do not parse (syntax
    is another rule's) or are past 8 MB (not read), and what the lockfile lacked before the
    change already.
    """

    id = "C003"
    name = "manifest-lockfile"
    severity = Severity.WARNING
    options = (
        Option(
            "lockfile_alone",
            False,
            "also report a lockfile changed while no manifest of its kind did",
        ),
    )
    example = "package.json adds left-pad, which package-lock.json does not lock"

    def check_change(self, change: Change) -> Iterator[Finding]:
        changed = {file.path for file in change.files if not file.deleted}
        for file in change.files:
            name = posixpath.basename(file.path)
            if file.deleted:
                if name in _MANIFEST_OF_LOCKFILE:
                    yield from self._lockfile_deleted(change, file)
            elif name in manifests.READERS:
                yield from self._manifest(change, file, changed)
            elif name in _MANIFEST_OF_LOCKFILE:
                yield from self._lockfile_changed(change, file)
                if self.option("lockfile_alone"):
                    yield from self._lockfile_alone(change, file, changed)

    def _manifest(self, change: Change, file: FileChange, changed: set[str]) -> Iterator[Finding]:
        directory, name = posixpath.split(file.path)
        present = [
            lockfile
            for lockfile in LOCKFILES_OF_MANIFEST[name]
            if change.has_file(posixpath.join(directory, lockfile))
        ]
        if not present or any(posixpath.join(directory, lock) in changed for lock in present):
            return
        read = manifests.READERS[name]
        new = file.new_content()
        after = None if new is None else read(new)
        if not after:
            return
        before: Wanted = {}
        if file.status not in (FileStatus.ADDED, FileStatus.COPIED):
            old = file.old_content()
            parsed = None if old is None else read(old)
            if parsed is None:
                return
            before = parsed
        asked = {
            dep: spec for dep, spec in after.items() if dep not in before or before[dep] != spec
        }
        if not asked:
            return
        lockfile = present[0]
        blob = change.file_at(posixpath.join(directory, lockfile))
        locked = None if blob is None else lockfiles.READERS[lockfile](blob)
        if locked is None:
            return
        ecosystem = manifests.ECOSYSTEM.get(name)
        missing, unmet = [], []
        for dep, spec in sorted(asked.items()):
            locked_versions = locked.get(dep)
            if locked_versions is None:
                if dep not in before:
                    missing.append(dep)
                continue
            if spec is None or ecosystem is None:
                continue
            verdicts = [versions.satisfies(v, spec, ecosystem) for v in locked_versions]
            if verdicts and all(verdict is False for verdict in verdicts):
                unmet.append(f"{dep} {spec} (locked: {', '.join(sorted(locked_versions))})")
        if missing:
            yield self.finding(
                f"{name} adds {listed(missing, 5)}, which {lockfile} does not lock",
                path=file.path,
                content="missing " + " ".join(missing),
            )
        if unmet:
            yield self.finding(
                f"{name} asks for {listed(unmet, 3, '; ')}, which {lockfile} does not satisfy",
                path=file.path,
                content="unmet " + " ".join(unmet),
            )

    def _lockfile_changed(self, change: Change, file: FileChange) -> Iterator[Finding]:
        directory, name = posixpath.split(file.path)
        manifest = _MANIFEST_OF_LOCKFILE[name]
        path = posixpath.join(directory, manifest)
        if name not in manifests.WHOLE_LOCKS or (after := change.file_at(path)) is None:
            return
        unlocked = _unlocked(manifest, after, name, file.new_content())
        if unlocked and file.status is FileStatus.MODIFIED:
            # What it lacked before the change, of what was declared then, is not its doing.
            before = next((f.old_content() for f in change.files if f.path == path), after)
            unlocked -= _unlocked(manifest, before, name, file.old_content())
        if unlocked:
            missing = sorted(unlocked)
            yield self.finding(
                f"{name} does not lock {listed(missing, 5)}, which {manifest} declares",
                path=file.path,
                content="unlocked " + " ".join(missing),
            )

    def _lockfile_deleted(self, change: Change, file: FileChange) -> Iterator[Finding]:
        directory, name = posixpath.split(file.path)
        manifest = _MANIFEST_OF_LOCKFILE[name]
        kept = change.file_at(posixpath.join(directory, manifest))
        if kept is None:
            return  # the manifest went too
        others = [
            lock
            for lock in LOCKFILES_OF_MANIFEST[manifest]
            if lock != name and change.has_file(posixpath.join(directory, lock))
        ]
        if others:
            return  # a switch of package manager
        wanted = manifests.READERS[manifest](kept)
        if not wanted:
            return
        yield self.finding(
            f"{name} deleted while {manifest} still has dependencies: nothing locks them now",
            path=file.path,
            content="lockfile deleted",
        )

    def _lockfile_alone(
        self, change: Change, file: FileChange, changed: set[str]
    ) -> Iterator[Finding]:
        directory, name = posixpath.split(file.path)
        manifest = _MANIFEST_OF_LOCKFILE[name]
        if file.status is not FileStatus.MODIFIED or file.old_id == file.new_id:
            return
        if not change.has_file(posixpath.join(directory, manifest)):
            return
        prefix = f"{directory}/" if directory else ""
        for path in changed:
            if posixpath.basename(path) == manifest and path.startswith(prefix):
                return
        yield self.finding(
            f"{name} changed but {manifest} did not", path=file.path, content="lockfile alone"
        )


def _unlocked(
    manifest: str, declares: bytes | None, lockfile: str, locks: bytes | None
) -> set[str]:
    """What `declares` (a manifest) declares that `locks` (its lockfile) does not lock; nothing
    when either does not parse or the lockfile locks nothing (a format not read)."""
    declared = None if declares is None else manifests.declared(manifest, declares)
    locked = None if locks is None else lockfiles.READERS[lockfile](locks)
    if not declared or not locked:
        return set()
    if lockfile == "Cargo.lock":  # crates.io takes `-` and `_` as one
        known = {name.replace("-", "_") for name in locked}
        return {name for name in declared if name.replace("-", "_") not in known}
    return declared - locked.keys()


class ReviewRulesChanged(ChangeRule):
    """A change to the rules the review runs by: landwatch's configuration (`.landwatch.toml`,
    `[tool.landwatch]`) and what the project declared to its secret scanners (`.gitleaks.toml`
    and what it extends, `.gitleaksignore`, `.secrets.baseline`). An error where it lets through
    what they reported: a secret rule (or this one) turned off, lowered, or told to look for
    other things; anything new an allowlist lets through (a path, regex, stopword, commit,
    fingerprint, baseline entry or exclusion, `[secrets] allow` or `allow_paths`); a new
    `exclude`, or a lower `max_added_lines` (no line past it is looked at, for secrets either).
    A warning for any other change to them.

    Only where a review takes its rules from elsewhere than the commit it reviews: `landwatch
    ci` reviews a change by the rules it came to (the range's base), never by those it brings,
    and tells here, on the commit that made it, what it would change once it lands. Your own
    reviewer reviews each commit by its own configuration and says nothing of this, but judges
    the secrets of a commit that loosens the rules so by the rules it came to as well."""

    id = "C004"
    name = "review-rules-changed"
    severity = Severity.ERROR
    watches_the_rules = True
    example = ".landwatch.toml turns S001 private-key off"

    def check_change(self, change: Change) -> Iterator[Finding]:
        from landwatch.review.rules import all_rules  # the rules it judges, plug-ins too

        rules, _ = all_rules()
        for difference in brought(change, rules):
            finding = self.finding(difference.said, path=difference.path)
            if not difference.relaxes:
                finding.severity = min(finding.severity, Severity.WARNING)
            yield finding


RULES = [ChangeTooLarge, SourceWithoutTests, ManifestLockfile, ReviewRulesChanged]
