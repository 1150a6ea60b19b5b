"""Secret rules on added lines: private keys and known token formats here, secrets known by
their place in review.rules.assigned_secrets; RULES holds all four.

A credential that landed must be rotated, so each finding names it without ever repeating it; the
detectors are review.secrets'.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from itertools import accumulate
from types import MappingProxyType

from landwatch.lazy_re import lazy_compile
from landwatch.review.change import FileChange
from landwatch.review.diffs import Line
from landwatch.review.findings import Finding, Severity, secret_digest
from landwatch.review.rules.assigned_secrets import Credentials, GenericSecret
from landwatch.review.rules.secret_rule import MOST_PER_LINE, SecretRule
from landwatch.review.secrets.checks import (
    checksum_holds,
    jwt_names_algorithm,
    jwt_well_formed,
)
from landwatch.review.secrets.credentials import UrlPasswords
from landwatch.review.secrets.escaped import escaped_tokens, unescaped_value
from landwatch.review.secrets.named_formats import named_tokens
from landwatch.review.secrets.private_keys import (
    KEY_MATERIAL,
    KEY_NEEDLES,
    MIN_KEY_MATERIAL,
    key_body,
    key_headers,
    key_on_line,
    rotated_key_lines,
)
from landwatch.review.secrets.provider_rules import (
    by_line,
    described,
    provider_tokens,
    text_spans,
)
from landwatch.review.secrets.public import browser_file, public_reason
from landwatch.review.secrets.redaction import redacted_snippet
from landwatch.review.secrets.scanning import (
    lines_with,
    masked,
    placeholder_token,
)
from landwatch.review.secrets.token_formats import (
    TOKEN_NEEDLES,
    TOKEN_NEEDLES_FOLDED,
    prefixed_tokens,
    tokens,
    unanchored_tokens,
)
from landwatch.review.secrets.wrapped import (
    JWT_ANCHOR,
    PEM_ANCHOR,
    unwrapped,
    wrapped_keys,
    wrapped_tokens,
)

_BASE64_LINE = lazy_compile(rb"\s*[A-Za-z0-9+/=]+\s*")


class PrivateKey(SecretRule):
    """Private key material: PEM private keys (RSA, DSA, EC, OpenSSH, PKCS#8, encrypted, PGP),
    PuTTY key files and OpenVPN static keys, whole, inside a quoted string, written as strings
    of code or after a log's prefix, and PEM keys wrapped in base64 (`LS0tLS1CRUdJTi…`).

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
    certainty = (
        (Severity.ERROR, "private key material: its header and its body say what it is"),
        (Severity.INFO, "a key in a test path or already in the file before the change"),
    )
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
        for label, number, body in rotated_key_lines(content, {line.number for line in lines}):
            finding = self.finding(
                f"{label} (its body replaced in place)",
                path=file.path,
                number=number,
                content=f"rotated {label} {number}",
                snippet=KEY_MATERIAL,
            )
            # Which key: its body's, not the file's, which an edit of another line changes.
            finding.secret_digest = secret_digest(body)
            yield self.in_test_data(finding, file.path)

    def scan(
        self, path: str | None, lines: Sequence[Line], *, before: bytes | None = None
    ) -> Iterator[Finding]:
        seen: Counter[str] = Counter()
        for index in sorted(lines_with(lines, (PEM_ANCHOR.encode(),))):
            spans = wrapped_keys(lines[index].text)
            found = [("private key (base64-encoded PEM)", start, end) for start, end in spans]
            yield from self.span_findings(path, lines[index], found, seen, before=before)
        for index in sorted(lines_with(lines, KEY_NEEDLES)):
            line = lines[index]
            text = line.text
            for label, end, stop in key_headers(text):
                spans, material = key_on_line(text, end, stop)
                if len(material) < MIN_KEY_MATERIAL:
                    spans, material = [], key_body(lines, index)
                if len(material) < MIN_KEY_MATERIAL:
                    continue
                occurrence = seen[material]
                seen[material] += 1
                finding = self.finding(
                    label,
                    path=path,
                    number=line.number,
                    content=(snippet := redacted_snippet(text, spans)),
                    occurrence=occurrence,
                    snippet=snippet,
                )
                finding.secret_digest = secret_digest(material)
                yield self.in_test_data(finding, path)


class TokenFormat(SecretRule):
    """Credentials of a known format: the hundreds of provider formats of kingfisher's maintained
    rule set (kingfisher-secret-scanner), with landwatch's own few beside them: AWS key IDs (and
    secret keys next to an aws/secret name), GitHub, GitLab, Slack (tokens and webhooks), Stripe
    live and test-mode keys, Google API keys and OAuth tokens, JWTs, npm, PyPI, SendGrid, X
    (Twitter) bearer tokens, Azure AD client secrets, Telegram bot tokens, New Relic keys,
    Discord bot tokens (their first part the bot's id in base64) and webhooks, Braintree access
    tokens, Microsoft's identifiable Azure keys (`JQQJ9` after 52 characters), and from
    CredSweeper's rule table NuGet API keys, JFrog reference tokens (checked as they decode),
    WunderGraph Cosmo API keys and Atlassian Data Center tokens (their first part a 12-digit id
    in base64), wherever they stand (the rule set asks for a name beside some of these);
    Mailgun's private API keys and Dropbox's long-lived tokens where their provider is named
    (on the line, or in the file's path); tokens percent-escaped in a URL (`%3D`, `%2B`, `%2F`
    inside their run), read unescaped; JWTs wrapped in base64; and tokens of no format known by
    name but of the shape services now give theirs, a short lower-case prefix (`whsec_`,
    `glrtr-`, `sk-ant-api03-`, not a metasyntactic word such as `foo_`) and thirty random
    characters.

    A value of a format with a checksum or a structure that fails it (GitHub's and npm's
    CRC32, age's bech32, PyPI's macaroon, a JWT that does not decode to JSON, a Slack bot's or
    user's token whose ids are not Slack's 8 to 14 digits) is a stand-in, made up or mistyped,
    and is told by no secret rule. Each is matched exactly, on word
    boundaries: a token one character short or long and documentation placeholders (holding
    EXAMPLE, `your`, `here`, `ChangeMe` or another such word as a person writes it, in lower,
    upper or camel case, a unit repeated, six characters in order, a mask) are let through; a
    value whose checksum holds never is, whatever it holds by chance (`hERe` in one of 13,000
    GitHub tokens). Lockfiles are checked too: a registry token in a resolved URL is still a
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
            "twitter-bearer-token": ("X (Twitter) bearer token",),
            "pypi-upload-token": ("PyPI upload token",),
            "sendgrid-api-token": ("SendGrid API key",),
            "azure-ad-client-secret": ("Azure AD client secret",),
            "telegram-bot-api-token": ("Telegram bot token",),
            "new-relic-user-api-key": ("New Relic user API key",),
            "new-relic-insert-key": ("New Relic insert key",),
            "new-relic-browser-api-token": ("New Relic browser API key",),
            "mailgun-signing-key": ("Mailgun private API key",),
            "dropbox-long-lived-api-token": ("Dropbox long-lived access token",),
        }
    )
    example = 'AWS_ACCESS_KEY_ID = "AKIA' + '4R7KQ2MVXPLT6SWC"'
    certainty = (
        (
            Severity.ERROR,
            "a format whose checksum or structure holds (GitHub's and npm's CRC32, age's bech32, "
            "PyPI's macaroon: told so even in a test path), a JWT whose header names its "
            "algorithm, landwatch's own formats and those the rule set is sure of",
        ),
        (
            Severity.WARNING,
            "a format the rule set finds only likely, a token of a service's prefix and thirty "
            "random characters, a JWT whose header names no algorithm",
        ),
        (
            Severity.INFO,
            "what its holder documents as public (Stripe's publishable keys; a Google API key "
            "in a web page, or in script or docs naming Maps or Firebase); a token in a test "
            "path or already in the file before the change",
        ),
    )

    def sure_anywhere(self, value: str) -> bool:
        return checksum_holds(unescaped_value(value))

    def scan(
        self, path: str | None, lines: Sequence[Line], *, before: bytes | None = None
    ) -> Iterator[Finding]:
        seen: Counter[str] = Counter()
        candidates = lines_with(lines, TOKEN_NEEDLES, TOKEN_NEEDLES_FOLDED)
        found: dict[int, list[tuple[str, int, int]]] = {
            index: tokens(lines[index].text, anchors) for index, anchors in candidates.items()
        }
        _add(found, named_tokens(path, lines))
        _add_wrapped(lines, found)
        _add_unanchored(lines, found)
        likely = _add_provided(lines, found) | _add_prefixed(lines, found)
        escaped, likely_escaped = escaped_tokens(lines, found)
        _add(found, escaped)
        likely |= likely_escaped
        # Asked once, and only of a file where a key its holder may call public was found.
        browser = cache(lambda: browser_file(path, (line.text for line in lines)))
        for index in sorted(found):
            in_order = sorted(found[index], key=lambda span: span[1])[:MOST_PER_LINE]
            for finding, (_, start, end) in zip(
                self.span_findings(path, lines[index], in_order, seen, before=before),
                in_order,
                strict=True,
            ):
                value = unescaped_value(lines[index].text[start:end])
                yield _told_by_certainty(finding, value, (index, start) in likely, browser)


Located = dict[int, list[tuple[str, int, int]]]  # line index -> (label, start, end), in order


def _told_by_certainty(
    finding: Finding, value: str, likely: bool, browser: Callable[[], bool]
) -> Finding:
    """`finding` at the severity its certainty earns: an error where the format is sure (a
    checksum that holds, a strict prefix; one that fails was let through as a stand-in where
    the token was found), a warning where it is only likely or a JWT's header names no
    algorithm, and at most info where its holder documents it as public."""
    if likely and not checksum_holds(value):
        finding.severity = min(finding.severity, Severity.WARNING)
    elif value.startswith(("eyJ", JWT_ANCHOR)) and not jwt_names_algorithm(
        value if value.startswith("eyJ") else unwrapped(value)
    ):
        finding.severity = min(finding.severity, Severity.WARNING)
        finding.message += " (its header names no algorithm, as a library's would)"
    reason = public_reason(value, browser()) if value.startswith(("pk_", "AIza")) else None
    if reason is not None:
        finding.severity = min(finding.severity, Severity.INFO)
        finding.message += f" ({reason})"
    return finding


def _add(found: Located, more: Located) -> None:
    """`more` tokens beside those found on their lines, those overlapping one left out."""
    for index, spans in more.items():
        known = found.get(index, [])
        kept = [span for span in spans if not overlaps(known, span[1], span[2])]
        found[index] = sorted([*known, *kept], key=lambda span: span[1])


def _add_wrapped(lines: Sequence[Line], found: Located) -> None:
    """JWTs wrapped in base64, beside the tokens found on their lines."""
    for index in lines_with(lines, (JWT_ANCHOR.encode(),)):
        wrapped = [
            ("JSON Web Token (base64-encoded)", start, end)
            for start, end in wrapped_tokens(lines[index].text)
        ]
        found[index] = sorted([*found.get(index, []), *wrapped], key=lambda span: span[1])


def _add_unanchored(lines: Sequence[Line], found: Located) -> None:
    """Tokens of formats with no literal anchor (Discord's bot tokens), looked for in one pass
    over the file's lines joined: their pattern is rare, the lines holding one rarer still."""
    texts = [line.text for line in lines]
    tokens_found = unanchored_tokens("\n".join(texts))
    if not tokens_found:
        return  # most files: no line's place needs working out
    starts = [0, *accumulate(len(text) + 1 for text in texts)]
    for label, start, end in tokens_found:
        index = bisect_right(starts, start) - 1
        at = starts[index]
        known = found.get(index, [])
        if not overlaps(known, start - at, end - at):
            found[index] = sorted([*known, (label, start - at, end - at)], key=lambda span: span[1])


def _add_provided(lines: Sequence[Line], found: Located) -> set[tuple[int, int]]:
    """The maintained rule set's finds that landwatch's own did not make; the (line, start) of
    those it finds only likely."""
    likely: set[tuple[int, int]] = set()
    provided = by_line(provider_tokens([line.raw for line in lines]))
    for index, on_line in provided.items():
        ours = found.get(index, [])
        more = []
        text = lines[index].text
        urls = UrlPasswords(text)  # once a line, however many tokens it holds
        for token, (start, end) in zip(on_line, text_spans(lines[index].raw, on_line), strict=True):
            if overlaps(ours, start, end) or not _credential(text, start, end, urls):
                continue
            if "jwt" in token.label and not jwt_well_formed(text[start:end]):
                continue  # JWT-shaped, but its header or claims are no JSON
            more.append((described(token), start, end))
            if not token.confident:
                likely.add((index, start))
        found[index] = sorted(ours + more, key=lambda span: span[1])
    return likely


_LONG_RUN = lazy_compile(r"[A-Za-z0-9_-]{34}")


def _add_prefixed(lines: Sequence[Line], found: Located) -> set[tuple[int, int]]:
    """Tokens of a service's prefix no format named, all of them only likely."""
    likely: set[tuple[int, int]] = set()
    for index, line in enumerate(lines):
        if not _LONG_RUN.search(line.text):
            continue  # no run long enough for a prefix and thirty random characters
        known = found.get(index, [])
        more = [t for t in prefixed_tokens(line.text) if not overlaps(known, t[1], t[2])]
        if more:
            found[index] = sorted(known + more, key=lambda span: span[1])
            likely.update((index, start) for _, start, _ in more)
    return likely


def _credential(text: str, start: int, end: int, urls: UrlPasswords) -> bool:
    """Whether a token the rule set found is no stand-in (landwatch's own formats are judged
    the same way): not a placeholder, not shown cut short, no URL whose password is one."""
    return not (
        placeholder_token(text[start:end]) or masked(text, end) or urls.all_stand_ins(start, end)
    )


def overlaps(spans: list[tuple[str, int, int]], start: int, end: int) -> bool:
    """Whether [start, end) overlaps any of `spans`, sorted by start and not overlapping each
    other (as tokens() gives them): a look at two neighbours, not at every one."""
    at = bisect_left(spans, start, key=lambda span: span[1])
    return any(
        s_start < end and start < s_end for _, s_start, s_end in spans[max(0, at - 1) : at + 1]
    )


RULES = [PrivateKey, TokenFormat, GenericSecret, Credentials]
