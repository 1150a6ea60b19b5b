"""Rules about the patch itself: whitespace, line ends, conflict markers, sizes, syntax, debug
statements, portable paths, modes, submodules and symlinks.

Each says what it catches and what it deliberately lets through (the false positives others hit).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from types import MappingProxyType

from landwatch.lazy_re import lazy_compile
from landwatch.review import documents
from landwatch.review.binary import looks_binary
from landwatch.review.change import (
    MODE_EXECUTABLE,
    MODE_SUBMODULE,
    MODE_SYMLINK,
    Change,
    FileChange,
    FileStatus,
)
from landwatch.review.diffs import Line
from landwatch.review.findings import Finding, Severity
from landwatch.review.rules.base import FileRule, LineRule, Option, Practice, TreeRule
from landwatch.review.rules.debuggers import DebugStatement
from landwatch.review.rules.declared_encoding import (
    DeclaredCharset,
    DeclaredLineEnding,
    declared_line_end,
    line_ends,
)
from landwatch.review.rules.endings import BlankLinesAtEnd, MissingFinalNewline
from landwatch.review.rules.leftovers import LeftoverMarker
from landwatch.review.rules.scratch import ScratchFile


class TrailingWhitespace(LineRule):
    """Spaces or tabs at the end of an added line.

    A Markdown hard line break (exactly two spaces after text) is not whitespace to remove, nor
    is a test's expected output: a snapshot file, a Go raw string in a `_test.go` file, a
    triple-quoted string a Python test compares. Where the file already kept trailing
    whitespace and nothing the project declared trims it, the project lives with it: told at
    info.
    """

    id = "P001"
    precommit_hooks = ("trailing-whitespace",)
    name = "trailing-whitespace"
    example = "x = compute()␠␠   (P001: trailing whitespace; ␠ marks a space)"
    severity = Severity.WARNING
    merged_past = 3
    spares_expected_output = True
    practice = Practice.KEPT_BEFORE
    editorconfig = "trim_trailing_whitespace"
    options = (Option("markdown", ("*.md", "*.markdown"), "files where two spaces break a line"),)

    def check_lines(self, file: FileChange, lines: list[Line]) -> Iterator[Finding]:
        markdown = self._is_markdown(file.path)
        for line in lines:
            if _trails_whitespace(line.raw, markdown):
                yield self.finding("trailing whitespace", path=file.path, line=line)

    def held_in(self, path: str, content: bytes) -> bool:
        markdown = self._is_markdown(path)
        return any(_trails_whitespace(raw, markdown) for raw in content.splitlines())

    def _is_markdown(self, path: str) -> bool:
        return any(path.endswith(pattern.lstrip("*")) for pattern in self.option("markdown"))


def _trails_whitespace(raw: bytes, markdown: bool) -> bool:
    """Whether a line (without its line end) ends in whitespace to remove: in Markdown, exactly
    two spaces after text are a hard line break, not whitespace."""
    if not raw.endswith((b" ", b"\t")):
        return False
    return not (markdown and raw.endswith(b"  ") and not raw.endswith(b"   ") and raw.strip())


class MixedLineEndings(FileRule):
    """A file that now mixes LF, CRLF or CR line ends (read from the raw bytes); a file that was
    mixed before the change is not reported again, nor one whose line end the project declared
    (P014 says which lines are not as declared)."""

    id = "P003"
    precommit_hooks = ("mixed-line-ending",)
    name = "mixed-line-endings"
    example = "a file with both CRLF and LF line ends after the change"
    severity = Severity.WARNING

    def check_file(self, file: FileChange, content: bytes) -> Iterator[Finding]:
        if looks_binary(content):
            return
        now = line_ends(content)
        if len(now) < 2:
            return
        old = file.old_content()
        if old is not None and len(line_ends(old)) > 1:
            return
        if declared_line_end(file) is not None:
            return
        yield self.finding(
            f"mixed line endings ({', '.join(sorted(now))})",
            path=file.path,
            content=",".join(sorted(now)),
        )


_CONFLICT = lazy_compile(rb"^(<{7}|>{7})(?: |$)")
_SEPARATOR = lazy_compile(rb"^(={7}|\|{7})(?: |$)")


class ConflictMarkers(LineRule):
    """Merge conflict markers on added lines. A `=======` line counts only when the file's added
    lines also hold a `<<<<<<<` or `>>>>>>>` marker: reStructuredText underlines are not conflicts.
    """

    id = "P004"
    precommit_hooks = ("check-merge-conflict",)
    name = "conflict-markers"
    example = "<<<<<<< HEAD\nvalue = 1\n=======\nvalue = 2\n>>>>>>> topic"
    severity = Severity.ERROR
    refuses_push = True

    def check_lines(self, file: FileChange, lines: list[Line]) -> Iterator[Finding]:
        outer = [
            line for line in lines if line.raw[:1] in (b"<", b">") and _CONFLICT.match(line.raw)
        ]
        if not outer:
            return
        separators = [
            line for line in lines if line.raw[:1] in (b"=", b"|") and _SEPARATOR.match(line.raw)
        ]
        for line in sorted(outer + separators, key=lambda line: line.number):
            yield self.finding("merge conflict marker", path=file.path, line=line)


class LargeFile(TreeRule):
    """A file added past a size, or grown past it; files stored in Git LFS (filter=lfs) are
    exempt, and so are those a project keeps whole as a tool wrote them (generated, vendored): a
    weekly generated list of 1.3 MB is there by design. A text file already past the size is
    told again only when it grows by more than the size itself: its being large is not this
    change's doing, and git keeps the new version as a delta (pre-commit's
    check-added-large-files looks at added files alone). A binary one's every new version is
    another large blob in the history for good, and is told."""

    id = "P005"
    precommit_hooks = ("check-added-large-files",)
    name = "large-file"
    example = "data/dump.sql added at 12.4 MB (limit 500 KB; consider Git LFS)"
    severity = Severity.WARNING
    options = (Option("max_kb", 500, "the size in KB past which a file is large"),)
    skips_tool_output = True

    def check_tree(self, change: Change, files: list[FileChange]) -> Iterator[Finding]:
        limit = self.option("max_kb") * 1024
        for file in files:
            if file.deleted or file.is_submodule or file.new_size <= limit:
                continue
            if (
                file.status is not FileStatus.ADDED
                and file.old_size > limit
                and file.new_size - file.old_size <= limit
                and file.read_as_text
            ):
                continue  # large text before, not grown by a large file's worth
            if change.attribute(file.path, "filter") == "lfs":
                continue
            size = file.new_size / 1024
            shown = f"{size / 1024:.1f} MB" if size >= 1024 else f"{size:.0f} KB"
            verb = "added" if file.status is FileStatus.ADDED else "grown to"
            yield self.finding(
                f"large file {verb} {shown} (limit {self.option('max_kb')} KB; consider Git LFS)",
                path=file.path,
                content=file.new_id or "",
            )


class SyntaxErrorRule(FileRule):
    """A changed JSON, TOML, YAML or Python file that no longer parses (one that did not parse
    before the change either is not reported again). Python is parsed as the reviewer's Python
    understands it. JSON is read as the tool that reads the file does: comments and trailing
    commas where VS Code, dev containers, TypeScript, Biome, Deno, Turborepo, oxlint, oxfmt and
    swc take them (tsconfig*.json, .vscode/*.json, biome.json, deno.json, turbo.json,
    .oxlintrc.json, .oxfmtrc.json, .swcrc, *.jsonc, ...); comments but no trailing comma in
    .eslintrc.json and tslint.json; neither in package.json, package-lock.json and
    composer.json. Any other .json holding a comment outside its strings is read as JSON with
    comments, where a trailing comma is still an error, and a comment never closed is one.
    TOML forbids a key twice: that is a syntax error too, as a YAML tag is in the files GitHub
    Actions reads (`if: !cancelled()` where `${{ !cancelled() }}` was meant)."""

    id = "P006"
    precommit_hooks = ("check-json", "check-yaml", "check-toml", "check-ast")
    # Each hook checks one language: a project that keeps a file out of check-ast has said
    # nothing of its JSON (pre-commit-hooks' manifest types each by identify's tags).
    precommit_files = MappingProxyType(
        {
            "check-json": ("*.json",),
            "check-yaml": ("*.yaml", "*.yml"),
            "check-toml": ("*.toml",),
            "check-ast": ("*.py", "*.pyi"),
        }
    )
    name = "syntax-error"
    example = "settings.json: JSON syntax error: Expecting property name enclosed in double quotes"
    severity = Severity.ERROR
    applies_to = documents.SYNTAX_CHECKED

    def check_file(self, file: FileChange, content: bytes) -> Iterator[Finding]:
        check = documents.syntax_check(file.path)
        if check is None:
            return
        language, parse = check
        error = parse(content)
        if error is None:
            return
        if error is documents.NESTED:
            # Not silence: the review notes this file's syntax as unchecked (checking.guarded).
            raise documents.NestedTooDeep(f"{language} {error[1]}")
        old = file.old_content()
        if old is not None and parse(old) is not None:
            return
        number, message = error
        yield self.finding(
            f"{language} syntax error: {message.splitlines()[0][:200]}",
            path=file.path,
            number=number,
            content=message,
        )


class DuplicateKey(FileRule):
    """A key given twice in one JSON or YAML mapping: the parser keeps the last and silently
    drops the other (a CI file's `matrix:` twice runs half the matrix). JSON with comments is
    read as such; TOML forbids it outright (P006). A duplicate that was there before the change
    is not reported again."""

    id = "P012"
    name = "duplicate-key"
    example = "jobs.test.strategy: `matrix` given twice (line 14); the first is dropped"
    severity = Severity.WARNING
    applies_to = ("*.json", "*.jsonc", "*.yaml", "*.yml")

    def check_file(self, file: FileChange, content: bytes) -> Iterator[Finding]:
        find = documents.duplicate_key_finder(file.path)
        if find is None:
            return
        found = find(content)
        if not found:
            return
        old = file.old_content()
        before = {key for key, _ in find(old)} if old is not None else set()
        for key, number in found:
            if key in before:
                continue
            yield self.finding(
                f"key {key[:80]!r} given twice in one mapping; all but the last are dropped",
                path=file.path,
                number=number,
                content=key,
            )


_WINDOWS_RESERVED = lazy_compile(r"^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$", re.I)
_WINDOWS_CHARACTERS = lazy_compile(r'[<>:"\\|?*\x00-\x1f]')


class PortablePaths(TreeRule):
    """Added paths that clash by case with another path of the tree (they collide on macOS and
    Windows), or that Windows cannot hold (CON, NUL..., <>:"|?*\\, a trailing dot or space)."""

    id = "P008"
    precommit_hooks = ("check-case-conflict", "check-illegal-windows-names")
    name = "portable-paths"
    example = "docs/Readme.md added beside docs/README.md; aux.c (reserved on Windows)"
    severity = Severity.WARNING

    def check_tree(self, change: Change, files: list[FileChange]) -> Iterator[Finding]:
        new_paths = (FileStatus.ADDED, FileStatus.RENAMED, FileStatus.COPIED)
        added = [file.path for file in files if file.status in new_paths]
        if not added:
            return
        for path in added:
            for part in path.split("/"):
                if (
                    _WINDOWS_RESERVED.match(part)
                    or _WINDOWS_CHARACTERS.search(part)
                    or part.endswith((".", " "))
                ):
                    yield self.finding(
                        f"Windows cannot hold the name {part!r}", path=path, content=part
                    )
                    break
        folded: dict[str, set[str]] = {}
        for path in change.tree_paths():
            folded.setdefault(path.casefold(), set()).add(path)
        reported = set()
        for path in added:
            prefix = ""
            for part in path.split("/"):
                prefix = f"{prefix}/{part}" if prefix else part
                twins = folded.get(prefix.casefold(), set())
                if len(twins) > 1 and prefix.casefold() not in reported:
                    reported.add(prefix.casefold())
                    others = ", ".join(sorted(twins - {prefix}))
                    yield self.finding(
                        f"clashes by case with {others}", path=path, content=prefix.casefold()
                    )


class ExecutableShebang(TreeRule):
    """An executable file that does not start with `#!`, or a script starting with `#!` that is
    not executable (checked on files added or whose mode changed; binaries are left alone)."""

    id = "P009"
    precommit_hooks = ("check-executables-have-shebangs", "check-shebang-scripts-are-executable")
    name = "executable-shebang"
    example = "scripts/deploy.sh starts with #! but is not executable"
    severity = Severity.INFO

    def check_tree(self, change: Change, files: list[FileChange]) -> Iterator[Finding]:
        for file in files:
            if file.deleted or file.is_symlink or file.is_submodule:
                continue
            if file.status is not FileStatus.ADDED and file.old_mode == file.new_mode:
                continue
            content = file.new_content()
            if content is None or looks_binary(content):
                continue
            shebang = content.startswith(b"#!")
            if file.new_mode == MODE_EXECUTABLE and not shebang:
                yield self.finding("executable but has no #! line", path=file.path, content="exec")
            elif file.new_mode != MODE_EXECUTABLE and shebang:
                yield self.finding(
                    "starts with #! but is not executable", path=file.path, content="shebang"
                )


class NewSubmodule(TreeRule):
    """A submodule added to the tree."""

    id = "P010"
    precommit_hooks = ("forbid-new-submodules", "forbid-submodules")
    name = "new-submodule"
    example = "lib/vendored added as a submodule"
    severity = Severity.WARNING

    def check_tree(self, change: Change, files: list[FileChange]) -> Iterable[Finding]:
        return [
            self.finding("new submodule", path=file.path, content=file.new_id or "")
            for file in files
            if file.new_mode == MODE_SUBMODULE and file.old_mode != MODE_SUBMODULE
        ]


class SymlinkBecameFile(TreeRule):
    """A symlink replaced by a regular file, typically by a checkout without symlink support
    (the file then holds the link's target path)."""

    id = "P011"
    precommit_hooks = ("destroyed-symlinks",)
    name = "symlink-became-file"
    example = 'config/current, a symlink, became a file holding "config/prod.ini"'
    severity = Severity.WARNING

    def check_tree(self, change: Change, files: list[FileChange]) -> Iterator[Finding]:
        for file in files:
            if file.old_mode != MODE_SYMLINK or file.new_mode in (MODE_SYMLINK, 0):
                continue
            old, new = file.old_content(), file.new_content()
            same = old is not None and new is not None and new.strip() == old.strip()
            detail = " holding its old target" if same else ""
            yield self.finding(
                f"a symlink became a regular file{detail}", path=file.path, content=file.path
            )


RULES = [
    TrailingWhitespace,
    MissingFinalNewline,
    MixedLineEndings,
    ConflictMarkers,
    LargeFile,
    SyntaxErrorRule,
    DebugStatement,
    PortablePaths,
    ExecutableShebang,
    NewSubmodule,
    SymlinkBecameFile,
    DuplicateKey,
    BlankLinesAtEnd,
    DeclaredLineEnding,
    DeclaredCharset,
    LeftoverMarker,
    ScratchFile,
]
