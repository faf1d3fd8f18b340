"""One path per learner: read the hand-in once, grade each stage once, apply the late
policy, record the result once (nbgrader's gradebook), write the feedback page.

``grade_learner`` is what ``check`` runs (no course) and ``grade_job`` what ``autograde``
runs in a pool process; both grade through ``grade_stages`` (``stages.run_stage`` for each
stage). ``grade_class`` runs jobs in worker processes; a process that dies costs only the
learner it was grading. On a queue (``queueing.py``) a worker runs ``grade_stages`` and
``record_job`` records the result it sent back, without reading the hand-in again.
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import pathlib
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from grader.outputs import feedback
from grader.pipeline.course import Course
from grader.pipeline.intake import HandIn, read_hand_in
from grader.pipeline.lateness import ON_TIME, LatePolicy, submitted_at
from grader.results import Failure, LearnerResult, failed_everywhere
from grader.settings import Settings
from grader.tasks import STAGES


@dataclass(frozen=True)
class GradeJob:
    learner: str          # as the instructor knows it (the file name)
    sid: str              # the safe id the course and the feedback use
    path: str             # the learner's .zip or folder
    course: str           # the course folder
    out: str              # where feedback pages go
    settings: Settings
    notes: tuple[str, ...] = ()   # about this hand-in among the others (two with one id)
    late: LatePolicy = ON_TIME


def grade_learner(path: pathlib.Path, learner: str, settings: Settings,
                  progress: Callable[[str], None] = lambda stage: None) -> LearnerResult:
    """Grade a hand-in without a course (the learner's own ``check``)."""
    with tempfile.TemporaryDirectory(prefix="minitorch-hand-in-") as scratch:
        return grade_stages(read_hand_in(path, learner, pathlib.Path(scratch)), settings, progress)


def grade_stages(hand_in: HandIn, settings: Settings,
                 progress: Callable[[str], None] = lambda stage: None) -> LearnerResult:
    """Every stage's checks against a hand-in already read (``check``, ``autograde``, a
    queue worker). What one stage learns of the hand-in (an import that hangs) is kept for
    the later ones in a ``HandInMemory`` that lives as long as this call; what it noted
    for the learner joins the hand-in's problems."""
    from grader.pipeline.stages import HandInMemory, run_stage
    memory = HandInMemory()
    result = LearnerResult(hand_in.learner, problems=list(hand_in.problems))
    try:
        for stage in STAGES:
            progress(stage)
            if stage in hand_in.packages:
                result.add(run_stage(hand_in.packages[stage], stage, settings, memory))
            else:
                result.add(failed_everywhere(hand_in.broken or "no package to grade", Failure.NO_PACKAGE, [stage]))
    finally:
        memory.close()
    result.problems += memory.notes()
    return result


@functools.lru_cache(maxsize=1)
def open_course(root: str, settings: Settings, late: LatePolicy) -> Course:
    """The class's course, opened once per pool process (it holds nbgrader's API, nothing
    of any learner)."""
    return Course(pathlib.Path(root), settings, late)


def grade_job(job: GradeJob) -> tuple[LearnerResult, float]:
    """Grade one learner of a class (in a pool process): read, grade, record, write."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="minitorch-hand-in-") as scratch:
        hand_in = read_hand_in(pathlib.Path(job.path), job.learner, pathlib.Path(scratch))
        result = grade_stages(hand_in, job.settings)
        record(job, hand_in, result)
    return result, time.perf_counter() - start


def record(job: GradeJob, hand_in: HandIn, result: LearnerResult) -> None:
    """The late policy, then the gradebook, then the feedback page: once each."""
    result.sid = job.sid
    result.problems[:0] = job.notes
    handed_in = submitted_at(pathlib.Path(job.path))
    job.late.apply(result, handed_in)
    open_course(job.course, job.settings, job.late).record(hand_in, result, handed_in)
    feedback.write(result, pathlib.Path(job.out) / "feedback" / f"{result.sid}.html")


def crashed(job: GradeJob) -> LearnerResult:
    result = LearnerResult(job.learner, job.sid, problems=["grading this hand-in made the grading process itself crash; "
                                                  "nothing of it was graded (ask the instructor to look at it)"])
    result.add(failed_everywhere("not graded: the grading process crashed", Failure.NOT_GRADED))
    feedback.write(result, pathlib.Path(job.out) / "feedback" / f"{job.sid}.html")
    return result


def grade_class(jobs: list[GradeJob], workers: int, done: Callable[[LearnerResult, float], None],
                grade: Callable = grade_job) -> None:
    """Grade ``jobs`` in ``workers`` processes, calling ``done(result, seconds)`` as each
    finishes. Jobs lost with a dying process are graded again one per process; a job that
    kills its process again gets zero with a message."""
    for job in _pool(jobs, workers, done, grade):
        for lost in _pool([job], 1, done, grade):
            done(crashed(lost), 0.0)


def _pool(jobs: list[GradeJob], workers: int, done, grade) -> list[GradeJob]:
    lost: list[GradeJob] = []
    if not jobs:
        return lost
    with ProcessPoolExecutor(max(1, workers), mp_context=multiprocessing.get_context("spawn"),
                             initializer=become_subreaper) as pool:
        futures = {pool.submit(grade, job): job for job in jobs}
        for future in as_completed(futures):
            try:
                done(*future.result())
            except BrokenProcessPool:
                lost.append(futures[future])
    return lost


def become_subreaper() -> None:
    """Processes a learner's code detaches end up as this process's children, where the
    cage's sweep finds them even without control groups."""
    if hasattr(os, "sched_getaffinity"):
        import ctypes
        ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
