"""The nbgrader course that records a class's grades.

Each stage is an nbgrader assignment whose notebook has one graded cell per task (points
from ``tasks.PARTS``). A learner's package is put beside that notebook in
``submitted/<id>/<stage>/``, and nbgrader's own ``autograde`` does the rest with one change
(``nbgrader_config.py`` and ``config`` below): instead of executing the notebook, it runs
``GradeFromChecks`` (``preprocessor.py``), which runs the trusted checks against the
package and writes each task's result into its cell, from which nbgrader's SaveAutoGrades
computes the scores and writes the gradebook, once. So ``python -m grader autograde`` and
``nbgrader autograde`` run in the course folder grade the same way, through the same code.

Learner ids reach nbgrader only as safe ids (``safe_id``); ``learners.csv`` in the course
maps them back.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import pathlib
import re
import shutil
import sys
import warnings

from .settings import Settings
from .tasks import PARTS, STAGES, TASKS, marker, stage_of, tasks_of

GRADER = pathlib.Path(__file__).resolve().parent
warnings.filterwarnings("ignore", module="sqlalchemy")  # nbgrader's ORM chatter
warnings.filterwarnings("ignore", message=".*not in session.*")

NBGRADER_CONFIG = """\
# nbgrader's own commands on this course grade as `python -m grader autograde` does: the
# grader that made the course runs its trusted checks against each learner's package.
import sys

c = get_config()  # noqa: F821
sys.path.insert(0, {root!r})
try:  # nbgrader would only log an error here and then grade with its defaults: stop instead
    from grader.course import config
    c.merge(config({course!r}, {settings!r}))
except Exception as error:
    raise SystemExit(f"{{__file__}}: the grader that made this course ({root}) could not be loaded "
                     f"({{type(error).__name__}}: {{error}}); without it nbgrader would give wrong grades") from None
c.Application.log_level = "INFO"
"""


def safe_id(learner: str) -> str:
    """A learner id nbgrader and every file system can use, distinct for distinct ids: a
    changed id gets a hash of the original at its end, and an id that already ends like
    that is hashed too, so that no learner's own id can be another's changed one."""
    clean = re.sub(r"[^A-Za-z0-9_-]", "_", learner)[:40].strip("_") or "learner"
    if clean == learner and not HASHED.search(learner):
        return learner
    return f"{clean}-{hashlib.sha1(learner.encode()).hexdigest()[:8]}"


HASHED = re.compile(r"-[0-9a-f]{8}$")


def config(root, settings: dict):
    from nbgrader.converters import Autograde
    from traitlets.config import Config

    from .preprocessor import GradeFromChecks
    root = pathlib.Path(root)
    c = Config()
    c.CourseDirectory.root = str(root)
    c.CourseDirectory.db_url = f"sqlite:///{root / 'gradebook.db'}?timeout=120"
    c.OverwriteCells.add_missing_cells = True
    c.Application.log_level = "ERROR"
    c.GradeFromChecks.settings = dict(settings)
    # nbgrader 0.9.6's autograde runs Execute among its preprocessors; ours takes its place.
    # If a later nbgrader drops or renames it, stop rather than grade without the checks.
    defaults = Autograde.class_traits()["autograde_preprocessors"].default()
    if [p.__name__ for p in defaults].count("Execute") != 1:
        raise RuntimeError("this nbgrader's autograde has no single Execute step for the grader to replace "
                           f"({[p.__name__ for p in defaults]}); the grader was written against nbgrader 0.9.6")
    c.Autograde.autograde_preprocessors = [GradeFromChecks if p.__name__ == "Execute" else p for p in defaults]
    return c


def grading_notebook(stage: str):
    """The notebook of a stage's assignment: a graded cell per task, nothing to run."""
    import nbformat
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells.append(nbformat.v4.new_markdown_cell(f"# Stage {stage}: {STAGES[stage]}\n\nEach cell below holds the "
                                                  "grader's verdict on one task of your minitorch package."))
    for task in tasks_of(stage):
        cell = nbformat.v4.new_code_cell(f"# Task {task}: {TASKS[task]} (checked by the grader, outside this notebook)")
        cell.metadata["nbgrader"] = {"grade": True, "grade_id": marker(task), "locked": True, "schema_version": 3,
                                     "points": sum(PARTS[task].values()), "solution": False, "task": False}
        nb.cells.append(cell)
    for number, cell in enumerate(nb.cells):
        cell.id = f"s{stage}-{number:02d}"
    return nb


class Course:
    def __init__(self, root: pathlib.Path, settings: Settings) -> None:
        self.root, self.settings = pathlib.Path(root).resolve(), settings
        self._api = None

    def create(self) -> "Course":
        """Make the course (assignments, gradebook) unless it exists; write its config."""
        import nbformat
        if not (self.root / "gradebook.db").exists():
            bin_dir = str(pathlib.Path(sys.executable).parent)  # nbgrader runs `alembic` from PATH
            os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
            for stage, name in STAGES.items():
                (self.root / "source" / name).mkdir(parents=True, exist_ok=True)
                nbformat.write(grading_notebook(stage), self.root / "source" / name / f"{name}.ipynb")
                result = self.api.generate_assignment(name)
                if not result["success"]:
                    raise RuntimeError(f"nbgrader could not generate {name}: {result.get('error')}")
        (self.root / "nbgrader_config.py").write_text(NBGRADER_CONFIG.format(
            root=str(GRADER.parent), course=str(self.root), settings=self.settings.as_dict()))
        return self

    @property
    def api(self):
        if self._api is None:
            from nbgrader.apps import NbGraderAPI
            self._api = NbGraderAPI(config=config(self.root, self.settings.as_dict()))
        return self._api

    def grade(self, hand_in, sid: str, graded=None):
        """Grade one learner's hand-in through nbgrader; returns the ``LearnerResult``. With
        ``graded`` (a ``LearnerResult`` from a queue worker), nbgrader records its verdicts
        instead of running the checks."""
        from .checks import new_hand_in
        from .preprocessor import recorded
        from .results import LearnerResult, failed_everywhere
        new_hand_in()
        result = LearnerResult(hand_in.learner, problems=list(hand_in.problems))
        for stage, name in STAGES.items():
            folder = self.root / "submitted" / sid / name
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir(parents=True)
            shutil.copyfile(self.root / "release" / name / f"{name}.ipynb", folder / f"{name}.ipynb")
            if stage in hand_in.packages:
                shutil.copytree(hand_in.packages[stage], folder / "minitorch")
            verdicts_of_stage = None if graded is None else [
                v for v in graded.all_verdicts() if stage_of(v.task) == stage]
            with recorded(verdicts_of_stage):
                outcome = self.api.autograde(name, sid, force=True, create=True)
            verdicts = self.root / "autograded" / sid / name / "verdicts.json"
            if outcome["success"] and verdicts.is_file():
                result.add(LearnerResult.from_json(json.loads(verdicts.read_text())).all_verdicts())
            else:
                why = str(outcome.get("error") or outcome.get("log") or "unknown error").strip().splitlines()[-1:]
                result.add(failed_everywhere(f"nbgrader could not grade this stage ({' '.join(why)[:200]})",
                                             "grading error", [stage]))
        return result

    def record_learners(self, ids: dict[str, str]) -> None:
        """Add ``learner -> safe id`` to ``learners.csv``; a re-run adds nothing twice."""
        path = self.root / "learners.csv"
        known = {}
        if path.exists():
            with path.open(newline="", encoding="utf-8") as file:
                known = {learner: sid for sid, learner in csv.reader(file)}
        known.update(ids)
        with path.open("w", newline="", encoding="utf-8") as file:
            csv.writer(file).writerows((sid, learner) for learner, sid in sorted(known.items()))
