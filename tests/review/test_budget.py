"""The time one review may take (review.budget): a deadline on the clock it is given, and the
notes of what it cut."""

from __future__ import annotations

from landwatch.review.budget import Budget


class SteppedClock:
    """A monotonic clock a test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_budget_is_spent_once_its_seconds_have_passed_on_its_clock() -> None:
    clock = SteppedClock()
    budget = Budget(10, clock)
    assert not budget.spent and budget.remaining() == 10
    clock.now += 9.5
    assert not budget.spent and budget.remaining() == 0.5
    clock.now += 0.5
    assert budget.spent and budget.remaining() == 0


def test_what_was_cut_is_said_with_the_budget_that_cut_it() -> None:
    budget = Budget(2.5, SteppedClock())
    budget.stop("linters stopped before ruff on a.py")
    assert budget.stopped == ["linters stopped before ruff on a.py: this review's 2.5 s ran out"]
