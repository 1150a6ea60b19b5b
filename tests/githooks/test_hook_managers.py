"""landwatch beside the real hook managers, in every order: pre-commit, prek, lefthook, husky 9,
husky 4, git-lfs and a hand-written hook. Each tool's hooks append what they ran (and
post-rewrite's and pre-push's stdin, where the tool passes it) to a marker file; the queue says
what landwatch recorded, and a push to a bare remote whether the push gate ran."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from landwatch.commands import install, uninstall
from landwatch.daemon import sweep
from landwatch.daemon.settings import SWEEP_GRACE
from landwatch.hooks import HOOK_EVENTS, INSTALLED_EVENTS, MARKER
from support import GIT_LFS as LFS
from support import TOOLS
from support.queue import git, git_env
from support.repos import Repo, installed
from support.secret_examples import AWS_KEY_ID

BIN = Path(sys.executable).parent  # the test command installs pre-commit, prek, lefthook here
HUSKY = TOOLS / "npm" / "node_modules" / "husky" / "bin.js"
HUSKY4 = TOOLS / "npm" / "node_modules" / "husky4"  # npm's husky@4, installed under that name
LANDING = HOOK_EVENTS[:3]  # post-commit, post-merge, post-rewrite: what the tools configure
PUSH = "pre-push"
WITH_STDIN = ("post-rewrite", PUSH)  # the events git gives a list on stdin


def run(command: list[str], repo: Repo, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        cwd=repo.path,
        capture_output=True,
        text=True,
        timeout=120,
        env=git_env(PATH=f"{LFS}{os.pathsep}{os.environ['PATH']}", **env),
    )


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout + result.stderr


@dataclass
class Tool:
    """One hook manager: how it is set up to leave marks, installed and uninstalled."""

    name: str
    events: tuple[str, ...] = (*LANDING, PUSH)
    passes_stdin: bool = True  # its post-rewrite hooks see git's old -> new list
    gives_ours_stdin: bool = True  # so does landwatch's hook, where this tool runs it
    keeps_ours_on_reinstall: bool = True

    def missing(self) -> str | None:
        return None

    def configure(self, repo: Repo, marker: Path) -> None:
        raise NotImplementedError

    def install(self, repo: Repo) -> str:
        raise NotImplementedError

    def uninstall(self, repo: Repo) -> str:
        raise NotImplementedError

    def hooks_dir(self, repo: Repo) -> Path:
        return repo.git_dir / "hooks"

    def same(self, hook: bytes) -> bytes:
        """The hook as compared with the one this tool alone leaves: what it says of when and
        where it was made taken out."""
        return hook


MARKS = ".git/test-marks"  # hooks run at the top of the worktree: the same text in every repo


def mark(tool: str, event: str, marker: Path, stdin: bool) -> str:
    """A shell command that appends `tool event [stdin words]` to the marker."""
    words = ' $(tr "\\n" " ")' if stdin else ""
    return f'printf "%s\\n" "{tool} {event}{words}" >> {MARKS}'


class Hand(Tool):
    """Hooks a person wrote into .git/hooks themselves."""

    def configure(self, repo: Repo, marker: Path) -> None:
        for event in self.events:
            hook = repo.git_dir / "hooks" / event
            body = mark("hand", event, marker, event in WITH_STDIN)
            hook.write_text(f"#!/bin/sh\n{body}\n")
            hook.chmod(0o755)

    def install(self, repo: Repo) -> str:
        return ""

    def uninstall(self, repo: Repo) -> str:
        for event in self.events:
            (repo.git_dir / "hooks" / event).unlink(missing_ok=True)
        return ""


class PreCommit(Tool):
    """Its pre-push hooks get no stdin: it exports what it read there, which its mark spells
    as git's line (an update of a branch the remote has: the remote's oid is FROM_REF)."""

    def missing(self) -> str | None:
        return None if (BIN / self.name).exists() else f"{self.name} is not installed"

    def entry(self, event: str, marker: Path) -> str:
        if event != PUSH:
            return mark(self.name, event, marker, False)
        line = " ".join(
            f"$PRE_COMMIT_{name}"
            for name in ("LOCAL_BRANCH", "TO_REF", "REMOTE_BRANCH", "FROM_REF")
        )
        return f'printf "%s\\n" "{self.name} {PUSH} {line} " >> {MARKS}'

    def configure(self, repo: Repo, marker: Path) -> None:
        hooks = "".join(
            f"  - id: mark-{event}\n    name: mark {event}\n"
            f"    entry: sh -c '{self.entry(event, marker)}'\n"
            "    language: system\n    always_run: true\n    pass_filenames: false\n"
            f"    stages: [{event}]\n"
            for event in self.events
        )
        types = ", ".join(self.events)
        (repo.path / ".pre-commit-config.yaml").write_text(
            f"default_install_hook_types: [{types}]\nrepos:\n- repo: local\n  hooks:\n{hooks}"
        )

    def install(self, repo: Repo) -> str:
        return ok(run([str(BIN / self.name), "install"], repo))

    def uninstall(self, repo: Repo) -> str:
        types = [arg for event in self.events for arg in ("-t", event)]
        return ok(run([str(BIN / self.name), "uninstall", *types], repo))


class Lefthook(Tool):
    def missing(self) -> str | None:
        return None if (BIN / "lefthook").exists() else "lefthook is not installed"

    def configure(self, repo: Repo, marker: Path) -> None:
        config = "output: false\n"
        for event in self.events:
            stdin = event in WITH_STDIN
            config += f"{event}:\n  commands:\n    mark:\n"
            config += f"      run: '{mark('lefthook', event, marker, stdin)}'\n"
            if stdin:
                config += "      use_stdin: true\n"
        (repo.path / "lefthook.yml").write_text(config)

    def install(self, repo: Repo) -> str:
        return ok(run([str(BIN / "lefthook"), "install"], repo))

    def uninstall(self, repo: Repo) -> str:
        return ok(run([str(BIN / "lefthook"), "uninstall"], repo))


class Husky(Tool):
    def missing(self) -> str | None:
        if shutil.which("node") is None:
            return "node is not on this machine"
        return None if HUSKY.exists() else f"husky was not installed by the test command ({HUSKY})"

    def configure(self, repo: Repo, marker: Path) -> None:
        scripts = repo.path / ".husky"
        scripts.mkdir(exist_ok=True)
        for event in self.events:
            (scripts / event).write_text(mark("husky", event, marker, event in WITH_STDIN))

    def install(self, repo: Repo) -> str:
        return ok(run(["node", str(HUSKY)], repo))

    def uninstall(self, repo: Repo) -> str:
        # husky 9 has no uninstall: its README says to unset core.hooksPath and remove .husky/_.
        ok(run(["git", "config", "--unset", "core.hooksPath"], repo))
        shutil.rmtree(repo.path / ".husky" / "_")
        return ""

    def hooks_dir(self, repo: Repo) -> Path:
        return repo.path / ".husky" / "_"


class Husky4(Tool):
    """husky 4 writes one hook for every event into .git/hooks, which finds its event by its own
    name ($0) and its husky.sh beside it, and runs the command package.json gives that event
    (through `npx husky-run`, from node_modules), post-rewrite's and pre-push's stdin in
    HUSKY_GIT_STDIN. It takes any hook with `# husky` in it for its own, landwatch's among them:
    its install writes over them and its uninstall removes them."""

    def missing(self) -> str | None:
        if shutil.which("node") is None or shutil.which("npx") is None:
            return "node and npx are not on this machine"
        installer = HUSKY4 / "husky.js"
        return (
            None
            if installer.exists()
            else f"husky 4 was not installed by the test command ({installer})"
        )

    def configure(self, repo: Repo, marker: Path) -> None:
        hooks = {event: self.entry(event) for event in self.events}
        # skipCI: its install would do nothing where CI is set.
        config = {"name": "marks", "husky": {"skipCI": False, "hooks": hooks}}
        (repo.path / "package.json").write_text(json.dumps(config, indent=2) + "\n")
        (repo.path / "node_modules").symlink_to(HUSKY4.parent)
        (repo.path / ".gitignore").write_text("node_modules\n")

    def entry(self, event: str) -> str:
        stdin = ' $(printf "%s\\n" "$HUSKY_GIT_STDIN" | tr "\\n" " ")'
        words = stdin if event in WITH_STDIN else ""
        return f'printf "%s\\n" "{self.name} {event}{words}" >> {MARKS}'

    def husky(self, repo: Repo, action: str) -> str:
        # As npm runs its install script: from the project, saying which package manager it is.
        agent = {"INIT_CWD": str(repo.path), "npm_config_user_agent": "npm/10 node/v20"}
        said = ok(run(["node", str(HUSKY4 / "husky.js"), action], repo, **agent))
        assert "husky > Done" in said and "Failed" not in said, said
        return said

    def install(self, repo: Repo) -> str:
        return self.husky(repo, "install")

    def uninstall(self, repo: Repo) -> str:
        return self.husky(repo, "uninstall")

    def same(self, hook: bytes) -> bytes:
        made = (b"#   At: ", b"#   From: ")
        return b"".join(line for line in hook.splitlines(True) if not line.startswith(made))


class GitLfs(Tool):
    """git-lfs writes pre-push, post-commit and post-merge (and post-checkout); its runs show in
    git's trace as `git-lfs post-commit`, and its pre-push traces each line of its stdin."""

    def missing(self) -> str | None:
        return None if (LFS / "git-lfs").exists() else f"git-lfs was not unpacked into {LFS}"

    def configure(self, repo: Repo, marker: Path) -> None:
        pass

    def install(self, repo: Repo) -> str:
        return run(["git", "lfs", "install", "--local"], repo).stderr

    def uninstall(self, repo: Repo) -> str:
        return ok(run(["git", "lfs", "uninstall", "--local"], repo))


# pre-commit gives the hook it runs as .legacy an empty stdin (but for pre-push); prek the list.
PRE_COMMIT = PreCommit("pre-commit", passes_stdin=False, gives_ours_stdin=False)
PREK = PreCommit("prek", passes_stdin=False)
LEFTHOOK = Lefthook("lefthook", keeps_ours_on_reinstall=False)
LFS_TOOL = GitLfs("git-lfs", events=("post-commit", "post-merge", PUSH), passes_stdin=False)
TOOLS_UNDER_TEST = [
    Hand("hand"),
    PRE_COMMIT,
    PREK,
    LEFTHOOK,
    Husky("husky", keeps_ours_on_reinstall=False),
    Husky4("husky4", keeps_ours_on_reinstall=False),
    LFS_TOOL,
]


def landwatch_install(repo: Repo) -> str:
    out = io.StringIO()
    assert install.install(repo.path, out=out) == 0
    return out.getvalue()


def landwatch_uninstall(repo: Repo) -> str:
    out = io.StringIO()
    assert uninstall.uninstall(repo.path, out=out) == 0
    return out.getvalue()


def hooks_of(
    directory: Path, same: Callable[[bytes], bytes] = lambda hook: hook
) -> dict[str, tuple[bytes, int]]:
    """Every hook file there, its bytes (as `same` leaves them) and mode (git's samples aside)."""
    if not directory.is_dir():
        return {}
    return {
        path.name: (same(path.read_bytes()), path.stat().st_mode & 0o777)
        for path in sorted(directory.iterdir())
        if path.is_file() and not path.name.endswith(".sample")
    }


def ours_in(directory: Path) -> list[str]:
    return [name for name, (data, _) in hooks_of(directory).items() if MARKER.encode() in data]


def configured(tool: Tool, path: Path) -> None:
    """A new repository at `path` with the tool's configuration committed (nothing installed)."""
    repo = Repo(path)
    tool.configure(repo, path / MARKS)
    repo.git("add", "-A")
    repo.git("commit", "-q", "--allow-empty", "-m", "the tool's configuration", LANDWATCH="0")


class Scene:
    """A repository with the tool configured, and what its hooks and landwatch did."""

    def __init__(self, tool: Tool, path: Path) -> None:
        self.tool = tool
        self.repo = Repo.existing(path)
        self.marker = path / MARKS
        self.trace = path.parent / f"{path.name}.trace"
        self.yours = False  # a post-commit hook of the person's came first: it runs, not the tool's
        self.installed = False  # landwatch is (its hooks may have been written over since)

    def step(self, what: str) -> str:
        tool = self.tool
        steps: dict[str, Callable[[], str]] = {
            "yours": self.write_yours,
            "tool": lambda: tool.install(self.repo),
            "tool-uninstall": lambda: tool.uninstall(self.repo),
            "landwatch": lambda: landwatch_install(self.repo),
            "landwatch-uninstall": lambda: landwatch_uninstall(self.repo),
        }
        self.installed = {"landwatch": True, "landwatch-uninstall": False}.get(what, self.installed)
        return steps[what]()

    def write_yours(self) -> str:
        """A post-commit hook of the person's own, there before any tool's."""
        hook = self.tool.hooks_dir(self.repo) / "post-commit"
        hook.write_text(f"#!/bin/sh\n{mark('yours', 'post-commit', self.marker, False)}\n")
        hook.chmod(0o755)
        self.yours = True
        return ""

    def marks(self) -> list[str]:
        """What the tool's hooks did since the last look, of the events landwatch hooks."""
        if isinstance(self.tool, GitLfs):
            lines = self.trace.read_text().splitlines() if self.trace.exists() else []
            self.trace.unlink(missing_ok=True)
            runs: list[str] = []
            for line in lines:
                if "exec: git-lfs " in line:
                    runs.append(f"git-lfs {line.split('exec: git-lfs ', 1)[1].split()[0]}")
                elif "trace git-lfs: pre-push: " in line:  # a line of its stdin
                    runs[-1] += f" {line.split('trace git-lfs: pre-push: ', 1)[1]} "
            return [run for run in runs if run.split()[1] in INSTALLED_EVENTS]
        found = self.marker.read_text().splitlines() if self.marker.exists() else []
        self.marker.unlink(missing_ok=True)
        return found

    def git(self, *args: str) -> str:
        """git, as the person runs it (traced for git-lfs); what it printed on stderr."""
        result = run(["git", *args], self.repo, GIT_TRACE=str(self.trace))
        assert result.returncode == 0, result.stderr
        return "\n".join(line for line in result.stderr.splitlines() if "trace:" not in line)

    def quietly(self, *args: str) -> None:
        """git with no hook of anybody's leaving a mark (setting the scene up)."""
        quiet = {"LANDWATCH": "0", "LEFTHOOK": "0", "HUSKY": "0", "HUSKY_SKIP_HOOKS": "1"}
        ok(run(["git", *args], self.repo, **quiet))
        self.marks()

    def remote(self) -> Path:
        """A bare remote holding main as it is now (pushed with no hook run), made once."""
        bare = self.repo.path.parent / f"{self.repo.path.name}.remote.git"
        if not bare.exists():
            git("init", "-q", "--bare", str(bare), cwd=self.repo.path.parent)
            self.quietly("remote", "add", "origin", str(bare))
            self.quietly("push", "-q", "--no-verify", "origin", "main")
        return bare

    def pushes(self, *, landwatch: bool, tool: bool) -> None:
        """A push of a commit holding an AWS key, then of a clean one: the tool's pre-push ran
        once at each with git's stdin line; landwatch's gate refused the first (once, the
        remote unchanged) and let the second go, or, where it does not run, let both go."""
        remote, name = self.remote(), self.tool.name
        for secret in (True, False):
            held = git("rev-parse", "main", cwd=remote)
            text = f'KEY = "{AWS_KEY_ID}"\n' if secret else f"# {time.monotonic_ns()}\n"
            (self.repo.path / "keys.py").write_text(text)
            self.quietly("add", "keys.py")
            self.quietly("commit", "-q", "-m", "a key" if secret else "no key")
            sent = self.repo.head()
            pushed = run(
                ["git", "push", "-q", "origin", "main"], self.repo, GIT_TRACE=str(self.trace)
            )
            said = "\n".join(line for line in pushed.stderr.splitlines() if "trace:" not in line)
            line = f"refs/heads/main {sent} refs/heads/main {held} "
            assert self.marks() == ([f"{name} {PUSH} {line}"] if tool else []), said
            if secret and landwatch:
                assert pushed.returncode != 0, said
                assert said.count("landwatch: push refused: 1 finding in 1 commit") == 1, said
                assert git("rev-parse", "main", cwd=remote) == held
                self.quietly("reset", "-q", "--hard", held)
            else:
                assert pushed.returncode == 0, said
                assert git("rev-parse", "main", cwd=remote) == sent
                assert complaints(said + pushed.stdout) == [], said + pushed.stdout

    def lands(self, *, landwatch: bool, tool: bool, only_a_commit: bool = False) -> None:
        """A commit, a rebase and a merge: each tool's hooks ran once per event with git's
        arguments and stdin, landwatch recorded each landing once, nobody complained. Where a
        hook of the person's came first, it runs at each commit, and ours in front of it stays
        there while landwatch is installed: no tool writes over it."""
        repo, name, events = self.repo, self.tool.name, self.tool.events
        repo.clear()
        self.marks()
        said = []
        (repo.path / "one.txt").write_text(f"{time.monotonic_ns()}\n")
        repo.git("add", "one.txt")
        said.append(self.git("commit", "-q", "-m", "one"))
        commit = repo.head()
        at_commit = ["yours post-commit"] if self.yours else [f"{name} post-commit"] if tool else []
        assert self.marks() == at_commit
        ours_stays = self.yours and self.installed
        assert (commit in {oid for oid, _ in repo.pending()}) is (landwatch or ours_stays)
        assert complaints(said[0]) == [], said[0]
        if only_a_commit:
            return
        # A rebase of two commits onto a moved main: post-commit at each pick, then post-rewrite.
        topic = f"topic-{commit[:7]}"
        self.quietly("switch", "-q", "-c", topic)
        for n in range(2):
            (repo.path / f"t{n}.txt").write_text(f"{commit} {n}\n")
            self.quietly("add", f"t{n}.txt")
            self.quietly("commit", "-q", "-m", f"topic {n}")
        self.quietly("switch", "-q", "main")
        (repo.path / "main.txt").write_text(f"{commit}\n")
        self.quietly("add", "main.txt")
        self.quietly("commit", "-q", "-m", "main moves")
        self.quietly("switch", "-q", topic)
        old = repo.git("rev-list", "--reverse", "main..HEAD").split()
        said.append(self.git("rebase", "-q", "main"))
        new = repo.git("rev-list", "--reverse", "main..HEAD").split()
        expected = at_commit * 2
        if tool and "post-rewrite" in events:
            pairs = "".join(f"{o} {n} " for o, n in zip(old, new, strict=True))
            expected.append(
                f"{name} post-rewrite {pairs}" if self.tool.passes_stdin else f"{name} post-rewrite"
            )
        assert self.marks() == expected
        self.quietly("switch", "-q", "main")
        said.append(self.git("merge", "-q", "--no-ff", "--no-edit", topic))
        merge = repo.head()
        assert self.marks() == ([f"{name} post-merge"] if tool and "post-merge" in events else [])
        recorded = {oid for oid, _ in repo.pending()}
        if landwatch:
            assert commit in recorded and merge in recorded
            if self.tool.gives_ours_stdin or not tool or "post-rewrite" not in events:
                assert set(new) <= recorded  # post-rewrite's list reached landwatch's hook
            else:
                # pre-commit gives its legacy hook no stdin: the sweep records the rebase.
                assert not set(new) & recorded
                sweep.sweep(repo.git_dir, now=time.time() + SWEEP_GRACE + 1)
                assert set(new) <= {oid for oid, _ in repo.pending()}
        else:
            assert not recorded & {merge, *new}
        for text in said:
            assert complaints(text) == [], text


def complaints(text: str) -> list[str]:
    """The lines of a tool's (or landwatch's) output that are about something being wrong."""
    words = ("bug", "landwatch", "legacy", "migration", "already exists", "error", "warn", "fail")
    return [line for line in text.splitlines() if any(w in line.lower() for w in words)]


class Scenes:
    """Scenes of this module's tests, each a copy (its .git whole, as a clone would have it) of
    one configured repository per tool made once; and what each tool's own steps leave with
    landwatch left out, worked out once, as the orders that differ only in where landwatch came
    share it."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.alone: dict[tuple[str, tuple[str, ...]], dict[str, tuple[bytes, int]]] = {}

    def new(self, tool: Tool, path: Path) -> Scene:
        made = self.root / tool.name
        if not made.exists():
            configured(tool, made)
        shutil.copytree(made, path, symlinks=True)
        return Scene(tool, path)

    def twin(self, tool: Tool, tmp_path: Path, steps: list[str]) -> dict[str, tuple[bytes, int]]:
        """The hooks `steps` leave with landwatch left out: what that tool alone would have."""
        own = tuple(what for what in steps if not what.startswith("landwatch"))
        if (tool.name, own) not in self.alone:
            alone = self.new(tool, tmp_path / "alone")
            for what in own:
                alone.step(what)
            self.alone[tool.name, own] = hooks_of(tool.hooks_dir(alone.repo), tool.same)
        return self.alone[tool.name, own]


@pytest.fixture(scope="module")
def scenes(tmp_path_factory: pytest.TempPathFactory) -> Scenes:
    return Scenes(tmp_path_factory.mktemp("configured"))


ORDERS = {
    "tool-first": ["tool", "landwatch"],
    "landwatch-first": ["landwatch", "tool"],
    "tool-again": ["tool", "landwatch", "tool"],
    "landwatch-again": ["tool", "landwatch", "tool", "landwatch"],
    "tool-uninstalled": ["tool", "landwatch", "tool-uninstall"],
    # An audit's: a hook of yours, the tool (husky 4 skips it), landwatch, the tool again.
    "yours-first": ["yours", "tool", "landwatch", "tool"],
}

# (tool, order) -> which side's hooks stop running until `landwatch doctor --fix`, and why.
NEEDS_DOCTOR = {
    ("lefthook", "landwatch-first"): "landwatch",  # lefthook moves ours to .old, never runs it
    ("lefthook", "tool-again"): "landwatch",  # lefthook's reinstall replaces ours
    ("lefthook", "tool-uninstalled"): "landwatch",  # lefthook's uninstall removes ours
    ("husky", "landwatch-first"): "landwatch",  # git runs .husky/_, not .git/hooks, from then
    ("husky", "tool-again"): "landwatch",  # husky regenerates .husky/_
    ("husky", "tool-uninstalled"): "landwatch",  # .husky/_ and ours in it are gone
    ("husky4", "landwatch-first"): "landwatch",  # husky 4 takes ours for its own, writes over it
    ("husky4", "tool-again"): "landwatch",  # so does its reinstall (npm install runs it)
    ("husky4", "tool-uninstalled"): "landwatch",  # its uninstall removes ours too
    ("husky4", "yours-first"): "landwatch",  # as tool-again, where its own hooks were kept
    ("git-lfs", "landwatch-first"): "tool",  # git-lfs writes no hook over ours
    ("git-lfs", "tool-uninstalled"): "tool-left",  # ours would go on running git-lfs's
}


CASES = [
    (tool, order)
    for tool in TOOLS_UNDER_TEST
    for order in ORDERS
    if (not isinstance(tool, Hand) or order == "tool-first")  # written once, before landwatch
    and (order != "yours-first" or tool.name == "husky4")  # the tool that skips a hook of yours
]


@pytest.mark.parametrize(
    ("tool", "order"), CASES, ids=[f"{tool.name}-{order}" for tool, order in CASES]
)
def test_every_order_leaves_both_tools_running(
    tool: Tool, order: str, tmp_path: Path, scenes: Scenes
) -> None:
    reason = tool.missing()
    if reason is not None:
        pytest.skip(reason)
    steps = ORDERS[order]
    scene = scenes.new(tool, tmp_path / "repo")
    said = [scene.step(what) for what in steps]
    if steps[-1] == "tool" and tool.name == "git-lfs" and order != "landwatch-first":
        # git-lfs writes a hook only where none is, or its own exact text, and stops at the first
        # it may not (pre-push, its first): it says so, and landwatch goes on running its hooks.
        assert "Hook already exists: pre-push" in said[-1]
    tool_runs = steps[-1] != "tool-uninstall"
    broken = NEEDS_DOCTOR.get((tool.name, order))
    # Until the doctor: landwatch's hooks replaced, the tool's not written, or the tool's hooks
    # still run by landwatch's though it was uninstalled.
    before_doctor = {
        "landwatch": broken != "landwatch",
        "tool": {"tool": False, "tool-left": True}.get(broken or "", tool_runs),
    }
    scene.lands(**before_doctor)
    scene.pushes(**before_doctor)
    if broken is not None:
        # The queue stays for the checks: the reviewer doctor would start is a stand-in.
        quiet = {"LANDWATCH_TEST_SCHEDULER": "systemd:true"}
        doctor = run([sys.executable, "-m", "landwatch", "doctor"], scene.repo, **quiet)
        assert doctor.returncode == 1 and "landwatch install" in doctor.stdout, doctor.stdout
        if broken == "landwatch" and PUSH in tool.events:
            # The tool took our pre-push with the landing hooks: no push is gated until mended.
            status = run([sys.executable, "-m", "landwatch", "status"], scene.repo)
            for told in (doctor.stdout, " ".join(status.stdout.split())):
                assert "the push gate does not run (" in told, told
        fixed = run([sys.executable, "-m", "landwatch", "doctor", "--fix"], scene.repo, **quiet)
        assert "could not mend" not in fixed.stdout, fixed.stdout
        scene.lands(landwatch=True, tool=tool_runs)
        scene.pushes(landwatch=True, tool=tool_runs)
    assert len(ours_in(tool.hooks_dir(scene.repo))) <= len(INSTALLED_EVENTS)
    # landwatch's uninstall leaves exactly what the tool alone would have.
    scene.step("landwatch-uninstall")
    assert hooks_of(tool.hooks_dir(scene.repo), tool.same) == scenes.twin(tool, tmp_path, steps)
    assert ours_in(scene.repo.git_dir / "hooks") == []
    scene.lands(landwatch=False, tool=tool_runs, only_a_commit=True)
    scene.pushes(landwatch=False, tool=tool_runs)


MANAGERS = [tool for tool in TOOLS_UNDER_TEST if not isinstance(tool, Hand)]


@pytest.mark.parametrize("tool", MANAGERS, ids=[tool.name for tool in MANAGERS])
def test_a_tool_uninstalled_then_landwatch_leaves_what_the_tool_alone_would(
    tool: Tool, tmp_path: Path, scenes: Scenes
) -> None:
    """An audit: husky 4 (git-lfs) uninstalled while landwatch's hooks ran it, then `landwatch
    uninstall` with no `doctor --fix` between: husky 4's templates were put back in the slots,
    without the husky.sh they load (git-lfs's, which fail once git-lfs is gone): every push
    failed. What the tool alone leaves after its own uninstall is left, and git works."""
    reason = tool.missing()
    if reason is not None:
        pytest.skip(reason)
    steps = ["tool", "landwatch", "tool-uninstall"]
    scene = scenes.new(tool, tmp_path / "repo")
    for what in [*steps, "landwatch-uninstall"]:
        scene.step(what)
    assert hooks_of(tool.hooks_dir(scene.repo), tool.same) == scenes.twin(tool, tmp_path, steps)
    scene.lands(landwatch=False, tool=False, only_a_commit=True)
    scene.pushes(landwatch=False, tool=False)


def test_an_older_landwatch_over_pre_commit_mends_itself(tmp_path: Path, scenes: Scenes) -> None:
    """Before this integration landwatch took pre-commit's slot and kept its script aside;
    pre-commit's reinstall then ran that copy from landwatch's .legacy (its "bug:" line)."""
    reason = PRE_COMMIT.missing()
    if reason is not None:
        pytest.skip(reason)
    scene = scenes.new(PRE_COMMIT, tmp_path / "repo")
    scene.step("tool")
    landwatch_install(scene.repo)
    hooks = scene.repo.git_dir / "hooks"
    for event in LANDING:  # as the older landwatch arranged them (it had no pre-push)
        ours = (hooks / f"{event}.legacy").read_bytes()
        (hooks / event).replace(hooks / f"{event}.before-landwatch")
        (hooks / f"{event}.legacy").replace(hooks / event)
        assert (hooks / event).read_bytes() == ours
    scene.step("tool")  # pre-commit's reinstall moves ours to .legacy, its copy stays aside
    assert all((hooks / f"{event}.before-landwatch").exists() for event in LANDING)
    scene.lands(landwatch=True, tool=True, only_a_commit=True)  # no "bug:", each ran once
    said = landwatch_install(scene.repo)
    assert not any((hooks / f"{event}.before-landwatch").exists() for event in LANDING)
    assert "pre-commit runs landwatch's hook as post-commit.legacy" in said
    scene.lands(landwatch=True, tool=True)
    landwatch_uninstall(scene.repo)
    assert hooks_of(hooks) == scenes.twin(PRE_COMMIT, tmp_path, ["tool"])


def sends_lfs_objects(repo: Repo) -> str:
    """A large file tracked by git-lfs, committed and pushed to a new bare remote, which gets
    its object (the pre-push hook of git-lfs's ran, by whichever hook): what the push said."""
    remote = repo.path.parent / f"{repo.path.name}.lfs.git"
    git("init", "-q", "--bare", "-b", "main", str(remote), cwd=repo.path.parent)
    repo.git("remote", "add", "lfs", str(remote))
    ok(run(["git", "lfs", "track", "*.bin"], repo))
    (repo.path / "big.bin").write_bytes(b"\x00large file\x01" * 100)
    ok(run(["git", "add", ".gitattributes", "big.bin"], repo))
    ok(run(["git", "commit", "-q", "-m", "a large file"], repo))
    pushed = ok(run(["git", "push", "-q", "lfs", "main"], repo))
    stored = [path for path in (remote / "lfs" / "objects").rglob("*") if path.is_file()]
    assert len(stored) == 1 and stored[0].read_bytes() == b"\x00large file\x01" * 100, pushed
    return pushed


def test_git_lfs_set_up_after_the_gate_still_sends_its_objects(tmp_path: Path) -> None:
    """git-lfs writes no hook once landwatch's pre-push is there (it stops at the first it may
    not write): the gate sends its objects as git-lfs's own hook would, so the remote never
    gets pointers without the files, doctor or not."""
    reason = LFS_TOOL.missing()
    if reason is not None:
        pytest.skip(reason)
    repo = installed(tmp_path / "repo")
    said = run(["git", "lfs", "install", "--local"], repo)
    assert "Hook already exists: pre-push" in said.stdout + said.stderr
    assert "landwatch" not in sends_lfs_objects(repo)


def with_first(tool: Tool, path: Path, scenes: Scenes, first: str) -> Scene:
    """A scene of `tool` configured, with git-lfs installed or a post-commit of yours written
    (`first`), before anything else."""
    scene = scenes.new(tool, path)
    if first == "git-lfs":
        ok(run(["git", "lfs", "install", "--local"], scene.repo))
    else:
        scene.write_yours()
    return scene


# Another manager over git-lfs's hooks, landwatch installed before or after it.
UNDER = {
    "pre-commit-landwatch-first": (PRE_COMMIT, ["landwatch", "tool"]),
    "pre-commit-tool-first": (PRE_COMMIT, ["tool", "landwatch"]),
    "prek-landwatch-first": (PREK, ["landwatch", "tool"]),
    "lefthook-landwatch-first": (LEFTHOOK, ["landwatch", "tool"]),
}


@pytest.mark.parametrize("case", UNDER)
def test_git_lfs_s_hooks_under_another_manager_outlive_landwatch(
    case: str, tmp_path: Path, scenes: Scenes
) -> None:
    """git-lfs, then pre-commit (prek, lefthook), landwatch before or after it, then `landwatch
    uninstall`: git-lfs's hooks are where that tool alone keeps them (`.legacy`, `.old`), and a
    push sends the LFS objects. Before, uninstall deleted them as stale copies of a generated
    hook: every push then sent pointers without their files (an audit)."""
    tool, steps = UNDER[case]
    for reason in (tool.missing(), LFS_TOOL.missing()):
        if reason is not None:
            pytest.skip(reason)
    scene = with_first(tool, tmp_path / "repo", scenes, "git-lfs")
    for what in [*steps, "landwatch-uninstall"]:
        scene.step(what)
    alone = with_first(tool, tmp_path / "alone", scenes, "git-lfs")
    alone.step("tool")
    hooks = hooks_of(tool.hooks_dir(scene.repo), tool.same)
    assert hooks == hooks_of(tool.hooks_dir(alone.repo), tool.same)
    assert any(name.endswith((".legacy", ".old")) for name in hooks)
    sends_lfs_objects(scene.repo)


@pytest.mark.parametrize("first", ["yours", "git-lfs"])
def test_lefthook_over_landwatch_running_another_hook_is_mended_by_the_doctor(
    first: str, tmp_path: Path, scenes: Scenes
) -> None:
    """A hook landwatch runs (yours, git-lfs's), then `lefthook install`, which moves
    landwatch's hooks to `.old` and never runs them: `doctor --fix` puts landwatch's back in
    front of lefthook's, the hook it ran at `.old`, where lefthook alone keeps it; the push
    gate runs, and uninstall leaves what lefthook alone would have. Before, --fix refused every
    event ("move one of them away"), and the push gate stayed off for good (an audit)."""
    for reason in (LEFTHOOK.missing(), LFS_TOOL.missing()):
        if reason is not None:
            pytest.skip(reason)
    scene = with_first(LEFTHOOK, tmp_path / "repo", scenes, first)
    scene.yours = False  # at `.old` from lefthook's install on, which lefthook never runs
    scene.step("landwatch")
    scene.step("tool")
    quiet = {"LANDWATCH_TEST_SCHEDULER": "systemd:true"}
    fixed = run([sys.executable, "-m", "landwatch", "doctor", "--fix"], scene.repo, **quiet)
    assert "could not mend" not in fixed.stdout, fixed.stdout
    assert "the push gate does not run" not in fixed.stdout, fixed.stdout
    scene.lands(landwatch=True, tool=True)
    scene.pushes(landwatch=True, tool=True)
    scene.step("landwatch-uninstall")
    alone = with_first(LEFTHOOK, tmp_path / "alone", scenes, first)
    alone.step("tool")
    assert hooks_of(LEFTHOOK.hooks_dir(scene.repo)) == hooks_of(LEFTHOOK.hooks_dir(alone.repo))
