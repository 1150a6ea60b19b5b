"""The front door's answer to a command: its exit status, what went wrong said in one line
(`landwatch: ...`), and a reader gone; for the parser's commands and for those landwatch.__main__
answers without it alike.

Kept apart from landwatch.cli, which imports argparse, so that a command answered without the
parser (~7 ms of argparse, gettext and shutil) ends as one answered through it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import NoReturn

from landwatch import closed_pipe, text


def answered(
    run: Callable[[], int],
    *,
    carry_on: bool = False,
    usage: Callable[[str], NoReturn] | None = None,
) -> int:
    """`run`'s exit status; a person's mistake or a file's said in one line (1), a reader gone
    silenced (1: the output was cut short), going on to the end where `carry_on`. A UsageError
    is said by `usage`, the command's parser (exit 2), and raised on where none is given."""
    from landwatch.errors import UsageError, UserError, said
    from landwatch.work_item import QueueError

    try:
        with closed_pipe.carrying_on(carry_on):
            return run()
    except UsageError as error:
        if usage is None:
            raise
        usage(str(error))
    except BrokenPipeError:  # `landwatch rules | head`: the reader has all it wanted
        closed_pipe.write_nowhere(sys.stdout)
        return 1
    except (UserError, QueueError, OSError) as error:  # escaped: a path need not be UTF-8
        print(f"landwatch: {text.safe_lines(said(error))}", file=sys.stderr)
        return 1
