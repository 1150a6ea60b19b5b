"""Finding secrets in text and never repeating them: private key material, tokens of known formats,
secret-looking literals given to secret-like names, and the redaction every output uses.

A library of detectors without rules: the secret rules (rules/secrets.py) report what it finds.
"""

from __future__ import annotations

import math
import re
import string
from bisect import bisect_right
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from landwatch.review.change import Line

_ASCII_LOWER = str.maketrans(string.ascii_uppercase, string.ascii_lowercase)


def _ascii_lower(text: str) -> str:
    """Lower case that keeps every offset: str.lower lengthens some non-ASCII characters."""
    return text.lower() if text.isascii() else text.translate(_ASCII_LOWER)


def redact(secret: str) -> str:
    """At most the first four characters of a secret and an ellipsis; `****` for short ones."""
    if len(secret) <= 8:
        return "****"
    return secret[:4] + "…"


def shannon_entropy(value: str) -> float:
    """Bits per character of `value` as its own character frequencies make it."""
    if not value:
        return 0.0
    size = len(value)
    return -sum(count / size * math.log2(count / size) for count in Counter(value).values())


def lines_with(
    lines: Sequence[Line], needles: Iterable[bytes] = (), folded: Iterable[bytes] = ()
) -> dict[int, set[bytes]]:
    """The lines holding any of `needles`, or of `folded` ignoring case, by index: which ones."""
    # One substring scan of a joined buffer per needle is far cheaper than any per-line work,
    # and ordinary code seldom holds the needles.
    if not lines:
        return {}
    raws = [line.raw for line in lines]
    blob = b"\n".join(raws)
    folded = tuple(folded)
    lowered = blob.lower() if folded else b""
    lowered_raws: list[bytes] | None = None
    starts: list[int] | None = None
    hits: defaultdict[int, set[bytes]] = defaultdict(set)
    for haystack, needle in [*((blob, n) for n in needles), *((lowered, n) for n in folded)]:
        count = haystack.count(needle)
        if not count:
            continue
        if count * 16 > len(lines):
            # A needle on many lines (`token` in an auth module): testing each line costs
            # less than locating each occurrence in the buffer.
            if haystack is blob:
                per_line = raws
            else:
                lowered_raws = lowered_raws or lowered.split(b"\n")
                per_line = lowered_raws
            for index in [index for index, raw in enumerate(per_line) if needle in raw]:
                hits[index].add(needle)
            continue
        if starts is None:
            starts = [0, *accumulate(len(raw) + 1 for raw in raws)]
        at = haystack.find(needle)
        while at >= 0:
            index = bisect_right(starts, at) - 1
            hits[index].add(needle)
            at = haystack.find(needle, starts[index + 1])
    return hits


# Past this, a snippet is a window around the first secret: a minified line would bury it.
_SNIPPET_WIDTH = 240


def may_hold_secret(text: str) -> bool:
    """False when no detector could find anything on `text`: most lines, decided in a few
    substring tests before any pattern runs."""
    if any(needle in text for needle in _EXACT_TEXT_NEEDLES):
        return True
    lowered = _ascii_lower(text)
    return any(needle in lowered for needle in _FOLDED_TEXT_NEEDLES)


def _secret_spans(text: str, secrets: Iterable[tuple[int, int]]) -> list[list[int]]:
    """Where the secrets of `text` are, merged: the ones given, every copy of each, and every
    one a detector finds (known tokens, key bodies, any literal given to a secret-like name,
    whatever its entropy: over-redacting is harmless)."""
    spans = list(secrets)
    for start, end in list(spans):
        value = text[start:end]
        at = text.find(value)
        while value and at >= 0:
            spans.append((at, at + len(value)))
            at = text.find(value, at + 1)
    if "://" in text or "assw" in text.lower() or "pwd" in text.lower():
        spans.extend((start, end) for _, start, end in credentials(text))
    if may_hold_secret(text):
        spans.extend((start, end) for _, start, end in tokens(text))
        spans.extend(key_spans(text))
        spans.extend(
            (start, end) for _, start, end in assignments(text, unquoted=False, min_entropy=0.0)
        )
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return merged


def _replaced(text: str, merged: list[list[int]]) -> str:
    parts: list[str] = []
    at = 0
    for start, end in merged:
        parts += [text[at:start], redact(text[start:end])]
        at = end
    parts.append(text[at:])
    return "".join(parts)


def redact_secrets(text: str, secrets: Iterable[tuple[int, int]] = ()) -> str:
    """`text` with every secret in it replaced by its redaction: the one step every snippet,
    message and fingerprint of every finding goes through, whichever rule or linter made it."""
    merged = _secret_spans(text, secrets)
    return _replaced(text, merged) if merged else text


def redacted_snippet(text: str, secrets: Iterable[tuple[int, int]]) -> str:
    """The line with every secret on it redacted, a window around the first on a long line.

    Known tokens and other copies of each secret on the line are redacted too, so no finding's
    snippet shows a secret another finding (or another rule) reports.
    """
    merged = _secret_spans(text, secrets)
    shown = _replaced(text, merged)
    if len(shown) <= _SNIPPET_WIDTH:
        return shown
    left = max(0, (merged[0][0] if merged else 0) - _SNIPPET_WIDTH // 2)
    right = left + _SNIPPET_WIDTH
    return ("…" if left else "") + shown[left:right] + ("…" if right < len(shown) else "")


# --- private keys ----------------------------------------------------------------------------

_KEY_HEADER = re.compile(
    r"-----BEGIN (?P<kind>(?:[A-Z0-9]+ ){0,3})PRIVATE KEY(?P<block> BLOCK)?-----"
    r"|-----BEGIN (?P<openvpn>OpenVPN Static key V1)-----"
    r"|^\s*(?P<putty>PuTTY-User-Key-File-[23]): "
)
_KEY_END = re.compile(r"-----END |^\s*Private-MAC: ")
_KEY_FIELD = re.compile(r"[\s\"'`]*[A-Za-z][\w-]*: ")
# A body line as it sits in a PEM file, a YAML block, or a quoted string of code.
_KEY_LINE = re.compile(r"[\s\"'`]*([A-Za-z0-9+/=]+)(?:\\n)?[\s\"'`,+\\]*")
_KEY_CHUNK = re.compile(r"[A-Za-z0-9+/=]{16,}")
_KEY_KINDS = {
    "": "private key (PKCS#8)",
    "ENCRYPTED": "encrypted private key (PKCS#8)",
    "OPENSSH": "OpenSSH private key",
    "PGP": "PGP private key block",
}
# Fewer characters of body than this is a mention of the format (a parser, docs), not a key.
MIN_KEY_MATERIAL = 64
_MAX_KEY_LINES = 2000


KEY_NEEDLES = (b"PRIVATE KEY", b"PuTTY-User-Key-File-", b"OpenVPN Static key")


def key_headers(text: str) -> Iterator[tuple[str, int]]:
    """(what kind of key, where its header ends) of every key header on a line."""
    for match in _KEY_HEADER.finditer(text):
        yield _key_label(match), match.end()


def _key_label(match: re.Match[str]) -> str:
    if match["putty"]:
        return "PuTTY private key"
    if match["openvpn"]:
        return "OpenVPN static key"
    kind = match["kind"].strip()
    return _KEY_KINDS.get(kind, f"{kind} private key")


def key_spans(text: str) -> list[tuple[int, int]]:
    """Where key bodies sit on a line that holds a header, for redacting other snippets."""
    if "PRIVATE KEY" not in text and "OpenVPN Static key" not in text:
        return []
    return [span for m in _KEY_HEADER.finditer(text) for span in key_on_line(text, m.end())[0]]


def key_on_line(text: str, start: int) -> tuple[list[tuple[int, int]], str]:
    """The key body on the header's own line (a key held in one JSON or code string)."""
    end = text.find("-----END ", start)
    # Escaped line ends become two spaces so offsets still point into the line.
    tail = text[start : end if end >= 0 else len(text)].replace("\\n", "  ")
    chunks = list(_KEY_CHUNK.finditer(tail))
    if not chunks:
        return [], ""
    span = (start + chunks[0].start(), start + chunks[-1].end())
    return [span], "".join(chunk[0] for chunk in chunks)


def rotated_key_lines(content: bytes, added: set[int]) -> list[tuple[str, int]]:
    """(kind, first added line) of each private key block of `content` whose body holds added
    lines while its header did not change: a key regenerated in place."""
    found = []
    lines = content.decode("utf-8", errors="replace").split("\n")
    at = 0
    while at < len(lines):
        header = _KEY_HEADER.search(lines[at])
        if header is None:
            at += 1
            continue
        label, start = _key_label(header), at
        end = start + 1
        while end < len(lines) and end - start < _MAX_KEY_LINES and not _KEY_END.search(lines[end]):
            end += 1
        body = [
            n + 1 for n in range(start + 1, end) if _KEY_LINE.fullmatch(lines[n].strip() or "-")
        ]
        touched = [n for n in body if n in added]
        if touched and (start + 1) not in added and len(body) * 48 >= MIN_KEY_MATERIAL:
            found.append((label, touched[0]))
        at = end + 1
    return found


def key_body(lines: Sequence[Line], index: int) -> str:
    """The base64 or hex body on the added lines right after a header, up to its end."""
    chunks: list[str] = []
    previous = lines[index].number
    for line in lines[index + 1 : index + 1 + _MAX_KEY_LINES]:
        if line.number != previous + 1:
            break  # another hunk: no longer the key's body
        previous = line.number
        text = line.text
        if _KEY_END.search(text):
            break
        if not text.strip() or _KEY_FIELD.match(text):
            continue  # PEM headers (Proc-Type:, Version:) and PuTTY fields
        body = _KEY_LINE.fullmatch(text)
        if body is None:
            break
        chunks.append(body[1])
    return "".join(chunks)


# --- tokens of known formats -----------------------------------------------------------------


@dataclass(frozen=True)
class _Format:
    label: str
    # Literal starts of every match (lower case when `folded`): lines without one are skipped.
    anchors: tuple[str, ...]
    pattern: re.Pattern[str]  # group 1 is the secret
    folded: bool = False
    mixed_case: bool = False  # the secret holds upper and lower case letters


_WORD = r"A-Za-z0-9_\-"


def _token(label: str, prefix: str, body: str) -> _Format:
    """A token that starts with a literal prefix and stands alone (not inside a longer word)."""
    pattern = re.compile(rf"(?<![{_WORD}])({re.escape(prefix)}{body})(?![{_WORD}])")
    return _Format(label, (prefix,), pattern)


_FORMATS = (
    _Format(
        "AWS access key ID",
        ("A3T", "AKIA", "ASIA", "ABIA", "ACCA"),
        re.compile(r"\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b"),
    ),
    _Format(
        "AWS secret access key",
        ("aws", "secret"),
        re.compile(
            r"(?i:aws|secret)[\w.'\"\[\] -]{0,40}?(?:=>|:=|=|:)\s*[\"'`]?"
            r"(?<![A-Za-z0-9/+])([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        folded=True,
        mixed_case=True,
    ),
    _token("GitHub personal access token", "ghp_", "[A-Za-z0-9]{36}"),
    _token("GitHub OAuth access token", "gho_", "[A-Za-z0-9]{36}"),
    _token("GitHub user-to-server token", "ghu_", "[A-Za-z0-9]{36}"),
    _token("GitHub server-to-server token", "ghs_", "[A-Za-z0-9]{36}"),
    _token("GitHub refresh token", "ghr_", "[A-Za-z0-9]{36}"),
    _token("GitHub fine-grained personal access token", "github_pat_", "[A-Za-z0-9_]{82}"),
    _token("GitLab personal access token", "glpat-", "[A-Za-z0-9_-]{20,}"),
    _Format(
        "Slack token",
        ("xox",),
        re.compile(rf"(?<![{_WORD}])(xox[baprs]-[0-9]+-[A-Za-z0-9-]{{10,}})(?![{_WORD}])"),
    ),
    _Format(
        "Slack webhook URL",
        ("https://hooks.slack.com/services/",),
        # The secret is the path: the host alone says what it is and is no secret.
        re.compile(
            r"https://hooks\.slack\.com/services/([A-Za-z0-9_]+/[A-Za-z0-9_]+/[A-Za-z0-9]{20,})"
        ),
    ),
    _token("Stripe live secret key", "sk_live_", "[A-Za-z0-9]{24,}"),
    _token("Stripe live restricted key", "rk_live_", "[A-Za-z0-9]{24,}"),
    _token("Google API key", "AIza", "[0-9A-Za-z_-]{35}"),
    _Format(
        "JSON Web Token",
        ("eyJ",),
        re.compile(
            rf"(?<![{_WORD}])(eyJ[{_WORD}]{{8,}}\.eyJ[{_WORD}]{{8,}}\.[{_WORD}]{{8,}})(?![{_WORD}])"
        ),
    ),
    _token("npm access token", "npm_", "[A-Za-z0-9]{36}"),
    _token("PyPI upload token", "pypi-AgEIcHlwaS5vcmc", "[A-Za-z0-9_-]{50,}"),
    _Format(
        "SendGrid API key",
        ("SG.",),
        re.compile(rf"(?<![{_WORD}.])(SG\.[{_WORD}]{{22}}\.[{_WORD}]{{43}})(?![{_WORD}])"),
    ),
)


FORMAT_LABELS = tuple(token_format.label for token_format in _FORMATS)


def _by_needle() -> dict[bytes, list[tuple[_Format, str]]]:
    table: dict[bytes, list[tuple[_Format, str]]] = {}
    for token_format in _FORMATS:
        for anchor in token_format.anchors:
            table.setdefault(anchor.encode(), []).append((token_format, anchor))
    return table


_BY_NEEDLE = _by_needle()
TOKEN_NEEDLES = tuple(anchor.encode() for f in _FORMATS if not f.folded for anchor in f.anchors)
TOKEN_NEEDLES_FOLDED = tuple(anchor.encode() for f in _FORMATS if f.folded for anchor in f.anchors)
# Documentation placeholders (AKIAIOSFODNN7EXAMPLE, ghp_xxxx…) are well formed but no secret.
_TOKEN_DUMMY = re.compile(r"example|(.)\1{7}", re.IGNORECASE)
_ELLIPSIS = ("...", "…")


def truncated(text: str, end: int) -> bool:
    """Whether a value ending at `end` is cut short on purpose (`eyJhbGciOi...`, `sk_live_…`):
    docs show the start of a token that way, never a usable one."""
    return text.startswith(_ELLIPSIS, end)


def tokens(text: str, anchors: Collection[bytes] | None = None) -> list[tuple[str, int, int]]:
    """(label, start, end) of every known token on a line, in order, overlaps dropped.

    `anchors`, when known, are the anchors the line holds: other formats need no look.
    """
    lowered = _ascii_lower(text)
    found: list[tuple[int, int, str]] = []
    for needle in _BY_NEEDLE if anchors is None else anchors:
        for token_format, anchor in _BY_NEEDLE.get(needle, ()):
            haystack = lowered if token_format.folded else text
            # Every match starts with its anchor: try the pattern only where an anchor is.
            at = haystack.find(anchor)
            while at >= 0:
                match = token_format.pattern.match(text, at)
                at = haystack.find(anchor, match.end() if match else at + 1)
                if match is None:
                    continue
                value = match[1]
                if _TOKEN_DUMMY.search(value) or truncated(text, match.end(1)):
                    continue
                if token_format.mixed_case and (value.lower() == value or value.upper() == value):
                    continue
                found.append((match.start(1), match.end(1), token_format.label))
    tokens: list[tuple[str, int, int]] = []
    # At one start the longer match wins: a JWT segment is no AWS secret key.
    for start, end, label in sorted(found, key=lambda item: (item[0], -item[1])):
        if tokens and start < tokens[-1][2]:
            continue
        tokens.append((label, start, end))
    return tokens


# --- secret-looking literals assigned to secret-like names ---------------------------------------

_NAME_WORDS = (
    "passw(?:or)?d|pwd|secret|token|credentials?|api[_-]?key|access[_-]?key|private[_-]?key"
)
SECRET_NAME_NEEDLES = tuple(
    word.encode()
    for word in (
        "passw",
        "pwd",
        "secret",
        "token",
        "credential",
        "apikey",
        "api_key",
        "api-key",
        "accesskey",
        "access_key",
        "access-key",
        "privatekey",
        "private_key",
        "private-key",
    )
)
_NAME = rf"(?<![\w.-])(?P<name>[\w.-]*?(?:{_NAME_WORDS})[\w.-]*)"
# `=`, `:`, `:=`, `=>` and a typed `name: str =`; comparisons (`==`, `!=`) are not assignments.
_ASSIGN = r"(?:=>|:=|=(?!=)|:(?!:)(?:\s*[A-Za-z_][\w\[\]., |]*?\s*=(?!=))?)"
_VALUE = r"\s*[rbuf]{0,2}(?:\"(?P<dq>[^\"]*)\"|'(?P<sq>[^']*)'|`(?P<bq>[^`]*)`)"
# These match ASCII-lowered text (see _ascii_lower): case-insensitive matching is several times
# slower. This one starts at the secret word; the rest of the name is found by scanning back.
_QUOTED = re.compile(
    # A key may close its own quote or subscript: "password": ..., settings['SECRET_KEY'] = ...
    rf"(?:{_NAME_WORDS})[\w.-]*(?P<end>)(?:[\"'`]\]?)?\s*{_ASSIGN}" + _VALUE
)
# A call setting a secret by name (PHP's define, setenv, a header): define('DB_PASSWORD', '...').
# Only as a call's first argument: a tuple or list of names, ("token", "refresh"), is not one.
_CALL = re.compile(r"(?<=[\w$])\(\s*[\"'`]" + _NAME + r"[\"'`]\s*," + _VALUE)
# In .env, INI and YAML files the rest of a `key=value` line is a literal; elsewhere an unquoted
# value is code (a variable, a call). Values opening with YAML syntax (!tag, &anchor, *alias,
# |, >, {, [) are not scalars.
_UNQUOTED = re.compile(
    r"^\s*(?:export\s+|-\s+)?"
    + _NAME
    + r"\s*[=:]\s*(?P<value>[^\s\"'`#;!&*|>{\[%@<]\S*)(?:\s+[#;].*)?\s*$"
)
_PLACEHOLDER = re.compile(
    r"\$\{|\{\{|\{%|<%|#\{|%\(\w+\)|^\$[A-Za-z_(]|\{(?:[A-Za-z_][^{}]*|\d*)\}|^<[^<>]+>$"
)
_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)
_HEX_DIGEST = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}", re.I)
_INTEGRITY = re.compile(r"sha(?:1|256|384|512)-[A-Za-z0-9+/]+={0,2}")
_URL_OR_PATH = re.compile(r"[a-z][a-z0-9+.-]*://[^@]*|(?:~|\.{1,2})?/[\w.-]+/[\w./-]*", re.I)
# Names rather than values: `password_confirmation`, `auth.token.expired`, `X-Auth-Token`.
_IDENTIFIER = re.compile(r"[A-Za-z]+(?:[._-][A-Za-z]+)+")
_DUMMY_PREFIXES = ("test", "dummy", "fake", "sample", "example", "your")
_DUMMY_WORDS = ("changeme", "example", "placeholder", "redacted", "password")
_REPEATED = re.compile(r"(.)\1{5}")


def secret_looking(value: str, min_entropy: float) -> bool:
    """Whether a literal assigned to a secret-like name looks like a real secret."""
    if len(value) < 8 or any(character.isspace() for character in value):
        return False  # too short to be guessed at, or prose (messages, labels)
    if _PLACEHOLDER.search(value) or "\\" in value:
        return False  # a template, or a regular expression or escape sequence
    if value.endswith(_ELLIPSIS) or "..." in value:
        return False  # a token shown cut short in docs
    if (
        _UUID.fullmatch(value)
        or _HEX_DIGEST.fullmatch(value)
        or _INTEGRITY.fullmatch(value)
        or _URL_OR_PATH.fullmatch(value)
        or _IDENTIFIER.fullmatch(value)
    ):
        return False
    plain = value.lower().replace("-", "").replace("_", "")
    if plain.startswith(_DUMMY_PREFIXES) or any(word in plain for word in _DUMMY_WORDS):
        return False
    if _REPEATED.search(value):
        return False
    return shannon_entropy(value) >= min_entropy


def _name_start(text: str, at: int) -> int:
    """Where the identifier holding text[at] starts (DB_ of DB_PASSWORD, github of githubToken)."""
    while at > 0 and (text[at - 1].isalnum() or text[at - 1] in "_.-"):
        at -= 1
    return at


def assignments(text: str, *, unquoted: bool, min_entropy: float) -> list[tuple[str, int, int]]:
    """(name, start, end) of each secret-looking value a secret-like name is given on a line."""
    lowered = _ascii_lower(text)
    found: list[tuple[str, int, int]] = []
    for match in _QUOTED.finditer(lowered):
        group = next(g for g in ("dq", "sq", "bq") if match[g] is not None)
        name = text[_name_start(text, match.start()) : match.start("end")]
        found.append((name, match.start(group), match.end(group)))
    for match in _CALL.finditer(lowered):
        group = next(g for g in ("dq", "sq", "bq") if match[g] is not None)
        found.append((text[match.start("name") : match.end("name")], *match.span(group)))
    if unquoted and not found and (bare := _UNQUOTED.match(lowered)) is not None:
        name = text[bare.start("name") : bare.end("name")]
        found.append((name, bare.start("value"), bare.end("value")))
    return [
        (name, start, end)
        for name, start, end in sorted(set(found), key=lambda item: item[1])
        if secret_looking(text[start:end], min_entropy)
    ]


# The anchors of every detector as text: a line holding none of them holds no secret we find.
_EXACT_TEXT_NEEDLES = tuple(needle.decode() for needle in (*TOKEN_NEEDLES, *KEY_NEEDLES))
_FOLDED_TEXT_NEEDLES = tuple(
    needle.decode() for needle in (*TOKEN_NEEDLES_FOLDED, *SECRET_NAME_NEEDLES)
)


# --- credentials in URLs, connection strings and credential files ------------------------------

# scheme://user:password@host: the password is the part between the colon and the @.
_URL_CREDENTIALS = re.compile(
    r"\b[a-z][a-z0-9+.-]*://(?P<user>[^\s:/@\"'`<>{}]*):(?P<password>[^\s/@\"'`<>]+)@[\w.-]+",
    re.I,
)
# ADO.NET, ODBC and JDBC-style `Server=...;Password=...;`: the value runs to the next `;` or
# quote, and the line names where to connect too (`password = f()` in code is no such string).
_CONNECTION_PASSWORD = re.compile(
    r"(?:^|[;\"'\s])(?:password|pwd)\s*=\s*(?P<password>[^;\"'\s]+)\s*(?=;|[\"']|$)", re.I
)
_CONNECTION_PARTS = re.compile(
    r"(?:server|data source|host|hostname|uid|user id|user|username|database|initial catalog|"
    r"provider|driver|dsn)\s*=[^;]*;",
    re.I,
)
# .pypirc and .netrc: `password = x` / `password x` on a line of its own.
_CREDENTIAL_FILE_PASSWORD = re.compile(
    r"^\s*(?:password|passwd)\s*[=:\s]\s*(?P<password>\S+)\s*$", re.I
)
CREDENTIAL_FILES = (".pypirc", ".netrc", "_netrc", ".git-credentials")
_NOT_A_PASSWORD = re.compile(
    r"^(?:\*+|x+|\.+|-+|_+|pass(?:word)?|passwd|pwd|secret|changeme|none|null|nil|true|false|"
    r"yourpassword|your[_-]?password|mypassword|my[_-]?password|example|sample|dummy|test|"
    r"username|user)$",
    re.I,
)
CREDENTIAL_NEEDLES = (b"://", b"password", b"pwd")


def credentials(text: str, *, credential_file: bool = False) -> list[tuple[str, int, int]]:
    """(what, start, end) of each password on a line: in a URL's user info, a connection
    string, or (`credential_file`) a `.pypirc`/`.netrc` line; placeholders are let through."""
    found: list[tuple[str, int, int]] = []
    for match in _URL_CREDENTIALS.finditer(text):
        found.append(("password in a URL", *match.span("password")))
    if ";" in text and _CONNECTION_PARTS.search(text):
        for match in _CONNECTION_PASSWORD.finditer(text):
            found.append(("password in a connection string", *match.span("password")))
    line = _CREDENTIAL_FILE_PASSWORD.match(text) if credential_file else None
    if line is not None:
        found.append(("password in a credential file", *line.span("password")))
    kept: list[tuple[str, int, int]] = []
    for what, start, end in sorted(set(found), key=lambda item: item[1]):
        value = text[start:end]
        if kept and start < kept[-1][2]:
            continue
        if _placeholder_password(value):
            continue
        kept.append((what, start, end))
    return kept


def _placeholder_password(value: str) -> bool:
    unwrapped = value.strip("<>[]{}()%$")
    return (
        len(value) < 4
        or bool(_NOT_A_PASSWORD.match(unwrapped))
        or bool(_PLACEHOLDER.search(value))
        or value.startswith(("$", "%", "<", "{", "${"))
        or value.endswith(_ELLIPSIS)
        or _REPEATED.search(value) is not None
    )
