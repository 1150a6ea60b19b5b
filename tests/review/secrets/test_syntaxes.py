"""The table of syntaxes a value is written in after a secret-like name
(review.secrets.syntaxes): each syntax finds its positives and none of its hard negatives, read
through the generic detector (review.secrets.assignments) as a review reads a line."""

from __future__ import annotations

import pytest

from landwatch.review.secrets.assignments import assignments
from landwatch.review.secrets.syntaxes import SYNTAXES, Place, places, statement_start

TOKEN = "Zq8Wv7" + "Tu6Rs5QpX3"  # random-looking, 16 characters
PASSWORD = "Tr0ub4" + "dor&3x"  # as people make them
BRACKETED = "k8(Tq]2v" + "{9xZ)w$"  # brackets and a sigil inside, as a generator may give them
# Syntaxes tried only on a line of a file of settings (.env, INI, YAML, .conf).
IN_SETTINGS = {"bare literal in a file of settings"}

# Each syntax of the table: lines where it gives the value (TOKEN or PASSWORD), and hard
# negatives, lines of its shape that hold no secret.
EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "assignment or key": (
        [
            f'DB_PASSWORD = "{PASSWORD}"',
            f"apiKey: '{TOKEN}'",
            f"TOKEN={TOKEN}",
            f'val m = Map("token" -> "{TOKEN}")',  # Scala's pair
            f"  - DB_PASSWORD={PASSWORD}</environment>",  # ended by a closing tag
        ],
        [
            "password = user.password",
            'DB_PASSWORD = "${DB_PASSWORD}"',
            "token = get_token()",
            'Map("token" -> "${TOKEN}")',
            "$this->token = $token;",  # PHP's arrow reads a member, it gives nothing
            "<environment>DB_PASSWORD=${DB_PASSWORD}</environment>",
        ],
    ),
    "label in prose or a log": (
        [
            f"github token - '{TOKEN}'",  # a log line naming the service
            f"the password is: {PASSWORD}",
            f"Your API token is {TOKEN}.",  # the sentence's full stop is not the token's
            f"password for master:{PASSWORD}",
            f"stripe secret \u2013 {TOKEN}",
        ],
        [
            "the password is incorrect.",
            "if token is not None:",
            "the password is <password>",
            "token - the token to send",
            "password is required.",
            "the password is case-sensitive",
            "token is %s",
            "password for admin: changeme",
            "offset = token - 1",
        ],
    ),
    "default where it is read": (
        [
            f'PASSWORD = os.environ.get("PASSWORD") or "{PASSWORD}"',
            f'const token = process.env.API_TOKEN || "{TOKEN}";',
            f"secret = env['SECRET'] ?? '{TOKEN}'",
        ],
        ['token = os.environ.get("TOKEN") or ""', 'password = args.password or "changeme"'],
    ),
    "statement": (
        [
            f'#define SECRET "{TOKEN}"',
            f'SET password "{PASSWORD}"',
            f'    password "{PASSWORD}"',  # Gradle's
        ],
        [
            "type Token string",
            "var apiToken string",
            "password VARCHAR(255)",
            "import secrets",
            "from secrets import token_hex",
            f"password {PASSWORD}",  # no keyword, no quotes: in code, not a statement
        ],
    ),
    "declaration": (
        [f"ENV API_TOKEN {TOKEN}", f"export DB_PASSWORD {PASSWORD}"],  # a Dockerfile's, a shell's
        ["ENV API_TOKEN ${API_TOKEN}", "did pass through:", "the password Tr0ub4dor!"],
    ),
    "call argument": (
        [f"define('DB_PASSWORD', '{PASSWORD}');", f'setopt(c, CURLOPT_PASSWORD, "{TOKEN}")'],
        ['os.getenv("TOKEN", "")', 'f("token", "auth.token.expired")'],
    ),
    "XML element": (
        [f"<apiToken>{TOKEN}</apiToken>", f'<password type="x">{PASSWORD}</password>'],
        ["<password>changeme</password>", "<secret>${SECRET}</secret>", "<token></token>"],
    ),
    "key and value attributes": (
        [
            f'<add key="ClearTextPassword" value="{PASSWORD}" />',
            f'{{"name": "API_TOKEN", "value": "{TOKEN}"}}',  # JSON's
            f'{{"key": "PASS", "value": "{PASSWORD}"}}',
        ],
        [
            '<add key="ClearTextPassword" value="%PASSWORD%" />',
            '<add key="token" value="" />',
            '{"name": "API_TOKEN", "value": "${API_TOKEN}"}',
            '{"key": "password", "value": ""}',
            f'{{"key": "username", "value": "{TOKEN}"}}',
        ],
    ),
    "XML element its attribute names": (
        [
            f'<entry key="password">{PASSWORD}</entry>',
            f'<string name="api_key">{TOKEN}</string>',  # Android's strings.xml
            f'<property name="db.password" type="x">{PASSWORD}</property>',
        ],
        [
            '<string name="api_key">YOUR_API_KEY</string>',
            '<entry key="password"></entry>',
            '<string name="password_hint">Enter your password</string>',
        ],
    ),
    "XML key and value elements": (
        [
            f"<key>password</key><value>{PASSWORD}</value>",
            f"<name>fs.s3a.secret.key</name> <value>{TOKEN}</value>",  # Hadoop's
            f"<key>ApiToken</key><string>{TOKEN}</string>",  # a plist's
        ],
        [
            "<key>password</key><value></value>",
            "<name>fs.s3a.secret.key</name><value>${S3_SECRET}</value>",
            f"<key>username</key><value>{TOKEN}</value>",
            "<key>token_url</key><value>https://example.com/oauth/token</value>",
            f"<key>password</key><info>{PASSWORD}</info>",
        ],
    ),
    "command-line flag": (
        [f"--secret={TOKEN}", f'--api-key "{TOKEN}"', f"app --password {PASSWORD}"],
        ["app --password $PASSWORD", "--token=<token>", "--password-file /run/pw"],
    ),
    "URL query parameter": (
        [f"https://example.com/api?key={TOKEN}&page=2", f"/x?a=1%26token%3D{TOKEN}%26b"],
        ["https://example.com/api?token=YOUR_TOKEN", "?token={token}"],
    ),
    "HTTP header on a command line": (
        [
            f'curl -H "Private-Token: {TOKEN}" https://gitlab.example.com/api/v4/projects',
            f"http --header 'X-Api-Key:{TOKEN}' example.org",
        ],
        [
            'curl -H "Private-Token: $GITLAB_TOKEN" https://gitlab.example.com',
            "curl -H 'X-Api-Key: <your-key>' example.org",
            'curl -H "X-Auth-Token: YOUR_TOKEN" example.org',
        ],
    ),
    "default of a variable": (
        [f"  POSTGRES_PASSWORD: ${{DB_PASSWORD:-{PASSWORD}}}", f"${{API_TOKEN={TOKEN}}}"],
        ["${POSTGRES_PASSWORD:-postgres}", "${JWT_SECRET:-dev-secret-change-me}"],
    ),
    "bare literal in a file of settings": (
        [f"db_pass: {BRACKETED}", f"private_key={BRACKETED}", f'SECRET: {BRACKETED}"'],
        [
            "password: !vault |",  # YAML's tag
            "SECRET_KEY=${SECRET_KEY:=changeme}",  # a shell's expansion
            "token: [a, b]",  # YAML's flow sequence
            "api_key: {{ vault_api_key }}",  # a template
            "token=token=k8Tq2vZx9w",  # a name read up to the next `=`, no value
        ],
    ),
    "string continued on the next line, or triple-quoted": (
        [
            f'API_TOKEN = """{TOKEN}',
            f"secret: '{TOKEN}\\",
            f"API_TOKEN = '''{TOKEN}   ",  # spaces after the opened string's first line
            f"API_TOKEN = '''{TOKEN}'''",  # Python's triple quotes closed on their line
            f'API_TOKEN = """{TOKEN}""" + suffix',
        ],
        [
            'password = """',
            "token = '''\\",
            'x = "abc" + \\',
            'secret = """${SECRET}',
            'token = """the token the service gave"""',  # a docstring's words
            "token = '''${TOKEN}'''",
            f"token = '{TOKEN[:6]}' '",  # closed by one quote, another string opened
        ],
    ),
    "user and password after a label naming both": (
        [
            f"ID/PW: admin/{PASSWORD}",
            f"(ID&PWD):master/{PASSWORD}",
            f"id/pass:master,{PASSWORD}",
            f"ANYID(PW):master({PASSWORD})",
            f"ID/Pass: db01:master/{PASSWORD}, db02:master/{PASSWORD}",
        ],
        ["user/password: see below", "id/pw: user/<password>", "ID/PW: admin/changeme"],
    ),
}


def found(line: str, *, unquoted: bool = False) -> list[str]:
    return [
        line[start:end] for _, start, end in assignments(line, unquoted=unquoted, min_entropy=3.5)
    ]


def test_every_syntax_of_the_table_has_positives_and_hard_negatives() -> None:
    assert sorted(EXAMPLES) == sorted(syntax.what for syntax in SYNTAXES)
    assert all(positives and negatives for positives, negatives in EXAMPLES.values())


@pytest.mark.parametrize(
    ("what", "line"), [(what, line) for what, (lines, _) in EXAMPLES.items() for line in lines]
)
def test_each_syntax_finds_its_values(what: str, line: str) -> None:
    values = found(line, unquoted=what in IN_SETTINGS)
    assert values and set(values) <= {TOKEN, PASSWORD, BRACKETED}


@pytest.mark.parametrize(
    ("what", "line"), [(what, line) for what, (_, lines) in EXAMPLES.items() for line in lines]
)
def test_each_syntax_lets_its_hard_negatives_through(what: str, line: str) -> None:
    assert found(line, unquoted=what in IN_SETTINGS) == []


def test_a_bare_value_holding_brackets_is_a_literal_only_in_a_file_of_settings() -> None:
    for line in (f"db_pass: {BRACKETED}", f"secret = {BRACKETED}"):
        assert found(line) == []  # in code, a call or a subscript could be written so


def test_a_declaration_without_a_keyword_only_in_a_file_of_settings() -> None:
    for line in (f"api.token {TOKEN}", f"apitoken {TOKEN}"):  # a .properties file's
        in_settings = assignments(line, unquoted=True, min_entropy=3.5)
        assert [line[a:b] for _, a, b in in_settings] == [TOKEN]
        assert found(line) == []


def test_where_a_name_stands_decides_which_syntaxes_are_tried() -> None:
    line = "env x ${token"
    statement = statement_start(line, literal_file=False)
    assert places(line, 6, statement) == {Place.ANYWHERE}
    assert places(line, 8, statement) == {Place.TEMPLATE}
    assert {Place.STATEMENT, Place.DECLARATION} <= places(line, 4, statement)
    assert Place.DECLARATION not in places(
        "did pass", 4, statement_start("did pass", literal_file=True)
    )
    assert Place.FLAG in places("--token x", 0, (0, 0, False, False))
    assert Place.QUERY in places("/a?token=x", 3, (0, 0, False, False))
