"""Grading a class in worker processes: a learner whose grading kills the worker process
costs nobody else their grade (``grader.__main__.grade_all``)."""

import os
import time

from grader.__main__ import grade_all
from grader.course import LearnerResult, TaskResult
from grader.tasks import POINTS, STAGES, TASKS


def fake_grade(job):
    """Stands in for ``grade_job``: full marks, except that "crasher" kills its process."""
    learner = job[1]
    if learner == "crasher":
        os._exit(1)
    time.sleep(0.1)
    return LearnerResult(learner, {t: TaskResult(t, POINTS[t], POINTS[t]) for t in TASKS}), 0.1


def test_a_dying_grading_process_costs_only_its_own_learner(tmp_path):
    learners = ["ana", "ben", "crasher", "dee", "eli", "fay"]
    results = []
    stale = tmp_path / "feedback" / "crasher" / f"{STAGES['1']}.html"
    stale.parent.mkdir(parents=True)
    stale.write_text("<p>feedback from an earlier run</p>")
    grade_all([(str(tmp_path / "course"), name, "path", True, 10) for name in learners], 2,
              lambda result, seconds: results.append(result), grade=fake_grade)
    by_name = {r.learner: r for r in results}
    assert sorted(by_name) == learners and len(results) == len(learners)
    for name in learners:
        score, most = by_name[name].total
        assert score == (0 if name == "crasher" else most), name
    assert "crash" in by_name["crasher"].problems[0]
    pages = sorted((tmp_path / "feedback" / "crasher").glob("*.html"))
    assert [p.name for p in pages] == sorted(f"{name}.html" for name in STAGES.values())
    for page in pages:  # each stage's page says why, and nothing of an earlier run is left
        assert "crash" in page.read_text() and "earlier run" not in page.read_text()
    assert not (tmp_path / "feedback" / "ana").exists()  # the others' pages are grade_job's to write
