"""`python -m landwatch` and the `landwatch` command: the front door. What runs at every landing
or shell prompt is answered before the command line's parser is imported: the hooks' `landwatch
notice --git-dir DIR [--replaced|--set-aside PAIRS|-]` (not listed: it is theirs), `landwatch
prompt`, and `landwatch --version`; so are the plainest forms of `show` and `status`."""

from __future__ import annotations

import sys

# typing and collections.abc cost the prompt 5 ms it never uses: their names are for mypy.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# What the quick way answers: `landwatch prompt` with these options (`--width N` beside them);
# anything else (`--help`, a mistake) goes to the parser, which knows the same command and says
# what it does.
PROMPT_OPTIONS = frozenset({"--color"})
# `show`'s forms besides text (usage.output_options), one at most.
SHOW_FORMS = frozenset({"--json", "--sarif", "--patch"})


def main() -> int:
    from landwatch.programs import keep_to_absolute_path

    keep_to_absolute_path()
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
    if (run := plain_command(arguments)) is not None:
        from landwatch import front
        from landwatch.errors import UsageError

        try:
            return front.answered(run)
        except UsageError:  # said with the command's usage, by the parser's run of it below
            pass
    from landwatch.cli import main as parse_and_run

    return parse_and_run()


def plain_command(arguments: list[str]) -> Callable[[], int] | None:
    """`show` or `status` in a plain form (plain_show; `status [--json]`), run as the parser runs
    it; None for anything else, which the parser answers."""
    command, rest = arguments[:1], arguments[1:]
    if command == ["status"] and rest in ([], ["--json"]):
        from landwatch.commands.status import status

        return lambda: status(as_json=bool(rest))
    if command != ["show"] or (asked := plain_show(rest)) is None:
        return None
    from pathlib import Path

    from landwatch.commands.show import show

    revision, unread, form = asked
    return lambda: show(Path.cwd(), revision=revision, unread=unread, form=form)


def plain_show(options: list[str]) -> tuple[str | None, bool, str] | None:
    """`show`'s REV, --unread and form as its parser reads them from `options`: one REV at most,
    its flags each once and one form at most; None for anything else (an option abbreviated or
    repeated, `--`, `--help`, a REV beginning with `-`)."""
    flags = [word for word in options if word.startswith("-")]
    named = [word for word in options if not word.startswith("-")]
    forms = [flag[2:] for flag in flags if flag in SHOW_FORMS]
    if len(named) > 1 or len(set(flags)) < len(flags) or len(forms) > 1:
        return None
    if not set(flags) <= {*SHOW_FORMS, "--unread"}:
        return None
    return (named[0] if named else None), "--unread" in flags, (forms[0] if forms else "text")


def prompt_options(options: list[str]) -> tuple[bool, int | None] | None:
    """`landwatch prompt`'s options as (colour, width), read without the parser; None for any
    the parser must answer (a width that is no number of columns, `--help`)."""
    from landwatch.text import asked_width

    width = None
    if options[-2:-1] == ["--width"]:
        width, options = options[-1], options[:-2]
    elif options[-1:] and options[-1].startswith("--width="):
        width, options = options[-1].partition("=")[2], options[:-1]
    if (width is not None and not asked_width(width)) or not set(options) <= PROMPT_OPTIONS:
        return None
    return "--color" in options, int(width) if width is not None else None


if __name__ == "__main__":
    raise SystemExit(main())
