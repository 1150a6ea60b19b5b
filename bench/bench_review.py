"""The review's speed: a commit of 3,000 files / 150,000 added lines with the default rules, its
peak memory, and a typical commit (10 files, 300 lines) in a warm process; `--one-line`: the
whole `landwatch review HEAD` of a one-line commit, warm and the first after `landwatch install`,
as ratios to `python -c pass` measured in the same run.

Run by hand (`python bench/bench_review.py`); targets: huge <= 3 s and <= 300 MB, typical <= 50 ms;
one-line review warm <= 15x a bare start, the first after install <= 2x a warm one.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchlib import git, installed_home, installed_launcher, new_repo
from landwatch.cli import keep_secret_rules

LINE_SHAPES = [
    "    value_{n} = compute(alpha={n}, beta='text {n}')  # a comment\n",
    "def function_{n}(argument, other=None):\n",
    "    return [item * {n} for item in range(argument) if item % 3]\n",
    "    logger.info('processed %s records in %s', count_{n}, elapsed)\n",
    "class Model{n}(Base):\n",
]


def commit_files(repo: Path, files: int, lines: int, tag: str) -> None:
    for index in range(files):
        path = repo / f"pkg{index % 30}" / f"{tag}_{index}.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        body = "".join(LINE_SHAPES[n % len(LINE_SHAPES)].format(n=n + index) for n in range(lines))
        path.write_text(body)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"{tag}: {files} files")


def review_in_child(git_dir: Path, config: str) -> tuple[float, int, int, bool]:
    code = (
        "import json, sys, time\n"
        "from landwatch.review import engine\n"
        "started = time.perf_counter()\n"
        "r = engine.review(sys.argv[1], 'HEAD')\n"
        "print(json.dumps([time.perf_counter() - started, r.lines_checked, len(r.findings),"
        " r.truncated]))\n"
    )
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    result = subprocess.run(
        [sys.executable, "-c", code, str(git_dir)], capture_output=True, text=True, check=True
    )
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    seconds, lines, findings, truncated = json.loads(result.stdout)
    print(
        f"  [{config}] {seconds:.2f} s, {lines} lines checked, {findings} findings, "
        f"truncated={truncated}, peak RSS {max(peak, before) / 1024:.0f} MB"
    )
    return seconds, lines, findings, truncated


def median_seconds(commands: list[list[str]], cwd: Path, runs: int) -> list[float]:
    """The median wall time of each of `commands` run whole, `runs` times, interleaved: a ratio
    between two is of the same moments of the machine."""
    timings: list[list[float]] = [[] for _ in commands]
    for _ in range(runs):
        for command, taken in zip(commands, timings, strict=True):
            started = time.perf_counter()
            subprocess.run(command, cwd=cwd, check=True, capture_output=True)
            taken.append(time.perf_counter() - started)
    return [statistics.median(taken) for taken in timings]


def one_line_review(runs: int) -> None:
    """`landwatch review HEAD` of a one-line commit, a whole process each, through the launcher
    install.sh leaves (as a person runs it): warm (the secret rules compiled and kept), and the
    first after `landwatch install` in a home that never had landwatch (install compiles the
    rules), each as a ratio to `python -c pass`."""
    with tempfile.TemporaryDirectory(prefix="landwatch-bench-") as scratch:
        installed_home(Path(scratch))
        landwatch = [str(installed_launcher(Path(scratch)))]
        os.environ.pop("LANDWATCH_SECRET_RULES", None)  # the home's own, as a person's
        repo = new_repo(Path(scratch) / "repo")
        (repo / "notes.txt").write_text("a line\n")
        git(repo, "add", "notes.txt")
        git(repo, "commit", "-q", "-m", "one line")
        started = time.perf_counter()
        subprocess.run([*landwatch, "install"], cwd=repo, check=True, capture_output=True)
        install = time.perf_counter() - started
        started = time.perf_counter()
        subprocess.run([*landwatch, "review", "HEAD"], cwd=repo, check=True, capture_output=True)
        first = time.perf_counter() - started
        bare, warm = median_seconds(
            [[sys.executable, "-c", "pass"], [*landwatch, "review", "HEAD"]], repo, runs
        )
        print(f"python -c pass: {bare * 1000:.0f} ms (median of {runs}, between the reviews)")
        print(
            f"landwatch review HEAD, one-line commit, warm: {warm * 1000:.0f} ms = "
            f"{warm / bare:.1f}x  [target <= 15x]"
        )
        print(
            f"the first review after landwatch install ({install:.1f} s, the rules compiled): "
            f"{first * 1000:.0f} ms = {first / warm:.1f}x a warm one  [target <= 2x]"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--lines", type=int, default=50)
    parser.add_argument("--one-line", action="store_true", help="only the one-line review")
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    if args.one_line:
        one_line_review(args.runs)
        return 0
    keep_secret_rules()  # the review in a child loads them from landwatch's state, as a command
    with tempfile.TemporaryDirectory(prefix="landwatch-bench-") as scratch:
        repo = Path(scratch) / "repo"
        new_repo(repo)
        commit_files(repo, args.files, args.lines, "huge")
        total = args.files * args.lines
        print(f"a commit of {args.files} files / {total} added lines  [target <= 3 s, <= 300 MB]")
        review_in_child(repo / ".git", "default rules, default cap of 20,000 lines")
        (repo / ".landwatch.toml").write_text(f"max_added_lines = {total * 2}\n")
        git(repo, "add", ".landwatch.toml")
        git(repo, "commit", "-q", "--amend", "--no-edit")
        review_in_child(repo / ".git", "default rules, every line")

        from landwatch.review import engine

        engine.review(repo / ".git", "HEAD~0")  # warm: imports, repo opened
        (repo / ".landwatch.toml").unlink()
        timings = []
        for round_ in range(20):
            commit_files(repo, 10, 30, f"typical{round_}")
            started = time.perf_counter()
            engine.review(repo / ".git", "HEAD")
            timings.append(time.perf_counter() - started)
        print(
            f"a typical commit (10 files, 300 lines), warm process: median "
            f"{statistics.median(timings) * 1000:.1f} ms, max {max(timings) * 1000:.1f} ms"
            "  [target <= 50 ms]"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
