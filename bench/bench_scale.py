"""Whether a review costs what the change costs, not what the repository weighs: the same 10-file
commit landed in a repository of 100 files and 100 commits and in one of 100,000 files and 50,000
commits (made with git fast-import), the real reviewer running.

Run by hand (`python bench/bench_scale.py`); takes a minute or two to build the large repository.
Measured from the commit returning to its report stored; the first landing of each repository
(standards learned from its history, the first sweep) is shown apart from the median of the rest.
Target (issue 16): the large repository within 1.5x of the small one.
"""

from __future__ import annotations

import argparse
import io
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from benchlib import git, isolated_home, running_reviewer, seconds_to_report
from landwatch.commands import install


def fast_import(path: Path, files: int, commits: int) -> Path:
    """A repository of `files` files whose history is `commits` commits, each changing one."""
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    stream = io.BytesIO()
    when = 1_700_000_000

    def data(text: bytes) -> None:
        stream.write(b"data %d\n%s\n" % (len(text), text))

    def header(number: int) -> None:
        # No `from`: fast-import goes on from the branch's tip it has made so far.
        stream.write(b"commit refs/heads/main\n")
        stream.write(b"committer Bench <bench@example.com> %d +0000\n" % (when + number))
        data(b"Change %d" % number)

    header(0)
    for number in range(files):
        stream.write(b"M 100644 inline src/d%d/f%d.py\n" % (number % 1000, number))
        data(b"VALUE = %d\n" % number)
    for number in range(1, commits):
        header(number)
        stream.write(b"M 100644 inline src/d%d/f%d.py\n" % (number % 1000, number % files))
        data(b"VALUE = %d\n" % (number * 7))
    subprocess.run(["git", "fast-import", "--quiet"], cwd=path, input=stream.getvalue(), check=True)
    git(path, "reset", "-q", "--hard", "main")
    return path


def land(repo: Path, number: int) -> float:
    """Seconds from a 10-file commit returning to its report stored."""
    for file in range(10):
        (repo / "src" / "d0" / f"f{file}.py").write_text(f"VALUE = {number}\nOTHER = {file}\n")
    git(repo, "add", "-A")
    return seconds_to_report(repo, f"Change ten files, round {number}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=100_000)
    parser.add_argument("--commits", type=int, default=50_000)
    parser.add_argument("--landings", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="landwatch-bench-") as scratch:
        isolated_home(Path(scratch))
        started = time.perf_counter()
        repos = {
            "small": fast_import(Path(scratch) / "small", 100, 100),
            "large": fast_import(Path(scratch) / "large", args.files, args.commits),
        }
        print(f"repositories made in {time.perf_counter() - started:.0f} s")
        for repo in repos.values():
            install.install(repo, out=io.StringIO())
        with running_reviewer():
            medians = {}
            for name, repo in repos.items():
                first = land(repo, 0)
                rest = [land(repo, number) for number in range(1, args.landings + 1)]
                medians[name] = statistics.median(rest)
                print(
                    f"{name}: first landing {first * 1000:.0f} ms (history learned, first "
                    f"sweep), then p50 {medians[name] * 1000:.0f} ms"
                )
            ratio = medians["large"] / medians["small"]
            print(f"large / small: {ratio:.2f}x  [target <= 1.5x]")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
