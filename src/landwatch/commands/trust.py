"""`landwatch trust [--show | --yes | --revoke]`: show the linters committed at HEAD, the files of
the repository they would be given, the project hooks HEAD declares (pre-commit, lefthook) and the
files pinned with them, and what changed since the last approval (a first screen, then the
whole through the pager: commands.trust_screen), then ask before allowing exactly that here; see
what is trusted and all that is asked (`--show`); or withdraw it (landwatch.trust keeps them).

Without a terminal to ask on, only `--yes` approves: what runs as the person is never allowed by
a command that could not show it to them first.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from landwatch.review.secrets.redaction import printable
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
    is_trusted,
    last_approval,
    own_linters,
    problem,
    repository_key,
    revoke,
    writable,
)

if TYPE_CHECKING:
    from landwatch.commands.trust_screen import Revs, Shown
    from landwatch.review.pinned import Pinned
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
            for line in _list_approvals(git_dir):
                print(line, file=out)
            print(f"landwatch: HEAD's configuration cannot be read: {error}", file=out)
            return 0
        print(f"landwatch: {error}; nothing trusted", file=sys.stderr)
        return 1
    hooks = committed_hooks(git_dir)
    said, shown, pending = _pending(git_dir, where, pinned, hooks)
    walled, wall_said = _wall(git_dir)
    _show(git_dir, said, shown, wall_said, show=show, out=out)
    if not pending or show:
        return 0
    writable("nothing was approved")  # said before asking: a yes it could not keep is lost
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


def _show(
    git_dir: Path, said: list[str], shown: list[Shown], wall: str, *, show: bool, out: TextIO
) -> None:
    """What is trusted (with --show) and what is asked: the first screen, then the whole
    through the pager; without one, the first screen alone (--show: the whole)."""
    from landwatch import pager
    from landwatch.commands.trust_screen import first_screen, wrapped

    head = _list_approvals(git_dir) if show else []
    if not shown:
        pager.page("".join(f"{line}\n" for line in [*head, *said]), out)
        return
    paged = pager.pages(out)
    tail = wrapped(f"landwatch: {safe(wall)}")
    if show:
        tail.append(f"landwatch: not trusted here; `{COMMAND}` would ask to allow it")
    elif not paged:
        tail.append(f"landwatch: each command whole, every file and the diff: `{COMMAND} --show`")
    lines = [*head, *said, *first_screen(shown, tail)]
    if paged or show:
        lines += ["", *(line for each in shown for line in each.whole)]
    pager.page("".join(f"{line}\n" for line in lines), out)


def _pending(
    git_dir: Path, where: str, pinned: Pinned, hooks: HooksPinned | None
) -> tuple[list[str], list[Shown], list[Callable[[], Approval]]]:
    """What HEAD asks to run that is not trusted here, each shown with how to approve it;
    what is trusted already said in a line."""
    from landwatch.commands.trust_screen import hooks_shown, linters_shown

    said: list[str] = []
    shown: list[Shown] = []
    pending: list[Callable[[], Approval]] = []
    linters = bool(pinned.linters or (own_linters()[0] and pinned.files))
    if not linters and hooks is None:
        said.append(f"landwatch: {safe(where)} asks to run no linter; nothing to trust")
    elif linters and is_trusted(git_dir, pinned.digest):
        said.append(f"landwatch: HEAD's configuration is trusted here ({pinned.digest[:12]})")
    elif linters:
        shown.append(linters_shown(git_dir, where, pinned, last_approval(git_dir, LINTERS)))
        pending.append(lambda: approve(git_dir, pinned))
    if hooks is not None and is_trusted(git_dir, hooks.digest):
        said.append(f"landwatch: HEAD's project hooks are trusted here ({hooks.digest[:12]})")
        said += _not_run(git_dir, hooks)
    elif hooks is not None:
        revs, lines = _revs(hooks)
        lines.not_run = _not_run(git_dir, hooks)
        shown.append(hooks_shown(git_dir, hooks, lines, last_approval(git_dir, HOOKS)))
        pending.append(lambda: approve_hooks(git_dir, hooks, revs))
    return said, shown, pending


def _not_run(git_dir: Path, hooks: HooksPinned) -> list[str]:
    """A line for each hook repository on this machine, named where a tool reads it, that the
    environment build is not shown: said when trusting, not first in a report after."""
    from landwatch.review.project_hooks.sources import read_by
    from landwatch.wall.project_hooks.revs import RevError, local_path
    from landwatch.wall.project_hooks.tools import readers

    lines = []
    for declared in hooks.declared:
        tools = readers(declared.family, declared.path)
        files = (declared.path, *declared.read)
        # Each repository, and the tools that read a file naming it (pre-commit, prek: not the
        # same files), as a landing's run takes them.
        named: dict[str, list[str]] = {}
        for tool in tools:
            read = read_by(tool, files)
            for path, url in declared.on_machine:
                if path in read and tool not in named.setdefault(url, []):
                    named[url].append(tool)
        for url, by in named.items():
            try:
                local_path(url, git_dir)  # whether it is refused; where `.` is does not matter
            except RevError as error:
                only = "" if len(by) == len(tools) else f" with {' or '.join(by)}"
                lines.append(
                    f"landwatch: the hooks of {printable(declared.path)} will not run{only}: "
                    f"{printable(str(error))}"
                )
    return lines


def _wall(git_dir: Path) -> tuple[bool, str]:
    """Whether what is trusted would run behind the wall (or as the person, or not at all on
    this machine yet), and the line that says which."""
    from landwatch import layout
    from landwatch.wall.door import choose

    wall, said = choose(
        layout.sandbox_asked(layout.read_git_settings(git_dir)), os.environ.get("PATH")
    )
    return wall is None or wall.sandbox is not None, said


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


def _list_approvals(git_dir: Path) -> list[str]:
    from landwatch.commands.trust_screen import when

    key = repository_key(git_dir)
    mine = [a for a in approvals() if a.repository == key]
    lines = [] if mine else ["landwatch: nothing is trusted in this repository"]
    if (unread := problem()) is not None:
        lines.append(f"landwatch: {unread}: nothing in it is trusted; {unread.fix}")
    for approval in mine:
        what = "project hooks " if approval.subject == HOOKS else ""
        lines.append(f"trusted {what}{when(approval)} ({approval.digest[:12]}):")
        lines += [f"  {printable(line)}" for line in approval.commands]
        given = "pinned" if approval.subject == HOOKS else "given"
        lines += [f"  {given} {printable(path)}" for path, _ in approval.files]
    return lines


# How many of the newest hooks' results `held_back_hooks` reads at most: a repository's every
# landing has one, and what trust brings back is what was held back lately.
HELD_BACK_SCANNED = 1000


def held_back_hooks(git_dir: Path, digest: str, *, most: int) -> list[str]:
    """The commits whose project hooks were held back for want of trust in `digest` (their
    result kept says so), newest kept first, at most `most`."""
    from landwatch import layout, report_store

    kept = []
    with contextlib.suppress(OSError), os.scandir(layout.REPORTS.path(git_dir)) as found:
        for entry in found:
            if not entry.name.endswith(layout.HOOKS_REPORT_SUFFIX):
                continue
            with contextlib.suppress(OSError):  # gone since listed
                if entry.is_file(follow_symlinks=False):
                    kept.append((entry.stat(follow_symlinks=False).st_mtime_ns, entry.name))
    commits = []
    for _, name in sorted(kept, reverse=True)[:HELD_BACK_SCANNED]:
        result = report_store.read_hooks(git_dir, name.removesuffix(layout.HOOKS_REPORT_SUFFIX))
        if result is not None and result.status == "untrusted" and result.digest == digest:
            commits.append(result.commit)
            if len(commits) == most:
                break
    return commits


# How many landings whose project hooks were held back for want of trust run them once it is
# given: the newest, which is what a person is working on, and a few before it.
HELD_BACK_RUNS = 10


def _run_held_back(git_dir: Path, digest: str, out: TextIO) -> None:
    """The project hooks of the landings held back for want of trust in `digest` asked for
    again (the newest HELD_BACK_RUNS), oldest first, so the newest is told last; said in a
    line."""
    from landwatch import work_item

    held = held_back_hooks(git_dir, digest, most=HELD_BACK_RUNS + 1)
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


def _revs(hooks: HooksPinned) -> tuple[tuple[tuple[str, str, str], ...], Revs]:
    """Each remote hook repository's rev resolved to the commit it names now (the network,
    `git ls-remote`), for the approval to hold it to; a line each saying so, or why not, and
    what the first screen adds to a rev that is a name."""
    from landwatch.commands.trust_screen import Revs
    from landwatch.wall.project_hooks.revs import resolve

    remotes = dict.fromkeys(remote for each in hooks.declared for remote in each.remotes)
    revs = Revs(["landwatch: the remote hooks run these commits:"] if remotes else [])
    resolved = []
    for remote in remotes:
        commit, how = resolve(remote)
        where = f"{remote.url} at {remote.rev or '(no rev)'}"
        if commit is None:
            revs.named[where] = " (not resolved: --show)"
            revs.lines.append(
                f"  {printable(where)}: not resolved ({printable(how)}): it runs what that names "
                "when its environment is built; pin it by a commit id (`pre-commit autoupdate "
                "--freeze`)"
            )
            continue
        resolved.append((remote.url, remote.rev, commit))
        shown = "" if commit == remote.rev else f": {commit[:12]}, {how}"
        if shown:
            revs.named[where] = f" = {commit[:12]}"
        revs.lines.append(f"  {printable(where)}{shown or ' (a commit id)'}")
    return tuple(resolved), revs
