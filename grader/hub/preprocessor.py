"""``GradeNotebookStage``: what ``nbgrader autograde`` runs instead of executing a notebook
of the hub course.

The course is one assignment that holds every stage's notebook and the learner's package
``minitorch/`` beside them. Each notebook is named like its stage (``03_reductions``), so
autograding it grades that stage: the submitted folder is read exactly as ``grader check``
reads a hand-in (``grading.hand_ins.grade_learner``, the function ``check`` calls: no links
followed, sizes bounded), the stage's checks run against its package, and
each task's verdicts go into the task's graded cell as ``GradeFromChecks`` writes them, so
nbgrader's own ``SaveAutoGrades`` records the same parts, points and reasons as ``check``.
Its limits are ``GradeFromChecks``'s traitlets (it is one), set by the course's config.
When ``python -m grader autograde`` records a term's hand-in in the course
(``gradebook/hubbook.py``), the verdicts come graded already (``recorded``); the term's
notes about them are written in afterwards.
The verdicts are also kept beside the notebook, in ``autograded/`` (``NN_name.verdicts.json``),
where no learner writes.
"""

from __future__ import annotations

import pathlib
from typing import Any

from grader.gradebook.preprocessor import GradeFromChecks, keep
from grader.grading.hand_ins import grade_learner
from grader.results import LearnerResult, Verdict
from grader.tasks import STAGES, stage_of


class GradeNotebookStage(GradeFromChecks):
    def preprocess(self, nb: Any, resources: dict) -> tuple[Any, dict]:
        folder = pathlib.Path(resources["metadata"]["path"]).resolve()
        notebook, student = resources["nbgrader"]["notebook"], resources["nbgrader"]["student"]
        stage = next((s for s, name in STAGES.items() if name == notebook), None)
        if stage is None:
            return nb, resources  # not a stage's notebook: it has no task to grade
        if student in self.recorded:   # graded already (``autograde`` of the hub's submitted/)
            result = LearnerResult(student)
            result.add([Verdict(**v) for v in self.recorded[student] if stage_of(v["task"]) == stage])
        else:
            result = grade_learner(folder, student, self.settings(), stages=[stage])
        keep(nb, result, folder / f"{notebook}.verdicts.json")
        return nb, resources

