"""The hub course as a term's gradebook, without a hub or a gradebook: what `autograde` of a
hub course's `submitted/` refuses before writing anything, what it takes as a learner's
hand-in, and the lines it writes above the verdicts of their autograded notebooks
(tests/hub/test_hub_course.py and test_hub.py run the whole of it)."""

from __future__ import annotations

import os
import pathlib

import nbformat
import pytest

from grader.commands import autograde
from grader.gradebook.hubbook import HEADING, HubCourse, is_hub
from grader.lateness import LatePolicy
from grader.settings import Settings
from grader.tasks import STAGES, TASKS, marker, stage_of

TASK = next(iter(TASKS))
NOTEBOOK = STAGES[stage_of(TASK)]


def hub_course(root: pathlib.Path, percent: float = 10.0) -> pathlib.Path:
    """The files that make a folder a hub course (no real gradebook: nothing here reads it)."""
    (root / "source" / "minitorch").mkdir(parents=True)
    (root / "gradebook.db").write_bytes(b"")
    (root / "nbgrader_config.py").write_text("c = get_config()  # noqa: F821\n"
                                             "# from grader.hub.config import config (made by hub-course)\n"
                                             f"c.CourseLatePolicy.percent_per_day = {percent}\n")
    return root


def test_only_a_hub_course_is_taken_for_one(tmp_path):
    assert is_hub(hub_course(tmp_path / "hub"))
    (tmp_path / "class").mkdir()
    (tmp_path / "class" / "nbgrader_config.py").write_text("from grader.gradebook.course import config\n")
    (tmp_path / "class" / "gradebook.db").write_bytes(b"")
    assert not is_hub(tmp_path / "class")


def test_the_hand_in_is_the_assignment_folder_the_learner_submitted(tmp_path):
    hub = HubCourse(hub_course(tmp_path / "hub"), Settings(), LatePolicy())
    ana, bo = tmp_path / "hub" / "submitted" / "ana", tmp_path / "hub" / "submitted" / "bo"
    (ana / "minitorch").mkdir(parents=True)
    bo.mkdir()
    (bo / "minitorch").symlink_to(ana / "minitorch")   # never followed
    assert hub.hand_in_at(ana) == ana / "minitorch" and hub.hand_in_at(bo) == bo


@pytest.mark.parametrize("learner, flags, says", [
    ("Ana.B", [], "'Ana.B' in"),
    ("ana", [5.0], "--late-penalty 5 differs from the hub course's 10"),
])
def test_what_the_hub_course_refuses_before_writing_anything(tmp_path, capsys, learner, flags, says):
    root = hub_course(tmp_path / "hub")
    (root / "submitted" / learner / "minitorch").mkdir(parents=True)
    out = tmp_path / "grades"
    late = LatePolicy(None, flags[0]) if flags else LatePolicy()
    assert autograde.main(submissions=root / "submitted", out=out, settings=Settings(), late=late) == 2
    assert says in capsys.readouterr().err and not out.exists()


def test_the_terms_lines_stand_above_the_verdicts_once(tmp_path):
    hub = HubCourse(hub_course(tmp_path / "hub"), Settings(), LatePolicy())
    folder = tmp_path / "hub" / "autograded" / "ana" / "minitorch"
    folder.mkdir(parents=True)
    nb = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell(f"# Task {TASK}")
    cell.metadata["nbgrader"] = {"grade": True, "grade_id": marker(TASK), "points": 1.0}
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"Task {TASK}: 1 / 1\n")]
    nb.cells = [nbformat.v4.new_markdown_cell("# a stage"), cell]
    nbformat.write(nb, folder / f"{NOTEBOOK}.ipynb")
    os.chmod(folder / f"{NOTEBOOK}.ipynb", 0o444)   # as nbgrader's autograde leaves it

    hub.annotate("ana", ["your deadline: 2026-12-01 (the class's)"])
    hub.annotate("ana", ["your deadline: 2026-12-03 (an extension: illness)", "graded: your hand-in ..."])
    outputs = nbformat.read(folder / f"{NOTEBOOK}.ipynb", as_version=4).cells[1].outputs
    assert [o.text for o in outputs] == [HEADING + "  your deadline: 2026-12-03 (an extension: illness)\n"
                                         "  graded: your hand-in ...\n", f"Task {TASK}: 1 / 1\n"]
    assert os.stat(folder / f"{NOTEBOOK}.ipynb").st_mode & 0o777 == 0o444
    hub.annotate("bo", ["no notebook of bo's: nothing to write"])
    assert not (tmp_path / "hub" / "autograded" / "bo").exists() and os.listdir(folder) == [f"{NOTEBOOK}.ipynb"]
