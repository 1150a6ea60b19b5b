"""Values given to secret-like names (review.secrets.assignments), in every syntax projects write
them: assignments of many languages, comparisons, statements, call arguments, XML, flags, query
parameters and bare values; each judged as its name asks, stand-ins let through."""

from __future__ import annotations

import pytest

from landwatch.review.secrets.assignments import assignments, element_value
from support.tokens import sealed_value

TOKEN = "Zq8Wv7" + "Tu6Rs5QpX3"  # random-looking, 16 characters


# A value as kubeseal encrypts one: the size of the RSA-4096-wrapped session key, that key, then
# AES-GCM ciphertext and tag.
SEALED = sealed_value(512, 560)


def found(line: str, *, settings_file: bool = False) -> list[str]:
    """The values found on `line`, as text."""
    return [
        line[start:end]
        for _, start, end in assignments(line, unquoted=settings_file, min_entropy=3.5)
    ]


@pytest.mark.parametrize(
    "line",
    [
        f'DB_PASSWORD = "{TOKEN}"',
        f"apiKey: '{TOKEN}'",
        f'settings["SECRET_KEY"] = "{TOKEN}"',
        f"define('DB_PASSWORD', '{TOKEN}');",
        f'token: str = "{TOKEN}"',
        f'client_secret => "{TOKEN}"',
        f'var confluenceToken string = "{TOKEN}"',  # Go
        f'$genericToken .= "{TOKEN}"',  # PHP
        f'jfrog_TOKEN ?= "{TOKEN}"',  # Makefile
        f'fly_TOKEN ::= "{TOKEN}"',
        f'SNYK_TOKEN :::= "{TOKEN}"',
        f'github_token <- "{TOKEN}"',  # R
        f'if (password == "{TOKEN}") {{',  # a hard-coded password, compared
        f'if ("{TOKEN}" !== api_key) {{',
        f'%global PASSWORD "{TOKEN}"',  # a statement naming it first
        f'#define SECRET "{TOKEN}"',
        f'System.setProperty("SNYK_TOKEN", "{TOKEN}")',
        f'easy_setopt(curl, CURLOPT_PASSWORD, "{TOKEN}");',  # a constant names it
        f"<apiToken>{TOKEN}</apiToken>",
        f'<password name="password">{TOKEN}</password>',
        f'<add key="ClearTextPassword" value="{TOKEN}" />',
        f"--secret={TOKEN}",
        f'--softlayer-api-key "{TOKEN}"',
        f"-secret {TOKEN}",
        f"https://example.com/api?key={TOKEN}&page=2",
        f"mySecretString={TOKEN}",  # bare, generated-looking, in code
        f'pkey = ("{TOKEN}"',
    ],
)
def test_a_secret_given_to_a_secret_like_name_is_found(line: str) -> None:
    assert found(line) == [TOKEN]


@pytest.mark.parametrize(
    "line",
    [
        'password = "cackle!"',  # people's passwords have little entropy
        '"password":"Prl23Db#@"',
        'def connect(passwd: str = "cq2tPr1a2"):',
        "PSWRD:=FlUgeGeHeImEn05",
        "X3_PSWD=d37Yt1Jnv0-z",
        'SET password "n83.bat47Fy4"',
    ],
)
def test_a_password_is_judged_as_people_make_them(line: str) -> None:
    assert found(line)


@pytest.mark.parametrize(
    "line",
    [
        'DB_PASSWORD = "${DB_PASSWORD}"',  # a template
        'password: "{{ vault_password }}"',
        'password = "changeme123"',  # a dummy
        'password = "somefakekey"',
        'secret = "aaaaaaaaaaaa"',  # a run of one character
        'api_key = "abcd1234abcd1234abcd1234abcd1234"',  # a unit repeated
        'api_key = "0123456789abcdef0123456789abcdef"',  # typed in order
        'token = "auth.token.expired"',  # a name, not a value
        'password = "short"',  # too short to guess at
        '"PW":"Palau"',
        'password = "value with spaces"',  # prose
        f'message = "{TOKEN}"',  # no secret-like name
        f'credentialId = "{TOKEN}"',  # names the secret, is not it
        f'public_key = "{TOKEN}"',
        f'csrf_token = "{TOKEN}"',
        f'access_token_url = "{TOKEN}"',
        'password = os.environ["X"]',  # code
        "token = get_token()",
        "password = user.password",
        "secret_key = token",
        "api_key = config.API_KEY",
        "tokenizer = BertTokenizer2.from_pretrained(x)",
        'secret: "ENC[AES256_GCM,data:Zq8Wv7Tu6Rs5Qp,type:str]"',  # encrypted
        f"PASSWORD: {SEALED}",  # a SealedSecret's value, outside its manifest
        "masked_password = *****1*****2;",
    ],
)
def test_what_is_no_secret_is_let_through(line: str) -> None:
    assert found(line) == []


def test_base64_of_a_sealed_secret_s_length_but_not_its_shape_is_found() -> None:
    unsealed = "Zq" + SEALED[2:]  # the same length, its first bytes no RSA key's size
    assert found(f"PASSWORD: {unsealed}", settings_file=True) == [unsealed]
    assert found(f"PASSWORD: {SEALED}", settings_file=True) == []


def test_a_bare_value_in_a_file_of_settings_is_a_literal() -> None:
    line = "DB_PASSWORD=hunter22"
    assert found(line, settings_file=True) == ["hunter22"]
    assert found(line) == []  # in code, `hunter22` could be a name


def test_uuids_and_hex_keys_count_under_a_secret_name_only() -> None:
    uuid = "dafa7817-e246-48f3-91a7-e87653d587b8"
    assert found(f'api_token = "{uuid}"') == [uuid]
    assert found(f'request_id = "{uuid}"') == []
    hex_key = "6da89121079f83b2eb6acccf8219ea98"
    assert found(f'"client_secret": "{hex_key}"') == [hex_key]


def test_a_bare_key_must_look_generated() -> None:
    assert found(f"ANY_key={TOKEN}") == [TOKEN]
    assert found('"bucket_key": "SalesResults-1.2"') == []
    assert found('"key": "attached_file_0"') == []


def test_an_element_s_value_on_a_line_of_its_own() -> None:
    assert element_value("<etsyToken>", f"    {TOKEN}", "</etsyToken>", min_entropy=3.5) == (
        "etsyToken",
        4,
        4 + len(TOKEN),
    )
    assert element_value("<etsyToken>", f"    {TOKEN}", "</other>", min_entropy=3.5) is None
    assert element_value("<title>", f"    {TOKEN}", "</title>", min_entropy=3.5) is None
