"""Shared fixtures: a real repository per test, and a clean queue module state."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from landwatch import work_item
from queue_helpers import new_repository


@pytest.fixture
def git_dir(tmp_path: Path) -> Path:
    return new_repository(tmp_path / "repo")


@pytest.fixture(autouse=True)
def _clean_queue_state() -> Iterator[None]:
    work_item._fault_hook = None
    work_item._listings.clear()
    yield
    work_item._fault_hook = None
    work_item._listings.clear()
