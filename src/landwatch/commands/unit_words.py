"""A systemd unit's values as landwatch writes them (systemd.syntax(7), systemd.service(5)):
each a double-quoted word, escaped so that systemd reads back exactly the path or variable given."""

from __future__ import annotations

from pathlib import Path


def quoted(value: str, *, argument: bool = False) -> str:
    """`value` as one double-quoted word of a unit file, which systemd reads back as written: it
    takes C escapes and expands `%` specifiers in every word, and `$` variables in a command's
    arguments (an `argument`), never in its executable (systemd.service(5), systemd.syntax(7))."""
    said = []
    for char in value:
        code = ord(char)
        if char in '\\"':
            said.append("\\" + char)
        elif char == "%" or (char == "$" and argument):
            said.append(char * 2)
        elif code < 0x20 or code == 0x7F:
            said.append(f"\\x{code:02x}")
        elif 0xDC80 <= code <= 0xDCFF:  # a byte of a path that is not UTF-8 (surrogateescape)
            said.append(f"\\x{code - 0xDC00:02x}")
        else:
            said.append(char)
    return '"' + "".join(said) + '"'


def exec_start(entry: Path) -> str:
    """ExecStart's command line: the entry point's reviewer. systemd refuses an executable whose
    path holds a quote, a backslash or a control character ("Executable name contains special
    characters"): such a path is given to /usr/bin/env, as an argument, which may hold any."""
    path = str(entry)
    if any(char in "\"'\\" or ord(char) < 0x20 or ord(char) == 0x7F for char in path):
        return f"/usr/bin/env {quoted(path, argument=True)} reviewer"
    return f"{quoted(path)} reviewer"


def environment_lines(environment: dict[str, str]) -> list[str]:
    return [f"Environment={quoted(f'{name}={value}')}\n" for name, value in environment.items()]
