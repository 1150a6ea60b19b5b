"""A systemd unit's values as landwatch writes them (commands.unit_words), tested on strings."""

from __future__ import annotations

from pathlib import Path

from landwatch.commands.unit_words import environment_lines, exec_start, quoted


def test_a_word_is_quoted_as_systemd_reads_it_back() -> None:
    assert quoted("plain") == '"plain"'
    assert quoted('a "b" \\c') == '"a \\"b\\" \\\\c"'
    assert quoted("50% $HOME") == '"50%% $HOME"'  # `$` is taken as written in the executable
    assert quoted("50% $HOME", argument=True) == '"50%% $$HOME"'
    assert quoted("tab\there\x7f") == '"tab\\x09here\\x7f"'
    assert quoted("caf\udce9") == '"caf\\xe9"'  # a byte of a path that is not UTF-8


def test_exec_start_gives_an_unusual_executable_to_env() -> None:
    assert exec_start(Path("/home/a/bin/landwatch")) == '"/home/a/bin/landwatch" reviewer'
    odd = Path("/home/o'brien/bin/landwatch")
    assert exec_start(odd) == '/usr/bin/env "/home/o\'brien/bin/landwatch" reviewer'
    assert environment_lines({"HOME": "/h"}) == ['Environment="HOME=/h"\n']
