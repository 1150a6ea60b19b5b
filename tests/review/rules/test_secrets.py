"""The secret rules on landed changes: what each finds, what it lets through.

Every token here is built by the test (fake but well formed), so this file holds none whole.
"""

from __future__ import annotations

import base64
import hashlib
import json
import random
import string

import pytest

from landwatch.review.change import Change
from landwatch.review.findings import Finding, Severity, fingerprint
from landwatch.review.report import Report
from landwatch.review.rules.base import LineRule
from landwatch.review.rules.secrets import (
    RULES,
    Credentials,
    GenericSecret,
    PrivateKey,
    TokenFormat,
)
from landwatch.review.secrets.redaction import redact
from landwatch.review.secrets.scanning import shannon_entropy
from support.changes import Changes
from support.repos import Repo
from support.review import review


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
TOKENS = [
    ("GitHub personal access token", "ghp_" + "A1b2" * 9),
    ("GitHub OAuth access token", "gho_" + "B2c3" * 9),
    ("GitHub user-to-server token", "ghu_" + "C3d4" * 9),
    ("GitHub server-to-server token", "ghs_" + "D4e5" * 9),
    ("GitHub refresh token", "ghr_" + "E5f6" * 9),
    ("GitHub fine-grained personal access token", "github_pat_" + "Ab3D9" * 16 + "Q7"),
    ("GitLab personal access token", "glpat-" + exactly("Xy9-Zq3_Wv7Tu5Rs1P0n", 20)),
    ("Slack token", "xoxb-" + "294058170632-3917264580134-" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8"),
    ("Stripe live secret key", "sk_" + "live_" + "Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1"),
    ("Stripe live restricted key", "rk_" + "live_" + "Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1"),
    ("Google API key", "AIza" + exactly("Sy9_Kq-Lm3Np5Rt7Vx2Zb4Dc6Fh8Jk0Mn1P", 35)),
    ("JSON Web Token", jwt()),
    ("npm access token", "npm_" + "Ab1C" * 9),
    ("PyPI upload token", "pypi-AgEIcHlwaS5vcmc" + "CJ" + "Ab1Cd2Ef3G" * 6),
    ("SendGrid API key", "SG." + exactly("Ab1Cd2Ef3Gh4Ij5Kl6Mn7O", 22) + "." + "Qr8St9" * 7 + "U"),
    ("AWS access key ID", AWS_KEY_ID),
]
SLACK_WEBHOOK_PATH = "T0ABC1DEF/B0GHI2JKL/" + "Ab1Cd2Ef3Gh4Ij5Kl6Mn7Op8"


# --- the rule set -------------------------------------------------------------------


def test_every_rule_is_a_secret_rule_with_docs_and_flags_its_example(changes: Changes) -> None:
    assert [(rule.id, rule.name, rule.severity) for rule in RULES] == [
        ("S001", "private-key", Severity.ERROR),
        ("S002", "token-format", Severity.ERROR),
        ("S003", "generic-secret", Severity.WARNING),
        ("S004", "credentials", Severity.ERROR),
    ]
    change = changes.change({f"example-{rule.id}.txt": rule.example + "\n" for rule in RULES})
    for rule in RULES:
        assert rule.secret
        assert rule.doc() and rule.example
        assert [f.rule for f in check(change, f"example-{rule.id}.txt", rule())] == [rule.id]


# --- S001 private-key ---------------------------------------------------------------------------


def test_private_keys_of_every_kind_are_found(changes: Changes) -> None:
    blocks = {
        "RSA private key": pem(
            "RSA PRIVATE KEY", 1, "Proc-Type: 4,ENCRYPTED", "DEK-Info: AES-128-CBC,0A1B2C", ""
        ),
        "DSA private key": pem("DSA PRIVATE KEY", 2),
        "EC private key": pem("EC PRIVATE KEY", 3),
        "OpenSSH private key": pem("OPENSSH PRIVATE KEY", 4),
        "private key (PKCS#8)": pem("PRIVATE KEY", 5),
        "encrypted private key (PKCS#8)": pem("ENCRYPTED PRIVATE KEY", 6),
        "PGP private key block": pem("PGP PRIVATE KEY BLOCK", 7, "Version: GnuPG v2", ""),
        "OpenVPN static key": [
            "-----BEGIN OpenVPN Static key V1-----",
            *(f"{random.Random(line).getrandbits(128):032x}" for line in range(16)),
            "-----END OpenVPN Static key V1-----",
        ],
        "PuTTY private key": [
            "PuTTY-User-Key-File-3: ssh-ed25519",
            "Encryption: none",
            "Comment: deploy",
            "Public-Lines: 2",
            *key_body(8, 60),
            "Private-Lines: 1",
            *key_body(9, 40),
            "Private-MAC: " + "ab12" * 16,
        ],
    }
    lines: list[str] = []
    expected = []
    for label, block in blocks.items():
        lines += ["", "# the next key"]
        expected.append(("S001", len(lines) + 1, label))
        lines += block
    change = changes.change({"keys.txt": "\n".join(lines) + "\n"})
    assert found(change, "keys.txt", PrivateKey()) == expected


def test_certificates_and_public_keys_are_not_private_keys(changes: Changes) -> None:
    public = [
        *pem("CERTIFICATE", 1),
        *pem("PUBLIC KEY", 2),
        *pem("RSA PUBLIC KEY", 3),
        *pem("PGP PUBLIC KEY BLOCK", 4),
        "ssh-ed25519 " + "".join(key_body(5, 48)) + " deploy@example.com",
    ]
    change = changes.change({"ca.pem": "\n".join(public) + "\n"})
    assert found(change, "ca.pem", PrivateKey()) == []


def test_a_header_without_key_material_is_a_mention_not_a_key(changes: Changes) -> None:
    marker = "-----BEGIN " + "RSA PRIVATE KEY-----"
    code = "\n".join(
        [
            f'MARKER = "{marker}"',
            "",
            "def is_key(text: str) -> bool:",
            "    return text.startswith(MARKER)",
            "",
            '    "PuTTY-User-Key-File-2: ssh-rsa"',
            "",
        ]
    )
    docs = f"Paste the key, which starts with `{marker}`, into the form.\n"
    change = changes.change({"keys.py": code, "README.md": docs, "last.txt": marker + "\n"})
    for path in ("keys.py", "README.md", "last.txt"):
        assert found(change, path, PrivateKey()) == []


def test_a_key_inside_a_json_string_is_found_and_redacted(changes: Changes) -> None:
    body = "".join(key_body(11))
    value = f"-----BEGIN PRIVATE KEY-----\n{body[:64]}\n{body[64:]}\n-----END PRIVATE KEY-----\n"
    account = {"type": "service_account", "private_key_id": "ab12" * 10, "private_key": value}
    change = changes.change({"account.json": json.dumps(account, indent=1)})
    (finding,) = check(change, "account.json", PrivateKey())
    assert (finding.line, finding.message) == (4, "private key (PKCS#8)")
    assert finding.snippet is not None and body[:64] not in finding.snippet
    assert f"-----\\n{body[:4]}…\\n-----END" in finding.snippet
    assert finding.fingerprint == fingerprint("S001", "account.json", finding.snippet)
    # The same line is S001's: spaces in the value keep S003 from reporting it twice.
    assert check(change, "account.json", GenericSecret()) == []


def test_a_key_in_a_code_string_is_found_on_its_header_line(changes: Changes) -> None:
    body = key_body(12)
    lines = ["KEY = (", '    "-----BEGIN EC PRIVATE KEY-----\\n"']
    lines += [f'    "{chunk}\\n"' for chunk in body]
    lines += ['    "-----END EC PRIVATE KEY-----\\n"', ")"]
    change = changes.change({"fixture.py": "\n".join(lines) + "\n"})
    (finding,) = check(change, "fixture.py", PrivateKey())
    assert (finding.rule, finding.line, finding.message) == ("S001", 2, "EC private key")
    assert finding.snippet == '    "-----BEGIN EC PRIVATE KEY-----\\n"'
    assert finding.fingerprint == fingerprint("S001", "fixture.py", finding.snippet)


# --- S002 token-format --------------------------------------------------------------------------


def test_each_token_format_is_named(changes: Changes) -> None:
    lines = [f'value_{number} = "{token}"' for number, (_, token) in enumerate(TOKENS)]
    lines.append(f"notify: https://hooks.slack.com/services/{SLACK_WEBHOOK_PATH}")
    change = changes.change({"tokens.py": "\n".join(lines) + "\n"})
    expected = [("S002", number + 1, label) for number, (label, _) in enumerate(TOKENS)]
    expected.append(("S002", len(TOKENS) + 1, "Slack webhook URL"))
    assert found(change, "tokens.py", TokenFormat()) == expected


def test_an_aws_key_pair_is_two_findings(changes: Changes) -> None:
    credentials = "\n".join(
        [
            "[default]",
            f"aws_access_key_id = {AWS_KEY_ID}",
            f"aws_secret_access_key = {AWS_SECRET_KEY}",
            "region = eu-west-1",
        ]
    )
    change = changes.change({".aws/credentials": credentials + "\n"})
    findings = check(change, ".aws/credentials", TokenFormat())
    assert [(f.rule, f.line, f.message) for f in findings] == [
        ("S002", 2, "AWS access key ID"),
        ("S002", 3, "AWS secret access key"),
    ]
    assert [f.snippet for f in findings] == [
        "aws_access_key_id = AKIA…",
        f"aws_secret_access_key = {AWS_SECRET_KEY[:4]}…",
    ]


def test_near_misses_and_documentation_placeholders_are_not_tokens(changes: Changes) -> None:
    lines = [
        'short = "ghp_' + "A1b2" * 8 + 'A1b"',  # 35 characters
        'long = "ghp_' + "A1b2" * 9 + 'C"',  # 37 characters
        'test_mode = "sk_' + "test_" + 'Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1"',
        'docs = "AKIA' + 'IOSFODNN7EXAMPLE"',
        'docs = "ghp_' + "x" * 36 + '"',
        'lower = "akia' + "qx7zr4m2" * 2 + '"',
        'inside = "XAKIA' + "QX7ZR4M2" * 2 + '"',
        # A 40-character value with no aws/secret name, and a git SHA next to one.
        f'checksum = "{AWS_SECRET_KEY}"',
        'secret_commit = "' + "0123456789abcdef0123" * 2 + '"',
        'one_part = "eyJhbGciOiJIUzI1NiJ9.payload.signature"',
    ]
    change = changes.change({"near.py": "\n".join(lines) + "\n"})
    assert found(change, "near.py", TokenFormat()) == []


def test_tokens_in_lockfiles_are_still_reported(changes: Changes) -> None:
    token = "npm_" + "Ab1C" * 9
    line = f'"resolved": "https://npm.example.com/pkg.tgz?token={token}",'
    change = changes.change({"package-lock.json": line + "\n"})
    assert found(change, "package-lock.json", TokenFormat()) == [("S002", 1, "npm access token")]


# --- S003 generic-secret -----------------------------------------------------------------------

VALUES = [random_value(seed) for seed in range(12)]


def test_secret_names_assigned_high_entropy_literals_are_found(changes: Changes) -> None:
    files = {
        "config.py": "\n".join(
            [
                "import os",
                f'DB_PASSWORD = "{VALUES[0]}"',
                f"settings['SECRET_KEY'] = '{VALUES[1]}'",
                f'api_key: str = "{VALUES[2]}"',
            ]
        ),
        "app.js": f"const config = {{ githubToken: '{VALUES[3]}' }};\n",
        "main.go": f'\tapiKey := "{VALUES[4]}"\n',
        "client.rb": f'client = Client.new(:auth_token => "{VALUES[5]}")\n',
        "settings.json": json.dumps({"client_secret": VALUES[6]}, indent=2) + "\n",
        "config.toml": f'[storage]\naccess_key = "{VALUES[7]}"\n',
        ".env": f"# local\nexport API_TOKEN={VALUES[8]}\n",
        "deploy.yaml": f"db:\n  password: {VALUES[9]}  # prod\n",
        "wp-config.php": f"define( 'DB_PASSWORD', '{VALUES[10]}' );\n",
    }
    change = changes.change(files)
    expected = {
        "config.py": [2, 3, 4],
        "app.js": [1],
        "main.go": [1],
        "client.rb": [1],
        "settings.json": [2],
        "config.toml": [2],
        ".env": [2],
        "deploy.yaml": [2],
        "wp-config.php": [1],
    }
    for path, numbers in expected.items():
        findings = check(change, path, GenericSecret())
        assert [(f.rule, f.line) for f in findings] == [("S003", n) for n in numbers], path
    (finding,) = check(change, "main.go", GenericSecret())
    assert finding.message.startswith("secret-looking literal assigned to 'apiKey' (entropy ")
    assert finding.snippet == f'\tapiKey := "{VALUES[4][:4]}…"'


def test_values_that_are_code_not_literals_are_let_through(changes: Changes) -> None:
    code = "\n".join(
        [
            'token = os.environ["API_TOKEN"]',
            'password = os.getenv("DB_PASSWORD")',
            "api_key = settings.PROVIDER_API_KEY_V2",
            "secret = load_secret(vault_path_for_service_x)",
            f'if token == "{VALUES[0]}":',  # a comparison, not an assignment
            f'scopes = ["token", "{VALUES[1]}"]',  # a list, not a name and its value
            f'__slots__ = ("next_token", "{VALUES[2]}")',  # a tuple, not a call
        ]
    )
    js = "const clientSecret = process.env.CLIENT_SECRET_VALUE;\n"
    change = changes.change({"config.py": code + "\n", "server.js": js})
    assert check(change, "config.py", GenericSecret()) == []
    assert check(change, "server.js", GenericSecret()) == []


@pytest.mark.parametrize(
    "value",
    [
        "3f2b8c1e-9d4a-4f6b-8e2c-1a7d5b9c0e4f",  # UUID
        "9c1185a5c5e9fc54612808977ee8f548b2258d31",  # hex digest, 40
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",  # hex digest, 64
        "sha512-" + base64.b64encode(random.Random(1).randbytes(64)).decode(),  # integrity
        "${DB_PASSWORD_2024}",
        "{{ vault_db_token_7 }}",
        "<your-api-token-9>",
        "%(password)s@db-host-7",
        "$SECRET_VALUE_FROM_CI",
        "{api_key}-suffix-2024",
        "https://oauth2.googleapis.com/token",
        "/var/run/secrets/token-7",
        "auth.token.expired",
        "Paste the API token (v2) here",
        "test-Kq8Zr2Vx7Lm4Wp9",
        "dummy_9fKq2LzXw7Vb",
        "fake-Zq8Yw7Xv6Tu5",
        "sample-Aq9Zk3Lm7Xc",
        "your-Aq9Zk3Lm7Xcw",
        "Kq8Zr2-EXAMPLE-Vx7Lm4",
        "Kq8Zr2-change_me-Vx7Lm4",
        "Kq8Zr2Vx7Lm4Wp9zzzzzz",
        r"(?<![\w.-])sk_live_\d+",  # a regular expression
    ],
)
def test_placeholders_digests_and_dummies_are_let_through(changes: Changes, value: str) -> None:
    # Each value is long and varied enough that only its filter lets it through.
    assert len(value) >= 8 and shannon_entropy(value) >= 3.5
    change = changes.change({"config.py": f'SECRET_TOKEN = "{value}"\n'})
    assert check(change, "config.py", GenericSecret()) == []


def test_low_entropy_short_and_obvious_dummy_values_are_let_through(changes: Changes) -> None:
    values = ["changeme", "password", "example", "xxxxxxxx", "********", "hunter2", "aaaabbbb1111"]
    lines = [f'password_{number} = "{value}"' for number, value in enumerate(values)]
    change = changes.change({"config.py": "\n".join(lines) + "\n"})
    assert check(change, "config.py", GenericSecret()) == []


def test_integrity_attributes_are_not_secrets(changes: Changes) -> None:
    digest = base64.b64encode(random.Random(2).randbytes(48)).decode()
    html = f'<script src="/auth-token.js" integrity="sha384-{digest}"></script>\n'
    manifest = json.dumps({"auth-token.js": f"sha384-{digest}"}) + "\n"
    change = changes.change({"index.html": html, "sri.json": manifest})
    assert check(change, "index.html", GenericSecret()) == []
    assert check(change, "sri.json", GenericSecret()) == []


def test_lockfiles_are_not_checked(changes: Changes) -> None:
    names = [
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "poetry.lock",
        "Cargo.lock",
        "go.sum",
        "composer.lock",
        "Gemfile.lock",
        "uv.lock",
        "vendor/tool/custom.lock",
    ]
    line = f'"auth_token": "{VALUES[0]}",\n'
    change = changes.change({**dict.fromkeys(names, line), "not-a-lockfile.json": line})
    for name in names:
        assert check(change, name, GenericSecret()) == [], name
    assert len(check(change, "not-a-lockfile.json", GenericSecret())) == 1


def test_unquoted_values_count_only_where_they_are_literals(changes: Changes) -> None:
    assignment = f"API_TOKEN={VALUES[0]}\n"
    yaml = f"password: !vault |\n  {VALUES[1]}\nsecret: *shared\ntoken: ${{CI_TOKEN}}\n"
    change = changes.change(
        {
            "run.sh": assignment,
            "prod.env": assignment,
            ".env.local": assignment,
            "app.ini": assignment,
            "vault.yml": yaml,
        },
    )
    assert check(change, "run.sh", GenericSecret()) == []
    for path in ("prod.env", ".env.local", "app.ini"):
        assert [f.line for f in check(change, path, GenericSecret())] == [1], path
    assert check(change, "vault.yml", GenericSecret()) == []
    assert check(change, "prod.env", GenericSecret(unquoted=[])) == []


def test_min_entropy_is_an_option(changes: Changes) -> None:
    change = changes.change({"config.py": f'password = "{VALUES[0]}"\n'})
    assert len(check(change, "config.py", GenericSecret(min_entropy=3))) == 1
    assert check(change, "config.py", GenericSecret(min_entropy=6.0)) == []


def test_known_formats_are_left_to_token_format(changes: Changes) -> None:
    token = "ghp_" + "A1b2" * 9
    change = changes.change({"ci.py": f'GITHUB_TOKEN = "{token}"\n'})
    assert check(change, "ci.py", GenericSecret()) == []
    assert found(change, "ci.py", TokenFormat()) == [("S002", 1, "GitHub personal access token")]


# --- redaction and identity ----------------------------------------------------------------------


def test_no_finding_holds_a_whole_secret(changes: Changes) -> None:
    body = "".join(key_body(21))
    key = f"-----BEGIN RSA PRIVATE KEY-----\\n{body}\\n-----END RSA PRIVATE KEY-----"
    tokens = [token for _, token in TOKENS] + [AWS_SECRET_KEY]
    lines = [
        f'"key": "{key}", "other": "{TOKENS[0][1]}"',
        *(f"aws_secret_access_key = {token}" for token in tokens),
        f'password = "{VALUES[0]}"; backup_password = "{VALUES[0]}"',
        f'client_secret = "{VALUES[1]}", token = "{TOKENS[1][1]}"',
    ]
    change = changes.change({"leak.txt": "\n".join(lines) + "\n"})
    secrets = {
        PrivateKey: [body],
        TokenFormat: tokens,
        GenericSecret: [VALUES[0], VALUES[1]],
    }
    every = [body, *tokens, VALUES[0], VALUES[1]]
    for rule_class, expected in secrets.items():
        # What an attacker holding a SARIF file could test a guess against, were it hashed.
        guessable = {
            unsalted(rule_class.id, "leak.txt", text, occurrence)
            for value in every
            for text in (value, *lines)
            for occurrence in (0, 1)
        }
        reported: set[str] = set()
        for finding in check(change, "leak.txt", rule_class()):
            snippet = finding.snippet
            assert snippet is not None
            for value in every:
                assert value not in finding.message and value not in snippet, finding.rule
            assert finding.fingerprint not in guessable
            reported |= {value for value in expected if redact(value) in snippet}
        assert reported == set(expected), rule_class.id


def test_a_fingerprint_survives_a_line_shift_and_confirms_no_guess(changes: Changes) -> None:
    token = "ghp_" + "A1b2" * 9
    first = changes.change({"ci.py": f'TOKEN = "{token}"\n'})
    # The same file, landed elsewhere with lines above it.
    moved = changes.change({"ci.py": f'"""CI."""\n\nTOKEN = "{token}"\n'})
    (before,) = check(first, "ci.py", TokenFormat())
    (after,) = check(moved, "ci.py", TokenFormat())
    assert (before.line, after.line) == (1, 3)
    assert before.fingerprint == after.fingerprint
    # Any guess at the token gives the same identity: the fingerprint holds only the redaction.
    for guess in (token, "ghp_" + "Zz9Y" * 9):
        assert fingerprint("S002", "ci.py", f'TOKEN = "{guess}"') == before.fingerprint
    assert unsalted("S002", "ci.py", token) != before.fingerprint


def test_a_finding_knows_where_its_secret_sits_and_no_output_says(changes: Changes) -> None:
    # The suppression step tests a secret scanner's declarations on the value at that place.
    lines = [f'x = 1; TOKEN = "{TOKENS[0][1]}"', f'password = "{VALUES[0]}"', f"u = {TOKENS[3][1]}"]
    change = changes.change({"ci.py": "\n".join(lines) + "\n"})
    findings = [*check(change, "ci.py", TokenFormat()), *check(change, "ci.py", GenericSecret())]
    values = [TOKENS[0][1], TOKENS[3][1], VALUES[0]]
    placed = []
    for finding in findings:
        assert finding.span is not None and finding.line is not None
        start, end = finding.span
        placed.append(lines[finding.line - 1][start:end])
        assert "span" not in finding.as_dict() and "span" not in repr(finding)
    assert placed == values


def test_the_same_secret_twice_in_a_file_is_two_findings(changes: Changes) -> None:
    token = "ghp_" + "A1b2" * 9
    change = changes.change({"ci.py": f'A = "{token}"\nB = "{token}"\n'})
    findings = check(change, "ci.py", TokenFormat())
    assert [f.line for f in findings] == [1, 2]
    assert len({f.fingerprint for f in findings}) == 2


def test_a_long_line_shows_a_window_around_the_secret(changes: Changes) -> None:
    token = "ghp_" + "A1b2" * 9
    line = "x = 1; " * 200 + f'token = "{token}"; ' + "y = 2; " * 200
    change = changes.change({"bundle.min.js": line + "\n"})
    (finding,) = check(change, "bundle.min.js", TokenFormat())
    assert finding.snippet is not None
    assert len(finding.snippet) < 260 and "ghp_…" in finding.snippet
    assert finding.snippet.startswith("…") and finding.snippet.endswith("…")


# --- passwords in URLs, connection strings and credential files ------------------------------


def test_passwords_in_urls_connection_strings_and_credential_files(changes: Changes) -> None:
    password = random_value(41, 12)
    lines = [
        f"DATABASE_URL=postgres://admin:{password}@db.internal:5432/app",
        f'conn = "Server=sql1;Database=app;User ID=svc;Password={password};"',
        f"redis = 'redis://:{password}@cache:6379/0'",
    ]
    change = changes.change(
        {
            "settings.py": "\n".join(lines) + "\n",
            ".pypirc": f"[pypi]\nusername = __token__\npassword = {password}\n",
        },
    )
    assert found(change, "settings.py", Credentials()) == [
        ("S004", 1, "password in a URL"),
        ("S004", 2, "password in a connection string"),
        ("S004", 3, "password in a URL"),
    ]
    assert found(change, ".pypirc", Credentials()) == [("S004", 3, "password in a credential file")]
    for finding in check(change, "settings.py", Credentials()):
        assert password not in (finding.snippet or "") and password not in finding.message


def test_credential_placeholders_are_let_through(changes: Changes) -> None:
    lines = [
        "DATABASE_URL=postgres://user:password@localhost/db",
        'url = "https://${USER}:${PASSWORD}@host/repo.git"',
        "mysql://root:@localhost/test",
        "amqp://guest:guest@rabbit//",
        'conn = "Server=db;User Id=sa;Password=<password>;"',
        "password = get_password()",
        "https://user:****@example.com",
        "See https://docs.example.com/a:b@c for the format",
    ]
    change = changes.change({"notes.py": "\n".join(lines) + "\n"})
    assert found(change, "notes.py", Credentials()) == [("S004", 4, "password in a URL")]


def test_tokens_shown_cut_short_are_examples_not_secrets(changes: Changes) -> None:
    jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    lines = [
        f'token: "{jwt}..."',
        f"Authorization: Bearer {jwt}.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefgh...",
        'api_key = "sk_live_4eC39HqLyjWDarjtT1…"',
    ]
    change = changes.change({"docs/auth.md": "\n".join(lines) + "\n"})
    for rule in (TokenFormat(), GenericSecret()):
        assert found(change, "docs/auth.md", rule) == []


def test_a_private_key_rotated_in_place_is_found(changes: Changes) -> None:
    old = pem("PRIVATE KEY", 51)
    new = [old[0], *key_body(52), old[-1]]  # the header and footer lines unchanged
    change = changes.change(
        {"certs/server.key": "\n".join(new) + "\n"},
        before={"certs/server.key": "\n".join(old) + "\n"},
    )
    findings = check(change, "certs/server.key", PrivateKey())
    assert [(f.rule, f.line, f.message) for f in findings] == [
        ("S001", 2, "private key (PKCS#8) (its body replaced in place)")
    ]
    assert findings[0].snippet == "(private key material)"


# What the history held before a change never quiets a new secret (issue 23): these land commits
# in a real repository and review each as the reviewer does.


def reported(report: Report, rule: str) -> list[tuple[str | None, int | None, str]]:
    return [(f.path, f.line, f.severity.name.lower()) for f in report.findings if f.rule == rule]


def test_a_second_secret_in_a_file_that_held_one_is_reported(repo: Repo) -> None:
    settings = f'SECRET_KEY = "{VALUES[0]}"\n'
    repo.land("settings", {"app/settings.py": settings}, hooks=False)
    assert reported(review(repo), "S003") == [("app/settings.py", 1, "warning")]
    repo.land("aws", {"app/settings.py": settings + f'AWS_KEY = "{AWS_KEY_ID}"\n'}, hooks=False)
    assert reported(review(repo), "S002") == [("app/settings.py", 2, "error")]


def test_a_third_secret_in_a_directory_that_held_two_is_reported(repo: Repo) -> None:
    tokens = [value for _, value in TOKENS[:3]]
    for n, token in enumerate(tokens):
        repo.land(f"token {n}", {f"app/client{n}.py": f'TOKEN = "{token}"\n'}, hooks=False)
        assert reported(review(repo), "S002") == [(f"app/client{n}.py", 1, "error")]


def test_a_secret_moved_unchanged_is_no_new_leak_but_is_still_told(repo: Repo) -> None:
    before = f"# config\nDB = 1\nTOKEN = '{AWS_KEY_ID}'\n"
    repo.land("first", {"conf.py": before}, hooks=False)
    moved = f"TOKEN = '{AWS_KEY_ID}'  # first now\n# config\nDB = 1\n"
    repo.land("moved", {"conf.py": moved}, hooks=False)
    [finding] = [f for f in review(repo).findings if f.rule == "S002"]
    assert (finding.line, finding.severity) == (1, Severity.INFO)
    assert finding.message.endswith("(already in this file before the change: moved, not new)")
    # Renamed, and its line edited: the value came with the file, from its old path.
    repo.git("mv", "conf.py", "settings.py")
    edited = moved.replace("# first now", "# the deploy's")
    repo.land("renamed", {"settings.py": edited}, hooks=False)
    assert reported(review(repo), "S002") == [("settings.py", 1, "info")]


def test_a_secret_removed_is_no_finding(repo: Repo) -> None:
    repo.land("leak", {"conf.py": f"TOKEN = '{AWS_KEY_ID}'\nDB = 1\n"}, hooks=False)
    repo.land("remove the leak", {"conf.py": "DB = 1\n"}, hooks=False)
    assert reported(review(repo), "S002") == []


def test_guesses_in_test_paths_are_told_at_info_and_known_formats_as_they_are(
    repo: Repo,
) -> None:
    files = {
        "tests/fixtures/settings.py": f'password = "{VALUES[1]}"\n',
        "tests/fixtures/aws.py": f'KEY = "{AWS_KEY_ID}"\n',
        "app/settings.py": f'password = "{VALUES[2]}"\n',
    }
    report_ = review(repo, repo.land("fixtures", files, hooks=False))
    assert reported(report_, "S003") == [
        ("app/settings.py", 1, "warning"),
        ("tests/fixtures/settings.py", 1, "info"),
    ]
    assert reported(report_, "S002") == [("tests/fixtures/aws.py", 1, "error")]


def test_a_key_body_regenerated_under_the_same_header_is_found(repo: Repo) -> None:
    def pem(seed: int) -> str:
        body = base64.b64encode(random.Random(seed).randbytes(180)).decode()
        lines = [body[i : i + 64] for i in range(0, len(body), 64)]
        return "\n".join(["-----BEGIN " + "PRIVATE KEY-----", *lines, "-----END PRIVATE KEY-----"])

    repo.land("a test key", {"certs/server.key": pem(1) + "\n"}, hooks=False)
    assert [f.rule for f in review(repo).findings] == ["S001"]
    repo.land("regenerated", {"certs/server.key": pem(2) + "\n"}, hooks=False)
    [finding] = [f for f in review(repo).findings if f.rule == "S001"]
    assert finding.severity is Severity.ERROR and "replaced in place" in finding.message


def test_provider_formats_of_the_maintained_rule_set_are_reported(changes: Changes) -> None:
    chosen = random.Random(11)
    hugging_face = "hf_" + "".join(chosen.choices(string.ascii_letters, k=34))
    digital_ocean = "dop_v1_" + "".join(chosen.choices("0123456789abcdef", k=64))
    stand_in = "hf_" + "x" * 34
    text = f'HF = "{hugging_face}"\nDO = "{digital_ocean}"\nDOCS = "{stand_in}"\n'
    change = changes.change({"deploy.py": text})
    findings = list(TokenFormat().check_lines(change.files[0], change.files[0].added_lines))
    assert [(f.line, f.message, f.severity) for f in findings] == [
        (1, "huggingface-access-token (kingfisher's rules)", Severity.ERROR),
        (2, "digitaloceanapikey (kingfisher's rules)", Severity.WARNING),  # only likely
    ]
    assert all(hugging_face not in (f.snippet or "") for f in findings)
