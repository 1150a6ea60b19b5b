"""A team's reviews shared as git notes, measured on real history: a pull of 1,000 commits of a
repository already on this machine (default: the rack mirror), by developers with homes of their
own and one bare remote, no network.

Printed: A reviewing the 1,000 commits one by one (what covering them costs without sharing) and
the notes' size per review; A's push of the 1,000 notes; B's reviewer covering the pull by taking
A's shared reviews, beside another clone's reviewer reviewing the pull as one range (no sharing);
`landwatch ci` over the 1,000 commits in a fresh clone (time per commit), and with --trust-notes.

Run by hand: `python bench/bench_team.py [--repository GIT_DIR] [--commits 1000]`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MIRROR = Path("/work/.mirror/rack+rack/repo")
TAKEN = Path("landwatch") / "shared-taken"


class Person:
    """A developer: a home of their own, a clone, git and landwatch run as they would."""

    def __init__(self, scratch: Path, name: str, rule_cache: Path) -> None:
        self.name = name
        self.home = scratch / f"home-{name}"
        self.home.mkdir()
        (self.home / ".gitconfig").write_text(
            f"[user]\n\tname = {name}\n\temail = {name}@team.example\n"
            "[landwatch]\n\tmaintenance = false\n\tsandbox = false\n"
        )
        self.clone = scratch / name
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
        self.env.update(
            HOME=str(self.home),
            XDG_CONFIG_HOME=str(self.home / ".config"),
            XDG_DATA_HOME=str(self.home / ".local/share"),
            XDG_STATE_HOME=str(self.home / ".local/state"),
            XDG_CACHE_HOME=str(self.home / ".cache"),
            XDG_RUNTIME_DIR=str(self.home / "run"),
            LANDWATCH_SECRET_RULES=str(rule_cache),  # the secret rules compiled once for everyone
            GIT_CONFIG_NOSYSTEM="1",
        )

    def run(self, *command: str, **extra: str) -> str:
        done = subprocess.run(
            list(command),
            cwd=self.clone,
            env={**self.env, **extra},
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            raise SystemExit(f"{self.name}: {' '.join(command)}: {done.stdout}{done.stderr}")
        return done.stdout

    def git(self, *args: str, **extra: str) -> str:
        return self.run("git", *args, **extra).strip()

    def landwatch(self, *args: str) -> str:
        return self.run(sys.executable, "-m", "landwatch", *args)

    def timed(self, *args: str) -> float:
        started = time.perf_counter()
        self.landwatch(*args)
        return time.perf_counter() - started

    def python(self, code: str) -> str:
        return self.run(sys.executable, "-c", code)


def pull_range(remote: Path, commits: int) -> tuple[str, str]:
    """(base, tip): a first-parent ancestor of HEAD from which HEAD brings at least `commits`."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", f"--git-dir={remote}", *args], capture_output=True, text=True, check=True
        ).stdout.strip()

    tip = git("rev-parse", "HEAD")
    line = git("rev-list", "--first-parent", tip).split()
    low, high = 1, len(line) - 1
    while low < high:  # the nearest ancestor on the first-parent line that brings enough
        middle = (low + high) // 2
        if int(git("rev-list", "--count", f"{line[middle]}..{tip}")) >= commits:
            high = middle
        else:
            low = middle + 1
    return line[low], tip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repository", type=Path, default=MIRROR, help="a git dir on this machine")
    parser.add_argument("--commits", type=int, default=1000)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="landwatch-team-") as temporary:
        measure(Path(temporary), options.repository, options.commits)


def measure(scratch: Path, source: Path, count: int) -> None:
    remote = scratch / "remote.git"
    subprocess.run(["git", "clone", "-q", "--bare", str(source), str(remote)], check=True)
    base, tip = pull_range(remote, count)
    subprocess.run(
        ["git", f"--git-dir={remote}", "update-ref", "refs/heads/main", base], check=True
    )
    subprocess.run(["git", f"--git-dir={remote}", "symbolic-ref", "HEAD", "refs/heads/main"])
    brought = subprocess.run(
        ["git", f"--git-dir={remote}", "rev-list", "--reverse", f"{base}..{tip}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    print(f"{source}: a pull of {len(brought)} commits ({base[:12]}..{tip[:12]})")
    cache = scratch / "rules"
    people = {}
    for name in ("a", "b", "b2", "b3", "b4"):
        person = Person(scratch, name, cache)
        subprocess.run(
            ["git", "clone", "-q", "-b", "main", str(remote), str(person.clone)],
            env=person.env,
            check=True,
        )
        person.landwatch("install")
        people[name] = person
    a, b, b2 = people["a"], people["b"], people["b2"]
    b.landwatch("share")
    people["b3"].landwatch("share")
    idle = statistics.median(b.timed("reviewer", "--once") for _ in range(3))
    print(f"  a reviewer's start and end with nothing to do: {idle:.2f} s (in every figure below)")

    # A: the 1,000 commits reviewed one by one, each written as a note (not pushed yet).
    a.git("fetch", "-q", str(source), tip)
    a.git("merge", "-q", "--ff-only", tip, LANDWATCH="0")
    a.git("config", "landwatch.notes", "true")
    a.python(
        "from pathlib import Path\nfrom landwatch import work_item\n"
        f"git_dir = Path({str(a.clone / '.git')!r})\n"
        f"for oid in {brought!r}:\n"
        "    work_item.enqueue(work_item.WorkItem('review', oid, git_dir))\n"
    )
    reviewing = a.timed("reviewer", "--once")
    each = reviewing / len(brought) * 1000
    print(f"  A reviews them one by one: {reviewing:.1f} s, {each:.1f} ms a commit")
    sizes = note_sizes(a, brought)
    mean, median = statistics.mean(sizes), statistics.median(sizes)
    print(
        f"  the notes: {mean:.0f} bytes a review (median {median:.0f}, largest {max(sizes):,}), "
        f"{sum(sizes) / 1024:.0f} KiB in all"
    )

    # A's push of the 1,000 notes: the commits pushed first (only the notes of commits the
    # remote holds are shared), sharing turned on, the share kind's one push.
    a.git("push", "-q", "origin", f"{tip}:refs/heads/main")
    a.landwatch("share")
    pushing = push_time(a)
    print(f"  A's push of {len(sizes)} notes (the share kind, in-process): {pushing:.2f} s")

    # B: the pull, its reviewer taking A's reviews.
    b.git("pull", "-q")
    covering = b.timed("reviewer", "--once")
    taken = (b.clone / ".git" / TAKEN).read_text().strip()
    reports = len(list((b.clone / ".git" / "landwatch" / "reports").glob("*.json")))
    print(
        f"  B's reviewer covers the pull with shared reviews: {covering:.2f} s "
        f"({covering - idle:.2f} s past the start), {taken} taken, {reports} reports"
    )
    # B2: the same pull without sharing: one range review, as before sharing.
    b2.git("pull", "-q")
    ranged = b2.timed("reviewer", "--once")
    print(f"  another clone without sharing reviews the pull as one range: {ranged:.2f} s")
    # The same two jobs alone, in a warm worker's place: no process started, no rules loaded.
    for name, what in (("b3", "taking the shared reviews"), ("b4", "the range review")):
        people[name].git("pull", "-q")
        print(f"    the job alone, {what}: {job_time(people[name], tip, base):.2f} s")

    # landwatch ci in a fresh clone: no install, nothing trusted.
    ci = Person(scratch, "ci", cache)
    subprocess.run(["git", "clone", "-q", str(remote), str(ci.clone)], env=ci.env, check=True)
    ci.git("fetch", "-q", "origin", "+refs/notes/landwatch*:refs/notes/remotes/origin/landwatch*")
    for flag in ((), ("--trust-notes",)):
        started = time.perf_counter()
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "landwatch",
                "ci",
                f"{base}..{tip}",
                "--no-fetch",
                *flag,
                "--fail-level",
                "none",
            ],
            cwd=ci.clone,
            env=ci.env,
            capture_output=True,
            text=True,
        )
        spent = time.perf_counter() - started
        summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr
        reviewed = len(brought)
        print(
            f"  landwatch ci {' '.join(flag) or '(reviewing every commit)'}: {spent:.1f} s, "
            f"{spent / reviewed * 1000:.1f} ms a commit\n    {summary[:220]}"
        )
        for line in [line for line in done.stdout.splitlines() if " differs" in line][:5]:
            print(f"    {line[:300]}")


def note_sizes(person: Person, commits: list[str]) -> list[int]:
    """The size of each commit's note, in bytes (from one `git cat-file --batch-check`)."""
    listed = person.git("notes", "--ref=landwatch", "list").splitlines()
    blobs = {line.split()[1]: line.split()[0] for line in listed}
    wanted = "\n".join(blobs[c] for c in commits if c in blobs) + "\n"
    checked = subprocess.run(
        ["git", "cat-file", "--batch-check=%(objectsize)"],
        cwd=person.clone,
        env=person.env,
        input=wanted,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [int(size) for size in checked.split()]


def job_time(person: Person, tip: str, base: str) -> float:
    """The review kind's job for the landed range, timed in a warmed-up process of the person's
    (what a reviewer's warm worker does, without starting it)."""
    code = (
        "import time\n"
        "from landwatch.kinds.review import review_in_worker, warm_up\n"
        "warm_up()\n"
        "started = time.perf_counter()\n"
        f"review_in_worker({str(person.clone / '.git')!r}, {tip!r}, {base!r})\n"
        "print(time.perf_counter() - started)\n"
    )
    return float(person.python(code).split()[-1])


def push_time(person: Person) -> float:
    """The share kind's push of the notes, timed in a process of the person's."""
    code = (
        "import time\nfrom pathlib import Path\n"
        "from landwatch.kinds.share import ShareHandler\n"
        "from landwatch.work_item import WorkItem\n"
        "from landwatch.job_queue import Job, Reporter\n"
        "reporter = Reporter(Job('bench', 'share', 'key', None), lambda job: None)\n"
        f"item = WorkItem('share', '{'0' * 40}', Path({str(person.clone / '.git')!r}))\n"
        "started = time.perf_counter()\n"
        "result = ShareHandler().handle(item, reporter)\n"
        "print(time.perf_counter() - started, result.pushed)\n"
    )
    said = person.python(code).split()
    return float(said[0])


if __name__ == "__main__":
    main()
