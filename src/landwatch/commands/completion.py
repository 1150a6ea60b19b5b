"""`landwatch completion bash|zsh|fish`: the shell's completion script for landwatch, printed.

shtab writes it from the command line's own parser, so it knows every command and option there
is; the script is static, so the shell completes at a TAB without starting landwatch. shtab is
imported here only: no other command pays for it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def completion(parser: argparse.ArgumentParser, *, shell: str) -> int:
    import shtab

    _directories_complete_as_such(parser, shtab.DIRECTORY)
    sys.stdout.write(shtab.complete(parser, shell=shell))
    return 0


def _directories_complete_as_such(parser: argparse.ArgumentParser, directory: object) -> None:
    """Every option or argument that names a directory (`--hooks-path DIR`, `forget PATH`, a
    git dir) completes directory names: shtab reads an action's `complete` attribute."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for command in action.choices.values():
                _directories_complete_as_such(command, directory)
        elif action.type is Path:
            action.complete = directory  # type: ignore[attr-defined]
