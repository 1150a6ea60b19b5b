"""From a landing to its review stored, with the real reviewer idle and waiting: a 10-file commit,
without linters and with ruff configured (and trusted) as the project's linter.

Run by hand (`python bench/bench_landing.py`). Measured from the commit returning (the hook has
recorded the item) to `reports/<oid>.json` existing. Targets (issue 16): p50 <= 50 ms without
linters, <= 300 ms with ruff. Also prints the reviewer's resident memory, its worker included.
ruff runs behind the wall: bubblewrap from PATH, or the one ./run-tests unpacked (.test-tools);
the bench ends, saying why, when the last review's report does not show ruff run.
"""

from __future__ import annotations

import argparse
import io
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from benchlib import (
    git,
    isolated_home,
    new_repo,
    resident_kib,
    running_reviewer,
    seconds_to_report,
    with_the_wall,
)

RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or "ruff"


def ruff_config() -> str:
    command = [RUFF, "check", "--no-fix", "--no-cache", "--output-format=json"]
    command += ["--stdin-filename", "{path}", "-"]
    return (
        f'[[linters]]\nname = "ruff"\ncommand = {json.dumps(command)}\n'
        'files = ["*.py"]\nformat = "ruff-json"\n'
    )


def landings(repo: Path, count: int, label: str) -> list[float]:
    """`count` commits of 10 changed files each; seconds from each commit to its report."""
    took = []
    for number in range(count):
        for file in range(10):
            body = f"VALUE = {number}\n\n\ndef f{file}(x):\n    return x + VALUE\n"
            (repo / f"module_{file}.py").write_text(f'"""Module {file}."""\n\n{body}')
        git(repo, "add", "-A")
        took.append(seconds_to_report(repo, f"{label} {number}"))
    return took


def ruff_ran(repo: Path) -> str | None:
    """What the newest review's report says of ruff: None when it ran, else the reason."""
    from landwatch import report_store
    from landwatch.git import git_dir_and_commit

    git_dir, oid = git_dir_and_commit("HEAD", cwd=repo)
    report = report_store.read(git_dir, oid) if oid is not None else None
    if report is None:
        return "no report of HEAD"
    runs = [run for run in report.linters if run.get("linter") == "ruff"]
    if runs and all(run.get("status") == "ok" for run in runs):
        return None
    return f"ruff's runs {runs}; notes {report.notes}; held back: {report.linters_held_back}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--commits", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="landwatch-bench-") as scratch:
        isolated_home(Path(scratch))
        with_the_wall()
        plain = new_repo(Path(scratch) / "plain", hooks=True)
        linted = new_repo(Path(scratch) / "linted", hooks=False)
        (linted / ".landwatch.toml").write_text(ruff_config())
        git(linted, "add", ".landwatch.toml")
        git(linted, "commit", "-q", "-m", "ruff as the linter")
        from landwatch.commands import install

        install.install(linted, out=io.StringIO())
        trusted = subprocess.run(
            [sys.executable, "-m", "landwatch", "trust", "--yes"], cwd=linted, capture_output=True
        )
        assert trusted.returncode == 0, trusted.stderr
        with running_reviewer() as reviewer:
            landings(plain, 3, "warm-up")
            landings(linted, 3, "warm-up")  # the standards learned, ruff's first start
            for name, repo in (("no linters", plain), ("ruff", linted)):
                took = sorted(landings(repo, args.commits, name))
                p50 = statistics.median(took) * 1000
                p95 = took[int(len(took) * 0.95) - 1] * 1000
                target = 50 if name == "no linters" else 300
                if name == "ruff" and (why := ruff_ran(repo)) is not None:
                    print(f"ruff did not run, so its row would time nothing: {why}")
                    return 1
                print(
                    f"10-file commit -> review stored, {name}, {args.commits} commits: "
                    f"p50 {p50:.0f} ms, p95 {p95:.0f} ms  [target p50 <= {target} ms]"
                )
            resident = resident_kib(reviewer.pid) / 1024
            print(f"reviewer resident, its worker included: {resident:.0f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
