"""The trusted checks: one module per stage, each part of each task one function.

    @part("2.3", "Mul")
    def mul(w, rng): ...

A part receives ``w``, the learner's process (``boundary.runner.LearnerProcess``), and a
random generator seeded by the part's name. It sends inputs to the learner's code through
probes, computes every expected value itself with NumPy, and raises ``CheckFailure``
(``common.py``) naming what is wrong. ``grading/stages.py`` runs every part of a stage
and turns each outcome into a ``Verdict``; nothing a learner's process says is taken as a
verdict. A part may call only the package names its task declares in the manifest
(``grader/tasks.toml``): ``w.call`` refuses any other.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable

from grader.tasks import PARTS, STAGES

REGISTRY: dict[tuple[str, str], Callable] = {}


def part(task: str, name: str) -> Callable[[Callable], Callable]:
    """Register ``fn`` as the check of part ``name`` of ``task`` (declared in the manifest)."""
    if name not in PARTS.get(task, {}):
        raise KeyError(f"task {task} has no part {name!r} in the manifest (grader/tasks.toml)")

    def register(fn: Callable) -> Callable:
        REGISTRY[(task, name)] = fn
        return fn
    return register


def load_all() -> dict[tuple[str, str], Callable]:
    """Every stage's checks, registered; a part of the manifest without a check is an error."""
    for module in pkgutil.iter_modules(__path__):
        if module.name.split("_")[0] in {f"stage{stage}" for stage in STAGES}:  # stage7.py, stage7_gpt.py, ...
            importlib.import_module(f"{__name__}.{module.name}")
    missing = [f"{task} {name!r}" for task, parts in PARTS.items() for name in parts if (task, name) not in REGISTRY]
    if missing:
        raise LookupError(f"parts in the manifest with no check: {', '.join(missing)}")
    return REGISTRY
