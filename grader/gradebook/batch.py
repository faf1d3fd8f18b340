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

``tests/grader/test_class.py`` (``test_the_gradebook_holds_what_nbgraders_own_autograde_writes``)
records a class both ways and compares the gradebook and the autograded folders.
``nbgrader autograde`` run by hand in the course still grades through ``GradeFromChecks``.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import os
import pathlib
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
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

    from grader.gradebook.cells import keep
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
    time, so that only that learner is left out). Their submissions are read in one query,
    and each chunk is written in one flush."""
    failed: dict[str, str] = {}
    entries = list(entries)
    if not entries:
        return failed
    sids = [sid for sid, _ in entries]
    with course.gradebook() as gradebook:
        known = submissions(gradebook, sids)
        for start in range(0, len(entries), CHUNK):
            chunk = entries[start:start + CHUNK]
            try:
                _chunk(gradebook, course, chunk, known)
                gradebook.db.commit()
                continue
            except Exception:  # noqa: BLE001 - found again below, learner by learner
                gradebook.db.rollback()
                known = submissions(gradebook, sids)   # what the rollback took back is not kept
            for entry in chunk:
                try:
                    _chunk(gradebook, course, [entry], known)
                    gradebook.db.commit()
                except Exception as error:  # noqa: BLE001 - one learner, never the class; named in their result
                    gradebook.db.rollback()
                    known = submissions(gradebook, sids)
                    failed[entry[0]] = f"{type(error).__name__}: {str(error)[:200]}"
    return failed


@dataclass
class Book:
    """What a gradebook session reads once for the learners it writes: their submissions by
    (assignment, safe id), with notebooks and grades, every assignment by name and those
    learners by id (held here: the session keeps its objects only while someone does)."""
    submissions: dict[tuple[str, str], Any]
    assignments: dict[str, Any]
    students: dict[str, Any]


def submissions(gradebook: Any, sids: Iterable[str]) -> Book:
    """The submissions of the learners ``sids``, those learners, and every assignment, in a
    few queries (not a few per learner and stage), a few hundred learners at a time."""
    from nbgrader.api import Assignment, Grade, Notebook, Student, SubmittedAssignment, SubmittedNotebook
    from sqlalchemy.orm import selectinload
    assignments = {a.name: a for a in gradebook.db.query(Assignment).options(
        selectinload(Assignment.notebooks).selectinload(Notebook._base_cells)).all()}
    wanted, students, found = sorted(set(sids)), dict[str, Any](), list[Any]()
    for start in range(0, len(wanted), 500):
        some = wanted[start:start + 500]
        students.update((s.id, s) for s in gradebook.db.query(Student).filter(Student.id.in_(some)).all())
        found += gradebook.db.query(SubmittedAssignment).filter(SubmittedAssignment.student_id.in_(some)).options(
            selectinload(SubmittedAssignment.notebooks).selectinload(SubmittedNotebook.grades).selectinload(Grade.cell),
            selectinload(SubmittedAssignment.notebooks).selectinload(SubmittedNotebook.notebook)).all()
    return Book({(s.assignment.name, s.student_id): s for s in found}, assignments, students)


def notebook_scores(gradebook: Any, notebooks: list) -> dict[str, float]:
    """{id: score} of submitted notebooks, as nbgrader computes a notebook's score (a query
    over its grades), a few hundred at a time."""
    from nbgrader.api import SubmittedNotebook
    scores: dict[str, float] = {}
    ids = [n.id for n in notebooks]
    for start in range(0, len(ids), 500):
        scores.update(gradebook.db.query(SubmittedNotebook.id, SubmittedNotebook.score)
                      .filter(SubmittedNotebook.id.in_(ids[start:start + 500])).all())
    return scores


def _chunk(gradebook: Any, course: Course, chunk: list[tuple[str, dt.datetime | None]], known: Book) -> None:
    """Learners' submissions as nbgrader's SaveAutoGrades and AssignLatePenalties leave them,
    in one flush, and the late penalties from the scores it wrote."""
    from nbgrader.api import Student
    from nbgrader.utils import determine_grade
    late = []
    for sid, handed_in in chunk:
        if sid not in known.students:   # as update_or_create_student, without its commit
            gradebook.db.add(student := Student(id=sid))
            known.students[sid] = student
        for name in STAGES.values():
            path = course.root / "autograded" / sid / name / f"{name}.ipynb"
            nb = from_dict(json.loads(path.read_text(encoding="utf-8")))
            scores = {c.metadata["nbgrader"]["grade_id"]: determine_grade(c)[0] for c in nb.cells
                      if c.metadata.get("nbgrader", {}).get("grade")}
            submission = known.submissions.get((name, sid))
            if submission is None:
                submission = known.submissions[(name, sid)] = _add(gradebook, known.assignments[name], known.students[sid])
            submission.timestamp = handed_in.astimezone(dt.UTC).replace(tzinfo=None) if handed_in else None
            seconds = submission.total_seconds_late
            for notebook in submission.notebooks:
                for grade in notebook.grades:
                    if grade.name in scores and (grade.auto_score is None or grade.auto_score != scores[grade.name]):
                        grade.auto_score = scores[grade.name]   # an unchanged score keeps its record, as it stood
                        grade.needs_manual_grade = grade.manual_score is not None or grade.auto_score is None
                notebook.late_submission_penalty = None
                if seconds > 0:
                    late.append((notebook, days_and_percent(seconds, course.late.percent_per_day)[1]))
    gradebook.db.flush()
    scored = notebook_scores(gradebook, [notebook for notebook, _ in late])
    for notebook, percent in late:
        score = scored[notebook.id]
        notebook.late_submission_penalty = min(max(score * percent / 100, 0.0), score)


def _add(gradebook: Any, assignment: Any, student: Any) -> Any:
    """A new submission with a grade for every graded cell (``Gradebook.add_submission``
    without its commit and its queries: the session writes the chunk at once)."""
    from nbgrader.api import Comment, Grade, SubmittedAssignment, SubmittedNotebook
    submission = SubmittedAssignment(assignment=assignment, student=student)
    for notebook in assignment.notebooks:
        made = SubmittedNotebook(notebook=notebook, assignment=submission)
        for cell in notebook.grade_cells:
            Grade(cell=cell, notebook=made)
        for cell in notebook.solution_cells:
            Comment(cell=cell, notebook=made)
        for cell in notebook.task_cells:
            Comment(cell=cell, notebook=made)
            Grade(cell=cell, notebook=made)
    gradebook.db.add(submission)
    return submission


__all__ = ["Book", "lay_out", "notebook_scores", "record_all", "submissions"]
