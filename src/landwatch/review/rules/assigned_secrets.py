"""Secret rules that know a secret by where it sits rather than by its format: a value given to
a secret-like name (S003), and a password where the place says it is one (S004).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Sequence
from types import MappingProxyType

from landwatch.review.change import FileChange
from landwatch.review.diffs import Line
from landwatch.review.findings import Finding, Severity
from landwatch.review.globs import LOCKFILES, matches_any
from landwatch.review.rules.base import Option
from landwatch.review.rules.secret_rule import SecretRule
from landwatch.review.secrets.assignments import (
    SECRET_NAME_NEEDLES,
    assignments,
    element_value,
    named_value,
)
from landwatch.review.secrets.credentials import (
    CREDENTIAL_FILES,
    CREDENTIAL_NEEDLES,
    credentials,
    data_stand_in,
)
from landwatch.review.secrets.manifests import sealed, secret_data
from landwatch.review.secrets.scanning import lines_with, shannon_entropy
from landwatch.review.secrets.token_formats import tokens
from landwatch.review.secrets.values import machine_made


class GenericSecret(SecretRule):
    """A value given to a secret-like name, in any syntax of one table: assignments and keys of
    every language and file of settings (`=`, `:`, `:=`, `=>`, Makefile's `?=` `::=`, PHP's
    `.=`, Go's `var x string =`; JSON, YAML, TOML, INI, .properties, .env, HCL), comparisons with
    a literal (a hard-coded password), `#define`/`SET` statements and declarations (a
    Dockerfile's `ENV API_TOKEN …`), call arguments (`define('TOKEN', …)`, `setopt(c,
    CURLOPT_PASSWORD, …)`), defaults where a secret is read (`getenv("TOKEN") or "…"`,
    `${PASSWORD:-…}`), XML elements (named by their tag or their `key`/`name` attribute) and
    key/value attributes, JSON's and YAML's `name:` then `value:`, command-line flags and HTTP
    headers (`-H "Private-Token: …"`), URL query parameters, labels in prose and logs (`github
    token - '…'`, `the password is: …`, `password for admin: …`), a user and a password after a
    label naming both (`ID/PW: admin/…`), and a string continued on the next line.

    A name's words say how its value is judged: a password's (password, passwd, pwd, pass, pw,
    passphrase and their misspellings) is one at six characters of two kinds, as people make
    them; a secret's (secret, token, credentials, api_key, access_key, private_key, ...) when
    its Shannon entropy reaches `min_entropy`, or it is a UUID or a hex key; a bare `key` or
    `auth` only when the value looks generated. Not secret names: those ending in a word that
    names something about the secret (`_id`, `_name`, `_url`, `_length`, `_hash`, `_file`,
    ...), starting with public, csrf or authenticity, or whose secret word follows a word of
    purpose (`keyVaultToStoreSecrets` is a vault). A bare value counts in files matching
    `unquoted` (.env, INI, .conf, properties, YAML), where it is a literal to the end of its word
    (brackets and `$` inside it too), and elsewhere only when no name or expression of code
    could be it. Let through: templates (${VAR}, {{ var }},
    <your-token>, %(x)s, $VAR), values encrypted for the repository (SOPS, Jasypt, Vault), masks
    and values shown cut short, dummies (test, dummy, fake, example, changeme, a unit repeated,
    six characters in order), URLs and paths, prose, dotted names, lockfiles, SealedSecret
    manifests, and values a S002 format recognises (S002 reports them by name). In a
    conventional test path (tests/, testdata/, fixtures/, *_test.go, ...) a finding is told at
    info, not dropped; a value already in the file before the change (a move) is told at info
    by every secret rule (past a file's first 32 values, those found among its words: a search
    of all of it for each of 10,000 values took 40 s; one not found so is told at its own
    severity).
    """

    id = "S003"
    name = "generic-secret"
    severity = Severity.WARNING
    merged_past = 3
    gitleaks_rules = MappingProxyType({"generic-api-key": ()})
    options = (
        Option("min_entropy", 3.5, "Shannon entropy (bits per character) a value must reach"),
        Option(
            "unquoted",
            (
                ".env",
                ".env.*",
                "*.env",
                "*.ini",
                "*.cfg",
                "*.conf",
                "*.properties",
                "*.yaml",
                "*.yml",
            ),
            "files where an unquoted value after `key=` or `key:` is a literal",
        ),
        Option("lockfiles", LOCKFILES, "generated files full of hashes, not checked"),
    )
    example = 'DB_PASSWORD = "' + "k8#Tq2!vZ9" + '$mW4pL"'
    certainty = (
        (
            Severity.WARNING,
            "a value that looks made by a machine: generated (digits among mixed-case letters), "
            "a UUID or a long hex key, or sixteen characters of three kinds",
        ),
        (
            Severity.INFO,
            "a guess by the name alone, a value a person could have typed; any value in a "
            "test path or already in the file before the change",
        ),
    )

    def check_lines(self, file: FileChange, lines: list[Line]) -> Iterator[Finding]:
        manifest = _manifest(file)
        if manifest is not None and sealed(manifest):
            return iter(())  # a SealedSecret: every value in it is encrypted for the cluster
        return super().check_lines(file, lines)

    def scan(
        self, path: str | None, lines: Sequence[Line], *, before: bytes | None = None
    ) -> Iterator[Finding]:
        if path is not None and matches_any(path, self.option("lockfiles")):
            return
        unquoted = path is not None and matches_any(path, self.option("unquoted"))
        min_entropy = float(self.option("min_entropy"))
        seen: Counter[str] = Counter()
        for index in sorted(lines_with(lines, folded=SECRET_NAME_NEEDLES)):
            line = lines[index]
            text = line.text
            found = assignments(text, unquoted=unquoted, min_entropy=min_entropy)
            for value in _below(lines, index, min_entropy):
                yield from _by_certainty(
                    self.span_findings(
                        path, lines[index + 1], [value], seen, _describe_literal, before
                    ),
                    lines[index + 1].text,
                    [value],
                )
            if not found:
                continue
            known = tokens(text)
            found = [
                (name, start, end)
                for name, start, end in found
                if not any(start < t_end and t_start < end for _, t_start, t_end in known)
            ]
            yield from _by_certainty(
                self.span_findings(path, line, found, seen, _describe_literal, before),
                text,
                found,
            )


_MANIFESTS = (".yaml", ".yml")


def _manifest(file: FileChange) -> bytes | None:
    """The content of a YAML file that may be a Kubernetes manifest, else None."""
    if not file.path.lower().endswith(_MANIFESTS):
        return None
    content = file.new_content()
    return content if content is not None and b"kind" in content else None


def _below(lines: Sequence[Line], index: int, min_entropy: float) -> list[tuple[str, int, int]]:
    """The secret on the line after line `index` that line `index` names: an XML element's value
    on a line of its own (`<apiToken>` / `value` / `</apiToken>`), a YAML `value:` after a
    `name:` or `key:` (`- name: DB_PASSWORD` / `value: …`), or XML's `<value>` after a `<key>`.
    Only lines in a row of what the change added."""
    line, text = lines[index], lines[index].text
    if index + 1 >= len(lines) or lines[index + 1].number != line.number + 1:
        return []
    found = []
    if "name" in text or "key" in text:
        found.append(named_value(text, lines[index + 1].text, min_entropy=min_entropy))
    if "<" in text and index + 2 < len(lines) and lines[index + 2].number == line.number + 2:
        closing = lines[index + 2].text
        found.append(element_value(text, lines[index + 1].text, closing, min_entropy=min_entropy))
    return [value for value in found if value is not None]


def _by_certainty(
    findings: Iterator[Finding], text: str, found: Sequence[tuple[str, int, int]]
) -> Iterator[Finding]:
    """Each of `findings` (one per span of `found`, in order) at the severity its value earns:
    a warning for one that looks made by a machine, info for what a person could have typed
    (a guess by its name alone)."""
    for finding, (_, start, end) in zip(findings, found, strict=False):
        if not machine_made(text[start:end]):
            finding.severity = min(finding.severity, Severity.INFO)
            finding.message += " (a guess by its name: a value a person could have typed)"
        yield finding


def _describe_literal(name: str, value: str) -> str:
    return (
        f"secret-looking literal assigned to {name[:60]!r} (entropy {shannon_entropy(value):.1f})"
    )


class Credentials(SecretRule):
    """A password where the place says it is one, whatever its entropy: a URL's user info
    (`postgres://admin:…@db/app`), a connection string (`Server=…;User ID=svc;Password=…;`),
    after its label in any file (`pw:…`, `--password=…`, `Password: …`), an HTTP Authorization
    header's credentials (`Bearer …`, `Basic …`), SQL (`PASSWORD '…'`, `IDENTIFIED BY '…'`,
    MySQL's `PASSWORD('…')`), curl's `-u user:…`, a command's password option (`mysql -p…`,
    `sshpass -p`, `redis-cli -a`, `sqlcmd -P`, `ldapsearch -w`, `docker login -p`),
    PowerShell's `ConvertTo-SecureString "…"`, a credential file (`.pypirc`, `.netrc`,
    `.git-credentials`), and the values of a Kubernetes Secret's `data` and `stringData`
    (base64 is an encoding, not a protection).

    After a label, an unquoted value counts as S003 judges a password in code: six characters
    of two kinds that no name in code could be (it holds a character a name does not, or mixes
    upper case, lower case and digits: `password = password`, `pw: string` are code). Lets
    through placeholders: `user:password@`, `${PASSWORD}`, `<password>`, `%s`, `****`, an empty
    password, values shown cut short (`…`, `...`), values encrypted for the repository (SOPS
    `ENC[…]`, Jasypt `ENC(…)`, Vault) and a SealedSecret's, encrypted for its cluster. Basic
    credentials are judged as they decode (`user:password` is an example); a Secret's value
    that is a template, a mask or a word alone saying it is none (`changeme`), as written or as
    its base64 decodes, is let through; a weak password in it is the one deployed.
    """

    id = "S004"
    name = "credentials"
    severity = Severity.ERROR
    merged_past = 3
    options = (Option("credential_files", CREDENTIAL_FILES, "files of passwords"),)
    example = "DATABASE_URL=postgres://admin:" + "Tr0ub4dor&3" + "@db.internal/app"
    certainty = (
        (Severity.ERROR, "a password where its place says it is one"),
        (Severity.INFO, "one in a test path or already in the file before the change"),
    )

    def check_lines(self, file: FileChange, lines: list[Line]) -> Iterator[Finding]:
        manifest = _manifest(file)
        if manifest is not None and sealed(manifest):
            return  # a SealedSecret: every value in it is encrypted for the cluster
        told = list(super().check_lines(file, lines))
        yield from told
        data = secret_data(manifest) if manifest is not None else {}
        for finding in told:  # a value a label already named (`password: …`) is told once
            data.pop(finding.line or 0, None)
        seen: Counter[str] = Counter()
        for line in lines:
            span = data.get(line.number)
            if span is not None and not data_stand_in(line.text[span[0] : span[1]]):
                found = [("credential in a Kubernetes Secret's data", *span)]
                yield from self.span_findings(file.path, line, found, seen)

    def scan(
        self, path: str | None, lines: Sequence[Line], *, before: bytes | None = None
    ) -> Iterator[Finding]:
        credential_file = path is not None and matches_any(path, self.option("credential_files"))
        seen: Counter[str] = Counter()
        candidates = (
            range(len(lines))
            if credential_file
            else sorted(lines_with(lines, folded=CREDENTIAL_NEEDLES))
        )
        for index in candidates:
            line = lines[index]
            found = credentials(line.text, credential_file=credential_file)
            yield from self.span_findings(path, line, found, seen, before=before)
