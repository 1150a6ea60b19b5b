"""The job runner: one line per kind, one job at a time, FIFO, deduplicated by subject."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import pytest

from landwatch.job_queue import (
    DEFAULT_FINISHED_KEPT,
    DEFAULT_FINISHED_RETENTION,
    Job,
    JobKind,
    JobQueue,
    JobState,
    Reporter,
)


@dataclass
class Order:
    subject: str
    gate: threading.Event = field(default_factory=threading.Event)
    fail: bool = False


class Recording(JobKind[Order, str]):
    name = "recording"

    def __init__(self) -> None:
        self.ran: list[str] = []
        self.settled: list[tuple[str, JobState]] = []
        self.started = threading.Event()

    def key(self, order: Order) -> str:
        return order.subject

    def run(self, order: Order, reporter: Reporter) -> str:
        self.ran.append(order.subject)
        reporter.progress(1, 2, "half way")
        self.started.set()
        order.gate.wait(30)
        if order.fail:
            raise ValueError(f"{order.subject} went wrong")
        return order.subject.upper()

    def settle(self, job: Job[Order, str]) -> None:
        self.settled.append((job.key, job.state))


def opened(order: Order) -> Order:
    order.gate.set()
    return order


def test_jobs_run_one_at_a_time_in_order() -> None:
    kind = Recording()
    line = JobQueue(kind)
    first = Order("a")
    jobs = [line.enqueue(first), line.enqueue(opened(Order("b"))), line.enqueue(opened(Order("c")))]
    assert kind.started.wait(10)
    assert [job.state for job in line.jobs()] == [
        JobState.RUNNING,
        JobState.QUEUED,
        JobState.QUEUED,
    ]
    assert jobs[0].progress.note == "half way" and jobs[0].progress.total == 2
    first.gate.set()
    assert line.wait_idle(10)
    assert kind.ran == ["a", "b", "c"]
    assert [job.report for job in jobs] == ["A", "B", "C"]
    assert kind.settled == [("a", JobState.DONE), ("b", JobState.DONE), ("c", JobState.DONE)]
    assert all(job.started is not None and job.finished is not None for job in jobs)
    line.close()


def test_an_order_for_a_subject_in_line_is_that_job() -> None:
    kind = Recording()
    line = JobQueue(kind)
    blocked = Order("a")
    running = line.enqueue(blocked)
    assert kind.started.wait(10)
    assert line.enqueue(Order("a")) is running  # running
    queued = line.enqueue(opened(Order("b")))
    assert line.enqueue(Order("b")) is queued  # queued
    blocked.gate.set()
    assert line.wait_idle(10)
    again = line.enqueue(opened(Order("a")))  # finished: a new job
    assert again is not running
    assert line.wait_idle(10)
    assert kind.ran == ["a", "b", "a"]
    assert running in line.jobs()
    line.close()


def test_a_failing_job_fails_alone() -> None:
    kind = Recording()
    line = JobQueue(kind)
    bad = line.enqueue(opened(Order("bad", fail=True)))
    good = line.enqueue(opened(Order("good")))
    assert line.wait_idle(10)
    assert bad.state is JobState.FAILED and bad.error == "ValueError: bad went wrong"
    assert good.state is JobState.DONE
    assert kind.settled == [("bad", JobState.FAILED), ("good", JobState.DONE)]
    line.close()


def test_finished_jobs_are_kept_by_age_and_by_count() -> None:
    class Kept(Recording):
        FINISHED_RETENTION = 100.0
        FINISHED_KEPT = 2

    now = [1000.0]
    line = JobQueue(Kept(), clock=lambda: now[0])
    jobs = [line.enqueue(opened(Order(str(n)))) for n in range(5)]
    assert line.wait_idle(10)
    assert [job.key for job in line.jobs()] == ["0", "1", "2", "3", "4"]  # within retention
    now[0] += 101
    assert [job.key for job in line.jobs()] == ["3", "4"]  # past it: the newest two
    assert jobs[0] not in line.jobs() and jobs[4] in line.jobs()
    line.close()
    assert DEFAULT_FINISHED_RETENTION > 0 and DEFAULT_FINISHED_KEPT > 0


def test_close_hands_back_what_was_queued_and_lets_the_running_job_finish() -> None:
    kind = Recording()
    line = JobQueue(kind)
    running = Order("running")
    line.enqueue(running)
    assert kind.started.wait(10)
    queued = line.enqueue(opened(Order("queued")))
    closer = threading.Thread(target=lambda: handed.extend(line.close()))
    handed: list[Job[Order, str]] = []
    closer.start()
    running.gate.set()
    closer.join(10)
    assert handed == [queued] and queued.state is JobState.QUEUED
    assert kind.ran == ["running"]
    with pytest.raises(RuntimeError):
        line.enqueue(Order("late"))


def test_a_slow_line_never_delays_another() -> None:
    class Other(Recording):
        name = "other"

    slow_kind, fast_kind = Recording(), Other()
    slow, fast = JobQueue(slow_kind), JobQueue(fast_kind)
    stuck = Order("stuck")
    slow.enqueue(stuck)
    assert slow_kind.started.wait(10)
    done = fast.enqueue(opened(Order("quick")))
    assert fast.wait_idle(10) and done.state is JobState.DONE
    assert not slow.idle
    stuck.gate.set()
    assert slow.wait_idle(10)
    slow.close()
    fast.close()


def test_listeners_hear_every_change() -> None:
    heard: list[JobState] = []
    line = JobQueue(Recording(), on_change=lambda job: heard.append(job.state))
    line.enqueue(opened(Order("a")))
    assert line.wait_idle(10)
    line.close()
    assert heard[0] is JobState.QUEUED and heard[-1] is JobState.DONE
    assert JobState.RUNNING in heard


class _Unused(JobKind[int, int]):
    name: ClassVar[str] = "unused"

    def key(self, order: int) -> str:
        return str(order)

    def run(self, order: int, reporter: Reporter) -> int:
        return order


def test_settle_is_optional() -> None:
    line = JobQueue(_Unused())
    job = line.enqueue(41)
    assert line.wait_idle(10) and job.report == 41
    line.close()


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


def test_a_job_kind_declared_outside_job_queue_runs(tmp_path: Path) -> None:
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
