"""`python -m landwatch` and the `landwatch` command: the front door. What runs at every landing
or shell prompt is answered before the command line's parser is imported: the hooks' `landwatch
notice --git-dir DIR` (not listed: it is theirs) and `landwatch prompt`."""

from __future__ import annotations

import sys

# What the quick way answers: `landwatch prompt` with these options; anything else (`--help`, a
# mistake) goes to the parser, which knows the same command and says what it does.
PROMPT_OPTIONS = frozenset({"--color"})


def main() -> int:
    arguments = sys.argv[1:]
    if arguments[:1] == ["prompt"] and set(arguments[1:]) <= PROMPT_OPTIONS:
        import os

        from landwatch.commands.prompt import prompt

        return prompt(os.getcwd(), color="--color" in arguments)
    if len(arguments) == 3 and arguments[:2] == ["notice", "--git-dir"]:
        from pathlib import Path

        from landwatch.commands.notice import notice

        return notice(Path(arguments[2]))
    from landwatch.cli import main as parse_and_run

    return parse_and_run()


if __name__ == "__main__":
    raise SystemExit(main())
