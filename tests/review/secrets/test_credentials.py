"""Passwords where the place says they are passwords (review.secrets.credentials): a URL's user
info, a connection string, a credential file's line, whatever their entropy; placeholders let
through."""

from __future__ import annotations

import base64

import pytest

from landwatch.review.secrets.credentials import credentials, data_stand_in


def span(line: str, value: str) -> tuple[int, int]:
    return line.index(value), line.index(value) + len(value)


def test_a_password_in_a_url_s_user_info() -> None:
    line = "DATABASE_URL=postgres://app:S3cr3tPw9@db.example.org/app"
    assert credentials(line) == [("password in a URL", *span(line, "S3cr3tPw9"))]


def test_a_password_in_a_connection_string() -> None:
    line = '"Server=db;Database=app;User Id=sa;Password=Zq8Wv7Tu6;"'
    assert credentials(line) == [("password in a connection string", *span(line, "Zq8Wv7Tu6"))]
    assert credentials("password = f()") == []  # code, and no place to connect to


def test_a_credential_file_s_password_line_only_in_a_credential_file() -> None:
    line = "password Zq8Wv7Tu6"
    assert credentials(line) == []
    assert credentials(line, credential_file=True) == [
        ("password in a credential file", *span(line, "Zq8Wv7Tu6"))
    ]


@pytest.mark.parametrize(
    "line",
    [
        "postgres://user:password@host/db",
        "https://u:${PASS}@h.example/x",
        "https://u:<your-password>@h.example/x",
        "https://u:xxxxxx@h.example/x",
        "https://u:abc@h.example/x",  # too short to be one
        "Server=db;User Id=sa;Password=changeme;",
        "https://u:S3cr3t…@h.example/x",  # cut short in docs
    ],
)
def test_placeholders_are_let_through(line: str) -> None:
    assert credentials(line, credential_file=True) == []


@pytest.mark.parametrize(
    "line",
    [
        "ssh deploy@10.0.0.7 pw:Dk3!x9Lq",
        "--user=deploy --password=Dk3!x9Lq",
        "Username: deploy  Password: Hq7Tz2Mw",  # upper, lower and digits: generated
        "ID:deploy,pass:Dk3!x9Lq",
    ],
)
def test_a_password_after_its_label_is_found_in_any_file(line: str) -> None:
    [(what, start, end)] = credentials(line)
    assert what == "password after its label" and line[start:end] in ("Dk3!x9Lq", "Hq7Tz2Mw")


@pytest.mark.parametrize(
    "line",
    [
        "password = password",  # a name in code
        "pw: string;",
        "bypass: Dk3!x9Lq",  # not a password's label
        "password: ${DB_PASSWORD}",
        "passwords: true",
        "password: changeme",
        "password = ENC(2dfRFqV/cS6TzRd+JyO=)",  # encrypted for the repository (Jasypt)
        "pw: /etc/app/secret.txt",  # a path
        "  - All existing tests pass: multi-header merge,",  # prose: `pass` is a verb there
        "CI checks pass: type-check",
    ],
)
def test_names_templates_and_encrypted_values_after_a_label_are_let_through(line: str) -> None:
    assert credentials(line) == []


def test_the_credentials_of_an_authorization_header_are_found() -> None:
    token = "dGVzdGVyOnM0bHR5" + "UGVwcGVyOTk"
    line = f"curl -H 'Authorization: Basic {token}' https://api.example.org/"
    assert credentials(line) == [
        (
            "credentials in an Authorization header",
            line.index(token),
            line.index(token) + len(token),
        )
    ]


def test_basic_credentials_whose_password_stands_in_are_an_example() -> None:
    for pair in ("user:password", "admin:<password>", "admin:", "me:${PASSWORD}"):
        encoded = base64.b64encode(pair.encode()).decode()
        assert credentials(f"Authorization: Basic {encoded}") == [], pair


def test_a_secret_s_data_is_judged_as_written_and_as_it_decodes() -> None:
    assert data_stand_in(base64.b64encode(b"changeme").decode())
    assert data_stand_in("${DB_PASSWORD}")
    assert not data_stand_in(base64.b64encode(b"Zq8Wv7Tu6!").decode())
    assert not data_stand_in(base64.b64encode(b"admin:password").decode())  # deployed as it is
    assert not data_stand_in(base64.b64encode(bytes(range(0, 256, 7))).decode())  # binary


@pytest.mark.parametrize(
    "line",
    [
        "ALTER USER app WITH PASSWORD 'Zq8Wv7Tu6';",
        "CREATE LOGIN app WITH PASSWORD = 'Zq8Wv7Tu6';",
        "CREATE USER 'app'@'localhost' IDENTIFIED BY 'Zq8Wv7Tu6';",
        "CREATE ROLE app WITH LOGIN PASSWORD Zq8Wv7Tu6;",
        "INSERT INTO mysql.user VALUES (PASSWORD('Zq8Wv7Tu6'));",  # MySQL's PASSWORD()
    ],
)
def test_a_password_in_sql(line: str) -> None:
    assert credentials(line) == [("password in SQL", *span(line, "Zq8Wv7Tu6"))]


def test_what_sql_names_no_password_for() -> None:
    assert credentials("ALTER USER 'x'@'%' PASSWORD EXPIRE INTERVAL 90 DAY;") == []
    assert credentials("CREATE USER $NAME WITH PASSWORD '$TEST_USER_PASS';") == []
    # Code reading a key named password: the word is a string of its own, no SQL keyword.
    assert credentials("if (($m['password'] ?? '') !== '') {") == []
    assert credentials('user["password"] = input("Zq8Wv7Tu6: ");') == []
    assert credentials("user.set(password('Zq8Wv7Tu6'))") == []  # a call of code


def test_a_password_given_to_a_command_s_option() -> None:
    line = "docker exec db mysql -uroot -pZq8Wv7Tu6 app"
    assert credentials(line) == [("password on a command line", *span(line, "Zq8Wv7Tu6"))]
    for stand_in in ("mysql -uroot -proot app", "mysql -p$MYSQL_PASSWORD", "mysql -p app"):
        assert credentials(stand_in) == [], stand_in


def test_a_password_given_to_curl_or_powershell() -> None:
    line = "curl --cacert ca.crt -u elastic:Zq8Wv7Tu6 https://localhost:9200"
    assert credentials(line) == [("password given to curl", *span(line, "Zq8Wv7Tu6"))]
    for stand_in in ('curl -u "$USER:$PASSWORD" x', "curl -u user:pass x", "curl --user xxx:yyy"):
        assert credentials(stand_in) == [], stand_in
    shell = '$p = ConvertTo-SecureString "Zq8Wv7Tu6!" -AsPlainText -Force'
    assert credentials(shell) == [
        ("password given to ConvertTo-SecureString", *span(shell, "Zq8Wv7Tu6!"))
    ]
