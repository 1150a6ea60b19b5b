"""An independent checker of real git histories: what each of the newest non-merge commits brought
(against its first parent) that a maintainer would flag, found without landwatch, to count what
landwatch's review misses on a held-out set.

Usage: python bench/independent_pass.py --commits 250 GITDIR...

One line a problem, `repo commit12 kind path:line detail`, lines starting `#` being notes (the
subject limits learned, a commit capped). Kinds, each about what the commit added:
- what `git diff --check` tells (trailing whitespace, space before tab, new blank line at EOF),
  a CR at a line's end left to `cr-line-ending` and conflict markers to `conflict-marker`;
- `parse-error`: a changed .json, .yaml/.yml, .toml or .py that parsed at the parent (or is new)
  and does not now; `private-key` and `token` (shown cut); `large-file` (added or grown past 500
  KB); `no-final-newline` (lost, or a new file without one); `cr-line-ending` (added lines ending
  in CR where the parent's file had none, or a new file's);
- `subject-p99` (a subject past the 99th percentile of the 500 non-merge subjects before the
  sample, or with `--each` before each commit, as the review learns it; authors named `[bot]`
  left out, never below 72), `subject-p98` (past the 98th but not
  the 99th: both readings add up), `subject-commitlint` (past a literal commitlint
  header-max-length at the commit); bot authors' subjects are not told;
- `scratch-file`: files added under tools' or agents' working state the parent's history never
  held, once a kind a commit; `leftover`: DO NOT COMMIT-style markers, every one;
- `lockfile-missing-dependency`: a changed lockfile that no longer names a dependency its manifest
  beside it declares at the commit, and that the parent's lockfile named.
It imports no landwatch: the standard library, PyYAML, and git run as a subprocess. Blobs over
5 MB are not parsed and at most 2,000 files a commit are read, so a run is linear and bounded.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from independent_checks import (
    COMMITLINT_CONFIGS,
    CONFLICT_MIDDLE,
    CONFLICT_SIDE,
    LEFTOVER,
    LOCK_MANIFEST,
    PRIVATE_KEY,
    SCRATCH_SPECS,
    TOKEN,
    Finding,
    clean,
    declared_dependencies,
    header_max_length,
    mentions,
    parse_error,
    percentile,
    redacted,
    scratch_label,
)
from independent_git import EMPTY_TREE, Entry, Repo, changed_files, check_problems, unquoted

PARSE_LIMIT = 5 * 1024 * 1024
LOCK_LIMIT = 64 * 1024 * 1024
LARGE = 500 * 1024
FILE_CAP = 2000
SUBJECT_FLOOR = 72
BEFORE = 500
KIND_ORDER = (
    "conflict-marker",
    "parse-error",
    "private-key",
    "token",
    "large-file",
    "no-final-newline",
    "cr-line-ending",
    "subject-p99",
    "subject-p98",
    "subject-commitlint",
    "scratch-file",
    "leftover",
    "lockfile-missing-dependency",
)
HUNK = re.compile(rb"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


@dataclass
class Added:
    """What one file's added lines hold that is judged over the file as a whole."""

    cr_lines: list[int] = field(default_factory=list)
    sides: list[tuple[int, str]] = field(default_factory=list)
    middles: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class Commit:
    sha: str
    parent: str
    author: str
    subject: str

    @property
    def bot(self) -> bool:
        return "[bot]" in self.author


@dataclass(frozen=True)
class Limits:
    p99: int
    p98: int
    counted: int
    bots: int


def commits(repo: Repo, skip: int, count: int) -> list[Commit]:
    """The `count` non-merge commits from HEAD after the first `skip`, newest first."""
    out = repo.git(
        "log", "--no-merges", f"--skip={skip}", f"--max-count={count}",
        "--format=%x1e%H%x1f%P%x1f%an %ae%x1f%B", "HEAD",
    )  # fmt: skip
    found = []
    for record in out.decode("utf-8", errors="replace").split("\x1e")[1:]:
        sha, parents, author, message = record.split("\x1f", 3)
        parent = parents.split()[0] if parents.strip() else EMPTY_TREE
        subject = message.strip("\n").split("\n", 1)[0].rstrip()
        found.append(Commit(sha, parent, author, subject))
    return found


def subject_limits(before: list[Commit]) -> Limits:
    """The 99th and 98th percentile subject lengths of the people's commits in `before`."""
    lengths = [len(c.subject) for c in before if not c.bot]
    p99 = max(SUBJECT_FLOOR, percentile(lengths, 99) or 0)
    p98 = max(SUBJECT_FLOOR, percentile(lengths, 98) or 0)
    return Limits(p99, p98, len(lengths), len(before) - len(lengths))


def subject_findings(repo: Repo, commit: Commit, limits: Limits) -> list[Finding]:
    if commit.bot:
        return []
    length, found = len(commit.subject), []
    detail = f"{length} chars (p99 {limits.p99}, p98 {limits.p98}): {commit.subject}"
    if length > limits.p99:
        found.append(Finding("subject-p99", "COMMIT_MSG", 1, detail))
    elif length > limits.p98:
        found.append(Finding("subject-p98", "COMMIT_MSG", 1, detail))
    for config in COMMITLINT_CONFIGS:
        data = repo.read(f"{commit.sha}:{config}", PARSE_LIMIT)
        declared = header_max_length(config, data) if data is not None else None
        if declared is not None:
            if length > declared:
                note = f"{length} chars, {config} declares {declared}: {commit.subject}"
                found.append(Finding("subject-commitlint", "COMMIT_MSG", 1, note))
            break
    return found


def added_lines(repo: Repo, commit: Commit, paths: set[str]) -> Iterator[tuple[str, int, bytes]]:
    """Every line the commit added to one of `paths`: its path, its line number, its bytes."""
    path: str | None = None
    header, number = False, 0
    for raw in repo.stream(
        "diff-tree", "-r", "-p", "-U0", "--no-renames", "--no-color", "--no-ext-diff",
        "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/", commit.parent, commit.sha,
    ):  # fmt: skip
        if raw.startswith(b"diff --git "):
            path, header = None, True
        elif header and raw.startswith(b"+++ "):
            name = unquoted(raw[4:].rstrip(b"\n"))
            path = name[2:] if name.startswith("b/") and name[2:] in paths else None
        elif raw.startswith(b"@@"):
            header = False
            hunk = HUNK.match(raw)
            number = int(hunk.group(1)) if hunk else 0
        elif not header and path is not None and raw.startswith(b"+"):
            yield path, number, raw[1:].removesuffix(b"\n")
            number += 1


def line_findings(path: str, number: int, raw: bytes, added: Added) -> Iterator[Finding]:
    """What one added line tells by itself, and what it leaves in `added` for its file."""
    if raw.endswith(b"\r"):
        added.cr_lines.append(number)
    text = raw.rstrip(b"\r").decode("utf-8", errors="replace")
    if CONFLICT_SIDE.match(text):
        added.sides.append((number, text))
    elif text == CONFLICT_MIDDLE:
        added.middles.append(number)
    if PRIVATE_KEY.search(text):
        yield Finding("private-key", path, number, text.strip())
    for token in TOKEN.findall(text):
        yield Finding("token", path, number, redacted(token))
    if LEFTOVER.search(text):
        yield Finding("leftover", path, number, text.strip())


def conflict_findings(path: str, added: Added) -> Iterator[Finding]:
    for number, text in added.sides:
        yield Finding("conflict-marker", path, number, text)
    if added.sides:
        for number in added.middles:
            yield Finding("conflict-marker", path, number, CONFLICT_MIDDLE)


def content_findings(repo: Repo, entry: Entry, added: Added) -> Iterator[Finding]:
    """What one changed file's whole contents tell: size, parsing, final newline, line ends."""
    size = repo.size(entry.new) or 0
    old_size = repo.size(entry.old) if entry.had else None
    if size > LARGE and (old_size is None or old_size <= LARGE):
        grown = f"grew from {old_size // 1024} KB" if old_size is not None else "new"
        yield Finding("large-file", entry.path, 0, f"{size // 1024} KB ({grown})")
    data = repo.read(entry.new, PARSE_LIMIT)
    if data is None:
        return
    old = parent_contents(repo, entry)
    error = parse_error(entry.path, data)
    if error is not None:
        before = old()
        if before is None or parse_error(entry.path, before) is None:
            yield Finding("parse-error", entry.path, error[0], error[1])
    if b"\0" in data[:8000] or not data:
        return
    if not data.endswith(b"\n"):
        before = old()
        last = data.count(b"\n") + 1
        if before is None:
            yield Finding("no-final-newline", entry.path, last, "new file without a final newline")
        elif before.endswith(b"\n"):
            yield Finding("no-final-newline", entry.path, last, "final newline lost")
    yield from cr_findings(entry, added, old)


def parent_contents(repo: Repo, entry: Entry) -> Callable[[], bytes | None]:
    """The parent's version of `entry` (None when new or too large to parse), read once when
    first asked: most files need only their new version."""
    kept: list[bytes | None] = []

    def contents() -> bytes | None:
        if not kept:
            kept.append(repo.read(entry.old, PARSE_LIMIT) if entry.had else None)
        return kept[0]

    return contents


def cr_findings(entry: Entry, added: Added, old: Callable[[], bytes | None]) -> Iterator[Finding]:
    if not added.cr_lines:
        return
    count, first = len(added.cr_lines), added.cr_lines[0]
    if not entry.had:
        yield Finding("cr-line-ending", entry.path, first, f"new file, {count} lines end in CR")
        return
    before = old()
    if before is not None and b"\r\n" not in before:
        detail = f"{count} added lines end in CR, the parent's file had none"
        yield Finding("cr-line-ending", entry.path, first, detail)


def scratch_findings(repo: Repo, commit: Commit, entries: list[Entry]) -> Iterator[Finding]:
    """Files added under tools' working state, once a kind, unless the parent's history held one."""
    kinds: dict[str, list[str]] = {}
    for entry in entries:
        label = scratch_label(entry.path)
        if label is not None and not entry.had:
            kinds.setdefault(label, []).append(entry.path)
    for label, paths in kinds.items():
        if commit.parent != EMPTY_TREE:
            held = repo.git("log", "-1", "--format=%H", commit.parent, "--", *SCRATCH_SPECS[label])
            if held.strip():
                continue
        detail = f"{len(paths)} file(s) added under {label}, never in the history before"
        yield Finding("scratch-file", paths[0], 0, detail)


def lockfile_findings(repo: Repo, commit: Commit, entry: Entry) -> Iterator[Finding]:
    """Dependencies the manifest declares that this lockfile dropped and its parent named."""
    directory, _, name = entry.path.rpartition("/")
    if name not in LOCK_MANIFEST or not entry.had:
        return
    manifest = f"{directory}/{LOCK_MANIFEST[name]}" if directory else LOCK_MANIFEST[name]
    declared = repo.read(f"{commit.sha}:{manifest}", PARSE_LIMIT)
    new, old = repo.read(entry.new, LOCK_LIMIT), repo.read(entry.old, LOCK_LIMIT)
    if declared is None or new is None or old is None:
        return
    names, python = declared_dependencies(LOCK_MANIFEST[name], declared)
    new_text, old_text = new.decode(errors="replace"), old.decode(errors="replace")
    for dependency in names:
        if mentions(old_text, dependency, python) and not mentions(new_text, dependency, python):
            detail = f"{dependency} declared in {manifest}, named by the parent's lockfile only"
            yield Finding("lockfile-missing-dependency", entry.path, 0, detail)


def review(repo: Repo, commit: Commit, limits: Limits) -> list[Finding]:
    """Everything the checker tells of one commit, against its first parent."""
    entries = changed_files(repo, commit.parent, commit.sha)
    if len(entries) > FILE_CAP:
        print(f"# {repo.name} {commit.sha[:12]} {len(entries)} files, the first {FILE_CAP} read")
        entries = entries[:FILE_CAP]
    readable = [e for e in entries if e.present]
    paths = {e.path for e in readable}
    found = list(check_problems(repo, commit.parent, commit.sha, paths))
    added: dict[str, Added] = {path: Added() for path in paths}
    for path, number, raw in added_lines(repo, commit, paths):
        found.extend(line_findings(path, number, raw, added[path]))
    for entry in readable:
        found.extend(conflict_findings(entry.path, added[entry.path]))
        found.extend(content_findings(repo, entry, added[entry.path]))
        found.extend(lockfile_findings(repo, commit, entry))
    found.extend(subject_findings(repo, commit, limits))
    found.extend(scratch_findings(repo, commit, readable))
    return sorted(set(found), key=order)


def order(finding: Finding) -> tuple[int, str, int]:
    """git's own --check kinds first, then KIND_ORDER; by path and line within a kind."""
    rank = KIND_ORDER.index(finding.kind) if finding.kind in KIND_ORDER else -1
    return rank, finding.path, finding.line


def run(gitdir: Path, count: int, *, each: bool = False) -> None:
    """Every finding of the newest `count` commits; `each`: the subject limits of each commit
    from the BEFORE commits before it (as the review learns them), else from those before the
    sample's oldest."""
    with Repo(gitdir) as repo:
        if each:
            history = commits(repo, 0, count + BEFORE)
            sample = history[:count]
            print(
                f"# {repo.name} {len(sample)} commits; subject limits of each from the "
                f"{BEFORE} commits before it, bots left out"
            )
        else:
            sample = commits(repo, 0, count)
            limits = subject_limits(commits(repo, len(sample), BEFORE))
            print(
                f"# {repo.name} {len(sample)} commits; subject limits from {limits.counted} "
                f"commits before them ({limits.bots} by bots left out): p99 {limits.p99}, "
                f"p98 {limits.p98}"
            )
        for at, commit in enumerate(sample):
            if each:
                limits = subject_limits(history[at + 1 : at + 1 + BEFORE])
            for f in review(repo, commit, limits):
                print(
                    f"{repo.name} {commit.sha[:12]} {f.kind} {clean(f.path)}:{f.line} "
                    f"{clean(f.detail)}"
                )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--commits", type=int, default=250, help="newest non-merge commits")
    parser.add_argument(
        "--each", action="store_true", help="subject limits from the 500 before each commit"
    )
    parser.add_argument("gitdirs", nargs="+", type=Path, metavar="GITDIR")
    args = parser.parse_args(argv)
    for gitdir in args.gitdirs:
        run(gitdir, args.commits, each=args.each)
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
