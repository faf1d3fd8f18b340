"""`python -m grader hub-course` refuses what it cannot make, and the check that stands
between the course and its learners finds solution text and stubs that differ."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys

import pytest

from grader.hub.course import HubCourseError, create, leaks
from grader.settings import Settings

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("flags, says", [
    (["--course-id", "my course"], "--course-id 'my course': use letters"),
    (["--assignment", "a+b"], "--assignment 'a+b': use letters"),
    (["--duedate", "next friday"], "--duedate 'next friday': expected ISO 8601"),
    (["--late-penalty", "150"], "--late-penalty 150.0: a percentage between 0 and 100"),
])
def test_hub_course_names_what_is_wrong(tmp_path, flags, says):
    run = subprocess.run([sys.executable, "-m", "grader", "hub-course", "--out", str(tmp_path / "course"),
                          "--exchange", str(tmp_path / "exchange"), *flags], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2 and says in run.stderr, run.stderr
    assert not (tmp_path / "course").exists()


def test_hub_course_never_writes_into_a_folder_it_did_not_make(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(HubCourseError, match="not a course made by hub-course"):
        create(tmp_path, "minitorch", "minitorch", tmp_path / "exchange", Settings())
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]


def learners_copy(tmp_path: pathlib.Path) -> pathlib.Path:
    released = tmp_path / "release"
    shutil.copytree(ROOT / "minitorch", released / "minitorch", ignore=shutil.ignore_patterns("__pycache__"))
    for notebook in (ROOT / "notebooks").glob("*.ipynb"):
        shutil.copyfile(notebook, released / notebook.name)
    return released


def test_the_release_check_passes_the_learners_files_and_finds_a_leak_or_a_changed_stub(tmp_path):
    released = learners_copy(tmp_path)
    assert leaks(released) == []
    unary = released / "minitorch" / "ops_unary.py"
    unary.write_text(unary.read_text().replace('raise NotImplementedError("Task 3.1: Exp.backward")',
                                               "### BEGIN SOLUTION\n        return grad * out"))
    found = leaks(released)
    assert any("ops_unary.py holds solution or hidden-test text" in p for p in found), found
    assert any("ops_unary.py: differs" in p for p in found), found
    (released / "03_reductions.ipynb").write_text("{}")
    assert any("03_reductions.ipynb differs" in p for p in leaks(released))
