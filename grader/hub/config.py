"""The nbgrader settings of the hub course, which its ``nbgrader_config.py`` loads.

They are the gradebook course's (``course.config``: the course folder, its gradebook,
missing cells put back) with the hub's own: the course id and exchange that learners share,
``GradeNotebookStage`` in the place of executing notebooks, the learner's package files
never overwritten with the source's stubs (nbgrader would otherwise grade the stubs),
``OwnedCollect`` as the collect step, and the late rule.
"""

from __future__ import annotations

import pathlib


def package_files(root: pathlib.Path, assignment: str) -> list[str]:
    """The ``.py`` files of the source package: the learner edits them, autograde keeps theirs."""
    source = root / "source" / assignment
    return sorted(p.relative_to(source).as_posix() for p in (source / "minitorch").rglob("*.py"))


def config(root, course_id: str, assignment: str, exchange: str, settings: dict,
           late_percent_per_day: float = 0.0):
    from ..course import config as gradebook_config
    from ..preprocessor import GradeFromChecks
    from .collect import OwnedCollect
    from .late import PercentPerDay
    from .preprocessor import GradeNotebookStage
    root = pathlib.Path(root)
    c = gradebook_config(root, settings)
    c.CourseDirectory.course_id = course_id
    c.Exchange.root = str(exchange)
    c.Autograde.autograde_preprocessors = [GradeNotebookStage if p is GradeFromChecks else p
                                           for p in c.Autograde.autograde_preprocessors]
    c.GradeNotebookStage.settings = dict(settings)
    c.Autograde.exclude_overwriting = {assignment: package_files(root, assignment)}
    c.ExchangeFactory.collect = OwnedCollect
    if late_percent_per_day:
        c.AssignLatePenalties.plugin_class = PercentPerDay
        c.PercentPerDay.percent_per_day = float(late_percent_per_day)
    return c
