"""The front door's answer to a command (front.answered): its exit status, what went wrong said
in one line, and a usage error said by the command's parser or handed on (a reader gone:
test_cli, through a real pipe)."""

from __future__ import annotations

from typing import NoReturn

import pytest

from landwatch import front
from landwatch.errors import UsageError, UserError
from landwatch.work_item import QueueError


def test_a_command_s_exit_status_is_the_answer() -> None:
    assert front.answered(lambda: 0) == 0
    assert front.answered(lambda: 3) == 3


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (UserError("no commit 'nosuch'"), "landwatch: no commit 'nosuch'\n"),
        (QueueError("the queue is broken"), "landwatch: the queue is broken\n"),
        (FileNotFoundError(2, "No such file or directory", "/x"), "landwatch: /x: No such file"),
        (UserError("a\x1b[31mred"), "landwatch: a\\x1b[31mred\n"),
    ],
)
def test_what_went_wrong_is_one_line_and_exit_1(
    capsys: pytest.CaptureFixture[str], error: Exception, said: str
) -> None:
    def failing() -> int:
        raise error

    assert front.answered(failing) == 1
    told = capsys.readouterr().err
    assert told.startswith(said) and told.count("\n") == 1 and "\x1b" not in told


def test_a_usage_error_is_said_by_the_parser_or_handed_on() -> None:
    def confused() -> int:
        raise UsageError("REV or --unread, not both")

    def parser_says(message: str) -> NoReturn:
        raise SystemExit(f"usage: ... error: {message}")

    with pytest.raises(SystemExit, match="error: REV or --unread, not both"):
        front.answered(confused, usage=parser_says)
    with pytest.raises(UsageError):  # where the front door answered without a parser
        front.answered(confused)
