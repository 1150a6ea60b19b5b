"""Secret rules on added lines: private keys, known token formats and secret-looking literals.

A credential that landed must be rotated, so each finding names it without ever repeating it; the
detectors are review.secrets'.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from types import MappingProxyType
from typing import ClassVar

from landwatch.review.change import FileChange, Line
from landwatch.review.findings import Finding, Severity
from landwatch.review.globs import LOCKFILES, TEST_PATHS, matches_any
from landwatch.review.rules.base import LineRule, Option
from landwatch.review.secrets.assignments import SECRET_NAME_NEEDLES, assignments
from landwatch.review.secrets.credentials import CREDENTIAL_FILES, CREDENTIAL_NEEDLES, credentials
from landwatch.review.secrets.private_keys import (
    KEY_MATERIAL,
    KEY_NEEDLES,
    MIN_KEY_MATERIAL,
    key_body,
    key_headers,
    key_on_line,
    rotated_key_lines,
)
from landwatch.review.secrets.provider_rules import by_line, provider_tokens, text_spans
from landwatch.review.secrets.redaction import redacted_snippet
from landwatch.review.secrets.scanning import lines_with, placeholder_token, shannon_entropy
from landwatch.review.secrets.token_formats import (
    TOKEN_NEEDLES,
    TOKEN_NEEDLES_FOLDED,
    tokens,
    truncated,
)

_MOST_PER_LINE = 16


class SecretRule(LineRule):
    """A rule that finds credentials: on the added lines of a file, and on the commit message
    (`scan` with no path). It honours `gitleaks:allow` and `pragma: allowlist secret`.

    A new secret is reported wherever it lands, whatever the file or its directory held before.
    Only two things lower one to info, and neither drops it: the same value was already in the
    file before the change (a move or a copy, not a new leak), and, for a rule that judges by
    name and entropy alone (`lowered_in_tests`), a conventional test path.
    """

    secret = True
    # Whether a finding in a conventional test path (tests/, testdata/, *_test.go, ...) is told
    # at info: for guesses by name and entropy, which test data is full of.
    lowered_in_tests: ClassVar[bool] = False

    def check_lines(self, file: FileChange, lines: list[Line]) -> Iterator[Finding]:
        before = file.old_content() if file.old_id is not None else None
        return self.scan(file.path, lines, before=before)

    def scan(
        self, path: str | None, lines: Sequence[Line], *, before: bytes | None = None
    ) -> Iterator[Finding]:
        """The secrets on `lines` of `path` (None: the commit message); `before` is the file's
        content before the change, where a value already there is no new leak."""
        raise NotImplementedError

    def lowered(
        self, finding: Finding, path: str | None, value: str, before: bytes | None
    ) -> Finding:
        """The finding at info, saying why, when it is no new leak or a guess in test data."""
        if before is not None and value and value.encode("utf-8", "surrogatepass") in before:
            finding.severity = min(finding.severity, Severity.INFO)
            finding.message += " (already in this file before the change: moved, not new)"
        elif self.lowered_in_tests and path is not None and matches_any(path, TEST_PATHS):
            finding.severity = min(finding.severity, Severity.INFO)
            finding.message += " (in a test path)"
        return finding

    def span_findings(
        self,
        path: str | None,
        line: Line,
        found: Sequence[tuple[str, int, int]],
        seen: Counter[str],
        describe: Callable[[str, str], str] = lambda label, _value: label,
        before: bytes | None = None,
    ) -> Iterator[Finding]:
        """A finding for each (label, start, end) secret of `line`, all shown by one copy of the
        line with every one of them redacted; a value seen before in the scan is another
        occurrence, not the same finding. `describe` makes the message of a label and value;
        `before`, the file before the change, lowers a value already there (`lowered`)."""
        if not found:
            return
        snippet = redacted_snippet(line.text, [(start, end) for _, start, end in found])
        # Past a few findings a file's are one finding listing their lines (merged_past), so
        # a line of thousands (minified, or built to slow the review) need not make them all.
        found = found[:_MOST_PER_LINE]
        for label, start, end in found:
            value = line.text[start:end]
            occurrence = seen[value]
            seen[value] += 1
            finding = self.finding(
                describe(label, value),
                path=path,
                number=line.number,
                content=snippet,  # the identity holds the redacted line, never the secret
                occurrence=occurrence,
                snippet=snippet,
            )
            finding.span = (start, end)  # the place, not the value: for the declarations
            yield self.lowered(finding, path, value, before)


_BASE64_LINE = re.compile(rb"\s*[A-Za-z0-9+/=]+\s*")


class PrivateKey(SecretRule):
    """Private key material: PEM private keys (RSA, DSA, EC, OpenSSH, PKCS#8, encrypted, PGP),
    PuTTY key files and OpenVPN static keys, whole or inside a quoted string.

    Public keys and certificates are not reported, nor is a header with no key body after it
    (code or docs that mention the format); a PuTTY header counts only at the start of a line.
    A key regenerated in place, its body lines added under a header that did not change, is
    found too.
    """

    id = "S001"
    name = "private-key"
    severity = Severity.ERROR
    merged_past = 3
    gitleaks_rules = MappingProxyType({"private-key": ()})
    example = (
        "-----BEGIN OPENSSH "
        + "PRIVATE KEY-----\n"
        + "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n…"
    )

    def check_lines(self, file: FileChange, lines: list[Line]) -> Iterator[Finding]:
        found = list(self.scan(file.path, lines))  # a key's lines moved unchanged are not added
        yield from found
        if found or not any(
            len(line.raw) >= 40 and _BASE64_LINE.fullmatch(line.raw) for line in lines
        ):
            return
        # Key body lines added under a header that did not change: a key rotated in place.
        content = file.new_content()
        if content is None or b"PRIVATE KEY" not in content:
            return
        for label, number in rotated_key_lines(content, {line.number for line in lines}):
            yield self.finding(
                f"{label} (its body replaced in place)",
                path=file.path,
                number=number,
                content=f"rotated {label} {number}",
                snippet=KEY_MATERIAL,
            )

    def scan(
        self, path: str | None, lines: Sequence[Line], *, before: bytes | None = None
    ) -> Iterator[Finding]:
        seen: Counter[str] = Counter()
        for index in sorted(lines_with(lines, KEY_NEEDLES)):
            line = lines[index]
            text = line.text
            for label, end in key_headers(text):
                spans, material = key_on_line(text, end)
                if len(material) < MIN_KEY_MATERIAL:
                    spans, material = [], key_body(lines, index)
                if len(material) < MIN_KEY_MATERIAL:
                    continue
                occurrence = seen[material]
                seen[material] += 1
                yield self.finding(
                    label,
                    path=path,
                    number=line.number,
                    content=(snippet := redacted_snippet(text, spans)),
                    occurrence=occurrence,
                    snippet=snippet,
                )


class TokenFormat(SecretRule):
    """Credentials of a known format: the hundreds of provider formats of kingfisher's
    maintained rule set (kingfisher-secret-scanner), with landwatch's own few beside them: AWS
    key IDs (and secret keys next to an aws/secret name), GitHub, GitLab, Slack (tokens and
    webhooks), Stripe live keys, Google API keys, JWTs, npm, PyPI and SendGrid.

    A format the rule set is sure of (a checksum, a strict prefix), and landwatch's own, is an
    error; one it finds only likely is a warning. Each is matched exactly, on word
    boundaries: test-mode keys (sk_test_), a token one character short or long, and
    documentation placeholders (holding EXAMPLE, or eight of the same character in a row) are
    let through. Lockfiles are checked too: a registry token in a resolved URL is still a
    token.
    """

    id = "S002"
    name = "token-format"
    severity = Severity.ERROR
    merged_past = 3
    gitleaks_rules = MappingProxyType(
        {
            "aws-access-token": ("AWS access key ID",),
            "github-pat": ("GitHub personal access token",),
            "github-oauth": ("GitHub OAuth access token",),
            "github-app-token": ("GitHub user-to-server token", "GitHub server-to-server token"),
            "github-refresh-token": ("GitHub refresh token",),
            "github-fine-grained-pat": ("GitHub fine-grained personal access token",),
            "gitlab-pat": ("GitLab personal access token",),
            "gitlab-pat-routable": ("GitLab personal access token",),
            **{
                f"slack-{kind}": ("Slack token",)
                for kind in (
                    *("bot-token", "user-token", "legacy-bot-token", "legacy-token"),
                    *("legacy-workspace-token", "config-access-token", "config-refresh-token"),
                )
            },
            "slack-webhook-url": ("Slack webhook URL",),
            "stripe-access-token": ("Stripe live secret key", "Stripe live restricted key"),
            "gcp-api-key": ("Google API key",),
            "jwt": ("JSON Web Token",),
            "npm-access-token": ("npm access token",),
            "pypi-upload-token": ("PyPI upload token",),
            "sendgrid-api-token": ("SendGrid API key",),
        }
    )
    example = 'GITHUB_TOKEN = "ghp_' + "a1B2c3D4e5" * 3 + 'a1B2c3"'

    def scan(
        self, path: str | None, lines: Sequence[Line], *, before: bytes | None = None
    ) -> Iterator[Finding]:
        seen: Counter[str] = Counter()
        candidates = lines_with(lines, TOKEN_NEEDLES, TOKEN_NEEDLES_FOLDED)
        found: dict[int, list[tuple[str, int, int]]] = {
            index: tokens(lines[index].text, anchors) for index, anchors in candidates.items()
        }
        likely: set[tuple[int, int]] = set()
        provided = by_line(provider_tokens([line.raw for line in lines]))
        for index, on_line in provided.items():
            ours = found.get(index, [])
            more = []
            where = text_spans(lines[index].raw, on_line)
            for token, (start, end) in zip(on_line, where, strict=True):
                text = lines[index].text
                if overlaps(ours, start, end) or not _credential(text, start, end):
                    continue
                more.append((f"{token.label} (kingfisher's rules)", start, end))
                if not token.confident:
                    likely.add((index, start))
            found[index] = ours + more
        for index in sorted(found):
            in_order = sorted(found[index], key=lambda span: span[1])[:_MOST_PER_LINE]
            for finding, (_, start, _end) in zip(
                self.span_findings(path, lines[index], in_order, seen, before=before),
                in_order,
                strict=True,
            ):
                if (index, start) in likely:
                    finding.severity = min(finding.severity, Severity.WARNING)
                yield finding


class GenericSecret(SecretRule):
    """A secret-like name (password, secret, token, api_key, access_key, private_key,
    credentials; also inside DB_PASSWORD or githubToken) assigned a literal of 8 characters or
    more whose Shannon entropy reaches `min_entropy`, in code, JSON, YAML, TOML or .env syntax.

    An unquoted value counts only in files matching `unquoted` (.env, INI, properties, YAML),
    where it is a literal; elsewhere it is code (`os.environ[...]`, `getenv(...)`,
    `process.env.X`); comparisons (`==`) and lists of names are not assignments. Let through:
    UUIDs, hex digests of 40 or 64 characters, integrity hashes (sha512-...), placeholders
    (${VAR}, {{ var }}, <your-token>, %(x)s, $VAR, {var}), regular expressions (a backslash),
    URLs and paths, prose (a value with a space), dotted or dashed names (auth.token.expired),
    dummies (starting test, dummy, fake, sample, example or your; holding changeme, example,
    placeholder, redacted or password; six of one character in a row), lockfiles, and values
    a S002 format recognises (S002 reports them by name). In a conventional test path
    (tests/, testdata/, fixtures/, *_test.go, ...) a finding is told at info, not dropped; a
    value already in the file before the change (a move) is told at info by every secret rule.
    """

    id = "S003"
    name = "generic-secret"
    severity = Severity.WARNING
    merged_past = 3
    lowered_in_tests = True
    gitleaks_rules = MappingProxyType({"generic-api-key": ()})
    options = (
        Option("min_entropy", 3.5, "Shannon entropy (bits per character) a value must reach"),
        Option(
            "unquoted",
            (".env", ".env.*", "*.env", "*.ini", "*.cfg", "*.properties", "*.yaml", "*.yml"),
            "files where an unquoted value after `key=` or `key:` is a literal",
        ),
        Option("lockfiles", LOCKFILES, "generated files full of hashes, not checked"),
    )
    example = 'DB_PASSWORD = "' + "k8#Tq2!vZ9" + '$mW4pL"'

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
            if not unquoted and '"' not in text and "'" not in text and "`" not in text:
                continue  # no literal to hold a secret: most lines that merely use a token
            found = assignments(text, unquoted=unquoted, min_entropy=min_entropy)
            if not found:
                continue
            known = tokens(text)
            found = [
                (name, start, end)
                for name, start, end in found
                if not any(start < t_end and t_start < end for _, t_start, t_end in known)
            ]
            yield from self.span_findings(path, line, found, seen, _describe_literal, before)


def _credential(text: str, start: int, end: int) -> bool:
    """Whether a token the rule set found is no stand-in (landwatch's own formats are judged
    the same way): not a placeholder, not shown cut short."""
    return not placeholder_token(text[start:end]) and not truncated(text, end)


def overlaps(spans: list[tuple[str, int, int]], start: int, end: int) -> bool:
    """Whether [start, end) overlaps any of `spans`, sorted by start and not overlapping each
    other (as tokens() gives them): a look at two neighbours, not at every one."""
    at = bisect_left(spans, start, key=lambda span: span[1])
    return any(
        s_start < end and start < s_end for _, s_start, s_end in spans[max(0, at - 1) : at + 1]
    )


def _describe_literal(name: str, value: str) -> str:
    return (
        f"secret-looking literal assigned to {name[:60]!r} (entropy {shannon_entropy(value):.1f})"
    )


class Credentials(SecretRule):
    """A password in a URL's user info (`postgres://admin:…@db/app`), in a connection string
    (`Server=…;User ID=svc;Password=…;`), after its label in any file (`pw:…`, `--password=…`,
    `Password: …`), the credentials of an HTTP Authorization header (`Bearer …`, `Basic …`), or
    in a credential file (`.pypirc`, `.netrc`, `.git-credentials`), whatever its entropy: the
    place says it is a password.

    After a label, an unquoted value counts only when no name in code could be it: it holds a
    character a name does not, or mixes upper case, lower case and digits (`password =
    password`, `pw: string` are code). Lets through placeholders: `user:password@`,
    `${PASSWORD}`, `<password>`, `%s`, `****`, an empty password, values shown cut short (`…`,
    `...`) and values encrypted for the repository (SOPS `ENC[…]`, Jasypt `ENC(…)`, Vault).
    """

    id = "S004"
    name = "credentials"
    severity = Severity.ERROR
    merged_past = 3
    options = (Option("credential_files", CREDENTIAL_FILES, "files of passwords"),)
    example = "DATABASE_URL=postgres://admin:" + "Tr0ub4dor&3" + "@db.internal/app"

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


RULES = [PrivateKey, TokenFormat, GenericSecret, Credentials]
