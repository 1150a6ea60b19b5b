"""landwatch's versioned state files (a JSON object holding its `format`, each a `Place` that names
its format): read whole, and what this release cannot read, or a newer release wrote, said in one
line (`StateError`) instead of taken for no file at all, so that nothing writes over it unawares.

Each caller decides what follows (docs/queue.md): trust and share refuse to write, the sweep
reads the reflogs again from when its cursors were last written, doctor names the file.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from landwatch.errors import UserError
from landwatch.files import read_file, write_atomic
from landwatch.git import common_dir
from landwatch.layout.places import REPOSITORY_PLACES, WORKTREE_PLACES, Place, Scope
from landwatch.layout.user_places import USER_PLACES
from landwatch.text import safe


class StateError(UserError):
    """A state file this release cannot read (`newer`: a newer landwatch wrote it), left as it
    is; str() names it and why, `fix` says what the person does about it."""

    def __init__(self, path: Path, why: str, *, newer: bool = False, doing: str = "") -> None:
        self.path, self.why, self.newer, self.doing = path, why, newer, doing
        said = f"{safe(str(path))} {why}"
        if doing:
            said += f": {doing}, so as not to lose what it holds; {self.fix}"
        super().__init__(said)

    @property
    def fix(self) -> str:
        import shlex  # only where a line is said

        shown = shlex.quote(safe(str(self.path)))
        first = "upgrade landwatch to the release that wrote it" if self.newer else "mend it"
        return f"{first}, or move it aside to start afresh (mv {shown} {shown}.aside)"

    def refusing(self, doing: str) -> StateError:
        """The same, as the one line of a write refused: `doing` says what was not done."""
        return StateError(self.path, self.why, newer=self.newer, doing=doing)


def _trusted(place: Place, git_dir: os.PathLike[str] | str | None) -> Path | None:
    """Below which nothing is followed: the person's own directories follow their links."""
    if git_dir is None or place.scope is Scope.USER:
        return None
    return Path(git_dir) if place.scope is Scope.WORKTREE else common_dir(git_dir)


def read_state(
    place: Place, git_dir: os.PathLike[str] | str | None = None
) -> dict[str, Any] | None:
    """The JSON object kept at `place` (of the repository of `git_dir`), None when there is none;
    StateError when it cannot be read, is no object with a format landwatch writes, or holds a
    format above `place.format` (a newer release's)."""
    path = place.path(git_dir)
    try:
        data: Any = json.loads(read_file(path, trusted=_trusted(place, git_dir)))
    except FileNotFoundError:
        return None
    except OSError as error:
        raise StateError(path, f"cannot be read ({error.strerror or error})") from None
    except (ValueError, RecursionError):  # not JSON, or nested past the stack (planted)
        raise StateError(path, "cannot be read (not JSON)") from None
    number = data.get("format") if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(number, int) or isinstance(number, bool):
        raise StateError(path, "cannot be read (not a file landwatch wrote: no format)")
    if number < 1:
        raise StateError(path, f"cannot be read (format {number}, which no landwatch writes)")
    if number > place.format:
        why = f"was written by a newer landwatch (format {number}; this one reads {place.format})"
        raise StateError(path, why, newer=True)
    return data


def write_state(
    place: Place,
    data: dict[str, Any],
    git_dir: os.PathLike[str] | str | None = None,
    *,
    durable: bool = True,
) -> None:
    """`data` kept at `place` whole, under this release's format; what reads it first with
    read_state writes over nothing it could not read."""
    kept = {"format": place.format} | {key: value for key, value in data.items() if key != "format"}
    text = json.dumps(kept, indent=1)
    write_atomic(place.path(git_dir), text, trusted=_trusted(place, git_dir), durable=durable)


def state_places() -> tuple[Place, ...]:
    """Every versioned state file, for doctor: the person's, then a repository's, a worktree's."""
    return tuple(p for p in (*USER_PLACES, *REPOSITORY_PLACES, *WORKTREE_PLACES) if p.format)
