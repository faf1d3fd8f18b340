"""``GradeFromChecks``: the nbgrader preprocessor that takes the place of ``Execute``.

When ``python -m grader autograde`` records a learner, it has already graded them (every
stage, once: ``grading.hand_ins.grade_stages``) and hands each stage's verdicts in through
the ``recorded`` traitlet; when an instructor runs ``nbgrader autograde`` in the course by
hand, nothing is recorded and it reads and grades the submitted folder (the notebook and
the ``minitorch/`` package beside it) as ``check`` does (``grading.hand_ins.grade_learner``,
this notebook's stage only), under the limits its traitlets set (one per ``Settings``
field). Either way it writes each task's result into its graded cell the way nbgrader
scores cells: nothing but text when every part passed, an ``execute_result`` holding the
points earned when some did, an error when none did; and it keeps the verdicts in
``verdicts.json`` in ``autograded/`` (where no learner code ever writes) as a record. The
notebook itself is never executed. ``CourseLatePolicy`` is the course's late rule as
nbgrader's late-submission plugin. Written against nbgrader 0.9.6.
"""

from __future__ import annotations

import pathlib
from typing import Any, TypeVar

from nbgrader.plugins import LateSubmissionPlugin
from nbgrader.preprocessors import NbGraderPreprocessor
from traitlets import Bool, Dict, Float, Int

from grader.gradebook.cells import keep
from grader.grading.hand_ins import grade_learner
from grader.lateness import days_and_percent as lateness_of
from grader.results import LearnerResult, Verdict
from grader.settings import Settings
from grader.tasks import STAGES

_TRAIT = {float: Float, int: Int, bool: Bool, "float": Float, "int": Int, "bool": Bool}
T = TypeVar("T", bound=type)


def with_limits(cls: T) -> T:
    """``cls`` with one traitlet per ``Settings`` field (``GradeFromChecks.call_seconds``...,
    as the command line's flags), made from the fields: a subclass of the same name, since
    traitlets reads a class's traits when the class is made."""
    traits: dict[str, Any] = {f.name: _TRAIT[f.type](f.default, help=f.metadata["help"]).tag(config=True)
                              for f in Settings.fields()}
    return type(cls)(cls.__name__, (cls,), {**traits, "__module__": cls.__module__, "__doc__": cls.__doc__})


@with_limits
class GradeFromChecks(NbGraderPreprocessor):
    recorded = Dict(help="{student id: verdicts of this assignment} already graded by the grader; "
                         "a learner not in it is graded by running the checks").tag(config=True)

    def settings(self) -> Settings:
        return Settings(**{f.name: getattr(self, f.name) for f in Settings.fields()})

    def preprocess(self, nb: Any, resources: dict) -> tuple[Any, dict]:
        folder = pathlib.Path(resources["metadata"]["path"]).resolve()
        assignment, student = resources["nbgrader"]["assignment"], resources["nbgrader"]["student"]
        stage = next(s for s, name in STAGES.items() if name == assignment)
        if student in self.recorded:
            result = LearnerResult(student)
            result.add([Verdict(**v) for v in self.recorded[student]])
        else:  # by hand in the course: the folder is read and graded as ``check`` does
            result = grade_learner(folder, student, self.settings(), stages=[stage])
        keep(nb, result, folder / "verdicts.json")
        return nb, resources


class CourseLatePolicy(LateSubmissionPlugin):
    """nbgrader's late-submission plugin with the course's rule: each started day late costs
    ``percent_per_day`` percent of the notebook's score (set from ``--late-penalty``)."""

    percent_per_day = Float(0.0, help="percent of the score taken off per started day late").tag(config=True)

    def late_submission_penalty(self, student_id: str, score: float, total_seconds_late: float) -> float:
        days, percent = lateness_of(total_seconds_late, self.percent_per_day)
        return score * percent / 100
