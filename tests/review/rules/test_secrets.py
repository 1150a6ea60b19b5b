"""The secret rules on landed changes: what each finds, what it lets through.

Every token here is built by the test (fake but well formed), so this file holds none whole.
"""

from __future__ import annotations

import base64
import json
import random
import string

from landwatch.review.findings import Severity, fingerprint
from landwatch.review.rules.assigned_secrets import GenericSecret
from landwatch.review.rules.secrets import RULES, PrivateKey, TokenFormat
from support.changes import Changes
from support.secret_examples import (
    AWS_KEY_ID,
    AWS_SECRET_KEY,
    SLACK_WEBHOOK_PATH,
    TOKENS,
    check,
    found,
    jwt,
    key_body,
    pem,
)
from support.tokens import GITHUB_TOKEN, age_secret_key, github_token, random_text

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
        'short = "' + GITHUB_TOKEN[:-1] + '"',  # 35 characters
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


def test_a_token_whose_checksum_holds_is_told_whatever_word_it_holds_by_chance(
    changes: Changes,
) -> None:
    """An audit: a GitHub token the service made, whose random part held `hERe`, was taken for
    a stand-in (`here`, in any case), told by no rule, and the push went out."""
    issued = github_token(start="hERe")
    lines = [f'GITHUB_TOKEN = "{issued}"', f"git clone https://{issued}@github.com/o/r"]
    change = changes.change({"deploy.py": "\n".join(lines) + "\n"})
    findings = [f for rule in RULES for f in check(change, "deploy.py", rule())]
    assert sorted((f.line, f.severity) for f in findings) == [
        (1, Severity.ERROR),
        (2, Severity.ERROR),
    ]


def test_a_token_whose_checksum_fails_is_a_stand_in_no_rule_tells(changes: Changes) -> None:
    made_up = GITHUB_TOKEN[:-1] + ("A" if GITHUB_TOKEN[-1] != "A" else "B")
    lines = [
        f'TOKEN = "{made_up}"',
        f'github_token: "{made_up}"',
        f"curl -H 'Authorization: Bearer {made_up}' https://api.github.com",
        f'AGE_KEY = "{age_secret_key()[:-1]}Q"',
        f'REAL = "{GITHUB_TOKEN}"',
        f'AGE = "{age_secret_key()}"',
    ]
    change = changes.change({"ci.py": "\n".join(lines) + "\n"})
    findings = [f for rule in RULES for f in check(change, "ci.py", rule())]
    assert sorted((f.line, f.rule, f.severity) for f in findings) == [
        (5, "S002", Severity.ERROR),
        (6, "S002", Severity.ERROR),
    ]


def test_a_slack_token_of_made_up_ids_is_a_stand_in_no_rule_tells(changes: Changes) -> None:
    body = "4ddbc191d40ee098cbaae6f3523ada2d"
    lines = [
        f'"token3": "xoxp-1234-1234-1234-{body}"',
        f"SLACK_TOKEN=xoxb-1-2-{random_text('slack-made-up', 24)}",
        f'"token": "xoxp-2575847938-7684568596-9838746238-{body}"',
    ]
    change = changes.change({"settings.json": "\n".join(lines) + "\n"})
    findings = [f for rule in RULES for f in check(change, "settings.json", rule())]
    assert [(f.line, f.rule) for f in findings] == [(3, "S002")]


def test_what_its_holder_documents_as_public_is_told_at_info_saying_so(
    changes: Changes,
) -> None:
    publishable = "pk_" + "live_" + random_text("publishable", 40)
    google = "AIza" + random_text("browser", 35)
    change = changes.change(
        {
            "web/pay.js": f'PUBLISHABLE = "{publishable}"\nstripe_key = "{publishable}"\n',
            "web/index.html": f'<script src="https://maps.googleapis.com/maps/api/js?key={google}">\n',
            "web/firebase.js": f'const firebaseConfig = {{ apiKey: "{google}" }};\n',
            "server/gemini.js": f'const key = "{google}";\n',
        }
    )
    told = {
        path: [(f.rule, f.severity, f.message) for r in RULES for f in check(change, path, r())]
        for path in ("web/pay.js", "web/index.html", "web/firebase.js", "server/gemini.js")
    }
    for path in ("web/pay.js", "web/index.html", "web/firebase.js"):
        assert told[path] and all(
            rule == "S002" and severity == Severity.INFO and "documentation says" in message
            for rule, severity, message in told[path]
        ), path
    assert [(rule, severity) for rule, severity, _ in told["server/gemini.js"]] == [
        ("S002", Severity.ERROR)
    ]


def test_a_jwt_whose_header_names_no_algorithm_is_a_warning(changes: Changes) -> None:
    signed = jwt()
    claims, signature = signed.split(".")[1:]
    header = base64.urlsafe_b64encode(json.dumps({"kid": "k1"}).encode()).rstrip(b"=").decode()
    unnamed = f"{header}.{claims}.{signature}"
    lines = [f'SIGNED = "{signed}"', f'UNNAMED = "{unnamed}"'] + [
        f"WRAPPED_{n} = {base64.b64encode(t.encode()).decode()}"
        for n, t in enumerate((signed, unnamed))
    ]
    change = changes.change({"tokens.sh": "\n".join(lines) + "\n"})
    findings = check(change, "tokens.sh", TokenFormat())
    assert [(f.line, f.severity) for f in findings] == [
        (1, Severity.ERROR),
        (2, Severity.WARNING),
        (3, Severity.ERROR),
        (4, Severity.WARNING),
    ]
    assert all("names no algorithm" in f.message for f in findings if f.line in (2, 4))


def test_tokens_in_lockfiles_are_still_reported(changes: Changes) -> None:
    token = github_token("lockfile", "npm_")
    line = f'"resolved": "https://npm.example.com/pkg.tgz?token={token}",'
    change = changes.change({"package-lock.json": line + "\n"})
    assert found(change, "package-lock.json", TokenFormat()) == [("S002", 1, "npm access token")]


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


def test_a_key_rotated_in_place_is_told_apart_by_its_body_not_its_file(changes: Changes) -> None:
    """Which key a rotation found is its body's (secret_digest): the whole file's told the same
    key again after an amend that changed only another line of that file."""
    old = pem("PRIVATE KEY", 51)
    new = [old[0], *key_body(52), old[-1]]
    other = [old[0], *key_body(53), old[-1]]
    before = {"certs/server.key": "\n".join(old) + "\n"}

    def digest(lines: list[str]) -> str:
        change = changes.change({"certs/server.key": "\n".join(lines) + "\n"}, before=before)
        (finding,) = check(change, "certs/server.key", PrivateKey())
        return finding.secret_digest

    assert digest(new) == digest(["# the server's key, rotated", *new]) == digest([*new, "", "#"])
    assert digest(new) != digest(other)


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


def test_credentials_wrapped_in_base64_are_found(changes: Changes) -> None:
    key = "\n".join(pem("RSA PRIVATE KEY", 61)) + "\n"
    encoded_key = base64.b64encode(key.encode()).decode()
    encoded_jwt = base64.b64encode(jwt().encode()).decode()
    change = changes.change(
        {"k8s/tls.yaml": f"  tls.key: {encoded_key}\n", "ci/env.sh": f"TOKEN={encoded_jwt}\n"}
    )
    assert found(change, "k8s/tls.yaml", PrivateKey()) == [
        ("S001", 1, "private key (base64-encoded PEM)")
    ]
    assert found(change, "ci/env.sh", TokenFormat()) == [
        ("S002", 1, "JSON Web Token (base64-encoded)")
    ]


def test_a_key_written_in_code_or_after_a_log_s_prefix_is_found(changes: Changes) -> None:
    body = key_body(62)
    code = ['KEY = ("-----BEGIN PRIVATE KEY-----\\n"', *(f'    + "{b}\\n"' for b in body), ")"]
    log = ["#6 0.245 -----BEGIN PRIVATE KEY-----", *(f"#6 0.245 {b}" for b in body)]
    change = changes.change({"keys.py": "\n".join(code) + "\n", "build.log": "\n".join(log) + "\n"})
    assert [f.line for f in check(change, "keys.py", PrivateKey())] == [1]
    assert [f.line for f in check(change, "build.log", PrivateKey())] == [1]


def test_a_url_whose_password_is_a_stand_in_is_no_finding_of_any_rule(changes: Changes) -> None:
    """httpx's proxy docs: `username:password@` is an example, whichever rule finds the URL
    (the maintained rule set's credential-URI rule did); a real password there is still told."""
    example = 'with httpx.Client(proxy="http://username:password@localhost:8030") as client:\n'
    real = 'PROXY = "http://deploy:Xk9vQ2mZ7pLw4@proxy.internal:8030"\n'
    change = changes.change({"docs/proxies.md": example, "deploy.py": real})
    assert [found(change, "docs/proxies.md", rule()) for rule in RULES] == [[]] * len(RULES)
    assert [finding for rule in RULES for finding in found(change, "deploy.py", rule())]
