"""A scripted term, week by week, into one output folder: first hand-ins (one learner of the
roster missing, a stray file), a resubmission, a late learner given an extension, a manual
grade in nbgrader's gradebook (as formgrader writes it), a correction, a grader change that
forces a regrade, a regrade of one learner, a course whose stage changed since it was
made, and a kit update merged into the course (the term runs the grader of a copy of the
repository, the instructor's course, as it would be adapted). At the end grades.csv, the
gradebook and canvas.csv agree row by row, every correction and extension is in force,
every hand-in is kept, and the log explains every change and rebuilds grades.csv's scores."""

import csv
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest
from conftest import git, make_copy

from grader.tasks import STAGES, marker
from grader.term import log

ROOT = pathlib.Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow
DEADLINE = "2026-11-20T12:00:00+00:00"


SIGMOID = "        return grad * out * (1 - out)"   # the backward rule a mistake in a first hand-in breaks


def hand_in(folder: pathlib.Path, learner: str, version: int = 1, value_mistake: bool = False) -> None:
    target = folder / learner / "minitorch"
    if not target.exists():
        shutil.copytree(ROOT / "solutions" / "minitorch", target, ignore=shutil.ignore_patterns("__pycache__"))
    (target / "handed_in.py").write_text(f"VERSION = {version}\n")
    rule = (ROOT / "solutions" / "minitorch" / "ops_unary.py").read_text()
    assert rule.count(SIGMOID) == 1
    (target / "ops_unary.py").write_text(rule.replace(SIGMOID, "        return grad * out") if value_mistake else rule)


def autograde(folder, out, *extra, ok=True):
    course = out.parent / "course-repo"   # the instructor's course: a copy of the repository, with its own grader
    done = subprocess.run([sys.executable, "-m", "grader", "autograde", str(folder), "--out", str(out), "--jobs", "2",
                           "--roster", str(out.parent / "roster.csv"), "--deadline", DEADLINE, "--late-penalty", "10",
                           *extra], cwd=course, env=dict(os.environ, PYTHONPATH=str(course)), capture_output=True,
                          text=True, timeout=900)
    assert (done.returncode == 0) == ok, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout + done.stderr


def grades(out):
    with (out / "grades.csv").open() as file:
        return {r["learner"]: r for r in csv.DictReader(file) if r["row"] in ("graded", "missing")}


def graded_count(said: str) -> int:
    line = next(ln for ln in said.splitlines() if ln.startswith("Grading "))
    return int(line.split()[1])


def gradebook_finals(out) -> dict[str, float]:
    from nbgrader.api import Gradebook
    with (out / "course" / "learners.csv").open() as file:
        sids = {learner: sid for sid, learner in csv.reader(file)}
    with Gradebook(f"sqlite:///{out / 'course' / 'gradebook.db'}") as gradebook:
        return {learner: round(sum(s.score - s.late_submission_penalty for s in
                                   (gradebook.find_submission(name, sid) for name in STAGES.values())), 2)
                for learner, sid in sids.items()}


def set_manual_grade(out, sid, task, points):
    from nbgrader.api import Gradebook
    name = STAGES[task.split(".")[0]]
    with Gradebook(f"sqlite:///{out / 'course' / 'gradebook.db'}") as gradebook:
        gradebook.find_grade(marker(task), name, name, sid).manual_score = points
        gradebook.db.commit()


def test_a_term(tmp_path):
    folder, out = tmp_path / "submissions", tmp_path / "out"
    repo = make_copy(tmp_path)
    (tmp_path / "roster.csv").write_text("learner,name,email\nana,Ana,ana@x\nbo,Bo,bo@x\ncy,Cy,cy@x\ndi,Di,di@x\n")
    for learner in ("ana", "bo", "cy"):
        hand_in(folder, learner, value_mistake=learner == "bo")
    (folder / "notes.txt").write_text("grade bo last")

    # Week 1: first hand-ins, copied in with cp (no time of their own): times from the LMS export.
    out.mkdir()
    (out / "submitted.csv").write_text("learner,submitted_at\nana,2026-11-19T10:00:00+00:00\n"
                                       "bo,2026-11-20T09:00:00+00:00\ncy,2026-11-21T09:00:00+00:00\n")
    said = autograde(folder, out)
    assert graded_count(said) == 3 and "refused 'notes.txt'" in said and "missing 'di'" in said
    week1 = grades(out)
    full = float(week1["ana"]["final"])
    assert week1["cy"]["late_days"] == "1" and float(week1["cy"]["final"]) == pytest.approx(full * 0.9, abs=0.01)
    assert week1["di"]["row"] == "missing" and "notes.txt" not in week1

    assert float(week1["bo"]["final"]) < full

    # Week 2: bo hands in again, the mistake mended, before the deadline; only bo is graded.
    hand_in(folder, "bo", 2)
    said = autograde(folder, out)
    assert graded_count(said) == 1 and "1 for a new hand-in" in said and float(grades(out)["bo"]["final"]) == full
    assert len(json.loads((out / "hand-ins" / "bo" / "index.json").read_text())) == 2
    assert "2 kept counts" in (out / "feedback" / "bo.html").read_text()
    book = gradebook_finals(out)   # bo's changed stages recorded again, the others kept: the gradebook agrees
    assert all(book[learner] == pytest.approx(float(row["final"]), abs=0.01) for learner, row in grades(out).items()
               if row["row"] == "graded")

    # Week 3: cy's extension: no regrade, no penalty, their own deadline on their page.
    (out / "extensions.csv").write_text("learner,deadline,days,reason\ncy,,2,illness\n")
    page = out / "feedback" / "ana.html"   # nothing of ana's page changes: it is not made again (a mark shows it)
    page.write_text(page.read_text().replace("<h1>", "<h1 data-as-it-was>", 1))
    said = autograde(folder, out)
    assert graded_count(said) == 0 and float(grades(out)["cy"]["final"]) == full
    assert "your deadline: 2026-11-22 12:00 UTC (an extension: illness)" in (out / "feedback" / "cy.html").read_text()
    assert "data-as-it-was" in page.read_text()

    # Week 4: a manual grade given in formgrader reaches grades.csv and the exports.
    set_manual_grade(out, "ana", "1.1", 0.5)
    said = autograde(folder, out)
    assert grades(out)["ana"]["task1.1"] == "0.5" and "formgrader" in said

    # Week 5: a correction, and a wrong one refused before anything is written.
    (out / "corrections.csv").write_text("learner,task,points,reason\nbo,2.2,1,copied from a classmate\n")
    autograde(folder, out)
    assert grades(out)["bo"]["task2.2"] == "1"
    assert "copied from a classmate" in (out / "feedback" / "bo.html").read_text()
    before = (out / "grades.csv").read_bytes()
    (out / "corrections.csv").write_text("learner,task,points,reason\nbo,2.2,1,copied\nbo,2.2,2,again\n")
    said = autograde(folder, out, ok=False)
    assert "corrections.csv, row 3: a second row for bo, 2.2" in said and (out / "grades.csv").read_bytes() == before
    (out / "corrections.csv").write_text("learner,task,points,reason\nbo,2.2,1,copied from a classmate\n")

    # Week 6: a grader change (another limit) grades everyone again; nothing else moves.
    rows = grades(out)
    said = autograde(folder, out, "--call-seconds", "19")
    assert graded_count(said) == 3 and grades(out) == rows

    # Week 7: one learner regraded; every other row as it was.
    rows = grades(out)
    said = autograde(folder, out, "--call-seconds", "19", "--only", "cy")
    assert graded_count(said) == 1 and "no score changed for cy" in said
    assert {k: v for k, v in grades(out).items() if k != "cy"} == {k: v for k, v in rows.items() if k != "cy"}

    # Week 8: a course made before a task was added to stage 1: the stage is made again.
    source = out / "course" / "source" / STAGES["1"] / f"{STAGES['1']}.ipynb"
    notebook = json.loads(source.read_text())
    notebook["cells"] = notebook["cells"][:-1]
    source.write_text(json.dumps(notebook))
    said = autograde(folder, out, "--call-seconds", "19")
    assert "The course changed" in said and graded_count(said) == 0   # the verdicts are kept: recorded again
    assert "3 recorded again from their kept verdicts" in said and f"3 for the course changed ({STAGES['1']})" in said

    # Week 9: a kit update merged into the course (the kit reworded a check; the course had its own
    # commit since): the grader changed, so everyone is graded again, and no score moves.
    rows = grades(out)
    git(repo, "checkout", "-q", "-b", "kit")
    check = repo / "grader" / "checks" / "stage3.py"
    check.write_text(check.read_text() + "\n# the kit's later commit: a check reworded\n")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "the kit's later commit")
    git(repo, "checkout", "-q", "-")
    note = repo / "docs" / "INSTRUCTOR.md"
    note.write_text(note.read_text() + "\nOur course's own note.\n")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "the course's own commit")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "merge", "-q", "--no-edit", "kit")
    said = autograde(folder, out)
    assert graded_count(said) == 3 and "3 for a grader change (its checks or limits)" in said and grades(out) == rows

    # The output folder moved (copied elsewhere, restored from a backup): the same term, nothing to do.
    rows, lines, moved = grades(out), len(log.read(out)), tmp_path / "restored"
    shutil.move(out, moved)
    said = autograde(folder, moved)
    assert graded_count(said) == 0 and "; 0 recorded again" in said and not re.search(r"^  \d+ for ", said, re.M), said
    assert "Similarity: no hand-in and nothing of the check changed" in said   # its files stand
    assert grades(moved) == rows and len(log.read(moved)) == lines and str(out) not in (moved / "term.json").read_text()
    out = moved

    # The end: grades.csv, the gradebook and canvas.csv agree; the log rebuilds grades.csv.
    final = grades(out)
    assert final["ana"]["task1.1"] == "0.5" and final["bo"]["task2.2"] == "1" and final["cy"]["late_days"] == "0"
    with (out / "canvas.csv").open() as file:
        canvas = {r[0].lower(): float(r[5]) for r in list(csv.reader(file))[2:]}
    book = gradebook_finals(out)
    for learner in ("ana", "bo", "cy"):
        assert float(final[learner]["final"]) == pytest.approx(canvas[learner], abs=0.01) \
            == pytest.approx(book[learner], abs=0.01), learner
    assert canvas["di"] == 0.0
    rebuilt = log.rebuild(out)
    assert rebuilt == {learner: {f: row[f] for f in log.FIELDS} for learner, row in final.items()}
    reasons = {line["why"] for line in log.read(out)}
    assert {"a first hand-in", "a new hand-in"} <= reasons and any("illness" in r or "extension" in r for r in reasons)
    assert any("formgrader" in r for r in reasons) and any("copied from a classmate" in r for r in reasons)
