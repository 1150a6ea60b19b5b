"""`python -m landwatch` and the `landwatch` command: the front door. What runs at every landing
or shell prompt is answered before the command line's parser is imported: the hooks' `landwatch
notice --git-dir DIR [--replaced|--set-aside PAIRS|-]` (not listed: it is theirs), `landwatch
prompt`, and `landwatch --version`."""

from __future__ import annotations

import sys

# What the quick way answers: `landwatch prompt` with these options (`--width N` beside them);
# anything else (`--help`, a mistake) goes to the parser, which knows the same command and says
# what it does.
PROMPT_OPTIONS = frozenset({"--color"})


def main() -> int:
    arguments = sys.argv[1:]
    quick = prompt_options(arguments[1:]) if arguments[:1] == ["prompt"] else None
    if quick is not None:
        import os

        from landwatch.commands.prompt import prompt

        return prompt(os.getcwd(), color=quick[0], width=quick[1])
    if arguments == ["--version"]:  # what the parser would print, without importing it
        from landwatch import __version__

        print(f"landwatch {__version__}")
        return 0
    if arguments[:2] == ["notice", "--git-dir"] and len(arguments) in (3, 5):
        from pathlib import Path

        from landwatch.commands.notice import notice

        # `--replaced 'OLD:NEW ...'`: what the rebase whose hook calls this replaced; with
        # `--set-aside` instead, an amend's: their lines set aside, nothing said. `-`: the pairs
        # are lines on stdin, as the hook hands a rewrite's (one argument is capped at 128 KiB).
        given = arguments[3:4]
        listed = arguments[4] if given in (["--replaced"], ["--set-aside"]) else ""
        pairs = (sys.stdin.read() if listed == "-" else listed).split()
        replaced = [(old, new) for old, _, new in (pair.partition(":") for pair in pairs)]
        return notice(Path(arguments[2]), replaced=replaced, say=given != ["--set-aside"])
    from landwatch.cli import main as parse_and_run

    return parse_and_run()


def prompt_options(options: list[str]) -> tuple[bool, int | None] | None:
    """`landwatch prompt`'s options as (colour, width), read without the parser; None for any
    the parser must answer (a width that is no positive number, `--help`)."""
    from landwatch.text import usable_width

    width = None
    if options[-2:-1] == ["--width"]:
        width, options = options[-1], options[:-2]
    elif options[-1:] and options[-1].startswith("--width="):
        width, options = options[-1].partition("=")[2], options[:-1]
    if (width is not None and not usable_width(width)) or not set(options) <= PROMPT_OPTIONS:
        return None
    return "--color" in options, int(width) if width is not None else None


if __name__ == "__main__":
    raise SystemExit(main())
