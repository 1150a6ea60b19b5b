"""Passwords given on a command line to an option that takes one, as one table of commands and
their options: `mysql -pX`, `sshpass -p X`, `redis-cli -a X`, `docker login -p X`, `sqlcmd -P X`.

A line is read once, word by word, and a command's options count up to the end of its command
(`;`, `&&`, `||`, `|`): time linear in the line whatever it holds.
"""

from __future__ import annotations

from typing import NamedTuple

from landwatch.lazy_re import lazy_compile


class PasswordOption(NamedTuple):
    """The short option a command takes its password by: `attached` (`-pX`), `separate` (`-p X`)."""

    option: str
    attached: bool
    separate: bool


# mysql's `-p X` asks for the password and X is the database: only `-pX` gives one.
_MYSQL = PasswordOption("-p", attached=True, separate=False)
_NEXT_WORD_P = PasswordOption("-p", attached=False, separate=True)
# `docker run -p 8080:80` publishes a port: for these, only their `login` takes a password.
_LOGINS = ("docker", "podman", "nerdctl", "buildah", "skopeo", "helm", "oras", "cf", "az", "oc")
PASSWORD_OPTIONS: dict[str, PasswordOption] = {
    **dict.fromkeys(
        ("mysql", "mysqldump", "mysqladmin", "mysqlimport", "mysqlcheck", "mysqlshow"), _MYSQL
    ),
    **dict.fromkeys(("mysqlpump", "mariadb", "mariadb-dump", "mariadb-admin"), _MYSQL),
    "sshpass": PasswordOption("-p", attached=True, separate=True),
    **dict.fromkeys(
        ("mongo", "mongosh", "mongodump", "mongorestore", "mongoexport", "mongoimport"),
        _NEXT_WORD_P,
    ),
    "redis-cli": PasswordOption("-a", attached=False, separate=True),
    **dict.fromkeys(("sqlcmd", "bcp"), PasswordOption("-P", attached=False, separate=True)),
    **dict.fromkeys(
        ("ldapsearch", "ldapadd", "ldapmodify", "ldapdelete", "ldapwhoami", "ldappasswd"),
        PasswordOption("-w", attached=False, separate=True),
    ),
    **{f"{command} login": _NEXT_WORD_P for command in _LOGINS},
}
# What a line must hold, folded, for any command of the table to be on it.
COMMAND_NEEDLES = (
    *(b"mysql", b"mariadb", b"sshpass", b"mongo", b"redis-cli", b"sqlcmd", b"bcp", b"ldap"),
    b"login",
)
_WORD = lazy_compile(r"\S++")
_BEFORE_COMMAND = lazy_compile(r"[/(=$]")
_COMMAND_ENDS = (";", "&&", "||", "|", "&")
# Around a word: a shell's quotes and a JSON or YAML array's (`["CMD", "mysqladmin", "-proot"]`).
_AROUND = "\"'`,[]();"


def command_passwords(text: str) -> list[tuple[int, int]]:
    """(start, end) of each password given on a line to an option of the table, unjudged."""
    found: list[tuple[int, int]] = []
    option: PasswordOption | None = None
    previous = ""
    take_next = False
    for word in _WORD.finditer(text):
        raw = word[0]
        bare = raw.strip(_AROUND)
        start = word.start() + raw.find(bare) if bare else word.start()
        if take_next and bare:
            found.append((start, start + len(bare)))
        take_next = False
        name = _BEFORE_COMMAND.split(bare)[-1].lower()  # `ok=$(mysql`, `/usr/bin/mysql`
        chosen = PASSWORD_OPTIONS.get(f"{previous} {name}") or PASSWORD_OPTIONS.get(name)
        if chosen is not None:
            option = chosen
        elif option is not None and bare.startswith(option.option):
            if bare == option.option:
                take_next = option.separate
            elif option.attached:
                value = bare[len(option.option) :].strip(_AROUND)
                at = start + bare.find(value, len(option.option))
                found.append((at, at + len(value)))
        if raw.endswith(_COMMAND_ENDS):
            option = None
        previous = name
    return found
