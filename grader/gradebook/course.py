"""The nbgrader course that records a class's grades.

Each stage is an nbgrader assignment whose notebook has one graded cell per task (points
from the manifest). A learner's package is put beside that notebook in
``submitted/<id>/<stage>/`` with the hand-in's time in ``timestamp.txt``, and recorded as
nbgrader's own ``autograde`` records it (``batch.py``, one gradebook session for a class):
each task's result written into its cell, the cell scored by nbgrader's rule, the late
penalty taken off with the course's rule (``preprocessor.CourseLatePolicy``; each
assignment's due date is the deadline). So the gradebook's score less its late penalty is
grades.csv's ``final``. ``nbgrader autograde`` run by hand in the course (``nbgrader_config.py``
and ``config`` below) runs ``GradeFromChecks`` (``preprocessor.py``) instead of executing
the notebook, and grades the same way, through the same checks.

Learner ids reach nbgrader only as safe ids (``intake.submissions.safe_id``); ``learners.csv`` in the course
maps them back.
"""

from __future__ import annotations

import contextlib
import csv
import datetime as dt
import json
import os
import pathlib
import shutil
import sqlite3
import sys
import warnings
from typing import Any

from grader.intake.hand_in import HandIn
from grader.lateness import ON_TIME, LatePolicy
from grader.results import LearnerResult
from grader.settings import Settings
from grader.tasks import PARTS, STAGES, TASKS, marker, tasks_of

GRADER = pathlib.Path(__file__).resolve().parents[1]
MADE = "made.json"   # what create left, to tell a re-run that nothing needs making
COMMENTS = "comments"   # each stage's cell whose formgrader comment is the reason of its manual grades
COMMENT_CELL = "# Your instructor's comments on this stage, if any, are below."
warnings.filterwarnings("ignore", module="sqlalchemy")  # nbgrader's ORM chatter
warnings.filterwarnings("ignore", message=".*not in session.*")

NBGRADER_CONFIG = """\
# nbgrader's own commands on this course grade as `python -m grader autograde` does: the
# grader that made the course runs its trusted checks against each learner's package.
import sys

c = get_config()  # noqa: F821
sys.path.insert(0, {root!r})
try:  # nbgrader would only log an error here and then grade with its defaults: stop instead
    from grader.gradebook.course import config
    c.merge(config({course!r}, {settings!r}, {late_penalty!r}))
except Exception as error:
    raise SystemExit(f"{{__file__}}: the grader that made this course ({root}) could not be loaded "
                     f"({{type(error).__name__}}: {{error}}); without it nbgrader would give wrong grades") from None
c.Application.log_level = "INFO"
"""


def config(root: str | pathlib.Path, settings: dict, late_penalty: float = 0.0) -> Any:
    from nbgrader.converters import Autograde
    from traitlets.config import Config

    from grader.gradebook.preprocessor import CourseLatePolicy, GradeFromChecks
    root = pathlib.Path(root)
    c = Config()
    c.CourseDirectory.root = str(root)
    c.CourseDirectory.db_url = f"sqlite:///{root / 'gradebook.db'}?timeout=120"
    c.OverwriteCells.add_missing_cells = True
    c.ClearSolutions.code_stub = {"python": COMMENT_CELL}
    c.Application.log_level = "ERROR"
    for name, value in settings.items():
        setattr(c.GradeFromChecks, name, value)
    c.AssignLatePenalties.plugin_class = CourseLatePolicy
    c.CourseLatePolicy.percent_per_day = float(late_penalty)
    # nbgrader 0.9.6's autograde runs Execute among its preprocessors; ours takes its place.
    # If a later nbgrader drops or renames it, stop rather than grade without the checks.
    defaults = Autograde.class_traits()["autograde_preprocessors"].default()
    if [p.__name__ for p in defaults].count("Execute") != 1:
        raise RuntimeError("this nbgrader's autograde has no single Execute step for the grader to replace "
                           f"({[p.__name__ for p in defaults]}); the grader was written against nbgrader 0.9.6")
    c.Autograde.autograde_preprocessors = [GradeFromChecks if p.__name__ == "Execute" else p for p in defaults]
    return c


def _grade_cells(nb: Any) -> list[tuple[str, float]]:
    return [(c.metadata["nbgrader"]["grade_id"], c.metadata["nbgrader"]["points"]) for c in nb.cells
            if c.metadata.get("nbgrader", {}).get("grade")]


def grading_notebook(stage: str) -> Any:
    """The notebook of a stage's assignment: a graded cell per task, nothing to run."""
    import nbformat
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells.append(nbformat.v4.new_markdown_cell(f"# Stage {stage}: {STAGES[stage]}\n\nEach cell below holds the "
                                                  "grader's verdict on one task of your minitorch package."))
    comments = nbformat.v4.new_code_cell(COMMENT_CELL)   # nothing runs it; nbgrader takes it for an answer
    comments.metadata["nbgrader"] = {"grade": False, "grade_id": COMMENTS, "locked": False, "schema_version": 3,
                                     "solution": True, "task": False}   # formgrader's comment box is under it
    nb.cells.append(comments)
    for task in tasks_of(stage):
        cell = nbformat.v4.new_code_cell(f"# Task {task}: {TASKS[task]} (checked by the grader, outside this notebook)")
        cell.metadata["nbgrader"] = {"grade": True, "grade_id": marker(task), "locked": True, "schema_version": 3,
                                     "points": sum(PARTS[task].values()), "solution": False, "task": False}
        nb.cells.append(cell)
    for number, cell in enumerate(nb.cells):
        cell.id = f"s{stage}-{number:02d}"
    return nb


class Course:
    def __init__(self, root: pathlib.Path, settings: Settings, late: LatePolicy = ON_TIME) -> None:
        self.root, self.settings, self.late = pathlib.Path(root).resolve(), settings, late
        self.ledger = self.root / "learners.csv"   # learner -> safe id
        self._api: Any = None

    def assignment_of(self, stage: str) -> str:
        """The nbgrader assignment that holds ``stage``'s notebook: its own, here."""
        return STAGES[stage]

    def hand_in_at(self, path: pathlib.Path) -> pathlib.Path:
        """What of a learner's entry in the submissions folder is their hand-in: all of it."""
        return path

    def annotate(self, sid: str, lines: list[str]) -> None:
        """Nothing: the feedback pages carry the term's lines (the hub's course writes them
        into its notebooks)."""

    def create(self) -> Course:
        """Make the course's assignments that it lacks (all of them the first time, a stage
        or task added since then later), give each the deadline as its due date, and write
        its config. A stage whose tasks changed since its assignment was made (a task added,
        changed or dropped) is made again, its recorded grades with it: ``regenerated``
        names those stages, and a stage dropped from the course leaves the gradebook."""
        bin_dir = str(pathlib.Path(sys.executable).parent)  # nbgrader runs `alembic` from PATH
        os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "nbgrader_config.py").write_text(NBGRADER_CONFIG.format(
            root=str(GRADER.parent), course=str(self.root), settings=self.settings.as_dict(),
            late_penalty=self.late.percent_per_day))
        self.regenerated: list[str] = []
        if self._as_made():
            return self
        import nbformat
        for stage, name in STAGES.items():
            source = self.root / "source" / name / f"{name}.ipynb"
            fresh = grading_notebook(stage)
            if source.is_file() and _grade_cells(nbformat.read(source, as_version=4)) == _grade_cells(fresh) \
                    and (self.root / "release" / name / f"{name}.ipynb").is_file():
                continue
            if source.is_file():   # nbgrader cannot add or remove the cells of a recorded assignment
                self._forget(name)
            source.parent.mkdir(parents=True, exist_ok=True)
            nbformat.write(fresh, source)
            result = self.api.generate_assignment(name, force=True)
            if not result["success"]:
                raise RuntimeError(f"nbgrader could not generate {name}: {result.get('error')}")
            self.regenerated.append(name)
        with self.gradebook() as gradebook:
            for assignment in [a.name for a in gradebook.assignments if a.name not in STAGES.values()]:
                self._forget(assignment)   # a stage dropped from the course
                self.regenerated.append(assignment)
            for name in STAGES.values():
                gradebook.update_or_create_assignment(name, duedate=self.late.deadline)
        (self.root / MADE).write_text(json.dumps(self._made()))
        return self

    def _made(self) -> dict:
        """What ``create`` leaves: each stage's graded cells and the gradebook's assignments
        with their due dates, as the database holds them (read with sqlite3)."""
        stages = {name: [[marker(t), sum(PARTS[t].values())] for t in tasks_of(stage)] for stage, name in STAGES.items()}
        with contextlib.closing(sqlite3.connect(f"{(self.root / 'gradebook.db').as_uri()}?mode=ro", uri=True,
                                                timeout=120)) as db:
            rows = sorted(map(list, db.execute("SELECT name, duedate FROM assignment")))
        return {"deadline": str(self.late.deadline), "stages": stages, "assignments": rows}

    def _as_made(self) -> bool:
        """Whether the course is as the last ``create`` left it, for the same stages and
        deadline (a re-run's case), so that nothing needs nbformat or nbgrader (about a
        second of imports): the sources still hold the graded cells it wrote, each stage
        has its release, and the gradebook's assignments and due dates are unchanged."""
        try:
            made = self._made()
            if json.loads((self.root / MADE).read_text()) != made:
                return False
            for name, cells in made["stages"].items():
                source = json.loads((self.root / "source" / name / f"{name}.ipynb").read_text())
                graded = [[c["metadata"]["nbgrader"]["grade_id"], c["metadata"]["nbgrader"]["points"]]
                          for c in source["cells"] if c.get("metadata", {}).get("nbgrader", {}).get("grade")]
                if graded != cells or not (self.root / "release" / name / f"{name}.ipynb").is_file():
                    return False
        except (OSError, ValueError, KeyError, TypeError, sqlite3.Error):
            return False
        return True

    def _forget(self, name: str) -> None:
        """An assignment out of the gradebook and the course's folders, to be made again."""
        with self.gradebook() as gradebook:
            if name in {a.name for a in gradebook.assignments}:
                gradebook.remove_assignment(name)
        gone = name not in STAGES.values()
        for folder in ("release", "autograded", "feedback", "submitted") + (("source",) if gone else ()):
            shutil.rmtree(self.root / folder / name, ignore_errors=True)
            for learner in (self.root / folder).glob(f"*/{name}") if (self.root / folder).is_dir() else []:
                shutil.rmtree(learner, ignore_errors=True)

    def gradebook(self) -> Any:
        from grader.gradebook import nbgrader_api
        return nbgrader_api().Gradebook(f"sqlite:///{self.root / 'gradebook.db'}?timeout=120")

    @property
    def api(self) -> Any:
        if self._api is None:
            from nbgrader.apps import NbGraderAPI
            self._api = NbGraderAPI(config=config(self.root, self.settings.as_dict(), self.late.percent_per_day))
        return self._api

    def lay_out(self, hand_in: HandIn, result: LearnerResult, handed_in: dt.datetime | None) -> None:
        """The learner's submitted and autograded folders, as nbgrader's autograde leaves
        them (``batch.py``; in the process that graded them)."""
        from grader.gradebook.batch import lay_out
        lay_out(self, hand_in, result, handed_in)

    def record_all(self, entries: list[tuple[LearnerResult, dt.datetime | None]]) -> None:
        """Record each ``(result, time handed in)``, laid out before, in the gradebook: every
        stage's scores and late penalty, as nbgrader's autograde writes them, in one session
        (``batch.py``). A learner nbgrader cannot record is named among their result's
        problems (their grade in grades.csv stands)."""
        from grader.gradebook.batch import record_all
        failed = record_all(self, [(r.sid, at) for r, at in entries])
        for result, _ in entries:
            if result.sid in failed:
                result.problems.append(f"nbgrader could not record this hand-in in the course's gradebook "
                                       f"({failed[result.sid]})")

    def record_learners(self, ids: dict[str, str]) -> None:
        """Add ``learner -> safe id`` to ``learners.csv``; a re-run adds nothing twice."""
        path = self.ledger
        path.parent.mkdir(parents=True, exist_ok=True)
        known = {}
        if path.exists():
            with path.open(newline="", encoding="utf-8") as file:
                known = {learner: sid for sid, learner in csv.reader(file)}
        known.update(ids)
        with path.open("w", newline="", encoding="utf-8") as file:
            csv.writer(file).writerows((sid, learner) for learner, sid in sorted(known.items()))
