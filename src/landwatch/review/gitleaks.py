"""What a project told gitleaks it accepts, as gitleaks reads it: `.gitleaks.toml`'s allowlists
(`[allowlist]` before 8.25, `[[allowlists]]` since; per rule `[rules.allowlist]` or
`[[rules.allowlists]]`; `[extend] useDefault` or `path`) and `.gitleaksignore`'s fingerprints.

gitleaks' rules are not landwatch's: an allowlist scoped to gitleaks rules (`targetRules`, or a
`[[rules]]` entry's own) applies to the landwatch rule that finds the same secrets (each rule
says which: `gitleaks_rules`), and not at all when none does. A fingerprint names a gitleaks
rule too, so it is matched on its path and line (and commit), whatever rule it names.
"""

from __future__ import annotations

import functools
import posixpath
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from landwatch.review.regexes import MOST_PATTERNS, RegexError, SafePattern, compile_safe
from landwatch.review.rules.base import Rule

CONFIG = ".gitleaks.toml"
IGNORE = ".gitleaksignore"
MAX_EXTEND_DEPTH = 2  # as gitleaks: a file, the one it extends, and the one that extends
# MOST_PATTERNS paths and regexes are honoured of a configuration's allowlists: a hostile tree's
# 100,000 took 7 s to compile and search. gitleaks has no such bound.

# The landwatch rules (and the starts of their findings' messages, a token format's name; None
# for any) that an allowlist scoped to some gitleaks rules applies to.
Scope = frozenset[tuple[str, str | None]]


def rules_of(rules: Iterable[Rule | type[Rule]]) -> dict[str, Scope]:
    """gitleaks' rule ids and what of landwatch's rules each stands for, as the rules say
    (`gitleaks_rules`)."""
    found: dict[str, set[tuple[str, str | None]]] = {}
    for rule in rules:
        for gitleaks_id, formats in rule.gitleaks_rules.items():
            pairs = {(rule.id, f) for f in formats} if formats else {(rule.id, None)}
            found.setdefault(gitleaks_id, set()).update(pairs)
    return {gitleaks_id: frozenset(pairs) for gitleaks_id, pairs in found.items()}


class Allowlist(NamedTuple):
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
    # The landwatch rules (and token formats) it is scoped to; None: every secret rule.
    scope: Scope | None = None

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


@functools.cache
def default_allowlist() -> Allowlist:
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
    rules_of: Mapping[str, Scope]  # what each gitleaks rule id stands for (rules_of)
    patterns: int = 0  # the paths and regexes of the allowlists honoured, at most MOST_PATTERNS


def read_config(
    data: bytes,
    read: Callable[[str], bytes | None],
    rules: Mapping[str, Scope],
    name: str = CONFIG,
    depth: int = 0,
) -> Config:
    """`.gitleaks.toml` as gitleaks reads it; `read` gives another committed file (what
    `[extend] path` names), `rules` what gitleaks' rule ids stand for (rules_of). Never raises:
    what cannot be used is in `problems`."""
    config = Config([], None, [], set(), rules)
    import tomllib  # 3 ms: only where a .gitleaks.toml is committed

    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, RecursionError) as error:
        config.problems.append(f"{name} is not valid TOML ({error}): none of it is honoured")
        return config
    _global_allowlists(document, name, config)
    declared: Any = document.get("rules", [])
    for rule in declared if isinstance(declared, list) else []:
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


def _scope(ids: list[str], config: Config) -> Scope | None:
    """The landwatch rules gitleaks' `ids` map to; None (and noted) when none does."""
    scope = frozenset(pair for rule in ids for pair in config.rules_of.get(rule, frozenset()))
    config.unmapped |= {rule for rule in ids if rule not in config.rules_of}
    return scope or None


def _add(
    config: Config,
    table: dict[str, Any],
    where: str,
    scope: Scope | None,
) -> None:
    patterns = sum(len(v) for key in ("paths", "regexes") if isinstance(v := table.get(key), list))
    if config.patterns + patterns > MOST_PATTERNS:
        # Left out whole, as a broken one is: honoured in part, an AND would allow more.
        config.problems.append(
            f"{where}: past {MOST_PATTERNS:,} paths and regexes in the gitleaks configuration: "
            "that allowlist is not honoured"
        )
        return
    try:
        config.allowlists.append(allowlist(table, where, scope))
    except ValueError as error:
        config.problems.append(f"{error}: that allowlist is not honoured")
        return
    config.patterns += patterns


def allowlist(table: dict[str, Any], where: str, scope: Scope | None = None) -> Allowlist:
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
        config.default = default_allowlist()
        return
    if not isinstance(path, str) or not path or depth >= MAX_EXTEND_DEPTH:
        return
    normal = posixpath.normpath(path.removeprefix("./"))
    data = None if normal.startswith(("/", "../")) or normal == ".." else read(normal)
    if data is None:
        config.problems.append(f"{name}: extend.path {path!r} is no file of this commit's tree")
        return
    extended = read_config(data, read, config.rules_of, normal, depth + 1)
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
