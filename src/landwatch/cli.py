"""The front door: `landwatch ...` and `git landwatch ...` (argparse, commands return exit codes).

Command modules are imported when their command runs, so a hook's `landwatch notice` pays only
for what it uses.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from landwatch import __version__


def _program_name(argv0: str) -> str:
    # git runs `git-landwatch` for `git landwatch`; say it the way the person typed it.
    return "git landwatch" if os.path.basename(argv0) == "git-landwatch" else "landwatch"


def seconds(text: str) -> float:
    """A positive, finite number of seconds (argparse type: a bad one exits 2, saying why)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: a number of seconds above 0 is needed")
    return value


def grace_seconds(text: str) -> float:
    """Seconds, 0 allowed (stop at once)."""
    with contextlib.suppress(ValueError):
        if float(text) == 0:  # 0, 0.0, 00, -0: however it is written
            return 0.0
    return seconds(text)


def count(text: str) -> int:
    """A whole number of 1 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: 1 or more is needed")
    return value


def build_parser(prog: str = "landwatch") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Records every commit that lands and reviews it in the background.",
    )
    parser.add_argument("--version", action="version", version=f"landwatch {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    install = commands.add_parser("install", help="install the hooks into this repository")
    install.add_argument(
        "--hooks-path",
        type=Path,
        metavar="DIR",
        help="write the hooks into DIR on purpose (e.g. the directory core.hooksPath names)",
    )
    uninstall = commands.add_parser(
        "uninstall", help="remove the hooks from this repository, restore what was there"
    )
    uninstall.add_argument(
        "--hooks-path",
        type=Path,
        metavar="DIR",
        help="take the hooks from DIR (default: where install wrote them)",
    )
    uninstall.add_argument(
        "--all",
        action="store_true",
        help="remove landwatch for you: every repository's hooks, the service, your data",
    )
    uninstall.add_argument(
        "--keep-data", action="store_true", help="with --all: keep the reports and the queues"
    )
    uninstall.add_argument(
        "--yes", action="store_true", help="with --all: do it without asking (scripts)"
    )

    enqueue = commands.add_parser("enqueue", help="record a landed commit as a work item")
    enqueue.add_argument(
        "--kind",
        default="review",
        help="the kind of work (review, push, maintenance, or one a package adds)",
    )
    enqueue.add_argument("--base", metavar="OID", help="where the landed range starts")
    enqueue.add_argument(
        "rev", nargs="?", default="HEAD", metavar="REV", help="the commit (default: HEAD)"
    )

    reviewer = commands.add_parser(
        "reviewer", help="drain every registered repository (foreground; see --once, --detach)"
    )
    mode = reviewer.add_mutually_exclusive_group()
    mode.add_argument("--once", action="store_true", help="drain what is there, then exit")
    mode.add_argument("--detach", action="store_true", help="run in the background")
    reviewer.add_argument("--verbose", action="store_true", help="debug lines in the log too")
    reviewer.add_argument(
        "--lease",
        type=seconds,
        default=120.0,
        metavar="SECONDS",
        help="how long a claim holds without renewal before anyone may take it over (120)",
    )
    reviewer.add_argument(
        "--max-tries",
        type=count,
        default=5,
        metavar="N",
        help="failed tries of an item before it is given up (5)",
    )
    reviewer.add_argument(
        "--rescan",
        type=seconds,
        default=60.0,
        metavar="SECONDS",
        help="re-read every queue and reflog this often, file events or not (60)",
    )
    reviewer.add_argument(
        "--grace",
        type=grace_seconds,
        default=10.0,
        metavar="SECONDS",
        help="on SIGTERM, how long a running job may finish before it is handed back (10)",
    )
    reviewer.add_argument("--no-watch", action="store_true", help="no file events: rescan only")
    reviewer.add_argument(
        "--kind",
        action="append",
        default=[],
        metavar="KIND=MODULE:CLASS",
        help="run KIND's items with another handler (tests, experiments)",
    )

    service = commands.add_parser("service", help="the reviewer under your service manager")
    actions = service.add_subparsers(dest="action", metavar="ACTION", required=True)
    for action, what in (
        ("install", "set the reviewer up under your service manager and start it"),
        ("uninstall", "stop the reviewer and remove its service"),
        ("start", "start the reviewer (detached where there is no service manager)"),
        ("stop", "stop the reviewer"),
        ("status", "whether the reviewer runs, and how (exit 3 when it does not)"),
    ):
        actions.add_parser(action, help=what, description=what)

    status = commands.add_parser("status", help="queues of every registered repository")
    status.add_argument("--json", action="store_true", help="for scripts")

    review = commands.add_parser("review", help="review a commit or a range now (no queue)")
    review.add_argument(
        "revision",
        nargs="?",
        default="HEAD",
        metavar="REV | A..B",
        help="a commit, or what B adds on top of A (default: HEAD)",
    )
    review.add_argument(
        "--fail-level",
        choices=("error", "warning", "info", "none"),
        default="error",
        help="exit 1 when a finding is at or above this severity (default: error)",
    )
    review.add_argument("--no-linters", action="store_true", help="skip the project's linters")
    _output_options(review)

    show = commands.add_parser("show", help="the findings of a commit's review")
    show.add_argument(
        "revision", nargs="?", default=None, metavar="REV", help="the commit (default: HEAD)"
    )
    show.add_argument(
        "--unread",
        action="store_true",
        help="every review with findings not seen yet, newest first, one line each",
    )
    _output_options(show)

    rules = commands.add_parser("rules", help="every rule of the review")
    rules.add_argument("--markdown", action="store_true", help="as docs/rules.md")
    rules.add_argument(
        "--explain",
        action="store_true",
        help="what this repository's history taught the rules (subject length, conventions)",
    )

    trust = commands.add_parser(
        "trust", help="allow the linters committed at HEAD to run here (and see, withdraw)"
    )
    trust_mode = trust.add_mutually_exclusive_group()
    trust_mode.add_argument("--show", action="store_true", help="what is trusted here")
    trust_mode.add_argument(
        "--revoke", action="store_true", help="withdraw everything trusted in this repository"
    )

    retry = commands.add_parser(
        "retry", help="give items that were given up another start (tries from zero)"
    )
    retry.add_argument("revs", nargs="*", metavar="REV", help="the commits whose items to retry")
    retry.add_argument("--all", action="store_true", help="every item given up in this repository")

    doctor = commands.add_parser(
        "doctor", help="check that every landing is covered; say what mends what is not"
    )
    doctor.add_argument("--fix", action="store_true", help="mend what needs no decision")

    forget = commands.add_parser(
        "forget", help="drop a registered repository that is gone (or that you no longer want)"
    )
    forget.add_argument("path", type=Path, metavar="PATH", help="its git dir, as status lists it")

    notice = commands.add_parser("notice")  # the hooks' one line; not listed
    notice.add_argument("--git-dir", type=Path, required=True)
    # A hidden sub-command: argparse lists `help=SUPPRESS` ones as "==SUPPRESS==".
    commands._choices_actions = [a for a in commands._choices_actions if a.dest != "notice"]
    return parser


def _output_options(parser: argparse.ArgumentParser) -> None:
    form = parser.add_mutually_exclusive_group()
    form.add_argument("--json", action="store_true", help="the report as JSON")
    form.add_argument("--sarif", action="store_true", help="SARIF 2.1.0, for editors and CI")


def _print_reports(args: argparse.Namespace, reports: list[object], top: Path) -> None:
    from landwatch.review import output
    from landwatch.review.report import Report

    typed = [report for report in reports if isinstance(report, Report)]
    if args.json:
        print(output.as_json(typed))
    elif args.sarif:
        import json

        print(json.dumps(output.as_sarif(typed, top), indent=2))
    else:
        for report in typed:
            output.render(report)


def _review(args: argparse.Namespace) -> int:
    from landwatch import trust
    from landwatch.git import git
    from landwatch.review import engine
    from landwatch.review.findings import Severity
    from landwatch.review.linters import LinterPolicy

    cwd = Path.cwd()
    git_dir = Path(git("rev-parse", "--absolute-git-dir", cwd=cwd))
    if "..." in args.revision:
        print("landwatch: review a range as A..B (what B adds on top of A)", file=sys.stderr)
        return 1
    base, _, tip = (
        args.revision.rpartition("..") if ".." in args.revision else ("", "", args.revision)
    )
    # The configuration reviewed is the revision's own (a fetched branch's, say): its linters
    # run only if exactly they were trusted here.
    policy = (
        LinterPolicy(vet=lambda digest: "linters not run (--no-linters)")
        if args.no_linters
        else trust.policy(git_dir)
    )
    from landwatch import standards_store
    from landwatch.review.change import open_repository, resolve

    repo = open_repository(git_dir)
    learned = standards_store.current(git_dir, repo, resolve(repo, tip or "HEAD"))
    report = engine.review(git_dir, tip or "HEAD", base or None, linters=policy, standards=learned)
    _print_reports(args, [report], git_dir.parent)
    if args.fail_level == "none":
        return 0
    return 1 if report.worst() >= Severity[args.fail_level.upper()] else 0


def _show(args: argparse.Namespace) -> int:
    from landwatch import report_store
    from landwatch.git import git

    cwd = Path.cwd()
    git_dir = Path(git("rev-parse", "--absolute-git-dir", cwd=cwd))
    if args.unread:
        if args.revision is not None:
            print("landwatch: show either REV or --unread", file=sys.stderr)
            return 2
        return _show_unread(args, git_dir)
    revision = args.revision or "HEAD"
    oid = git(
        "rev-parse",
        "--verify",
        "-q",
        "--end-of-options",
        f"{revision}^{{commit}}",
        cwd=cwd,
        check=False,
    )
    if not oid:
        print(f"landwatch: no commit {revision!r} in this repository", file=sys.stderr)
        return 1
    found = report_store.read(git_dir, oid)
    if found is None and report_store.stored(git_dir, oid):
        print(
            f"landwatch: the stored review of {oid[:12]} cannot be read (corrupt); review it "
            f"again: landwatch review {oid[:12]}",
            file=sys.stderr,
        )
        return 1
    if found is None:
        print(
            f"landwatch: no review of {oid[:12]} yet (the reviewer has not reached it, or it "
            f"landed before landwatch was installed): landwatch review {oid[:12]}",
            file=sys.stderr,
        )
        return 1
    _print_reports(args, [found], git_dir.parent)
    report_store.mark_read(git_dir, oid)
    return 0


def _show_unread(args: argparse.Namespace, git_dir: Path) -> int:
    from landwatch import report_store
    from landwatch.git import git
    from landwatch.review import output

    reports = report_store.unread_reports(git_dir)
    if args.json:
        import json

        print(json.dumps([report.as_dict() for report in reports], indent=2))
    elif args.sarif:
        _print_reports(args, list(reports), git_dir.parent)
    elif not reports:
        print("landwatch: no unread reviews")
    for report in reports:
        if not (args.json or args.sarif):
            subject = git("log", "-1", "--format=%s", report.commit, "--", cwd=git_dir, check=False)
            output.render_line(report, subject)
        report_store.mark_read(git_dir, report.commit)
    return 0


def _rules(args: argparse.Namespace) -> int:
    from landwatch.review import rulesdoc

    if args.markdown:
        print(rulesdoc.markdown(), end="")
        return 0
    if args.explain:
        return _explain_standards()
    from rich.console import Console
    from rich.table import Table

    table = Table(box=None, pad_edge=False)
    table.add_column("id", no_wrap=True)
    table.add_column("name", no_wrap=True)
    table.add_column("on", no_wrap=True)
    table.add_column("default", no_wrap=True)
    table.add_column("checks", ratio=1)
    for rule_id, name, scope, default, checks in rulesdoc.listing():
        table.add_row(rule_id, name, scope, default, checks)
    Console(highlight=False).print(table)
    print("landwatch rules --markdown: each rule whole; docs/rules.md")
    return 0


def _explain_standards() -> int:
    from landwatch import standards_store
    from landwatch.git import git
    from landwatch.review.change import open_repository, resolve
    from landwatch.review.config import ConfigError, read_config
    from landwatch.review.engine import standards_overridden

    git_dir = Path(git("rev-parse", "--absolute-git-dir", cwd=Path.cwd()))
    repo = open_repository(git_dir)
    head = resolve(repo, "HEAD")
    learned = standards_store.current(git_dir, repo, head)
    for line in learned.explain():
        print(line)
    try:
        configured = read_config(head.tree, repo)
    except ConfigError:
        return 0
    overridden = standards_overridden(configured)
    if overridden:
        names = ", ".join(overridden)
        print(f"  the committed configuration ({configured.source}) sets {names}: it wins")
    return 0


def _install(args: argparse.Namespace) -> int:
    from landwatch import install

    return install.install(Path.cwd(), hooks_path=args.hooks_path)


def _uninstall(args: argparse.Namespace) -> int:
    if args.all:
        from landwatch import removal

        return removal.uninstall_everything(keep_data=args.keep_data, yes=args.yes)
    if args.keep_data or args.yes:
        print("landwatch: --keep-data and --yes go with --all", file=sys.stderr)
        return 2
    from landwatch import install

    return install.uninstall(Path.cwd(), hooks_path=args.hooks_path)


def _enqueue(args: argparse.Namespace) -> int:
    from landwatch import work_item
    from landwatch.git import git

    cwd = Path.cwd()
    oid = git("rev-parse", "--verify", "--end-of-options", f"{args.rev}^{{commit}}", cwd=cwd)
    base = None
    if args.base:
        base = git("rev-parse", "--verify", "--end-of-options", f"{args.base}^{{commit}}", cwd=cwd)
    git_dir = Path(git("rev-parse", "--absolute-git-dir", cwd=cwd))
    top = git("rev-parse", "--show-toplevel", cwd=cwd, check=False)
    try:
        item = work_item.WorkItem(args.kind, oid, git_dir, Path(top) if top else None, base)
    except ValueError as error:
        print(f"landwatch: {error}", file=sys.stderr)
        return 2
    result = work_item.enqueue(item)
    if result is work_item.Enqueued.KNOWN:
        given_up = [
            n for n in work_item.entries(git_dir, work_item.FAILED) if n.startswith(item.id)
        ]
        if given_up:
            print(
                f"landwatch: {item.id} was given up; to try it again: landwatch retry {args.rev}",
                file=sys.stderr,
            )
            return 1
    print(f"{result.value} {item.id}")
    return 0


def _reviewer(args: argparse.Namespace) -> int:
    from landwatch import kinds
    from landwatch.daemon import process
    from landwatch.daemon.loop import Daemon, Settings
    from landwatch.kinds.base import SystemClock

    overrides = {}
    for spec in args.kind:
        name, _, handler = spec.partition("=")
        overrides[name] = handler
    settings = Settings(
        lease=args.lease,
        max_tries=args.max_tries,
        rescan=args.rescan,
        sweep_every=args.rescan,  # the sweep is the rescan of the reflogs
        grace=args.grace,
        watch=not args.no_watch,
    )
    clock = SystemClock()
    # Errors before detaching: a handler that cannot be loaded is said on the terminal.
    handlers = kinds.handlers(overrides, max_tries=args.max_tries, clock=clock)

    def make() -> Daemon:
        return Daemon(handlers, settings, clock)

    if args.detach:
        return process.detach(
            lambda ready: process.serve(
                make,
                mode="detached",
                once=False,
                verbose=args.verbose,
                to_stderr=False,
                ready=ready,
            )
        )
    return process.serve(
        make,
        mode="once" if args.once else "foreground",
        once=args.once,
        verbose=args.verbose,
        to_stderr=True,
        ready=lambda message: None if message.startswith("ok") else print(message, file=sys.stderr),
    )


def _service(args: argparse.Namespace) -> int:
    from landwatch import service

    return service.command(args.action)


def _status(args: argparse.Namespace) -> int:
    from landwatch import status

    return status.show(as_json=args.json)


def _trust(args: argparse.Namespace) -> int:
    from landwatch import trust
    from landwatch.git import git

    git_dir = Path(git("rev-parse", "--absolute-git-dir", cwd=Path.cwd()))
    return trust.command(git_dir, show=args.show, revoke_all=args.revoke)


def _retry(args: argparse.Namespace) -> int:
    from landwatch import registry, work_item
    from landwatch.git import git

    cwd = Path.cwd()
    if not args.revs and not args.all:
        print("landwatch: name the commits to retry, or --all", file=sys.stderr)
        return 2
    oids = {
        git("rev-parse", "--verify", "--end-of-options", f"{rev}^{{commit}}", cwd=cwd)
        for rev in args.revs
    }
    common = Path(git("rev-parse", "--path-format=absolute", "--git-common-dir", cwd=cwd))
    retried = 0
    for git_dir in registry.worktree_git_dirs(common):
        for name in work_item.entries(git_dir, work_item.FAILED):
            if not args.all and work_item.id_of_entry(name).partition("-")[2] not in oids:
                continue
            if work_item.retry(git_dir, name) is not None:
                retried += 1
                print(f"landwatch: {work_item.id_of_entry(name)} is pending again, tries from 0")
    if not retried:
        print("landwatch: nothing given up to retry here", file=sys.stderr)
        return 1
    return 0


def _doctor(args: argparse.Namespace) -> int:
    from landwatch import doctor

    return doctor.command(Path.cwd(), fix=args.fix)


def _forget(args: argparse.Namespace) -> int:
    from landwatch import registry

    if not registry.unregister(args.path):
        print(f"landwatch: {args.path} is not registered", file=sys.stderr)
        return 1
    print(f"landwatch: forgot {args.path}")
    return 0


def _notice(args: argparse.Namespace) -> int:
    from landwatch import notice

    return notice.show(args.git_dir)


COMMANDS = {
    "install": _install,
    "uninstall": _uninstall,
    "enqueue": _enqueue,
    "notice": _notice,
    "reviewer": _reviewer,
    "service": _service,
    "status": _status,
    "review": _review,
    "show": _show,
    "rules": _rules,
    "trust": _trust,
    "doctor": _doctor,
    "retry": _retry,
    "forget": _forget,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser(_program_name(sys.argv[0]))
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    from landwatch.errors import UserError
    from landwatch.work_item import QueueError

    try:
        return COMMANDS[args.command](args)
    except BrokenPipeError:
        # `landwatch rules | head`: the reader has all it wanted; no message, and none at exit
        # either, when Python flushes stdout into the closed pipe.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1  # what rich's console answers to the same, for the output it writes
    except (UserError, QueueError, OSError) as error:
        message = str(error) if not isinstance(error, OSError) else f"{error.strerror}: {error}"
        print(f"landwatch: {message}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
