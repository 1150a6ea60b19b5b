"""The front door: `landwatch ...` and `git landwatch ...`. It builds the command line (argparse)
and dispatches to landwatch.commands, where every command is a plain function.

A command's module is imported only when that command runs; defaults are shown from the
constants that hold them. The hooks' `landwatch notice` and a shell's `landwatch prompt` are
answered by landwatch.__main__ before this module is imported.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from landwatch import __version__, front, usage


def _program_name(argv0: str) -> str:
    # git runs `git-landwatch` for `git landwatch`; say it the way the person typed it.
    return "git landwatch" if os.path.basename(argv0) == "git-landwatch" else "landwatch"


def build_parser(prog: str = "landwatch", command: str | None = None) -> argparse.ArgumentParser:
    """The command line; with `command`, that command's parser alone beneath the top one."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Records every commit that lands and reviews it in the background.",
    )
    parser.add_argument("--version", action="version", version=f"landwatch {__version__}")
    commands = usage.Chosen(parser.add_subparsers(dest="command", metavar="COMMAND"), command)
    _installing(commands)
    usage.reviewer_options(
        commands.add_parser(
            "reviewer", help="drain every registered repository (foreground; see --once, --detach)"
        )
    )
    service = commands.add_parser("service", help="the reviewer under your service manager")
    actions = service.add_subparsers(dest="action", metavar="ACTION", required=True)
    for action, what in usage.SERVICE_ACTIONS.items():
        actions.add_parser(action, help=what, description=what)
    status = commands.add_parser("status", help="queues of every registered repository")
    status.add_argument("--json", action="store_true", help="for scripts")
    _reviews(commands)
    usage.allowing(commands)
    usage.team(commands)
    _upkeep(commands)
    completion = commands.add_parser("completion", help="your shell's completion for landwatch")
    completion.add_argument("shell", choices=usage.SHELLS, help="the shell it is for")
    prompt = commands.add_parser("prompt", help="the one line for your shell prompt, or nothing")
    prompt.add_argument("--color", action="store_true", help="in terminal colours")
    prompt.add_argument(
        "--width",
        type=usage.columns,
        metavar="N",
        help="fit the line to N columns (default: one less than the terminal's)",
    )
    gate = commands.add_parser(
        "pre-push", help="the push gate, as the pre-push hook asks it (git's stdin in)"
    )
    gate.add_argument("remote", help="the remote's name, or its URL")
    gate.add_argument("url", help="the remote's URL")
    usage.explain(parser)
    return parser


def _installing(commands: usage.Commands) -> None:
    install = commands.add_parser("install", help="install the hooks into this repository")
    install.add_argument(
        "--hooks-path",
        type=Path,
        metavar="DIR",
        help="write the hooks into DIR on purpose (e.g. the directory core.hooksPath names)",
    )
    uninstall = commands.add_parser(
        "uninstall", help="remove the hooks and the data from this repository, restore the rest"
    )
    uninstall.add_argument(
        "--hooks-path",
        type=Path,
        metavar="DIR",
        help="take the hooks from DIR (default: where install wrote them)",
    )
    for flag, what in (
        ("--all", "remove landwatch for you: every repository's hooks, the service, your data"),
        ("--keep-data", "keep the reports and the queues (.git/landwatch)"),
        ("--yes", "with --all: do it without asking (scripts)"),
    ):
        uninstall.add_argument(flag, action="store_true", help=what)
    enqueue = commands.add_parser("enqueue", help="record a landed commit as a work item")
    enqueue.add_argument(
        "--kind",
        default="review",
        help="the kind of work (review, push, maintenance, or one a package adds; "
        "default: %(default)s)",
    )
    enqueue.add_argument("--base", metavar="OID", help="where the landed range starts")
    enqueue.add_argument(
        "rev", nargs="?", default="HEAD", metavar="REV", help="the commit (default: %(default)s)"
    )


def _reviews(commands: usage.Commands) -> None:
    review = commands.add_parser("review", help="review a commit or a range now (no queue)")
    review.add_argument(
        "revision",
        nargs="?",
        default="HEAD",
        metavar="REV | A..B",
        help="a commit, or what B adds on top of A (default: %(default)s)",
    )
    review.add_argument(
        "--fail-level",
        choices=("error", "warning", "info", "none"),
        default="error",
        help="exit 1 when a finding is at or above this severity (default: %(default)s)",
    )
    review.add_argument("--no-linters", action="store_true", help="skip the project's linters")
    usage.output_options(review)
    show = commands.add_parser("show", help="the findings of a commit's review")
    show.add_argument(
        "revision", nargs="?", default=None, metavar="REV", help="the commit (default: HEAD)"
    )
    show.add_argument(
        "--unread",
        action="store_true",
        help="the reviews with findings not seen yet, whole, the worst first",
    )
    usage.output_options(show, ("patch", "what the project's hooks would change, for git apply"))
    rules = commands.add_parser("rules", help="every rule of the review")
    rules.add_argument("--markdown", action="store_true", help="as docs/rules.md")
    rules.add_argument(
        "--explain",
        action="store_true",
        help="what this repository's history taught the rules (subject length, conventions)",
    )


def _upkeep(commands: usage.Commands) -> None:
    trust = commands.add_parser("trust", help="see HEAD's linters and configuration; allow them")
    trust_mode = trust.add_mutually_exclusive_group()
    trust_mode.add_argument("--show", action="store_true", help="what is trusted, what is asked")
    trust_mode.add_argument("--yes", action="store_true", help="allow without asking (no tty)")
    trust_mode.add_argument(
        "--revoke", action="store_true", help="withdraw everything trusted in this repository"
    )
    retry = commands.add_parser("retry", help="start items that were given up again (tries from 0)")
    retry.add_argument("revs", nargs="*", metavar="REV", help="the commits whose items to retry")
    retry.add_argument("--all", action="store_true", help="every item given up in this repository")
    doctor = commands.add_parser(
        "doctor", help="check that every landing is covered; say what mends what is not"
    )
    doctor.add_argument("--fix", action="store_true", help="mend what needs no decision")
    forget = commands.add_parser(
        "forget", help="drop a registered repository that is gone (one still there: uninstall)"
    )
    forget.add_argument("path", type=Path, metavar="PATH", help="its worktree or its git dir")


# --- dispatch: each command's function, called with what its options say ---------------------


def _install(args: argparse.Namespace) -> int:
    from landwatch.commands.install import install

    return install(Path.cwd(), hooks_path=args.hooks_path)


def _uninstall(args: argparse.Namespace) -> int:
    from landwatch.commands import uninstall

    if args.all:
        return uninstall.uninstall_everything(
            keep_data=args.keep_data, yes=args.yes, cwd=Path.cwd()
        )
    if args.yes:
        from landwatch.errors import UsageError

        raise UsageError("--yes goes with --all")
    return uninstall.uninstall(Path.cwd(), hooks_path=args.hooks_path, keep_data=args.keep_data)


def _enqueue(args: argparse.Namespace) -> int:
    from landwatch.commands.enqueue import enqueue

    return enqueue(Path.cwd(), kind=args.kind, revision=args.rev, base=args.base)


def _run_reviewer(args: argparse.Namespace) -> int:
    from landwatch.commands.reviewer import handler_overrides, reviewer
    from landwatch.daemon.settings import Settings

    settings = Settings(
        lease=args.lease,
        max_tries=args.max_tries,
        rescan=args.rescan,
        sweep_every=args.rescan,  # the sweep is the rescan of the reflogs
        grace=args.grace,
        watch=not args.no_watch,
        once_waits=args.wait,
    )
    return reviewer(
        once=args.once,
        detach=args.detach,
        verbose=args.verbose,
        settings=settings,
        handlers=handler_overrides(args.handlers),
    )


def _service(args: argparse.Namespace) -> int:
    from landwatch.commands.service import service

    return service(args.action)


def _status(args: argparse.Namespace) -> int:
    from landwatch.commands.status import status

    return status(as_json=args.json)


def _review(args: argparse.Namespace) -> int:
    from landwatch.commands.review import review

    return review(
        Path.cwd(),
        revision=args.revision,
        fail_level=args.fail_level,
        linters=not args.no_linters,
        form=args.form,
    )


def _show(args: argparse.Namespace) -> int:
    from landwatch.commands.show import show

    return show(Path.cwd(), revision=args.revision, unread=args.unread, form=args.form)


def _allow(args: argparse.Namespace) -> int:
    from landwatch.commands.allow import allow

    return allow(Path.cwd(), args.target, reason=args.reason)


def _share(args: argparse.Namespace) -> int:
    from landwatch.commands.share import share

    return share(Path.cwd(), remote=args.remote, off=args.off)


def _ci(args: argparse.Namespace) -> int:
    from landwatch.commands.ci import Options, ci

    return ci(Path.cwd(), Options.of(args))


def _rules(args: argparse.Namespace) -> int:
    from landwatch.commands.rules import rules

    return rules(Path.cwd(), markdown=args.markdown, explain=args.explain)


def _trust(args: argparse.Namespace) -> int:
    from landwatch.commands.trust import trust
    from landwatch.git import git, git_dir_of

    cwd = Path.cwd()
    if git("rev-parse", "--is-bare-repository", cwd=cwd, check=False) == "true":
        print(
            f"landwatch: {cwd} is a bare repository: nothing lands there but in its worktrees, "
            "so nothing of it runs; trust in one of them, or in a clone",
            file=sys.stderr,
        )
        return 1
    return trust(git_dir_of(cwd), show=args.show, revoke_all=args.revoke, yes=args.yes)


def _retry(args: argparse.Namespace) -> int:
    from landwatch.commands.retry import retry

    return retry(Path.cwd(), revisions=args.revs, every=args.all)


def _doctor(args: argparse.Namespace) -> int:
    from landwatch.commands.doctor import doctor

    return doctor(Path.cwd(), fix=args.fix)


def _forget(args: argparse.Namespace) -> int:
    from landwatch.commands.forget import forget

    return forget(args.path)


def _completion(args: argparse.Namespace) -> int:
    from landwatch.commands.completion import completion

    return completion(build_parser(), shell=args.shell)


def _prompt(args: argparse.Namespace) -> int:
    from landwatch.commands.prompt import prompt

    return prompt(os.getcwd(), color=args.color, width=args.width)


def _pre_push(args: argparse.Namespace) -> int:
    from landwatch.commands.pre_push import pre_push

    # git runs the hook where it works (`git --git-dir=X push` from anywhere: there), and says
    # which repository in GIT_DIR where the work tree alone would not.
    given = os.environ.get("GIT_DIR")
    # Bytes: a ref name need not be UTF-8, and the gate's own handling decodes them.
    return pre_push(Path.cwd(), args.remote, args.url, sys.stdin.buffer.read(), git_dir=given)


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "install": _install,
    "uninstall": _uninstall,
    "enqueue": _enqueue,
    "prompt": _prompt,
    "pre-push": _pre_push,
    "reviewer": _run_reviewer,
    "service": _service,
    "status": _status,
    "review": _review,
    "show": _show,
    "allow": _allow,
    "share": _share,
    "ci": _ci,
    "rules": _rules,
    "trust": _trust,
    "doctor": _doctor,
    "retry": _retry,
    "forget": _forget,
    "completion": _completion,
}


# Commands that never review: they do not pay for finding where the secret rules are kept (the
# person's state directory, platformdirs). Were one to review, it would compile them in memory.
NEVER_REVIEW = frozenset({"show", "status", "rules", "completion", "prompt"})
# Commands that change things between their lines: a reader gone silences them (closed_pipe).
CARRY_ON = frozenset({"install", "uninstall", "allow", "trust", "doctor", "retry"})


def keep_secret_rules() -> None:
    """Every review of this process and of the workers it starts keeps the compiled secret rules
    in landwatch's own state, not in kingfisher's cache, which a repository's build could write.
    The review knows nothing of the layout: it is told through the environment its workers get."""
    from landwatch import layout
    from landwatch.review.secrets.rule_cache import DIRECTORY_VARIABLE

    os.environ.setdefault(DIRECTORY_VARIABLE, str(layout.SECRET_RULES.path()))


def _command_asked(argv: Sequence[str]) -> str | None:
    """The command `argv` runs, when its first word names one; None for anything else (an
    option first, a mistake), which the whole parser answers."""
    first = argv[0] if argv else ""
    return first if first in COMMANDS else None


def main(argv: Sequence[str] | None = None) -> int:
    asked = _command_asked(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_program_name(sys.argv[0]), asked)
    args, extra = parser.parse_known_args(argv)
    if extra:
        # Said with the usage of the command they were given to (`show --jsn`), not the top's.
        usage.command_parser(parser, args.command).error(
            f"unrecognized arguments: {' '.join(extra)}"
        )
    if args.command is None:
        parser.print_help()
        return 0
    if args.command not in NEVER_REVIEW:
        keep_secret_rules()
    return front.answered(
        lambda: COMMANDS[args.command](args),
        carry_on=args.command in CARRY_ON,
        usage=usage.command_parser(parser, args.command).error,  # exit 2, as argparse's own
    )


if __name__ == "__main__":
    raise SystemExit(main())
