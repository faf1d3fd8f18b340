"""What the term changes in the course's gradebook after grading, without grading again:
the learner's own deadline (nbgrader's extension), the instructor's scores (a correction
is nbgrader's ``manual_score``, as a grade given in formgrader is) and the late penalty
that follows from both. ``manual_scores`` reads the manual grades back, so that a grade
given in formgrader reaches grades.csv and the exports, and ``manual_comments`` the comment
typed with them, their reason."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from grader.gradebook.course import Course
from grader.lateness import days_and_percent
from grader.tasks import STAGES, TASKS, marker, stage_of

if TYPE_CHECKING:
    from grader.gradebook.batch import Book


def manual_scores(course: Course) -> dict[str, dict[str, float]]:
    """{safe id: {task: manual score}} for every grade that has one (one query)."""
    tasks = {marker(t): t for t in TASKS}
    found: dict[str, dict[str, float]] = {}
    if not (course.root / "gradebook.db").is_file():
        return found
    from nbgrader.api import Grade
    with course.gradebook() as gradebook:
        for grade in gradebook.db.query(Grade).filter(Grade.manual_score.isnot(None)).all():
            if grade.name in tasks:
                found.setdefault(grade.notebook.assignment.student.id, {})[tasks[grade.name]] = float(grade.manual_score)
    return found


def manual_comments(course: Course) -> dict[str, dict[str, str]]:
    """{safe id: {task: comment}}: what the instructor typed in formgrader's comment box of a
    stage (under its first cell), for each task of the stage (one query)."""
    found: dict[str, dict[str, str]] = {}
    if not (course.root / "gradebook.db").is_file():
        return found
    from nbgrader.api import Comment

    from grader.gradebook.course import COMMENTS
    stages = {name: stage for stage, name in STAGES.items()}
    with course.gradebook() as gradebook:
        for comment in gradebook.db.query(Comment).filter(Comment.manual_comment.isnot(None)).all():
            text, notebook = (comment.manual_comment or "").strip(), comment.notebook
            if comment.name == COMMENTS and text and notebook.name in stages:
                found.setdefault(notebook.assignment.student.id, {}).update(
                    (task, text) for task in TASKS if stage_of(task) == stages[notebook.name])
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
