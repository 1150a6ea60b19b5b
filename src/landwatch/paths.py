"""Where landwatch keeps per-user files: data (entry point), config (registry), state, runtime.

platformdirs picks the platform's places (XDG on Linux, ~/Library on macOS); tests move them all by
setting HOME and the XDG variables.
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP = "landwatch"


def data_dir() -> Path:
    return Path(platformdirs.user_data_dir(APP))


def config_dir() -> Path:
    return Path(platformdirs.user_config_dir(APP))


def state_dir() -> Path:
    return Path(platformdirs.user_state_dir(APP))


def entry_point() -> Path:
    """The stable per-user command the hooks call when they have something to say."""
    return data_dir() / "bin" / "landwatch"


def runtime_dir() -> Path:
    """The reviewer's lock and state file: $XDG_RUNTIME_DIR (gone at logout) or the state dir."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        return Path(runtime) / APP
    return state_dir() / "run"


def reviewer_lock() -> Path:
    """The reviewer's per-user lock (flock), holding who runs."""
    return runtime_dir() / "reviewer.lock"


def reviewer_state() -> Path:
    """What the running reviewer is doing, for `landwatch status`."""
    return runtime_dir() / "reviewer.json"
