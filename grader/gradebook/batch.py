"""A class recorded in the course's gradebook the way nbgrader's autograde records it,
without running nbgrader's autograde once per learner and stage.

nbgrader's autograde of one stage (``course.config``: ``GradeFromChecks`` in place of
``Execute``) copies the submitted folder into ``autograded/``, writes the verdicts into the
graded cells, scores each cell with ``nbgrader.utils.determine_grade``, and saves those
scores and the late penalty in the gradebook. Done through nbgrader, that cost more than
grading the hand-in: seven conversions, each opening the database about ten times. Here
the same happens in two steps:

* ``lay_out`` (in the process that graded the learner): ``submitted/<id>/<stage>/`` (the
  stage's notebook, ``timestamp.txt``, the learner's package) and ``autograded/<id>/<stage>/``
  (the same, the notebook with its cells written by ``preprocessor.write_cells`` and the
  verdicts kept in ``verdicts.json``), as nbgrader's autograde leaves them;
* ``record_all`` (once, for the whole class): every learner's submissions, cell scores
  (``determine_grade`` on those notebooks) and late penalties, in one gradebook session
  (a cell whose score did not change keeps its record, formgrader's flags included).

``tests/grader/test_gradebook_batch.py`` records a learner both ways and compares the
gradebook and the autograded folders. ``nbgrader autograde`` run by hand in the course
still grades through ``GradeFromChecks``.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import os
import pathlib
import shutil
from collections.abc import Iterable
from typing import Any

from nbformat import from_dict

from grader.intake.hand_in import HandIn
from grader.lateness import days_and_percent
from grader.results import LearnerResult
from grader.tasks import STAGES, stage_of

Course = Any   # gradebook.course.Course, which calls these
CHUNK = 50     # learners per commit


def lay_out(course: Course, hand_in: HandIn, result: LearnerResult, handed_in: dt.datetime | None) -> None:
    """The learner's submitted and autograded folders, one per stage (any left before are
    replaced). The package is copied once; its other places in the course are links to that
    copy (nothing in the course writes into a package: nbgrader replaces files whole)."""
    from nbformat.v4.nbjson import writes

    from grader.gradebook.preprocessor import keep
    stamp = handed_in.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%S.%f UTC") if handed_in else None
    copies: dict[pathlib.Path, pathlib.Path] = {}   # a package -> its first copy in the course
    for stage, name in STAGES.items():
        for kind in ("submitted", "autograded"):
            folder = course.root / kind / result.sid / name
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            if stamp is not None:   # none known: never late
                (folder / "timestamp.txt").write_text(stamp)
            package = hand_in.packages.get(stage)
            if package is None:
                continue
            if package in copies:
                shutil.copytree(copies[package], folder / "minitorch", copy_function=os.link)
            else:
                copies[package] = shutil.copytree(package, folder / "minitorch")
        text = _release(course.root, name)
        (course.root / "submitted" / result.sid / name / f"{name}.ipynb").write_text(text, encoding="utf-8")
        nb = from_dict(json.loads(text))
        ours = LearnerResult(result.sid)   # as GradeFromChecks makes it from the verdicts handed in
        ours.add([v for v in result.all_verdicts() if stage_of(v.task) == stage])
        folder = course.root / "autograded" / result.sid / name
        keep(nb, ours, folder / "verdicts.json")
        (folder / f"{name}.ipynb").write_text(writes(nb), encoding="utf-8")   # nbformat's own writer


@functools.lru_cache(maxsize=16)
def _release(root: pathlib.Path, name: str) -> str:
    """A stage's notebook as released in the course (read once per process)."""
    return (root / "release" / name / f"{name}.ipynb").read_text(encoding="utf-8")


def record_all(course: Course, entries: Iterable[tuple[str, dt.datetime | None]]) -> dict[str, str]:
    """Every ``(safe id, time handed in)`` of ``entries``, laid out before (``lay_out``), in
    the gradebook, in one session, committed every ``CHUNK`` learners; returns why for each
    learner it could not record (a chunk that fails is recorded again one learner at a
    time, so that only that learner is left out)."""
    failed: dict[str, str] = {}
    entries = list(entries)
    with course.gradebook() as gradebook:
        for start in range(0, len(entries), CHUNK):
            chunk = entries[start:start + CHUNK]
            try:
                for sid, handed_in in chunk:
                    _learner(gradebook, course, sid, handed_in)
                gradebook.db.commit()
                continue
            except Exception:  # noqa: BLE001 - found again below, learner by learner
                gradebook.db.rollback()
            for sid, handed_in in chunk:
                try:
                    _learner(gradebook, course, sid, handed_in)
                    gradebook.db.commit()
                except Exception as error:  # noqa: BLE001 - one learner, never the class; named in their result
                    gradebook.db.rollback()
                    failed[sid] = f"{type(error).__name__}: {str(error)[:200]}"
    return failed


def _learner(gradebook: Any, course: Course, sid: str, handed_in: dt.datetime | None) -> None:
    from nbgrader.api import Student
    from nbgrader.utils import determine_grade
    if gradebook.db.get(Student, sid) is None:   # as update_or_create_student, without its commit
        gradebook.db.add(Student(id=sid))
    for name in STAGES.values():
        path = course.root / "autograded" / sid / name / f"{name}.ipynb"
        nb = from_dict(json.loads(path.read_text(encoding="utf-8")))
        scores = {c.metadata["nbgrader"]["grade_id"]: determine_grade(c)[0] for c in nb.cells
                  if c.metadata.get("nbgrader", {}).get("grade")}
        _submission(gradebook, course, name, sid, handed_in, scores)


def _submission(gradebook: Any, course: Course, name: str, sid: str, handed_in: dt.datetime | None,
                scores: dict[str, float | None]) -> None:
    """One stage's submission as nbgrader's SaveAutoGrades and AssignLatePenalties leave it."""
    from nbgrader.api import SubmittedAssignment
    timestamp = handed_in.astimezone(dt.UTC).replace(tzinfo=None) if handed_in else None
    try:
        submission = gradebook.find_submission(name, sid)
    except Exception:  # noqa: BLE001 - nbgrader's MissingEntry: made with every cell, as nbgrader makes it
        submission = _add(gradebook, SubmittedAssignment, name, sid)
    submission.timestamp = timestamp
    for notebook in submission.notebooks:
        for grade in notebook.grades:
            if grade.name in scores and (grade.auto_score is None or grade.auto_score != scores[grade.name]):
                grade.auto_score = scores[grade.name]   # an unchanged score keeps its record, as it stood
                grade.needs_manual_grade = grade.manual_score is not None or grade.auto_score is None
        gradebook.db.flush()
        gradebook.db.expire(notebook)   # its score is a query over its grades: read again
        notebook.late_submission_penalty = None
        seconds = submission.total_seconds_late
        if seconds > 0:
            _, percent = days_and_percent(seconds, course.late.percent_per_day)
            notebook.late_submission_penalty = min(max(notebook.score * percent / 100, 0.0), notebook.score)


def _add(gradebook: Any, kind: Any, name: str, sid: str) -> Any:
    """A new submission with a grade for every graded cell (``Gradebook.add_submission``
    without its commit: the session commits once)."""
    from nbgrader.api import Comment, Grade, SubmittedNotebook
    submission = kind(assignment=gradebook.find_assignment(name), student=gradebook.find_student(sid))
    for notebook in submission.assignment.notebooks:
        made = SubmittedNotebook(notebook=notebook, assignment=submission)
        for cell in notebook.grade_cells:
            Grade(cell_id=cell.id, notebook=made)
        for cell in notebook.solution_cells:
            Comment(cell_id=cell.id, notebook=made)
        for cell in notebook.task_cells:
            Comment(cell_id=cell.id, notebook=made)
            Grade(cell_id=cell.id, notebook=made)
    gradebook.db.add(submission)
    gradebook.db.flush()
    return submission


__all__ = ["lay_out", "record_all"]
