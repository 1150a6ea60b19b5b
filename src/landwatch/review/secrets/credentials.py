"""Passwords where the place says they are passwords: a URL's user info, a connection string,
a credential file (.pypirc, .netrc, .git-credentials), whatever their entropy.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import re

from landwatch.lazy_re import lazy_compile
from landwatch.review.secrets.commands import COMMAND_NEEDLES, command_passwords
from landwatch.review.secrets.scanning import MASKS, PLACEHOLDER, ascii_lower
from landwatch.review.secrets.values import password_value, stand_in

# Every pattern here runs in time linear in the line: each starts at a fixed anchor (`://`, a
# separator before `password`), its quantifiers take disjoint characters or are possessive, and
# none scans on to a character that may be far away (docs/security.md, "Every scan is linear").
# scheme://user:password@host, matched from the `://`: the password is the part between the
# colon and the @. The scheme before it is checked apart (`_SCHEME`), never scanned for.
_URL_CREDENTIALS = lazy_compile(
    r"://(?P<user>[^\s:/@\"'`<>{}]*+):(?P<password>[^\s/@\"'`<>]++)@[\w.-]",
)
_SCHEME = lazy_compile(r"(?<![a-z0-9+.-])[a-z][a-z0-9+.-]{0,31}$", re.I)
# ADO.NET, ODBC and JDBC-style `Server=...;Password=...;`: the value runs to the next `;` or
# quote, and the line names where to connect too (`password = f()` in code is no such string).
_CONNECTION_PASSWORD = lazy_compile(
    r"(?:^|[;\"'\s])(?:password|pwd)\s*+=\s*+(?P<password>[^;\"'\s]++)\s*+(?=;|[\"']|$)", re.I
)
# A part naming where to connect; it counts when a `;` comes after it.
_CONNECTION_PART = lazy_compile(
    r"(?:server|data source|host|hostname|uid|user id|user|username|database|initial catalog|"
    r"provider|driver|dsn)\s*+=",
    re.I,
)
# .pypirc and .netrc: `password = x` / `password x` on a line of its own.
_CREDENTIAL_FILE_PASSWORD = lazy_compile(
    r"\s*+(?:password|passwd)(?:\s*+[=:]\s*+|\s++)(?P<password>\S++)\s*+$", re.I
)
CREDENTIAL_FILES = (".pypirc", ".netrc", "_netrc", ".git-credentials")
_NOT_A_PASSWORD = lazy_compile(
    r"^(?:\*+|x+|\.+|-+|_+|pass(?:word)?|passwd|pwd|secret|changeme|none|null|nil|true|false|"
    r"yourpassword|your[_-]?password|mypassword|my[_-]?password|example|sample|dummy|test|"
    r"username|user|token|key|pass\d?|passwd\d?)$",
    re.I,
)
# A password given after its label, in any file: `pw:Dk3!x9`, `--password=…`, `Password: …`.
# The label is a word of its own (not `bypass`), the value unquoted (a quoted one is the
# generic-secret rule's) and at most 64 characters: a bounded look from each label.
_LABELLED_PASSWORD = lazy_compile(
    r"(?<![A-Za-z])(?P<label>pass(?:word)?s?|passwd|pwd|pw)\s*+(?:=>|[:=])\s*+"
    r"(?P<password>[^\s,;'\"`()<>\[\]{}|]{4,64})(?![^\s,;'\"`()<>\[\]{}|])",
    re.I,
)
# Lower-case words joined by hyphens or underscores: after `pass`, a verb in prose ("tests
# pass: multi-header merge") far more often than a password's label, they are the sentence.
_JOINED_WORDS = lazy_compile(r"[a-z]++(?:[-_][a-z]++)++")
# An HTTP Authorization header's credentials: `Authorization: Bearer …`, `Basic …`, `NTLM …`.
_AUTHORIZATION = lazy_compile(
    r"authorization[\"']?\s*+[:=]\s*+[\"']?(?P<scheme>bearer|basic|token|ntlm|digest)\s++"
    r"(?P<credential>[A-Za-z0-9._~+/=-]{12,4096})",
    re.I,
)
# SQL's `PASSWORD 'x'`, `WITH PASSWORD = 'x'`, `IDENTIFIED BY 'x'`, and a bare one before `;`.
# The keyword stands apart: not in a string of its own (`$m['password'] ?? ''` is code reading
# a key), and a space or `=` before the value.
_SQL_PASSWORD = lazy_compile(
    r"(?<![\w.'\"$])(?:password|identified\s++by)(?:\s++=?|\s*+=)\s*+"
    r"(?:'(?P<quoted>[^']{1,128})'(?!\s*+\))|(?P<bare>[^\s;'\"()]{6,64})(?=\s*+;))",
    re.I,
)
# MySQL's `PASSWORD('…')` function, written in capitals as SQL is (`password('…')` is a call of
# code, whose argument need not be a password).
_SQL_FUNCTION = lazy_compile(r"(?<![\w.$])PASSWORD\(\s*+'(?P<password>[^']{1,128})'\s*+\)")
# PowerShell's `ConvertTo-SecureString "…" -AsPlainText`: a password written in the script.
_SECURE_STRING = lazy_compile(
    r"convertto-securestring\s++(?:-string\s++)?\\?[\"'](?P<password>[^\"'\\]{4,128})\\?[\"']", re.I
)
# curl's `-u user:password` and `--user "user:password"`.
_CURL_USER = lazy_compile(
    r"(?:^|\s)(?:-u|--user)\s++[\"']?(?P<user>[^\s:\"']*+)[\"']?:[\"']?"
    r"(?P<password>[^\s\"']++)",
)
CREDENTIAL_NEEDLES = (
    b"://",
    b"pass",
    b"pwd",
    b"pw",
    b"authorization",
    b"identified",
    b"-u",
    b"--user",
    b"securestring",
    *COMMAND_NEEDLES,
)
_COMMAND_TEXT_NEEDLES = tuple(needle.decode() for needle in COMMAND_NEEDLES)


def credentials(text: str, *, credential_file: bool = False) -> list[tuple[str, int, int]]:
    """(what, start, end) of each password on a line: in a URL's user info, a connection
    string, after its label (`pw:…`, `--password=…`), in an Authorization header, or
    (`credential_file`) a `.pypirc`/`.netrc` line; placeholders are let through."""
    found: list[tuple[str, int, int]] = []
    found.extend(("password in a URL", *span) for span in _url_passwords(text))
    if ";" in text and _names_a_server(text):
        for match in _CONNECTION_PASSWORD.finditer(text):
            found.append(("password in a connection string", *match.span("password")))
    line = _CREDENTIAL_FILE_PASSWORD.match(text) if credential_file else None
    if line is not None:
        found.append(("password in a credential file", *line.span("password")))
    for match in _LABELLED_PASSWORD.finditer(text):
        if match["label"].lower() in ("pass", "passes") and _JOINED_WORDS.fullmatch(
            match["password"]
        ):
            continue
        if password_value(match["password"], in_code=True):
            found.append(("password after its label", *match.span("password")))
    for match in _AUTHORIZATION.finditer(text):
        if match["scheme"].lower() == "basic" and basic_stand_in(match["credential"]):
            continue
        found.append(("credentials in an Authorization header", *match.span("credential")))
    for match in _SQL_PASSWORD.finditer(text):
        group = "quoted" if match["quoted"] is not None else "bare"
        found.append(("password in SQL", *match.span(group)))
    for match in _SQL_FUNCTION.finditer(text):
        found.append(("password in SQL", *match.span("password")))
    for match in _SECURE_STRING.finditer(text):
        found.append(("password given to ConvertTo-SecureString", *match.span("password")))
    if "curl" in text:
        for match in _CURL_USER.finditer(text):
            found.append(("password given to curl", *match.span("password")))
    lowered = ascii_lower(text)
    if any(needle in lowered for needle in _COMMAND_TEXT_NEEDLES):
        for start, end in command_passwords(text):
            if password_value(text[start:end], in_code=False):
                found.append(("password on a command line", start, end))
    kept: list[tuple[str, int, int]] = []
    # At one place the first way found wins: a connection string's password is one first.
    for what, start, end in sorted(dict.fromkeys(found), key=lambda item: item[1]):
        value = text[start:end]
        if kept and start < kept[-1][2]:
            continue
        if _placeholder_password(value):
            continue
        kept.append((what, start, end))
    return kept


def _url_passwords(text: str) -> list[tuple[int, int]]:
    """Where the password of each `scheme://user:password@host` on a line is."""
    found = []
    at = text.find("://")
    while at >= 0:
        match = _URL_CREDENTIALS.match(text, at)
        if match is not None and _SCHEME.search(text, max(0, at - 32), at):
            found.append(match.span("password"))
        at = text.find("://", match.end() if match else at + 3)
    return found


class UrlPasswords:
    """The passwords of a line's `scheme://user:password@host` URLs, found once for the line:
    whether what a rule found at [start, end) is, or holds, URL credentials whose every password
    is a stand-in (`user:password@`, `:<password>@`), a documentation example whichever rule
    found it (the whole URL or its password alone)."""

    def __init__(self, text: str) -> None:
        # In order and apart, as _url_passwords finds them: a bisection finds those a span meets.
        self._spans = _url_passwords(text)
        self._ends = [end for _, end in self._spans]
        self._stand_in = [_placeholder_password(text[start:end]) for start, end in self._spans]

    def all_stand_ins(self, start: int, end: int) -> bool:
        at = bisect.bisect_right(self._ends, start)
        met = False
        while at < len(self._spans) and self._spans[at][0] < end:
            if not self._stand_in[at]:
                return False
            met = True
            at += 1
        return met


def _names_a_server(text: str) -> bool:
    """Whether a line names where to connect (`Server=...;`): a part followed by a `;`."""
    part = _CONNECTION_PART.search(text)
    return part is not None and text.rfind(";") >= part.end()


def decoded(value: str) -> str | None:
    """What base64 `value` encodes, when it is printable text; else None."""
    try:
        text = base64.b64decode(value, validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return None
    return text if text.isprintable() else None


def basic_stand_in(credential: str) -> bool:
    """Whether an Authorization header's Basic credentials, base64 of `user:password`, hold a
    password that stands in (`user:password`, `admin:<password>`) or none."""
    text = decoded(credential)
    if text is None or ":" not in text:
        return False
    password = text.partition(":")[2]
    return not password or _placeholder_password(password)


def data_stand_in(value: str) -> bool:
    """Whether a Kubernetes Secret's value stands in, as written (`stringData`) or as what its
    base64 encodes (`data`: `PHBhc3N3b3JkPg==` is `<password>`). A manifest is deployed as it
    is: a weak password in it (`admin:password`) is the one deployed; only a template, a mask
    or a word alone saying it is none (`changeme`, `password`) stands in."""
    return any(
        text is not None
        and (
            text.startswith(("$", "%", "<", "{"))
            or bool(PLACEHOLDER.search(text) or _NOT_A_PASSWORD.match(text.strip("<>[]{}()%$")))
            or any(mask in text for mask in MASKS)
        )
        for text in (value, decoded(value))
    )


def _placeholder_password(value: str) -> bool:
    unwrapped = value.strip("<>[]{}()%$")
    return (
        len(value) < 4
        or bool(_NOT_A_PASSWORD.match(unwrapped))
        or value.startswith(("$", "%", "<", "{", "${"))
        or stand_in(value)
    )
