"""The late policy is applied once, before the grade is recorded: for a late learner,
nbgrader's gradebook (its score less its late penalty) holds grades.csv's ``final``, and
``nbgrader``'s own late-penalty step in the course applies the same rule."""

import csv
import pathlib
import shutil
import subprocess
import sys

import pytest

from grader.tasks import TOTAL

ROOT = pathlib.Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def test_the_gradebook_holds_the_final_grade_of_a_late_learner(tmp_path):
    from nbgrader.api import Gradebook
    hand_ins = tmp_path / "hand-ins"
    for learner, when in [("early", "2026-11-30 12:00:00.000000 UTC"), ("late", "2026-12-06 09:30:00.000000 UTC")]:
        shutil.copytree(ROOT / "solutions" / "minitorch", hand_ins / learner / "minitorch",
                        ignore=shutil.ignore_patterns("__pycache__"))
        (hand_ins / learner / "timestamp.txt").write_text(when)
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "grader", "autograde", str(hand_ins), "--out", str(out), "--jobs", "2",
                           "--deadline", "2026-12-01T23:59:00+00:00", "--late-penalty", "10"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = {r["learner"]: r for r in csv.DictReader((out / "grades.csv").open(encoding="utf-8")) if r["row"] == "graded"}
    assert float(rows["early"]["final"]) == TOTAL
    assert rows["late"]["late_days"] == "5" and float(rows["late"]["final"]) == round(TOTAL * 0.5, 2)
    with Gradebook(f"sqlite:///{out / 'course' / 'gradebook.db'}") as gradebook:
        for learner in ("early", "late"):
            submissions = [gradebook.find_submission(a.name, learner) for a in gradebook.assignments]
            score = sum(s.score for s in submissions)
            penalty = sum(s.late_submission_penalty for s in submissions)
            assert score == TOTAL
            assert score - penalty == pytest.approx(float(rows[learner]["final"]), abs=0.01), learner
