"""What the secret rules' tests share: made-up credentials of every format the rules know,
random values, PEM blocks, and the findings of one rule on one file of a change.

Every token is built at run time (fake but well formed); no file of the tests holds one whole.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string

from landwatch.review.change import Change
from landwatch.review.findings import Finding
from landwatch.review.rules.base import LineRule
from support.tokens import GITHUB_TOKEN, github_token, pypi_token, random_text


def check(change: Change, path: str, rule: LineRule) -> list[Finding]:
    file = next(f for f in change.files if f.path == path)
    return list(rule.check_lines(file, file.added_lines))


def found(change: Change, path: str, rule: LineRule) -> list[tuple[str, int | None, str]]:
    return [(f.rule, f.line, f.message) for f in check(change, path, rule)]


def unsalted(rule: str, path: str, text: str, occurrence: int = 0) -> str:
    """A fingerprint of the raw text, as landwatch made them before: a guess could be tested."""
    normal = " ".join(text.split())
    identity = f"{rule}\0{path}\0{normal}\0{occurrence}".encode()
    return hashlib.sha256(identity).hexdigest()[:20]


def random_value(seed: int, size: int = 20) -> str:
    """A high-entropy literal of the kind a password generator makes."""
    alphabet = string.ascii_letters + string.digits + "!^*+"
    return "".join(random.Random(seed).choices(alphabet, k=size))


def key_body(seed: int, size: int = 300) -> list[str]:
    text = base64.b64encode(random.Random(seed).randbytes(size)).decode()
    return [text[at : at + 64] for at in range(0, len(text), 64)]


def pem(label: str, seed: int, *headers: str) -> list[str]:
    return [f"-----BEGIN {label}-----", *headers, *key_body(seed), f"-----END {label}-----"]


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwt() -> str:
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    claims = b64url(json.dumps({"sub": "1234567890", "name": "Ada", "iat": 1516239022}).encode())
    return f"{header}.{claims}.{b64url(random.Random(7).randbytes(32))}"


def exactly(text: str, size: int) -> str:
    assert len(text) == size
    return text


AWS_KEY_ID = "AKIA" + "QX7ZR4M2" * 2
AWS_SECRET_KEY = exactly("Zq8/Wv7+Tu6Rs5Qp4On3Ml2Kj1Ih0Gf9Ed8Cb7Aa", 40)
DISCORD_BOT_ID = base64.urlsafe_b64encode(b"640978231507194368").decode()
ATLASSIAN_TOKEN = base64.b64encode(
    b"418273950164:" + hashlib.sha256(b"atlassian").digest()[:20]
).decode()
JFROG_REFERENCE = base64.urlsafe_b64encode(
    b"reftkn:01:1739284512:" + random_text("jfrog", 27).encode()
).decode()
TOKENS = [
    ("GitHub personal access token", GITHUB_TOKEN),
    ("GitHub OAuth access token", github_token("oauth", "gho_")),
    ("GitHub user-to-server token", github_token("user", "ghu_")),
    ("GitHub server-to-server token", github_token("server", "ghs_")),
    ("GitHub refresh token", github_token("refresh", "ghr_")),
    ("GitHub fine-grained personal access token", "github_pat_" + random_text("fine", 82)),
    ("GitLab personal access token", "glpat-" + exactly("Xy9-Zq3_Wv7Tu5Rs1P0n", 20)),
    ("Slack token", "xoxb-" + "294058170632-3917264580134-" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8"),
    ("Stripe live secret key", "sk_" + "live_" + "Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1"),
    ("Stripe live restricted key", "rk_" + "live_" + "Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1"),
    ("Stripe test secret key", "sk_" + "test_" + random_text("stripe-test", 24)),
    ("Stripe test restricted key", "rk_" + "test_" + random_text("stripe-rk-test", 24)),
    ("Google API key", "AIza" + exactly("Sy9_Kq-Lm3Np5Rt7Vx2Zb4Dc6Fh8Jk0Mn1P", 35)),
    ("JSON Web Token", jwt()),
    ("npm access token", github_token("npm", "npm_")),
    ("X (Twitter) bearer token", "A" * 21 + random_text("x", 30) + "%3D" + random_text("y", 20)),
    ("PyPI upload token", pypi_token()),
    (
        "SendGrid API key",
        "SG." + exactly("Ab1Cd2Ef3Gh4Ij5Kl6Mn7O", 22) + "." + random_text("sendgrid", 43),
    ),
    ("AWS access key ID", AWS_KEY_ID),
    ("Google OAuth access token", "ya29." + random_text("google-access", 60)),
    ("Google OAuth refresh token", "1//0" + random_text("google-refresh", 60)),
    (
        "Braintree access token",
        "access_token$production$"
        + "q7r2m9x4k8w3p6z1$"
        + random_text("bt", 32, "0123456789abcdef"),
    ),
    # A bot's id (18 digits) in base64, a timestamp and an HMAC.
    (
        "Discord bot token",
        DISCORD_BOT_ID + "." + random_text("discord", 6) + "." + random_text("hmac", 38),
    ),
    # A token's id (12 digits), a colon and 20 random bytes, in base64.
    ("Atlassian Data Center personal access token", ATLASSIAN_TOKEN),
    (
        "Azure identifiable key",
        random_text("azure", 52) + "JQQJ99" + random_text("azure-rest", 24) + "AZSt==",
    ),
    ("NuGet API key", "oy2" + random_text("nuget", 43, string.ascii_lowercase + string.digits)),
    ("JFrog reference token", JFROG_REFERENCE),
    ("WunderGraph Cosmo API key", "cosmo_" + random_text("cosmo", 32, "0123456789abcdef")),
]
SLACK_WEBHOOK_PATH = "T0ABC1DEF/B0GHI2JKL/" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8"


VALUES = [random_value(seed) for seed in range(12)]
