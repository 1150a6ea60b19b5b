"""The reflog sweep's cost: one pass after one new landing, in a repository whose branch reflog
holds 100,000 entries and in one whose holds 10. The target: the same cost, whatever the length
(a pass reads only what is new), and a pass with nothing new costs a few stats.

Run by hand (`python bench/bench_sweep.py`).
"""

from __future__ import annotations

import argparse
import io
import statistics
import tempfile
import time
from pathlib import Path

from benchlib import git, isolated_home, new_repo
from landwatch.commands import install
from landwatch.daemon import sweep


def grow_reflog(repo: Path, entries: int) -> None:
    """`entries` old movements of main, written as git writes them (they precede the install)."""
    reflog = repo / ".git" / "logs" / "refs" / "heads" / "main"
    stamp = int(time.time()) - 86400
    who = f"Bench <bench@example.com> {stamp} +0000"
    lines = [f"{n:040x} {n + 1:040x} {who}\tcommit: {n}\n" for n in range(entries)]
    with reflog.open("a") as file:
        file.writelines(lines)


def measure(scratch: Path, name: str, entries: int, rounds: int) -> tuple[float, float]:
    """(median seconds of a pass after one landing, median of a pass with nothing new)."""
    repo = new_repo(scratch / name, hooks=False)
    grow_reflog(repo, entries)

    install.install(repo, out=io.StringIO())  # the sweep starts at the end of the reflogs
    common = repo / ".git"
    after_landing, idle = [], []
    for number in range(rounds):
        (repo / "file").write_text(f"{number}\n")
        git(repo, "add", "file")
        git(repo, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", f"unhooked {number}")
        later = time.time() + 3600  # past the grace
        started = time.perf_counter()
        swept = sweep.sweep(common, now=later)
        after_landing.append(time.perf_counter() - started)
        assert len(swept.enqueued) == 1, swept
        started = time.perf_counter()
        sweep.sweep(common, now=later)
        idle.append(time.perf_counter() - started)
    return statistics.median(after_landing), statistics.median(idle)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="landwatch-bench-") as scratch:
        isolated_home(Path(scratch))
        long_pass, long_idle = measure(Path(scratch), "long", args.entries, args.rounds)
        short_pass, short_idle = measure(Path(scratch), "short", 10, args.rounds)
    print(
        f"sweep pass after one landing: {long_pass * 1000:.1f} ms with a {args.entries:,}-entry "
        f"reflog, {short_pass * 1000:.1f} ms with a 10-entry one, ratio "
        f"{long_pass / short_pass:.2f}  [target: about 1, independent of the length]"
    )
    print(
        f"sweep pass with nothing new: {long_idle * 1000:.2f} ms (long), "
        f"{short_idle * 1000:.2f} ms (short)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
