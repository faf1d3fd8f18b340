"""Many packages graded as a class is: each through every stage in one learner process per
hand-in (``grade_stages``, as ``autograde``, ``check`` and the platforms grade), two hand-ins
at a time in a pool of processes. The variants' tests grade what they need in one batch at
their first use, then read the results (``Batch``)."""

from __future__ import annotations

import multiprocessing
import pathlib
from collections.abc import Callable, Collection, Iterable
from concurrent.futures import ProcessPoolExecutor

from grader.grading.hand_ins import become_subreaper, grade_stages
from grader.intake.hand_in import HandIn
from grader.results import LearnerResult
from grader.settings import Settings
from grader.tasks import STAGES

WORKERS = 2  # the machines the suite runs on have two cores


def grade_package(package: pathlib.Path, settings: Settings | None = None,
                  stages: Collection[str] | None = None) -> LearnerResult:
    """Every stage of the ``minitorch/`` folder ``package`` (or only ``stages``; the others
    then score 0), graded in place as ``check`` does."""
    hand_in = HandIn("test", {stage: package for stage in (stages or STAGES)})
    return grade_stages(hand_in, settings or Settings())


def grade_packages(packages: dict[str, pathlib.Path],
                   stages: Callable[[str], Collection[str] | None] = lambda name: None) -> dict[str, LearnerResult]:
    """``grade_package`` for each (of the stages ``stages(name)`` names), ``WORKERS`` at a time."""
    if len(packages) == 1:
        return {name: grade_package(path, stages=stages(name)) for name, path in packages.items()}
    with ProcessPoolExecutor(WORKERS, mp_context=multiprocessing.get_context("spawn"),
                             initializer=become_subreaper) as pool:
        futures = {name: pool.submit(grade_package, path, None, stages(name)) for name, path in packages.items()}
        return {name: future.result() for name, future in futures.items()}


class Batch:
    """Results by name, graded on first use: a miss grades every name still ``pending``
    (those the session's selected tests will ask for) together with the one asked for."""

    def __init__(self, make: Callable[[str, pathlib.Path], pathlib.Path], scratch: pathlib.Path,
                 pending: Iterable[str] = (), stages: Callable[[str], Collection[str] | None] = lambda name: None):
        self.make, self.scratch, self.stages = make, scratch, stages
        self.pending = list(dict.fromkeys(pending))
        self.results: dict[str, LearnerResult] = {}

    def __getitem__(self, name: str) -> LearnerResult:
        if name not in self.results:
            names = [n for n in dict.fromkeys([name, *self.pending]) if n not in self.results]
            packages = {n: self.make(n, self.scratch / f"p{len(self.results) + i}" / "minitorch")
                        for i, n in enumerate(names)}
            self.results.update(grade_packages(packages, self.stages))
            self.pending = []
        return self.results[name]
