"""The one exception family a command turns into a one-line message and exit status 1.

Kept in a module of its own so the front door can catch it without importing every command.
"""

from __future__ import annotations


class UserError(Exception):
    """Something a person can act on; str(error) is one line saying what and what to do."""
