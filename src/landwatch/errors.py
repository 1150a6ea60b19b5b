"""The exception families a command raises for the front door to say: UserError, one line and
exit status 1; UsageError, the command's usage and exit status 2; and the one line an error is
said in (`said`), for the front door and for `landwatch ci`, which says its own inside CI's switch.

Kept in a module of its own so the front door can catch it without importing every command.
"""

from __future__ import annotations


class UserError(Exception):
    """Something a person can act on; str(error) is one line saying what and what to do."""


class UsageError(Exception):
    """A command line the command does not understand, found after parsing (options that do not
    go together): said as argparse says its own, with the command's usage, and exit status 2."""


def said(error: Exception) -> str:
    """The one line the front door says of a command's error (after `landwatch: `): an OSError by
    its file and reason, since str() would say the reason twice; anything else as it says it."""
    if isinstance(error, OSError) and error.strerror and error.filename is not None:
        return f"{error.filename}: {error.strerror}"
    return str(error)
