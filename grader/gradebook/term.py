"""What the term changes in the course's gradebook after grading, without grading again:
the learner's own deadline (nbgrader's extension), the instructor's scores (a correction
is nbgrader's ``manual_score``, as a grade given in formgrader is) and the late penalty
that follows from both. ``manual_scores`` reads the manual grades back, so that a grade
given in formgrader reaches grades.csv and the exports, and ``manual_comments`` the comment
typed with them, their reason."""

from __future__ import annotations

import contextlib
import datetime as dt
import sqlite3
from typing import TYPE_CHECKING, Any

from grader.gradebook.course import COMMENTS, Course
from grader.lateness import days_and_percent
from grader.tasks import STAGES, TASKS, marker, stage_of

if TYPE_CHECKING:
    from grader.gradebook.batch import Book


# nbgrader's tables, read with sqlite3: the re-run's set-up then needs neither nbgrader nor
# SQLAlchemy (about a second of imports), as only the rows with a manual value are read
_SCORES = ("SELECT sa.student_id, cell.name, g.manual_score FROM grade g JOIN base_cell cell ON g.cell_id = cell.id "
           "JOIN submitted_notebook sn ON g.notebook_id = sn.id JOIN submitted_assignment sa ON sn.assignment_id = "
           "sa.id WHERE g.manual_score IS NOT NULL")
_COMMENTS = ("SELECT sa.student_id, cell.name, nb.name, c.manual_comment FROM comment c JOIN base_cell cell ON "
             "c.cell_id = cell.id JOIN submitted_notebook sn ON c.notebook_id = sn.id JOIN notebook nb ON "
             "sn.notebook_id = nb.id JOIN submitted_assignment sa ON sn.assignment_id = sa.id "
             "WHERE c.manual_comment IS NOT NULL")


def _rows(course: Course, query: str) -> list[tuple]:
    """The rows of ``query`` in the course's gradebook (none without one, or before nbgrader
    made its tables). Opened for writing, as nbgrader opens it, so that a run killed in the
    middle of a write has its journal rolled back here, not refused."""
    path = course.root / "gradebook.db"
    if not path.is_file():
        return []
    with contextlib.closing(sqlite3.connect(path, timeout=120)) as db:
        try:
            return db.execute(query).fetchall()
        except sqlite3.OperationalError as error:
            if "no such table" in str(error):   # a first run killed while nbgrader made them: no grade yet
                return []
            raise


def manual_scores(course: Course) -> dict[str, dict[str, float]]:
    """{safe id: {task: manual score}} for every grade that has one (one query)."""
    tasks = {marker(t): t for t in TASKS}
    found: dict[str, dict[str, float]] = {}
    for student, cell, score in _rows(course, _SCORES):
        if cell in tasks:
            found.setdefault(student, {})[tasks[cell]] = float(score)
    return found


def manual_comments(course: Course) -> dict[str, dict[str, str]]:
    """{safe id: {task: comment}}: what the instructor typed in formgrader's comment box of a
    stage (under its first cell), for each task of the stage (one query)."""
    stages = {name: stage for stage, name in STAGES.items()}
    found: dict[str, dict[str, str]] = {}
    for student, cell, notebook, comment in _rows(course, _COMMENTS):
        text = (comment or "").strip()
        if cell == COMMENTS and text and notebook in stages:
            found.setdefault(student, {}).update((task, text) for task in TASKS if stage_of(task) == stages[notebook])
    return found


def settle_all(course: Course, learners: list[tuple[str, dt.datetime | None, dict[str, float | None]]]) -> None:
    """Give each ``(safe id, deadline, scores)`` their own deadline and the instructor's
    scores (``None`` clears one the grader set before), then the late penalty of each of
    their notebooks from both (a class's course has an assignment per stage, the hub's one
    for all: ``assignment_of``), in one gradebook session, one flush and one commit."""
    if not learners:
        return
    from grader.gradebook.batch import notebook_scores, submissions
    with course.gradebook() as gradebook:
        known, penalties = submissions(gradebook, [sid for sid, _, _ in learners]), []
        for sid, deadline, scores in learners:
            penalties += _settle(gradebook, course, known, sid, deadline, scores)
        gradebook.db.flush()
        scored = notebook_scores(gradebook, [notebook for notebook, _ in penalties])
        for notebook, percent in penalties:
            notebook.late_submission_penalty = scored[notebook.id] * percent / 100
        gradebook.db.commit()


def _settle(gradebook: Any, course: Course, known: Book, sid: str, deadline: dt.datetime | None,
            scores: dict[str, float | None]) -> list[tuple[Any, float]]:
    """One learner's deadline and scores set; each of their notebooks with the percent of
    its score that its late penalty is (once the scores are written)."""
    penalties = []
    for name in dict.fromkeys(course.assignment_of(stage) for stage in STAGES):
        submission = known.submissions.get((name, sid))
        if submission is None:   # not recorded (nbgrader could not): nothing to settle
            continue
        due = submission.assignment.duedate
        submission.extension = (deadline.astimezone(dt.UTC).replace(tzinfo=None) - due) \
            if deadline is not None and due is not None else None
        for task, points in scores.items():
            if course.assignment_of(stage_of(task)) == name:
                _grade(gradebook, submission, name, sid, task).manual_score = points
        _, percent = days_and_percent(submission.total_seconds_late, course.late.percent_per_day)
        penalties += [(notebook, percent) for notebook in submission.notebooks]
    return penalties


def _grade(gradebook: Any, submission: Any, assignment: str, sid: str, task: str) -> Any:
    """The grade of ``task`` in ``submission``, found among those read with it."""
    found = [g for n in submission.notebooks if n.name == STAGES[stage_of(task)] for g in n.grades
             if g.name == marker(task)]
    return found[0] if len(found) == 1 else gradebook.find_grade(marker(task), STAGES[stage_of(task)], assignment, sid)
