"""Where a program named by a word is, on PATH as the person set it, from its absolute
directories only: an empty or relative entry names the working directory, a clone's own files."""

from __future__ import annotations

import os
import shutil


def which(name: str, path: str | None = None) -> str | None:
    """The program `name` stands for on `path` (the environment's PATH when None), as
    shutil.which finds it, with no entry that is empty or relative (PATH's `::`, a trailing `:`
    or `.`): in a clone, doctor found a committed `./prek` and asked it its version, untrusted."""
    entries = (os.environ.get("PATH", os.defpath) if path is None else path).split(os.pathsep)
    absolute = os.pathsep.join(entry for entry in entries if os.path.isabs(entry))
    return shutil.which(name, path=absolute) if absolute else None
