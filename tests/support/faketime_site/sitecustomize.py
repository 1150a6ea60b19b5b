"""Imported by Python at start in the processes tests/support/faketime.py runs (their PYTHONPATH):
libfaketime 0.9.10 with FAKETIME_DONT_FAKE_MONOTONIC fails every absolute clock_nanosleep on the
monotonic clock (EINVAL), which is how time.sleep waits; select waits as long, unfaked."""

from __future__ import annotations

import select
import time
from typing import SupportsIndex


def _sleep(seconds: float | SupportsIndex) -> None:
    select.select([], [], [], float(seconds))


time.sleep = _sleep
