"""Every secret pattern family runs in time linear in the line (docs/security.md, "Every review is
bounded"): each is given adversarial lines of 10 KB, 100 KB and 1 MB, built to make a
backtracking pattern try its work again from every character, and ten times the line may take
about ten times as long, never a hundred.

Only ratios of times measured in the same run are compared, so the machine's speed does not
matter, and they are the process's CPU time, so other work on a busy machine does not either;
a pattern that is quadratic again fails at 100 KB, before the 1 MB line would take hours.
"""

from __future__ import annotations

import random
import string
from collections.abc import Callable

import pytest

from landwatch.review.diffs import Line
from landwatch.review.rules.assigned_secrets import Credentials, GenericSecret
from landwatch.review.rules.secrets import RULES, TokenFormat
from landwatch.review.secrets.detectors import detected_spans, forget
from landwatch.review.secrets.manifests import secret_data
from landwatch.review.secrets.private_keys import rotated_key_lines
from landwatch.review.secrets.redaction import redact_words
from support.timing import cpu_seconds
from support.tokens import github_token

SIZES = (10_000, 100_000, 1_000_000)
# Linear work grows ten times from one size to the next, quadratic a hundred times.
MOST_GROWTH = 30.0
# Measurements taken again before a growth past MOST_GROWTH counts: a busy machine's, not the
# pattern's, when a second look is within it.
MORE_TRIES = 2
HEADER = "-----BEGIN " + "PRIVATE KEY-----"


def repeated(unit: str) -> Callable[[int], str]:
    return lambda size: (unit * (size // len(unit) + 1))[:size]


def distinct_tokens(size: int) -> str:
    chosen = random.Random(size)
    alphabet = string.ascii_letters + string.digits
    count = size // 41 + 1
    return " ".join("ghp_" + "".join(chosen.choices(alphabet, k=36)) for _ in range(count))


FAMILIES: dict[str, Callable[[int], str]] = {
    # A secret-like name again and again: each one a candidate assignment.
    "names": repeated("token"),
    "names assigned": repeated("token="),
    "typed names": repeated("token: a "),
    "quoted names": lambda size: 'x = "' + repeated('"token')(size),
    "a call's name": lambda size: 'f("' + repeated("token")(size),
    "unquoted values": lambda size: "token=" + repeated("a ")(size),
    # URLs: schemes without a `://`, and `://` without an `@`.
    "schemes": repeated("a."),
    "user infos": repeated("a://b:c"),
    # URLs with credentials, each found by the maintained rule set too: their passwords are
    # looked up once a line, not once a token.
    "credential urls": repeated("http://deploy:Xk9vQ2mZ7pLw4@proxy.internal:8030 "),
    "connection strings": lambda size: "user=a;" + repeated(" password= x")(size),
    "connection parts": repeated("server="),
    "credential file": lambda size: "password" + " " * size + "x y",
    "password labels": repeated("pw:a1B pw="),
    "authorization headers": repeated("Authorization: Bearer "),
    # Private keys: headers without an end, a body line of `+`.
    "key headers": repeated("-----BEGIN "),
    "key body": lambda size: HEADER + repeated("A")(size),
    "key line": lambda size: repeated("+")(size) + "!",
    # Known token anchors, each one where a token could start.
    "slack anchors": lambda size: repeated("xoxb-1-")(size) + "_",
    "jwt anchors": repeated("eyJaaaaaaaa."),
    "aws secret anchors": repeated("aws: "),
    # Anchors inside a token, each a search of the characters before it.
    "marks inside tokens": repeated("0123Q~1234567:AAf0NRAL"),
    "mark runs": lambda size: "a" * size + "Q~" + "1" * size + ":AA",
    "many tokens": distinct_tokens,
    # Discord's bot tokens, told by shape: a run of digits in base64, and parts without an end.
    "digits in base64": repeated("MTIz"),
    "bot token parts": repeated("MTIzNDU2Nzg5MDEyMzQ1Njc4.GxR4tq."),
    # Atlassian's tokens, told by shape too: an id of digits and a colon, again and again.
    "atlassian token parts": repeated("MTIzNDU2Nzg5MDEyOh"),
    # Syntaxes tried at the end of every secret-like name, and literals compared to one.
    "compared literals": repeated('"a" == '),
    "elements": repeated('<token a="b">'),
    "spaces in an element": lambda size: "<token>a" + " " * size + "b",
    "named elements": repeated('<a name="token" b="c">d '),
    "headers": repeated('-H "token: a'),
    "json names": repeated('"name": "token", "value'),
    "attributes": repeated('key="token" value="'),
    "json keys": repeated('"key": "token", "value'),
    "key elements": repeated("<key>token</key> <value>a "),
    "pair arrows": repeated('"token" -> "a'),
    "flags": repeated("--token "),
    "queries": repeated("?token=a&token"),
    "statements": lambda size: "#define token " + repeated('"a')(size),
    "calls by constant": lambda size: "f(" + repeated("TOKEN, ")(size),
    # Labels in prose and logs, defaults, statements' bare values, encoded query names.
    "prose labels": repeated("token is token - token for a: "),
    "defaults": repeated('env["token"] or ${token:-'),
    "bare statements": lambda size: "env token " + repeated("a")(size),
    "encoded queries": repeated("%26token%3d"),
    "user and password pairs": repeated("id/pw: a:b/c,"),
    "continued strings": lambda size: 'token = """' + repeated("a")(size) + '"',
    "triple-quoted strings": repeated("token = '''a'' "),
    # Formats told where their provider is named: near-shapes after the name, again and again.
    "mailgun shapes": lambda size: (
        "mailgun " + repeated("0123456789abcdef" * 2 + "-0123abcd-")(size)
    ),
    "dropbox shapes": lambda size: "dropbox " + repeated("A")(size),
    "dropbox anchors": lambda size: "dropbox " + repeated("abcdefghijkAAAAAAAAAA-")(size),
    # Percent escapes, each unescaped, and runs of token characters between them.
    "percent escapes": repeated("%3D"),
    "escaped runs": lambda size: "ATATT3" + repeated("ab%2Fcd%2B")(size),
    # Commands whose option takes a password, and the option again and again.
    "command options": lambda size: "mysql " + repeated("-p -p")(size),
    "commands": repeated("docker login mysql "),
    # Prefixed tokens: prefixes without a body, bodies joined by separators.
    "prefixes": repeated("ab_cd-"),
    "prefixed bodies": lambda size: "ab_" + repeated("Zq8Wv7Tu6_")(size),
    # Places that say a password follows: SQL, curl, PowerShell.
    "sql passwords": repeated("password '"),
    "curl users": lambda size: "curl " + repeated("-u a:")(size),
    "secure strings": repeated("ConvertTo-SecureString "),
    # A terminal's colour codes left open, read as spaces before the rule set's scan.
    "colour codes": repeated("\x1b[1;2"),
    # Base64 anchors of a PEM key and a JWT.
    "base64 anchors": repeated("LS0tLS1CRUdJTiZXlK"),
    # A settings file's bare value holding brackets, and names each given one.
    "bracketed settings values": lambda size: "token=" + repeated("a(b]{c$")(size),
    "names given bracketed values": repeated("token=a(b "),
    # URLs' user info, as the words landwatch keeps are redacted: `://` again and again.
    "url user infos": repeated("://a:b"),
    "url user infos ended": repeated("://a@"),
    # A Kubernetes Secret's data, one long entry.
    "secret data": lambda size: "a: " + repeated("Zq8W")(size),
    # Bare values holding the names after them (an audit): each name's value was read to the
    # line's end, by an assignment (`:`), a query (`;` and `=`) and a flag (`=` and `:`).
    "names given colons": repeated("token:"),
    "query names in a row": repeated(";token="),
    "flags given colons": repeated("--token=:"),
    # Whole key headers, none with a body: each one's body was looked for to the line's end.
    "whole key headers": repeated("-----BEGIN " + "PRIVATE KEY-----"),
}


def scan(text: str) -> None:
    """What a review does with a line, remembering nothing from the last time: every secret
    rule on it, and redaction of it."""
    forget()
    lines = [Line(1, text.encode(), b"\n")]
    for rule in RULES:
        # Where a file's name changes what is read: unquoted values (.env), credential files.
        for path in (".env", ".pypirc") if rule in (GenericSecret, Credentials) else ("a.py",):
            list(rule().scan(path, lines))
    detected_spans(text)  # the detectors themselves, not the lines remembered
    redact_words(text)
    rotated_key_lines(f"{HEADER}\n{text}\n".encode(), {2})
    secret_data(f"kind: Secret\ndata:\n  {text}\n".encode())


def seconds(text: str, tries: int) -> float:
    return cpu_seconds(lambda: scan(text), tries)


@pytest.mark.parametrize("family", list(FAMILIES))
def test_each_pattern_family_takes_time_linear_in_the_line(family: str) -> None:
    make = FAMILIES[family]
    times = [seconds(make(SIZES[0]), tries=2)]
    for size in SIZES[1:]:
        tries = 2 if size < SIZES[-1] else 1
        times.append(seconds(make(size), tries))
        # A cold cache or a page fault can still make one measurement long: the best of a few
        # more, of both sizes, is the pattern's own time. A quadratic one stays slow.
        for _ in range(MORE_TRIES):
            if times[-1] / max(times[-2], 1e-4) < MOST_GROWTH:
                break
            times[-2] = min(times[-2], seconds(make(size // 10), tries=2))
            times[-1] = min(times[-1], seconds(make(size), tries))
        growth = times[-1] / max(times[-2], 1e-4)
        assert growth < MOST_GROWTH, (
            f"{family}: {size:,} characters took {growth:.0f} times as long as a tenth of "
            f"them ({times})"
        )


def test_many_secrets_added_to_a_large_file_take_time_linear_in_both() -> None:
    """An audit: each finding searched the whole file before the change for its value (moved,
    not new), so 10,000 secrets added to a 7 MiB file took 40 s: eight times the secrets and
    eight times the file took 64 times as long. Now about eight."""

    def scanned(count: int) -> float:
        before = b"# a line of the file before, nothing secret in it\n" * (count * 200)
        tokens = [github_token(f"many-{n}") for n in range(count)]
        lines = [Line(n, f'T{n} = "{token}"'.encode(), b"\n") for n, token in enumerate(tokens)]
        return cpu_seconds(lambda: list(TokenFormat().scan("conf.py", lines, before=before)), 1)

    small, large = scanned(250), scanned(2_000)
    for _ in range(MORE_TRIES):
        if large / max(small, 1e-4) < 24:
            break
        small, large = min(small, scanned(250)), min(large, scanned(2_000))
    assert large / max(small, 1e-4) < 24, (small, large)
