"""The secret rules that know a secret by its place (review.rules.assigned_secrets): a value
given to a secret-like name (S003), a password where the place says it is one (S004).
"""

from __future__ import annotations

import base64
import json
import random

import pytest

from landwatch.review.findings import Severity
from landwatch.review.rules.assigned_secrets import Credentials, GenericSecret
from landwatch.review.rules.secrets import TokenFormat
from landwatch.review.secrets.scanning import shannon_entropy
from support.changes import Changes
from support.secret_examples import (
    VALUES,
    check,
    found,
    random_value,
)
from support.tokens import GITHUB_TOKEN

# --- S003 generic-secret -----------------------------------------------------------------------


def test_a_guess_by_name_is_info_and_a_machine_made_value_a_warning(changes: Changes) -> None:
    lines = ['db_password = "Tr0ub4dor&3"', f'api_secret = "{VALUES[0]}"']
    change = changes.change({"settings.py": "\n".join(lines) + "\n"})
    findings = check(change, "settings.py", GenericSecret())
    assert [(f.line, f.severity) for f in findings] == [(1, Severity.INFO), (2, Severity.WARNING)]
    assert "a guess by its name" in findings[0].message
    assert "guess" not in findings[1].message


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
            f'scopes = ["token", "{VALUES[1]}"]',  # a list, not a name and its value
            f'__slots__ = ("next_token", "{VALUES[2]}")',  # a tuple, not a call
        ]
    )
    js = "const clientSecret = process.env.CLIENT_SECRET_VALUE;\n"
    change = changes.change({"config.py": code + "\n", "server.js": js})
    assert check(change, "config.py", GenericSecret()) == []
    assert check(change, "server.js", GenericSecret()) == []


def test_a_literal_compared_with_a_secret_name_is_hard_coded(changes: Changes) -> None:
    code = f'if token == "{VALUES[0]}":\nif ("{VALUES[1]}" !== password) {{\n'
    change = changes.change({"check.py": code})
    assert [f.line for f in check(change, "check.py", GenericSecret())] == [1, 2]


@pytest.mark.parametrize(
    "value",
    [
        "3f2b8c1e-9d4a-4f6b-8e2c-1a7d5b9c0e4f",  # UUID
        "9c1185a5c5e9fc54612808977ee8f548b2258d31",  # hex, 40
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",  # hex, 64
    ],
)
def test_a_uuid_or_hex_key_under_a_secret_name_is_one(changes: Changes, value: str) -> None:
    change = changes.change({"config.py": f'SECRET_TOKEN = "{value}"\nrequest_id = "{value}"\n'})
    assert [f.line for f in check(change, "config.py", GenericSecret())] == [1]


@pytest.mark.parametrize(
    "value",
    [
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
    values = ["changeme", "password", "example", "xxxxxxxx", "********", "hunter", "aaaabbbb"]
    lines = [f'password_{number} = "{value}"' for number, value in enumerate(values)]
    change = changes.change({"config.py": "\n".join(lines) + "\n"})
    assert check(change, "config.py", GenericSecret()) == []


def test_a_password_is_judged_as_people_make_them(changes: Changes) -> None:
    # Six characters or more of two kinds: people's passwords have little entropy.
    lines = ['password = "hunter2"', 'DB_PASS = "cackle!"', 'user_pw = "Palau"']
    change = changes.change({"config.py": "\n".join(lines) + "\n"})
    assert [f.line for f in check(change, "config.py", GenericSecret())] == [1, 2]


def test_a_value_on_the_line_below_its_name(changes: Changes) -> None:
    env = "env:\n  - name: DB_PASSWORD\n    value: {}\n  - name: API_TOKEN\n    value: {}\n"
    change = changes.change(
        {
            "deploy.yaml": env.format(f'"{VALUES[0]}"', VALUES[1]),
            "stand-ins.yaml": env.format('"{{ .Values.password }}"', "changeme"),
        }
    )
    assert [f.line for f in check(change, "deploy.yaml", GenericSecret())] == [3, 5]
    assert check(change, "stand-ins.yaml", GenericSecret()) == []


def test_a_hash_inside_a_plain_value_below_its_name_is_the_value_s(changes: Changes) -> None:
    """An audit: `value: Wq9#rT4mLx2vHn` is that whole password to YAML (a comment starts only
    after a space), but the value was read as `Wq9`, told by no rule, and P001 showed it whole."""
    env = "env:\n  - name: DB_PASSWORD\n    value: Wq9#rT4mLx2vHn\n"
    commented = "env:\n  - name: DB_PASSWORD\n    value: changeme # set by the chart\n"
    change = changes.change({"deploy.yaml": env, "stand-in.yaml": commented})
    [told] = check(change, "deploy.yaml", GenericSecret())
    assert told.line == 3 and told.span is not None
    assert env.split("\n")[2][told.span[0] : told.span[1]] == "Wq9#rT4mLx2vHn"
    assert check(change, "stand-in.yaml", GenericSecret()) == []


def test_a_value_on_the_line_below_its_key(changes: Changes) -> None:
    # A `key`/`value` pair written over two lines: YAML's, XML's, a plist's.
    yaml = "secrets:\n  - key: pro_password\n    value: {}\n  - key: username\n    value: {}\n"
    xml = "<entry>\n  <key>password</key>\n  <value>{}</value>\n</entry>\n"
    plist = "<dict>\n  <key>ApiToken</key>\n  <string>{}</string>\n</dict>\n"
    change = changes.change(
        {
            "integration.yml": yaml.format(VALUES[0], VALUES[1]),
            "integration.xml": xml.format(VALUES[2]),
            "Info.plist": plist.format(VALUES[3]),
            "stand-ins.yml": yaml.format("${PASSWORD}", "changeme"),
            "stand-ins.xml": xml.format("{{ password }}"),
            "other.xml": xml.replace("password", "password_hint").format(VALUES[2]),
        }
    )
    assert [f.line for f in check(change, "integration.yml", GenericSecret())] == [3]
    assert [f.line for f in check(change, "integration.xml", GenericSecret())] == [3]
    assert [f.line for f in check(change, "Info.plist", GenericSecret())] == [3]
    for path in ("stand-ins.yml", "stand-ins.xml", "other.xml"):
        assert check(change, path, GenericSecret()) == []


def test_a_password_under_a_misspelled_name_is_read(changes: Changes) -> None:
    # The lines a review reads are those holding a name's letters: every spelling of password.
    lines = ["PSSWRD:=FlUgeGeHeImEn07", "PASWD:=FlUgeGeHeImEn09", "PSWD:=FlUgeGeHeImEn11"]
    change = changes.change({"notes.txt": "\n".join(lines) + "\n"})
    assert [f.line for f in check(change, "notes.txt", GenericSecret())] == [1, 2, 3]


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
    change = changes.change({"config.py": f'api_token = "{VALUES[0]}"\n'})
    assert len(check(change, "config.py", GenericSecret(min_entropy=3))) == 1
    assert check(change, "config.py", GenericSecret(min_entropy=6.0)) == []


def test_known_formats_are_left_to_token_format(changes: Changes) -> None:
    token = GITHUB_TOKEN
    change = changes.change({"ci.py": f'GITHUB_TOKEN = "{token}"\n'})
    assert check(change, "ci.py", GenericSecret()) == []
    assert found(change, "ci.py", TokenFormat()) == [("S002", 1, "GitHub personal access token")]


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


# --- manifests and elements, where the file's shape says what a value is -------------------------

MANIFEST = """apiVersion: v1
kind: Secret
metadata:
  name: db
type: Opaque
data:
  connection: {encoded}
"""


def test_a_kubernetes_secret_s_data_is_a_credential(changes: Changes) -> None:
    encoded = base64.b64encode(VALUES[0].encode()).decode()
    change = changes.change({"deploy/db-secret.yaml": MANIFEST.format(encoded=encoded)})
    findings = check(change, "deploy/db-secret.yaml", Credentials())
    assert [(f.line, f.message) for f in findings] == [
        (7, "credential in a Kubernetes Secret's data")
    ]
    assert encoded not in (findings[0].snippet or "")


@pytest.mark.parametrize("stand_in", ["changeme", "${DB_PASSWORD}", "<password>", "**********"])
def test_a_kubernetes_secret_s_value_is_judged_as_it_decodes(
    changes: Changes, stand_in: str
) -> None:
    encoded = base64.b64encode(stand_in.encode()).decode()
    change = changes.change({"deploy/db-secret.yaml": MANIFEST.format(encoded=encoded)})
    assert check(change, "deploy/db-secret.yaml", Credentials()) == []


def test_a_sealed_secret_is_encrypted_and_left_alone(changes: Changes) -> None:
    sealed = MANIFEST.replace("kind: Secret", "kind: SealedSecret").replace(
        "data:", "encryptedData:"
    )
    text = sealed.format(encoded="AgB" + random_value(3, 300).replace("!", "A"))
    change = changes.change({"deploy/sealed.yaml": text})
    for rule in (Credentials(), GenericSecret()):
        assert check(change, "deploy/sealed.yaml", rule) == []


def test_an_xml_element_s_value_on_a_line_of_its_own(changes: Changes) -> None:
    xml = f"<settings>\n  <apiToken>\n    {VALUES[2]}\n  </apiToken>\n</settings>\n"
    change = changes.change({"conf/app.xml": xml})
    assert [f.line for f in check(change, "conf/app.xml", GenericSecret())] == [3]
