"""Labelled secret examples nobody on this project tuned on: the test cases of two other
scanners, read from local clones of their repositories at run time, labelled by their own
maintainers' annotations (never by what landwatch says of them).

- semgrep-rules (`generic/secrets/security/`): a `ruleid:` comment marks the line after it as one
  the rule must find (a secret), an `ok:` comment one it must not (not a secret); a private key's
  block runs on to the next blank line.
- secretlint (`packages/@secretlint/secretlint-rule-*/test/snapshots/`): each case's input file
  is one example, a secret when its expected `output.json` holds a message, not a secret when the
  case is an `ok.` one; rules that flag a kind of file rather than a secret (dotenv, home
  directories, Kubernetes Secret manifests) and the presets (copies of the rules' cases) are
  left out.
- whispers (Skyscanner's scanner, the adeptex/whispers fork: `tests/fixtures/`): each fixture's
  `compliant` and `noncompliant` sections cut into one example a line or a multi-line value, by
  bench/whispers_sections.py. Fixtures with no section to label are left out: .npmrc,
  privatekey.pem, privatekeys.json, putty.ppk, runtime.exs, settings.conf, severity.yml,
  page.html, cloudformation.json.template, ast/build.gradle.kts, custom.*, invalid.*, files/*,
  falsepositive/deps.txt and semver.json, and the lines above a code fixture's `compliant`
  function. Its examples fall in two halves by their id's hash, `first` and `untouched` (the
  second measured once, at the end of the issue that added it).

Nothing here is copied into the project: the bench lays the examples out in a scratch
repository, as it does the open benchmark's.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from whispers_sections import labelled_units

SEMGREP_DIR = "generic/secrets/security"
SECRETLINT_DIR = "packages/@secretlint"
WHISPERS_DIR = "tests/fixtures"
WHISPERS_RULES = "whispers/rules"
FIRST, UNTOUCHED, ALL = "first", "untouched", "all"
# secretlint rules that judge a file's kind or a user's own patterns, not a secret's presence.
SECRETLINT_NOT_DETECTORS = frozenset(
    {
        "secretlint-rule-no-dotenv",
        "secretlint-rule-no-homedir",
        "secretlint-rule-no-k8s-kind-secret",
        "secretlint-rule-filter-comments",
        "secretlint-rule-pattern",
        "secretlint-rule-example",
        "secretlint-rule-preset-canary",
        "secretlint-rule-preset-recommend",
    }
)
_ANNOTATION = re.compile(r"^\s*(?:#|//|<!--|--|;|/\*)\s*(ruleid|ok)\s*:", re.IGNORECASE)
_BINARY_SUFFIXES = (".p12", ".pfx", ".der", ".jks", ".keystore", ".png", ".jpg")


@dataclass(frozen=True)
class UnseenExample:
    """One example: where it came from, its text, and its maintainers' label."""

    id: str
    source: str
    rule: str
    path: str  # where the bench lays it out
    text: str
    secret: bool

    @property
    def half(self) -> str:
        """`first` or `untouched`, by the last byte of the sha256 of the id (as the open
        benchmark's halves are drawn)."""
        return FIRST if hashlib.sha256(self.id.encode()).digest()[-1] % 2 == 0 else UNTOUCHED


def git_show(git_dir: Path, path: str) -> bytes:
    return subprocess.run(
        ["git", f"--git-dir={git_dir}", "show", f"HEAD:{path}"],
        capture_output=True,
        check=True,
    ).stdout


def git_files(git_dir: Path, under: str) -> list[str]:
    out = subprocess.run(
        ["git", f"--git-dir={git_dir}", "ls-tree", "-r", "--name-only", "HEAD", "--", under],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return out.splitlines()


def _id(source: str, key: str) -> str:
    return f"{source[:2]}-{hashlib.sha256(key.encode()).hexdigest()[:10]}"


def semgrep_examples(git_dir: Path) -> Iterator[UnseenExample]:
    """Each annotated example of semgrep-rules' secret detectors' test files."""
    for path in git_files(git_dir, SEMGREP_DIR):
        if path.endswith((".yaml", ".yml")) or path.endswith(_BINARY_SUFFIXES):
            continue
        try:
            lines = git_show(git_dir, path).decode("utf-8").splitlines()
        except UnicodeDecodeError:
            continue
        rule = PurePosixPath(path).stem
        suffix = PurePosixPath(path).suffix or ".txt"
        for number, line in enumerate(lines):
            annotation = _ANNOTATION.match(line)
            if annotation is None:
                continue
            block = _annotated_block(lines, number + 1)
            if not block:
                continue
            key = f"{path}:{number + 1}"
            yield UnseenExample(
                id=_id("semgrep", key),
                source="semgrep-rules",
                rule=rule,
                path=f"unseen/semgrep/{rule}/line_{number + 1}{suffix}",
                text="\n".join(block),
                secret=annotation[1].lower() == "ruleid",
            )


def _annotated_block(lines: list[str], start: int) -> list[str]:
    """The line an annotation names, and a private key's whole block after a BEGIN line."""
    while start < len(lines) and _ANNOTATION.match(lines[start]):
        start += 1  # several annotations may stack over one line
    if start >= len(lines) or not lines[start].strip():
        return []
    if "-----BEGIN" not in lines[start]:
        return [lines[start]]
    block = []
    for line in lines[start:]:
        if not line.strip() or _ANNOTATION.match(line):
            break
        block.append(line)
    return block


def secretlint_examples(git_dir: Path) -> Iterator[UnseenExample]:
    """Each `ng.`/`ok.` snapshot case of secretlint's secret rules, its input file whole."""
    files = git_files(git_dir, SECRETLINT_DIR)
    present = set(files)
    for path in files:
        parts = PurePosixPath(path).parts
        # packages/@secretlint/<rule>/test/snapshots/<case>/input.<ext>
        if len(parts) != 7 or parts[3:5] != ("test", "snapshots"):
            continue
        rule, case, name = parts[2], parts[5], parts[6]
        if not rule.startswith("secretlint-rule-") or rule in SECRETLINT_NOT_DETECTORS:
            continue
        if not name.startswith("input") or name.endswith(_BINARY_SUFFIXES):
            continue
        if not case.startswith(("ng.", "ok.")):
            continue
        expected = str(PurePosixPath(*parts[:6], "output.json"))
        if expected not in present:
            continue
        try:
            text = git_show(git_dir, path).decode("utf-8")
            messages = json.loads(git_show(git_dir, expected)).get("messages", [])
        except (UnicodeDecodeError, ValueError):
            continue
        secret = bool(messages)
        if case.startswith("ok.") == secret:
            continue  # a case whose name and expectation disagree: no label to trust
        short = rule.removeprefix("secretlint-rule-")
        yield UnseenExample(
            id=_id("secretlint", path),
            source="secretlint",
            rule=short,
            path=f"unseen/secretlint/{short}/{case}/{name}",
            text=text,
            secret=secret,
        )


def whispers_examples(git_dir: Path) -> Iterator[UnseenExample]:
    """Each labelled unit of whispers' fixtures, laid out under its fixture's own name."""
    for path in git_files(git_dir, WHISPERS_DIR):
        if path.endswith(_BINARY_SUFFIXES):
            continue
        try:
            text = git_show(git_dir, path).decode("utf-8")
        except UnicodeDecodeError:
            continue
        fixture = path.removeprefix(f"{WHISPERS_DIR}/")
        slug = re.sub(r"[^\w-]", "_", fixture)
        for unit in labelled_units(text):
            yield UnseenExample(
                id=_id("whispers", f"{path}:{unit.line}"),
                source="whispers",
                rule=fixture,
                path=f"unseen/whispers/{slug}/{unit.line}/{fixture}",
                text=unit.text,
                secret=unit.secret,
            )


SOURCES: dict[str, Callable[[Path], Iterator[UnseenExample]]] = {
    "semgrep-rules": semgrep_examples,
    "secretlint": secretlint_examples,
    "whispers": whispers_examples,
}


def source_of(git_dir: Path) -> str | None:
    """Which source a clone is, by the folder its examples are in (whispers' by its rules,
    since many projects keep a tests/fixtures folder)."""
    for source, folder in (("semgrep-rules", SEMGREP_DIR), ("secretlint", SECRETLINT_DIR)):
        if git_files(git_dir, folder):
            return source
    if git_files(git_dir, WHISPERS_RULES) and git_files(git_dir, WHISPERS_DIR):
        return "whispers"
    return None


def unseen_examples(git_dirs: list[Path], half: str = ALL) -> tuple[list[UnseenExample], list[str]]:
    """The examples of every clone given (those of one half, or all), and a line for each clone
    that is no known source."""
    examples: list[UnseenExample] = []
    problems: list[str] = []
    for git_dir in git_dirs:
        source = source_of(git_dir)
        if source is None:
            problems.append(f"{git_dir}: not semgrep-rules, secretlint or whispers")
            continue
        examples.extend(e for e in SOURCES[source](git_dir) if half in (ALL, e.half))
    return examples, problems
