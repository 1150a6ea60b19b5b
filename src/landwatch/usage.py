"""How each command is used, for its `--help`: what it is for, and examples shown as written
after its options (argparse's epilog); the service's actions; the shells completion knows.

Text only, read by `landwatch.cli` as it builds the parser: nothing here runs a command.
"""

from __future__ import annotations

import argparse

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
            "into the directory the project's core.hooksPath names",
            "landwatch install --hooks-path .githooks",
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
    "prompt": (
        ("the one line's text for your shell's prompt, or nothing", "landwatch prompt"),
        ("in terminal colours (fish measures them itself)", "landwatch prompt --color"),
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
