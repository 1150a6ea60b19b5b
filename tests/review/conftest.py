"""What the review's tests share beyond tests/conftest.py: the session's repository of changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.changes import Changes


@pytest.fixture(scope="session")
def changes(tmp_path_factory: pytest.TempPathFactory) -> Changes:
    """One repository for every change the review's tests build (support/changes.py)."""
    return Changes(Path(tmp_path_factory.mktemp("changes")) / "changes.git")
