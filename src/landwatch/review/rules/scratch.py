"""Files that do not belong in any commit (P017): tools' working state, added where the project
never held it. An agent's plans and notes, an editor's swap and backup files, an IDE's personal
workspace, a merge's leftovers, an operating system's folder metadata.

The list is github/gitignore's Global templates (the maintained list of what tools leave in a
working tree; identify, which types files for pre-commit, has no such tag): Agents, Claude,
Vim, Emacs, JetBrains, VisualStudioCode, Patch, macOS, Windows and Linux, taking only what each
template ignores outright (what it leaves commented out, `.claude/settings.json`, `.cursor/`,
`.aiderignore`, is meant to be shared). Two more, named in `KINDS`: `.sisyphus/`, where the
Sisyphus agent of oh-my-opencode keeps its plans, and git mergetool's `_BACKUP_` files.

Whether the project held one is asked of the tree before the change and of at most
`MAX_ANCESTORS` commits before it, a path looked up in each tree: bounded, and only when a
change adds such a file. The author's own commits not pushed yet are not the project's history
(review.precedent reads them the same way): a second accidental commit before a push is told.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache, cached_property

import pygit2

from landwatch.review.change import Change, FileChange, FileStatus
from landwatch.review.findings import Finding, Severity
from landwatch.review.generated import LONGEST_LINE, glob_regex
from landwatch.review.precedent import unpushed_commits
from landwatch.review.regexes import MOST_PATTERNS, RegexError, SafePattern, compile_safe
from landwatch.review.rules.base import TreeRule
from landwatch.text import listed, plural

# How many commits before the change are looked through for a place the project held.
MAX_ANCESTORS = 1000
# How many `.gitignore` files, from the root down, are read for a path kept on purpose.
_MOST_IGNORE_FILES = 64
_SHOWN = 3

_AGENT = "an agent's working files"
_EDITOR = "an editor's swap or backup file"
_IDE = "an IDE's personal workspace"
_MERGE = "a merge's leftovers"
_SYSTEM = "an operating system's folder metadata"


@dataclass(frozen=True)
class Kind:
    """One kind of tools' working state: a gitignore glob matched at any depth (ending in `/`:
    a directory, everything under it), and what it is."""

    glob: str
    what: str

    @property
    def directory(self) -> bool:
        return self.glob.endswith("/")

    @cached_property
    def itself(self) -> re.Pattern[str]:
        """The directory's path, or the file's."""
        return re.compile(glob_regex("**/" + self.glob.rstrip("/"), ""))

    @cached_property
    def under(self) -> re.Pattern[str]:
        """A path of the kind: the file, or any file under the directory."""
        return re.compile(self.under_regex)

    @property
    def under_regex(self) -> str:
        body = self.glob.rstrip("/") + ("/**" if self.directory else "")
        return glob_regex("**/" + body, "")

    def place(self, path: str) -> str | None:
        """What of `path` is of this kind (its directory of this kind, outermost; the file
        itself), or None."""
        if not self.under.match(path):
            return None
        if not self.directory:
            return path
        parts = path.split("/")
        for end in range(1, len(parts)):
            prefix = "/".join(parts[:end])
            if self.itself.match(prefix):
                return prefix
        return None


KINDS: tuple[Kind, ...] = (
    # Agents.gitignore and Claude.gitignore: what the agents write for one person alone.
    Kind(".aider.input.history", _AGENT),
    Kind(".aider.chat.history.md", _AGENT),
    Kind(".aider.llm.history", _AGENT),
    Kind(".aider.tags.cache.v*/", _AGENT),
    Kind(".claude/*.local.json", _AGENT),
    Kind(".claude/worktrees/", _AGENT),
    Kind(".claude/agent-memory-local/", _AGENT),
    Kind("CLAUDE.local.md", _AGENT),
    Kind("gemini-debug.log", _AGENT),
    Kind(".gemini-clipboard/", _AGENT),
    # Not in the templates: oh-my-opencode's Sisyphus agent keeps plans, drafts and notepads here
    # (the accident of issue 42: 734 lines of plans committed, removed the next commit).
    Kind(".sisyphus/", _AGENT),
    # Vim.gitignore (its swap files; not its broad `[._]*.s[a-v][a-z]`, which needs `!*.svg`),
    # Emacs.gitignore, VisualStudioCode.gitignore's Local History.
    Kind("*.swp", _EDITOR),
    Kind("[._]*.sw[a-p]", _EDITOR),
    Kind("[._]sw[a-p]", _EDITOR),
    Kind("[._]*.un~", _EDITOR),
    Kind("Session.vim", _EDITOR),
    Kind("Sessionx.vim", _EDITOR),
    Kind(".netrwhist", _EDITOR),
    Kind("*~", _EDITOR),
    Kind("#*#", _EDITOR),
    Kind(".#*", _EDITOR),
    Kind(".history/", _EDITOR),
    # JetBrains.gitignore: the user-specific files of `.idea/`; the rest of it may be shared.
    Kind(".idea/**/workspace.xml", _IDE),
    Kind(".idea/**/tasks.xml", _IDE),
    Kind(".idea/**/usage.statistics.xml", _IDE),
    Kind(".idea/**/shelf/", _IDE),
    # Patch.gitignore; git mergetool's copies (`name_BACKUP_1234.c`, keepBackup), not in it.
    Kind("*.orig", _MERGE),
    Kind("*.rej", _MERGE),
    Kind("*_BACKUP_[0-9]*", _MERGE),
    Kind("*_BASE_[0-9]*", _MERGE),
    Kind("*_LOCAL_[0-9]*", _MERGE),
    Kind("*_REMOTE_[0-9]*", _MERGE),
    # macOS.gitignore, Windows.gitignore, Linux.gitignore.
    Kind(".DS_Store", _SYSTEM),
    Kind(".AppleDouble/", _SYSTEM),
    Kind(".LSOverride", _SYSTEM),
    Kind("._*", _SYSTEM),
    Kind(".Spotlight-V100/", _SYSTEM),
    Kind(".Trashes/", _SYSTEM),
    Kind(".fseventsd/", _SYSTEM),
    Kind(".TemporaryItems/", _SYSTEM),
    Kind(".apdisk", _SYSTEM),
    Kind("Thumbs.db", _SYSTEM),
    Kind("Thumbs.db:encryptable", _SYSTEM),
    Kind("ehthumbs.db", _SYSTEM),
    Kind("ehthumbs_vista.db", _SYSTEM),
    Kind("[Dd]esktop.ini", _SYSTEM),
    Kind("$RECYCLE.BIN/", _SYSTEM),
    Kind(".directory", _SYSTEM),
    Kind(".fuse_hidden*", _SYSTEM),
    Kind(".Trash-*/", _SYSTEM),
    Kind(".nfs*", _SYSTEM),
)


# Where glob_regex starts every `**/` glob: any depth.
_ANY_DEPTH = "^(?:.*/)?"


@cache
def _any() -> re.Pattern[str]:
    """Every kind at once: a path of none of them costs one match. Compiled at the first
    review that asks, not at import (each kind's own pattern only where a path is of it)."""
    bodies = (kind.under_regex.removeprefix(_ANY_DEPTH).removesuffix("$") for kind in KINDS)
    return re.compile(_ANY_DEPTH + "(?:" + "|".join(bodies) + ")$")  # one prefix: 40% faster


def scratch_places(paths: list[str]) -> dict[str, tuple[Kind, list[str]]]:
    """The places of tools' working state among `paths` (a directory of that kind, or a file),
    each with its kind and the paths under it."""
    places: dict[str, tuple[Kind, list[str]]] = {}
    for path in paths:
        if not _any().match(path):
            continue
        for kind in KINDS:
            place = kind.place(path)
            if place is not None:
                places.setdefault(place, (kind, []))[1].append(path)
                break
    return places


class ScratchFile(TreeRule):
    """A file added under tools' working state: an agent's plans and notes (`.sisyphus/`,
    Aider's histories, `.claude/settings.local.json`), an editor's swap or backup file (`*.swp`,
    `*~`), an IDE's personal workspace (`.idea/workspace.xml`), a merge's leftovers (`*.orig`,
    `*.rej`), an operating system's folder metadata (`.DS_Store`, `Thumbs.db`). Told once per
    commit, naming them all, and no other rule's finding in them is reported (a secret's still
    is): what matters is that they do not belong.

    Lets through: a place the project held before (in the tree before the change or in the
    1,000 commits before it, not counting the author's own not pushed yet; for a kind of file,
    one anywhere in the tree the change did not add), one its `.gitignore` names as kept
    (`!.sisyphus/`), and what the tools' own templates say is shared (`.claude/settings.json`,
    `.claude/commands/`, `.cursor/rules`).
    """

    id = "P017"
    name = "scratch-file"
    example = (
        "tools' working state added, which the project never held: an agent's working files "
        "(.sisyphus/ (3 files))"
    )
    severity = Severity.WARNING

    def check_tree(self, change: Change, files: list[FileChange]) -> Iterator[Finding]:
        added = [file.path for file in files if file.status is FileStatus.ADDED]
        places = scratch_places(added)
        if not places:
            return
        kept = KeptPaths(change)
        places = {
            place: found
            for place, found in places.items()
            if not any(kept.names(path) for path in found[1])
        }
        held = held_before(change, places, set(added))
        told = {place: found for place, found in places.items() if place not in held}
        if not told:
            return
        by_what: dict[str, list[str]] = {}
        for place, (kind, paths) in told.items():
            named = f"{place}/ ({plural(len(paths), 'file')})" if kind.directory else place
            by_what.setdefault(kind.what, []).append(named)
        shown = "; ".join(f"{what} ({listed(named, _SHOWN)})" for what, named in by_what.items())
        covered = sorted(path for _, paths in told.values() for path in paths)
        finding = self.finding(
            f"tools' working state added, which the project never held: {shown}",
            path=covered[0],
            content=" ".join(sorted(told)),
        )
        finding.covers = tuple(covered)
        yield finding


def held_before(
    change: Change, places: dict[str, tuple[Kind, list[str]]], added: set[str]
) -> set[str]:
    """The places the project held before `change`: a file of the same kind the change did not
    add anywhere in its tree, or the place itself in the tree of one of the MAX_ANCESTORS
    commits before it, the author's own not pushed yet left out where a remote is tracked."""
    held: set[str] = set()
    kinds = {kind for kind, _ in places.values() if not kind.directory}
    if kinds:
        for path in change.tree_paths():
            if path in added or not _any().match(path):
                continue
            for place, (kind, _) in places.items():
                if kind in kinds and kind.place(path) == path:
                    held.add(place)
    remaining = set(places) - held
    start = change.base or (change.commit.parents[0] if change.commit.parents else None)
    if not remaining or start is None:
        return held
    last: pygit2.Oid | None = None
    # The author's own commits not pushed yet are not the project's: the commit before that
    # added the place was told, and this one adds to it.
    own = unpushed_commits(change.repo, start.id, most=MAX_ANCESTORS) or set()
    # Children before parents, newest first: the bound keeps the nearest history.
    walker = change.repo.walk(
        start.id, pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.TIME
    )
    for seen, commit in enumerate(walker):
        if seen >= MAX_ANCESTORS or not remaining:
            break
        if commit.id in own or commit.tree_id == last:
            continue
        last = commit.tree_id
        tree = commit.tree
        for place in [place for place in remaining if place in tree]:
            remaining.discard(place)
            held.add(place)
    return held


class KeptPaths:
    """What the landed tree's `.gitignore` files name as kept (`!pattern`), as git reads their
    patterns (through RE2: a repository's pattern runs in time linear in the path)."""

    def __init__(self, change: Change) -> None:
        self._change = change
        self._read: dict[str, list[SafePattern]] = {}
        self._patterns = 0  # read of every file together, at most MOST_PATTERNS

    def _negations(self, directory: str) -> list[SafePattern]:
        if directory not in self._read:
            patterns: list[SafePattern] = []
            if len(self._read) < _MOST_IGNORE_FILES:
                data = self._change.file_at(f"{directory}.gitignore")
                for raw in (data or b"").decode("utf-8", "replace").splitlines():
                    if self._patterns + len(patterns) == MOST_PATTERNS:
                        break  # a hostile tree's: each is a search of every path asked of
                    line = raw.strip() if len(raw) <= LONGEST_LINE else ""
                    if line.startswith("!") and len(line) > 1:
                        try:
                            patterns.append(compile_safe(glob_regex(line[1:], directory)))
                        except RegexError:
                            continue  # a pattern git would not read either keeps nothing
            self._read[directory] = patterns
            self._patterns += len(patterns)
        return self._read[directory]

    def names(self, path: str) -> bool:
        """Whether a `.gitignore` from the root down to `path` keeps it or a directory above."""
        parts = path.split("/")
        for depth in range(len(parts)):
            directory = "".join(f"{part}/" for part in parts[:depth])
            negations = self._negations(directory)
            for end in range(depth + 1, len(parts) + 1):
                target = "/".join(parts[:end])
                if any(pattern.search(target) for pattern in negations):
                    return True
        return False
