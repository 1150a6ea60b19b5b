"""`landwatch trust [--show | --yes | --revoke]`: show the linters committed at HEAD, the files of
the repository they would be given, the project hooks HEAD declares (pre-commit, lefthook) and the
files pinned with them, and what changed since the last approval, then ask before allowing
exactly that here; see what is trusted; or withdraw it (landwatch.trust keeps them).

Without a terminal to ask on, only `--yes` approves: what runs as the person is never allowed by
a command that could not show it to them first.
"""

from __future__ import annotations

import difflib
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from landwatch.text import plural, safe
from landwatch.trust import (
    COMMAND,
    HOOKS,
    LINTERS,
    Approval,
    approvals,
    approve,
    approve_hooks,
    committed,
    committed_hooks,
    describe,
    is_trusted,
    last_approval,
    own_linters,
    repository_key,
    revoke,
)

if TYPE_CHECKING:
    from landwatch.review.pinned import Pinned, PinnedFile
    from landwatch.review.project_hooks.pin import HooksPinned

# What a person types to approve at the question (anything else, or nothing, is no).
YES = ("y", "yes")


def trust(
    git_dir: Path,
    *,
    show: bool,
    revoke_all: bool,
    yes: bool = False,
    out: TextIO | None = None,
    answers: TextIO | None = None,
) -> int:
    """`landwatch trust` in the repository of `git_dir`; `answers` is where a person answers
    the question (stdin), asked only when it and `out` are a terminal."""
    out = sys.stdout if out is None else out  # the streams of the call, not of the import
    answers = sys.stdin if answers is None else answers
    if revoke_all:
        count = revoke(git_dir)
        print(
            f"landwatch: withdrew {count} approval(s); no committed linter or project hook "
            "runs here",
            file=out,
        )
        return 0
    from landwatch.review.config import ConfigError

    try:
        where, pinned = committed(git_dir)
    except ConfigError as error:
        if show:
            _list_approvals(git_dir, out)
            print(f"landwatch: HEAD's configuration cannot be read: {error}", file=out)
            return 0
        print(f"landwatch: {error}; nothing trusted", file=sys.stderr)
        return 1
    hooks = committed_hooks(git_dir)
    if show:
        _list_approvals(git_dir, out)
    pending = _pending(git_dir, where, pinned, hooks, out)
    if not pending:
        return 0
    if show:
        print(f"landwatch: not trusted here; `{COMMAND}` would ask to allow it", file=out)
        return 0
    walled = _wall(git_dir, out)
    if not yes and not _asked(out, answers, walled):
        return 1
    approved = [approval() for approval in pending]
    digests = ", ".join(approval.digest[:12] for approval in approved)
    print(
        f"landwatch: trusted exactly these ({digests}); a change to them needs "
        f"`{COMMAND}` again; `{COMMAND} --revoke` withdraws it",
        file=out,
    )
    for approval in approved:
        if approval.subject == HOOKS:
            _run_held_back(git_dir, approval.digest, out)
    return 0


# How many landings whose project hooks were held back for want of trust run them once it is
# given: the newest, which is what a person is working on, and a few before it.
HELD_BACK_RUNS = 10


def _run_held_back(git_dir: Path, digest: str, out: TextIO) -> None:
    """The project hooks of the landings held back for want of trust in `digest` asked for
    again (the newest HELD_BACK_RUNS), oldest first, so the newest is told last; said in a
    line."""
    from landwatch import report_store, work_item

    held = report_store.held_back_hooks(git_dir, digest, most=HELD_BACK_RUNS + 1)
    if not held:
        return
    asked = held[:HELD_BACK_RUNS]
    for commit in reversed(asked):
        item = work_item.WorkItem(work_item.WorkKind.PROJECT_HOOKS, commit, git_dir)
        work_item.enqueue(item, again=True)
    named = ", ".join(commit[:7] for commit in asked)
    more = (
        f" (the newest {len(asked)}; `landwatch enqueue --kind project_hooks REV` runs an "
        "older one's)"
        if len(held) > len(asked)
        else ""
    )
    print(
        f"landwatch: the project's hooks held back on {plural(len(asked), 'landing')} run "
        f"now{more}: {named}",
        file=out,
    )


def _pending(
    git_dir: Path, where: str, pinned: Pinned, hooks: HooksPinned | None, out: TextIO
) -> list[Callable[[], Approval]]:
    """What HEAD asks to run that is not trusted here, shown, each with how to approve it;
    what is trusted already said in a line."""
    pending: list[Callable[[], Approval]] = []
    linters = bool(pinned.linters or (own_linters()[0] and pinned.files))
    if not linters and hooks is None:
        print(f"landwatch: {safe(where)} asks to run no linter; nothing to trust", file=out)
    elif linters and is_trusted(git_dir, pinned.digest):
        print(f"landwatch: HEAD's configuration is trusted here ({pinned.digest[:12]})", file=out)
    elif linters:
        _present(git_dir, where, pinned, out)
        pending.append(lambda: approve(git_dir, pinned))
    if hooks is not None and is_trusted(git_dir, hooks.digest):
        print(f"landwatch: HEAD's project hooks are trusted here ({hooks.digest[:12]})", file=out)
    elif hooks is not None:
        revs = _present_hooks(git_dir, hooks, out)
        pending.append(lambda: approve_hooks(git_dir, hooks, revs))
    return pending


def _wall(git_dir: Path, out: TextIO) -> bool:
    """Say where what is trusted would run (behind the wall, or as the person, or not at all
    on this machine yet); whether it is behind the wall."""
    from landwatch import layout
    from landwatch.wall.door import choose

    wall, said = choose(layout.read_git_settings(git_dir)[layout.SANDBOX], os.environ.get("PATH"))
    print(f"landwatch: {safe(said)}", file=out)
    return wall is None or wall.sandbox is not None


def _asked(out: TextIO, answers: TextIO, walled: bool) -> bool:
    """The person's yes, on a terminal; without one, no, and how to say yes."""
    if not (answers.isatty() and out.isatty()):
        print(
            "landwatch: nothing trusted: there is no terminal to ask on; "
            f"`{COMMAND} --yes` allows exactly what is shown above",
            file=sys.stderr,
        )
        return False
    where = "behind the wall" if walled else "as you, without the wall"
    print(f"Allow exactly these to run here, {where}? [y/N] ", end="", file=out, flush=True)
    answer = answers.readline().strip().lower()
    if answer in YES:
        return True
    print("landwatch: nothing trusted", file=out)
    return False


def _list_approvals(git_dir: Path, out: TextIO) -> None:
    key = repository_key(git_dir)
    mine = [a for a in approvals() if a.repository == key]
    if not mine:
        print("landwatch: nothing is trusted in this repository", file=out)
    for approval in mine:
        what = "project hooks " if approval.subject == HOOKS else ""
        print(f"trusted {what}{_when(approval)} ({approval.digest[:12]}):", file=out)
        for line in approval.commands:
            print(f"  {safe(line)}", file=out)
        for path, _ in approval.files:
            print(f"  {'pinned' if approval.subject == HOOKS else 'given'} {safe(path)}", file=out)


def _present(git_dir: Path, where: str, pinned: Pinned, out: TextIO) -> None:
    """Every command, every file given to the linters, and the difference from the last
    approval: all that the person is asked to allow."""
    if pinned.linters:
        print(
            f"landwatch: {safe(where)} at HEAD runs these commands on the files a commit changes:",
            file=out,
        )
        for line in describe(list(pinned.linters)):
            print(f"  {safe(line)}", file=out)
    given = "they are" if pinned.linters else "your own linters would be"
    print(f"landwatch: {given} given these files of it, pinned by content:", file=out)
    _files(pinned.files, "none (the file being linted only)", out)
    commands = describe(list(pinned.linters))
    _changes(git_dir, last_approval(git_dir, LINTERS), commands, pinned.files, out)


# Said once with every project hooks' approval: what trust does not pin, in one plain sentence.
LOCAL_CODE = (
    "landwatch: what these run of the repository beyond the files pinned (the modules a script "
    "imports, a Makefile, `python -m`, a sourced file, a `repo: .`) runs as each landing has it, "
    "behind the wall: no home, no network, no socket, only the checkout writable."
)


def _present_hooks(
    git_dir: Path, hooks: HooksPinned, out: TextIO
) -> tuple[tuple[str, str, str], ...]:
    """Every hook HEAD's hook managers run and every file pinned with them, each remote's rev
    and the commit it names now, and the difference from the last approval of this
    repository's hooks; the revs resolved, for the approval to hold them to."""
    paths = ", ".join(each.path for each in hooks.declared)
    print(
        f"landwatch: HEAD's project hooks ({safe(paths)}) run these on the files a commit "
        "changes, with your own pre-commit, prek or lefthook:",
        file=out,
    )
    for line in hooks.commands() or ("(none at the pre-commit stage)",):
        print(f"  {safe(line)}", file=out)
    for each in hooks.declared:
        if each.problem:
            print(f"  ({safe(each.problem)}: nothing of it runs)", file=out)
    revs = _revs(hooks, out)
    print("landwatch: pinned with them by content (a change to any asks again):", file=out)
    _files(hooks.files, "none", out)
    print(LOCAL_CODE, file=out)
    _changes(git_dir, last_approval(git_dir, HOOKS), hooks.commands(), hooks.files, out)
    return revs


def _revs(hooks: HooksPinned, out: TextIO) -> tuple[tuple[str, str, str], ...]:
    """Each remote hook repository's rev resolved to the commit it names now (the network,
    `git ls-remote`), said in a line each; what could not be, said too."""
    from landwatch.wall.project_hooks.revs import resolve

    remotes = dict.fromkeys(remote for each in hooks.declared for remote in each.remotes)
    if not remotes:
        return ()
    print("landwatch: the remote hooks run these commits:", file=out)
    resolved = []
    for remote in remotes:
        commit, how = resolve(remote)
        where = f"{remote.url} at {remote.rev or '(no rev)'}"
        if commit is None:
            print(
                f"  {safe(where)}: not resolved ({safe(how)}): it runs what that names when its "
                "environment is built; pin it by a commit id (`pre-commit autoupdate --freeze`)",
                file=out,
            )
            continue
        resolved.append((remote.url, remote.rev, commit))
        shown = "" if commit == remote.rev else f": {commit[:12]}, {how}"
        print(f"  {safe(where)}{shown or ' (a commit id)'}", file=out)
    return tuple(resolved)


def _files(files: tuple[PinnedFile, ...], none: str, out: TextIO) -> None:
    for file in files:
        print(f"  {safe(file.path)}" + (f" ({safe(file.why)})" if file.why else ""), file=out)
    if not files:
        print(f"  {none}", file=out)


def _changes(
    git_dir: Path,
    last: Approval | None,
    commands: tuple[str, ...],
    files: tuple[PinnedFile, ...],
    out: TextIO,
) -> None:
    if last is None:
        print("landwatch: nothing was trusted here before; as committed:", file=out)
    else:
        print(
            f"landwatch: changed since you last trusted this repository ({_when(last)}):", file=out
        )
    for line in _differences(git_dir, last, commands, files):
        print(f"  {safe(line)}", file=out)


def _differences(
    git_dir: Path, last: Approval | None, commands: tuple[str, ...], files: tuple[PinnedFile, ...]
) -> list[str]:
    """A unified diff of the commands and of each file pinned, from the last approval to HEAD."""
    lines: list[str] = []
    if last is not None:  # the first time, the commands listed are all there is
        lines += difflib.unified_diff(
            list(last.commands),
            list(commands),
            "commands (trusted)",
            "commands (HEAD)",
            lineterm="",
        )
    before = dict(last.files) if last else {}
    now = {file.path: file for file in files}
    for path in sorted(set(before) | set(now)):
        old = _blob_lines(git_dir, before.get(path))
        new_file = now.get(path)
        new = _text_lines(new_file.data) if new_file is not None and new_file.data else []
        if new_file is not None and before.get(path) == new_file.oid and last is not None:
            continue  # the very same blob
        lines += difflib.unified_diff(old, new, f"{path} (trusted)", f"{path} (HEAD)", lineterm="")
    # What differs then is how their output is read (format, pattern, filter).
    return lines or ["(the commands and files are the same; how their output is read differs)"]


def _blob_lines(git_dir: Path, oid: str | None) -> list[str]:
    """The lines of a blob as approved; what an old approval did not keep, or git no longer
    has, is said in a line."""
    if oid is None:
        return []
    import pygit2

    from landwatch.review.change import open_repository

    try:
        blob = open_repository(git_dir)[oid]
    except (KeyError, ValueError):
        blob = None
    if not isinstance(blob, pygit2.Blob):
        return [f"(the version trusted, {oid[:12]}, is no longer in this repository)"]
    return _text_lines(blob.data)


def _text_lines(data: bytes) -> list[str]:
    return data.decode("utf-8", errors="surrogateescape").splitlines()


def _when(approval: Approval) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(approval.approved))
