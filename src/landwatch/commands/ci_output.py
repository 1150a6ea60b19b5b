"""What a CI runner makes of `landwatch ci`'s output. GitHub Actions' runner runs the workflow
commands it reads in every line a step prints, on stdout and stderr alike: `::error file=...::`
at a line's start, `##[add-mask]...` anywhere in one. `ci` prints a repository's text (paths,
snippets, messages, what teammates' notes say), so a file named `::error ...::` forged an
annotation and a snippet holding `##[add-mask]` masked words in the job's log. Under the runner
(GITHUB_ACTIONS=true), all `ci` prints is put inside the runner's own switch: `::stop-commands::
TOKEN` first, `::TOKEN::` last, TOKEN random; stderr is joined to stdout meanwhile, since the
runner reads the two streams apart, in no set order between them. GitLab's log runs no such
commands (docs/team.md).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sys
import traceback
from collections.abc import Callable, Iterator

from landwatch.errors import UsageError, UserError, said
from landwatch.text import safe_lines

# The variable GitHub Actions sets to "true" in every step it runs.
ACTIONS = "GITHUB_ACTIONS"


def inside_switch(run: Callable[[], int]) -> int:
    """`run()`'s exit status, with all it prints (and what fails in it, said as the front door
    says an error) inside the runner's switch under GitHub Actions; elsewhere as it is."""
    with _commands_stopped():
        try:
            return run()
        except (BrokenPipeError, UsageError):
            raise  # the front door's: nothing said, or the command line the workflow wrote
        except (UserError, OSError) as error:
            print(f"landwatch: {safe_lines(said(error))}", file=sys.stderr)
            return 1
        except Exception:
            traceback.print_exc()  # here, not after the switch: it may quote the repository
            return 1


@contextlib.contextmanager
def _commands_stopped() -> Iterator[None]:
    """Under GitHub Actions, everything printed inside (by landwatch, or a program it starts) on
    stdout after `::stop-commands::TOKEN`, and `::TOKEN::` after it all, however it ends."""
    if os.environ.get(ACTIONS) != "true":
        yield
        return
    # Random, so that no repository's text can name it: the runner resumes at `::TOKEN::` or at
    # `##[TOKEN]` anywhere in a line. Hex digits: no command of the runner's is named so.
    token = secrets.token_hex(16)
    sys.stderr.flush()
    print(f"::stop-commands::{token}", flush=True)
    stderr = os.dup(2)
    os.dup2(1, 2)
    try:
        with contextlib.redirect_stderr(sys.stdout):  # one buffer: what is said stays in order
            yield
    finally:
        sys.stdout.flush()
        os.dup2(stderr, 2)
        os.close(stderr)
        print(f"::{token}::", flush=True)
