"""One learner of a class graded on this machine, as ``autograde`` runs it in a pool
process: read the hand-in once, grade each stage once (``grading.hand_ins``) unless the
same hand-in was graded with the same grading inputs before (``term.graded``: its verdicts
are reused), keep the verdicts, apply the corrections and the late policy with the
learner's own deadline, record the result once (nbgrader's gradebook), write the feedback
page. A queue's instructor side records what a worker sent back with the same ``record``.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import json
import pathlib
import tempfile
import time
from dataclasses import dataclass

from grader.gradebook.course import Course
from grader.gradebook.hubbook import open_at
from grader.grading.hand_ins import grade_stages
from grader.intake.hand_in import HandIn, read_hand_in
from grader.lateness import ON_TIME, LatePolicy
from grader.outputs import feedback
from grader.results import Failure, LearnerResult, failed_everywhere
from grader.settings import Settings
from grader.term import graded


@dataclass(frozen=True)
class GradeJob:
    learner: str          # as the instructor knows it (the file name)
    sid: str              # the safe id the course and the feedback use
    path: str             # the learner's .zip or folder
    course: str           # the course folder
    out: str              # where feedback pages go
    settings: Settings
    notes: tuple[str, ...] = ()   # about this hand-in among the others (two with one id)
    late: LatePolicy = ON_TIME    # with the learner's own deadline
    handed_in: dt.datetime | None = None   # from an explicit source (term.times); None: never late
    corrections: tuple[tuple[str, float, str], ...] = ()   # (task, points, reason)
    about: tuple[str, ...] = ()   # for the feedback page: which hand-in counted, the learner's deadline
    verdicts: str = ""            # where this hand-in's verdicts are kept (term.graded); reused when there
    gradebook: bool = True        # record in the course (False: only grade and keep the verdicts)


@functools.lru_cache(maxsize=1)
def open_course(root: str, settings: Settings, percent_per_day: float) -> Course:
    """The class's course (its own, or the hub's), opened once per pool process (it holds
    nbgrader's API, nothing of any learner)."""
    return open_at(pathlib.Path(root), settings, LatePolicy(None, percent_per_day))


def grade_job(job: GradeJob) -> tuple[LearnerResult, float]:
    """Grade one learner of a class (in a pool process): read, grade (or reuse the same
    hand-in's verdicts), record, write."""
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="minitorch-hand-in-") as scratch:
        hand_in = read_hand_in(pathlib.Path(job.path), job.learner, pathlib.Path(scratch))
        kept = graded.load(pathlib.Path(job.verdicts)) if job.verdicts else None
        result = kept if kept is not None else grade_stages(hand_in, job.settings)
        record(job, hand_in, result)
    return result, time.perf_counter() - start


def record(job: GradeJob, hand_in: HandIn, result: LearnerResult) -> None:
    """The verdicts kept, then the corrections and the late policy, then the learner's
    folders in the course (the gradebook is written once for the class: ``record_all``
    in ``term_run``), then the feedback page: once each."""
    result.learner, result.sid = job.learner, job.sid   # verdicts kept may be another's of the same content
    if job.verdicts:
        graded.save(pathlib.Path(job.verdicts), result)
    if not job.gradebook:
        return
    finish(job, result)
    open_course(job.course, job.settings, job.late.percent_per_day).lay_out(hand_in, result, job.handed_in)
    feedback.write(result, pathlib.Path(job.out) / "feedback" / f"{result.sid}.html", job.about, page_key(job))


def page_key(job: GradeJob) -> str:
    """A hash of all a learner's feedback page is made of: the kept verdicts (by name: they
    never change), what ``finish`` applies to them, the notes above them and the code that
    makes the page; "" when the verdicts are not kept."""
    if not job.verdicts:
        return ""
    made_of = [_page_code(), graded.name_of(job.verdicts), job.learner, job.sid, list(job.notes), repr(job.late),
               job.handed_in.isoformat() if job.handed_in else None, [list(c) for c in job.corrections], list(job.about)]
    return hashlib.sha256(json.dumps(made_of).encode()).hexdigest()[:32]


@functools.cache
def _page_code() -> str:
    """The code that makes a page from kept verdicts, hashed (the verdicts' name covers the
    results, the tasks and the manifest already: ``graded.INPUTS``)."""
    grader = pathlib.Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for name in ("outputs/feedback.py", "class_grading/jobs.py", "lateness.py"):
        digest.update((grader / name).read_bytes())
    return digest.hexdigest()


def finish(job: GradeJob, result: LearnerResult) -> LearnerResult:
    """What applies to a learner's verdicts after grading: the notes about the hand-in among
    the others, the corrections (each with its reason), the late policy."""
    result.learner, result.sid = job.learner, job.sid
    result.problems[:0] = job.notes
    for task, points, reason in job.corrections:
        if task in result.tasks:
            result.correct(task, points, reason)
    job.late.apply(result, job.handed_in)
    return result


CRASHED = ("grading this hand-in made the grading process itself crash; nothing of it was graded (ask the "
           "instructor to look at it)")


def crashed(job: GradeJob) -> LearnerResult:
    """A learner whose grading crashed its process: zero, with why (the gradebook keeps what
    it held)."""
    result = LearnerResult(job.learner, job.sid, problems=[CRASHED])
    result.add(failed_everywhere("not graded: the grading process crashed", Failure.NOT_GRADED))
    feedback.write(result, pathlib.Path(job.out) / "feedback" / f"{job.sid}.html")
    return result
