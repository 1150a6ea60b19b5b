"""Rules about the commit message: subject and body shape, work left in progress, conventions.

Each says what it catches and what it deliberately lets through (the false positives others hit).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from landwatch.lazy_re import lazy_compile
from landwatch.review.findings import Finding, Severity
from landwatch.review.message import Message
from landwatch.review.rules.base import Learned, MessageRule, Option

_URL = lazy_compile(r"[A-Za-z][A-Za-z0-9+.-]*://\S+")
# Wrapping cannot shorten a line that is only a URL, however it is dressed (a Markdown
# reference, a list item, angle brackets).
_URL_LINE = lazy_compile(r"^\s*(?:[-*]\s+|\[[^\]]*\]:?\s*)?<?[A-Za-z][A-Za-z0-9+.-]*://\S+>?\s*$")


def _blank(line: str) -> bool:
    return not line.strip()


class SubjectLength(MessageRule):
    """A subject line longer than the limit, counted in characters (not bytes, so accented and
    CJK subjects are not penalised for their encoding)."""

    id = "M001"
    name = "subject-length"
    severity = Severity.WARNING
    options = (Option("max_length", 72, "the longest subject, in characters"),)
    learned = Learned(
        "subject_limit",
        "subjects up to {value} characters, as the project keeps them ({id})",
        option="max_length",
    )
    example = "Add retries with exponential backoff and jitter to every fetch the sync client makes"

    def check_message(self, message: Message) -> Iterator[Finding]:
        subject = message.subject.rstrip()
        limit = self.option("max_length")
        if len(subject) > limit:
            yield self.finding(
                f"subject is {len(subject)} characters (limit {limit})",
                number=1,
                content=subject,
                snippet=subject,
            )


class BlankLineAfterSubject(MessageRule):
    """A multi-line message whose second line is not blank, so tools read the first paragraph as
    one long subject. A second line of only whitespace counts as blank, as it does for git."""

    id = "M002"
    name = "blank-line-after-subject"
    severity = Severity.WARNING
    example = "Fix the parser\nIt dropped the last token."

    def check_message(self, message: Message) -> Iterator[Finding]:
        lines = message.lines
        if len(lines) > 1 and not _blank(lines[1]):
            yield self.finding(
                "no blank line between the subject and the body",
                number=2,
                content=lines[1],
                snippet=lines[1],
            )


class BodyLineLength(MessageRule):
    """Body lines longer than the limit, in characters.

    Lets through what cannot be wrapped: a line that is only a URL (bare, in angle brackets, a
    list item or a Markdown reference), a line holding a URL longer than the limit by itself,
    `Key: value` lines of the last paragraph (trailers), and lines indented by four spaces or a
    tab (quoted code, logs and tracebacks).
    """

    id = "M003"
    name = "body-line-length"
    severity = Severity.INFO
    options = (Option("max_length", 100, "the longest body line, in characters"),)
    example = (
        "Fix the fetcher\n\n"
        "Retry the fetch when the server answers 503: the load balancer drains its nodes "
        "one by one during deploys."
    )

    def check_message(self, message: Message) -> Iterator[Finding]:
        limit = self.option("max_length")
        lines = message.lines
        for index in range(1, len(lines)):
            line = lines[index].rstrip()
            if len(line) <= limit:
                continue
            if line.startswith(("    ", "\t")) or _URL_LINE.match(line):
                continue
            if any(len(url) > limit for url in _URL.findall(line)):
                continue
            if message.trailer(index) is not None:
                continue
            yield self.finding(
                f"body line is {len(line)} characters (limit {limit})",
                number=index + 1,
                content=line,
                snippet=line,
            )


# Words, names and paths that merely contain wip (`wipe`, `wip-branch`, `docs/wip/`) say nothing
# about the commit being unfinished; `WIP:`, `[wip]` and `still WIP.` do.
_WIP = lazy_compile(r"(?<![\w/.-])wip(?![\w/-]|\.\w)", re.IGNORECASE)


class WorkInProgress(MessageRule):
    """A commit that says it is not finished: a `fixup!`, `squash!` or `amend!` subject meant for
    `git rebase --autosquash`, or the word WIP in the subject (whole word, any case; `wipe` and
    `wip-branch` are not it). The body is not read: it may well explain what WIP was."""

    id = "M004"
    name = "work-in-progress"
    severity = Severity.WARNING
    # The engine skips message rules for fixup and squash commits; this one is about them.
    runs_on_fixups = True
    example = "fixup! Parse the config once"

    def check_message(self, message: Message) -> Iterator[Finding]:
        subject = message.subject
        prefix = message.autosquash
        if prefix is not None:
            yield self.finding(
                f"{prefix.strip()} commit landed (meant to be squashed by rebase --autosquash)",
                number=1,
                content=subject,
                snippet=subject,
            )
            return
        if _WIP.search(subject):
            yield self.finding(
                "subject marks the work as in progress (WIP)",
                number=1,
                content=subject,
                snippet=subject,
            )


_CONVENTIONAL = lazy_compile(
    r"^(?P<type>[A-Za-z][A-Za-z0-9-]*)(?:\((?P<scope>[^()]*)\))?(?P<breaking>!)?:(?P<rest>.*)$"
)

# Subjects git, GitHub or a release writes, which no one types to a convention; commitlint
# leaves them alone by default (@commitlint/is-ignored: merges, reverts, autosquash markers, a
# version alone), and so does M005, with GitHub's "Merge commit from fork" (a security
# advisory's merge), git's `Reapply "..."` and a version after a release word (`Bumped v5.8.0`,
# `Release 2.1.0`). Whether a project writes Conventional Commits is not read from them either.
_RELEASE = (
    r"(?:chore(?:\([^)]*\))?: ?|(?:Bump(?:ed)?|Release[ds]?|Version|Prepare(?: release)?) )?"
    r"[=v]?\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?\s*$"
)
_WRITTEN_BY_TOOLS = lazy_compile(
    r"^(?:Merge (?:pull request|branch|tag|commit|remote-tracking branch)\b|Merge .*? into "
    r"|Merged (?:.*?(?:in|into) |PR )|Automatic merge|Auto-merged .*? into |[Rr]evert |Reapply \""
    rf"|(?:amend|fixup|squash)!|{_RELEASE})"
)
_RELEASE_SUBJECT = lazy_compile(_RELEASE)


def written_by_tools(subject: str) -> bool:
    """Whether git, GitHub or a release tool wrote `subject` (a merge, a revert, an autosquash
    marker, a version), so that no convention of the project's applies to it."""
    return _WRITTEN_BY_TOOLS.match(subject.rstrip()) is not None


def release_subject(subject: str) -> bool:
    """Whether `subject` is one a release writes: a version, alone or after a release word
    (`v5.8.0`, `Release 2.1.0`, `chore: 1.4.0`)."""
    return _RELEASE_SUBJECT.match(subject.rstrip()) is not None


def conventional_type(subject: str) -> str | None:
    """The type a subject written as `type(scope): description` gives, in lower case (as the
    specification reads it case-insensitively), known or not; None for any other subject."""
    match = _CONVENTIONAL.match(subject)
    return match["type"].lower() if match is not None else None


class ConventionalCommits(MessageRule):
    """A subject that is not `type(scope)!: description` with a known type (case-insensitive, as
    the specification asks), a non-empty scope when parentheses are given, a space after the
    colon and a non-empty description. Only the subject is read: footers are free-form here.
    Subjects git, GitHub or a release tool writes (merges, reverts, a version alone or after
    `Bumped`/`Release`) are left alone, as commitlint leaves them by default."""

    id = "M005"
    name = "conventional-commits"
    severity = Severity.OFF
    learned = Learned(
        "writes_conventional_commits",
        "Conventional Commits ({id}), as the project writes them",
        widens=("conventional_types", "types"),
    )
    options = (
        Option(
            "types",
            (
                "build",
                "chore",
                "ci",
                "docs",
                "feat",
                "fix",
                "perf",
                "refactor",
                "revert",
                "style",
                "test",
            ),
            "the allowed types",
        ),
    )
    example = "Fixed the login redirect"

    def check_message(self, message: Message) -> Iterator[Finding]:
        subject = message.subject.rstrip()
        if written_by_tools(subject):
            return
        problem = self.problem(subject)
        if problem is not None:
            yield self.finding(problem, number=1, content=subject, snippet=subject)

    def problem(self, subject: str) -> str | None:
        types = [kind.lower() for kind in self.option("types")]
        match = _CONVENTIONAL.match(subject)
        if match is None:
            return "subject is not a conventional commit (type(scope): description)"
        if match["type"].lower() not in types:
            return f"unknown conventional commit type {match['type']!r} ({', '.join(types)})"
        if match["scope"] is not None and not match["scope"].strip():
            return "empty conventional commit scope ()"
        rest = match["rest"]
        if not rest.strip():
            return "conventional commit has no description after the colon"
        if not rest.startswith(" "):
            return "conventional commit needs a space after the colon"
        return None


_SIGNED_OFF = lazy_compile(r"^signed-off-by\s*:\s*(.*?)\s*$", re.IGNORECASE)
_EMAIL = lazy_compile(r"<([^<>]*)>")


class SignedOffBy(MessageRule):
    """No `Signed-off-by:` trailer (the Developer Certificate of Origin), or only ones for someone
    other than the author. The trailer is looked for in the last paragraph, case-insensitively;
    any sign-off matching the author's email is enough, whoever else signed off too."""

    id = "M006"
    name = "signed-off-by"
    severity = Severity.OFF
    learned = Learned("signs_off", "Signed-off-by trailers ({id}), as the project writes them")
    example = "Fix the parser\n\nIt dropped the last token."

    def check_message(self, message: Message) -> Iterator[Finding]:
        lines = message.lines
        signed: list[tuple[int, str]] = []
        for index in message.last_paragraph:
            match = _SIGNED_OFF.match(lines[index])
            if match is not None:
                signed.append((index + 1, match[1]))
        if not signed:
            yield self.finding("no Signed-off-by trailer", content="missing")
            return
        author = message.author_email.strip().casefold()
        if not author or any(self.email(value) == author for _, value in signed):
            return
        number, value = signed[0]
        yield self.finding(
            f"Signed-off-by is for {value}, not the author <{message.author_email}>",
            number=number,
            content=value,
            snippet=lines[number - 1],
        )

    @staticmethod
    def email(value: str) -> str:
        match = _EMAIL.search(value)
        return (match[1] if match else value).strip().casefold()


RULES = [
    SubjectLength,
    BlankLineAfterSubject,
    BodyLineLength,
    WorkInProgress,
    ConventionalCommits,
    SignedOffBy,
]
