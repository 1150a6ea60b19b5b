"""How each command is used, for its `--help`: what it is for, and examples shown as written
after its options (argparse's epilog); the service's actions; the shells completion knows; the
options of the commands with many (the reviewer, `share`, `ci`) and the types they take.

Read by `landwatch.cli` as it builds the parser: nothing here runs a command.
"""

from __future__ import annotations

import argparse
import contextlib
import math
from pathlib import Path
from typing import Any, Protocol, cast

SHELLS = ("bash", "zsh", "fish")

SERVICE_ACTIONS = {
    "install": "set the reviewer up under your service manager and start it",
    "uninstall": "stop the reviewer and remove its service",
    "start": "start the reviewer (detached where there is no service manager)",
    "stop": "stop the reviewer",
    "status": "whether the reviewer runs, and how (exit 3 when it does not)",
}

QUICK_START = """\
quick start, in a repository:
  landwatch install   # the hooks here, the repository registered for review
  git commit ...      # as always: git is not slowed down, and nothing is said
  landwatch show      # the review of HEAD, once the reviewer has done it

each command's own examples: landwatch COMMAND --help
"""

# Each command's examples: what it does, then the command line that does it.
EXAMPLES: dict[str, tuple[tuple[str, str], ...]] = {
    "install": (
        ("the hooks into the repository you are in", "landwatch install"),
        (
            "into .git/hooks, to call from the hooks the project commits (docs/hooks.md)",
            "landwatch install --hooks-path .git/hooks",
        ),
    ),
    "uninstall": (
        ("this repository's hooks out, the ones they replaced back", "landwatch uninstall"),
        (
            "landwatch removed for you, everywhere (it lists what, then asks)",
            "landwatch uninstall --all",
        ),
        (
            "the same, keeping every repository's queue and reports",
            "landwatch uninstall --all --keep-data",
        ),
    ),
    "enqueue": (
        ("HEAD recorded by hand, as the hooks would have", "landwatch enqueue"),
        ("what topic adds on top of main, as one range", "landwatch enqueue --base main topic"),
    ),
    "reviewer": (
        ("drain everything registered, then exit", "landwatch reviewer --once"),
        ("run in the background, where there is no service manager", "landwatch reviewer --detach"),
        ("in the foreground, saying what it does", "landwatch reviewer --verbose"),
    ),
    "service": (
        ("under systemd or launchd: started now and at every login", "landwatch service install"),
        ("is it running, and under what? (exit 3 when it is not)", "landwatch service status"),
    ),
    "status": (
        ("every repository's queue, and what the reviewer is doing", "landwatch status"),
        ("the same for a script", "landwatch status --json"),
    ),
    "review": (
        ("HEAD reviewed now, as the reviewer would", "landwatch review"),
        ("everything topic adds on top of main", "landwatch review main..topic"),
        ("exit 1 on a warning too (CI, a pre-push hook)", "landwatch review --fail-level warning"),
        ("for an editor or code scanning", "landwatch review --sarif > landwatch.sarif"),
    ),
    "show": (
        ("the stored review of HEAD", "landwatch show"),
        ("of another commit", "landwatch show HEAD~2"),
        ("the reviews you have not seen yet, whole, the worst first", "landwatch show --unread"),
    ),
    "allow": (
        (
            "a finding, by its fingerprint (landwatch show --json lists them)",
            "landwatch allow 3f2a9c0e1d7b5a4c8e6f --reason false-positive",
        ),
        ("every finding of a commit", "landwatch allow HEAD --reason used-in-tests"),
    ),
    "rules": (
        ("every rule: its scope, its default and what it checks", "landwatch rules"),
        ("what this repository's history taught them", "landwatch rules --explain"),
    ),
    "trust": (
        ("see the linters committed here, then allow them", "landwatch trust"),
        ("what is trusted here, and what asks to be", "landwatch trust --show"),
        ("withdraw everything trusted here", "landwatch trust --revoke"),
    ),
    "retry": (
        ("a commit's items that were given up, started again", "landwatch retry 3f7868a"),
        ("every item given up in this repository", "landwatch retry --all"),
    ),
    "doctor": (
        ("every problem, each with what mends it", "landwatch doctor"),
        ("mend what needs no decision", "landwatch doctor --fix"),
    ),
    "forget": (
        (
            "a repository that is gone, by its git dir as status lists it",
            "landwatch forget ~/old/shop/.git",
        ),
    ),
    "share": (
        ("share with the branch's upstream remote (else origin)", "landwatch share"),
        ("with another remote", "landwatch share upstream"),
        ("stop sharing: the git config put back as it was", "landwatch share --off"),
    ),
    "ci": (
        ("HEAD's commits not on the default branch, as a CI job does", "landwatch ci"),
        (
            "a range, with SARIF for code scanning",
            "landwatch ci origin/main..HEAD --sarif landwatch.sarif",
        ),
        ("fail on warnings too", "landwatch ci --fail-level warning"),
    ),
    "prompt": (
        ("the one line's text for your shell's prompt, or nothing", "landwatch prompt"),
        ("in terminal colours (fish measures them itself)", "landwatch prompt --color"),
        ("fitted to 40 columns, beside the rest of a prompt's line", "landwatch prompt --width 40"),
    ),
    "pre-push": (
        (
            "the gate as the hook asks it, for what HEAD has that origin's main lacks",
            "git rev-parse HEAD @{u} |\n"
            "  xargs printf 'refs/heads/main %s refs/heads/main %s\\n' |\n"
            "  landwatch pre-push origin git@example.com:shop.git",
        ),
    ),
    "completion": (
        (
            "bash: into the directory bash-completion loads it from when first needed",
            "d=~/.local/share/bash-completion/completions\n"
            "mkdir -p $d && landwatch completion bash > $d/landwatch",
        ),
        (
            "zsh, with fpath=(~/.zfunc $fpath) in ~/.zshrc before compinit",
            "mkdir -p ~/.zfunc && landwatch completion zsh > ~/.zfunc/_landwatch",
        ),
        (
            "fish",
            "mkdir -p ~/.config/fish/completions\n"
            "landwatch completion fish > ~/.config/fish/completions/landwatch.fish",
        ),
    ),
}


def examples(command: str) -> str | None:
    """A command's examples as its --help shows them, or None."""
    if command not in EXAMPLES:
        return None
    shown = ["examples:"]
    for what, lines in EXAMPLES[command]:
        shown.extend(f"  {line}" for line in (f"# {what}", *lines.splitlines()))
    return "\n".join(shown)


def explain(parser: argparse.ArgumentParser) -> None:
    """Every command's `--help`: its one line of help as its description, its examples after
    its options, as written; the quick start after the list of commands."""
    parser.epilog = QUICK_START
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        said = {listed.dest: listed.help for listed in action._choices_actions}
        for name, command in action.choices.items():
            command.formatter_class = argparse.RawDescriptionHelpFormatter
            what = said.get(name)
            if command.description is None and what:
                command.description = f"{what[0].upper()}{what[1:]}."
            command.epilog = examples(name)


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
    """Seconds, 0 allowed (`--grace 0`: stop at once; `--wait 0`: wait for nothing)."""
    with contextlib.suppress(ValueError):
        if float(text) == 0:  # 0, 0.0, 00, -0: however it is written
            return 0.0
    return seconds(text)


def columns(text: str) -> int:
    """`landwatch prompt --width`'s value: a number of columns (text.asked_width)."""
    from landwatch.text import asked_width

    if not asked_width(text):
        raise argparse.ArgumentTypeError(f"not a number of columns: {text!r}")
    return int(text)


def count(text: str) -> int:
    """A whole number of 1 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: 1 or more is needed")
    return value


def reviewer_options(reviewer: argparse.ArgumentParser) -> None:
    """`landwatch reviewer`'s options, their defaults shown from the reviewer's Settings (only
    when its parser is made: the dataclass costs every other command its import)."""
    if isinstance(reviewer, Nowhere):
        return
    from landwatch.daemon.settings import Settings

    defaults = Settings()
    mode = reviewer.add_mutually_exclusive_group()
    mode.add_argument("--once", action="store_true", help="drain, exit (65: gave up, 75: left)")
    mode.add_argument("--detach", action="store_true", help="run in the background")
    reviewer.add_argument("--verbose", action="store_true", help="debug lines in the log too")
    reviewer.add_argument(
        "--lease",
        type=seconds,
        default=defaults.lease,
        metavar="SECONDS",
        help="how long a claim holds without renewal before anyone may take it over (%(default)s)",
    )
    reviewer.add_argument(
        "--max-tries",
        type=count,
        default=defaults.max_tries,
        metavar="N",
        help="failed tries of an item before it is given up (%(default)s)",
    )
    reviewer.add_argument(
        "--rescan",
        type=seconds,
        default=defaults.rescan,
        metavar="SECONDS",
        help="re-read every queue and reflog this often, file events or not (%(default)s)",
    )
    reviewer.add_argument(
        "--grace",
        type=grace_seconds,
        default=defaults.grace,
        metavar="SECONDS",
        help="on SIGTERM, how long a running job may finish before it is handed back (%(default)s)",
    )
    reviewer.add_argument(
        "--wait",
        type=grace_seconds,
        default=defaults.once_waits,
        metavar="SECONDS",
        help="with --once, how long in all it waits for items backing off or held (%(default)s)",
    )
    reviewer.add_argument("--no-watch", action="store_true", help="no file events: rescan only")
    reviewer.add_argument(
        "--handler",
        action="append",
        dest="handlers",
        default=[],
        metavar="KIND=MODULE:CLASS",
        help="work KIND's items with another handler (tests, experiments)",
    )
    # The name the option had first; kept so that scripts and service files keep working.
    reviewer.add_argument("--kind", action="append", dest="handlers", help=argparse.SUPPRESS)


FAIL_LEVELS = ("error", "warning", "info", "none")


class Commands(Protocol):
    """Where a section adds its commands' parsers: argparse's subparsers, or cli's, which make
    only the parser of the command that runs."""

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser: ...

    def wants(self, name: str) -> bool: ...


class Nowhere:
    """What a command's parser is when another command runs: every option given to it goes
    nowhere (a run builds its own command's parser, not all 25 of them)."""

    def __getattr__(self, name: str) -> Any:
        return self._take

    def _take(self, *args: object, **kwargs: object) -> Nowhere:
        return self


class Chosen:
    """The subparsers as the sections below see them: `command`'s parser made, every other one
    nowhere; all of them when `command` is None (help, completion, a command not known)."""

    def __init__(
        self, commands: argparse._SubParsersAction[argparse.ArgumentParser], command: str | None
    ) -> None:
        self.commands, self.command = commands, command

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        if self.wants(name):
            return self.commands.add_parser(name, **kwargs)
        return cast(argparse.ArgumentParser, Nowhere())

    def wants(self, name: str) -> bool:
        """Whether `name`'s parser is made (a section may skip what only it would need)."""
        return self.command is None or name == self.command


def team(commands: Commands) -> None:
    """`landwatch share` and `landwatch ci`: reviews shared with a team, and checked in CI."""
    share = commands.add_parser(
        "share", help="share this repository's reviews with your team through a remote"
    )
    share.add_argument(
        "remote",
        nargs="?",
        metavar="REMOTE",
        help="the remote (default: the branch's upstream remote, else origin)",
    )
    share.add_argument("--off", action="store_true", help="stop sharing: undo what share did")
    ci = commands.add_parser("ci", help="review every commit of a range, for CI and pre-push")
    ci.add_argument(
        "range",
        nargs="?",
        metavar="RANGE",
        help="A..B, or one commit (default: HEAD's commits not on the remote's default branch)",
    )
    ci.add_argument("--remote", metavar="NAME", help="whose notes (default: upstream, else origin)")
    ci.add_argument(
        "--fail-level",
        choices=FAIL_LEVELS,
        default="error",
        help="exit 1 when a finding in RANGE is at or above this (default: %(default)s)",
    )
    ci.add_argument("--json", type=Path, metavar="FILE", help="write every review as JSON to FILE")
    ci.add_argument("--sarif", type=Path, metavar="FILE", help="write one SARIF run to FILE")
    ci.add_argument(
        "--trust-notes",
        action="store_true",
        help="take your teammates' matching shared reviews instead of reviewing again",
    )
    ci.add_argument("--no-fetch", action="store_true", help="do not fetch the remote's notes")


def allowing(commands: Commands) -> None:
    """`landwatch allow`: a finding, or a commit's, let through with a reason."""
    if not commands.wants("allow"):
        return  # another command runs: the reasons' module is not imported for nothing
    from landwatch.review.allowed import REASONS

    allow = commands.add_parser(
        "allow", help="allow a finding, or every finding of a commit, with a reason"
    )
    allow.add_argument(
        "target",
        metavar="FINGERPRINT|COMMIT",
        help="a finding's fingerprint (landwatch show --json), or a commit",
    )
    allow.add_argument(
        "--reason",
        required=True,
        choices=REASONS,
        metavar="REASON",
        help=f"why it may go through: {', '.join(REASONS[:-1])} or {REASONS[-1]}",
    )


def output_options(parser: argparse.ArgumentParser, *more: tuple[str, str]) -> None:
    """--json and --sarif (and `more` forms) as one choice, `form` being text without one."""
    form = parser.add_mutually_exclusive_group()
    forms = (("json", "the report as JSON"), ("sarif", "SARIF 2.1.0, for editors and CI"), *more)
    for name, what in forms:
        form.add_argument(f"--{name}", dest="form", action="store_const", const=name, help=what)
    parser.set_defaults(form="text")


def command_parser(parser: argparse.ArgumentParser, command: str | None) -> argparse.ArgumentParser:
    """The parser of `command` (and of its action, `service start`), else the top one."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            chosen: argparse.ArgumentParser = action.choices[command]
            return chosen
    return parser
