"""What a project told gitleaks it accepts, as gitleaks reads it: `.gitleaks.toml`'s allowlists
(`[allowlist]` before 8.25, `[[allowlists]]` since; per rule `[rules.allowlist]` or
`[[rules.allowlists]]`; `[extend] useDefault` or `path`) and `.gitleaksignore`'s fingerprints.

gitleaks' rules are not landwatch's: an allowlist scoped to gitleaks rules (`targetRules`, or a
`[[rules]]` entry's own) applies to the landwatch rule that finds the same secrets (RULES_OF),
and not at all when none does. A fingerprint names a gitleaks rule too, so it is matched on its
path and line (and commit), whatever rule it names.
"""

from __future__ import annotations

import posixpath
import tomllib
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from landwatch.review.regexes import RegexError, SafePattern, compile_safe

CONFIG = ".gitleaks.toml"
IGNORE = ".gitleaksignore"
MAX_EXTEND_DEPTH = 2  # as gitleaks: a file, the one it extends, and the one that extends

# gitleaks' rule ids and the landwatch rule that finds those secrets: (rule, S002 format) pairs,
# the format None for every finding of the rule.
_GITHUB = "GitHub {} token"
RULES_OF: dict[str, tuple[tuple[str, str | None], ...]] = {
    "private-key": (("S001", None),),
    "generic-api-key": (("S003", None),),
    "aws-access-token": (("S002", "AWS access key ID"),),
    "github-pat": (("S002", _GITHUB.format("personal access")),),
    "github-oauth": (("S002", _GITHUB.format("OAuth access")),),
    "github-app-token": (
        ("S002", _GITHUB.format("user-to-server")),
        ("S002", _GITHUB.format("server-to-server")),
    ),
    "github-refresh-token": (("S002", _GITHUB.format("refresh")),),
    "github-fine-grained-pat": (("S002", _GITHUB.format("fine-grained personal access")),),
    "gitlab-pat": (("S002", "GitLab personal access token"),),
    "gitlab-pat-routable": (("S002", "GitLab personal access token"),),
    **{
        f"slack-{kind}": (("S002", "Slack token"),)
        for kind in (
            "bot-token",
            "user-token",
            "legacy-bot-token",
            "legacy-token",
            "legacy-workspace-token",
            "config-access-token",
            "config-refresh-token",
        )
    },
    "slack-webhook-url": (("S002", "Slack webhook URL"),),
    "stripe-access-token": (
        ("S002", "Stripe live secret key"),
        ("S002", "Stripe live restricted key"),
    ),
    "gcp-api-key": (("S002", "Google API key"),),
    "jwt": (("S002", "JSON Web Token"),),
    "npm-access-token": (("S002", "npm access token"),),
    "pypi-upload-token": (("S002", "PyPI upload token"),),
    "sendgrid-api-token": (("S002", "SendGrid API key"),),
}


@dataclass(frozen=True)
class Allowlist:
    """One gitleaks allowlist: any of its checks lets a secret through, or all of them with
    `condition = "AND"`. Regexes test the secret, or with `regexTarget` "line" (and "match":
    landwatch's detectors have no whole match) the line; stopwords are substrings of the
    secret, in any case; `commits` name the commits reviewed."""

    paths: tuple[SafePattern, ...] = ()
    regexes: tuple[SafePattern, ...] = ()
    on_line: bool = False
    stopwords: tuple[str, ...] = ()
    commits: frozenset[str] = frozenset()
    all_of: bool = False
    # The landwatch rules (and S002 formats) it is scoped to; None: every secret rule.
    scope: frozenset[tuple[str, str | None]] | None = None

    def applies_to(self, rule: str, message: str) -> bool:
        if self.scope is None:
            return True
        return any(r == rule and (f is None or message.startswith(f)) for r, f in self.scope)

    def allows(
        self, path: str, value: str | None, line: str | None, commits: Collection[str]
    ) -> bool:
        target = line if self.on_line else value
        checks: list[Callable[[], bool]] = []
        if self.commits:
            checks.append(lambda: not self.commits.isdisjoint(commits))
        if self.paths:
            checks.append(lambda: any(p.search(path) for p in self.paths))
        if self.regexes:
            checks.append(
                lambda: target is not None and any(p.search(target) for p in self.regexes)
            )
        if self.stopwords:
            lowered = (value or "").lower()
            checks.append(lambda: value is not None and any(w in lowered for w in self.stopwords))
        results = (check() for check in checks)
        return all(results) if self.all_of else any(results)


def _default() -> Allowlist:
    """gitleaks' own global allowlist (config/gitleaks.toml at b58d3f1), which `[extend]
    useDefault = true` adds to a project's."""
    paths = (
        r"gitleaks\.toml",
        r"(?i)\.(?:bmp|gif|jpe?g|png|svg|tiff?)$",
        r"(?i)\.(?:eot|[ot]tf|woff2?)$",
        r"(?i)\.(?:docx?|xlsx?|pdf|bin|socket|vsidx|v2|suo|wsuo|.dll|pdb|exe|gltf)$",
        r"go\.(?:mod|sum|work(?:\.sum)?)$",
        r"(?:^|/)vendor/modules\.txt$",
        r"(?:^|/)vendor/(?:github\.com|golang\.org/x|google\.golang\.org|gopkg\.in|istio\.io"
        r"|k8s\.io|sigs\.k8s\.io)(?:/.*)?$",
        r"(?:^|/)gradlew(?:\.bat)?$",
        r"(?:^|/)gradle\.lockfile$",
        r"(?:^|/)mvnw(?:\.cmd)?$",
        r"(?:^|/)\.mvn/wrapper/MavenWrapperDownloader\.java$",
        r"(?:^|/)node_modules(?:/.*)?$",
        r"(?:^|/)(?:deno\.lock|npm-shrinkwrap\.json|package-lock\.json|pnpm-lock\.yaml"
        r"|yarn\.lock)$",
        r"(?:^|/)bower_components(?:/.*)?$",
        r"(?:^|/)(?:angular|bootstrap|jquery(?:-?ui)?|plotly|swagger-?ui)[a-zA-Z0-9.-]*"
        r"(?:\.min)?\.js(?:\.map)?$",
        r"(?:^|/)javascript\.json$",
        r"(?:^|/)(?:Pipfile|poetry)\.lock$",
        r"(?i)(?:^|/)(?:v?env|virtualenv)/lib(?:64)?(?:/.*)?$",
        r"(?i)(?:^|/)(?:lib(?:64)?/python[23](?:\.\d{1,2})+|python/[23](?:\.\d{1,2})+"
        r"/lib(?:64)?)(?:/.*)?$",
        r"(?i)(?:^|/)[a-z0-9_.]+-[0-9.]+\.dist-info(?:/.+)?$",
        r"(?:^|/)vendor/(?:bundle|ruby)(?:/.*?)?$",
        r"\.gem$",
        r"verification-metadata\.xml",
        r"Database.refactorlog",
        r"(?:^|/)\.git$",
    )
    regexes = (
        r"(?i)^true|false|null$",
        r"^(?i:a+|b+|c+|d+|e+|f+|g+|h+|i+|j+|k+|l+|m+|n+|o+|p+|q+|r+|s+|t+|u+|v+|w+|x+|y+|z+"
        r"|\*+|\.+)$",
        r"^\$(?:\d+|{\d+})$",
        r"^\$(?:[A-Z_]+|[a-z_]+)$",
        r"^\${(?:[A-Z_]+|[a-z_]+)}$",
        r"^\{\{[ \t]*[\w ().|]+[ \t]*}}$",
        r"^\$\{\{[ \t]*(?:(?:env|github|secrets|vars)(?:\.[A-Za-z]\w+)+[\w \"'&./=|]*)[ \t]*}}$",
        r"^%(?:[A-Z_]+|[a-z_]+)%$",
        r"^%[+\-# 0]?[bcdeEfFgGoOpqstTUvxX]$",
        r"^\{\d{0,2}}$",
        r"^@(?:[A-Z_]+|[a-z_]+)@$",
        r"^/Users/(?i)[a-z0-9]+/[\w .-/]+$",
        r"^/(?:bin|etc|home|opt|tmp|usr|var)/[\w ./-]+$",
    )
    return Allowlist(
        paths=tuple(compile_safe(p) for p in paths),
        regexes=tuple(compile_safe(r) for r in regexes),
        stopwords=("014df517-39d1-4453-b7b3-9930c563627c", "abcdefghijklmnopqrstuvwxyz"),
    )


@dataclass
class Config:
    """What `.gitleaks.toml` (and what it extends) allows, and what could not be used."""

    allowlists: list[Allowlist]
    default: Allowlist | None  # gitleaks' own, when `[extend] useDefault = true`
    problems: list[str]
    unmapped: set[str]  # gitleaks rule ids with an allowlist and no landwatch counterpart


def read_config(
    data: bytes, read: Callable[[str], bytes | None], name: str = CONFIG, depth: int = 0
) -> Config:
    """`.gitleaks.toml` as gitleaks reads it; `read` gives another committed file (what
    `[extend] path` names). Never raises: what cannot be used is in `problems`."""
    config = Config([], None, [], set())
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as error:
        config.problems.append(f"{name} is not valid TOML ({error}): none of it is honoured")
        return config
    _global_allowlists(document, name, config)
    rules = document.get("rules", [])
    for rule in rules if isinstance(rules, list) else []:
        if not isinstance(rule, dict) or not isinstance(rule.get("id"), str):
            continue
        tables = _tables(rule.get("allowlist")) + _tables(rule.get("allowlists"))
        scope = _scope([rule["id"]], config)
        if tables and scope is not None:
            for table in tables:
                _add(config, table, f"{name}: rule {rule['id']}", scope)
    _extend(document.get("extend"), read, name, depth, config)
    return config


def _global_allowlists(document: dict[str, Any], name: str, config: Config) -> None:
    tables = _tables(document.get("allowlist")) + _tables(document.get("allowlists"))
    for number, table in enumerate(tables, 1):
        where = f"{name}: allowlist {number}"
        targets = table.get("targetRules")
        if targets is None:
            _add(config, table, where, None)
        elif isinstance(targets, list) and all(isinstance(t, str) for t in targets):
            scope = _scope(targets, config)
            if scope is not None:
                _add(config, table, where, scope)
        else:
            config.problems.append(f"{where}: targetRules must be a list of rule ids")


def _tables(value: Any) -> list[dict[str, Any]]:
    """`[x]` or `[[x]]`: one table or a list of them."""
    if isinstance(value, dict):
        return [value]
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _scope(ids: list[str], config: Config) -> frozenset[tuple[str, str | None]] | None:
    """The landwatch rules gitleaks' `ids` map to; None (and noted) when none does."""
    scope = frozenset(pair for rule in ids for pair in RULES_OF.get(rule, ()))
    config.unmapped |= {rule for rule in ids if rule not in RULES_OF}
    return scope or None


def _add(
    config: Config,
    table: dict[str, Any],
    where: str,
    scope: frozenset[tuple[str, str | None]] | None,
) -> None:
    try:
        config.allowlists.append(allowlist(table, where, scope))
    except ValueError as error:
        config.problems.append(f"{error}: that allowlist is not honoured")


def allowlist(
    table: dict[str, Any], where: str, scope: frozenset[tuple[str, str | None]] | None = None
) -> Allowlist:
    """One allowlist table, as gitleaks validates it; ValueError (a RegexError too) naming
    what is wrong. A list with one bad pattern is not used at all: without it, an AND would
    allow more than the project asked."""
    condition = str(table.get("condition", "")).upper()
    if condition not in ("", "OR", "||", "AND", "&&"):
        raise ValueError(f"{where}: unknown condition {table.get('condition')!r}")
    target = table.get("regexTarget", "") or "secret"
    if target not in ("secret", "match", "line"):
        raise ValueError(f"{where}: unknown regexTarget {target!r}")
    strings = {key: _strings(table, key, where) for key in ("paths", "regexes", "stopwords")}
    try:
        paths = tuple(compile_safe(p) for p in strings["paths"])
        regexes = tuple(compile_safe(r) for r in strings["regexes"])
    except RegexError as error:
        raise ValueError(f"{where}: {error}") from None
    found = Allowlist(
        paths=paths,
        regexes=regexes,
        on_line=target != "secret",
        stopwords=tuple(word.lower() for word in strings["stopwords"]),
        commits=frozenset(c.strip().lower() for c in _strings(table, "commits", where)),
        all_of=condition in ("AND", "&&"),
        scope=scope,
    )
    if not (found.paths or found.regexes or found.stopwords or found.commits):
        raise ValueError(f"{where}: no paths, regexes, stopwords nor commits")
    return found


def _strings(table: dict[str, Any], key: str, where: str) -> list[str]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"{where}: {key} must be a list of strings")
    return value


def _extend(
    extend: Any, read: Callable[[str], bytes | None], name: str, depth: int, config: Config
) -> None:
    """`[extend]`: gitleaks' default allowlist, or another committed file's allowlists."""
    if not isinstance(extend, dict):
        return
    path, use_default = extend.get("path"), extend.get("useDefault") is True
    if path and use_default:
        config.problems.append(f"{name}: extend sets both path and useDefault (gitleaks refuses)")
        return
    if use_default:
        config.default = DEFAULT
        return
    if not isinstance(path, str) or not path or depth >= MAX_EXTEND_DEPTH:
        return
    normal = posixpath.normpath(path.removeprefix("./"))
    data = None if normal.startswith(("/", "../")) or normal == ".." else read(normal)
    if data is None:
        config.problems.append(f"{name}: extend.path {path!r} is no file of this commit's tree")
        return
    extended = read_config(data, read, normal, depth + 1)
    config.allowlists += extended.allowlists
    config.default = config.default or extended.default
    config.problems += extended.problems
    config.unmapped |= extended.unmapped


def read_ignore(data: bytes) -> tuple[frozenset[tuple[str | None, str, int]], int]:
    """`.gitleaksignore`'s fingerprints as (commit or None, path, line), and how many lines
    were no fingerprint. Paths with backslashes are read with slashes, as gitleaks does."""
    fingerprints: set[tuple[str | None, str, int]] = set()
    bad = 0
    for raw in data.decode("utf-8", errors="replace").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(":")
        if len(parts) not in (3, 4) or not parts[-1].isdigit():
            bad += 1
            continue
        commit = parts[0].lower() if len(parts) == 4 else None
        fingerprints.add((commit, parts[-3].replace("\\", "/"), int(parts[-1])))
    return frozenset(fingerprints), bad


DEFAULT = _default()
