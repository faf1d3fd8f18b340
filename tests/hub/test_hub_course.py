"""The hub course without a hub: `python -m grader hub-course`, then nbgrader's own
`collect`, `autograde` and `export` on an exchange holding what learners' accounts left
in it, honest or not (docs/JUPYTERHUB.md).

Learner ids are system accounts every Debian has (daemon, nobody, bin): the collect step
trusts a submission only when the learner's own account owns it. The course's late rule
(10% per started day) reaches the gradebook, and the raw scores equal `grader check`'s.
Then a term on it: `python -m grader autograde` of the course's `submitted/`, a second
submission through the exchange, an extension and a formgrader grade (written as
formgrader writes it), and grades.csv, canvas.csv and the course's gradebook agree.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from grader.grading.hand_ins import grade_learner
from grader.release.regions import find_regions
from grader.settings import Settings
from grader.tasks import POINTS, STAGES, marker, stage_of

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(sys.executable).parent
FORMAT = "%Y-%m-%d %H:%M:%S.%f %Z"

pytestmark = pytest.mark.slow
if os.geteuid() != 0:
    pytest.skip("handing in as other accounts (chown) needs root", allow_module_level=True)


def run(*command: str, cwd: pathlib.Path) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, PATH=f"{BIN}:{os.environ['PATH']}"))
    assert done.returncode == 0, f"{' '.join(command)}\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done.stdout + done.stderr


FILES = ("ops_unary.py", "ops_reduce.py")  # stage 3's, filled from the reference
FILLED = {r.task for f in FILES for r in find_regions((ROOT / "solutions" / "minitorch" / f).read_text())} & set(POINTS)


def hand_in(exchange: pathlib.Path, release: pathlib.Path, name: str, owner: str, claimed: dt.datetime) -> pathlib.Path:
    """What `nbgrader submit` leaves in the exchange (stage 3 filled from the reference),
    written as ``owner`` would."""
    stamp = claimed.strftime(FORMAT)
    folder = exchange / "minitorch" / "inbound" / f"{name}+minitorch+{stamp}+x{os.urandom(3).hex()}"
    shutil.copytree(release, folder)
    for file in FILES:
        text = (ROOT / "solutions" / "minitorch" / file).read_text()
        (folder / "minitorch" / file).write_text("".join(
            line for line in text.splitlines(keepends=True) if "### BEGIN SOLUTION" not in line
            and "### END SOLUTION" not in line))
        assert find_regions(text)
    (folder / "timestamp.txt").write_text(stamp)
    subprocess.run(["chown", "-R", f"{owner}:", str(folder)], check=True)
    return folder


@pytest.mark.skipif(not FILLED, reason="the course has no task in ops_unary.py or ops_reduce.py to hand in")
def test_collect_takes_each_learners_own_hand_in_and_the_gradebook_holds_the_late_grade(tmp_path):
    now = dt.datetime.now(dt.UTC)
    due = now - dt.timedelta(days=2, hours=12)  # a hand-in now is 3 started days late
    course, exchange = tmp_path / "course", tmp_path / "exchange"
    made = run(sys.executable, "-m", "grader", "hub-course", "--out", str(course), "--exchange", str(exchange),
               "--duedate", due.isoformat(), "--late-penalty", "10", cwd=tmp_path)
    assert "mode 1777" in made and (course / "learner-jupyter" / "nbgrader_config.py").is_file()
    run("nbgrader", "release_assignment", "minitorch", cwd=course)
    release = exchange / "minitorch" / "outbound" / "minitorch"
    assert (release / "03_reductions.ipynb").is_file() and (release / "minitorch" / "ops_unary.py").is_file()

    honest = hand_in(exchange, release, "daemon", "daemon", now)
    (honest / "minitorch" / "secret.py").symlink_to(course / "gradebook.db")  # read as the instructor?
    hand_in(exchange, release, "nobody", "nobody", now - dt.timedelta(days=7))  # backdated: made now
    hand_in(exchange, release, "nobody", "daemon", now + dt.timedelta(hours=1))  # daemon's, in nobody's name
    hand_in(exchange, release, "bin", "daemon", now)  # daemon's, in bin's name

    log = run("nbgrader", "collect", "minitorch", cwd=course)
    submitted = course / "submitted"
    assert sorted(p.name for p in submitted.iterdir()) == ["daemon", "nobody"]
    assert "belongs to the account daemon" in log
    assert not (submitted / "daemon" / "minitorch" / "minitorch" / "secret.py").exists()
    claimed = (submitted / "nobody" / "minitorch" / "timestamp.txt").read_text()
    assert abs(dt.datetime.strptime(claimed.replace(" UTC", ""), "%Y-%m-%d %H:%M:%S.%f")
               - now.replace(tzinfo=None)) < dt.timedelta(minutes=5), claimed
    assert (submitted / "nobody" / "minitorch" / "minitorch" / "ops_unary.py").read_text() == \
        (honest / "minitorch" / "ops_unary.py").read_text()  # the genuine one, not daemon's later forgery

    run("nbgrader", "autograde", "minitorch", cwd=course)
    run("nbgrader", "export", "--to", str(tmp_path / "grades.csv"), cwd=course)
    with open(tmp_path / "grades.csv", newline="") as file:
        rows = {row["student_id"]: row for row in csv.DictReader(file)}
    for learner in ("daemon", "nobody"):
        expected = grade_learner(submitted / learner / "minitorch", learner, Settings()).total[0]
        row = rows[learner]
        # the learner's own package (every task of the two files filled), not the stubs
        assert float(row["raw_score"]) == expected == sum(POINTS[t] for t in FILLED)
        assert float(row["late_submission_penalty"]) == pytest.approx(0.3 * expected)
        assert float(row["score"]) == pytest.approx(0.7 * expected)
    assert "bin" not in rows or float(rows["bin"]["score"]) == 0
    a_term_on_the_course(tmp_path, course, exchange, release, {k: float(r["raw_score"]) for k, r in rows.items()})


def a_term_on_the_course(tmp_path, course, exchange, release, raw):
    """A term graded from the course's submitted/: the hub course's gradebook is the term's."""
    grades = tmp_path / "grades"
    (tmp_path / "roster.csv").write_text("learner,name\ndaemon,daemon\nnobody,nobody\n")
    term = (sys.executable, "-m", "grader", "autograde", str(course / "submitted"), "--out", str(grades),
            "--roster", str(tmp_path / "roster.csv"))   # the deadline and rate are the course's
    said = run(*term, cwd=tmp_path)
    assert "Grading 2 hand-in(s)" in said and not (grades / "course" / "gradebook.db").exists()

    task = sorted(FILLED)[0]   # nobody's, marked down to 0 in formgrader
    from nbgrader.api import Gradebook
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        gradebook.find_grade(marker(task), STAGES[stage_of(task)], "minitorch", "nobody").manual_score = 0
        gradebook.db.commit()
    (grades / "extensions.csv").write_text("learner,deadline,days,reason\ndaemon,,3,illness\n")
    hand_in(exchange, release, "daemon", "daemon", dt.datetime.now(dt.UTC))   # daemon submits again
    run("nbgrader", "collect", "--update", "minitorch", cwd=course)
    said = run(*term, cwd=tmp_path)
    assert "Grading 1 hand-in(s)" in said, said   # daemon's new one; nobody's grade reused
    assert len(json.loads((grades / "hand-ins" / "daemon" / "index.json").read_text())) == 2

    with open(grades / "grades.csv", newline="") as file:
        final = {r["learner"]: r for r in csv.DictReader(file) if r["row"] == "graded"}
    with open(grades / "canvas.csv", newline="") as file:
        canvas = {r[0]: float(r[5]) for r in list(csv.reader(file))[2:]}
    assert float(final["daemon"]["final"]) == raw["daemon"] and final["daemon"]["late_days"] == "0"
    assert final["nobody"][f"task{task}"] == "0"
    assert float(final["nobody"]["final"]) == pytest.approx(0.7 * (raw["nobody"] - POINTS[task]), abs=0.01)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for learner in ("daemon", "nobody"):
            submission = gradebook.find_submission("minitorch", learner)
            book = submission.score - submission.late_submission_penalty
            assert book == pytest.approx(float(final[learner]["final"]), abs=0.01) \
                == pytest.approx(canvas[learner], abs=0.01), learner
        assert gradebook.find_submission("minitorch", "daemon").extension.days == 3
    why = {(line["learner"], line["why"]) for line in map(json.loads, (grades / "log.jsonl").read_text().splitlines())}
    assert ("daemon", "a new hand-in") in why and any(w == "nobody" and "formgrader" in r for w, r in why)

    run("nbgrader", "generate_feedback", "minitorch", cwd=course)   # what learners fetch
    page = (course / "feedback" / "daemon" / "minitorch" / f"{STAGES[stage_of(task)]}.html").read_text()
    assert "(an extension: illness)" in page and "the last before your deadline of 2 kept counts" in page
    page = (course / "feedback" / "nobody" / "minitorch" / f"{STAGES[stage_of(task)]}.html").read_text()
    assert f"Task {task}: 0 points, given by the instructor (a manual grade given in nbgrader" in page
