"""The review on real history: the last N ordinary commits of local clones of public repositories,
each reviewed as the reviewer would (the standards learned from the history before them, no
linters), findings per 100 commits per rule and severity, and how many of the warning-or-higher
ones were worth telling by the labels kept in bench/real_history_labels.txt. M001 (subject
length) is also counted as the limit read at the 98th percentile would have told it (issue 42:
both readings, so the choice is visible).

Run by hand, no network: `python bench/bench_real_history.py PATH...` (each a clone or mirror's
git dir). `--unlabelled` lists the warning-or-higher findings not labelled yet, one per line in
the labels file's format with `?` for the label: replace it by `true` or `noise` and append.
`--labels FILE` reads another labels file of that format instead, such as
bench/unseen_history_labels.txt (projects not used while building the review).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from pygit2 import Commit

from benchlib import timed_secret_rules
from landwatch.cli import keep_secret_rules
from landwatch.review import engine
from landwatch.review.change import open_repository, resolve
from landwatch.review.findings import Finding, Severity
from landwatch.review.linters import NO_LINTERS
from landwatch.review.secrets import provider_rules
from landwatch.review.standards import Standards, learn, still_fresh

LABELS = Path(__file__).with_name("real_history_labels.txt")


def name_of(git_dir: Path) -> str:
    """The repository's short name: `owner+name` of a fetched mirror, else its directory."""
    for part in reversed(git_dir.resolve().parts):
        if part not in ("repo", ".git"):
            return part
    return str(git_dir)


def ordinary_commits(git_dir: Path, count: int) -> list[str]:
    """The newest `count` commits that are not merges, newest first (a commit per landing)."""
    out = subprocess.run(
        ["git", f"--git-dir={git_dir}", "rev-list", "--no-merges", f"--max-count={count}", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return out.split()


def label_key(repo: str, commit: str, finding: Finding) -> str:
    return f"{repo} {commit[:12]} {finding.rule} {finding.fingerprint}"


def read_labels(path: Path) -> dict[str, str]:
    """Each labelled key's label (`true` or `noise`) from a labels file; none if it is absent."""
    labels = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            label, _, rest = line.partition(" ")
            key = " ".join(rest.split()[:4])
            labels[key] = label
    return labels


@dataclass
class Reviewed:
    """What reviewing the commits gave: findings, each review's time, the secret rules' time."""

    found: list[tuple[str, str, Finding]] = field(default_factory=list)
    commits: int = 0
    times: list[float] = field(default_factory=list)
    lines_checked: int = 0
    secret_seconds: float = 0.0
    # M001's findings at the 98th percentile's limit, where the review read it at the 99th.
    at_98: list[tuple[str, str, Finding]] = field(default_factory=list)


def review_all(paths: list[Path], count: int) -> Reviewed:
    reviewed = Reviewed()
    provider_rules.available()  # the rule set loaded once, before any review is timed
    for git_dir in paths:
        repo = name_of(git_dir)
        opened = open_repository(git_dir)  # opened once, as in the warm worker
        learned = None
        # Oldest first, the standards cached as the reviewer caches them (standards_store).
        for commit in reversed(ordinary_commits(git_dir, count)):
            landed = resolve(opened, commit)
            if learned is None or not still_fresh(opened, landed, learned):
                learned = learn(opened, landed)
            with timed_secret_rules() as spent:
                started = time.perf_counter()
                report = engine.review(git_dir, commit, linters=NO_LINTERS, standards=learned)
                reviewed.times.append(time.perf_counter() - started)
            reviewed.secret_seconds += spent[0]
            reviewed.lines_checked += report.lines_checked
            reviewed.commits += 1
            reviewed.found += [(repo, commit, finding) for finding in report.findings]
            told = [f for f in report.findings if f.rule == SUBJECT_LENGTH]
            reviewed.at_98 += [(repo, commit, f) for f in _at_98(git_dir, landed, learned, told)]
    return reviewed


SUBJECT_LENGTH = "M001"


def _at_98(git_dir: Path, landed: Commit, learned: Standards, told: list[Finding]) -> list[Finding]:
    """M001's findings on `landed` had the limit been read at the 98th percentile: the review's
    own where both limits are one, else the review run again at the 98th (its M001 alone)."""
    at_98 = learned._replace(reading=98)
    subject = landed.message.split("\n", 1)[0].rstrip()
    if at_98.subject_limit == learned.subject_limit or len(subject) <= (at_98.subject_limit or 0):
        return told
    report = engine.review(git_dir, str(landed.id), linters=NO_LINTERS, standards=at_98)
    return [finding for finding in report.findings if finding.rule == SUBJECT_LENGTH]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--commits", type=int, default=200, help="per repository (200)")
    parser.add_argument("--unlabelled", action="store_true", help="list what is not labelled")
    parser.add_argument(
        "--labels", type=Path, default=LABELS, help=f"labels file (bench/{LABELS.name})"
    )
    args = parser.parse_args()
    keep_secret_rules()  # loaded from landwatch's state, as a command would
    reviewed = review_all(args.paths, args.commits)
    found, commits, times = reviewed.found, reviewed.commits, reviewed.times
    labels = read_labels(args.labels)
    if args.unlabelled:
        for repo, commit, finding in found:
            key = label_key(repo, commit, finding)
            if finding.severity >= Severity.WARNING and key not in labels:
                where = f"{finding.path}:{finding.line}" if finding.path else f"msg:{finding.line}"
                print(f"? {key}  # {where} {finding.message[:90]!r} {str(finding.snippet)[:60]!r}")
        return 0
    per_rule: dict[tuple[str, str], int] = Counter()
    for _, _, finding in found:
        per_rule[(finding.rule, finding.severity.name.lower())] += 1
    p95 = sorted(times)[int(len(times) * 0.95)]
    print(
        f"{commits} commits of {len(args.paths)} repositories; review median "
        f"{statistics.median(times) * 1000:.1f} ms, p95 {p95 * 1000:.1f} ms"
    )
    per_thousand = reviewed.secret_seconds * 1000 / max(reviewed.lines_checked, 1)
    print(
        f"secret rules: {reviewed.secret_seconds:.2f} s for {reviewed.lines_checked} lines "
        f"checked, {per_thousand:.3f} s per 1,000 lines"
    )
    print(f"{'rule':<8} {'severity':<8} {'count':>6} {'per 100':>8}")
    for (rule, severity), number in sorted(per_rule.items()):
        print(f"{rule:<8} {severity:<8} {number:>6} {number * 100 / commits:>8.1f}")
    told = [(r, c, f) for r, c, f in found if f.severity >= Severity.WARNING]
    verdicts: dict[str, Counter[str]] = defaultdict(Counter)
    for repo, commit, finding in told:
        verdicts[finding.rule][labels.get(label_key(repo, commit, finding), "unlabelled")] += 1
    true = sum(v["true"] for v in verdicts.values())
    noise = sum(v["noise"] for v in verdicts.values())
    unlabelled = sum(v["unlabelled"] for v in verdicts.values())
    print(f"\nwarning or higher: {len(told)} ({len(told) * 100 / commits:.1f} per 100 commits)")
    for rule, verdict in sorted(verdicts.items()):
        true_, noise_, unknown = verdict["true"], verdict["noise"], verdict["unlabelled"]
        print(f"  {rule:<8} true {true_:>4}  noise {noise_:>4}  unlabelled {unknown:>4}")
    if true + noise:
        share = true * 100 / (true + noise)
        print(
            f"worth telling: {true} of {true + noise} labelled ({share:.0f}%); "
            f"noise {noise * 100 / commits:.1f} per 100 commits; {unlabelled} unlabelled"
        )
    subject_lengths = [found_ for found_ in told if found_[2].rule == SUBJECT_LENGTH]
    for reading, subjects in (("99th (the review's)", subject_lengths), ("98th", reviewed.at_98)):
        said = Counter(labels.get(label_key(*found_), "unlabelled") for found_ in subjects)
        print(
            f"M001 read at the {reading}: {len(subjects)} "
            f"({len(subjects) * 100 / commits:.1f} per 100 commits): true {said['true']}, "
            f"noise {said['noise']}, unlabelled {said['unlabelled']}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
