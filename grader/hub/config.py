"""The nbgrader settings of the hub course, which its ``nbgrader_config.py`` loads.

They are the gradebook course's (``gradebook.course.config``: the course folder, its gradebook,
missing cells put back) with the hub's own: the course id and exchange that learners share,
``GradeNotebookStage`` in the place of executing notebooks, the learner's package files
never overwritten with the source's stubs (nbgrader would otherwise grade the stubs),
and ``OwnedCollect`` as the collect step. The late rule is the gradebook course's
(``CourseLatePolicy``, each started day after the due date costs a percentage).
"""

from __future__ import annotations

import pathlib
from typing import Any


def package_files(root: pathlib.Path, assignment: str) -> list[str]:
    """The ``.py`` files of the source package: the learner edits them, autograde keeps theirs."""
    source = root / "source" / assignment
    return sorted(p.relative_to(source).as_posix() for p in (source / "minitorch").rglob("*.py"))


def config(root: str | pathlib.Path, course_id: str, assignment: str, exchange: str, settings: dict,
           late_percent_per_day: float = 0.0) -> Any:
    from grader.gradebook.course import config as gradebook_config
    from grader.gradebook.preprocessor import GradeFromChecks
    from grader.hub.collect import OwnedCollect
    from grader.hub.preprocessor import GradeNotebookStage
    root = pathlib.Path(root)
    c = gradebook_config(root, settings, late_percent_per_day)
    c.CourseDirectory.course_id = course_id
    c.Exchange.root = str(exchange)
    c.Autograde.autograde_preprocessors = [GradeNotebookStage if p is GradeFromChecks else p
                                           for p in c.Autograde.autograde_preprocessors]
    c.Autograde.exclude_overwriting = {assignment: package_files(root, assignment)}
    c.ExchangeFactory.collect = OwnedCollect
    return c
