"""Which result counts and whose corrections apply, without grading anyone: the best of a
learner's kept hand-ins, a manual grade from formgrader told apart from a correction the
grader wrote itself, and a learner's own deadline."""

import datetime as dt
import pathlib
from dataclasses import replace

from grader.class_grading.jobs import GradeJob
from grader.class_grading.plan import FORMGRADER, Term, best, corrections_of, deadline_of
from grader.lateness import LatePolicy
from grader.results import Failure, LearnerResult, Verdict, failed_everywhere
from grader.settings import Settings
from grader.tasks import PARTS
from grader.term import graded
from grader.term.sheets import Correction, Extension

UTC = dt.UTC


def kept_verdicts(where: pathlib.Path, passed: set[str]) -> str:
    result = LearnerResult("someone")
    result.add([v for v in failed_everywhere("x", Failure.WRONG) if v.task not in passed])
    result.add([Verdict(t, p, pts, pts) for t in passed for p, pts in PARTS[t].items()])
    graded.save(where, result)
    return str(where)


def test_the_best_hand_in_counts_after_its_late_penalty(tmp_path):
    late = LatePolicy(dt.datetime(2026, 11, 20, tzinfo=UTC), 50)
    job = GradeJob("ana", "ana", "x", "", str(tmp_path), Settings(), late=late)
    early = replace(job, verdicts=kept_verdicts(tmp_path / "a.json", {"1.1"}),
                    handed_in=dt.datetime(2026, 11, 19, tzinfo=UTC))
    more_but_late = replace(job, verdicts=kept_verdicts(tmp_path / "b.json", {"1.1", "1.2"}),
                            handed_in=dt.datetime(2026, 11, 25, tzinfo=UTC))
    assert best([early, more_but_late]) is early
    on_time = replace(more_but_late, handed_in=dt.datetime(2026, 11, 19, tzinfo=UTC))
    assert best([early, on_time]) is on_time


def test_a_manual_grade_from_formgrader_counts_and_is_told_apart_from_the_graders_own(tmp_path):
    term = Term(tmp_path, written={"bo": {"2.2": 1.0}})
    manual = {"ana": {"1.1": 0.5}, "bo": {"2.2": 1.0}}    # bo's is the correction the grader wrote
    rows = [Correction("bo", "2.2", 1.0, "copied")]
    found = corrections_of(rows, manual, term, {"ana": "ana", "bo": "bo"})
    assert found == {"ana": (("1.1", 0.5, FORMGRADER),), "bo": (("2.2", 1.0, "correction: copied"),)}
    found = corrections_of([], manual, term, {"ana": "ana", "bo": "bo"})   # bo's row withdrawn
    assert "bo" not in found


def test_a_learners_own_deadline():
    late = LatePolicy(dt.datetime(2026, 11, 20, 12, tzinfo=UTC), 10)
    own = dt.datetime(2026, 11, 23, 12, tzinfo=UTC)
    policy, line = deadline_of("bo", late, {"bo": Extension("bo", own, "illness")})
    assert policy == LatePolicy(own, 10) and "2026-11-23 12:00 UTC (an extension: illness)" in line
    policy, line = deadline_of("ana", late, {"bo": Extension("bo", own, "illness")})
    assert policy == late and "(the class's)" in line


def test_a_course_that_cannot_be_brought_up_to_date_stops_and_leaves_no_stale_grades(tmp_path, monkeypatch, capsys):
    from grader.commands import autograde
    from grader.gradebook.course import Course

    def cannot(self):
        raise RuntimeError("nbgrader could not generate 03_reductions: Cannot add or remove cells")
    monkeypatch.setattr(Course, "create", cannot)
    (tmp_path / "in" / "ana").mkdir(parents=True)
    out = tmp_path / "out"
    out.mkdir()
    for name in ("grades.csv", "canvas.csv", "report.html"):
        (out / name).write_text("from the course before the change")
    assert autograde.main(submissions=tmp_path / "in", out=out, settings=Settings()) == 2
    said = capsys.readouterr().err
    assert "Cannot add or remove cells" in said and "move it aside and run again" in said
    assert not any((out / name).exists() for name in ("grades.csv", "canvas.csv", "report.html"))
