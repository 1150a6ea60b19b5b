"""A team on one machine: developers with homes of their own (git config, registry, reviewer,
trust), each with a clone of one bare remote, running real git, landwatch and reviewers as they
would; and a range of commits with their shared reviews built with git's plumbing."""

from __future__ import annotations

import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from landwatch import standards_store
from landwatch.review import notes, provenance
from landwatch.review.change import open_repository, resolve
from landwatch.review.linters import LinterPolicy
from landwatch.review.report import Report
from support.daemon import reviewer_env

XDG = {
    "XDG_CONFIG_HOME": ".config",
    "XDG_DATA_HOME": ".local/share",
    "XDG_STATE_HOME": ".local/state",
    "XDG_CACHE_HOME": ".cache",
    "XDG_RUNTIME_DIR": "run",
}


@dataclass
class Developer:
    name: str
    home: Path
    clone: Path

    @property
    def email(self) -> str:
        return f"{self.name}@team.example"

    def env(self, **extra: str) -> dict[str, str]:
        """This developer's environment: their home and directories, git's identity theirs."""
        env = {k: v for k, v in reviewer_env().items() if not k.startswith("GIT_")}
        env.update(HOME=str(self.home), GIT_CONFIG_NOSYSTEM="1")
        env.update({name: str(self.home / sub) for name, sub in XDG.items()})
        env.pop("LANDWATCH", None)
        return {**env, **extra}

    def run(
        self, *command: str, check: bool = True, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            list(command),
            cwd=self.clone,
            env=self.env(**(env or {})),
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
            timeout=600,
        )
        if check:
            assert result.returncode == 0, f"{command}: {result.stdout}{result.stderr}"
        return result

    def git(self, *args: str) -> str:
        return self.run("git", *args).stdout.strip()

    def landwatch(self, *args: str, check: bool = False) -> subprocess.CompletedProcess[str]:
        return self.run(
            sys.executable, "-m", "landwatch", *args, check=check, env={"COLUMNS": "200"}
        )

    def reviewer(self, *args: str) -> subprocess.CompletedProcess[str]:
        """This developer's reviewer, drained to its end."""
        return self.landwatch("reviewer", "--once", *args, check=True)

    def commit(self, message: str, files: dict[str, str]) -> str:
        for name, content in files.items():
            path = self.clone / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content)
        self.git("add", "--", *files)
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")

    @property
    def git_dir(self) -> Path:
        return self.clone / ".git"


def bare_remote(path: Path) -> Path:
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True)
    return path


def seeded_remote(tmp_path: Path) -> Path:
    """A bare remote whose main holds one empty commit, for the team's clones to start from."""
    remote = bare_remote(tmp_path / "remote.git")
    seed = tmp_path / "seed"
    subprocess.run(["git", "init", "-q", "-b", "main", str(seed)], check=True)
    for args in (
        ["commit", "-q", "--allow-empty", "-m", "Start"],
        ["push", "-q", str(remote), "main"],
    ):
        subprocess.run(
            ["git", "-c", "user.name=s", "-c", "user.email=s@x", *args], cwd=seed, check=True
        )
    return remote


def developer(root: Path, name: str, remote: Path, *, install: bool = True) -> Developer:
    """A developer with a home of their own and a clone of `remote`, landwatch installed."""
    home = root / f"home-{name}"
    home.mkdir(parents=True)
    (home / ".gitconfig").write_text(
        f"[user]\n\tname = {name}\n\temail = {name}@team.example\n"
        "[landwatch]\n\tmaintenance = false\n\tsandbox = false\n"
    )
    person = Developer(name, home, root / name)
    subprocess.run(
        ["git", "clone", "-q", str(remote), str(person.clone)],
        env=person.env(),
        check=True,
        capture_output=True,
    )
    if install:
        person.landwatch("install", check=True)
    return person


def remote_notes(remote: Path, commit: str) -> list[str]:
    """The lines of the note of `commit` the remote holds (none: [])."""
    shown = subprocess.run(
        ["git", f"--git-dir={remote}", "notes", f"--ref={notes.NOTES_REF}", "show", commit],
        capture_output=True,
        text=True,
    )
    return shown.stdout.splitlines() if shown.returncode == 0 else []


def push_notes(person: Developer) -> None:
    """The developer's branch and notes pushed by hand, the remote's notes merged in first (as
    a teammate with their own tools might): every note goes, of local-only commits too."""
    person.git("fetch", "-q", "origin")
    person.git(
        "notes",
        "--ref=landwatch",
        "merge",
        "-q",
        "--strategy=cat_sort_uniq",
        "refs/notes/remotes/origin/landwatch",
    )
    # Their own tools: landwatch's push gate (which would refuse a forger's key) not among them.
    person.git("push", "-q", "--no-verify", "origin", "HEAD", "refs/notes/landwatch")


def fast_import(person: Developer, stream: list[str]) -> None:
    """`stream`'s commands run by git fast-import in the developer's clone."""
    imported = subprocess.run(
        ["git", "fast-import", "--quiet", "--force"],
        cwd=person.clone,
        env=person.env(),
        input="\n".join(stream) + "\n",
        text=True,
        capture_output=True,
    )
    assert imported.returncode == 0, imported.stderr


def build_commits(person: Developer, count: int, *, start: int = 0) -> list[str]:
    """`count` commits on the developer's branch, one new text file each, written with git
    fast-import (no hooks: plumbing); their ids, oldest first."""
    head = person.git("rev-parse", "HEAD")
    branch = person.git("symbolic-ref", "HEAD")
    stream = [f"reset {branch}", f"from {head}"]
    for number in range(start, start + count):
        message = f"Add note {number}\n".encode()
        content = f"note {number}\n".encode()
        stream += [
            f"commit {branch}",
            f"mark :{number + 1}",
            f"author {person.name} <{person.email}> {1_700_000_000 + number} +0000",
            f"committer {person.name} <{person.email}> {1_700_000_000 + number} +0000",
            f"data {len(message)}",
            message.decode(),
            f"M 100644 inline notes/{number}.txt",
            f"data {len(content)}",
            content.decode(),
        ]
    fast_import(person, stream)
    person.git("reset", "-q", "--hard")
    return person.git("rev-list", "--reverse", f"{head}..HEAD").split()


def share_reviews(person: Developer, commits: list[str], reviewed_by: str | None = None) -> None:
    """A shared review of each commit, as a reviewer with no linters writes it (none of these
    commits has a finding), written into the developer's notes with fast-import."""
    repo = open_repository(person.git_dir)
    memo = provenance.Memo()
    stream = ["commit refs/notes/landwatch", f"committer {person.name} <{person.email}> 0 +0000"]
    stream += ["data 0", ""]
    if person.run("git", "rev-parse", "-q", "--verify", "refs/notes/landwatch", check=False).stdout:
        stream.append("from refs/notes/landwatch^0")
    for commit in commits:
        report = Report(commit, None, "commit", commit[:12], rules=["P001", "S002"])
        found = resolve(repo, commit)
        learned = standards_store.current(person.git_dir, repo, found)
        line = notes.document(
            report,
            reviewed_by=reviewed_by or person.email,
            rules_version=provenance.rules_version(),
            config_hash=provenance.config_hash(repo, found, LinterPolicy(), memo),
            at=time.time(),
            learned=learned.effective(),
        )
        stream += [f"N inline {commit}", f"data {len(line) + 1}", line]
    fast_import(person, stream)
