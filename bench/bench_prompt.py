"""What `landwatch prompt` costs a shell prompt: the installed command, as a shell runs it, beside a
bare `python -c pass` of the same interpreter, interleaved, in the same run.

Run by hand (`python bench/bench_prompt.py`). Three repositories: nothing to say, three unread
reviews (the line read from their markers), and an item given up (the rare way, through
`landwatch notice`'s reading); the same through the hooks' entry point (no pip launcher, which
imports `re`); and, for scale, `landwatch --version` through the parser. The target is 20 ms;
the ratio to the bare start says what the machine's own speed does not.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import git, installed_home, new_repo

COMMAND = str(Path(sys.executable).with_name("landwatch"))  # the console script pip made


def timed(argv: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def with_findings(repo: Path) -> None:
    for number in range(3):
        (repo / f"f{number}.txt").write_text("trailing  \n")
        git(repo, "add", f"f{number}.txt")
        git(repo, "commit", "-q", "-m", f"finding {number}")
    subprocess.run(
        [sys.executable, "-m", "landwatch", "reviewer", "--once"],
        check=True,
        stderr=subprocess.DEVNULL,
    )


def given_up(repo: Path) -> None:
    from landwatch import work_item

    git(repo, "commit", "-q", "--allow-empty", "-m", "to give up")
    work_item.publish_ready(repo / ".git")
    claimed = work_item.claim_next(repo / ".git")
    assert claimed is not None
    work_item.requeue(repo / ".git", claimed, max_tries=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=100, help="of each, interleaved (100)")
    runs = parser.parse_args().runs
    with tempfile.TemporaryDirectory(prefix="bench-prompt-") as scratch:
        root = Path(scratch)
        installed_home(root)
        quiet = new_repo(root / "quiet", hooks=True)
        unread = new_repo(root / "unread", hooks=True)
        rare = new_repo(root / "given-up", hooks=True)
        with_findings(unread)
        given_up(rare)
        said = subprocess.run([COMMAND, "prompt"], cwd=unread, capture_output=True, text=True)
        print(f"the line: {said.stdout.strip()}")
        from landwatch import layout

        entry = str(layout.ENTRY_POINT.path())  # the hooks': sh, then python -I -m landwatch
        cases = {
            "python -c pass": ([sys.executable, "-c", "pass"], quiet),
            "landwatch prompt, nothing to say": ([COMMAND, "prompt"], quiet),
            "landwatch prompt, 3 unread reviews": ([COMMAND, "prompt"], unread),
            "landwatch prompt --color, 3 unread": ([COMMAND, "prompt", "--color"], unread),
            "the hooks' entry point, 3 unread": ([entry, "prompt"], unread),
            "landwatch prompt, an item given up": ([COMMAND, "prompt"], rare),
            "landwatch --version (the parser)": ([COMMAND, "--version"], quiet),
        }
        times: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(runs):
            for name, (argv, cwd) in cases.items():
                times[name].append(timed(argv, cwd))
    bare = statistics.median(times["python -c pass"])
    print(f"{runs} runs of each, interleaved; median (min) ms, and the median's ratio to bare")
    for name, taken in times.items():
        median = statistics.median(taken)
        print(f"  {name:<38} {median * 1e3:6.1f} ({min(taken) * 1e3:5.1f})  {median / bare:4.2f}x")


if __name__ == "__main__":
    main()
