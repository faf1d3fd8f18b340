"""Grading one hand-in: every stage's checks, once each, against a package read without
trusting it. ``grade_learner`` reads a hand-in's folder or zip and grades it (``check``,
the nbgrader preprocessors, one stage or all); ``grade_stages`` grades a hand-in already
read (``autograde``'s jobs, a queue's worker, the platforms). Each stage runs in
``stages.run_stage``; what one stage learns of the hand-in (an import that hangs) is kept
for the later ones.
"""

from __future__ import annotations

import os
import pathlib
import tempfile
from collections.abc import Callable, Iterable

from grader.intake.hand_in import HandIn, read_hand_in
from grader.results import Failure, LearnerResult, failed_everywhere
from grader.settings import Settings
from grader.tasks import STAGES


def grade_learner(path: pathlib.Path, learner: str, settings: Settings,
                  progress: Callable[[str], None] = lambda stage: None,
                  stages: Iterable[str] = STAGES) -> LearnerResult:
    """Read a hand-in (a folder or a .zip) into a scratch folder and grade ``stages``."""
    with tempfile.TemporaryDirectory(prefix="minitorch-hand-in-") as scratch:
        return grade_stages(read_hand_in(path, learner, pathlib.Path(scratch)), settings, progress, stages)


def grade_stages(hand_in: HandIn, settings: Settings,
                 progress: Callable[[str], None] = lambda stage: None,
                 stages: Iterable[str] = STAGES) -> LearnerResult:
    """``stages``' checks against a hand-in already read. What one stage learns of the
    hand-in (an import that hangs) is kept for the later ones in a ``HandInMemory`` that
    lives as long as this call; what it noted for the learner joins the hand-in's problems."""
    from grader.grading.stages import HandInMemory, run_stage
    memory = HandInMemory()
    result = LearnerResult(hand_in.learner, problems=list(hand_in.problems))
    try:
        for stage in stages:
            progress(stage)
            if stage in hand_in.packages:
                result.add(run_stage(hand_in.packages[stage], stage, settings, memory))
            else:
                result.add(failed_everywhere(hand_in.broken or "no package to grade", Failure.NO_PACKAGE, [stage]))
    finally:
        memory.close()
    result.problems += memory.notes()
    return result


def become_subreaper() -> None:
    """Processes a learner's code detaches end up as this process's children, where the
    cage's sweep finds them even without control groups."""
    if hasattr(os, "sched_getaffinity"):
        import ctypes
        ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
