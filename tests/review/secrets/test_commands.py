"""Passwords given to a command's option (review.secrets.commands): the table's commands, each
option as it is written, and the options of other commands or the same letter elsewhere."""

from __future__ import annotations

import pytest

from landwatch.review.secrets.commands import PASSWORD_OPTIONS, command_passwords

PASSWORD = "Zq8Wv7" + "Tu6!"


def given(line: str) -> list[str]:
    return [line[start:end] for start, end in command_passwords(line)]


@pytest.mark.parametrize(
    "line",
    [
        f"mysql -u root -p{PASSWORD} app",
        f"/usr/bin/mysqldump -p'{PASSWORD}' app > dump.sql",
        f'test: ["CMD", "mysqladmin", "ping", "-p{PASSWORD}"]',  # a compose healthcheck
        f'sshpass -p "{PASSWORD}" ssh deploy@host',
        f"redis-cli -h cache -a {PASSWORD} ping",
        f"mongosh --host db -u admin -p {PASSWORD}",
        f"sqlcmd -S db -U sa -P {PASSWORD} -Q 'select 1'",
        f"ldapsearch -x -D cn=admin -w {PASSWORD} -b dc=x",
        f"echo x | docker login registry.example.com -u ci -p {PASSWORD}",
        f"ok=$(mysql -p{PASSWORD} -e 'select 1')",
    ],
)
def test_a_password_given_to_an_option_that_takes_one(line: str) -> None:
    assert given(line) == [PASSWORD]


@pytest.mark.parametrize(
    "line",
    [
        "mysql -u root -p app",  # mysql asks for it; `app` is the database
        "docker run -p 8080:80 nginx",  # a port, not a login
        "mkdir -p build/out",
        "mysql -u root app; mkdir -p x",  # the option after another command
        "redis-cli -a",
        "podman run -p 5432:5432 db",
    ],
)
def test_an_option_of_another_command_or_none_given(line: str) -> None:
    assert given(line) == []


def test_the_table_names_each_command_in_lower_case() -> None:
    assert all(command == command.lower() for command in PASSWORD_OPTIONS)
    assert PASSWORD_OPTIONS["docker login"].separate and not PASSWORD_OPTIONS["mysql"].separate
