"""Where a program named by a word is, on PATH as the person set it, from its absolute
directories only: an empty or relative entry names the working directory, a clone's own files."""

from __future__ import annotations

import os


def which(name: str, path: str | None = None) -> str | None:
    """The program `name` stands for on `path` (the environment's PATH when None), as
    shutil.which finds it, with no entry that is empty or relative (PATH's `::`, a trailing `:`
    or `.`): in a clone, doctor found a committed `./prek` and asked it its version, untrusted."""
    import shutil  # here: the prompt, which imports this module, looks for no program

    absolute = only_absolute(os.environ.get("PATH", os.defpath) if path is None else path)
    return shutil.which(name, path=absolute) if absolute else None


def only_absolute(path: str) -> str:
    """`path` (a PATH) without its empty and relative entries."""
    return os.pathsep.join(entry for entry in path.split(os.pathsep) if os.path.isabs(entry))


def keep_to_absolute_path() -> None:
    """This process's PATH, which every program it starts by name is looked for on (a `git`,
    a `systemctl`) and inherits, made of absolute entries only: a clone's own `./git` ran, in
    the background too, where PATH held an empty entry before git's (an audit)."""
    path = os.environ.get("PATH")
    # None left: the system's, as an empty PATH is the working directory (a round-2 audit).
    if path is not None and (kept := only_absolute(path) or os.defpath) != path:
        os.environ["PATH"] = kept
