"""A class with one learner per failure mode among honest ones, graded twice through the
whole pipeline (intake, confined learner processes, the nbgrader course, feedback): every
learner gets the expected grade and a reason for each point lost, the two runs agree,
the hand-ins are untouched, nothing is written outside the output folder, no feedback
page holds learner HTML or a hidden check's source, and nbgrader's own autograde in the
course gives the same grades."""

import csv
import hashlib
import os
import pathlib
import subprocess
import sys

import pytest
from hostile import PLANTED, SCRIPT_ERROR, learners

from grader.boundary.confinement import landlock_abi
from grader.pipeline.course import safe_id

ROOT = pathlib.Path(__file__).resolve().parents[2]
FLAGS = ["--jobs", "2", "--call-seconds", "5", "--stage-seconds", "20"]
pytestmark = [pytest.mark.slow, pytest.mark.skipif(landlock_abi() < 1, reason="grading a hostile class needs Landlock")]


def fingerprint(folder: pathlib.Path) -> dict:
    seen = {}
    for path in sorted(folder.rglob("*")):
        st = os.lstat(path)
        content = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
        seen[str(path.relative_to(folder))] = (st.st_mode, st.st_mtime_ns, hashlib.sha256(content).hexdigest())
    return seen


def read_grades(path: pathlib.Path) -> dict:
    rows = list(csv.DictReader(path.open(encoding="utf-8")))
    return {r["learner"]: r for r in rows[1:]}


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    hand_ins = tmp_path_factory.mktemp("hand-ins")
    expected = {}
    for learner, build, expectation, phrase in learners():
        build(hand_ins, learner)
        expected[learner] = (expectation, phrase)
    before = fingerprint(hand_ins)
    runs = []
    for run in range(2):
        out = tmp_path_factory.mktemp(f"out{run}")
        done = subprocess.run([sys.executable, "-m", "grader", "autograde", str(hand_ins), "--out", str(out), *FLAGS],
                              cwd=ROOT, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stderr[-3000:]
        runs.append((out, done))
    return hand_ins, expected, before, runs


def test_every_learner_gets_the_expected_grade_with_a_reason(graded):
    hand_ins, expected, _, runs = graded
    grades = read_grades(runs[0][0] / "grades.csv")
    reference = float(grades["honest-a"]["total"])
    assert reference >= 75
    wrong = {}
    for learner, (expectation, phrase) in expected.items():
        key = learner if learner not in ("dup", "dup.zip") else learner
        row = grades.get(key)
        if row is None:
            wrong[learner] = "no row"
            continue
        want = {"reference": reference, "zero": 0.0, "reference-0.5": reference - 0.5}[expectation]
        page = (runs[0][0] / "feedback" / f"{safe_id(key)}.html").read_text(encoding="utf-8")
        text = row["problems"] + page
        if float(row["total"]) != want or phrase.lower() not in text.lower():
            wrong[learner] = (row["total"], want, phrase, row["problems"][:200])
    assert wrong == {}


def test_two_runs_agree_and_hand_ins_are_untouched(graded):
    hand_ins, _, before, runs = graded
    first, second = (r[0] / "grades.csv" for r in runs)
    assert first.read_text() == second.read_text()
    ids = [row[1] for row in csv.reader((runs[0][0] / "course" / "learners.csv").open(encoding="utf-8"))]
    assert sorted(ids) == sorted(set(ids)) and len(ids) == len(read_grades(first))
    assert fingerprint(hand_ins) == before


def test_nothing_escapes_the_boundary(graded):
    assert not os.path.exists(PLANTED)
    assert not os.path.exists("/dev/shm/minitorch-hostile")
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert "minitorch-stray-marker" not in ps.replace("ps -eo args", "")
    assert (ROOT / "grader" / "checks" / "__init__.py").read_text().strip()


def test_feedback_pages_are_escaped_and_hold_no_hidden_source(graded):
    _, _, _, runs = graded
    source = (ROOT / "grader" / "checks" / "stage2.py").read_text()
    for page in (runs[0][0] / "feedback").glob("*.html"):
        text = page.read_text(encoding="utf-8")
        assert "<script>" not in text and "<img" not in text, page.name
        assert "def _unbroadcast_case" not in text and source[:200] not in text
    assert "&lt;script&gt;" in (runs[0][0] / "feedback" / "raises-html.html").read_text()
    assert SCRIPT_ERROR not in (runs[0][0] / "grades.csv").read_text()


def test_nbgraders_own_autograde_agrees(graded):
    out = graded[3][0][0]
    grades = read_grades(out / "grades.csv")
    course = out / "course"
    sid = safe_id("hangs-in-one-rule")
    env = dict(os.environ, PATH=str(pathlib.Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    done = subprocess.run([str(pathlib.Path(sys.executable).parent / "nbgrader"), "autograde", "03_reductions",
                           "--student", sid, "--force"], cwd=course, capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    import sqlite3
    with sqlite3.connect(course / "gradebook.db") as db:
        total = db.execute("select sum(coalesce(grade.manual_score, grade.auto_score)) from grade "
                           "join submitted_notebook on grade.notebook_id = submitted_notebook.id "
                           "join submitted_assignment on submitted_notebook.assignment_id = submitted_assignment.id "
                           "where submitted_assignment.student_id = ?", (sid,)).fetchone()[0]
    assert total == float(grades["hangs-in-one-rule"]["total"])


def test_the_class_report_names_each_mistake_and_who_made_it(graded):
    out = graded[3][0][0]
    rows = list(csv.DictReader((out / "mistakes.csv").open(encoding="utf-8")))
    found = {(r["task"], r["part"], r["pitfall"]): r["which"].split("; ") for r in rows}
    assert "raises-html" in found[("3.1", "Sigmoid", "raised an error")]
    assert "hangs-in-one-rule" in found[("3.1", "Sigmoid", "crash or timeout")]
    assert all(int(r["learners"]) == len(r["which"].split("; ")) for r in rows)
    assert not any(r["pitfall"] == "not implemented" for r in rows)  # an empty stub is not a mistake
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "mistakes.png" in report and "scores.png" in report and (out / "mistakes.png").stat().st_size > 1000
    assert "<img src=x" not in report and "feedback/raises-html.html" in report
