"""A class graded in a pool of processes on this machine: a process that dies costs only
the learner it was grading, who is graded again alone, and gets zero with a message if
that kills its process too."""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import pathlib
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool

import grader.files as files
from grader.class_grading.jobs import GradeJob, crashed, grade_job
from grader.grading.hand_ins import become_subreaper
from grader.results import LearnerResult
from grader.term.kept import write_json


def grade_class(jobs: list[GradeJob], workers: int, done: Callable[[LearnerResult, float], None],
                grade: Callable = grade_job, meanwhile: Callable[[], None] = lambda: None) -> None:
    """Grade ``jobs`` in ``workers`` processes, calling ``done(result, seconds)`` as each
    finishes, and ``meanwhile()`` in this process while they grade. Jobs lost with a dying
    process are graded again one per process; a job that kills its process again gets zero
    with a message. They are sent longest first (``longest_first``)."""
    took: dict[str, float] = {}
    grading = {job.learner for job in jobs if not (job.verdicts and os.path.exists(job.verdicts))}

    def timed(result: LearnerResult, seconds: float) -> None:
        if result.learner in grading:   # (verdicts taken back take no time worth keeping)
            took[result.learner] = seconds
        done(result, seconds)
    for job in _pool(longest_first(jobs), workers, timed, grade, meanwhile):
        for lost in _pool([job], 1, done, grade):
            done(crashed(lost), 0.0)
    if jobs:
        _keep_times(jobs[0].out, took)


TIMES = "grading-times.json"   # under KEPT: how long each learner's last grading took (a cache, as term/kept.py's marks)


def longest_first(jobs: list[GradeJob]) -> list[GradeJob]:
    """``jobs``, those of the learners whose last grading in the same output folder took
    longest first (``TIMES``), and those never timed there before them all (a
    new hand-in may be slow): the processes then run out of work together, rather than one
    grading a slow hand-in alone at the end while the other cores wait. The order is kept
    among equals, and where no time is kept."""
    took = _times(jobs[0].out) if len(jobs) > 1 else {}
    return sorted(jobs, key=lambda job: -took.get(job.learner, math.inf)) if took else list(jobs)


def _times(out: str) -> dict[str, float]:
    try:
        kept = json.loads((pathlib.Path(out) / files.KEPT / TIMES).read_text(encoding="utf-8"))
        return {str(k): float(v) for k, v in kept.items() if isinstance(v, (int, float))}
    except (OSError, ValueError, AttributeError):   # none kept, or not one to trust: the jobs' own order
        return {}


def _keep_times(out: str, took: dict[str, float]) -> None:
    folder = pathlib.Path(out) / files.KEPT
    if took and folder.is_dir():
        try:
            write_json(folder / TIMES, {**_times(out), **{k: round(v, 2) for k, v in took.items()}})
        except OSError:   # only the next run's order is at stake
            pass


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
