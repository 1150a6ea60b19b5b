"""Secret detection on an open labelled benchmark: recall and false-positive rate of the secret
rules (S001-S004), overall, per family and per source, on a tuning half and a held-out half, the
time per 1,000 lines, and other scanners side by side on the same files in the same run.

The benchmark is other projects' data (gitleaks' and detect-secrets' own rule tests, CredSweeper's
samples), read at run time from `../shared/benchmarks/secrets/` beside the project (`--data`
points elsewhere) and never copied into it. Each example is laid out as one file at its `path` in
a fresh repository, all of them in one root commit (a `.landwatch.toml` lifts the line cap), and
that commit is reviewed in-process; an example counts as flagged when a secret rule reports a
finding on its file. Only `headline` examples count: recall on those labelled `secret`, the
false-positive rate on those labelled `not-secret`. (The benchmark's fixture variant, the same
examples again under tests/fixtures/, is not laid out.)

Halves: an example is in the tuning half when the last byte of the sha256 of its id is even, else
in the held-out half. Quality claims use the held-out half; `--misses` lists the tuning half's
misses and false flags (never the held-out half's texts) for whoever tunes the detectors, and
with `--unseen` those of whispers' `first` half too (it refuses any other unseen half).

Other tools (`--no-tools` to skip them) are installed from PyPI, pinned, into their own
environment under `.bench-tools/secrets/` and each run once on the whole laid-out tree, offline:
detect-secrets, kingfisher (no validation, no update check; its compiled rule cache warmed on an
empty directory first, as any second run finds it) and CredSweeper, each with its defaults. A tool
that cannot be installed or run is skipped with one line saying why. Their times are the wall
clock of the command, start-up (and CredSweeper's model loading) included.

`--unseen CLONE...` also measures every tool on examples nobody on this project tuned on: the
secret tests of semgrep-rules and secretlint and whispers' fixtures, read from local clones and
labelled by their maintainers' annotations (bench/unseen_secrets.py). Only their totals are
printed, never their texts or misses: they stay unseen, but for whispers' `first` half, the
tuning part of issue 41's own held-out, whose misses `--misses` lists. `--unseen-half
first|untouched|all` measures one half of them (drawn by id, as above): whispers' `untouched`
half is kept for the end of issue 41.

Run by hand: `python bench/bench_secrets.py [--half tuning|held-out|all] [--misses]
[--unseen CLONE... [--unseen-half first|untouched|all]]`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from unittest import mock

from benchlib import git, new_repo, timed_secret_rules
from landwatch.cli import keep_secret_rules
from landwatch.review import engine
from landwatch.review.budget import Budget
from landwatch.review.findings import Finding, Severity
from landwatch.review.report import Report
from landwatch.review.rules import all_rules
from unseen_secrets import ALL as ALL_UNSEEN
from unseen_secrets import FIRST, UNTOUCHED, unseen_examples

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "benchmarks" / "secrets"
DATA_FILES = ("secret_bench.json", "secret_bench_credsweeper.json")
TOOLS_DIR = ROOT / ".bench-tools" / "secrets"
TUNING, HELD_OUT, ALL = "tuning", "held-out", "all"
# Far above the benchmark's few thousand lines: the review's line cap must cut nothing.
MAX_ADDED_LINES = 10_000_000
# The versions pinned: those the benchmark's README gives figures for.
PINNED = {
    "detect-secrets": "detect-secrets==1.5.0",
    "kingfisher": "kingfisher-bin==2.14.0",
    "credsweeper": "credsweeper==1.19.5",
}
TOOL_TIMEOUT = 900  # seconds: a tool that hangs is skipped, not waited for
INSTALL_TIMEOUT = 900


@dataclass(frozen=True)
class Example:
    id: str
    path: str
    text: str
    label: str
    headline: bool
    family: str
    source: str
    rule: str

    @property
    def secret(self) -> bool:
        return self.label == "secret"

    @property
    def half(self) -> str:
        return TUNING if hashlib.sha256(self.id.encode()).digest()[-1] % 2 == 0 else HELD_OUT


@dataclass
class Result:
    """One tool's run: the examples it flagged, in how long."""

    tool: str
    flagged: set[str]
    seconds: float


@dataclass
class Landwatch:
    result: Result
    secret_seconds: float
    report: Report
    findings: dict[str, list[Finding]] = field(default_factory=dict)  # example id -> findings
    # Secret findings the precedent step (fixtures known from history) left out, and the
    # examples flagged only without it.
    precedent_findings: int = 0
    precedent_examples: set[str] = field(default_factory=set)


class Skipped(Exception):
    """A tool that cannot be installed or run here; its message says why in one line."""


def load(data: Path) -> tuple[list[Example], list[str]]:
    """Every example of the data files, and one line for each left out (an unsafe path, or a path
    that collides with another example's when laid out)."""
    examples: list[Example] = []
    problems: list[str] = []
    taken: dict[str, str] = {}  # case-folded path -> id
    directories: set[str] = set()
    for name in DATA_FILES:
        source = data / name
        if not source.exists():
            raise SystemExit(f"no {source}: point --data at the benchmark's directory")
        for item in json.loads(source.read_text(encoding="utf-8"))["examples"]:
            path = str(item["path"])
            parts = PurePosixPath(path).parts
            if path.startswith("/") or any(p in ("..", ".", ".git") for p in parts) or not parts:
                problems.append(f"{item['id']}: path {path!r} cannot be laid out safely")
                continue
            folded = path.casefold()
            prefixes = {"/".join(parts[:n]).casefold() for n in range(1, len(parts))}
            clash = taken.get(folded) or next((taken[p] for p in prefixes if p in taken), None)
            if clash is None and folded in directories:
                clash = "a directory of another example"
            if clash is not None:
                problems.append(f"{item['id']}: path {path!r} collides with {clash}")
                continue
            taken[folded] = str(item["id"])
            directories |= prefixes
            examples.append(
                Example(
                    id=str(item["id"]),
                    path=path,
                    text=str(item["text"]),
                    label=str(item["label"]),
                    headline=bool(item["headline"]),
                    family=str(item["family"]),
                    source=str(item["source"]),
                    rule=str(item["rule"]),
                )
            )
    return examples, problems


def lay_out(repo: Path, examples: list[Example]) -> int:
    """Each example a file at its path, one root commit of all of them; the lines written."""
    new_repo(repo, initial=False)
    (repo / ".landwatch.toml").write_text(f"max_added_lines = {MAX_ADDED_LINES}\n")
    lines = 0
    for example in examples:
        target = repo / example.path
        target.parent.mkdir(parents=True, exist_ok=True)
        text = example.text if example.text.endswith("\n") else example.text + "\n"
        target.write_bytes(text.encode("utf-8"))
        lines += text.count("\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "secret bench: every example, one file each")
    return lines


def secret_rule_ids() -> set[str]:
    classes, _ = all_rules()
    return {cls.id for cls in classes if cls.secret}


def flagged_by_findings(
    findings: Iterable[Finding], by_path: dict[str, Example], secret_ids: set[str]
) -> dict[str, list[Finding]]:
    flagged: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.rule in secret_ids and finding.path in by_path:
            flagged.setdefault(by_path[finding.path].id, []).append(finding)
    return flagged


def run_landwatch(repo: Path, examples: list[Example], repeat: int) -> Landwatch:
    """The review of HEAD `repeat` times (median times), and once more with the precedent step
    (fixtures known from history) let through, to show it dropped nothing here."""
    by_path = {example.path: example for example in examples}
    secret_ids = secret_rule_ids()
    git_dir = repo / ".git"
    totals: list[float] = []
    secret_times: list[float] = []
    report: Report | None = None
    for _ in range(repeat):
        with timed_secret_rules() as spent:
            started = time.perf_counter()
            report = engine.review(git_dir, "HEAD", budget=Budget(3600))
            totals.append(time.perf_counter() - started)
        secret_times.append(spent[0])
    assert report is not None
    findings = flagged_by_findings(report.findings, by_path, secret_ids)
    with mock.patch.object(engine, "unprecedented", lambda findings, *_, **__: findings):
        unfiltered = engine.review(git_dir, "HEAD", budget=Budget(3600))
    everything = flagged_by_findings(unfiltered.findings, by_path, secret_ids)
    return Landwatch(
        result=Result("landwatch", set(findings), statistics.median(totals)),
        secret_seconds=statistics.median(secret_times),
        report=report,
        findings=findings,
        precedent_findings=sum(map(len, everything.values())) - sum(map(len, findings.values())),
        precedent_examples=set(everything) - set(findings),
    )


# --- other tools -------------------------------------------------------------------------------


def quiet_run(command: list[str], cwd: Path | None = None, timeout: float = TOOL_TIMEOUT) -> str:
    """stdout of `command`; Skipped with the last line of its error output if it fails."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    try:
        done = subprocess.run(
            command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        raise Skipped(f"{Path(command[0]).name} did not finish within {timeout:.0f} s") from None
    except OSError as error:
        raise Skipped(f"{Path(command[0]).name} cannot be run: {error}") from None
    if done.returncode not in (0, 1, 200, 205):  # findings are success (kingfisher: 200, 205)
        last = (done.stderr.strip() or done.stdout.strip()).splitlines()[-1:] or ["no output"]
        raise Skipped(f"{Path(command[0]).name} exited {done.returncode}: {last[0][:160]}")
    return done.stdout


def installed(tools_dir: Path, tool: str) -> Path:
    """The tool's executable in the bench's own environment, installed (pinned) if missing."""
    python = tools_dir / "bin" / "python"
    if not python.exists():
        try:
            venv.EnvBuilder(with_pip=True, clear=True).create(tools_dir)
        except Exception as error:
            raise Skipped(f"no environment at {tools_dir}: {error}") from None
    executable = tools_dir / "bin" / tool
    requirement = PINNED[tool]
    package, _, version = requirement.partition("==")
    have = subprocess.run(
        [str(python), "-c", f"import importlib.metadata as m; print(m.version({package!r}))"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    if have != version or not executable.exists():
        quiet_run(
            [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", requirement],
            timeout=INSTALL_TIMEOUT,
        )
    if not executable.exists():
        raise Skipped(f"{requirement} installed no {tool} command")
    return executable


def relative(path: str, tree: Path) -> str:
    candidate = Path(path)
    if candidate.is_absolute():
        try:
            return candidate.relative_to(tree).as_posix()
        except ValueError:
            return path
    return PurePosixPath(path).as_posix().removeprefix("./")


def timed(run: Callable[[], set[str]]) -> tuple[set[str], float]:
    started = time.perf_counter()
    paths = run()
    return paths, time.perf_counter() - started


def detect_secrets(tools_dir: Path, tree: Path) -> tuple[set[str], float]:
    """`detect-secrets scan` in the tree (its git-tracked files), no verification."""
    command = [str(installed(tools_dir, "detect-secrets")), "scan", "--no-verify", "."]
    paths, seconds = timed(lambda: set(json.loads(quiet_run(command, cwd=tree))["results"]))
    return {relative(path, tree) for path in paths}, seconds


def kingfisher(tools_dir: Path, tree: Path) -> tuple[set[str], float]:
    """`kingfisher scan` of the tree's files (not its history), every occurrence, offline."""
    executable = str(installed(tools_dir, "kingfisher"))
    offline = ["--no-validate", "--no-update-check", "--no-dedup", "-q", "--format", "json"]
    cache = ["--rule-cache-dir", str(tools_dir / "kingfisher-rule-cache")]
    with tempfile.TemporaryDirectory(prefix="kingfisher-warm-") as empty:
        quiet_run([executable, "scan", empty, "--git-history", "none", *offline, *cache])
    command = [executable, "scan", str(tree), "--git-history", "none", *offline, *cache]

    def run() -> set[str]:
        report = json.loads(quiet_run(command, cwd=tree))
        return {str(item["finding"]["path"]) for item in report.get("findings", [])}

    paths, seconds = timed(run)
    return {relative(path, tree) for path in paths}, seconds


def credsweeper(tools_dir: Path, tree: Path) -> tuple[set[str], float]:
    """`credsweeper --path TREE` with its defaults (its ML filter included)."""
    executable = str(installed(tools_dir, "credsweeper"))
    with tempfile.TemporaryDirectory(prefix="credsweeper-") as scratch:
        out = Path(scratch) / "report.json"
        command = [executable, "--path", str(tree), "--save-json", str(out), "--no-stdout"]

        def run() -> set[str]:
            quiet_run(command, cwd=tree)
            if not out.exists():
                raise Skipped("credsweeper wrote no report")
            report = json.loads(out.read_text(encoding="utf-8"))
            return {str(line["path"]) for item in report for line in item["line_data_list"]}

        paths, seconds = timed(run)
    return {relative(path, tree) for path in paths}, seconds


TOOLS: dict[str, Callable[[Path, Path], tuple[set[str], float]]] = {
    "detect-secrets": detect_secrets,
    "kingfisher": kingfisher,
    "credsweeper": credsweeper,
}


def version_of(tools_dir: Path, tool: str) -> str:
    package = PINNED[tool].partition("==")[0]
    out = subprocess.run(
        [
            str(tools_dir / "bin" / "python"),
            "-c",
            f"import importlib.metadata as m; print(m.version({package!r}))",
        ],
        capture_output=True,
        text=True,
    ).stdout.strip()
    return out or "?"


def run_tools(
    names: list[str], tools_dir: Path, tree: Path, examples: list[Example]
) -> tuple[list[Result], list[str]]:
    by_path = {example.path: example.id for example in examples}
    results, skipped = [], []
    for name in names:
        try:
            paths, seconds = TOOLS[name](tools_dir, tree)
        except Skipped as why:
            skipped.append(f"{name} skipped: {why}")
            continue
        except (ValueError, KeyError, TypeError) as error:  # output not as expected
            skipped.append(f"{name} skipped: its output could not be read ({error!r:.120})")
            continue
        flagged = {by_path[path] for path in paths if path in by_path}
        results.append(Result(f"{name} {version_of(tools_dir, name)}", flagged, seconds))
    return results, skipped


# --- figures -----------------------------------------------------------------------------------


@dataclass
class Score:
    found: int = 0
    secrets: int = 0
    false_flags: int = 0
    negatives: int = 0

    def cell(self) -> str:
        recall = f"{self.found / self.secrets:.2f}" if self.secrets else "-"
        fp = f"{self.false_flags / self.negatives:.2f}" if self.negatives else "-"
        return f"{recall:>6}  {fp:>4}"


def score(examples: Iterable[Example], flagged: set[str]) -> Score:
    result = Score()
    for example in examples:
        if not example.headline:
            continue
        hit = example.id in flagged
        if example.secret:
            result.secrets += 1
            result.found += hit
        else:
            result.negatives += 1
            result.false_flags += hit
    return result


def in_half(examples: list[Example], half: str) -> list[Example]:
    return examples if half == ALL else [e for e in examples if e.half == half]


def columns(halves: list[str]) -> str:
    return "".join(f"  {half:<12}" for half in halves)


def breakdown(
    title: str,
    key: Callable[[Example], str],
    examples: list[Example],
    flagged: set[str],
    halves: list[str],
) -> None:
    """Recall and false-positive rate per group, one column pair per half."""
    print(f"\n{title:<22}{columns(halves)}  headline")
    print(f"{'':<22}" + "  recall    fp" * len(halves) + "  secret/not")
    groups = sorted({key(e) for e in examples if e.headline})
    for group in [*groups, "(all)"]:
        members = [e for e in examples if group == "(all)" or key(e) == group]
        cells = "".join(f"  {score(in_half(members, half), flagged).cell():<12}" for half in halves)
        total = score(in_half(members, ALL if ALL in halves else halves[0]), flagged)
        print(f"{group:<22}{cells}  {total.secrets:>5}/{total.negatives:<5}")


def tool_table(
    results: list[Result],
    secret_seconds: float,
    examples: list[Example],
    halves: list[str],
    lines: int,
) -> None:
    """One row per tool (landwatch first, then the time of its secret rules alone)."""
    print(f"\n{'tool':<24}{columns(halves)}  {'seconds':>8}  {'per 1k lines':>12}")
    print(f"{'':<24}" + "  recall    fp" * len(halves))
    rows: list[tuple[str, str, float]] = []
    for result in results:
        cells = "".join(
            f"  {score(in_half(examples, half), result.flagged).cell():<12}" for half in halves
        )
        rows.append((result.tool, cells, result.seconds))
        if result is results[0]:
            rows.append(("  its secret rules only", " " * 14 * len(halves), secret_seconds))
    for tool, cells, seconds in rows:
        print(f"{tool:<24}{cells}  {seconds:>8.2f}  {seconds * 1e6 / lines:>9.1f} ms")


def family_by_tool(results: list[Result], examples: list[Example], half: str) -> None:
    """Recall per family for every tool side by side (fp-rate: the families with negatives)."""
    names = [r.tool.split()[0][:14] for r in results]
    print(f"\nby family, {half}: recall / fp-rate per tool")
    print(f"{'family':<22}" + "".join(f"  {name:>14}" for name in names))
    members = in_half(examples, half)
    for family in sorted({e.family for e in members if e.headline}):
        group = [e for e in members if e.family == family]
        cells = "".join(f"  {score(group, r.flagged).cell():>14}" for r in results)
        print(f"{family:<22}{cells}")


def certainty(landwatch: Landwatch, examples: list[Example], halves: list[str]) -> None:
    """The found secrets and the false flags of each half by how surely they are told: the
    highest severity among an example's secret findings (error refuses a push)."""
    print(
        f"\n{'told at':<22}" + "".join(f"  {h + ' found':<18}  {'false flags':<13}" for h in halves)
    )
    for severity in (Severity.ERROR, Severity.WARNING, Severity.INFO):
        cells = ""
        for half in halves:
            members = [e for e in in_half(examples, half) if e.headline]
            for secret, width in ((True, 18), (False, 13)):
                told = [
                    max(f.severity for f in landwatch.findings[e.id])
                    for e in members
                    if e.secret is secret and e.id in landwatch.findings
                ]
                share = told.count(severity) / len(told) if told else 0.0
                cells += f"  {f'{told.count(severity)} ({share:.1%})':<{width}}"
        print(f"{severity.name.lower():<22}{cells}")


def headline_figures(flagged: set[str], examples: list[Example], halves: list[str]) -> None:
    """Recall and false-positive rate of each half to three places, as the issues quote them."""
    for half in halves:
        result = score(in_half(examples, half), flagged)
        print(
            f"{half}: recall {result.found / max(1, result.secrets):.3f} "
            f"({result.found}/{result.secrets}), false-positive rate "
            f"{result.false_flags / max(1, result.negatives):.3f} "
            f"({result.false_flags}/{result.negatives})"
        )


def one_line(text: str, width: int = 110) -> str:
    shown = text.strip().replace("\n", " \\n ")
    return repr(shown[:width] + ("…" if len(shown) > width else ""))


def list_misses(landwatch: Landwatch, examples: list[Example], half: str = "tuning half") -> None:
    """The misses and false flags of the examples given (a tuning half's only), by family: for
    tuning the detectors only."""
    tuning = [e for e in examples if e.headline]
    flagged = landwatch.result.flagged
    misses = [e for e in tuning if e.secret and e.id not in flagged]
    false_flags = [e for e in tuning if not e.secret and e.id in flagged]
    print(f"\n{half}: {len(misses)} missed secrets, {len(false_flags)} false flags")
    for title, chosen in (("missed", misses), ("false flag", false_flags)):
        for example in sorted(chosen, key=lambda e: (e.family, e.source, e.rule, e.id)):
            print(
                f"{title:<10} {example.id:<8} {example.family:<18} "
                f"{example.source}/{example.rule}  {example.path}"
            )
            print(f"           {one_line(example.text)}")
            for finding in landwatch.findings.get(example.id, []):
                print(f"           -> {finding.rule} {finding.message[:100]}")


def unseen(
    git_dirs: list[Path], names: list[str], tools_dir: Path, half: str, misses: bool = False
) -> None:
    """Every tool on the examples of other scanners' tests (bench/unseen_secrets.py), laid out
    one a file in their own root commit: totals by source only, so they stay unseen (with
    `misses`, whispers' `first` half's misses listed too: its tuning part)."""
    assert not misses or half == FIRST, "only whispers' first half is listed"
    found, problems = unseen_examples(git_dirs, half)
    for problem in problems:
        print(f"  not used: {problem}")
    examples = [
        Example(
            id=e.id,
            path=e.path,
            text=e.text,
            label="secret" if e.secret else "not-secret",
            headline=True,
            family="unseen",
            source=e.source,
            rule=e.rule,
        )
        for e in found
    ]
    with tempfile.TemporaryDirectory(prefix="bench-secrets-unseen-") as scratch:
        tree = Path(scratch) / "repo"
        lay_out(tree, examples)
        landwatch = run_landwatch(tree, examples, 1)
        others, skipped = run_tools(names, tools_dir, tree, examples)
    results = [landwatch.result, *others]
    sources = sorted({e.source for e in examples})
    print(
        f"\nunseen: {len(examples)} examples of other scanners' tests, labelled by them "
        f"(half: {half})"
    )
    print(f"{'tool':<24}" + "".join(f"  {source:<14}" for source in [*sources, "(all)"]))
    print(f"{'':<24}" + "  recall    fp  " * (len(sources) + 1))
    for result in results:
        cells = "".join(
            f"  {score([e for e in examples if e.source == s], result.flagged).cell():<14}"
            for s in sources
        )
        total = score(examples, result.flagged)
        hits = f"found {total.found}/{total.secrets}"
        print(f"{result.tool:<24}{cells}  {total.cell():<14}  {hits}, flagged {total.false_flags}")
    counts = "".join(
        f"  {score([e for e in examples if e.source == s], set()).secrets:>5}/"
        f"{score([e for e in examples if e.source == s], set()).negatives:<8}"
        for s in sources
    )
    print(f"{'secret/not':<24}{counts}")
    for line in skipped:
        print(line)
    if misses:
        whispers = [e for e in examples if e.source == "whispers"]
        list_misses(landwatch, whispers, "whispers' first half")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help=f"the benchmark ({DATA})")
    parser.add_argument("--half", choices=(TUNING, HELD_OUT, ALL), default=ALL)
    parser.add_argument(
        "--misses",
        action="store_true",
        help="list the tuning half's misses and false flags (and whispers' first half's)",
    )
    parser.add_argument("--no-tools", action="store_true", help="landwatch only")
    parser.add_argument("--tools", default=",".join(TOOLS), help="which other tools (all)")
    parser.add_argument("--tools-dir", type=Path, default=TOOLS_DIR, help=f"({TOOLS_DIR})")
    parser.add_argument("--repeat", type=int, default=3, help="reviews timed (median; 3)")
    parser.add_argument(
        "--unseen",
        type=Path,
        nargs="+",
        default=[],
        metavar="CLONE",
        help="git dirs of semgrep-rules, secretlint, whispers clones: measure on their tests too",
    )
    parser.add_argument(
        "--unseen-half",
        choices=(FIRST, UNTOUCHED, ALL_UNSEEN),
        default=ALL_UNSEEN,
        help="which half of the unseen examples (all)",
    )
    args = parser.parse_args()
    keep_secret_rules()  # loaded from landwatch's state, as a command would
    if args.misses and args.half == HELD_OUT:
        parser.error("--misses lists the tuning half only: the held-out half stays unseen")
    if args.misses and args.unseen and args.unseen_half != FIRST:
        parser.error("--misses lists whispers' first half only: give --unseen-half first")
    names = [] if args.no_tools else [n.strip() for n in args.tools.split(",") if n.strip()]
    if unknown := [n for n in names if n not in TOOLS]:
        parser.error(f"unknown tool(s) {', '.join(unknown)} (known: {', '.join(TOOLS)})")

    started = time.perf_counter()
    examples, problems = load(args.data.resolve())
    headline = [e for e in examples if e.headline]
    halves = [TUNING, HELD_OUT, ALL] if args.half == ALL else [args.half]
    with tempfile.TemporaryDirectory(prefix="bench-secrets-") as scratch:
        tree = Path(scratch) / "repo"
        lines = lay_out(tree, examples)
        landwatch = run_landwatch(tree, examples, max(1, args.repeat))
        others, skipped = run_tools(names, args.tools_dir.resolve(), tree, examples)

    sizes = Counter(e.half for e in headline)
    print(
        f"{len(examples)} examples from {', '.join(DATA_FILES)}: {len(headline)} headline "
        f"({sum(e.secret for e in headline)} secret, {sum(not e.secret for e in headline)} "
        f"not-secret); tuning half {sizes[TUNING]}, held-out half {sizes[HELD_OUT]}"
    )
    for problem in problems:
        print(f"  not laid out: {problem}")
    report = landwatch.report
    print(
        f"laid out: {len(examples)} files, {lines} lines, one root commit; review of it "
        f"{landwatch.result.seconds:.2f} s (median of {max(1, args.repeat)}), "
        f"{report.lines_checked} lines checked, truncated: {'yes' if report.truncated else 'no'}"
    )
    print(
        f"precedent (fixtures known from history): {landwatch.precedent_findings} secret "
        f"finding(s) left out, {len(landwatch.precedent_examples)} example(s) flagged only "
        "without it"
    )
    for note in report.notes:
        print(f"  review note: {note[:150]}")

    flagged = landwatch.result.flagged
    breakdown("landwatch by family", lambda e: e.family, examples, flagged, halves)
    breakdown("landwatch by source", lambda e: e.source, examples, flagged, halves)
    results = [landwatch.result, *others]
    tool_table(results, landwatch.secret_seconds, examples, halves, lines)
    print()
    headline_figures(flagged, examples, halves)
    certainty(landwatch, examples, halves)
    if others:
        family_by_tool(results, examples, HELD_OUT if args.half == ALL else args.half)
    for line in skipped:
        print(line)
    if args.misses:
        list_misses(landwatch, in_half(examples, TUNING))
    if args.unseen:
        unseen(
            [path.resolve() for path in args.unseen],
            names,
            args.tools_dir.resolve(),
            args.unseen_half,
            args.misses,
        )
    print(f"\nthe bench took {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
