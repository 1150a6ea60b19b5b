"""What of the machine a walled program needs in sight besides the system: the installation of
each tool it is started as (a virtual environment, a Python or Node.js installation, the one a
link on PATH leads to, the interpreter a script names), read-only, and nothing around it.

An installation is taken whole only where it is recognisably one (a virtual environment's
`pyvenv.cfg`, a Python's `lib/pythonX.Y/os.py`, a Node.js with `lib/node_modules`, a package of
a `node_modules` directory); otherwise only the program's own file is shown: `~/.cargo` holds
registry tokens beside `bin/`, a directory above a tool may be a repository. A prefix that is
also the person's own (`~/.local`, where npm's prefix or a Python may be set, holds their
state, landwatch's among it) shows only what the installation runs: its `lib/node_modules`, its
`lib/pythonX.Y`, the program. A path a repository writes is a program only where it is a file one
may run: a hook's `cat /home/you/.ssh/id_rsa` shows no key. Each place is judged where it really
is, links and `..` followed as bubblewrap's bind follows them (`~/.local/bin/..` is `~/.local`, a
committed `node_modules` linked to `/` is no `node_modules`), and none shown is, or holds, the
person's home or their own directories; nor is in, is or holds another person's home, or the
directory homes are made in (`/home/bob/.local/bin/ruff` on PATH): such a tool is left out, and
the caller is told which and why.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path

from landwatch.programs import which

# The system, always in sight (read-only) behind the wall; a program under it needs nothing more.
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/nix/store")
# How far a chain of links and interpreters is followed (a script's `#!/usr/bin/env node`).
_DEPTH = 4
_SHEBANG_BYTES = 256
# More places than this are not added (a configuration naming hundreds of programs).
MAX_PLACES = 64
# Where the system says from which uid an account is a person's (UID_MIN), and useradd's own
# default where it says nothing. macOS has no login.defs: its people's accounts start at 501,
# below 500 are its services' (_www, _postgres).
LOGIN_DEFS = Path("/etc/login.defs")
_UID_MIN = 1000
_DARWIN_UID_MIN = 500
# Where the users' homes are made (Linux's, macOS's): never shown, nor what holds one, whoever has
# a home there now (one made later, or an account the passwd database does not list).
HOME_ROOTS = ("/home", "/Users")
# A place out of a walled program's sight: where it is written, what it is, and whether what is
# in it is out of sight too.
Unseen = tuple[Path, str, bool]


def under_system(path: Path) -> bool:
    """Whether `path`, as written, is in sight behind the wall with the system: under one of
    SYSTEM once its `..` are gone as the machine takes them (`/usr/../home/you` is not)."""
    spelled = _undotted(path)
    return any(spelled == Path(root) or spelled.is_relative_to(root) for root in SYSTEM)


def installations(
    programs: Iterable[str], search: str | None, said: list[str] | None = None
) -> list[Path]:
    """The places (directories, or single files) to show read-only for `programs` (names looked
    up on `search`, a PATH, or paths of files one may run) to run; those under the system left
    out, and those in another person's home, each said in a line added to `said`."""
    found: dict[Path, str] = {}  # each place, and the program it was found for
    for program in programs:
        if len(found) >= MAX_PLACES:
            break
        located = _locate(program, search)
        if located is not None:
            _follow(located, search, found, 0, program)
    # What a link in a tool's tree leads to is shown whole by the bind: never the person's own.
    shown = [place for place in found if not _holds_the_person_s_own(_real(place))]
    # On a shared machine, nothing of another person's home either: a tool found there is left out.
    theirs = homes(yours=False) if shown else []
    left: dict[str, str] = {}  # a line for each program left out, naming the first place
    for place in list(shown):
        why = meets(_real(place), theirs)
        if why is not None:
            shown.remove(place)
            left.setdefault(
                found[place], f"{found[place]} is not shown behind the wall ({place}): {why}"
            )
    if said is not None:
        said += [line for line in left.values() if line not in said]
    return shown[:MAX_PLACES]


def _locate(program: str, search: str | None) -> Path | None:
    """The program a word stands for: a name as `search` gives it, a path only where it is a
    file one may run (`/home/you/.ssh/id_rsa`, which a hook's `cat` names, is no program)."""
    if "/" in program:
        path = Path(program)
        runs = path.is_absolute() and path.is_file() and os.access(path, os.X_OK)
        return path if runs else None
    found = which(program, search)
    return Path(found).absolute() if found else None


def _follow(
    program: Path, search: str | None, found: dict[Path, str], depth: int, named: str
) -> None:
    """`program`'s installation, as given (where a run looks for it: a link on PATH, nvm's
    `current`) and as its links resolve, then its interpreter's; each place kept with `named`,
    the program it is shown for."""
    if depth > _DEPTH:
        return
    try:
        real = program.resolve(strict=True)
    except (OSError, RuntimeError):
        return
    for path in dict.fromkeys((_undotted(program), real)):
        if not under_system(path):
            for place in _installation_of(path):
                found.setdefault(place, named)
        venv_home = _venv_home(path.parent.parent)
        if venv_home is not None:
            _follow(venv_home / "python3", search, found, depth + 1, named)
    interpreter = _interpreter(real, search)
    if interpreter is not None:
        _follow(interpreter, search, found, depth + 1, named)


def _installation_of(path: Path) -> list[Path]:
    """What to show for the program at `path`: its installation when it is one (what it runs
    of it, where the prefix is also the person's own), the `node_modules` it is a package of,
    else the file alone."""
    for parent in path.parents:
        if parent.name == "node_modules":
            # Shown as the bind follows it: a link by that name to `/` or a home is none.
            return [parent] if _real(parent).name == "node_modules" else [path]
    prefix = path.parent.parent
    real = _real(prefix)
    if not _is_installation(real):
        return [path]
    if not _holds_the_person_s_own(real):
        return [prefix]
    lib = prefix / "lib"
    runs = [lib / "node_modules", prefix / "bin" / "node", *_pythons(lib)]
    return [path, *(place for place in runs if place.exists())]


def _holds_the_person_s_own(real: Path) -> bool:
    """Whether `real` (a place where it really is) is the home directory or holds one of the
    person's own directories of data, configuration, state, caches or runtime (landwatch's)."""
    return any(_real(place).is_relative_to(real) for place in own_places())


def own_places() -> tuple[Path, ...]:
    """The person's home and their own directories of data, configuration, state, caches and
    runtime (landwatch's among them), wherever XDG_* puts them: never whole behind the wall."""
    import platformdirs  # only where a walled program runs from outside the system

    # The runtime directory as the session names it: platformdirs would warn where none is.
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    return (
        Path.home(),
        platformdirs.user_data_path(),
        platformdirs.user_config_path(),
        platformdirs.user_state_path(),
        platformdirs.user_cache_path(),
        *([Path(runtime)] if runtime.startswith("/") else []),
    )


def people_s_homes(platform: str = sys.platform) -> list[tuple[Path, int]]:
    """The home of every person's account on the machine, where it really is, with its uid: the
    passwd database's from uid_min, and root's; a home of `/` is no one's place."""
    import pwd

    least = uid_min(platform=platform)
    homes = []
    for account in pwd.getpwall():
        if account.pw_uid != 0 and account.pw_uid < least:
            continue  # a service's (postgres's /var/lib/postgresql), not a person's
        home = _real(Path(account.pw_dir)) if account.pw_dir.startswith("/") else None
        if home is not None and home != Path(home.anchor):
            homes.append((home, account.pw_uid))
    return homes


def homes(*, yours: bool) -> list[Unseen]:
    """Where the users' homes are made (what is in it may be shown), then every person's home on
    the machine (people_s_homes), what is in one too; the person's own only with `yours`."""
    mine = os.getuid()
    roots = [(Path(root), "where the users' homes are", False) for root in HOME_ROOTS]
    found = [
        (home, "yours" if uid == mine else "another user's home", True)
        for home, uid in people_s_homes()
        if yours or uid != mine
    ]
    return [*roots, *found]


def meets(found: Path, places: Iterable[Unseen]) -> str | None:
    """How `found` (a place where it really is) meets the first of `places` it meets, in words
    (`it is in /home/bob, another user's home`); None where it meets none."""
    for written, what, inside in places:
        place = _real(written)
        if found == place:
            return f"it is {place}, {what}"
        if place.is_relative_to(found):
            return f"it holds {place}, {what}"
        if inside and found.is_relative_to(place):
            return f"it is in {place}, {what}"
    return None


def uid_min(login_defs: Path = LOGIN_DEFS, platform: str = sys.platform) -> int:
    """The least uid of a person's account: macOS's 500, else as login.defs says (useradd's 1000
    without it)."""
    if platform == "darwin":
        return _DARWIN_UID_MIN
    try:
        text = login_defs.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return _UID_MIN
    for line in text.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0] == "UID_MIN" and words[1].isdigit():
            return int(words[1])
    return _UID_MIN


def _real(path: Path) -> Path:
    """Where `path` is, links and `..` followed as bubblewrap's bind follows them (realpath, not
    Path.resolve, which raises on a loop of links)."""
    return Path(os.path.realpath(path))


def _undotted(path: Path) -> Path:
    """`path` without `..`: up to its last `..` where the machine takes it (a link before a `..`
    is gone through first), the rest as written, so that a link it ends in stays a link."""
    parts = path.parts
    if ".." not in parts:
        return path
    last = len(parts) - parts[::-1].index("..")
    return _real(Path(*parts[:last])).joinpath(*parts[last:])


def _pythons(lib: Path) -> list[Path]:
    """A Python installation's own libraries (`lib/python3.11`), as its `os.py` marks them."""
    try:
        return [each for each in lib.glob("python3*") if (each / "os.py").is_file()]
    except OSError:
        return []


def _is_installation(prefix: Path) -> bool:
    if prefix == Path(prefix.anchor) or len(prefix.parts) < 3:
        return False  # `/`, `/opt`, `/home`: never a whole tree
    if (prefix / "pyvenv.cfg").is_file():
        return True
    if (prefix / "lib" / "node_modules").is_dir() and (prefix / "bin" / "node").exists():
        return True
    return bool(_pythons(prefix / "lib"))


def _venv_home(prefix: Path) -> Path | None:
    """The `home` a virtual environment's pyvenv.cfg names: the Python it was made from."""
    try:
        with open(prefix / "pyvenv.cfg", encoding="utf-8", errors="replace") as config:
            for line in config.read(4096).splitlines():
                key, _, value = line.partition("=")
                if key.strip() == "home" and value.strip():
                    return Path(value.strip())
    except OSError:
        pass
    return None


def _interpreter(script: Path, search: str | None) -> Path | None:
    """The program a script's `#!` line runs (`/usr/bin/env node`: node on `search`)."""
    try:
        with open(script, "rb") as file:
            if not os.path.isfile(script) or file.read(2) != b"#!":
                return None
            line = file.readline(_SHEBANG_BYTES).decode("utf-8", "replace").split()
    except OSError:
        return None
    if not line:
        return None
    if Path(line[0]).name == "env":
        words = [word for word in line[1:] if not word.startswith("-")]
        return _locate(words[0], search) if words else None
    return _locate(line[0], search)
