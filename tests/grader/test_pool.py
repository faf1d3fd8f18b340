"""Grading a class in worker processes: a learner whose grading kills the worker process
costs nobody else their grade (``grader.__main__.grade_all``)."""

import os
import time

from grader.__main__ import grade_all
from grader.course import LearnerResult, TaskResult
from grader.tasks import POINTS, TASKS


def fake_grade(job):
    """Stands in for ``grade_job``: full marks, except that "crasher" kills its process."""
    learner = job[1]
    if learner == "crasher":
        os._exit(1)
    time.sleep(0.1)
    return LearnerResult(learner, {t: TaskResult(t, POINTS[t], POINTS[t]) for t in TASKS}), 0.1


def test_a_dying_grading_process_costs_only_its_own_learner():
    learners = ["ana", "ben", "crasher", "dee", "eli", "fay"]
    results = []
    grade_all([("course", name, "path", True, 10) for name in learners], 2,
              lambda result, seconds: results.append(result), grade=fake_grade)
    by_name = {r.learner: r for r in results}
    assert sorted(by_name) == learners and len(results) == len(learners)
    for name in learners:
        score, most = by_name[name].total
        assert score == (0 if name == "crasher" else most), name
    assert "crash" in by_name["crasher"].problems[0]
