"""What bench/independent_pass.py looks for in one file's bytes or one added line, written apart
from landwatch (standard library and PyYAML only) to find what landwatch's review misses.

Every check here is a candidate finder for a human labeller: it errs on the side of telling.
"""

from __future__ import annotations

import json
import math
import re
import tomllib
import unicodedata
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

import yaml


@dataclass(frozen=True)
class Finding:
    """One problem the checker tells: its kind, where, and what (repository text, not cleaned)."""

    kind: str
    path: str
    line: int
    detail: str


# Well-known token shapes (GitHub, AWS, Slack, Stripe, GitLab, Google, npm, Hugging Face), each
# starting at a word boundary so that a base64 run does not end up holding one by chance.
TOKEN = re.compile(
    r"(?<![A-Za-z0-9_])(?:gh[po]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,}"
    r"|AKIA[0-9A-Z]{16}(?![0-9A-Z])|xox[abprs]-[A-Za-z0-9-]{10,}|sk_live_[A-Za-z0-9]{16,}"
    r"|glpat-[A-Za-z0-9_-]{20,}|AIza[0-9A-Za-z_-]{35}|npm_[A-Za-z0-9]{36}|hf_[A-Za-z0-9]{30,})"
)
PRIVATE_KEY = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-")
LEFTOVER = re.compile(r"DO[ _-]?NOT[ _-]?(?:COMMIT|MERGE)|nocommit|REMOVE THIS LINE", re.IGNORECASE)
CONFLICT_SIDE = re.compile(r"^(?:<{7}|>{7})(?: |$)")
CONFLICT_MIDDLE = "======="

# The tools' and agents' working state: a label, and the pathspecs that find it in history.
SCRATCH_SPECS: dict[str, tuple[str, ...]] = {
    ".sisyphus/": (":(glob)**/.sisyphus/**",),
    ".aider*": (
        ":(glob)**/.aider*",
        ":(glob)**/.aider*/**",
        ":(glob,exclude)**/.aiderignore",
        ":(glob,exclude)**/.aider.conf.yml",
    ),
    ".claude/worktrees/": (":(glob)**/.claude/worktrees/**",),
    ".claude/*.local.*": (":(glob)**/.claude/**/*.local.*",),
    "CLAUDE.local.md": (":(glob)**/CLAUDE.local.md",),
    ".idea/workspace.xml": (":(glob)**/.idea/workspace.xml",),
    ".DS_Store": (":(glob)**/.DS_Store",),
    "Thumbs.db": (":(glob)**/Thumbs.db",),
    "*.orig": (":(glob)**/*.orig",),
    "*.rej": (":(glob)**/*.rej",),
    "*.swp": (":(glob)**/*.swp",),
    "*.swo": (":(glob)**/*.swo",),
    "*~": (":(glob)**/*~",),
    ".#*": (":(glob)**/.#*",),
    "#*#": (":(glob)**/#*#",),
}
NAMED = {".DS_Store", "Thumbs.db", "CLAUDE.local.md"}
SUFFIXES = ("*.orig", "*.rej", "*.swp", "*.swo")

LOCK_MANIFEST = {
    "poetry.lock": "pyproject.toml",
    "uv.lock": "pyproject.toml",
    "package-lock.json": "package.json",
    "pnpm-lock.yaml": "package.json",
    "yarn.lock": "package.json",
    "Cargo.lock": "Cargo.toml",
    "go.sum": "go.mod",
}
PEP508_NAME = re.compile(r"\s*([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)")
GO_REQUIRE = re.compile(r"^\s*(?:require\s+)?([^\s()]+)\s+v\S+", re.MULTILINE)
CARGO_TABLES = ("dependencies", "dev-dependencies", "build-dependencies")

COMMITLINT_CONFIGS = (
    "package.json",
    ".commitlintrc",
    ".commitlintrc.json",
    ".commitlintrc.yaml",
    ".commitlintrc.yml",
    ".commitlintrc.js",
    ".commitlintrc.cjs",
    ".commitlintrc.mjs",
    ".commitlintrc.ts",
    ".commitlintrc.cts",
    "commitlint.config.js",
    "commitlint.config.cjs",
    "commitlint.config.mjs",
    "commitlint.config.ts",
    "commitlint.config.cts",
)
HEADER_MAX = re.compile(
    r"""["']?header-max-length["']?\s*:\s*\[\s*(\d|RuleConfigSeverity\.\w+)\s*,\s*"""
    r"""["'](always|never)["']\s*,\s*(\d+)\s*\]"""
)


def clean(text: str, limit: int = 160) -> str:
    """`text` on one line with every control character escaped, cut at `limit` characters: the
    output names repository data and must not carry its escapes to a terminal."""
    shown = "".join(
        f"\\x{ord(c):02x}" if unicodedata.category(c).startswith("C") else c for c in text
    )
    return shown if len(shown) <= limit else shown[: limit - 1] + "…"


def redacted(token: str) -> str:
    """A token's first eight characters and its length: enough to label, never the secret."""
    return f"{token[:8]}… ({len(token)} chars)"


def parse_error(path: str, data: bytes) -> tuple[int, str] | None:
    """The line and message of the first error parsing `data` by `path`'s suffix (JSON, YAML,
    TOML, Python), or None when it parses or is none of those."""
    suffix = PurePosixPath(path).suffix.lower()
    try:
        if suffix == ".json":
            json.loads(data)
        elif suffix in (".yaml", ".yml"):
            for _document in yaml.load_all(data, Loader=yaml.CSafeLoader):
                pass
        elif suffix == ".toml":
            tomllib.loads(data.decode("utf-8"))
        elif suffix == ".py":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                compile(data, path, "exec", dont_inherit=True)
    except (ValueError, yaml.YAMLError, SyntaxError, RecursionError, MemoryError) as error:
        return _error_line(error), " ".join(str(error).split())
    return None


def _error_line(error: BaseException) -> int:
    if isinstance(error, SyntaxError | json.JSONDecodeError):
        return error.lineno or 0
    mark = getattr(error, "problem_mark", None)
    if mark is not None:
        return int(mark.line) + 1
    found = re.search(r"at line (\d+)", str(error))
    return int(found.group(1)) if found else 0


def scratch_label(path: str) -> str | None:
    """Which kind of tools' working state `path` is (a key of SCRATCH_SPECS), or None."""
    parts = path.split("/")
    name, dirs = parts[-1], parts[:-1]
    if ".sisyphus" in dirs:
        return ".sisyphus/"
    if any(p.startswith(".aider") and p not in (".aiderignore", ".aider.conf.yml") for p in parts):
        return ".aider*"
    if ".claude" in dirs:
        after = dirs[dirs.index(".claude") + 1 :]
        if after[:1] == ["worktrees"]:
            return ".claude/worktrees/"
        if re.fullmatch(r".+\.local\..*", name):
            return ".claude/*.local.*"
    if name in NAMED:
        return name
    if path == ".idea/workspace.xml" or path.endswith("/.idea/workspace.xml"):
        return ".idea/workspace.xml"
    for pattern in SUFFIXES:
        if name.endswith(pattern[1:]):
            return pattern
    if name.endswith("~"):
        return "*~"
    if name.startswith(".#"):
        return ".#*"
    if len(name) > 2 and name.startswith("#") and name.endswith("#"):
        return "#*#"
    return None


def declared_dependencies(manifest: str, data: bytes) -> tuple[list[str], bool]:
    """The dependency names `manifest` (its file name) declares, every group included, and
    whether they are Python names (compared without case or separator)."""
    text = data.decode("utf-8", errors="replace")
    if manifest == "go.mod":
        body = re.sub(r"//.*", "", text)
        blocks = re.findall(r"^require\s*\((.*?)^\)", body, re.MULTILINE | re.DOTALL)
        singles = re.findall(r"^require\s+[^(\s].*$", body, re.MULTILINE)
        required = {m for chunk in [*blocks, *singles] for m in GO_REQUIRE.findall(chunk)}
        return sorted(required), False
    try:
        document = json.loads(text) if manifest == "package.json" else tomllib.loads(text)
    except ValueError:
        return [], False
    if not isinstance(document, dict):
        return [], False
    if manifest == "package.json":
        tables = ("dependencies", "devDependencies", "optionalDependencies")
        return sorted({n for t in tables for n in _keys(document.get(t))}), False
    if manifest == "Cargo.toml":
        return sorted(_cargo_names(document)), False
    return sorted(_python_names(document)), True


def _keys(table: Any) -> list[str]:
    return [str(key) for key in table] if isinstance(table, dict) else []


def _requirements(entries: Any) -> list[str]:
    if not isinstance(entries, list):
        return []
    names = [PEP508_NAME.match(e) for e in entries if isinstance(e, str)]
    return [m.group(1) for m in names if m]


def _python_names(document: dict[str, Any]) -> set[str]:
    project = document.get("project") or {}
    tool = document.get("tool") or {}
    poetry = tool.get("poetry") or {}
    names = set(_requirements(project.get("dependencies")))
    for table in (project.get("optional-dependencies"), document.get("dependency-groups")):
        for entries in (table or {}).values():
            names.update(_requirements(entries))
    names.update(_requirements((tool.get("uv") or {}).get("dev-dependencies")))
    names.update(_keys(poetry.get("dependencies")))
    names.update(_keys(poetry.get("dev-dependencies")))
    for group in (poetry.get("group") or {}).values():
        names.update(_keys((group or {}).get("dependencies")))
    own = {_normal(str(project.get("name", ""))), _normal(str(poetry.get("name", ""))), "python"}
    return {name for name in names if _normal(name) not in own}


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _cargo_names(document: dict[str, Any]) -> set[str]:
    tables = [document.get(t) for t in CARGO_TABLES]
    tables.append((document.get("workspace") or {}).get("dependencies"))
    for target in (document.get("target") or {}).values():
        tables.extend((target or {}).get(t) for t in CARGO_TABLES)
    names = set()
    for table in tables:
        for key, value in (table or {}).items():
            renamed = value.get("package") if isinstance(value, dict) else None
            names.add(str(renamed or key))
    return names


def mentions(lockfile: str, name: str, python: bool) -> bool:
    """Whether the lockfile's text names `name` as a whole word (Python names without case or
    separator): a plain text search, enough for a candidate."""
    if python:
        pattern = "[-_.]".join(re.escape(part) for part in re.split(r"[-_.]+", name))
    else:
        pattern = re.escape(name)
    flags = re.IGNORECASE if python else 0
    return re.search(rf"(?<![\w.-]){pattern}(?![\w-])", lockfile, flags) is not None


def percentile(values: Iterable[int], share: float) -> int | None:
    """The nearest-rank `share` percentile of `values` (None when there are none)."""
    ordered = sorted(values)
    if not ordered:
        return None
    return ordered[max(0, math.ceil(share / 100 * len(ordered)) - 1)]


def header_max_length(config: str, data: bytes) -> int | None:
    """The subject limit a commitlint config declares as a literal (`header-max-length` at a level
    above 0, `always`), or None."""
    text = data.decode("utf-8", errors="replace")
    rule: Any = None
    if config == "package.json" or not config.endswith(("js", "ts")):
        try:
            document = yaml.load(text, Loader=yaml.CSafeLoader)
        except yaml.YAMLError:
            document = None
        if config == "package.json" and isinstance(document, dict):
            document = document.get("commitlint")
        if isinstance(document, dict) and isinstance(document.get("rules"), dict):
            rule = document["rules"].get("header-max-length")
        if isinstance(rule, list) and len(rule) == 3 and isinstance(rule[2], int):
            level_on = rule[0] not in (0, "0")
            return rule[2] if level_on and rule[1] == "always" else None
        return None
    found = HEADER_MAX.search(text)
    if found is None:
        return None
    level, when, limit = found.groups()
    level_on = level not in ("0", "RuleConfigSeverity.Disabled")
    return int(limit) if level_on and when == "always" else None
