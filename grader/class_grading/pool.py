"""A class graded in a pool of processes on this machine: a process that dies costs only
the learner it was grading, who is graded again alone, and gets zero with a message if
that kills its process too."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool

from grader.class_grading.jobs import GradeJob, crashed, grade_job
from grader.grading.hand_ins import become_subreaper
from grader.results import LearnerResult


def grade_class(jobs: list[GradeJob], workers: int, done: Callable[[LearnerResult, float], None],
                grade: Callable = grade_job, meanwhile: Callable[[], None] = lambda: None) -> None:
    """Grade ``jobs`` in ``workers`` processes, calling ``done(result, seconds)`` as each
    finishes, and ``meanwhile()`` in this process while they grade. Jobs lost with a dying
    process are graded again one per process; a job that kills its process again gets zero
    with a message."""
    for job in _pool(jobs, workers, done, grade, meanwhile):
        for lost in _pool([job], 1, done, grade):
            done(crashed(lost), 0.0)


_WARM: dict[int, ProcessPoolExecutor] = {}   # workers -> a pool started ahead (``warm_up``)


def warm_up(workers: int) -> None:
    """Start ``workers`` grading processes now, while the run sets itself up: a spawned
    process takes a few tenths of a second of a core to start Python and import the grader.
    The next ``grade_class`` with as many workers grades in them; a run that grades nothing
    lets them go at its end."""
    if max(1, workers) not in _WARM:
        pool = _WARM[max(1, workers)] = _new(workers)
        for _ in range(max(1, workers)):   # one task each: every process started at once
            pool.submit(_ready)


def cool() -> None:
    """Let go of grading processes started ahead and not used (a run that graded nothing)."""
    while _WARM:
        _WARM.popitem()[1].shutdown(wait=True, cancel_futures=True)


def _ready() -> None:
    import grader.grading.stages  # noqa: F401 - what every hand-in's grading needs, imported ahead


def _new(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max(1, workers), mp_context=multiprocessing.get_context("spawn"),
                               initializer=become_subreaper)


def _pool(jobs: list[GradeJob], workers: int, done, grade, meanwhile=lambda: None) -> list[GradeJob]:
    lost: list[GradeJob] = []
    if not jobs:
        meanwhile()
        return lost
    with _WARM.pop(max(1, workers), None) or _new(workers) as pool:
        futures = {pool.submit(grade, job): job for job in jobs}
        try:
            meanwhile()
        except Exception as error:  # noqa: BLE001 - raised once the results are in, none of them lost
            failed: Exception | None = error
        else:
            failed = None
        for future in as_completed(futures):
            try:
                done(*future.result())
            except BrokenProcessPool:
                lost.append(futures[future])
    if failed is not None:
        raise failed
    return lost
