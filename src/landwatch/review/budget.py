"""The time one review may take: a deadline on a monotonic clock that the engine looks at between
units of work (one rule on one file, one linter run), so a review past it ends with what it found.

One slow review must not hold up every other repository's reviews, which wait in the same line;
the clock is given, so tests step it instead of waiting.
"""

from __future__ import annotations

import time
from collections.abc import Callable

# Seconds, unless `landwatch.review.budget` says otherwise (layout.settings).
DEFAULT_REVIEW_BUDGET = 120.0


class Budget:
    """`seconds` from now on `clock`; `spent` once they ran out, and the notes of what was
    left undone because of it, one per part of the review."""

    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self.clock = clock
        self.deadline = clock() + seconds
        self.stopped: list[str] = []

    def remaining(self) -> float:
        return self.deadline - self.clock()

    @property
    def spent(self) -> bool:
        return self.remaining() <= 0

    def stop(self, what: str) -> None:
        """Say that `what` was not done because the budget ran out."""
        self.stopped.append(f"{what}: this review's {self.seconds:g} s ran out")
