"""One learner of a class graded on this machine, as ``autograde`` runs it in a pool
process: read the hand-in once, grade each stage once (``grading.hand_ins``), apply the
late policy, record the result once (nbgrader's gradebook), write the feedback page. A
queue's instructor side records what a worker sent back with the same ``record``.
"""

from __future__ import annotations

import functools
import pathlib
import tempfile
import time
from dataclasses import dataclass

from grader.gradebook.course import Course
from grader.grading.hand_ins import grade_stages
from grader.intake.hand_in import HandIn, read_hand_in
from grader.lateness import ON_TIME, LatePolicy, submitted_at
from grader.outputs import feedback
from grader.results import Failure, LearnerResult, failed_everywhere
from grader.settings import Settings


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
