"""The repositories a user's reviewer drains, one real path of a common git dir per line, and the
work directories landwatch made for them (a mark that a copied or unpacked one cannot carry).

Like `git maintenance register`, keyed by real path; rewritten whole under a lock, so a reader
never sees half a file and two installs at once lose neither repository.
"""

from __future__ import annotations

import os
import shlex
import stat
from pathlib import Path

from landwatch import layout, work_item
from landwatch.errors import UserError
from landwatch.files import exclusive, list_entries, read_file, read_pointer, write_atomic
from landwatch.text import safe

# The mark's first words: what it is, and its version.
MADE_HEADER = b"landwatch-work-directory 1 "
# What a work directory install moved aside is named after: `<work directory>.not-made-here.<µs>`.
SET_ASIDE = ".not-made-here."
# Why a registered repository cannot be drained, when it is no longer there.
VANISHED = "it vanished"


class RegistryError(UserError):
    """The registry cannot be read; the message says what mends it."""


def registered() -> list[Path]:
    """The repositories the reviewer drains; RegistryError (with the command that mends it) when
    the registry is there but no file landwatch can read (a directory, a link, a FIFO)."""
    # A NUL is in no path (the registry spoilt): such a line is garbage, passed over as others.
    return [Path(line) for line in _lines() if line.startswith("/") and "\0" not in line]


def _lines() -> list[str]:
    """The registry's lines as written, those that are no path among them (a newer release's,
    garbage): a write keeps them, as a reader passes them over."""
    path = layout.REGISTRY.path()
    try:
        text = read_file(path, trusted=None).decode("utf-8", "surrogateescape")
    except FileNotFoundError:
        return []
    except OSError as error:
        shown = shlex.quote(safe(str(path)))
        raise RegistryError(
            f"the registry of your repositories, {safe(str(path))}, cannot be read "
            f"({safe(error.strerror or str(error))}): move it aside (mv {shown} {shown}.bad), "
            "then run landwatch install in each of your repositories"
        ) from None
    # Lines end at "\n" alone, as written: a path may hold "\r", "\x85" or "\u2028".
    return [line for line in text.split("\n") if line]


def worktree_git_dirs(
    common_git_dir: Path, skipped: list[tuple[Path, str]] | None = None
) -> list[Path]:
    """The git dir of every worktree of a repository: the main one and each linked one whose
    `commondir` names the repository; each entry passed over for it added to `skipped`, with why.

    An archive can bring an entry whose worktree is nowhere, which git never reads: its pointer
    is read as git's pointers are (files.read_pointer), and a FIFO or a link there is no pointer.
    One without HEAD or `commondir` yet is one `git worktree add` is still making, unsaid."""
    found = [common_git_dir]
    try:
        entries = sorted((common_git_dir / "worktrees").iterdir())
    except OSError:  # unreadable: the main worktree is still drained
        return found
    repository = os.path.realpath(common_git_dir)
    for entry in entries:
        pointer = entry / "commondir"
        if not os.path.isfile(entry / "HEAD") or not os.path.lexists(pointer):
            continue
        named = read_pointer(pointer)
        if named is None:
            why = "its commondir is no file git wrote (a link, a FIFO, or no path)"
        elif os.path.realpath(entry / named) != repository:
            why = f"its commondir names {named}, not this repository"
        else:
            found.append(entry)
            continue
        if skipped is not None:
            skipped.append((entry, why))
    return found


def problem_with(common_git_dir: Path) -> str | None:
    """Why a registered repository cannot be drained, or None."""
    try:
        info = common_git_dir.stat()
    except FileNotFoundError:
        return VANISHED
    except OSError as error:
        return f"it cannot be read ({error.strerror})"
    if not common_git_dir.is_dir():
        return "it is not a directory"
    if info.st_uid != os.getuid():
        return f"it belongs to uid {info.st_uid}, not to you"
    if not is_git_dir(common_git_dir):
        return "it is not a git repository"
    return None


def is_git_dir(path: Path) -> bool:
    """Whether `path` is a repository's git dir, as git tells one: its HEAD and its objects."""
    return (path / "HEAD").is_file() and (path / "objects").is_dir()


def is_registered(common_git_dir: Path) -> bool:
    try:
        key = _key(common_git_dir)
    except ValueError:  # a path with a newline, which register refuses: never registered
        return False
    return key in registered()


def ours(git_dir: Path) -> bool:
    """Whether what landwatch keeps for the worktree of `git_dir` is the person's to be told: it
    is a registered repository's own git dir or one of its worktrees' (install's), or its work
    directory carries their mark (one `uninstall --keep-data` kept); never an unpacked
    archive's, which its author wrote, nor one it placed beside a registered repository (a
    git dir of its own whose `commondir` names that repository)."""
    common = layout.common_dir(git_dir)
    return (is_registered(common) and _kept_by(common, git_dir)) or made_here(git_dir)


def _kept_by(common: Path, git_dir: Path) -> bool:
    """Whether `git_dir` is the repository's own (`common`) or where git keeps its linked
    worktrees' (`worktrees/NAME`), as prompt.registered asks it without pathlib."""
    at, real = os.path.realpath(git_dir), os.path.realpath(common)
    return at == real or os.path.dirname(at) == os.path.join(real, "worktrees")


def register(common_git_dir: Path) -> bool:
    """Add a repository; False when it was registered already."""
    key = _key(common_git_dir)
    with exclusive(layout.REGISTRY_LOCK.path()):
        current = _lines()
        if any(_names(line, key) for line in current):
            return False
        _write([*current, str(key)])
        return True


def unregister(common_git_dir: Path) -> bool:
    key = _key(common_git_dir)
    with exclusive(layout.REGISTRY_LOCK.path()):
        current = _lines()
        kept = [line for line in current if not _names(line, key)]
        if kept == current:
            return False
        _write(kept)
        return True


def _names(line: str, key: Path) -> bool:
    """Whether a registry line is the path `key` (as registered() reads it)."""
    return line.startswith("/") and Path(line) == key


def _key(common_git_dir: Path) -> Path:
    key = common_git_dir.resolve()
    if "\n" in str(key):
        raise ValueError(f"a path with a newline cannot be registered: {str(key)!r}")
    return key


def _write(lines: list[str]) -> None:
    data = "".join(f"{line}\n" for line in lines)
    write_atomic(
        layout.REGISTRY.path(), data.encode("utf-8", errors="surrogateescape"), trusted=None
    )


# --- the work directories landwatch made -------------------------------------------------------


def _work_key() -> bytes:
    """The person's own key of the marks (made on first need): outside every repository, so a
    repository brought from elsewhere cannot carry a mark that holds here."""
    path = layout.WORK_KEY.path()
    with exclusive(layout.REGISTRY_LOCK.path()):
        try:
            return bytes.fromhex(read_file(path, trusted=None).decode("ascii").strip())
        except FileNotFoundError:
            key = os.urandom(32)  # what secrets.token_bytes reads, without importing it
            write_atomic(path, key.hex() + "\n", trusted=None)
            return key
        except (UnicodeDecodeError, ValueError) as error:
            raise OSError(f"{path} is not a key landwatch wrote ({error})") from None


def _mark_of(work: Path) -> bytes:
    """The mark of the work directory at `work`: its inode signed with the person's key, so a
    copy (a tarball, `cp -r`) of even their own has another, and the mark moves with a `mv`."""
    import hmac  # here: listing the repositories (`status`) needs no mark, nor hashlib (3 ms)

    info = os.lstat(work)
    if not stat.S_ISDIR(info.st_mode):
        raise OSError(f"{work} is not a directory")
    digest = hmac.new(_work_key(), str(info.st_ino).encode(), "sha256").hexdigest()
    return MADE_HEADER + digest.encode() + b"\n"


def made_here(git_dir: Path) -> bool:
    """Whether the worktree's work directory is one landwatch made here (or took as its own):
    it carries the mark of this directory under this person's key."""
    work = layout.work_dir(git_dir)
    try:
        found = read_file(layout.MADE.path(git_dir), trusted=git_dir)
        mark = _mark_of(work)
    except OSError:
        return False
    import hmac  # with _mark_of's: only where a mark is read

    return hmac.compare_digest(found, mark)


def mark_made(git_dir: Path) -> None:
    """Mark the worktree's work directory (made first if missing) as landwatch's own."""
    work = work_item.ensure_work_directory(git_dir)
    write_atomic(layout.MADE.path(git_dir), _mark_of(work), trusted=git_dir)


def set_aside_unless_made(git_dir: Path, *, now: float) -> Path | None:
    """A work directory landwatch did not make (it came with a copied or unpacked repository) is
    renamed aside, unread, before anything in it is used; where it went, or None when it was
    landwatch's, absent, or not a directory (which the queue refuses with its own line)."""
    work = layout.work_dir(git_dir)
    if not work.is_dir() or work.is_symlink() or made_here(git_dir):
        return None
    aside = work.with_name(f"{work.name}{SET_ASIDE}{work_item.micros(now)}")
    os.rename(work, aside)
    return aside


def set_aside(git_dir: Path) -> list[Path]:
    """The work directories install moved aside in the worktree's git dir (set_aside_unless_made),
    oldest first: directories only, never what a link of that name leads to."""
    prefix = layout.work_dir(git_dir).name + SET_ASIDE
    return sorted(
        git_dir / name
        for name, info in list_entries(git_dir, trusted=None)
        if name.startswith(prefix) and stat.S_ISDIR(info.st_mode)
    )
