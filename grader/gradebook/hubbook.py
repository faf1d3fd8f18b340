"""The JupyterHub course (``python -m grader hub-course``) as the gradebook of a term.

When ``autograde`` grades a hub course's ``submitted/`` folder (what ``nbgrader collect``
took from the exchange), the term's record goes to the output folder as for any class
(every hand-in kept, the one that counts chosen, the log), and the grades go into the hub
course's own gradebook, the one its formgrader shows, instead of an ``OUT/course``:

* each learner's counted hand-in is recorded through nbgrader's autograde, run with the
  course's own ``nbgrader_config.py`` (so with ``GradeNotebookStage``, handed the verdicts
  already graded instead of grading again), with its time from the term, not from the
  newest collected ``timestamp.txt``;
* the learner's own deadline is nbgrader's extension, and the late penalty follows from it
  (``gradebook/term.py``, with ``assignment_of`` naming the one assignment);
* the term's lines for the learner (which hand-in counted, their deadline, the notes about
  the hand-in and its lateness, the instructor's scores and why), written again after
  every run, stand above the first graded cell of each stage's autograded
  notebook, so ``nbgrader generate_feedback`` shows them.

The learner ids are the hub's account names, which must be the grader's safe ids too.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import pathlib
import stat
from dataclasses import asdict
from typing import Any

from grader.gradebook.course import Course
from grader.intake.hand_in import HandIn
from grader.lateness import LatePolicy
from grader.results import LearnerResult
from grader.settings import Settings
from grader.tasks import STAGES

MARK = "from grader.hub.config import config"   # what the hub course's nbgrader_config.py loads
HEADING = "About this grade:\n"


def is_hub(root: pathlib.Path) -> bool:
    config = pathlib.Path(root) / "nbgrader_config.py"
    return config.is_file() and MARK in config.read_text(encoding="utf-8", errors="replace") \
        and (pathlib.Path(root) / "gradebook.db").is_file()


def open_at(root: pathlib.Path, settings: Settings, late: LatePolicy) -> Course:
    """The course at ``root``: the hub's, or a class's own."""
    return HubCourse(root, settings, late) if is_hub(root) else Course(root, settings, late)


class HubCourse(Course):
    def __init__(self, root: pathlib.Path, settings: Settings, late: LatePolicy,
                 ledger: pathlib.Path | None = None) -> None:
        super().__init__(root, settings, late)
        sources = sorted(p.name for p in (self.root / "source").iterdir() if p.is_dir()) \
            if (self.root / "source").is_dir() else []
        if len(sources) != 1:
            raise ValueError(f"{self.root} is not a course made by hub-course: its source/ should hold one "
                             f"assignment, and holds {', '.join(sources) or 'none'}")
        self.assignment = sources[0]
        self.ledger = ledger or self.root / "learners.csv"
        self.regenerated: list[str] = []

    def nbgrader_config(self) -> Any:
        from traitlets.config.loader import PyFileConfigLoader
        return PyFileConfigLoader("nbgrader_config.py", path=str(self.root)).load_config()

    def policy(self, late: LatePolicy) -> LatePolicy:
        """The term's late policy: ``late``'s deadline, else the course's due date; its rate,
        else the course's (``hub-course --late-penalty``). Two different rates are refused:
        nbgrader's own autograde in the course would charge the other one."""
        own = float(self.nbgrader_config().CourseLatePolicy.get("percent_per_day", 0.0))
        if late.percent_per_day and own != late.percent_per_day:
            raise ValueError(f"--late-penalty {late.percent_per_day:g} differs from the hub course's {own:g} (in "
                             f"{self.root / 'nbgrader_config.py'}): give {own:g}, or run hub-course again with "
                             f"--late-penalty {late.percent_per_day:g} first")
        with self.gradebook() as gradebook:
            due = gradebook.find_assignment(self.assignment).duedate
        return LatePolicy(late.deadline or (due.replace(tzinfo=dt.UTC) if due else None), own)

    def create(self) -> Course:
        """The course is made by hub-course; the term's deadline becomes its due date."""
        with self.gradebook() as gradebook:
            gradebook.update_or_create_assignment(self.assignment, duedate=self.late.deadline.astimezone(
                dt.UTC).replace(tzinfo=None) if self.late.deadline else None)
        return self

    def hand_in_at(self, path: pathlib.Path) -> pathlib.Path:
        """The assignment's folder in ``submitted/<learner>/``: what the learner submitted."""
        inner = path / self.assignment
        return inner if inner.is_dir() and not inner.is_symlink() else path

    def assignment_of(self, stage: str) -> str:
        return self.assignment

    @property
    def api(self) -> Any:
        if self._api is None:
            from nbgrader.apps import NbGraderAPI
            self._api = NbGraderAPI(config=self.nbgrader_config())
        return self._api

    def lay_out(self, hand_in: HandIn, result: LearnerResult, handed_in: dt.datetime | None) -> None:
        """Nothing: the hub course's submitted/ holds what the learner submitted."""

    def record_all(self, entries: list[tuple[LearnerResult, dt.datetime | None]]) -> None:
        for result, handed_in in entries:
            self.record(result, handed_in)

    def record(self, result: LearnerResult, handed_in: dt.datetime | None) -> None:
        """``result``'s verdicts into the learner's submission, every stage's notebook at
        once, with ``handed_in`` as its time (the term's, for the hand-in that counts)."""
        sid = result.sid
        config = self.api.config.GradeFromChecks
        config.recorded = {sid: json.loads(json.dumps([asdict(v) for v in result.all_verdicts()]))}
        try:
            outcome = self.api.autograde(self.assignment, sid, force=True, create=True)
        finally:
            config.recorded = {}
        if not outcome["success"]:
            why = str(outcome.get("error") or outcome.get("log") or "unknown error").strip().splitlines()[-1:]
            result.problems.append(f"nbgrader could not record {sid} in the hub course's gradebook "
                                   f"({' '.join(why)[:200]}); is {sid} in {self.root / 'submitted'}?")
        else:
            self._restamp(sid, handed_in)

    def _restamp(self, sid: str, handed_in: dt.datetime | None) -> None:
        """The submission's time in the gradebook: the term's, for the hand-in that counts."""
        with self.gradebook() as gradebook:
            submission = gradebook.find_submission(self.assignment, sid)
            submission.timestamp = handed_in.astimezone(dt.UTC).replace(tzinfo=None) if handed_in else None
            gradebook.db.commit()

    def annotate(self, sid: str, lines: list[str]) -> None:
        """The term's ``lines`` above the first graded cell of each autograded notebook of
        ``sid`` (in place of the ones a run wrote before; the notebook keeps its mode)."""
        import nbformat
        folder = self.root / "autograded" / sid / self.assignment
        for name in STAGES.values():
            path = folder / f"{name}.ipynb"
            if not path.is_file():
                continue
            nb = nbformat.read(path, as_version=4)
            graded = [c for c in nb.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade")]
            for cell in nb.cells:
                if cell.cell_type == "code":
                    cell.outputs = [o for o in cell.outputs if not str(o.get("text", "")).startswith(HEADING)]
            if graded and lines:
                graded[0].outputs.insert(0, nbformat.v4.new_output(
                    "stream", name="stdout", text=HEADING + "".join(f"  {line}\n" for line in lines)))
            part = path.with_name(path.name + ".part")   # nbgrader leaves autograded notebooks read-only
            nbformat.write(nb, part)
            os.chmod(part, stat.S_IMODE(path.stat().st_mode))
            os.replace(part, path)
