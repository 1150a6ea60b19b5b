"""The person's own directories for landwatch, as platformdirs resolves them (XDG on Linux,
~/Library on macOS), kept in landwatch's own installation once resolved: the prompt and every
command find the registry, the work key and the rest without importing platformdirs.

Kept per user, platform, release and what they are resolved from (RESOLVED_FROM), in a file named
by the CRC-32 of those, in the virtual environment landwatch runs in when the person owns it:
never in a repository, where a copied or unpacked one could name directories of its own. Paths
are strings here (pathlib costs a prompt milliseconds to import).
"""

from __future__ import annotations

import contextlib
import os
import sys

from landwatch import __version__
from landwatch.files import read_file, write_atomic

APP = "landwatch"
# platformdirs' function for each root a per-user place's name starts with (layout.places).
ROOTS = {
    "<data>": "user_data_dir",
    "<config>": "user_config_dir",
    "<state>": "user_state_dir",
    "<cache>": "user_cache_dir",
}
# The person's XDG directories: platformdirs takes each that is an absolute path, on Linux and
# macOS; the reviewer's service is given those the command line has (commands.service).
XDG_HOMES = ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")
RESOLVED_FROM = ("HOME", *XDG_HOMES)
KEPT = "landwatch-user-directories"  # layout.USER_DIRECTORIES, in sys.prefix

# Resolved in this process, by key: a process asks for a place many times.
_resolved: dict[str, dict[str, str]] = {}


def directory(root: str) -> str:
    """The person's landwatch directory `root` (`<config>`, `<state>`, ...) names."""
    return directories()[root]


def directories() -> dict[str, str]:
    """Each of ROOTS to the person's landwatch directory: as kept (USER_DIRECTORIES) for this
    key, else asked of platformdirs and kept (where it cannot be, only slower)."""
    said = key()
    if said in _resolved:
        return _resolved[said]
    kept = kept_at(said)
    found = _read(kept, said) if kept is not None else None
    if found is None:
        import platformdirs  # here: once per key, not at every command

        found = {root: getattr(platformdirs, name)(APP) for root, name in ROOTS.items()}
        if kept is not None and all("\n" not in path for path in found.values()):
            text = "".join(f"{line}\n" for line in (said, *found.values()))
            from pathlib import Path  # only to write, once per key

            with contextlib.suppress(OSError):
                written = text.encode("utf-8", "surrogateescape")
                write_atomic(Path(kept), written, trusted=None, durable=False)
    _resolved[said] = found
    return found


def xdg_homes() -> dict[str, str]:
    """The XDG directories this process's environment gives platformdirs (absolute: it ignores
    any other), by variable."""
    return {name: os.environ[name] for name in XDG_HOMES if os.environ.get(name, "")[:1] == "/"}


def runtime_directory() -> str | None:
    """The person's runtime directory (tmpfs, made at login, theirs alone): $XDG_RUNTIME_DIR,
    else `/run/user/<uid>` where it is theirs (cron and some sessions do not set the variable);
    None where there is none (macOS, a container)."""
    named = os.environ.get("XDG_RUNTIME_DIR", "")
    if named.startswith("/"):
        return named
    usual = f"/run/user/{os.getuid()}"
    with contextlib.suppress(OSError):
        if os.stat(usual).st_uid == os.getuid():
            return usual
    return None


def key() -> str:
    """What the directories are resolved from here: user, platform, release, RESOLVED_FROM."""
    named = [os.environ.get(name) for name in RESOLVED_FROM]
    return repr((os.getuid(), sys.platform, __version__, named))


def kept_at(said: str) -> str | None:
    """Where the directories resolved under key `said` are kept: in the virtual environment
    landwatch runs in, when the person owns it; None in any other (a system's Python)."""
    if sys.prefix == sys.base_prefix:
        return None
    with contextlib.suppress(OSError):
        if os.stat(sys.prefix).st_uid == os.getuid():
            import zlib  # built in: a CRC-32 without hashlib's OpenSSL

            name = f"{zlib.crc32(said.encode('utf-8', 'surrogateescape')):08x}"
            return os.path.join(sys.prefix, KEPT, name)
    return None


def _read(kept: str, said: str) -> dict[str, str] | None:
    """The directories kept at `kept` under key `said`; None for none, another key's, garbage."""
    try:
        text = read_file(kept, trusted=None, limit=1 << 16).decode("utf-8", "surrogateescape")
    except OSError:
        return None
    lines = text.split("\n")
    if len(lines) != len(ROOTS) + 2 or lines[0] != said or lines[-1] or not all(lines[1:-1]):
        return None
    return dict(zip(ROOTS, lines[1:-1], strict=True))
