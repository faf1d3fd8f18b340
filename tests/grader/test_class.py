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
from borrowers import SIX
from hostile import PLANTED, SCRIPT_ERROR, SHOWN, SLOW, learners

from grader.boundary.confinement import landlock_abi
from grader.tasks import PARTS, POINTS, STAGES, TASKS, tasks_of

ROOT = pathlib.Path(__file__).resolve().parents[2]
SIX_TASKS = {"task" + label.split()[1].rstrip(":") for label in SIX}
FLAGS = ["--jobs", "2", "--call-seconds", "5", "--stage-seconds", "20"]
ROSTER = {"honest-a": "Honest A", "(maximum)": "Max Imum", "-leading-dash": "Dash"}
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800),  # two gradings of the class, on a busy machine too
              pytest.mark.skipif(landlock_abi() < 1, reason="grading a hostile class needs Landlock")]


def fingerprint(folder: pathlib.Path) -> dict:
    seen = {}
    for path in sorted(folder.rglob("*")):
        st = os.lstat(path)
        content = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
        seen[str(path.relative_to(folder))] = (st.st_mode, st.st_mtime_ns, hashlib.sha256(content).hexdigest())
    return seen


def read_grades(path: pathlib.Path, kind: str = "graded") -> dict:
    """grades.csv's rows of one kind (graded, refused, maximum), by learner."""
    return {r["learner"]: r for r in csv.DictReader(path.open(encoding="utf-8")) if r["row"] == kind}


def sids(out: pathlib.Path) -> dict:
    """The course's map of learner ids (as grades.csv shows them) to safe ids."""
    from grader.outputs.tables import spreadsheet_safe
    return {spreadsheet_safe(learner): sid for sid, learner in csv.reader((out / "course" / "learners.csv").open())}


def expected_total(expectation: str, reference: float) -> float:
    """"reference", "zero", "reference-0.5", "reference-stage 1" or "reference-part TASK/PART"."""
    if expectation in ("reference", "zero"):
        return reference if expectation == "reference" else 0.0
    if expectation.startswith("reference-stage "):
        return reference - sum(POINTS[t] for t in tasks_of(expectation.split(" ", 1)[1]))
    if expectation.startswith("reference-part "):
        task, part = expectation.split(" ", 1)[1].split("/", 1)
        return reference - PARTS[task][part]
    return reference - float(expectation.removeprefix("reference-"))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    hand_ins = tmp_path_factory.mktemp("hand-ins")
    expected = {}
    for learner, build, expectation, phrase in learners():
        build(hand_ins, learner)
        expected[learner] = (expectation, phrase)
    before = fingerprint(hand_ins)
    roster = tmp_path_factory.mktemp("roster") / "roster.csv"
    with roster.open("w", newline="", encoding="utf-8") as file:
        csv.writer(file).writerows([["learner", "name", "canvas_id"]] + [[k, v, str(i)] for i, (k, v) in
                                                                         enumerate(ROSTER.items())])
    runs = []
    for run in range(2):
        out = tmp_path_factory.mktemp(f"out{run}")
        done = subprocess.run([sys.executable, "-m", "grader", "autograde", str(hand_ins), "--out", str(out), *FLAGS,
                               "--roster", str(roster)], cwd=ROOT, capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, done.stderr[-3000:]
        runs.append((out, done))
    return hand_ins, expected, before, runs


def test_every_learner_gets_the_expected_grade_with_a_reason(graded):
    hand_ins, expected, _, runs = graded
    out = runs[0][0]
    grades, refused, feedback = read_grades(out / "grades.csv"), read_grades(out / "grades.csv", "refused"), sids(out)
    reference = float(grades["honest-a"]["total"])
    assert reference >= 75
    wrong = {}
    for learner, (expectation, phrase) in expected.items():
        key = SHOWN.get(learner, learner)
        if expectation == "refused":
            if phrase not in refused.get(key, {}).get("problems", "") or key in grades:
                wrong[learner] = ("not refused with its reason", refused.get(key))
            continue
        row = grades.get(key)
        if row is None:
            wrong[learner] = "no row"
            continue
        page = (out / "feedback" / f"{feedback[key]}.html").read_text(encoding="utf-8")
        text = row["problems"] + " ".join(page.replace("&#x27;", "'").split())
        if expectation.startswith(("like ", "reference but")):
            model = grades[expectation.removeprefix("like ")] if expectation.startswith("like ") else grades["honest-a"]
            differ = {c for c in row if c.startswith("task") and row[c] != model[c]}
            if (differ != set() if expectation.startswith("like ") else not differ <= SIX_TASKS or not differ) \
                    or phrase.lower() not in text.lower():
                wrong[learner] = (expectation, sorted(differ), row["problems"][:300])
            continue
        want = expected_total(expectation, reference)
        if float(row["total"]) != want or phrase.lower() not in text.lower():
            wrong[learner] = (row["total"], want, phrase, row["problems"][:300])
    assert wrong == {}


def test_hand_ins_in_are_rows_out_and_refusals_named(graded):
    """Every entry of the submissions folder is a graded row or a refused one, in grades.csv
    and in the run's summary; no two rows, safe ids or feedback pages are one, even where
    case is ignored; one row holds the maxima, whatever the learners are called."""
    hand_ins, _, _, runs = graded
    out, done = runs[0]
    entries = len(os.listdir(hand_ins))
    grades, refused = read_grades(out / "grades.csv"), read_grades(out / "grades.csv", "refused")
    rows = list(csv.DictReader((out / "grades.csv").open(encoding="utf-8")))
    assert len(rows) == 1 + entries == 1 + len(grades) + len(refused)
    assert [r["row"] for r in rows].count("maximum") == 1 and rows[0]["row"] == "maximum"
    assert grades["(maximum)"]["total"] == grades["honest-a"]["total"]
    assert f"{entries} entries in {hand_ins}: {len(grades)} graded (a row each in grades.csv), {len(refused)} " \
           "refused (named in grades.csv)" in done.stdout
    assert all(f"refused {name!r}: " in done.stdout for name in refused)
    pages = [p.name for p in (out / "feedback").iterdir()]
    assert len({p.casefold() for p in pages}) == len(pages) == len(grades)
    assert len({sid.casefold() for sid in sids(out).values()}) == len(grades)
    canvas = list(csv.reader((out / "canvas.csv").open(encoding="utf-8")))
    assert [row[0] for row in canvas[1:]].count("Points Possible") == 1
    assert {row[0]: row[5] for row in canvas[2:]} == {name: grades[SHOWN.get(learner, learner)]["final"]
                                                       for learner, name in ROSTER.items()}


def test_no_learner_costs_more_than_its_budgets(graded):
    """A learner's time from the progress lines (a process bomb in every call is stopped at
    the call, not when the call's time is up)."""
    _, _, _, runs = graded
    for learner, most in SLOW.items():
        for _, done in runs:
            line = next(line for line in done.stdout.splitlines() if f" {learner}: " in line)
            seconds = float(line.rsplit("(", 1)[1].split(" s)")[0])
            assert seconds < most, (learner, seconds)


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


@pytest.mark.parametrize("learner,stage", [("hangs-in-one-rule", "03_reductions"),
                                           ("borrows-module-table", "02_broadcasting"), ("borrows-collector", "07_gpt")])
def test_nbgraders_own_autograde_agrees(graded, learner, stage):
    """nbgrader's own autograde of one stage, run in the course: the learner's gradebook
    total stays grades.csv's (a borrower's included: it scores as its control there too)."""
    if stage not in STAGES.values() or learner not in {entry[0] for entry in learners()}:
        pytest.skip(f"this course has no {stage} (or no {learner}): an instructor dropped it")
    out = graded[3][0][0]
    grades = read_grades(out / "grades.csv")
    course = out / "course"
    sid = sids(out)[learner]
    env = dict(os.environ, PATH=str(pathlib.Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    done = subprocess.run([str(pathlib.Path(sys.executable).parent / "nbgrader"), "autograde", stage,
                           "--student", sid, "--force"], cwd=course, capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    import sqlite3
    with sqlite3.connect(course / "gradebook.db") as db:
        total = db.execute("select sum(coalesce(grade.manual_score, grade.auto_score)) from grade "
                           "join submitted_notebook on grade.notebook_id = submitted_notebook.id "
                           "join submitted_assignment on submitted_notebook.assignment_id = submitted_assignment.id "
                           "where submitted_assignment.student_id = ?", (sid,)).fetchone()[0]
    assert total == float(grades[learner]["total"])


@pytest.mark.skipif("3.1" not in TASKS, reason="its two learners break Task 3.1, which this course dropped")
def test_the_class_report_names_each_mistake_and_who_made_it(graded):
    out = graded[3][0][0]
    rows = list(csv.DictReader((out / "mistakes.csv").open(encoding="utf-8")))
    found = {(r["task"], r["part"], r["mistake"]): r["which"].split("; ") for r in rows}
    assert "raises-html" in found[("3.1", "Sigmoid", "raised an error")]
    assert "hangs-in-one-rule" in found[("3.1", "Sigmoid", "crash or timeout")]
    assert all(int(r["learners"]) == len(r["which"].split("; ")) for r in rows)
    assert not any(r["mistake"] == "not implemented" for r in rows)  # an empty stub is not a mistake
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "mistakes.png" in report and "scores.png" in report and (out / "mistakes.png").stat().st_size > 1000
    assert "<img src=x" not in report and "feedback/raises-html.html" in report


def test_the_gradebook_holds_what_nbgraders_own_autograde_writes(graded):
    """The class is recorded in one gradebook session (grader/gradebook/batch.py); nbgrader's
    own autograde, handed the same verdicts, writes the same rows and autograded folders."""
    import json
    import sqlite3

    from grader.gradebook.course import Course
    from grader.settings import Settings
    out = graded[3][0][0]
    course, grades = out / "course", read_grades(out / "grades.csv")
    partial = sorted(k for k, r in grades.items() if 0 < float(r["total"]) < float(grades["honest-a"]["total"])
                     and k in sids(out))
    sid = sids(out)[partial[0]]

    def snapshot() -> tuple:
        with sqlite3.connect(course / "gradebook.db") as db:
            rows = sorted(db.execute(
                "select n.name, c.name, g.auto_score, g.manual_score, g.needs_manual_grade, a.timestamp, "
                "coalesce(s.late_submission_penalty, 0) from grade g join submitted_notebook s on g.notebook_id = s.id "
                "join notebook n on s.notebook_id = n.id join base_cell c on g.cell_id = c.id "
                "join submitted_assignment a on s.assignment_id = a.id where a.student_id = ?", (sid,)).fetchall())
        folder = course / "autograded" / sid
        return rows, {p.relative_to(folder).as_posix(): json.loads(p.read_text()) if p.suffix in (".ipynb", ".json")
                      else p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}

    ours = snapshot()
    assert len(ours[0]) == sum(1 for t in TASKS) and any(score != POINTS[t.removeprefix("task").replace("_", ".")]
                                                         for _, t, score, *_ in ours[0])
    book = Course(course, Settings())
    for name in STAGES.values():
        book.api.config.GradeFromChecks.recorded = {
            sid: json.loads((course / "autograded" / sid / name / "verdicts.json").read_text())["verdicts"]}
        assert book.api.autograde(name, sid, force=True, create=True)["success"]
    assert snapshot() == ours
