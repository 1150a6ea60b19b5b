"""A whole new kind of work, declared here and nowhere else: job_queue.py needs no edit.

It counts the lines of a file, reports progress as it goes, and writes its result durably when
the job ends, which is all a kind has to say.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from landwatch.job_queue import Job, JobKind, JobQueue, JobState, Reporter


@dataclass(frozen=True)
class CountOrder:
    path: Path


@dataclass(frozen=True)
class CountReport:
    lines: int


class CountLines(JobKind[CountOrder, CountReport]):
    name = "count-lines"
    FINISHED_KEPT = 3

    def __init__(self, results: Path) -> None:
        self.results = results

    def key(self, order: CountOrder) -> str:
        return str(order.path)

    def run(self, order: CountOrder, reporter: Reporter) -> CountReport:
        count = 0
        with order.path.open() as file:
            for count, _ in enumerate(file, 1):
                if count % 100 == 0:
                    reporter.progress(count, None, "counting")
        return CountReport(count)

    def settle(self, job: Job[CountOrder, CountReport]) -> None:
        outcome = {
            "state": job.state.value,
            "lines": job.report.lines if job.report else None,
            "error": job.error,
        }
        (self.results / (job.order.path.name + ".json")).write_text(json.dumps(outcome))


def test_a_kind_declared_outside_job_queue_runs(tmp_path: Path) -> None:
    results = tmp_path / "results"
    results.mkdir()
    (tmp_path / "a.txt").write_text("x\n" * 250)
    (tmp_path / "b.txt").write_text("y\n" * 3)
    line = JobQueue(CountLines(results))
    jobs = [line.enqueue(CountOrder(tmp_path / name)) for name in ("a.txt", "b.txt", "gone.txt")]
    assert line.wait_idle(10)
    assert [job.state for job in jobs] == [JobState.DONE, JobState.DONE, JobState.FAILED]
    assert jobs[0].report == CountReport(250) and jobs[0].progress.done == 200
    assert json.loads((results / "b.txt.json").read_text())["lines"] == 3
    assert "FileNotFoundError" in json.loads((results / "gone.txt.json").read_text())["error"]
    line.close()
