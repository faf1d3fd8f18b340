"""What a re-run of a class skips, and when it must not: a hand-in whose files stat says are
unchanged takes its hash from the last run's marks (one changed in place, its time put
back, is read again), and a course as the last run made it is not made again (a stage's
notebook or a due date changed since is)."""

import datetime as dt
import json
import os
import pathlib
import sqlite3
import subprocess
import sys
import time

import pytest

from grader.gradebook import course as course_module
from grader.gradebook.course import Course
from grader.gradebook.term import manual_scores
from grader.lateness import LatePolicy
from grader.settings import Settings
from grader.term import kept


@pytest.fixture
def settled(monkeypatch):
    monkeypatch.setattr(kept, "SETTLED_NS", 0)   # files written a moment ago count as settled


def package(where, body="x = 1\n"):
    (where / "minitorch").mkdir(parents=True)
    (where / "minitorch" / "ops.py").write_text(body)
    (where / "minitorch" / "__init__.py").write_text("")
    return where


def test_an_unchanged_hand_in_is_not_read_again_and_one_changed_in_place_is(tmp_path, settled, monkeypatch):
    out, ana, bo = tmp_path / "out", package(tmp_path / "in" / "ana"), package(tmp_path / "in" / "bo")
    (out / "hand-ins").mkdir(parents=True)
    kept.hash_ahead([ana, bo], out)
    first = {p.name: kept.content_of(p) for p in (ana, bo)}
    kept.save_marks(out)
    ops = bo / "minitorch" / "ops.py"
    before = os.stat(ops)
    time.sleep(0.05)   # a change time a coarse clock can tell from the first
    ops.write_text("x = 2\n")   # the same size, and its modification time put back
    os.utime(ops, ns=(before.st_atime_ns, before.st_mtime_ns))
    read = []
    real = kept._read
    monkeypatch.setattr(kept, "_read", lambda path: read.append(os.path.basename(path)) or real(path))
    kept.hash_ahead([ana, bo], out)
    again = {p.name: kept.content_of(p) for p in (ana, bo)}
    assert again["ana"] == first["ana"] and again["bo"] != first["bo"]
    assert set(read) == {"ops.py", "__init__.py"} and len(read) == 2   # bo's files only


def test_a_hand_in_changed_a_moment_ago_is_read_again(tmp_path, monkeypatch):
    out, ana = tmp_path / "out", package(tmp_path / "in" / "ana")
    (out / "hand-ins").mkdir(parents=True)
    kept.hash_ahead([ana], out)
    kept.save_marks(out)
    assert not (out / "hand-ins" / kept.MARKS).exists()   # nothing settled: nothing to trust next time
    old = time.time_ns() - 10 * kept.SETTLED_NS
    for path in (ana / "minitorch").iterdir():
        os.utime(path, ns=(old, old))
    monkeypatch.setattr(kept, "SETTLED_NS", 0)
    kept.hash_ahead([ana], out)
    kept.save_marks(out)
    marks = json.loads((out / "hand-ins" / kept.MARKS).read_text())
    assert list(marks) == ["ana"] and marks["ana"][1] == kept.content_of(ana)
    assert str(tmp_path) not in (out / "hand-ins" / kept.MARKS).read_text()   # the term folder may move


def test_a_course_is_made_again_only_when_it_changed(tmp_path, monkeypatch):
    deadline = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)
    root = tmp_path / "course"
    Course(root, Settings(), LatePolicy(deadline, 10)).create()
    made = []
    real = course_module.grading_notebook
    monkeypatch.setattr(course_module, "grading_notebook", lambda stage: made.append(stage) or real(stage))
    assert Course(root, Settings(), LatePolicy(deadline, 10)).create().regenerated == [] and made == []

    with sqlite3.connect(root / "gradebook.db") as db:   # a due date changed in formgrader
        db.execute("UPDATE assignment SET duedate = NULL WHERE name = '03_reductions'")
    Course(root, Settings(), LatePolicy(deadline, 10)).create()
    assert len(made) == 7   # looked at again
    with sqlite3.connect(root / "gradebook.db") as db:
        rows = dict(db.execute("SELECT name, duedate FROM assignment"))
    assert rows["03_reductions"] is not None and len(set(rows.values())) == 1   # the class's deadline again

    made.clear()
    later = LatePolicy(deadline + dt.timedelta(days=2), 10)   # a new deadline: every due date follows it
    Course(root, Settings(), later).create()
    with sqlite3.connect(root / "gradebook.db") as db:
        assert {d for (d,) in db.execute("SELECT duedate FROM assignment")} != set(rows.values())

    source = root / "source" / "02_broadcasting" / "02_broadcasting.ipynb"
    notebook = json.loads(source.read_text())
    graded = next(c for c in notebook["cells"] if c["metadata"].get("nbgrader", {}).get("grade"))
    graded["metadata"]["nbgrader"]["points"] += 1   # a task's points changed since the stage was made
    source.write_text(json.dumps(notebook))
    assert Course(root, Settings(), later).create().regenerated == ["02_broadcasting"]


KILLED_WRITING = """
import os, sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("PRAGMA cache_size=1")   # the change spills into the database file before any commit
db.execute("BEGIN")
for i in range(3000):
    db.execute("INSERT INTO student (id, first_name) VALUES (?, ?)", (f"s{i}", "x" * 200))
os._exit(0)   # killed: its journal is left behind, hot
"""


def test_a_gradebook_left_by_a_killed_run_is_read(tmp_path):
    root = tmp_path / "course"
    Course(root, Settings()).create()
    subprocess.run([sys.executable, "-c", KILLED_WRITING, str(root / "gradebook.db")], check=True, timeout=120)
    assert (root / "gradebook.db-journal").stat().st_size > 0
    assert manual_scores(Course(root, Settings())) == {}   # rolled back, not refused
    with sqlite3.connect(root / "gradebook.db") as db:
        assert db.execute("SELECT count(*) FROM student").fetchone() == (0,)


def test_the_gradebook_is_imported_without_nbgraders_server_extensions():
    """A run that records grades skips nbgrader's package __init__ (its Jupyter server
    extensions); nbgrader's apps still load after it, with the package's version."""
    from importlib.metadata import version
    code = ("import sys\nfrom grader.gradebook import nbgrader_api\napi = nbgrader_api()\n"
            "print(api.__name__, 'nbgrader.server_extensions' in sys.modules)\n"
            "from nbgrader.apps import NbGraderAPI\nimport nbgrader\nprint(NbGraderAPI.__name__, nbgrader.__version__)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          cwd=pathlib.Path(__file__).resolve().parents[2])
    assert done.stdout.split() == ["nbgrader.api", "False", "NbGraderAPI", version("nbgrader")]
