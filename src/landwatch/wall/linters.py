"""The linters a review allowed (review.linters), run: each on the committed content of each file
it wants, in a workspace of its own (wall.workspace) behind the wall, within its timeout and what
is left of the review's budget, its output capped and read into findings by review.linters.

`runner(wall)` is what a LinterPolicy runs linters with (landwatch.trust builds it).
"""

from __future__ import annotations

from collections import Counter
from functools import partial

from landwatch.review.binary import looks_binary
from landwatch.review.budget import Budget
from landwatch.review.change import FileChange
from landwatch.review.config import LinterConfig
from landwatch.review.findings import MAX_PLACED, Finding
from landwatch.review.linters import (
    Allowed,
    Linted,
    LinterPolicy,
    LinterRun,
    LinterRunner,
    baseline_key,
    findings_of,
    parse,
    unparsable,
    wants,
)
from landwatch.wall.door import Wall
from landwatch.wall.workspace import Workspace, workspace

MAX_OUTPUT = 4 * 1024 * 1024


def runner(wall: Wall) -> LinterRunner:
    """What runs a review's linters behind `wall`."""
    return partial(run_allowed, wall)


def run_allowed(
    wall: Wall, allowed: Allowed, policy: LinterPolicy, outcome: Linted, budget: Budget
) -> None:
    """Each allowed linter on each file it wants, within the review's `budget`; the trust the
    repository's configuration was given by is asked again before each run."""
    with workspace(allowed.given, wall, policy.scratch, outcome.notes) as place:
        for linter in allowed.linters:
            for file in allowed.files.values():
                if not wants(linter, file.path) or file.binary:
                    continue
                content = file.new_content()
                if content is None or looks_binary(content):
                    continue
                trusted = allowed.trusted
                if trusted is not None and (verdict := policy.vet(trusted)) is not None:
                    outcome.notes.append(verdict)  # withdrawn while the review ran
                    return
                if budget.spent:
                    budget.stop(f"linters stopped before {linter.name} on {file.path}")
                    return
                if linter.filter == "baseline":
                    found, ran = baseline(linter, file, content, place, budget)
                else:
                    found, ran = run(linter, file, content, place, _timeout(linter, budget))
                outcome.findings += found[:MAX_PLACED]
                outcome.runs.append(ran.as_dict())
                if len(found) > MAX_PLACED:
                    outcome.notes.append(
                        f"linter {linter.name} named {len(found) - MAX_PLACED:,} more lines of "
                        f"{file.path} than the {MAX_PLACED:,} kept: run it yourself to see every "
                        "one"
                    )


def run(
    linter: LinterConfig, file: FileChange, content: bytes, place: Workspace, timeout: float
) -> tuple[list[Finding], LinterRun]:
    """One linter on one file's `content`: its findings, and how the run went."""
    try:
        process = place.run(linter.command, file.path, content, timeout)
    except FileNotFoundError:
        return [], LinterRun(linter.name, file.path, "missing", f"{linter.command[0]} not found")
    except OSError as error:
        return [], LinterRun(linter.name, file.path, "failed", str(error))
    if process.timed_out:
        return [], LinterRun(linter.name, file.path, "timeout", f"no answer within {timeout:.0f} s")
    if process.over:
        return [], LinterRun(linter.name, file.path, "failed", f"{process.over} and was stopped")
    output = process.stdout[:MAX_OUTPUT].decode("utf-8", errors="replace")
    try:
        raw = parse(linter, output)
    except (ValueError, KeyError, TypeError, RecursionError) as error:  # nesting past the limit
        detail = unparsable(linter, error, process.stderr)
        return [], LinterRun(linter.name, file.path, "unparsable", detail)
    # Failed: non-zero naming nothing and saying something, or killed (bwrap says a signal as
    # 128 + it), what it named before kept. grep's 1 for "no match" says nothing: a clean file
    # (audits: every clean file of a grep linter was `failed`, then a SIGSEGV was clean, then
    # one finding and a SIGKILL).
    said, code = process.stderr.strip() or process.stdout.strip(), process.returncode
    crashed = code < 0 or code >= 126  # a signal, or a command that could not run
    found = findings_of(linter, file, content, raw)
    if code != 0 and (crashed or (not raw and said)):
        return found, _failed(linter, file.path, code, said)
    return found, LinterRun(linter.name, file.path, "ok")


def _failed(linter: LinterConfig, path: str, code: int, output: bytes) -> LinterRun:
    """A run that exited non-zero naming nothing: the linter refused (its configuration, a file
    it needs), crashed, or was not there behind the wall; not a clean file (audits: it was told
    so). `output`: what it said, its stderr, else its stdout."""
    said = [line.strip() for line in output[:4000].decode("utf-8", "replace").splitlines()]
    said = [line for line in said if line]
    if said and said[0].startswith("bwrap: execvp "):  # the wall found no such program
        return LinterRun(linter.name, path, "missing", said[0].removeprefix("bwrap: ")[:300])
    # Its first line and its last: a tool's own heading, then the cause (ruff), the exception
    # (a Python traceback's last line).
    why = " … ".join(dict.fromkeys(said[:1] + said[-1:]))
    signal = -code if code < 0 else code - 128 if code > 128 else 0
    ended = f"killed by signal {signal}" if signal else f"exited {code}"
    return LinterRun(linter.name, path, "failed", ended + (f": {why[:300]}" if why else ""))


def baseline(
    linter: LinterConfig, file: FileChange, content: bytes, place: Workspace, budget: Budget
) -> tuple[list[Finding], LinterRun]:
    """graylint's method: the linter on the whole new file and on the file before the change,
    and only what the change brought kept: breakage on lines it did not touch is found, a line
    merely moved is not reported."""
    whole = linter._replace(filter="file")
    found, ran = run(whole, file, content, place, _timeout(linter, budget))
    old = file.old_content()
    if not found or old is None or ran.status != "ok" or looks_binary(old):
        return found, ran
    before, ran_before = run(whole, file, old, place, _timeout(linter, budget))
    if ran_before.status != "ok":
        return found, ran  # nothing to compare with: all of it is reported
    known = Counter(baseline_key(finding) for finding in before)
    new = []
    for finding in found:
        key = baseline_key(finding)
        if known[key]:
            known[key] -= 1
        else:
            new.append(finding)
    return new, ran


def _timeout(linter: LinterConfig, budget: Budget) -> float:
    """The linter's own timeout, or what is left of the review's budget if that is less."""
    return max(0.1, min(linter.timeout, budget.remaining()))
