"""Shared fixtures: a real repository per test (landwatch installed), a bare git dir for the queue
tests, a home of its own for every test, and a clean queue module state."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from landwatch import work_item
from landwatch.review.secrets.rule_cache import DIRECTORY_VARIABLE
from support.queue import new_repository
from support.repos import Repo, installed
from support.terminal import Terminal, opened

# The modules whose tests take seconds each (real installs, hook managers, pre-commit's
# environments built, the linear-time tests' 1 MB lines), longest first: they start the run, and
# each worker takes two tests at a time (--maxschedchunk=2 in pyproject.toml), so that none of
# them is left to run last on one core while the other has nothing to do.
SLOW_FIRST = (
    "tests/review/secrets/test_linear.py",
    "tests/wall/project_hooks/test_run.py",
    "tests/wall/test_wall.py",
    "tests/test_install_script.py",
    "tests/kinds/test_project_hooks.py",
    "tests/githooks/test_hook_managers.py",
    "tests/test_team.py",
    "tests/test_team_notes.py",
    "tests/test_trust.py",
    "tests/kinds/test_review.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The slow modules first, in SLOW_FIRST's order; every other test keeps its place."""
    rank = {path: n for n, path in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.partition("::")[0], len(SLOW_FIRST)))


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    """A repository with one commit and landwatch installed (hooks in, registered)."""
    return installed(tmp_path / "repo")


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    """Where the handlers of tests/support/handlers.py write what they did."""
    return tmp_path / "journal"


@pytest.fixture
def git_dir(tmp_path: Path) -> Path:
    """The git dir of a repository landwatch was never installed in: the queue's own tests."""
    return new_repository(tmp_path / "queue")


@pytest.fixture(scope="session")
def _secret_rules_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where landwatch keeps the compiled secret rules for every test of this worker, as it keeps
    them in its state for a person: compiling them takes seconds, loading them a fraction."""
    cache = tmp_path_factory.mktemp("secret-rules")
    os.environ[DIRECTORY_VARIABLE] = str(cache)
    from landwatch.review.secrets import provider_rules

    provider_rules.available()  # compiled here once, so no test's budget pays for it
    return cache


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    _secret_rules_cache: Path,
) -> Path:
    """Every test gets its own HOME: git config, registry, entry point and state live there."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    for name, sub in [
        ("XDG_CONFIG_HOME", ".config"),
        ("XDG_DATA_HOME", ".local/share"),
        ("XDG_STATE_HOME", ".local/state"),
        ("XDG_CACHE_HOME", ".cache"),
    ]:
        monkeypatch.setenv(name, str(home / sub))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(home / "run"))
    monkeypatch.setenv(DIRECTORY_VARIABLE, str(_secret_rules_cache))
    monkeypatch.delenv("KF_RULE_CACHE_DIR", raising=False)  # kingfisher's own: never landwatch's
    for name in (
        "LANDWATCH",
        "NO_COLOR",
        "FORCE_COLOR",
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_CONFIG_GLOBAL",
        "GITHUB_ACTIONS",  # `landwatch ci` frames its output for the runner there
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    # The one line is fitted to the terminal's width: tests that compare it whole see it whole,
    # whatever terminal ran pytest; the tests of fitting set their own (COLUMNS=80, --width).
    monkeypatch.setenv("COLUMNS", "200")
    # Maintenance is on by default for users; tests of other things keep their queues to review
    # items, and the maintenance tests turn it on per repository. So is the linters' sandbox,
    # where bubblewrap is installed; it hides /tmp, where tests' linters leave what they did:
    # the sandbox's own tests turn it on. The reviewers the tests start run at the tests' own
    # priority: the suite runs beside busy processes too (two `yes`), and a test waits for its
    # reviewer; tests/daemon/test_process.py unsets it to see the person's default.
    (home / ".gitconfig").write_text(
        "[landwatch]\n\tmaintenance = false\n\tsandbox = false\n"
        '[landwatch "reviewer"]\n\tniceness = 0\n'
    )
    return home


@pytest.fixture(autouse=True)
def _no_reviewer_left_running(_isolated_home: Path) -> Iterator[None]:
    """A reviewer a test started (`doctor --fix` and `service start` detach one) ends with it."""
    yield
    from landwatch.daemon.lock import holder
    from support.daemon import process_gone, wait_for

    running = holder()
    pid = running.pid if running is not None else None
    if pid is not None and pid != os.getpid():
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        wait_for(lambda: process_gone(pid), "the reviewer a test left running")


@pytest.fixture(autouse=True)
def _clean_queue_state() -> Iterator[None]:
    work_item._fault_hook = None
    work_item._listings.clear()
    yield
    work_item._fault_hook = None
    work_item._listings.clear()


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    """tmux at 80 columns, a shell in it (support/terminal.py); skipped where tmux is not."""
    shown = opened()
    try:
        yield shown
    finally:
        shown.close()
