"""One path per learner: read the hand-in, grade each stage, write the feedback page.

``grade_learner`` is what ``check`` runs (no course) and ``grade_job`` what ``autograde``
runs in a pool process (through the course, so the gradebook is written by nbgrader
itself); both call the same checks through the same ``checks.run_stage``, directly or
from the course's preprocessor. ``grade_class`` runs jobs in worker processes; a process
that dies costs only the learner it was grading. On a queue (``queue.py``) a worker runs
``grade_stages`` and ``grade_job`` records what it sent back.
"""

from __future__ import annotations

import multiprocessing
import os
import pathlib
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import Callable

from . import feedback
from .intake import HandIn, read_hand_in
from .results import LearnerResult, failed_everywhere
from .settings import Settings
from .tasks import STAGES


@dataclass(frozen=True)
class GradeJob:
    learner: str          # as the instructor knows it (the file name)
    sid: str              # the safe id the course and the feedback use
    path: str             # the learner's .zip or folder
    course: str           # the course folder
    out: str              # where feedback pages go
    settings: Settings
    notes: tuple[str, ...] = ()   # about this hand-in among the others (two with one id)
    deadline: str | None = None   # ISO 8601; hand-ins after it lose late_penalty percent a day
    late_penalty: float = 0.0


def grade_learner(path: pathlib.Path, learner: str, settings: Settings,
                  progress: Callable[[str], None] = lambda stage: None) -> LearnerResult:
    """Grade a hand-in without a course (the learner's own ``check``)."""
    with tempfile.TemporaryDirectory(prefix="minitorch-hand-in-") as scratch:
        return grade_stages(read_hand_in(path, learner, pathlib.Path(scratch)), settings, progress)


def grade_stages(hand_in: HandIn, settings: Settings,
                 progress: Callable[[str], None] = lambda stage: None) -> LearnerResult:
    """Every stage's checks against a hand-in already read (``check``, a queue worker)."""
    from .checks import new_hand_in, run_stage
    new_hand_in()
    result = LearnerResult(hand_in.learner, problems=list(hand_in.problems))
    for stage in STAGES:
        progress(stage)
        if stage in hand_in.packages:
            result.add(run_stage(hand_in.packages[stage], stage, settings))
        else:
            result.add(failed_everywhere(hand_in.broken or "no package to grade", "no package", [stage]))
    return result


_course = None


def grade_job(job: GradeJob, graded: dict | None = None) -> tuple[LearnerResult, float]:
    """Grade one learner of a class through the course (in a pool process). With
    ``graded`` (a ``LearnerResult.to_json()`` a queue worker sent back), the course records
    those verdicts instead of running the checks here."""
    from .course import Course
    global _course
    start = time.perf_counter()
    if _course is None or str(_course.root) != job.course:
        _course = Course(pathlib.Path(job.course), job.settings)
    with tempfile.TemporaryDirectory(prefix="minitorch-hand-in-") as scratch:
        hand_in = read_hand_in(pathlib.Path(job.path), job.learner, pathlib.Path(scratch))
        result = _course.grade(hand_in, job.sid, LearnerResult.from_json(graded) if graded else None)
    result.problems[:0] = job.notes
    _apply_lateness(result, job)
    feedback.write(result, pathlib.Path(job.out) / "feedback" / f"{job.sid}.html")
    return result, time.perf_counter() - start


def _apply_lateness(result: LearnerResult, job: GradeJob) -> None:
    from .lms import lateness, parse_deadline, submitted_at
    deadline = parse_deadline(job.deadline)
    if deadline is None:
        return
    when = submitted_at(pathlib.Path(job.path))
    result.late_days, result.penalty = lateness(when, deadline, job.late_penalty)
    if result.late_days:
        result.problems.append(f"handed in {when:%Y-%m-%d %H:%M} UTC, {result.late_days} day(s) after the deadline: "
                               f"{result.penalty:g}% of the total taken off ({result.total[0]:g} -> {result.final:g})")


def crashed(job: GradeJob) -> LearnerResult:
    result = LearnerResult(job.learner, problems=["grading this hand-in made the grading process itself crash; "
                                                  "nothing of it was graded (ask the instructor to look at it)"])
    result.add(failed_everywhere("not graded: the grading process crashed", "grading error"))
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
    lost = []
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


def find_learners(folder: pathlib.Path) -> list[tuple[str, pathlib.Path, tuple[str, ...]]]:
    """One learner per entry of ``folder`` (a .zip named by its id, or a folder), with notes
    for it. Two entries with the same id are both graded, under their full names."""
    entries = []
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        if entry.name.startswith("."):
            continue
        name = entry.name
        learner = name[:-4] if name.lower().endswith(".zip") and not entry.is_dir(follow_symlinks=False) else name
        entries.append((learner, pathlib.Path(entry.path), name))
    counts: dict[str, int] = {}
    for learner, _, _ in entries:
        counts[learner] = counts.get(learner, 0) + 1
    found = []
    for learner, path, name in entries:
        notes: tuple[str, ...] = ()
        if counts[learner] > 1:
            notes = (f"two hand-ins have the learner id {learner!r}: each was graded under its full name ({name!r}); "
                     "the instructor decides which one counts",)
            learner = name
        found.append((learner, path, notes))
    return found
